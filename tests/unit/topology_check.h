// SPDX-License-Identifier: GPL-2.0
/*
 * What the topology tests share: the sysfs fixtures, and a check that a
 * topology has exactly the clusters wanted. (Each test file uses a part.)
 */
#ifndef TOPOLOGY_CHECK_H
#define TOPOLOGY_CHECK_H

#include "schedstat-local.h"

struct want_cluster {
	const char *name;
	const char *cpus;
	unsigned int capacity;
	int nr_cpus;
};

__attribute__((unused))
static const char *srcdir(void)
{
	const char *dir = getenv("SCHEDTOP_SRCDIR");

	return dir && *dir ? dir : ".";
}

__attribute__((unused))
static const char *fixture(const char *name)
{
	static char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/tests/fixtures/sysfs/%s", srcdir(), name);
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		fail_msg("no fixture %s (run from the repo root or set SCHEDTOP_SRCDIR)",
			 path);
	return path;
}

/*
 * Every cluster as expected, and every CPU of a cluster maps back to it
 * with the cluster's capacity (the fixtures have one capacity per cluster).
 */
__attribute__((unused))
static void check_clusters(const struct schedstat_topology *t,
			   const struct want_cluster *want, int n)
{
	char buf[SCHEDSTAT_CPULIST_LEN];
	int in_clusters = 0;

	assert_int_equal(schedstat_topology_nr_clusters(t), n);
	for (int k = 0; k < n; k++) {
		struct cpuset set;

		assert_string_equal(schedstat_topology_cluster_name(t, k), want[k].name);
		assert_int_equal(schedstat_topology_cluster_cpulist(t, k, buf,
								    sizeof(buf)), 0);
		assert_string_equal(buf, want[k].cpus);
		assert_int_equal(schedstat_topology_cluster_capacity(t, k),
				 want[k].capacity);
		assert_int_equal(schedstat_topology_cluster_nr_cpus(t, k),
				 want[k].nr_cpus);
		assert_int_equal(cpulist_parse(want[k].cpus, &set), 0);
		assert_int_equal(cpuset_count(&set), want[k].nr_cpus);
		for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++) {
			if (!cpuset_test(&set, cpu))
				continue;
			assert_int_equal(schedstat_topology_cpu_cluster(t, cpu), k);
			assert_int_equal(schedstat_topology_cpu_capacity(t, cpu),
					 want[k].capacity);
			in_clusters++;
		}
	}
	/* No CPU outside the expected clusters is placed. */
	for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)
		if (schedstat_topology_cpu_cluster(t, cpu) >= 0)
			in_clusters--;
	assert_int_equal(in_clusters, 0);
	/* Out-of-range indices fail cleanly. */
	assert_null(schedstat_topology_cluster_name(t, n));
	assert_null(schedstat_topology_cluster_name(t, -1));
	assert_int_equal(schedstat_topology_cluster_capacity(t, n), 0);
	assert_int_equal(schedstat_topology_cluster_nr_cpus(t, n), -ENOENT);
	assert_int_equal(schedstat_topology_cluster_cpulist(t, n, buf, sizeof(buf)),
			 -ENOENT);
	assert_int_equal(schedstat_topology_cpu_cluster(t, -1), -ENOENT);
	assert_int_equal(schedstat_topology_cpu_cluster(t, SCHEDSTAT_MAX_CPUS),
			 -ENOENT);
	assert_int_equal(schedstat_topology_cpu_capacity(t, -1), 0);
	assert_int_equal(schedstat_topology_cpu_capacity(t, SCHEDSTAT_MAX_CPUS), 0);
}

__attribute__((unused))
static struct schedstat_topology *detect(const char *root)
{
	struct schedstat_topology *t = NULL;
	int err = schedstat_topology_detect(&t, root);

	if (err)
		fail_msg("detect %s: %d (%s)", root, err, schedstat_strerror(err));
	assert_non_null(t);
	return t;
}


#endif /* TOPOLOGY_CHECK_H */
