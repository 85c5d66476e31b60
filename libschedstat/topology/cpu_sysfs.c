// SPDX-License-Identifier: GPL-2.0
/*
 * What sysfs says about CPUs: which exist, their cpu_capacity, cpufreq
 * policies and their ranges. Read below a root that tests point at
 * captured trees (tests/fixtures/sysfs).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

/*
 * Room for a CPU list in either sysfs form: for SCHEDSTAT_MAX_CPUS CPUs
 * written one by one ("0 1 2 ..." in cpufreq files) that is under 4.5 KiB.
 */
#define CPULIST_FILE_LEN	8192

int topo_read_cpulist(const char *root, const char *rel,
			struct cpuset *set)
{
	char *buf = malloc(CPULIST_FILE_LEN);
	int err;

	if (!buf)
		return -ENOMEM;
	err = sysfs_read(root, rel, buf, CPULIST_FILE_LEN);
	if (err >= 0)
		err = cpulist_parse(buf, set);
	free(buf);
	return err;
}

/*
 * cpufreq's related_cpus is "0 1 2 3" (cpufreq_show_cpus()), not a CPU
 * list; turn the blanks between numbers into commas so both forms parse.
 */
int topo_read_cpu_words(const char *root, const char *rel,
			  struct cpuset *set)
{
	char *buf = malloc(CPULIST_FILE_LEN);
	char *s, *d;
	int err;

	if (!buf)
		return -ENOMEM;
	err = sysfs_read(root, rel, buf, CPULIST_FILE_LEN);
	if (err < 0)
		goto out;
	for (s = d = buf; *s;) {
		if (*s == ' ' || *s == '\t' || *s == '\n') {
			while (*s == ' ' || *s == '\t' || *s == '\n')
				s++;
			if (d != buf && *s && d[-1] != ',' && *s != ',' &&
			    d[-1] != '-' && *s != '-')
				*d++ = ',';
			continue;
		}
		*d++ = *s++;
	}
	*d = '\0';
	err = cpulist_parse(buf, set);
out:
	free(buf);
	return err;
}

/* 0 with @cap set, or -errno when the CPU has no cpu_capacity file. */
int topo_read_cpu_capacity(const char *root, int cpu, unsigned int *cap)
{
	char rel[64];
	uint64_t v;
	int err;

	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpu_capacity", cpu);
	err = sysfs_read_u64(root, rel, &v);
	if (err)
		return err;
	*cap = v > UINT_MAX ? UINT_MAX : v;
	return 0;
}

/* "cpu" followed by digits only: cpufreq and cpuidle live next to them. */
static int cpu_dir_number(const char *name)
{
	long v = 0;

	if (strncmp(name, "cpu", 3) || !name[3])
		return -1;
	for (name += 3; *name; name++) {
		if (*name < '0' || *name > '9')
			return -1;
		v = v * 10 + (*name - '0');
		if (v >= SCHEDSTAT_MAX_CPUS)
			return -1;
	}
	return v;
}

static int scan_cpu_dirs(const char *root, struct cpuset *set)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/devices/system/cpu", root ? root : "/sys");
	dir = opendir(path);
	if (!dir)
		return -errno;
	memset(set, 0, sizeof(*set));
	while ((de = readdir(dir))) {
		int cpu = cpu_dir_number(de->d_name);

		if (cpu >= 0)
			cpuset_set(set, cpu);
	}
	closedir(dir);
	return 0;
}

/*
 * Possible CPUs, offline ones included: a CPU hotplugged in later must
 * already have a cluster. A file that exists but does not parse is an
 * error rather than a reason to guess from the next source.
 */
int topo_read_possible(const char *root, struct cpuset *set)
{
	int err;

	err = topo_read_cpulist(root, "devices/system/cpu/possible", set);
	if (err == -ENOENT || err == -EACCES)
		err = topo_read_cpulist(root, "devices/system/cpu/present", set);
	if (err == -ENOENT || err == -EACCES)
		err = scan_cpu_dirs(root, set);
	if (!err && !cpuset_count(set))
		err = -ENOENT;
	return err;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* policyN numbers below devices/system/cpu/cpufreq, ascending. */
int topo_list_policies(const char *root, int **out, int *nr)
{
	char path[PATH_MAX];
	struct dirent *de;
	int *ids = NULL, n = 0;
	size_t cap = 0;
	DIR *dir;

	*out = NULL;
	*nr = 0;
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpufreq",
		 root ? root : "/sys");
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char *end;
		long id;

		if (strncmp(de->d_name, "policy", 6) || !de->d_name[6])
			continue;
		id = strtol(de->d_name + 6, &end, 10);
		if (*end || id < 0 || id >= SCHEDSTAT_MAX_CPUS)
			continue;
		if (schedstat_array_reserve((void **)&ids, &cap, (size_t)n + 1,
					    sizeof(*ids))) {
			free(ids);
			closedir(dir);
			return -ENOMEM;
		}
		ids[n++] = id;
	}
	closedir(dir);
	if (n)
		qsort(ids, n, sizeof(*ids), cmp_int);
	*out = ids;
	*nr = n;
	return 0;
}


/* Each cluster's cpufreq policy and frequency range, where cpufreq exists. */
int topo_read_cluster_freqs(struct schedstat_topology *topo, const char *root)
{
	int *ids, nr_ids, err;

	err = topo_list_policies(root, &ids, &nr_ids);
	if (err == -ENOMEM)
		return err;
	for (int i = 0; !err && i < nr_ids; i++) {
		struct cpuset related;
		char rel[96];

		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpufreq/policy%d/related_cpus", ids[i]);
		if (topo_read_cpu_words(root, rel, &related))
			continue;
		for (int k = 0; k < topo->nr_clusters; k++) {
			struct cluster *c = &topo->clusters[k];
			uint64_t v;

			if (c->policy >= 0 || c->first < 0 ||
			    !cpuset_test(&related, c->first))
				continue;
			c->policy = ids[i];
			snprintf(rel, sizeof(rel),
				 "devices/system/cpu/cpufreq/policy%d/cpuinfo_min_freq", ids[i]);
			if (!sysfs_read_u64(root, rel, &v) && v <= UINT32_MAX)
				c->freq_min_khz = v;
			snprintf(rel, sizeof(rel),
				 "devices/system/cpu/cpufreq/policy%d/cpuinfo_max_freq", ids[i]);
			if (!sysfs_read_u64(root, rel, &v) && v <= UINT32_MAX)
				c->freq_max_khz = v;
		}
	}
	free(ids);
	return 0;
}

int topology_read_online(const char *sysfs_root, struct cpuset *online)
{
	return topo_read_cpulist(sysfs_root, "devices/system/cpu/online", online);
}

int topology_pread_online(int fd, struct cpuset *online)
{
	char *buf = malloc(CPULIST_FILE_LEN);
	int err;

	if (!buf)
		return -ENOMEM;
	err = sysfs_pread(fd, buf, CPULIST_FILE_LEN);
	if (err >= 0)
		err = cpulist_parse(buf, online);
	free(buf);
	return err;
}
