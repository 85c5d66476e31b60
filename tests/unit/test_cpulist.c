// SPDX-License-Identifier: GPL-2.0
/* CPU sets and the kernel CPU-list syntax. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "schedstat-local.h"

static struct cpuset set_of(const int *cpus, size_t n)
{
	struct cpuset set = {};

	for (size_t i = 0; i < n; i++)
		cpuset_set(&set, cpus[i]);
	return set;
}

#define SET(...) set_of((const int[]){ __VA_ARGS__ },			\
			sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int))

static void assert_set_equal(const struct cpuset *a,
			     const struct cpuset *b)
{
	for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)
		if (cpuset_test(a, cpu) != cpuset_test(b, cpu))
			fail_msg("CPU %d: %d vs %d", cpu, cpuset_test(a, cpu),
				 cpuset_test(b, cpu));
}

static void count_and_end(void **state)
{
	struct cpuset set = {};

	assert_int_equal(cpuset_count(&set), 0);
	assert_int_equal(cpuset_end(&set), 0);
	cpuset_set(&set, 0);
	assert_int_equal(cpuset_count(&set), 1);
	assert_int_equal(cpuset_end(&set), 1);
	/* Both sides of a word boundary. */
	set = SET(63, 64);
	assert_int_equal(cpuset_count(&set), 2);
	assert_int_equal(cpuset_end(&set), 65);
	set = SET(5, SCHEDSTAT_MAX_CPUS - 1);
	assert_int_equal(cpuset_count(&set), 2);
	assert_int_equal(cpuset_end(&set), SCHEDSTAT_MAX_CPUS);
	assert_false(cpuset_test(&set, SCHEDSTAT_MAX_CPUS));
}

static void parse_valid(void **state)
{
	struct cpuset set, want;

	assert_int_equal(cpulist_parse("0-3,5,8-11", &set), 0);
	want = SET(0, 1, 2, 3, 5, 8, 9, 10, 11);
	assert_set_equal(&set, &want);
	assert_int_equal(cpuset_count(&set), 9);

	assert_int_equal(cpulist_parse("7", &set), 0);
	want = SET(7);
	assert_set_equal(&set, &want);

	/* As sysfs writes it: trailing newline. */
	assert_int_equal(cpulist_parse("0-3\n", &set), 0);
	want = SET(0, 1, 2, 3);
	assert_set_equal(&set, &want);

	assert_int_equal(cpulist_parse("  4 - 5 ,\t9 \n", &set), 0);
	want = SET(4, 5, 9);
	assert_set_equal(&set, &want);

	/* A degenerate range and overlapping pieces are still one set. */
	assert_int_equal(cpulist_parse("2-2,0-3,1", &set), 0);
	want = SET(0, 1, 2, 3);
	assert_set_equal(&set, &want);

	assert_int_equal(cpulist_parse("0-1023", &set), 0);
	assert_int_equal(cpuset_count(&set), SCHEDSTAT_MAX_CPUS);
	assert_int_equal(cpuset_end(&set), SCHEDSTAT_MAX_CPUS);

	assert_int_equal(cpulist_parse("1023", &set), 0);
	assert_int_equal(cpuset_count(&set), 1);
	assert_true(cpuset_test(&set, 1023));

	assert_int_equal(cpulist_parse("007", &set), 0);
	want = SET(7);
	assert_set_equal(&set, &want);
}

static void parse_empty(void **state)
{
	struct cpuset set = SET(1, 2);

	/* sysfs "offline" with nothing offline is a bare newline. */
	assert_int_equal(cpulist_parse("", &set), 0);
	assert_int_equal(cpuset_count(&set), 0);
	set = SET(1);
	assert_int_equal(cpulist_parse("\n", &set), 0);
	assert_int_equal(cpuset_count(&set), 0);
	set = SET(1);
	assert_int_equal(cpulist_parse(" \t \n", &set), 0);
	assert_int_equal(cpuset_count(&set), 0);
}

static void parse_invalid(void **state)
{
	static const char *const bad[] = {
		"3-1", "a", "1,,2", "-1", "1,", ",1", ",", "1-", "-", "1--2",
		"1-2-3", "0x1", "+1", "1 2", "0-7:2/4", "1;2", "1.5", "0-3,a",
		"1,\n", "\x01",
	};
	struct cpuset set = SET(42);

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = cpulist_parse(bad[i], &set);

		if (err != -EINVAL)
			fail_msg("\"%s\": %d, want -EINVAL", bad[i], err);
		/* The set is only written on success. */
		assert_int_equal(cpuset_count(&set), 1);
		assert_true(cpuset_test(&set, 42));
	}
}

static void parse_out_of_range(void **state)
{
	static const char *const big[] = {
		"1024", "0-1024", "1023-1024", "4096", "0,2000",
		"99999999999999999999999", "1-99999999999999999999",
	};
	struct cpuset set = SET(42);

	for (size_t i = 0; i < ARRAY_SIZE(big); i++) {
		int err = cpulist_parse(big[i], &set);

		if (err != -ERANGE)
			fail_msg("\"%s\": %d, want -ERANGE", big[i], err);
		assert_int_equal(cpuset_count(&set), 1);
	}
}

static void format_shortest(void **state)
{
	static const struct {
		int cpus[16];
		int n;
		const char *want;
	} cases[] = {
		{ {}, 0, "" },
		{ { 0 }, 1, "0" },
		{ { 0, 1 }, 2, "0-1" },
		{ { 0, 2 }, 2, "0,2" },
		{ { 0, 1, 2, 3, 5, 8, 9, 10, 11 }, 9, "0-3,5,8-11" },
		{ { 0, 1, 4, 5 }, 4, "0-1,4-5" },
		{ { 63, 64 }, 2, "63-64" },
		{ { 1, 3, 5, 7 }, 4, "1,3,5,7" },
		{ { 1023 }, 1, "1023" },
		{ { 5, 1022, 1023 }, 3, "5,1022-1023" },
	};
	char buf[SCHEDSTAT_CPULIST_LEN];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cpuset set = set_of(cases[i].cpus, cases[i].n);

		assert_int_equal(cpulist_format(&set, buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i].want);
	}
}

static void format_all(void **state)
{
	struct cpuset set;
	char buf[16];

	memset(&set, 0xff, sizeof(set));
	assert_int_equal(cpulist_format(&set, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-1023");
}

static void format_no_space(void **state)
{
	struct cpuset set = SET(0, 1, 2, 3, 5);
	char buf[16];

	/* "0-3,5" needs 6 bytes with the NUL. */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(cpulist_format(&set, buf, 5), -ENOSPC);
	assert_string_equal(buf, "");
	assert_int_equal(cpulist_format(&set, buf, 4), -ENOSPC);
	assert_int_equal(cpulist_format(&set, buf, 0), -ENOSPC);
	assert_int_equal(cpulist_format(&set, buf, 6), 0);
	assert_string_equal(buf, "0-3,5");

	set = SET(0);
	assert_int_equal(cpulist_format(&set, buf, 1), -ENOSPC);
	assert_int_equal(cpulist_format(&set, buf, 2), 0);
	assert_string_equal(buf, "0");

	memset(&set, 0, sizeof(set));
	assert_int_equal(cpulist_format(&set, buf, 1), 0);
	assert_string_equal(buf, "");
}

static void round_trip_strings(void **state)
{
	static const char *const lists[] = {
		"0", "0-7", "0-3,5,8-11", "1,3,5,7", "0-1,4-5", "2-3,6-7",
		"0-4,6-7", "1023", "0,1023", "100-200,300,512-1023",
	};
	struct cpuset set;
	char buf[SCHEDSTAT_CPULIST_LEN];

	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		assert_int_equal(cpulist_parse(lists[i], &set), 0);
		assert_int_equal(cpulist_format(&set, buf, sizeof(buf)), 0);
		assert_string_equal(buf, lists[i]);
	}
	/* Not shortest on input: comes back normalized. */
	assert_int_equal(cpulist_parse("5,0-3,4", &set), 0);
	assert_int_equal(cpulist_format(&set, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-5");
	assert_int_equal(cpulist_parse("0,1,2,3", &set), 0);
	assert_int_equal(cpulist_format(&set, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-3");
}

/* Sets of every density: format, parse back, same set. */
static void round_trip_sets(void **state)
{
	static char buf[8192];
	uint32_t seed = 12345;

	for (int iter = 0; iter < 200; iter++) {
		struct cpuset set = {}, back;
		unsigned int density = iter % 16 + 1;

		for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++) {
			seed = seed * 1103515245 + 12345;
			if ((seed >> 16) % 16 < density)
				cpuset_set(&set, cpu);
		}
		assert_int_equal(cpulist_format(&set, buf, sizeof(buf)), 0);
		assert_int_equal(cpulist_parse(buf, &back), 0);
		assert_set_equal(&set, &back);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(count_and_end),
		cmocka_unit_test(parse_valid),
		cmocka_unit_test(parse_empty),
		cmocka_unit_test(parse_invalid),
		cmocka_unit_test(parse_out_of_range),
		cmocka_unit_test(format_shortest),
		cmocka_unit_test(format_all),
		cmocka_unit_test(format_no_space),
		cmocka_unit_test(round_trip_strings),
		cmocka_unit_test(round_trip_sets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
