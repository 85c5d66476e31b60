// SPDX-License-Identifier: GPL-2.0
/*
 * cpufreq's time_in_state as the kernel prints it (show_time_in_state():
 * "%u %llu\n", kHz and USER_HZ ticks), and its counters replacing the
 * event-summed residency of the clusters whose policy keeps them.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpufreq_stats.h"
#include "schedstat-local.h"

static void parse_kernel_text(void **state)
{
	struct model_freq_time t[4];

	/* What a Cortex-A55 policy printed: 300 MHz for 12.34 s, ... */
	assert_int_equal(cpufreq_stats_parse("300000 1234\n576000 0\n1804800 77\n",
					     100, t, 4), 3);
	assert_int_equal(t[0].khz, 300000);
	assert_int_equal(t[0].ns, 12340000000ull);
	assert_int_equal(t[1].ns, 0);
	assert_int_equal(t[2].khz, 1804800);
	assert_int_equal(t[2].ns, 770000000ull);
	/* USER_HZ is not always 100. */
	assert_int_equal(cpufreq_stats_parse("300000 1234\n", 1000, t, 4), 1);
	assert_int_equal(t[0].ns, 1234000000ull);
	assert_int_equal(cpufreq_stats_parse("", 100, t, 4), 0);
	assert_int_equal(cpufreq_stats_parse("300000\n", 100, t, 4), -EINVAL);
	assert_int_equal(cpufreq_stats_parse("fast 12\n", 100, t, 4), -EINVAL);
	assert_int_equal(cpufreq_stats_parse("1 1\n2 2\n3 3\n", 100, t, 2), -ENOSPC);
}

static char root[PATH_MAX];

static void write_stats(int policy, const char *text)
{
	char path[PATH_MAX + 96];
	FILE *f;

	snprintf(path, sizeof(path),
		 "%s/devices/system/cpu/cpufreq/policy%d/stats", root, policy);
	char cmd[sizeof(path) + 16];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	assert_int_equal(system(cmd), 0);
	strcat(path, "/time_in_state");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static uint64_t find(const struct model_freq_time *t, size_t nr, uint32_t cpu,
		     uint32_t khz)
{
	for (size_t i = 0; i < nr; i++)
		if (t[i].cpu == cpu && t[i].khz == khz)
			return t[i].ns;
	return UINT64_MAX;
}

static void kernel_counters_replace_events(void **state)
{
	const char *src = getenv("SCHEDTOP_SRCDIR");
	char tmpl[] = "/tmp/schedtop-cpufreq-XXXXXX", cmd[2 * PATH_MAX];
	struct schedstat_topology *topo = NULL;
	struct cpufreq_stats *st = NULL;
	struct model_freq_time *times;
	size_t nr = 1, cap = 1;

	assert_non_null(mkdtemp(tmpl));
	snprintf(root, sizeof(root), "%s", tmpl);
	snprintf(cmd, sizeof(cmd), "cp -r '%s/tests/fixtures/sysfs/phone-4+4/.' '%s'",
		 src ? src : ".", root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(schedstat_topology_detect(&topo, root), 0);
	/* LITTLE (policy0) keeps stats; big (policy4) does not. */
	write_stats(0, "576000 5000\n1804800 100\n");
	assert_int_equal(cpufreq_stats_open(&st, root, topo, 8), 0);
	write_stats(0, "576000 5012\n1804800 103\n2016000 1\n");

	/* What the cpu_frequency events summed: one LITTLE, one big CPU. */
	times = calloc(2, sizeof(*times));
	assert_non_null(times);
	times[0] = (struct model_freq_time){ .cpu = 2, .khz = 576000, .ns = 999 };
	times[1] = (struct model_freq_time){ .cpu = 5, .khz = 1209600, .ns = 777 };
	nr = 2;
	cap = 2;
	assert_int_equal(cpufreq_stats_apply(st, &times, &nr, &cap), 0);
	/* big keeps its events; every LITTLE CPU gets the kernel's times. */
	assert_int_equal(find(times, nr, 5, 1209600), 777);
	for (uint32_t cpu = 0; cpu < 4; cpu++) {
		assert_int_equal(find(times, nr, cpu, 576000), 120000000ull);
		assert_int_equal(find(times, nr, cpu, 1804800), 30000000ull);
		/* A frequency first seen after open counts from zero. */
		assert_int_equal(find(times, nr, cpu, 2016000), 10000000ull);
	}
	assert_int_equal(nr, 1 + 4 * 3);
	free(times);
	cpufreq_stats_close(st);
	schedstat_topology_free(topo);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_kernel_text),
		cmocka_unit_test(kernel_counters_replace_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
