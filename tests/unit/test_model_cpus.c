// SPDX-License-Identifier: GPL-2.0
/*
 * The model's CPUs and clusters on synthetic kernel records: rows, sums,
 * migrations, misfit, frequencies and idle states.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"
#include "pelt.h"
#include "model_fixture.h"

static void cpu_and_cluster_rows(void **state)
{
	struct fixture *f = *state;
	struct schedstat_snapshot *s;
	const struct schedstat_cpu *c;
	const struct schedstat_cluster *cl;
	size_t n;

	f->cpus[0].seen = ST_SEEN_CFS | ST_SEEN_RT;
	f->cpus[0].cfs_util = 200;
	f->cpus[0].rt_util = 56;
	f->cpus[1].seen = ST_SEEN_CFS;
	f->cpus[1].cfs_util = 512;
	f->cpus[1].rt_util = 99;		/* not seen: not counted */
	f->cpus[0].nr_switches = 10;
	f->cpus[0].dropped = 1;
	assert_null(update(f, 100 * MS));
	f->cpus[0].nr_switches = 25;
	f->cpus[0].nr_preempt = 2;
	f->cpus[0].dropped = 4;
	/* CPU 0 idle for 30 ms of the interval, idle again since 190 ms. */
	f->cpus[0].idle_ns = 30 * MS;
	f->cpus[0].idle_start = 190 * MS;
	s = update(f, 200 * MS);
	c = schedstat_snapshot_cpus(s, &n);
	assert_int_equal(c[0].nr_switches, 15);
	assert_int_equal(c[0].nr_preempt, 2);
	assert_int_equal(c[0].dropped, 3);
	assert_int_equal(c[0].busy_ns, 60 * MS);
	assert_int_equal(schedstat_snapshot_dropped(s), 4);
	assert_true(c[0].avail & SCHEDSTAT_AVAIL_RT);
	assert_false(c[1].avail & SCHEDSTAT_AVAIL_RT);
	/* Nothing ran and nothing switched on CPU 1: idle all along. */
	assert_int_equal(c[1].busy_ns, 0);
	assert_int_equal(c[0].capacity, 512);
	cl = schedstat_snapshot_clusters(s, &n);
	assert_int_equal(n, 2);
	assert_string_equal(cl[0].name, "LITTLE");
	assert_string_equal(cl[0].cpus, "0");
	assert_int_equal(cl[0].capacity, 512);
	assert_float_equal(cl[0].util_pct, 100.0 * 256 / 512, 0.001);
	assert_string_equal(cl[1].name, "big");
	assert_float_equal(cl[1].util_pct, 100.0 * 512 / 1024, 0.001);
	assert_int_equal(cl[1].overutilized, -1);
	schedstat_snapshot_free(s);
}

static void offline_cpu_leaves_cluster_sums(void **state)
{
	struct fixture *f = *state;
	struct schedstat_snapshot *s;
	const struct schedstat_cluster *cl;
	size_t n;

	f->cpus[1].seen = ST_SEEN_CFS;
	f->cpus[1].cfs_util = 512;
	assert_null(update(f, 100 * MS));
	memset(&f->online, 0, sizeof(f->online));
	cpuset_set(&f->online, 0);
	s = update(f, 200 * MS);
	cl = schedstat_snapshot_clusters(s, &n);
	assert_int_equal(cl[1].nr_online, 0);
	assert_int_equal(cl[1].capacity, 0);
	assert_float_equal(cl[1].util_pct, 0, 0.001);
	assert_false(schedstat_snapshot_cpus(s, &n)[1].online);
	schedstat_snapshot_free(s);
}

static void cross_cluster_migrations_split(void **state)
{
	struct fixture *f = *state;
	struct schedstat_snapshot *s;
	const struct schedstat_task *t;

	add_task(f, 80, "mover", 1);
	assert_null(update(f, 100 * MS));
	assert_int_equal(model_add_migration(f->model, 80, 0, 1), 0);	/* up */
	assert_int_equal(model_add_migration(f->model, 80, 1, 0), 0);	/* down */
	assert_int_equal(model_add_migration(f->model, 80, 0, 1), 0);	/* up */
	assert_int_equal(model_add_migration(f->model, 80, 1, 1), 0);	/* same */
	assert_int_equal(model_add_migration(f->model, 81, 0, 1), 0);	/* other */
	s = update(f, 200 * MS);
	t = find(s, 80, false);
	assert_int_equal(t->up_migrations, 2);
	assert_int_equal(t->down_migrations, 1);
	/* The pair table: LITTLE->big 3 (two of 80, one of 81), big->LITTLE 1. */
	{
		const struct schedstat_migration *mg;
		size_t nm;

		mg = schedstat_snapshot_migrations(s, &nm);
		assert_int_equal(nm, 2);
		assert_int_equal(mg[0].from, 0);
		assert_int_equal(mg[0].to, 1);
		assert_int_equal(mg[0].count, 3);
		assert_float_equal(mg[0].per_sec, 30.0, 1e-9);
		assert_int_equal(mg[1].from, 1);
		assert_int_equal(mg[1].to, 0);
		assert_int_equal(mg[1].count, 1);
	}
	schedstat_snapshot_free(s);
	/* Counted per interval. */
	s = update(f, 300 * MS);
	t = find(s, 80, false);
	assert_int_equal(t->up_migrations, 0);
	assert_int_equal(t->down_migrations, 0);
	schedstat_snapshot_free(s);
}

/*
 * A move drained with the baseline sample happened before the first
 * interval: not in its table (a recording opened after the baseline has
 * no event for it, and read by other clusters would count one less).
 */
static void moves_before_the_baseline_are_not_counted(void **state)
{
	struct fixture *f = *state;
	struct schedstat_snapshot *s;
	size_t nm;

	add_task(f, 80, "mover", 1);
	assert_int_equal(model_add_migration(f->model, 80, 1, 0), 0);
	assert_null(update(f, 100 * MS));
	assert_int_equal(model_add_migration(f->model, 80, 0, 1), 0);
	s = update(f, 200 * MS);
	assert_int_equal(find(s, 80, false)->up_migrations, 1);
	assert_int_equal(find(s, 80, false)->down_migrations, 0);
	assert_int_equal(schedstat_snapshot_migrations(s, &nm)[1].count, 0);
	assert_int_equal(s->clusters[0].down_migrations, 0);
	schedstat_snapshot_free(s);
}

static void misfit_busy_and_overutilized(void **state)
{
	struct fixture *f = *state;
	struct st_task_rec *big_on_little, *fits, *on_big;
	struct schedstat_snapshot *s;
	const struct schedstat_cluster *cl;
	size_t n;

	big_on_little = add_task(f, 90, "heavy", 0);
	big_on_little->on_rq = 1;
	big_on_little->util_avg = 450;		/* 450 * 1.25 > 512 */
	fits = add_task(f, 91, "light", 0);
	fits->on_rq = 1;
	fits->util_avg = 300;
	fits->util_est = 400;			/* max(300, 400) * 1.25 < 512 */
	on_big = add_task(f, 92, "huge", 1);
	on_big->on_rq = 1;
	on_big->util_avg = 1000;		/* nowhere bigger to go */
	f->global.overutilized_seen = 1;
	assert_null(update(f, 100 * MS));
	f->global.overutilized = 1;
	f->global.overutilized_since = 150 * MS;
	f->cpus[0].idle_ns = 40 * MS;		/* busy 60 of 100 ms */
	f->cpus[0].nr_switches = 5;
	assert_int_equal(model_add_migration(f->model, 92, 0, 1), 0);
	s = update(f, 200 * MS);
	assert_true(find(s, 90, false)->misfit);
	assert_false(find(s, 91, false)->misfit);
	assert_false(find(s, 92, false)->misfit);
	cl = schedstat_snapshot_clusters(s, &n);
	assert_int_equal(cl[0].misfit_tasks, 1);
	assert_int_equal(cl[1].misfit_tasks, 0);
	assert_float_equal(cl[0].busy_pct, 60.0, 0.01);
	assert_int_equal(cl[0].overutilized_ns, 50 * MS);
	assert_int_equal(cl[1].overutilized_ns, 50 * MS);
	assert_int_equal(cl[1].up_migrations, 1);
	assert_int_equal(cl[0].down_migrations, 0);
	schedstat_snapshot_free(s);
	/* It flipped back at 270 ms: 50 + 70 ms in all, 70 in this interval. */
	f->global.overutilized = 0;
	f->global.overutilized_ns = 120 * MS;
	s = update(f, 300 * MS);
	cl = schedstat_snapshot_clusters(s, &n);
	assert_int_equal(cl[0].overutilized_ns, 70 * MS);
	assert_int_equal(cl[0].overutilized, 0);
	schedstat_snapshot_free(s);
}

/*
 * update_misfit_status() reads the affinity: never misfit when allowed on
 * one CPU; from 6.10 (p->max_allowed_capacity) not on a CPU of that
 * capacity; a kernel without the field (0) or an unknown affinity leaves
 * fits_capacity() alone to decide. Each util 450 does not fit 512.
 */
static void misfit_reads_affinity(void **state)
{
	static const struct {
		int pid;
		uint32_t util, nr_allowed, max_allowed;
		bool misfit;
	} rows[] = {
		{ 93, 450, 1, 1024, false },	/* one allowed CPU */
		{ 94, 450, 1, 0, false },	/* the same before 6.10 */
		{ 95, 450, 2, 512, false },	/* 6.10+: no bigger CPU allowed */
		{ 96, 450, 2, 0, true },	/* before 6.10: no such rule */
		{ 97, 450, 2, 1024, true },	/* a bigger CPU allowed */
		{ 98, 400, 2, 1024, false },	/* 400 * 1.25 < 512: fits */
		{ 99, 450, 0, 0, true },	/* affinity not known */
	};
	struct fixture *f = *state;
	struct schedstat_snapshot *s;
	const struct schedstat_cluster *cl;
	size_t n;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct st_task_rec *r = add_task(f, rows[i].pid, "t", 0);

		r->on_rq = 1;
		r->util_avg = rows[i].util;
		r->nr_cpus_allowed = rows[i].nr_allowed;
		r->max_allowed_capacity = rows[i].max_allowed;
	}
	assert_null(update(f, 100 * MS));
	s = update(f, 200 * MS);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct schedstat_task *t = find(s, rows[i].pid, false);

		assert_non_null(t);
		if (t->misfit != rows[i].misfit)
			fail_msg("pid %d: misfit %d, want %d", rows[i].pid,
				 t->misfit, rows[i].misfit);
		assert_int_equal(t->nr_cpus_allowed, rows[i].nr_allowed);
		assert_int_equal(t->max_allowed_capacity, rows[i].max_allowed);
	}
	cl = schedstat_snapshot_clusters(s, &n);
	assert_int_equal(cl[0].misfit_tasks, 3);
	schedstat_snapshot_free(s);
}

/* The clock: a time-weighted mean from the events, else the sysfs poll. */
static void frequency_from_events_or_poll(void **state)
{
	struct fixture *f = *state;
	struct schedstat_snapshot *s;
	const struct schedstat_cpu *c;
	const struct schedstat_cluster *cl;
	uint32_t polled[2] = { 0, 1400000 };
	struct model_input in;
	size_t n;

	f->cpus[0].seen = ST_SEEN_FREQ;
	f->cpus[0].freq_khz = 1000000;
	f->cpus[0].freq_ts = 50 * MS;
	assert_null(update(f, 100 * MS));
	/* 1 GHz until 150 ms, then 2 GHz: the mean over 100-200 ms is 1.5 GHz. */
	f->cpus[0].freq_khz_us = 1000000ULL * 100000;	/* 50-150 ms at 1 GHz */
	f->cpus[0].freq_khz = 2000000;
	f->cpus[0].freq_ts = 150 * MS;
	in = (struct model_input){
		.ts_ns = 200 * MS, .tasks = f->tasks, .nr_tasks = f->nr,
		.cpus = f->cpus, .nr_cpus = 2, .online = &f->online,
		.global = &f->global, .avail = SCHEDSTAT_AVAIL_CFS,
		.polled_khz = polled,
	};
	assert_int_equal(model_update(f->model, &in, &s), 0);
	c = schedstat_snapshot_cpus(s, &n);
	assert_int_equal(c[0].freq_khz, 2000000);
	assert_int_equal(c[0].freq_avg_khz, 1500000);
	assert_true(c[0].avail & SCHEDSTAT_AVAIL_FREQ);
	/* No event on cpu1: the polled scaling_cur_freq. */
	assert_int_equal(c[1].freq_khz, 1400000);
	assert_int_equal(c[1].freq_avg_khz, 1400000);
	cl = schedstat_snapshot_clusters(s, &n);
	assert_int_equal(cl[0].freq_khz, 2000000);
	assert_int_equal(cl[1].freq_khz, 1400000);
	assert_true(cl[1].avail & SCHEDSTAT_AVAIL_FREQ);
	schedstat_snapshot_free(s);
	/* Neither: not available, and 0 in the row. */
	s = update(f, 300 * MS);
	c = schedstat_snapshot_cpus(s, &n);
	assert_false(c[1].avail & SCHEDSTAT_AVAIL_FREQ);
	assert_int_equal(c[1].freq_khz, 0);
	cl = schedstat_snapshot_clusters(s, &n);
	assert_false(cl[1].avail & SCHEDSTAT_AVAIL_FREQ);
	schedstat_snapshot_free(s);
}

/* Idle residency per state, the ongoing stay included, per interval. */
static void idle_state_residency(void **state)
{
	struct fixture *f = *state;
	struct schedstat_snapshot *s;
	const struct schedstat_cpu *c;
	struct model_input in;
	size_t n;

	f->cpus[0].seen = ST_SEEN_IDLE;
	f->cpus[0].cstate = -1;
	assert_null(update(f, 100 * MS));
	f->cpus[0].cstate_ns[1] = 30 * MS;	/* a finished stay in state 1 */
	f->cpus[0].cstate_ns[3] = 10 * MS;	/* state 5 counts as 3 */
	f->cpus[0].cstate = 2;			/* in state 2 since 180 ms */
	f->cpus[0].cstate_ts = 180 * MS;
	in = (struct model_input){
		.ts_ns = 200 * MS, .tasks = f->tasks, .nr_tasks = f->nr,
		.cpus = f->cpus, .nr_cpus = 2, .online = &f->online,
		.global = &f->global, .avail = SCHEDSTAT_AVAIL_IDLE,
	};
	assert_int_equal(model_update(f->model, &in, &s), 0);
	c = schedstat_snapshot_cpus(s, &n);
	assert_true(c[0].avail & SCHEDSTAT_AVAIL_IDLE);
	assert_int_equal(c[0].idle_state_ns[0], 0);
	assert_int_equal(c[0].idle_state_ns[1], 30 * MS);
	assert_int_equal(c[0].idle_state_ns[2], 20 * MS);
	assert_int_equal(c[0].idle_state_ns[3], 10 * MS);
	/* cpu1 never reported: not available. */
	assert_false(c[1].avail & SCHEDSTAT_AVAIL_IDLE);
	schedstat_snapshot_free(s);
	/* Still in state 2 at 300 ms: 100 ms more of it, nothing else. */
	in.ts_ns = 300 * MS;
	assert_int_equal(model_update(f->model, &in, &s), 0);
	c = schedstat_snapshot_cpus(s, &n);
	assert_int_equal(c[0].idle_state_ns[2], 100 * MS);
	assert_int_equal(c[0].idle_state_ns[1], 0);
	schedstat_snapshot_free(s);
}

/*
 * Each CPU's capacity is its own, as the topology gives it, where CPU
 * numbers and cluster numbers differ (two CPUs a cluster): a CPU's number
 * is not its cluster's.
 */
static void cpu_capacity_is_its_own(void **state)
{
	static const unsigned int want[4] = { 300, 300, 1024, 1024 };
	struct schedstat_topology *topo;
	struct model *m;
	struct st_cpu_state cpus[4] = {};
	struct st_global_state g = {};
	struct cpuset online = {};
	struct model_input in = {
		.cpus = cpus, .nr_cpus = 4, .online = &online, .global = &g,
	};
	struct schedstat_snapshot *s = NULL;
	const struct schedstat_cpu *c;
	const struct schedstat_cluster *cl;
	size_t n;

	(void)state;
	assert_int_equal(schedstat_topology_parse(&topo,
		"little:0-1@300,big:2-3@1024", NULL), 0);
	assert_int_equal(model_new(&m, topo), 0);
	for (int cpu = 0; cpu < 4; cpu++)
		cpuset_set(&online, cpu);
	in.ts_ns = 100 * MS;
	assert_int_equal(model_update(m, &in, &s), 0);
	in.ts_ns = 200 * MS;
	assert_int_equal(model_update(m, &in, &s), 0);
	c = schedstat_snapshot_cpus(s, &n);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(c[i].cluster, i / 2);
		assert_int_equal(c[i].capacity, want[i]);
	}
	cl = schedstat_snapshot_clusters(s, &n);
	assert_int_equal(n, 2);
	assert_int_equal(cl[0].capacity, 600);
	assert_int_equal(cl[1].capacity, 2048);
	schedstat_snapshot_free(s);
	model_free(m);
	schedstat_topology_free(topo);
}

/* Three clusters: six ordered pairs, same-capacity moves counted too. */
static void migration_pairs_three_clusters(void **state)
{
	struct schedstat_topology *topo;
	struct model *m;
	struct st_cpu_state cpus[4] = {};
	struct st_global_state g = {};
	struct cpuset online = {};
	struct model_input in = {
		.cpus = cpus, .nr_cpus = 4, .online = &online, .global = &g,
	};
	struct schedstat_snapshot *s = NULL;
	const struct schedstat_migration *mg;
	const struct schedstat_cluster *cl;
	size_t n;

	assert_int_equal(schedstat_topology_parse(&topo,
		"little:0@300,mid:1@600,mid2:2@600,big:3@1024", NULL), 0);
	assert_int_equal(model_new(&m, topo), 0);
	in.ts_ns = 100 * MS;
	assert_int_equal(model_update(m, &in, &s), 0);
	assert_int_equal(model_add_migration(m, 5, 1, 2), 0);	/* mid->mid2 */
	assert_int_equal(model_add_migration(m, 5, 3, 0), 0);	/* big->little */
	assert_int_equal(model_add_migration(m, 6, 3, 0), 0);
	in.ts_ns = 600 * MS;
	assert_int_equal(model_update(m, &in, &s), 0);
	mg = schedstat_snapshot_migrations(s, &n);
	assert_int_equal(n, 12);
	for (size_t i = 0; i < n; i++) {
		uint32_t want = 0;

		assert_true(mg[i].from != mg[i].to);
		if (mg[i].from == 1 && mg[i].to == 2)
			want = 1;
		if (mg[i].from == 3 && mg[i].to == 0)
			want = 2;
		assert_int_equal(mg[i].count, want);
		assert_float_equal(mg[i].per_sec, want * 2.0, 1e-9);
	}
	cl = schedstat_snapshot_clusters(s, &n);
	assert_int_equal(cl[0].down_migrations, 2);
	assert_int_equal(cl[2].up_migrations + cl[2].down_migrations, 0);
	schedstat_snapshot_free(s);
	model_free(m);
	schedstat_topology_free(topo);
}

/* Residency per frequency: completed stays from the map plus the current. */
static void frequency_residency(void **state)
{
	struct fixture *f = *state;
	struct model_freq_time times[2] = {
		{ 0, 1000000, 40 * MS },
	};
	const struct schedstat_freq_residency *fr;
	struct schedstat_snapshot *s = NULL;
	struct model_input in = {
		.ts_ns = 100 * MS, .tasks = f->tasks, .nr_tasks = f->nr,
		.cpus = f->cpus, .nr_cpus = 2, .online = &f->online,
		.global = &f->global, .freq_times = times, .nr_freq_times = 1,
	};
	size_t n;

	f->cpus[0].seen = ST_SEEN_FREQ;
	f->cpus[0].freq_khz = 2000000;		/* at 2 GHz since 90 ms */
	f->cpus[0].freq_ts = 90 * MS;
	assert_int_equal(model_update(f->model, &in, &s), 0);
	assert_null(s);
	/* 2 GHz until 150 ms, then 1 GHz: 50 ms each in 100-200 ms. */
	times[1] = (struct model_freq_time){ 0, 2000000, 60 * MS };
	in.nr_freq_times = 2;
	f->cpus[0].freq_khz = 1000000;
	f->cpus[0].freq_ts = 150 * MS;
	in.ts_ns = 200 * MS;
	assert_int_equal(model_update(f->model, &in, &s), 0);
	fr = schedstat_snapshot_freq_residency(s, &n);
	assert_int_equal(n, 2);
	assert_int_equal(fr[0].cluster, 0);
	assert_int_equal(fr[0].khz, 1000000);
	assert_int_equal(fr[0].ns, 50 * MS);
	assert_int_equal(fr[1].khz, 2000000);
	assert_int_equal(fr[1].ns, 50 * MS);
	schedstat_snapshot_free(s);
}

static void state_letters(void **state)
{
	assert_int_equal(model_state_letter(0, 0), 'R');
	assert_int_equal(model_state_letter(0x1, 0), 'S');
	assert_int_equal(model_state_letter(0x2, 0), 'D');
	assert_int_equal(model_state_letter(0x4, 0), 'T');
	assert_int_equal(model_state_letter(0x8, 0), 't');
	assert_int_equal(model_state_letter(0, 0x10), 'X');
	assert_int_equal(model_state_letter(0, 0x20), 'Z');
	assert_int_equal(model_state_letter(MODEL_STATE_DEAD, 0), 'x');
	assert_int_equal(model_state_letter(0x40, 0), 'P');
	assert_int_equal(model_state_letter(0x402, 0), 'I');
}

/*
 * Values read from the runqueue (ST_SEEN_RQ): the kernel's nr_running and
 * util_est win over sums from the tasks; a signal one CPU lacks empties the
 * cluster columns made of it; with no overutilized flip seen since attach,
 * the state read at the sample held all interval.
 */
static void runqueue_values_and_holes(void **state)
{
	struct fixture *f = *state;
	struct schedstat_snapshot *s;
	const struct schedstat_cpu *c;
	const struct schedstat_cluster *cl;
	struct st_task_rec *t;
	struct model_input in;
	size_t n;

	f->cpus[0].seen = ST_SEEN_RQ | ST_SEEN_CFS | ST_SEEN_IDLE_TIME |
			  ST_SEEN_OVERUTILIZED;
	f->cpus[0].nr_running = 3;
	f->cpus[0].cfs_util_est = 700;
	f->cpus[0].overutilized = 1;
	f->cpus[0].idle_ns = 10 * MS;
	f->cpus[1].seen = ST_SEEN_RQ;	/* no cfs, no idle time */
	t = add_task(f, 90, "queued", 0);
	t->on_rq = 1;
	t->util_est = 100;		/* the task sum would say 100 */
	in = (struct model_input){
		.ts_ns = 100 * MS, .tasks = f->tasks, .nr_tasks = f->nr,
		.cpus = f->cpus, .nr_cpus = 2, .online = &f->online,
		.global = &f->global,
		.avail = SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_BUSY |
			 SCHEDSTAT_AVAIL_OVERUTILIZED |
			 SCHEDSTAT_AVAIL_OVERUTILIZED_NS,
	};
	assert_int_equal(model_update(f->model, &in, &s), 0);
	assert_null(s);
	f->cpus[0].idle_ns = 50 * MS;	/* busy 60 of 100 ms */
	in.ts_ns = 200 * MS;
	assert_int_equal(model_update(f->model, &in, &s), 0);
	c = schedstat_snapshot_cpus(s, &n);
	assert_int_equal(c[0].nr_running, 3);
	assert_int_equal(c[0].util_est, 700);
	assert_int_equal(c[0].busy_ns, 60 * MS);
	assert_true(c[0].avail & SCHEDSTAT_AVAIL_BUSY);
	assert_false(c[1].avail & SCHEDSTAT_AVAIL_BUSY);
	assert_false(c[1].avail & SCHEDSTAT_AVAIL_CFS);
	assert_false(c[1].avail & SCHEDSTAT_AVAIL_OVERUTILIZED);
	cl = schedstat_snapshot_clusters(s, &n);
	assert_true(cl[0].avail & SCHEDSTAT_AVAIL_CFS);
	assert_true(cl[0].avail & SCHEDSTAT_AVAIL_BUSY);
	assert_float_equal(cl[0].busy_pct, 60.0, 0.01);
	assert_int_equal(cl[0].overutilized, 1);
	assert_int_equal(cl[0].overutilized_ns, 100 * MS);
	assert_false(cl[1].avail & SCHEDSTAT_AVAIL_CFS);
	assert_false(cl[1].avail & SCHEDSTAT_AVAIL_BUSY);
	assert_false(cl[1].avail & SCHEDSTAT_AVAIL_OVERUTILIZED);
	assert_false(cl[1].avail & SCHEDSTAT_AVAIL_OVERUTILIZED_NS);
	schedstat_snapshot_free(s);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(cpu_and_cluster_rows),
		T(offline_cpu_leaves_cluster_sums),
		T(cross_cluster_migrations_split),
		T(moves_before_the_baseline_are_not_counted),
		T(misfit_busy_and_overutilized),
		T(misfit_reads_affinity),
		T(frequency_from_events_or_poll),
		T(idle_state_residency),
		T(frequency_residency),
		T(runqueue_values_and_holes),
		cmocka_unit_test(cpu_capacity_is_its_own),
		cmocka_unit_test(migration_pairs_three_clusters),
		cmocka_unit_test(state_letters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
