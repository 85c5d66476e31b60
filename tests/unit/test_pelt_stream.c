// SPDX-License-Identifier: GPL-2.0
/*
 * Ordering of the --pelt-trace stream: records of two CPUs arriving as the
 * ring delivers them (each CPU's in order, the two interleaved with bounded
 * lateness) come out sorted by (ts, cpu), only once older than the release
 * point, each exactly once, with the fields of the record they came from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pelt_stream.h"

#define NR_RECS	20000

struct got {
	struct schedstat_pelt_update *u;
	size_t nr;
};

static void collect(const struct schedstat_pelt_update *u, void *ctx)
{
	struct got *g = ctx;

	g->u[g->nr++] = *u;
}

/* Record @i: CPU i % 2 every 1000 ns, the two CPUs 500 ns apart. */
static void make_rec(struct st_pelt_rec *r, int i)
{
	memset(r, 0, sizeof(*r));
	r->ts = 1000000 + (uint64_t)(i / 2) * 1000 + (i % 2) * 500;
	r->cpu = i % 2;
	r->entity = i % 3 ? ST_PELT_CFS : ST_PELT_TASK;
	r->pid = r->entity == ST_PELT_TASK ? 100 + i % 5 : -1;
	r->tgid = r->entity == ST_PELT_TASK ? 100 : -1;
	if (r->entity == ST_PELT_TASK)
		snprintf(r->comm, sizeof(r->comm), "t\x1b%d", i % 5);
	r->util_avg = i % 1025;
	r->runnable_avg = i % 1100;
	r->load_avg = i;
	r->util_est = i % 7 ? (uint32_t)i % 1024 : ST_PELT_NO_UTIL_EST;
	r->last_update_time = 5000 + i;
}

static void ordered_once_and_held_back(void **state)
{
	struct got g = { calloc(NR_RECS, sizeof(*g.u)), 0 };
	struct pelt_stream *ps;
	uint64_t upto = 0;

	assert_int_equal(pelt_stream_new(&ps, collect, &g), 0);
	/* CPU 1's records run up to 8 records (4 us) late against CPU 0's. */
	for (int blk = 0; blk < NR_RECS; blk += 16) {
		struct st_pelt_rec r;

		for (int i = blk; i < blk + 16; i += 2) {
			make_rec(&r, i);
			assert_int_equal(pelt_stream_add(ps, &r), 0);
		}
		for (int i = blk + 1; i < blk + 16; i += 2) {
			make_rec(&r, i);
			assert_int_equal(pelt_stream_add(ps, &r), 0);
		}
		/* Released up to the block's start: nothing later came out. */
		upto = 1000000 + (uint64_t)(blk / 2) * 1000;
		pelt_stream_release(ps, upto);
		assert_true(!g.nr || g.u[g.nr - 1].ts_ns <= upto);
	}
	pelt_stream_release(ps, UINT64_MAX);
	assert_int_equal(g.nr, NR_RECS);
	for (int i = 0; i < NR_RECS; i++) {
		struct st_pelt_rec r;
		const struct schedstat_pelt_update *u = &g.u[i];

		make_rec(&r, i);
		assert_int_equal(u->ts_ns, r.ts);
		assert_int_equal(u->cpu, r.cpu);
		assert_int_equal(u->util_avg, r.util_avg);
		assert_int_equal(u->runnable_avg, r.runnable_avg);
		assert_int_equal(u->load_avg, r.load_avg);
		assert_int_equal(u->last_update_ns, r.last_update_time);
		if (r.entity == ST_PELT_TASK) {
			assert_string_equal(u->entity, "task");
			assert_int_equal(u->pid, r.pid);
			assert_true(u->avail & SCHEDSTAT_AVAIL_PELT_TASK);
			/* The escape byte never reaches a terminal. */
			assert_int_equal(u->comm[1], '?');
		} else {
			assert_string_equal(u->entity, "cfs");
			assert_int_equal(u->pid, -1);
			assert_string_equal(u->comm, "");
			assert_false(u->avail & SCHEDSTAT_AVAIL_PELT_TASK);
		}
		if (r.util_est == ST_PELT_NO_UTIL_EST) {
			assert_false(u->avail & SCHEDSTAT_AVAIL_UTIL_EST);
		} else {
			assert_true(u->avail & SCHEDSTAT_AVAIL_UTIL_EST);
			assert_int_equal(u->util_est, r.util_est);
		}
	}
	pelt_stream_free(ps);
	free(g.u);
}

/* Equal timestamps: CPU order, and arrival order within a CPU. */
static void ties_keep_cpu_then_arrival_order(void **state)
{
	struct got g = { calloc(8, sizeof(*g.u)), 0 };
	struct pelt_stream *ps;
	struct st_pelt_rec r;
	static const int cpu[] = { 1, 0, 1, 0 };

	assert_int_equal(pelt_stream_new(&ps, collect, &g), 0);
	for (int i = 0; i < 4; i++) {
		memset(&r, 0, sizeof(r));
		r.ts = 42;
		r.cpu = cpu[i];
		r.entity = ST_PELT_RT;
		r.util_avg = i;
		r.util_est = ST_PELT_NO_UTIL_EST;
		assert_int_equal(pelt_stream_add(ps, &r), 0);
	}
	pelt_stream_release(ps, 41);
	assert_int_equal(g.nr, 0);
	pelt_stream_release(ps, 42);
	assert_int_equal(g.nr, 4);
	assert_int_equal(g.u[0].util_avg, 1);
	assert_int_equal(g.u[1].util_avg, 3);
	assert_int_equal(g.u[2].util_avg, 0);
	assert_int_equal(g.u[3].util_avg, 2);
	assert_string_equal(g.u[0].entity, "rt");
	pelt_stream_free(ps);
	free(g.u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ordered_once_and_held_back),
		cmocka_unit_test(ties_keep_cpu_then_arrival_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
