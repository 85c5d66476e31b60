// SPDX-License-Identifier: GPL-2.0
/*
 * The --topology spec (NAME:CPULIST[@CAPACITY],...): what it gives, what
 * it refuses and its limits.
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
/* Overrides                                                          */

static struct schedstat_topology *parse_ok(const char *spec, const char *root)
{
	struct schedstat_topology *t = NULL;
	int err = schedstat_topology_parse(&t, spec, root);

	if (err)
		fail_msg("\"%s\": %d (%s)", spec, err, schedstat_strerror(err));
	assert_non_null(t);
	assert_int_equal(schedstat_topology_origin(t), SCHEDSTAT_TOPO_OVERRIDE);
	return t;
}

static void override_basic(void **state)
{
	static const struct want_cluster want[] = {
		{ "LITTLE", "0-3", 446, 4 },
		{ "big", "4-7", 1024, 4 },
	};
	struct schedstat_topology *t = parse_ok("LITTLE:0-3@446,big:4-7@1024", NULL);

	assert_int_equal(schedstat_topology_nr_cpus(t), 8);
	check_clusters(t, want, 2);
	schedstat_topology_free(t);
}

/* Comma-then-CPU continues a list; comma-then-NAME: starts a cluster. */
static void override_comma_lists(void **state)
{
	static const struct want_cluster want[] = {
		{ "little", "0,2,4", 512, 3 },
		{ "big", "1,3", 1024, 2 },
	};
	static const struct want_cluster want_digit_names[] = {
		{ "0", "0-1,6", 100, 3 },
		{ "1", "2-3", 200, 2 },
	};
	struct schedstat_topology *t;

	t = parse_ok("little:0,2,4@512,big:1,3@1024", NULL);
	check_clusters(t, want, 2);
	assert_int_equal(schedstat_topology_nr_cpus(t), 5);
	schedstat_topology_free(t);

	/* A name made of digits is still a name when a ':' follows. */
	t = parse_ok("0:0-1,6@100,1:2-3@200", NULL);
	check_clusters(t, want_digit_names, 2);
	assert_int_equal(schedstat_topology_nr_cpus(t), 7);
	schedstat_topology_free(t);
}

/* Spec order is kept, names are verbatim, unlisted CPUs are in no cluster. */
static void override_order_and_holes(void **state)
{
	static const struct want_cluster want[] = {
		{ "fast", "6-7", 1000, 2 },
		{ "Slow_cores.v2-x", "0-1", 10, 2 },
	};
	struct schedstat_topology *t;
	struct cpuset cpus;

	t = parse_ok("fast:6-7@1000,Slow_cores.v2-x:0-1@10", NULL);
	check_clusters(t, want, 2);
	assert_int_equal(schedstat_topology_nr_cpus(t), 8);
	for (int cpu = 2; cpu < 6; cpu++) {
		assert_int_equal(schedstat_topology_cpu_cluster(t, cpu), -ENOENT);
		assert_int_equal(schedstat_topology_cpu_capacity(t, cpu), 0);
	}
	topology_cpus(t, &cpus);
	assert_int_equal(cpuset_count(&cpus), 4);
	assert_false(cpuset_test(&cpus, 2));
	schedstat_topology_free(t);

	t = parse_ok("one:1023@1", NULL);
	assert_int_equal(schedstat_topology_nr_cpus(t), 1024);
	assert_int_equal(schedstat_topology_cpu_cluster(t, 1023), 0);
	assert_int_equal(schedstat_topology_cluster_capacity(t, 0), 1);
	schedstat_topology_free(t);
}

/* No @CAPACITY: sysfs says, per CPU; the cluster reports the largest. */
static void override_capacity_from_sysfs(void **state)
{
	static const struct want_cluster want[] = {
		{ "a", "4-7", 1024, 4 },
		{ "b", "0-3", 381, 4 },
	};
	const char *root = fixture("phone-4+4");
	struct schedstat_topology *t;

	t = parse_ok("a:4-7,b:0-3", root);
	check_clusters(t, want, 2);
	schedstat_topology_free(t);

	/* Mixed: one cluster of two core types, another given explicitly. */
	t = parse_ok("mixed:3-4,x:0@200", root);
	assert_int_equal(schedstat_topology_cluster_capacity(t, 0), 1024);
	assert_int_equal(schedstat_topology_cpu_capacity(t, 3), 381);
	assert_int_equal(schedstat_topology_cpu_capacity(t, 4), 1024);
	assert_int_equal(schedstat_topology_cpu_capacity(t, 0), 200);
	schedstat_topology_free(t);

	/*
	 * A cluster without @ keeps its CPUs' own (the tree's files), after
	 * one given explicitly: the @ is that cluster's alone.
	 */
	t = parse_ok("x:0-3@200,a:4-7", root);
	assert_int_equal(schedstat_topology_cpu_capacity(t, 0), 200);
	assert_int_equal(schedstat_topology_cpu_capacity(t, 4), 1024);
	assert_int_equal(schedstat_topology_cluster_capacity(t, 1), 1024);
	schedstat_topology_free(t);

	/* No cpu_capacity files (or no such tree): 1024. */
	t = parse_ok("all:0-7", fixture("x86-symmetric"));
	assert_int_equal(schedstat_topology_cluster_capacity(t, 0), 1024);
	assert_int_equal(schedstat_topology_cpu_capacity(t, 5), 1024);
	schedstat_topology_free(t);
	t = parse_ok("c:0-1", "/nonexistent/sysfs");
	assert_int_equal(schedstat_topology_cluster_capacity(t, 0), 1024);
	schedstat_topology_free(t);
}

static void override_errors(void **state)
{
	static const char *const bad[] = {
		"",				/* empty */
		"LITTLE",			/* missing ':' */
		"0-3",
		":0-3",				/* empty name */
		"a b:0",			/* bad name character */
		"a/b:0",
		"caf\xc3\xa9:0",
		"a:0,b",			/* second cluster without ':' */
		"0123456789abcdef:0",		/* name of 16 characters */
		"a:",				/* empty list */
		"a:@512",
		"a:,0",
		"a:0,",
		"a:0,,1",
		"a:3-1",			/* bad list */
		"a:x",
		"a:-1",
		"a:0-3,",
		"a:0,b:0",			/* CPU twice */
		"a:0-3,b:3-4",
		"a:0-3,2",
		"a:1,1",
		"a:0,a:1",			/* name twice */
		"a:0@0",			/* capacity */
		"a:0@1025",
		"a:0@99999999999",
		"a:0@",
		"a:0@x",
		"a:0@-5",
		"a:0@+5",
		"a:0@512x",
		"a:0@512@3",
		"a:0@512,1",			/* CPU after the capacity */
		"a:0@512,",
		"a:1024",			/* CPU out of range */
		"a:0-4096",
		"a:0,b:1;c:2",
		",a:0",
		"a:0 ,b:1@5 5",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct schedstat_topology *t = (void *)1;
		int err = schedstat_topology_parse(&t, bad[i], NULL);

		if (err != -SCHEDSTAT_ERR_TOPOLOGY_SPEC)
			fail_msg("\"%s\": %d, want -SCHEDSTAT_ERR_TOPOLOGY_SPEC",
				 bad[i], err);
		assert_null(t);
	}
	{
		struct schedstat_topology *t = (void *)1;

		assert_int_equal(schedstat_topology_parse(&t, NULL, NULL),
				 -SCHEDSTAT_ERR_TOPOLOGY_SPEC);
		assert_null(t);
	}
}

static void override_limits(void **state)
{
	struct schedstat_topology *t;

	/* 15 characters is the longest name. */
	t = parse_ok("0123456789abcde:0@1024", NULL);
	assert_string_equal(schedstat_topology_cluster_name(t, 0), "0123456789abcde");
	schedstat_topology_free(t);
	/* Leading zeros are still decimal. */
	t = parse_ok("a:0@0512", NULL);
	assert_int_equal(schedstat_topology_cluster_capacity(t, 0), 512);
	schedstat_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(override_basic),
		cmocka_unit_test(override_comma_lists),
		cmocka_unit_test(override_order_and_holes),
		cmocka_unit_test(override_capacity_from_sysfs),
		cmocka_unit_test(override_errors),
		cmocka_unit_test(override_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
