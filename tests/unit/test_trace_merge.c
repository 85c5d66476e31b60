// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU merge of trace events (traces/trace_merge.c), on streams made
 * as Perfetto writes them: each CPU's events in order, the CPUs' bundles one
 * after another. What comes out is in time order, each event once; a CPU
 * that has given all its events (the driver's count) holds nothing back;
 * a silent CPU holds the others back no longer than the window, and the
 * queue never grows past its bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "trace_merge.h"

static struct trace_ev ev(int cpu, uint64_t ts)
{
	struct trace_ev e = { .ts = ts, .cpu = cpu, .pid = -1, .kind = TRACE_EV_CURRENT };

	return e;
}

/* Pops what may come out; the timestamps into @out, their count. */
static size_t drain(struct trace_merge *m, bool all_in, uint64_t *out, size_t n)
{
	const struct trace_ev *e;

	while ((e = trace_merge_peek(m, all_in))) {
		out[n++] = e->ts;
		trace_merge_pop(m, e);
	}
	return n;
}

/* Four CPUs, bundles of 50 events each, 20 drain rounds, CPUs in turn. */
static void bundles_come_out_in_time_order(void **state)
{
	enum { CPUS = 4, ROUNDS = 20, PER = 50 };
	uint64_t totals[CPUS], out[CPUS * ROUNDS * PER];
	struct trace_merge m;
	size_t n = 0;

	for (int c = 0; c < CPUS; c++)
		totals[c] = ROUNDS * PER;
	assert_int_equal(trace_merge_init(&m, CPUS, false, totals), 0);
	for (int r = 0; r < ROUNDS; r++) {
		for (int c = 0; c < CPUS; c++) {
			for (int i = 0; i < PER; i++) {
				/* round r covers [r ms, r+1 ms); CPUs interleave */
				struct trace_ev e = ev(c, r * 1000000ULL + i * 20000 + c * 7);

				assert_int_equal(trace_merge_push(&m, &e), 0);
			}
			n = drain(&m, false, out, n);
		}
	}
	n = drain(&m, true, out, n);
	assert_int_equal(n, CPUS * ROUNDS * PER);
	for (size_t i = 1; i < n; i++)
		assert_true(out[i - 1] <= out[i]);
	assert_int_equal(m.late, 0);
	/* A round of every CPU at most, never the whole file. */
	assert_true(m.high_water <= CPUS * PER * 2);
	trace_merge_free(&m);
}

/* A CPU with no more events holds nothing back; one silent for longer than
 * the window only that long. */
static void done_and_silent_cpus(void **state)
{
	uint64_t totals[2] = { 3, 1 }, out[8];
	struct trace_merge m;
	struct trace_ev e;
	size_t n;

	assert_int_equal(trace_merge_init(&m, 2, false, totals), 0);
	e = ev(1, 5);
	trace_merge_push(&m, &e);
	e = ev(0, 10);
	trace_merge_push(&m, &e);
	/* CPU 1 gave its one event: CPU 0's may all come out as they come. */
	n = drain(&m, false, out, 0);
	assert_int_equal(n, 2);
	trace_merge_free(&m);

	/* Without counts, a silent CPU 1 holds CPU 0 back for the window. */
	assert_int_equal(trace_merge_init(&m, 2, false, NULL), 0);
	e = ev(0, 1000);
	trace_merge_push(&m, &e);
	assert_null(trace_merge_peek(&m, false));
	e = ev(0, 1000 + TRACE_MERGE_WINDOW_NS + 1);
	trace_merge_push(&m, &e);
	n = drain(&m, false, out, 0);
	assert_int_equal(n, 1);
	assert_int_equal(out[0], 1000);
	/* A late event is still given, and counted. */
	e = ev(1, 500);
	trace_merge_push(&m, &e);
	n = drain(&m, true, out, 0);
	assert_int_equal(n, 2);
	assert_int_equal(m.late, 1);
	trace_merge_free(&m);
}

/* However long a CPU stays silent, no more than the bound is queued. */
static void the_queue_is_bounded(void **state)
{
	const struct trace_ev *out;
	struct trace_merge m;
	struct trace_ev e;

	/* CPU 1 never speaks, and the events are 1 ns apart: only the bound
	 * lets any out. */
	assert_int_equal(trace_merge_init(&m, 2, false, NULL), 0);
	for (uint64_t i = 0; i < 3 * TRACE_MERGE_MAX_EVENTS; i++) {
		e = ev(0, i);
		assert_int_equal(trace_merge_push(&m, &e), 0);
		while ((out = trace_merge_peek(&m, false)))
			trace_merge_pop(&m, out);
	}
	assert_true(m.queued <= TRACE_MERGE_MAX_EVENTS);
	assert_true(m.high_water <= TRACE_MERGE_MAX_EVENTS);
	trace_merge_free(&m);
}

/* A reader that merged its CPUs already: out as they come. */
static void sorted_readers_pass_through(void **state)
{
	struct trace_merge m;
	struct trace_ev e = ev(3, 7);

	assert_int_equal(trace_merge_init(&m, 4, true, NULL), 0);
	trace_merge_push(&m, &e);
	assert_non_null(trace_merge_peek(&m, false));
	trace_merge_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bundles_come_out_in_time_order),
		cmocka_unit_test(done_and_silent_cpus),
		cmocka_unit_test(the_queue_is_bounded),
		cmocka_unit_test(sorted_readers_pass_through),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
