// SPDX-License-Identifier: GPL-2.0
/* schedstat_strerror(): every library error has its own message. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "schedstat-local.h"

static void codes_distinct(void **state)
{
	for (int a = SCHEDSTAT_ERR_START; a < SCHEDSTAT_ERR_END; a++) {
		const char *ma = schedstat_strerror(-a);

		assert_non_null(ma);
		assert_true(strlen(ma) > 20);
		/* Positive and negative codes read the same. */
		assert_string_equal(schedstat_strerror(a), ma);
		/* Not the C library's "Unknown error 4000". */
		assert_null(strstr(ma, "Unknown error"));
		for (int b = SCHEDSTAT_ERR_START; b < a; b++)
			assert_string_not_equal(schedstat_strerror(-b), ma);
	}
}

/* The messages say what to do, not only what went wrong. */
static void codes_actionable(void **state)
{
	assert_non_null(strstr(schedstat_strerror(-SCHEDSTAT_ERR_NO_BTF),
			       "CONFIG_DEBUG_INFO_BTF=y"));
	assert_non_null(strstr(schedstat_strerror(-SCHEDSTAT_ERR_KERNEL_TOO_OLD),
			       "5.8"));
	assert_non_null(strstr(schedstat_strerror(-SCHEDSTAT_ERR_NO_PRIV),
			       "setcap cap_bpf,cap_perfmon+ep"));
	assert_non_null(strstr(schedstat_strerror(-SCHEDSTAT_ERR_TOPOLOGY_SPEC),
			       "LITTLE:0-3,big:4-7@1024"));
	assert_non_null(strstr(schedstat_strerror(-SCHEDSTAT_ERR_NO_SCHED_TP),
			       "sched_switch"));
	assert_non_null(strstr(schedstat_strerror(-SCHEDSTAT_ERR_BPF_LOAD),
			       "schedtop -v"));
}

/* The check the live source makes before loading anything. */
static void missing_btf_is_reported(void **state)
{
	assert_int_equal(bpfsrc_btf_check("/nonexistent/btf/vmlinux"),
			 -SCHEDSTAT_ERR_NO_BTF);
	assert_int_equal(bpfsrc_btf_check("/proc/self/status"), 0);
}

static void errno_values(void **state)
{
	char want[256];

	strcpy(want, strerror(ENOENT));
	assert_string_equal(schedstat_strerror(-ENOENT), want);
	assert_string_equal(schedstat_strerror(ENOENT), want);
	strcpy(want, strerror(EPERM));
	assert_string_equal(schedstat_strerror(-EPERM), want);
	/* Outside both ranges: still a message, never NULL. */
	assert_non_null(schedstat_strerror(-SCHEDSTAT_ERR_END));
	assert_true(strlen(schedstat_strerror(-SCHEDSTAT_ERR_END)) > 0);
	assert_non_null(schedstat_strerror(INT_MIN));
	assert_non_null(schedstat_strerror(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(codes_distinct),
		cmocka_unit_test(codes_actionable),
		cmocka_unit_test(missing_btf_is_reported),
		cmocka_unit_test(errno_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
