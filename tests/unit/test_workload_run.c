// SPDX-License-Identifier: GPL-2.0
/*
 * The workload's threads (libschedstat/workload/) and the sampling thread
 * that drains their activations: a drain that stalls, as one preempted by
 * other work does, must not hold the threads back. They handed each
 * activation over under a lock the drain held, and a thread kept waiting
 * there past its next releases dropped them (audio's SCHED_FIFO thread is
 * above everything but the sampling thread it waited for).
 *
 * A stand-in use case (an rt-app file) releases every millisecond on an
 * absolute timer (no work), so that a short run also fills more than one
 * of a thread's chunks of activations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "schedstat.h"

#define MS		1000000ULL
#define PERIOD_NS	MS
#define STALL_NS	(50 * MS)
#define DRAIN_EVERY_NS	(100 * MS)
#define RUN_NS		(1300 * MS)
#define MAX_ACTS	4096

static const char every_ms[] =
	"{ \"tasks\": { \"wl-every-ms\": { \"policy\": \"SCHED_FIFO\", \"priority\": 1,\n"
	"    \"loop\": -1, \"run\": 0,\n"
	"    \"timer\": { \"ref\": \"t\", \"period\": 1000, \"mode\": \"absolute\" } } },\n"
	"  \"global\": { \"lock_pages\": false },\n"
	"  \"schedtop\": { \"constraints\": [ { \"name\": \"every-ms\", \"task\": \"wl-every-ms\",\n"
	"    \"max_miss_ratio\": 0.5 } ] } }";

struct drained {
	struct schedstat_workload_activation acts[MAX_ACTS];
	size_t nr;
	bool stall;		/* stall in the next call */
	uint64_t stall_from, stall_to;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	while (nanosleep(&ts, &ts))
		;
}

/* Keeps each activation; once, sleeps inside the drain as if preempted. */
static int keep(const struct schedstat_workload_activation *a, void *ctx)
{
	struct drained *d = ctx;

	if (d->stall) {
		d->stall = false;
		d->stall_from = mono_ns();
		sleep_ns(STALL_NS);
		d->stall_to = mono_ns();
	}
	if (d->nr < MAX_ACTS)
		d->acts[d->nr] = *a;
	d->nr++;
	return 0;
}

static bool missed(const struct schedstat_workload_activation *a)
{
	return a->dropped || !a->end || a->end > a->deadline;
}

static void threads_keep_their_releases_while_a_drain_stalls(void **state)
{
	static struct drained d;
	const struct schedstat_workload_activation *all;
	struct schedstat_workload *wl;
	struct schedstat_workload_run *r;
	size_t n, judged = 0, late = 0;
	char err[SCHEDSTAT_WORKLOAD_ERR_LEN];
	uint64_t start, stop;

	(void)state;
	assert_int_equal(schedstat_workload_parse(&wl, every_ms, strlen(every_ms), "every-ms.json",
						  err, sizeof(err)), 0);
	assert_int_equal(schedstat_workload_start(&r, wl, &(struct schedstat_workload_opts){
		.ns_per_loop = 10, .scale = 1 }, err, sizeof(err)), 0);
	start = mono_ns();
	for (int i = 1; mono_ns() < start + RUN_NS; i++) {
		sleep_ns(DRAIN_EVERY_NS);
		d.stall = i == 3;
		assert_int_equal(schedstat_workload_drain(r, mono_ns(), false, keep, &d), 0);
	}
	stop = mono_ns();
	schedstat_workload_stop(r);
	assert_int_equal(schedstat_workload_drain(r, stop, true, keep, &d), 0);
	all = schedstat_workload_activations(r, &n);
	assert_non_null(all);

	/* More than a chunk (512), every release of the plan, in order. */
	assert_in_range(n, 1100, MAX_ACTS);
	for (size_t k = 1; k < n; k++)
		assert_int_equal(all[k].release - all[0].release, k * PERIOD_NS);
	/* The drains handed over the same, but for the last, unjudged. */
	assert_in_range(d.nr, n - 2, n);
	for (size_t k = 0; k < d.nr; k++)
		assert_int_equal(d.acts[k].release, all[k].release);

	/*
	 * Releases while the drain slept: 50, all late behind a lock; a
	 * thread on its own misses one only if its CPU is taken from it for
	 * a period (steal, an interrupt storm): half is far beyond that.
	 */
	assert_true(d.stall_to - d.stall_from >= STALL_NS);
	for (size_t k = 0; k < n; k++) {
		if (all[k].release < d.stall_from ||
		    all[k].release + PERIOD_NS > d.stall_to)
			continue;
		judged++;
		late += missed(&all[k]);
	}
	print_message("# %zu activations; %zu released while a drain slept "
		      "%.1f ms, %zu of them late\n", n, judged,
		      (d.stall_to - d.stall_from) / 1e6, late);
	assert_in_range(judged, 45, 55);
	assert_true(late < judged / 2);
	schedstat_workload_run_free(r);
	schedstat_workload_free(wl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(threads_keep_their_releases_while_a_drain_stalls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
