// SPDX-License-Identifier: GPL-2.0
/*
 * Clusters of CPUs: detected from sysfs (cpu_capacity, else cpufreq
 * policies) or given by the user as "NAME:CPULIST[@CAPACITY],...".
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedstat-local.h"
#include "sched_kernel.h"

/* What the kernel assumes for a CPU that has no cpu_capacity file. */
#define DEFAULT_CAPACITY	SCHED_CAPACITY_SCALE
#define MAX_SPEC_CAPACITY	SCHED_CAPACITY_SCALE

/*
 * Room for a CPU list in either sysfs form: for SCHEDSTAT_MAX_CPUS CPUs
 * written one by one ("0 1 2 ..." in cpufreq files) that is under 4.5 KiB.
 */
#define CPULIST_FILE_LEN	8192

struct cluster {
	char name[SCHEDSTAT_NAME_LEN];
	struct cpuset cpus;
	unsigned int capacity;	/* largest of its CPUs */
	int nr_cpus;
	int first;		/* lowest CPU: breaks capacity ties */
	int policy;		/* cpufreq policyN, -1 if none */
	unsigned int freq_min_khz, freq_max_khz;
};

struct schedstat_topology {
	enum schedstat_topology_origin origin;
	int nr_cpus;		/* highest CPU in a cluster + 1 */
	int nr_clusters;
	int max_clusters;	/* allocated */
	struct cluster *clusters;
	int16_t cpu_cluster[SCHEDSTAT_MAX_CPUS];	/* -1: in no cluster */
	unsigned int cpu_capacity[SCHEDSTAT_MAX_CPUS];	/* 0: in no cluster */
};

#define for_each_cpu(cpu, set)						\
	for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)		\
		if (cpuset_test(set, cpu))

static void cpuset_or(struct cpuset *dst,
		      const struct cpuset *src)
{
	for (size_t i = 0; i < ARRAY_SIZE(dst->bits); i++)
		dst->bits[i] |= src->bits[i];
}

static void cpuset_and(struct cpuset *dst,
		       const struct cpuset *src)
{
	for (size_t i = 0; i < ARRAY_SIZE(dst->bits); i++)
		dst->bits[i] &= src->bits[i];
}

static void cpuset_andnot(struct cpuset *dst,
			  const struct cpuset *src)
{
	for (size_t i = 0; i < ARRAY_SIZE(dst->bits); i++)
		dst->bits[i] &= ~src->bits[i];
}

static bool cpuset_intersects(const struct cpuset *a,
			      const struct cpuset *b)
{
	for (size_t i = 0; i < ARRAY_SIZE(a->bits); i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

static struct schedstat_topology *topo_alloc(enum schedstat_topology_origin origin)
{
	struct schedstat_topology *topo = calloc(1, sizeof(*topo));

	if (!topo)
		return NULL;
	topo->origin = origin;
	for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)
		topo->cpu_cluster[cpu] = -1;
	return topo;
}

void schedstat_topology_free(struct schedstat_topology *topo)
{
	if (!topo)
		return;
	free(topo->clusters);
	free(topo);
}

/* Capacities of the CPUs in @set must be filled in before. */
static int topo_add_cluster(struct schedstat_topology *topo,
			    const struct cpuset *set, const char *name)
{
	struct cluster *c;

	/* Each cluster holds a CPU: SCHEDSTAT_MAX_CPUS bounds the growth. */
	if (topo->nr_clusters == topo->max_clusters) {
		int max = topo->max_clusters ? topo->max_clusters * 2 : 4;

		c = realloc(topo->clusters, max * sizeof(*c));
		if (!c)
			return -ENOMEM;
		topo->clusters = c;
		topo->max_clusters = max;
	}
	c = &topo->clusters[topo->nr_clusters++];
	memset(c, 0, sizeof(*c));
	if (name)
		snprintf(c->name, sizeof(c->name), "%s", name);
	c->cpus = *set;
	c->nr_cpus = cpuset_count(set);
	c->first = -1;
	c->policy = -1;
	for_each_cpu(cpu, set) {
		if (c->first < 0)
			c->first = cpu;
		if (topo->cpu_capacity[cpu] > c->capacity)
			c->capacity = topo->cpu_capacity[cpu];
	}
	return 0;
}

/* Index CPUs by cluster once the clusters are in their final order. */
static void topo_finish(struct schedstat_topology *topo)
{
	struct cpuset all = {};

	for (int k = 0; k < topo->nr_clusters; k++) {
		for_each_cpu(cpu, &topo->clusters[k].cpus)
			topo->cpu_cluster[cpu] = k;
		cpuset_or(&all, &topo->clusters[k].cpus);
	}
	/* A CPU outside every cluster has no capacity schedtop knows of. */
	for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)
		if (!cpuset_test(&all, cpu))
			topo->cpu_capacity[cpu] = 0;
	topo->nr_cpus = cpuset_end(&all);
}

static int read_cpulist(const char *root, const char *rel,
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
static int read_cpu_words(const char *root, const char *rel,
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
static int read_cpu_capacity(const char *root, int cpu, unsigned int *cap)
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
static int read_possible(const char *root, struct cpuset *set)
{
	int err;

	err = read_cpulist(root, "devices/system/cpu/possible", set);
	if (err == -ENOENT || err == -EACCES)
		err = read_cpulist(root, "devices/system/cpu/present", set);
	if (err == -ENOENT || err == -EACCES)
		err = scan_cpu_dirs(root, set);
	if (!err && !cpuset_count(set))
		err = -ENOENT;
	return err;
}

static int group_by_capacity(struct schedstat_topology *topo,
			     const struct cpuset *possible)
{
	struct cpuset left = *possible;

	while (cpuset_count(&left)) {
		struct cpuset group = {};
		unsigned int cap = 0;
		bool first = true;
		int err;

		for_each_cpu(cpu, &left) {
			if (first) {
				cap = topo->cpu_capacity[cpu];
				first = false;
			}
			if (topo->cpu_capacity[cpu] == cap)
				cpuset_set(&group, cpu);
		}
		err = topo_add_cluster(topo, &group, NULL);
		if (err)
			return err;
		cpuset_andnot(&left, &group);
	}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* policyN numbers below devices/system/cpu/cpufreq, ascending. */
static int list_policies(const char *root, int **out, int *nr)
{
	char path[PATH_MAX];
	struct dirent *de;
	int *ids = NULL, n = 0, cap = 0;
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
		if (n == cap) {
			int *p = realloc(ids, (cap ? cap * 2 : 16) * sizeof(*ids));

			if (!p) {
				free(ids);
				closedir(dir);
				return -ENOMEM;
			}
			ids = p;
			cap = cap ? cap * 2 : 16;
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


/*
 * One cluster per cpufreq policy, if any policy spans more than one CPU:
 * per-CPU policies (intel_pstate, acpi-cpufreq) say nothing about clusters.
 * Returns 1 if clusters were added, 0 if cpufreq tells nothing, or -errno.
 */
/* The possible CPUs not @placed yet, as one more cluster. */
static int add_rest(struct schedstat_topology *topo,
		    const struct cpuset *possible,
		    const struct cpuset *placed)
{
	struct cpuset rest = *possible;

	cpuset_andnot(&rest, placed);
	return cpuset_count(&rest) ? topo_add_cluster(topo, &rest, NULL) : 0;
}

static int group_by_cpufreq(struct schedstat_topology *topo, const char *root,
			    const struct cpuset *possible)
{
	struct cpuset *sets, placed = {};
	int *ids, nr_ids, nr_sets = 0, err;
	bool multi = false;

	err = list_policies(root, &ids, &nr_ids);
	if (err == -ENOMEM)
		return err;
	if (err || !nr_ids) {
		free(ids);
		return 0;
	}
	sets = calloc(nr_ids, sizeof(*sets));
	if (!sets) {
		free(ids);
		return -ENOMEM;
	}
	for (int i = 0; i < nr_ids; i++) {
		struct cpuset *set = &sets[nr_sets];
		char rel[96];

		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpufreq/policy%d/related_cpus", ids[i]);
		err = read_cpu_words(root, rel, set);
		if (err == -ENOMEM)
			goto out;
		/* An unreadable policy leaves its CPUs to the extra cluster. */
		if (err)
			continue;
		cpuset_and(set, possible);
		cpuset_andnot(set, &placed);
		if (!cpuset_count(set))
			continue;
		if (cpuset_count(set) > 1)
			multi = true;
		cpuset_or(&placed, set);
		nr_sets++;
	}
	err = 0;
	if (!multi)
		goto out;
	for (int i = 0; i < nr_sets; i++) {
		err = topo_add_cluster(topo, &sets[i], NULL);
		if (err)
			goto out;
	}
	/* CPUs in no policy (no cpufreq driver for them) still need a home. */
	err = add_rest(topo, possible, &placed);
	if (err)
		goto out;
	err = 1;
out:
	free(sets);
	free(ids);
	return err;
}

/*
 * topology/cluster_cpus_list: CPUs sharing a cluster (L2 or SoC cluster).
 * Where it only repeats core_cpus_list (SMT siblings, x86) it says nothing.
 * Returns 1 when it made clusters, 0 when it had nothing to say.
 */
static int group_by_cluster_cpus(struct schedstat_topology *topo, const char *root,
				 const struct cpuset *possible)
{
	struct cpuset placed = {};
	bool informative = false;
	int groups = 0, err;

	for_each_cpu(cpu, possible) {
		struct cpuset cl, core;
		char rel[96];

		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%d/topology/cluster_cpus_list", cpu);
		if (read_cpulist(root, rel, &cl))
			continue;
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%d/topology/core_cpus_list", cpu);
		if (read_cpulist(root, rel, &core) || memcmp(&cl, &core, sizeof(cl)))
			informative = true;
		if (!cpuset_test(&placed, cpu))
			groups++;
		cpuset_or(&placed, &cl);
	}
	if (!informative || groups < 2)
		return 0;
	placed = (struct cpuset){};
	for_each_cpu(cpu, possible) {
		struct cpuset cl;
		char rel[96];

		if (cpuset_test(&placed, cpu))
			continue;
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%d/topology/cluster_cpus_list", cpu);
		if (read_cpulist(root, rel, &cl))
			continue;
		cpuset_and(&cl, possible);
		cpuset_andnot(&cl, &placed);
		cpuset_or(&placed, &cl);
		err = topo_add_cluster(topo, &cl, NULL);
		if (err)
			return err;
	}
	/* Offline CPUs have no topology directory: they share one cluster. */
	err = add_rest(topo, possible, &placed);
	return err ? err : 1;
}

/* Each cluster's cpufreq policy and frequency range, where cpufreq exists. */
static int read_cluster_freqs(struct schedstat_topology *topo, const char *root)
{
	int *ids, nr_ids, err;

	err = list_policies(root, &ids, &nr_ids);
	if (err == -ENOMEM)
		return err;
	for (int i = 0; !err && i < nr_ids; i++) {
		struct cpuset related;
		char rel[96];

		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpufreq/policy%d/related_cpus", ids[i]);
		if (read_cpu_words(root, rel, &related))
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

static int cmp_cluster(const void *a, const void *b)
{
	const struct cluster *x = a, *y = b;

	if (x->capacity != y->capacity)
		return x->capacity < y->capacity ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/*
 * Levels and clusters number fewer than SCHEDSTAT_MAX_CPUS; saying so lets
 * -Wformat-truncation see that the names fit.
 */
static unsigned int short_number(int v)
{
	return (unsigned int)v % SCHEDSTAT_MAX_CPUS;
}

/* Name of capacity level @level of @nr_levels (>= 2), smallest first. */
static void level_name(int level, int nr_levels, char *buf, size_t size)
{
	if (level == 0)
		snprintf(buf, size, "LITTLE");
	else if (level == nr_levels - 1)
		snprintf(buf, size, nr_levels == 2 ? "big" : "prime");
	else if (level == nr_levels - 2)
		snprintf(buf, size, "big");
	else if (nr_levels == 4)
		snprintf(buf, size, "mid");
	else
		snprintf(buf, size, "mid%u", short_number(level - 1));
}

/*
 * Names by capacity rank. Clusters that share a capacity (several cpufreq
 * policies of one core type) share a base name and get a digit each.
 */
static void name_clusters(struct schedstat_topology *topo)
{
	int n = topo->nr_clusters, nr_levels = 1;

	if (n == 1) {
		snprintf(topo->clusters[0].name, SCHEDSTAT_NAME_LEN, "all");
		return;
	}
	for (int k = 1; k < n; k++)
		if (topo->clusters[k].capacity != topo->clusters[k - 1].capacity)
			nr_levels++;
	if (nr_levels == 1) {
		for (int k = 0; k < n; k++)
			snprintf(topo->clusters[k].name, SCHEDSTAT_NAME_LEN,
				 "cluster%u", short_number(k));
		return;
	}
	for (int k = 0, level = 0; k < n; level++) {
		unsigned int cap = topo->clusters[k].capacity;
		int end = k, len;
		char base[8];	/* "mid1022" at most */

		while (end < n && topo->clusters[end].capacity == cap)
			end++;
		level_name(level, nr_levels, base, sizeof(base));
		len = strlen(base);
		for (int i = k; i < end; i++) {
			struct cluster *c = &topo->clusters[i];
			unsigned int nth = short_number(i - k);

			if (end - k == 1)
				snprintf(c->name, sizeof(c->name), "%s", base);
			/* "mid1" + "0" would read as level ten: separate it. */
			else if (base[len - 1] >= '0' && base[len - 1] <= '9')
				snprintf(c->name, sizeof(c->name), "%s.%u", base, nth);
			else
				snprintf(c->name, sizeof(c->name), "%s%u", base, nth);
		}
		k = end;
	}
}

int schedstat_topology_detect(struct schedstat_topology **out,
			      const char *sysfs_root)
{
	struct schedstat_topology *topo;
	struct cpuset possible;
	unsigned int first_cap = 0;
	bool differ = false, seen = false;
	int err;

	*out = NULL;
	err = read_possible(sysfs_root, &possible);
	if (err)
		return err;
	topo = topo_alloc(SCHEDSTAT_TOPO_CPU_CAPACITY);
	if (!topo)
		return -ENOMEM;
	/* cpu_capacity exists for offline CPUs too, so every CPU gets one. */
	for_each_cpu(cpu, &possible) {
		unsigned int cap;

		if (read_cpu_capacity(sysfs_root, cpu, &cap))
			cap = DEFAULT_CAPACITY;
		topo->cpu_capacity[cpu] = cap;
		if (!seen) {
			first_cap = cap;
			seen = true;
		} else if (cap != first_cap) {
			differ = true;
		}
	}
	/*
	 * Equal capacities say nothing about clusters: a symmetric machine may
	 * still clock its clusters separately, so ask cpufreq next.
	 */
	if (differ) {
		err = group_by_capacity(topo, &possible);
	} else {
		topo->origin = SCHEDSTAT_TOPO_CPUFREQ;
		err = group_by_cpufreq(topo, sysfs_root, &possible);
		if (!err) {
			topo->origin = SCHEDSTAT_TOPO_CLUSTER_CPUS;
			err = group_by_cluster_cpus(topo, sysfs_root, &possible);
		}
		if (!err) {
			topo->origin = SCHEDSTAT_TOPO_SINGLE;
			err = topo_add_cluster(topo, &possible, NULL);
		} else if (err > 0) {
			err = 0;
		}
	}
	if (err) {
		schedstat_topology_free(topo);
		return err;
	}
	qsort(topo->clusters, topo->nr_clusters, sizeof(*topo->clusters),
	      cmp_cluster);
	name_clusters(topo);
	topo_finish(topo);
	err = read_cluster_freqs(topo, sysfs_root);
	if (err) {
		schedstat_topology_free(topo);
		return err;
	}
	*out = topo;
	return 0;
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

/* The length of a name followed by ':' at @s, else 0. */
static size_t spec_name_len(const char *s)
{
	size_t n = 0;

	while (is_name_char(s[n]))
		n++;
	return s[n] == ':' ? n : 0;
}

/*
 * One comma-separated element of a cluster's CPU list. Elements are parsed
 * one by one so that a CPU written twice ("0-3,2") is caught even inside a
 * cluster.
 */
static int spec_cpus(const char *s, size_t len, struct cpuset *set)
{
	char buf[32];

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (cpulist_parse(buf, set) || !cpuset_count(set))
		return -EINVAL;
	return 0;
}

static int spec_capacity(const char **sp, unsigned int *cap)
{
	const char *s = *sp;
	unsigned int v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > MAX_SPEC_CAPACITY)
			return -EINVAL;
	}
	if (!v)
		return -EINVAL;
	*sp = s;
	*cap = v;
	return 0;
}

/* @foreign: the spec is another machine's; do not read this one's sysfs. */
static int parse_spec(struct schedstat_topology *topo, const char *spec,
		      const char *sysfs_root, bool foreign)
{
	struct cpuset all = {};
	const char *p = spec;

	if (!*p)
		return -EINVAL;
	for (;;) {
		struct cpuset set = {};
		char name[SCHEDSTAT_NAME_LEN];
		size_t len = spec_name_len(p);
		unsigned int cap = 0;
		int err;

		if (!len || len >= sizeof(name))
			return -EINVAL;
		memcpy(name, p, len);
		name[len] = '\0';
		for (int k = 0; k < topo->nr_clusters; k++)
			if (!strcmp(topo->clusters[k].name, name))
				return -EINVAL;
		p += len + 1;

		/*
		 * The list goes on past a comma unless what follows is
		 * "NAME:": "little:0,2,4,big:1,3" is two clusters.
		 */
		for (;;) {
			struct cpuset elem;
			size_t n = strcspn(p, ",@");

			if (spec_cpus(p, n, &elem))
				return -EINVAL;
			if (cpuset_intersects(&elem, &set) ||
			    cpuset_intersects(&elem, &all))
				return -EINVAL;
			cpuset_or(&set, &elem);
			p += n;
			if (*p != ',' || spec_name_len(p + 1))
				break;
			p++;
		}
		if (*p == '@') {
			p++;
			if (spec_capacity(&p, &cap))
				return -EINVAL;
		}
		if (*p == ',' && !spec_name_len(p + 1))
			return -EINVAL;
		if (*p && *p != ',')
			return -EINVAL;

		for_each_cpu(cpu, &set) {
			if (cap)
				topo->cpu_capacity[cpu] = cap;
			else if (foreign || read_cpu_capacity(sysfs_root, cpu,
						   &topo->cpu_capacity[cpu]))
				topo->cpu_capacity[cpu] = DEFAULT_CAPACITY;
		}
		err = topo_add_cluster(topo, &set, name);
		if (err)
			return err;
		cpuset_or(&all, &set);
		if (!*p)
			return 0;
		p++;
	}
}

static int parse_topology(struct schedstat_topology **out, const char *spec,
			  const char *sysfs_root, bool foreign)
{
	struct schedstat_topology *topo;
	int err;

	*out = NULL;
	if (!spec)
		return -SCHEDSTAT_ERR_TOPOLOGY_SPEC;
	topo = topo_alloc(SCHEDSTAT_TOPO_OVERRIDE);
	if (!topo)
		return -ENOMEM;
	err = parse_spec(topo, spec, sysfs_root, foreign);
	if (err) {
		schedstat_topology_free(topo);
		return err == -ENOMEM ? err : -SCHEDSTAT_ERR_TOPOLOGY_SPEC;
	}
	/* The user named the clusters: keep them in the order written. */
	topo_finish(topo);
	if (!foreign && read_cluster_freqs(topo, sysfs_root) == -ENOMEM) {
		schedstat_topology_free(topo);
		return -ENOMEM;
	}
	*out = topo;
	return 0;
}

int schedstat_topology_parse(struct schedstat_topology **out, const char *spec,
			     const char *sysfs_root)
{
	return parse_topology(out, spec, sysfs_root, false);
}

int topology_parse_foreign(struct schedstat_topology **out, const char *spec)
{
	return parse_topology(out, spec, NULL, true);
}

struct schedstat_topology *topology_new(enum schedstat_topology_origin origin)
{
	return topo_alloc(origin);
}

int topology_add_cluster(struct schedstat_topology *topo, const char *name,
			 const struct cpuset *cpus,
			 const unsigned int *capacity, int policy,
			 unsigned int freq_min_khz, unsigned int freq_max_khz)
{
	struct cluster *c;
	size_t i = 0;
	int err;

	for_each_cpu(cpu, cpus) {
		if (topo->cpu_cluster[cpu] >= 0)
			return -EINVAL;
		topo->cpu_capacity[cpu] = capacity[i++];
		/* Marks the CPU taken until topology_seal() indexes it. */
		topo->cpu_cluster[cpu] = topo->nr_clusters;
	}
	if (!i)
		return -EINVAL;
	err = topo_add_cluster(topo, cpus, name);
	if (err)
		return err;
	c = &topo->clusters[topo->nr_clusters - 1];
	c->policy = policy;
	c->freq_min_khz = freq_min_khz;
	c->freq_max_khz = freq_max_khz;
	return 0;
}

void topology_seal(struct schedstat_topology *topo)
{
	topo_finish(topo);
}

enum schedstat_topology_origin
schedstat_topology_origin(const struct schedstat_topology *topo)
{
	return topo->origin;
}

int schedstat_topology_nr_cpus(const struct schedstat_topology *topo)
{
	return topo->nr_cpus;
}

int schedstat_topology_nr_clusters(const struct schedstat_topology *topo)
{
	return topo->nr_clusters;
}

static const struct cluster *cluster_of(const struct schedstat_topology *topo,
					int cluster)
{
	if (cluster < 0 || cluster >= topo->nr_clusters)
		return NULL;
	return &topo->clusters[cluster];
}

const char *schedstat_topology_cluster_name(const struct schedstat_topology *topo,
					    int cluster)
{
	const struct cluster *c = cluster_of(topo, cluster);

	return c ? c->name : NULL;
}

unsigned int schedstat_topology_cluster_capacity(const struct schedstat_topology *topo,
						 int cluster)
{
	const struct cluster *c = cluster_of(topo, cluster);

	return c ? c->capacity : 0;
}

int schedstat_topology_cluster_nr_cpus(const struct schedstat_topology *topo,
				       int cluster)
{
	const struct cluster *c = cluster_of(topo, cluster);

	return c ? c->nr_cpus : -ENOENT;
}

int schedstat_topology_cluster_cpulist(const struct schedstat_topology *topo,
				       int cluster, char *buf, size_t size)
{
	const struct cluster *c = cluster_of(topo, cluster);

	if (!c)
		return -ENOENT;
	return cpulist_format(&c->cpus, buf, size);
}

int schedstat_topology_cluster_policy(const struct schedstat_topology *topo,
				      int cluster)
{
	const struct cluster *c = cluster_of(topo, cluster);

	return c && c->policy >= 0 ? c->policy : -ENOENT;
}

int schedstat_topology_cluster_freq(const struct schedstat_topology *topo,
				    int cluster, unsigned int *min_khz,
				    unsigned int *max_khz)
{
	const struct cluster *c = cluster_of(topo, cluster);

	if (!c)
		return -ENOENT;
	*min_khz = c->freq_min_khz;
	*max_khz = c->freq_max_khz;
	return 0;
}

int schedstat_topology_cpu_cluster(const struct schedstat_topology *topo, int cpu)
{
	if (cpu < 0 || cpu >= SCHEDSTAT_MAX_CPUS || topo->cpu_cluster[cpu] < 0)
		return -ENOENT;
	return topo->cpu_cluster[cpu];
}

unsigned int schedstat_topology_cpu_capacity(const struct schedstat_topology *topo,
					     int cpu)
{
	if (cpu < 0 || cpu >= SCHEDSTAT_MAX_CPUS)
		return 0;
	return topo->cpu_capacity[cpu];
}

int topology_read_online(const char *sysfs_root, struct cpuset *online)
{
	return read_cpulist(sysfs_root, "devices/system/cpu/online", online);
}

void topology_cpus(const struct schedstat_topology *topo,
		   struct cpuset *set)
{
	memset(set, 0, sizeof(*set));
	for (int k = 0; k < topo->nr_clusters; k++)
		cpuset_or(set, &topo->clusters[k].cpus);
}
