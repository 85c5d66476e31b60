// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoint table (libschedstat/sources/tracepoints.c): complete, in
 * the order the event sources rely on, and giving the BPF source the avail
 * bits and opt-ins it had when each program named its own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "array_size.h"
#include "tracepoints.h"

static void rows_complete(void **state)
{
	size_t nr;
	const struct schedstat_tracepoint *tp = schedstat_tracepoints(&nr);

	assert_int_equal(nr, TP_NR);
	assert_ptr_equal(tp, tp_table);
	for (size_t i = 0; i < nr; i++) {
		assert_non_null(tp[i].system);
		assert_non_null(tp[i].name);
		assert_non_null(tp[i].gives);
		assert_ptr_equal(tp_find(tp[i].name), &tp[i]);
		/* The event sources parse the first TP_NR_EVENTS rows. */
		assert_int_equal(!!(tp[i].flags & SCHEDSTAT_TP_EVENTS),
				 i < TP_NR_EVENTS);
		if (!(tp[i].flags & SCHEDSTAT_TP_BPF))
			assert_int_equal(tp[i].bpf_avail, 0);
	}
	assert_null(tp_find("sched_util_est_cfs_tp"));
}

static void event_sources_order(void **state)
{
	/* tracefs_source.c wants sched_switch enabled first. */
	assert_string_equal(tp_table[0].name, "sched_switch");
	assert_string_equal(tp_table[TP_SCHED_WAKEUP_NEW].name, "sched_wakeup_new");
	assert_string_equal(tp_table[TP_CPUHP_EXIT].name, "cpuhp_exit");
	assert_string_equal(tp_table[TP_LISA_PELT_CFS].system, "lisa");
	assert_true(tp_table[TP_SCHED_WAKING].flags & SCHEDSTAT_TP_FILES_ONLY);
	assert_true(tp_table[TP_SCHED_STAT_RUNTIME].flags & SCHEDSTAT_TP_FILES_ONLY);
}

/* What bpf_source.c's own map and opt-in list said before the table. */
static void bpf_as_before(void **state)
{
	static const struct { const char *tp; uint32_t bit; } avail[] = {
		{ "sched_overutilized_tp", SCHEDSTAT_AVAIL_OVERUTILIZED_NS },
		{ "sched_waking", SCHEDSTAT_AVAIL_WAKEUPS },
		{ "sched_switch", SCHEDSTAT_AVAIL_PREEMPT },
		{ "cpuhp_exit", SCHEDSTAT_AVAIL_HOTPLUG },
	};
	size_t nr_bits = 0;

	for (size_t i = 0; i < ARRAY_SIZE(avail); i++)
		assert_int_equal(tp_find(avail[i].tp)->bpf_avail, avail[i].bit);
	for (int i = 0; i < TP_NR; i++) {
		const struct schedstat_tracepoint *t = &tp_table[i];
		bool opt_in = !strcmp(t->name, "sched_waking") ||
			      !strcmp(t->name, "sched_wakeup_new") ||
			      !strcmp(t->name, "sched_switch");

		nr_bits += t->bpf_avail != 0;
		assert_int_equal(!!(t->flags & SCHEDSTAT_TP_EXACT_WAKEUPS), opt_in);
	}
	assert_int_equal(nr_bits, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_complete),
		cmocka_unit_test(event_sources_order),
		cmocka_unit_test(bpf_as_before),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
