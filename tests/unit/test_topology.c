// SPDX-License-Identifier: GPL-2.0
/*
 * Topology detection on the sysfs fixtures (tests/fixtures/sysfs) and on
 * synthetic trees, the sysfs helpers and comm sanitizing. The --topology
 * spec parser: test_topology_override.c.
 */

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "topology_check.h"

/* ------------------------------------------------------------------ */
/* Fixtures                                                           */

static void fixture_phone_4_4(void **state)
{
	static const struct want_cluster want[] = {
		{ "LITTLE", "0-3", 381, 4 },
		{ "big", "4-7", 1024, 4 },
	};
	struct schedstat_topology *t = detect(fixture("phone-4+4"));

	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_CPU_CAPACITY);
	assert_int_equal(schedstat_topology_nr_cpus(t), 8);
	check_clusters(t, want, 2);
	schedstat_topology_free(t);
}

static void fixture_phone_4_3_1(void **state)
{
	static const struct want_cluster want[] = {
		{ "LITTLE", "0-3", 325, 4 },
		{ "big", "4-6", 828, 3 },
		{ "prime", "7", 1024, 1 },
	};
	struct schedstat_topology *t = detect(fixture("phone-4+3+1"));

	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_CPU_CAPACITY);
	assert_int_equal(schedstat_topology_nr_cpus(t), 8);
	check_clusters(t, want, 3);
	/* Each cluster's clock: its cpufreq policy and range. */
	static const struct { int policy; unsigned int min, max; } freq[] = {
		{ 0, 307200, 1785600 }, { 4, 633600, 2496000 }, { 7, 787200, 2995200 },
	};
	for (int k = 0; k < 3; k++) {
		unsigned int fmin, fmax;

		assert_int_equal(schedstat_topology_cluster_policy(t, k), freq[k].policy);
		assert_int_equal(schedstat_topology_cluster_freq(t, k, &fmin, &fmax), 0);
		assert_int_equal(fmin, freq[k].min);
		assert_int_equal(fmax, freq[k].max);
	}
	assert_int_equal(schedstat_topology_cluster_policy(t, 3), -ENOENT);
	schedstat_topology_free(t);
}

/* CPU numbers that do not follow capacity: order by capacity all the same. */
static void fixture_phone_2_2_4(void **state)
{
	static const struct want_cluster want[] = {
		{ "LITTLE", "4-7", 260, 4 },
		{ "big", "2-3", 742, 2 },
		{ "prime", "0-1", 1024, 2 },
	};
	struct schedstat_topology *t = detect(fixture("phone-2+2+4"));

	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_CPU_CAPACITY);
	check_clusters(t, want, 3);
	assert_int_equal(schedstat_topology_cluster_policy(t, 0), 4);
	assert_int_equal(schedstat_topology_cluster_policy(t, 2), 0);
	schedstat_topology_free(t);
}

/* No capacities, no cpufreq: the firmware's cluster lists still tell. */
static void fixture_arm64_clusters_only(void **state)
{
	static const struct want_cluster want[] = {
		{ "cluster0", "0-3", 1024, 4 },
		{ "cluster1", "4-7", 1024, 4 },
	};
	struct schedstat_topology *t = detect(fixture("arm64-clusters-only"));
	unsigned int fmin = 1, fmax = 1;

	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_CLUSTER_CPUS);
	check_clusters(t, want, 2);
	assert_int_equal(schedstat_topology_cluster_policy(t, 0), -ENOENT);
	assert_int_equal(schedstat_topology_cluster_freq(t, 0, &fmin, &fmax), 0);
	assert_int_equal(fmin, 0);
	assert_int_equal(fmax, 0);
	schedstat_topology_free(t);
}

static void fixture_phone_6_2(void **state)
{
	static const struct want_cluster want[] = {
		{ "LITTLE", "0-5", 414, 6 },
		{ "big", "6-7", 1024, 2 },
	};
	struct schedstat_topology *t = detect(fixture("phone-6+2"));

	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_CPU_CAPACITY);
	assert_int_equal(schedstat_topology_nr_cpus(t), 8);
	check_clusters(t, want, 2);
	schedstat_topology_free(t);
}

static void fixture_noncontig(void **state)
{
	static const struct want_cluster want[] = {
		{ "LITTLE", "0-1,4-5", 512, 4 },
		{ "big", "2-3,6-7", 1024, 4 },
	};
	const char *root = fixture("noncontig");
	struct schedstat_topology *t = detect(root);
	struct cpuset online, cpus, want_online;

	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_CPU_CAPACITY);
	assert_int_equal(schedstat_topology_nr_cpus(t), 8);
	check_clusters(t, want, 2);

	/* cpu5 is offline but still belongs to LITTLE, with its capacity. */
	assert_int_equal(topology_read_online(root, &online), 0);
	assert_int_equal(cpulist_parse("0-4,6-7", &want_online), 0);
	assert_memory_equal(&online, &want_online, sizeof(online));
	assert_false(cpuset_test(&online, 5));
	assert_int_equal(schedstat_topology_cpu_cluster(t, 5), 0);
	assert_int_equal(schedstat_topology_cpu_capacity(t, 5), 512);

	topology_cpus(t, &cpus);
	assert_int_equal(cpuset_count(&cpus), 8);
	assert_int_equal(cpuset_end(&cpus), 8);
	schedstat_topology_free(t);
}

static void fixture_x86_symmetric(void **state)
{
	static const struct want_cluster want[] = {
		{ "all", "0-7", 1024, 8 },
	};
	struct schedstat_topology *t = detect(fixture("x86-symmetric"));

	/* No cpu_capacity, only single-CPU policies: nothing to go by. */
	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_SINGLE);
	assert_int_equal(schedstat_topology_nr_cpus(t), 8);
	check_clusters(t, want, 1);
	schedstat_topology_free(t);
}

static void fixture_x86_hybrid(void **state)
{
	static const struct want_cluster want[] = {
		{ "LITTLE", "8-15", 623, 8 },
		{ "big", "0-7", 1024, 8 },
	};
	struct schedstat_topology *t = detect(fixture("x86-hybrid"));

	/* Ascending capacity puts the E-cores first although numbered last. */
	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_CPU_CAPACITY);
	assert_int_equal(schedstat_topology_nr_cpus(t), 16);
	check_clusters(t, want, 2);
	schedstat_topology_free(t);
}

static void fixture_online(void **state)
{
	static const struct {
		const char *name;
		const char *online;
	} cases[] = {
		{ "phone-4+4", "0-7" },
		{ "phone-4+3+1", "0-7" },
		{ "phone-6+2", "0-7" },
		{ "noncontig", "0-4,6-7" },
		{ "x86-symmetric", "0-7" },
		{ "x86-hybrid", "0-15" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cpuset online;
		char buf[64];

		assert_int_equal(topology_read_online(fixture(cases[i].name),
						      &online), 0);
		assert_int_equal(cpulist_format(&online, buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i].online);
	}
}

/* ------------------------------------------------------------------ */
/* Synthetic trees for the paths no fixture takes                     */

struct tree {
	char root[64];
};

static void tree_make(struct tree *tr)
{
	snprintf(tr->root, sizeof(tr->root), "/tmp/schedstat-test-XXXXXX");
	if (!mkdtemp(tr->root))
		fail_msg("mkdtemp: %s", strerror(errno));
}

static void tree_write(struct tree *tr, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tr->root, rel);
	for (char *p = path + strlen(tr->root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		fail_msg("create %s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void tree_writef(struct tree *tr, const char *text, const char *fmt, ...)
{
	char rel[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	tree_write(tr, rel, text);
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static void tree_remove(struct tree *tr)
{
	nftw(tr->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int tree_setup(void **state)
{
	static struct tree tr;

	tree_make(&tr);
	*state = &tr;
	return 0;
}

static int tree_teardown(void **state)
{
	tree_remove(*state);
	return 0;
}

static void capacities(struct tree *tr, const unsigned int *caps, int n)
{
	char text[16];

	for (int cpu = 0; cpu < n; cpu++) {
		snprintf(text, sizeof(text), "%u\n", caps[cpu]);
		tree_writef(tr, text, "devices/system/cpu/cpu%d/cpu_capacity", cpu);
	}
}

/* Symmetric cores clocked per cluster: clusters from cpufreq. */
static void cpufreq_clusters(void **state)
{
	static const unsigned int caps[8] = {
		1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024,
	};
	static const struct want_cluster want[] = {
		{ "cluster0", "0-3", 1024, 4 },
		{ "cluster1", "4-7", 1024, 4 },
	};
	struct tree *tr = *state;
	struct schedstat_topology *t;

	tree_write(tr, "devices/system/cpu/possible", "0-7\n");
	capacities(tr, caps, 8);
	/* Policies listed out of order: readdir order must not matter. */
	tree_write(tr, "devices/system/cpu/cpufreq/policy4/related_cpus", "4 5 6 7\n");
	tree_write(tr, "devices/system/cpu/cpufreq/policy0/related_cpus", "0 1 2 3\n");
	t = detect(tr->root);
	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_CPUFREQ);
	check_clusters(t, want, 2);
	schedstat_topology_free(t);
}

/* Equal capacities below 1024 are kept on the single cluster. */
static void equal_capacity_single(void **state)
{
	static const unsigned int caps[4] = { 430, 430, 430, 430 };
	static const struct want_cluster want[] = {
		{ "all", "0-3", 430, 4 },
	};
	struct tree *tr = *state;
	struct schedstat_topology *t;

	tree_write(tr, "devices/system/cpu/possible", "0-3\n");
	capacities(tr, caps, 4);
	for (int cpu = 0; cpu < 4; cpu++) {
		char text[16];

		snprintf(text, sizeof(text), "%d\n", cpu);
		tree_writef(tr, text, "devices/system/cpu/cpufreq/policy%d/related_cpus",
			    cpu);
	}
	t = detect(tr->root);
	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_SINGLE);
	check_clusters(t, want, 1);
	schedstat_topology_free(t);
}

/* CPUs no policy covers form one more cluster; bad policies are skipped. */
static void cpufreq_leftover_cpus(void **state)
{
	static const struct want_cluster want[] = {
		{ "cluster0", "0-3", 1024, 4 },
		{ "cluster1", "4-5", 1024, 2 },
	};
	struct tree *tr = *state;
	struct schedstat_topology *t;

	tree_write(tr, "devices/system/cpu/possible", "0-5\n");
	/* Also a hand-written CPU-list form, and CPUs that are not possible. */
	tree_write(tr, "devices/system/cpu/cpufreq/policy0/related_cpus", "0-3 9\n");
	tree_write(tr, "devices/system/cpu/cpufreq/policy5/related_cpus", "garbage\n");
	tree_write(tr, "devices/system/cpu/cpufreq/policy_x/related_cpus", "4\n");
	t = detect(tr->root);
	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_CPUFREQ);
	check_clusters(t, want, 2);
	schedstat_topology_free(t);
}

/* Without possible: present, then the cpuN directories. */
static void possible_fallbacks(void **state)
{
	static const struct want_cluster want_present[] = {
		{ "all", "0-2", 1024, 3 },
	};
	static const struct want_cluster want_dirs[] = {
		{ "all", "0-1,3", 1024, 3 },
	};
	struct tree *tr = *state;
	struct schedstat_topology *t;

	tree_write(tr, "devices/system/cpu/present", "0-2\n");
	tree_write(tr, "devices/system/cpu/cpu0/online", "1\n");
	tree_write(tr, "devices/system/cpu/cpu1/online", "1\n");
	tree_write(tr, "devices/system/cpu/cpu3/online", "1\n");
	tree_write(tr, "devices/system/cpu/cpufreq/.keep", "");
	tree_write(tr, "devices/system/cpu/cpuidle/.keep", "");
	tree_write(tr, "devices/system/cpu/cpu5x/.keep", "");
	t = detect(tr->root);
	check_clusters(t, want_present, 1);
	schedstat_topology_free(t);

	{
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/devices/system/cpu/present",
			 tr->root);
		assert_int_equal(unlink(path), 0);
	}
	t = detect(tr->root);
	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_SINGLE);
	check_clusters(t, want_dirs, 1);
	schedstat_topology_free(t);
}

static void detect_errors(void **state)
{
	struct tree *tr = *state;
	struct schedstat_topology *t = (void *)1;

	/* Nothing at all below the root. */
	assert_int_equal(schedstat_topology_detect(&t, tr->root), -ENOENT);
	assert_null(t);
	assert_int_equal(schedstat_topology_detect(&t, "/nonexistent/sysfs"), -ENOENT);
	/* A possible file that does not parse is not papered over. */
	tree_write(tr, "devices/system/cpu/possible", "0-x\n");
	tree_write(tr, "devices/system/cpu/present", "0-3\n");
	assert_int_equal(schedstat_topology_detect(&t, tr->root), -EINVAL);
	tree_write(tr, "devices/system/cpu/possible", "0-4095\n");
	assert_int_equal(schedstat_topology_detect(&t, tr->root), -ERANGE);
	tree_write(tr, "devices/system/cpu/possible", "\n");
	assert_int_equal(schedstat_topology_detect(&t, tr->root), -ENOENT);
	assert_null(t);
	/* And online, when asked, reports its own absence. */
	{
		struct cpuset online = {};

		cpuset_set(&online, 3);
		assert_int_equal(topology_read_online(tr->root, &online), -ENOENT);
		assert_true(cpuset_test(&online, 3));
	}
}

static void names_four_levels(void **state)
{
	static const unsigned int caps[4] = { 900, 100, 500, 300 };
	static const struct want_cluster want[] = {
		{ "LITTLE", "1", 100, 1 },
		{ "mid", "3", 300, 1 },
		{ "big", "2", 500, 1 },
		{ "prime", "0", 900, 1 },
	};
	struct tree *tr = *state;
	struct schedstat_topology *t;

	tree_write(tr, "devices/system/cpu/possible", "0-3\n");
	capacities(tr, caps, 4);
	t = detect(tr->root);
	check_clusters(t, want, 4);
	schedstat_topology_free(t);
}

static void names_six_levels(void **state)
{
	static const unsigned int caps[7] = { 100, 200, 300, 400, 500, 600, 100 };
	static const struct want_cluster want[] = {
		{ "LITTLE", "0,6", 100, 2 },
		{ "mid0", "1", 200, 1 },
		{ "mid1", "2", 300, 1 },
		{ "mid2", "3", 400, 1 },
		{ "big", "4", 500, 1 },
		{ "prime", "5", 600, 1 },
	};
	struct tree *tr = *state;
	struct schedstat_topology *t;

	tree_write(tr, "devices/system/cpu/possible", "0-6\n");
	capacities(tr, caps, 7);
	t = detect(tr->root);
	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_CPU_CAPACITY);
	assert_int_equal(schedstat_topology_nr_cpus(t), 7);
	check_clusters(t, want, 6);
	schedstat_topology_free(t);
}

/* A CPU without cpu_capacity among CPUs that have one counts as 1024. */
static void missing_capacity_is_1024(void **state)
{
	static const unsigned int caps[2] = { 512, 512 };
	static const struct want_cluster want[] = {
		{ "LITTLE", "0-1", 512, 2 },
		{ "big", "2", 1024, 1 },
	};
	struct tree *tr = *state;
	struct schedstat_topology *t;

	tree_write(tr, "devices/system/cpu/possible", "0-2\n");
	capacities(tr, caps, 2);
	t = detect(tr->root);
	check_clusters(t, want, 2);
	schedstat_topology_free(t);
}

/* ------------------------------------------------------------------ */
/* sysfs helpers                                                      */

static void sysfs_read_file(void **state)
{
	struct tree *tr = *state;
	char buf[16];
	uint64_t v = 7;

	tree_write(tr, "a", "0-3\n");
	assert_int_equal(sysfs_read(tr->root, "a", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "0-3");
	tree_write(tr, "empty", "\n");
	assert_int_equal(sysfs_read(tr->root, "empty", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* Exactly fits, then one byte too long. */
	tree_write(tr, "fits", "123456789012345");
	assert_int_equal(sysfs_read(tr->root, "fits", buf, sizeof(buf)), 15);
	assert_string_equal(buf, "123456789012345");
	tree_write(tr, "long", "1234567890123456\n");
	assert_int_equal(sysfs_read(tr->root, "long", buf, sizeof(buf)), -ENOSPC);
	assert_int_equal(sysfs_read(tr->root, "missing", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(sysfs_read(tr->root, "a", buf, 0), -EINVAL);

	tree_write(tr, "n", "1024\n");
	assert_int_equal(sysfs_read_u64(tr->root, "n", &v), 0);
	assert_int_equal(v, 1024);
	tree_write(tr, "n", "18446744073709551615\n");
	assert_int_equal(sysfs_read_u64(tr->root, "n", &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	tree_write(tr, "n", "18446744073709551616\n");
	assert_int_equal(sysfs_read_u64(tr->root, "n", &v), -ERANGE);
	tree_write(tr, "n", "-1\n");
	assert_int_equal(sysfs_read_u64(tr->root, "n", &v), -EINVAL);
	tree_write(tr, "n", "12 kB\n");
	assert_int_equal(sysfs_read_u64(tr->root, "n", &v), -EINVAL);
	tree_write(tr, "n", "\n");
	assert_int_equal(sysfs_read_u64(tr->root, "n", &v), -EINVAL);
	assert_int_equal(v, 7);
	assert_int_equal(sysfs_read_u64(tr->root, "missing", &v), -ENOENT);
}

/* A NULL root reads the real /sys. */
static void sysfs_default_root(void **state)
{
	char buf[256], want[256] = "";
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	int len;

	len = sysfs_read(NULL, "devices/system/cpu/possible", buf, sizeof(buf));
	if (!f) {
		assert_true(len < 0);
		return;
	}
	assert_non_null(fgets(want, sizeof(want), f));
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	assert_int_equal(len, strlen(want));
	assert_string_equal(buf, want);
}

/* ------------------------------------------------------------------ */
/* comm                                                               */

static void comm_sanitize(void **state)
{
	char dst[SCHEDSTAT_COMM_LEN];

	/* An escape sequence that would clear the screen. */
	schedstat_comm_sanitize(dst, "\x1b[2Jevil", sizeof(dst));
	assert_string_equal(dst, "?[2Jevil");
	schedstat_comm_sanitize(dst, "a\tb\nc\x7f" "d", sizeof(dst));
	assert_string_equal(dst, "a?b?c?d");
	/* A UTF-8 name, cut or not, is not passed through. */
	schedstat_comm_sanitize(dst, "caf\xc3\xa9", sizeof(dst));
	assert_string_equal(dst, "caf??");
	schedstat_comm_sanitize(dst, "kworker/0:1H", sizeof(dst));
	assert_string_equal(dst, "kworker/0:1H");
	schedstat_comm_sanitize(dst, "", sizeof(dst));
	assert_string_equal(dst, "");
}

static void comm_truncates(void **state)
{
	const char src[SCHEDSTAT_COMM_LEN] = "0123456789abcdef";	/* no NUL */
	char dst[SCHEDSTAT_COMM_LEN + 4];

	memset(dst, 'x', sizeof(dst));
	schedstat_comm_sanitize(dst, src, SCHEDSTAT_COMM_LEN);
	assert_string_equal(dst, "0123456789abcde");
	assert_int_equal(dst[SCHEDSTAT_COMM_LEN], 'x');

	memset(dst, 'x', sizeof(dst));
	schedstat_comm_sanitize(dst, "abc", 1);
	assert_string_equal(dst, "");
	assert_int_equal(dst[1], 'x');
	schedstat_comm_sanitize(dst, "abc", 0);
	assert_int_equal(dst[0], '\0');
	assert_int_equal(dst[1], 'x');

	/* In place works: the kernel copy is often sanitized where it lies. */
	snprintf(dst, sizeof(dst), "a\x1b" "b");
	schedstat_comm_sanitize(dst, dst, sizeof(dst));
	assert_string_equal(dst, "a?b");
}

#define TREE_TEST(f) cmocka_unit_test_setup_teardown(f, tree_setup, tree_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixture_phone_4_4),
		cmocka_unit_test(fixture_phone_4_3_1),
		cmocka_unit_test(fixture_arm64_clusters_only),
		cmocka_unit_test(fixture_phone_2_2_4),
		cmocka_unit_test(fixture_phone_6_2),
		cmocka_unit_test(fixture_noncontig),
		cmocka_unit_test(fixture_x86_symmetric),
		cmocka_unit_test(fixture_x86_hybrid),
		cmocka_unit_test(fixture_online),
		TREE_TEST(cpufreq_clusters),
		TREE_TEST(equal_capacity_single),
		TREE_TEST(cpufreq_leftover_cpus),
		TREE_TEST(possible_fallbacks),
		TREE_TEST(detect_errors),
		TREE_TEST(names_four_levels),
		TREE_TEST(names_six_levels),
		TREE_TEST(missing_capacity_is_1024),
		TREE_TEST(sysfs_read_file),
		cmocka_unit_test(sysfs_default_root),
		cmocka_unit_test(comm_sanitize),
		cmocka_unit_test(comm_truncates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
