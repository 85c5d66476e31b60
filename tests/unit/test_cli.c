// SPDX-License-Identifier: GPL-2.0
/* Option value parsing: every bad value is refused, never half-taken. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "array_size.h"
#include "cli.h"

static void ulong_accepts_range(void **state)
{
	unsigned long v = 0;

	assert_int_equal(parse_ulong("10", 10, 100, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(parse_ulong("100", 10, 100, &v), 0);
	assert_int_equal(v, 100);
}

static void ulong_refuses_garbage(void **state)
{
	static const char *const bad[] = {
		"", "9", "101", "-1", "+5", "1e2", "12abc", " 12", "0x10",
		"99999999999999999999999",
	};
	unsigned long v = 42;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(parse_ulong(bad[i], 10, 100, &v), -EINVAL);
	assert_int_equal(parse_ulong(NULL, 10, 100, &v), -EINVAL);
	assert_int_equal(v, 42);
}

static void seconds(void **state)
{
	double d;

	assert_int_equal(parse_seconds("2.5", &d), 0);
	assert_float_equal(d, 2.5, 1e-9);
	assert_int_equal(parse_seconds("0", &d), -EINVAL);
	assert_int_equal(parse_seconds("-1", &d), -EINVAL);
	assert_int_equal(parse_seconds("nan", &d), -EINVAL);
	assert_int_equal(parse_seconds("inf", &d), -EINVAL);
	assert_int_equal(parse_seconds("3s", &d), -EINVAL);
	assert_int_equal(parse_seconds("", &d), -EINVAL);
}

static void pid_lists(void **state)
{
	int *pids = NULL;
	size_t nr = 0;

	assert_int_equal(parse_pid_list("300,1,20", &pids, &nr), 0);
	assert_int_equal(nr, 3);
	assert_int_equal(pids[0], 1);
	assert_int_equal(pids[1], 20);
	assert_int_equal(pids[2], 300);
	free(pids);
	assert_int_equal(parse_pid_list("7", &pids, &nr), 0);
	assert_int_equal(nr, 1);
	free(pids);
}

static void pid_lists_refused(void **state)
{
	static const char *const bad[] = {
		"", ",", "1,", ",1", "1,,2", "a", "1,b", "0", "-3", "1 2",
		"99999999",
	};
	int *pids = NULL;
	size_t nr = 0;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(parse_pid_list(bad[i], &pids, &nr), -EINVAL);
		assert_null(pids);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ulong_accepts_range),
		cmocka_unit_test(ulong_refuses_garbage),
		cmocka_unit_test(seconds),
		cmocka_unit_test(pid_lists),
		cmocka_unit_test(pid_lists_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
