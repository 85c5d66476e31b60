// SPDX-License-Identifier: GPL-2.0
/*
 * The detail screen's PELT stream: the per-task buffer and the time axis.
 * Expected columns are worked out by hand from the updates below.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "array_size.h"
#include "tui_pelt.h"

static struct schedstat_pelt_update upd(int pid, const char *entity,
					uint64_t ts, unsigned int util)
{
	struct schedstat_pelt_update u = {
		.ts_ns = ts, .pid = pid, .tgid = pid, .util_avg = util,
		.runnable_avg = util + 1, .util_est = util + 2,
		.avail = SCHEDSTAT_AVAIL_UTIL_EST,
	};

	strcpy(u.entity, entity);
	return u;
}

/* An update of @cpu's @entity (cfs, rt, dl, irq): no task's. */
static struct schedstat_pelt_update cpu_upd(int cpu, const char *entity,
					    uint64_t ts, unsigned int util)
{
	struct schedstat_pelt_update u = upd(-1, entity, ts, util);

	u.cpu = cpu;
	return u;
}

static void add(struct tui_pelt *tp, struct schedstat_pelt_update u)
{
	assert_int_equal(tui_pelt_add(tp, &u), 0);
}

static void assert_cols_equal(const int *cols, size_t nr_cols,
			      const int *want, size_t nr_want)
{
	assert_int_equal(nr_cols, nr_want);
	for (size_t i = 0; i < nr_cols; i++)
		if (cols[i] != want[i])
			fail_msg("column %zu: %d, worked out %d", i, cols[i], want[i]);
}

/* Every column of the array @cols, as worked out by hand. */
#define assert_cols(cols, ...)						\
	assert_cols_equal(cols, ARRAY_SIZE(cols), (const int[]){ __VA_ARGS__ }, \
			  ARRAY_SIZE(((const int[]){ __VA_ARGS__ })))

/*
 * now 10000, window 1000, width 4: columns (9000,9250] (9250,9500]
 * (9500,9750] (9750,10000]. 8900 is before the window (held into it),
 * 9100 and 9200 fall in column 0 (peak 300), none in 1 and 2 (300 held),
 * 9800 and 10000 in column 3 (peak 60); 10100 is after now.
 */
static void columns_from_hand_worked_window(void **state)
{
	struct tui_pelt tp = {};
	int cols[4];

	add(&tp, upd(7, "task", 8900, 100));
	add(&tp, upd(7, "task", 9100, 200));
	add(&tp, upd(7, "task", 9200, 300));
	add(&tp, upd(7, "task", 9800, 50));
	add(&tp, upd(7, "task", 10000, 60));
	add(&tp, upd(7, "task", 10100, 999));
	assert_int_equal(tui_pelt_layout(tui_pelt_find(&tp, 7), PELT_UTIL,
					 10000, 1000, 4, cols), 4);
	assert_cols(cols, 300, 300, 300, 60);
	/* runnable = util + 1 in every update: 301, 301, 301, 61. */
	tui_pelt_layout(tui_pelt_find(&tp, 7), PELT_RUNNABLE, 10000, 1000, 4, cols);
	assert_cols(cols, 301, 301, 301, 61);
	/* An update exactly at a column's end belongs to it: 9250 -> 0. */
	add(&tp, upd(8, "task", 9250, 400));
	add(&tp, upd(8, "task", 9251, 10));
	assert_int_equal(tui_pelt_layout(tui_pelt_find(&tp, 8), PELT_UTIL,
					 10000, 1000, 4, cols), 2);
	assert_cols(cols, 400, 10, 10, 10);
	tui_pelt_free(&tp);
}

/* Before the first update nothing is drawn (-1), not a zero. */
static void nothing_before_the_first_update(void **state)
{
	struct tui_pelt tp = {};
	int cols[5];

	/* width 5 over (0,1000]: 200 per column; 650 is in column 3. */
	add(&tp, upd(3, "task", 650, 512));
	assert_int_equal(tui_pelt_layout(tui_pelt_find(&tp, 3), PELT_UTIL,
					 1000, 1000, 5, cols), 1);
	assert_cols(cols, -1, -1, -1, 512, 512);
	tui_pelt_free(&tp);
}

/* CPU entities are kept apart; the ring keeps the newest PELT_RING updates. */
static void buffer_is_bounded_and_per_task(void **state)
{
	struct tui_pelt tp = {};
	const struct pelt_task *t;
	int cols[1];

	add(&tp, upd(-1, "cfs", 5, 100));
	assert_null(tui_pelt_find(&tp, -1));
	for (unsigned int i = 1; i <= PELT_RING + 10; i++)
		add(&tp, upd(42, "task", i * 10, i % 1000));
	add(&tp, upd(43, "task", 15, 77));
	t = tui_pelt_find(&tp, 42);
	assert_non_null(t);
	assert_int_equal(t->n, PELT_RING);
	/* The oldest kept is update 11 (ts 110): a window to 110 holds one. */
	assert_int_equal(tui_pelt_layout(t, PELT_UTIL, 110, 110, 1, cols), 1);
	assert_int_equal(cols[0], 11);
	assert_int_equal(tui_pelt_find(&tp, 43)->n, 1);
	/* More tasks than kept are counted, not stored. */
	for (int pid = 100; pid < 100 + PELT_TASKS; pid++)
		add(&tp, upd(pid, "task", 1, 1));
	assert_int_equal(tp.nr, PELT_TASKS);
	assert_int_equal(tp.untracked, 2);
	tui_pelt_clear(&tp);
	assert_null(tui_pelt_find(&tp, 42));
	tui_pelt_free(&tp);
}

/*
 * --pelt-cpus: each CPU's cfs, rt, dl and irq updates are a series of their
 * own, never a task's; a CPU's cfs window counts only its cfs updates.
 */
static void cpu_entities_are_kept_per_cpu_and_entity(void **state)
{
	struct tui_pelt tp = {};
	const struct pelt_task *cfs;
	int cols[2];

	add(&tp, cpu_upd(1, "cfs", 100, 300));
	add(&tp, cpu_upd(1, "cfs", 600, 500));
	add(&tp, cpu_upd(1, "rt", 700, 20));
	add(&tp, cpu_upd(0, "cfs", 800, 900));
	assert_null(tui_pelt_find(&tp, -1));
	cfs = tui_pelt_find_cpu(&tp, 1, SCHEDSTAT_PELT_CFS);
	assert_non_null(cfs);
	assert_int_equal(cfs->n, 2);
	assert_int_equal(tui_pelt_find_cpu(&tp, 1, SCHEDSTAT_PELT_RT)->n, 1);
	assert_null(tui_pelt_find_cpu(&tp, 1, SCHEDSTAT_PELT_DL));
	assert_null(tui_pelt_find_cpu(&tp, 1, SCHEDSTAT_PELT_TASK));
	assert_int_equal(tui_pelt_find_cpu(&tp, 0, SCHEDSTAT_PELT_CFS)->n, 1);
	/* (0,500] (500,1000]: 300 in the first, 500 in the second. */
	assert_int_equal(tui_pelt_layout(cfs, PELT_UTIL, 1000, 1000, 2, cols), 2);
	assert_cols(cols, 300, 500);
	/* More CPUs than kept are counted, not stored. */
	for (int cpu = 2; cpu < PELT_CPUS + 3; cpu++)
		add(&tp, cpu_upd(cpu, "irq", 900, 1));
	assert_int_equal(tp.nr_cpus, PELT_CPUS);
	assert_int_equal(tp.cpu_untracked, 3);
	tui_pelt_clear(&tp);
	assert_null(tui_pelt_find_cpu(&tp, 1, SCHEDSTAT_PELT_CFS));
	tui_pelt_free(&tp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(columns_from_hand_worked_window),
		cmocka_unit_test(nothing_before_the_first_update),
		cmocka_unit_test(buffer_is_bounded_and_per_task),
		cmocka_unit_test(cpu_entities_are_kept_per_cpu_and_entity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
