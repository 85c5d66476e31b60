// SPDX-License-Identifier: GPL-2.0
/* The model's tasks on synthetic kernel records: deltas, exits, blocked load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"
#include "pelt.h"
#include "model_fixture.h"
#include "pelt_decay.h"

static void first_update_is_baseline(void **state)
{
	struct fixture *f = *state;

	add_task(f, 10, "a", 0);
	assert_null(update(f, 100 * MS));
}

static void counters_are_deltas(void **state)
{
	struct fixture *f = *state;
	struct st_task_rec *r = add_task(f, 10, "worker", 1);
	struct schedstat_snapshot *s;
	const struct schedstat_task *t;

	r->sum_exec_runtime = 5 * MS;
	r->run_delay = 1 * MS;
	r->wakeups = 3;
	r->nr_migrations = 2;
	r->nvcsw = 7;
	assert_null(update(f, 100 * MS));

	r->sum_exec_runtime = 55 * MS;
	r->run_delay = 4 * MS;
	r->wakeups = 9;
	r->nr_migrations = 3;
	r->nvcsw = 17;
	r->util_avg = 345;
	r->on_rq = 1;
	r->on_cpu = 1;
	s = update(f, 200 * MS);
	assert_int_equal(schedstat_snapshot_interval_ns(s), 100 * MS);
	t = find(s, 10, false);
	assert_non_null(t);
	assert_int_equal(t->run_ns, 50 * MS);
	assert_int_equal(t->wait_ns, 3 * MS);
	assert_int_equal(t->wakeups, 6);
	assert_int_equal(t->migrations, 1);
	assert_int_equal(t->nvcsw, 10);
	assert_int_equal(t->util_avg, 345);
	assert_int_equal(t->cluster, 1);
	assert_int_equal(t->state, 'R');
	assert_true(t->running);
	schedstat_snapshot_free(s);
}

static void exit_event_accounts_final_stretch(void **state)
{
	struct fixture *f = *state;
	struct st_task_rec *r = add_task(f, 20, "short", 0);
	struct st_task_rec last;
	struct schedstat_snapshot *s;
	const struct schedstat_task *t;

	r->sum_exec_runtime = 10 * MS;
	assert_null(update(f, 100 * MS));
	last = *r;
	last.sum_exec_runtime = 18 * MS;
	last.nvcsw = 4;
	assert_int_equal(model_add_exit(f->model, &last), 0);
	f->nr = 0;			/* gone from the task list */
	s = update(f, 200 * MS);
	t = find(s, 20, true);
	assert_non_null(t);
	assert_int_equal(t->state, 'X');
	assert_int_equal(t->run_ns, 8 * MS);
	assert_int_equal(t->nvcsw, 4);
	schedstat_snapshot_free(s);
	/* Reported once only. */
	s = update(f, 300 * MS);
	assert_null(find(s, 20, true));
	schedstat_snapshot_free(s);
}

static void vanished_task_without_event_has_no_delta(void **state)
{
	struct fixture *f = *state;
	struct st_task_rec *r = add_task(f, 21, "lost", 0);
	struct schedstat_snapshot *s;
	const struct schedstat_task *t;

	r->sum_exec_runtime = 10 * MS;
	assert_null(update(f, 100 * MS));
	f->nr = 0;
	s = update(f, 200 * MS);
	t = find(s, 21, true);
	assert_non_null(t);
	assert_int_equal(t->run_ns, 0);
	schedstat_snapshot_free(s);
}

static void born_and_gone_within_interval(void **state)
{
	struct fixture *f = *state;
	struct st_task_rec ghost;
	struct schedstat_snapshot *s;
	const struct schedstat_task *t;

	assert_null(update(f, 100 * MS));
	memset(&ghost, 0, sizeof(ghost));
	ghost.pid = 30;
	ghost.start_time = 150 * MS;
	ghost.sum_exec_runtime = 2 * MS;
	ghost.wakeups = 1;
	strcpy(ghost.comm, "ghost");
	assert_int_equal(model_add_exit(f->model, &ghost), 0);
	s = update(f, 200 * MS);
	t = find(s, 30, true);
	assert_non_null(t);
	assert_int_equal(t->run_ns, 2 * MS);
	assert_int_equal(t->wakeups, 1);
	schedstat_snapshot_free(s);
}

static void zombie_keeps_exit_event_until_gone(void **state)
{
	struct fixture *f = *state;
	struct st_task_rec *r = add_task(f, 40, "zombie", 0);
	struct schedstat_snapshot *s;
	const struct schedstat_task *t;

	r->sum_exec_runtime = 1 * MS;
	assert_null(update(f, 100 * MS));
	r->exit_state = 0x20;
	r->sum_exec_runtime = 3 * MS;
	assert_int_equal(model_add_exit(f->model, r), 0);
	s = update(f, 200 * MS);
	t = find(s, 40, false);
	assert_non_null(t);
	assert_int_equal(t->state, 'Z');
	assert_int_equal(t->run_ns, 2 * MS);
	assert_null(find(s, 40, true));
	schedstat_snapshot_free(s);
	f->nr = 0;
	s = update(f, 300 * MS);
	t = find(s, 40, true);
	assert_non_null(t);
	assert_int_equal(t->run_ns, 0);	/* already counted while a zombie */
	schedstat_snapshot_free(s);
}

/*
 * The usual order: sched_process_exit fires in do_exit(), the task runs a
 * little more and is seen as a zombie by the next sample, then goes. Its
 * exit record is older than what the model already counted.
 */
static void exit_record_older_than_zombie(void **state)
{
	struct fixture *f = *state;
	struct st_task_rec *r = add_task(f, 41, "zburn", 0);
	struct st_task_rec at_exit;
	struct schedstat_snapshot *s;
	const struct schedstat_task *t;

	r->sum_exec_runtime = 1000 * MS;
	assert_null(update(f, 100 * MS));
	at_exit = *r;
	at_exit.sum_exec_runtime = 1900 * MS;
	assert_int_equal(model_add_exit(f->model, &at_exit), 0);
	r->exit_state = 0x20;
	r->sum_exec_runtime = 1901 * MS;
	s = update(f, 200 * MS);
	assert_int_equal(find(s, 41, false)->run_ns, 901 * MS);
	schedstat_snapshot_free(s);
	f->nr = 0;
	s = update(f, 300 * MS);
	t = find(s, 41, true);
	assert_non_null(t);
	assert_int_equal(t->run_ns, 0);
	assert_true(t->cpu_pct < 0.001);
	schedstat_snapshot_free(s);
}

static void reused_pid_is_a_new_task(void **state)
{
	struct fixture *f = *state;
	struct st_task_rec *r = add_task(f, 50, "old", 0);
	struct schedstat_snapshot *s;
	const struct schedstat_task *t;

	r->sum_exec_runtime = 100 * MS;
	assert_null(update(f, 100 * MS));
	r->start_time += 1;
	r->sum_exec_runtime = 1 * MS;
	strcpy(r->comm, "new");
	s = update(f, 200 * MS);
	t = find(s, 50, false);
	assert_non_null(t);
	assert_string_equal(t->comm, "new");
	assert_int_equal(t->run_ns, 1 * MS);
	assert_non_null(find(s, 50, true));
	schedstat_snapshot_free(s);
}

static void comm_is_sanitized(void **state)
{
	struct fixture *f = *state;
	struct schedstat_snapshot *s;
	const struct schedstat_task *t;

	add_task(f, 60, "\x1b[2Jevil", 0);
	assert_null(update(f, 100 * MS));
	s = update(f, 200 * MS);
	t = find(s, 60, false);
	assert_non_null(t);
	assert_null(strchr(t->comm, '\x1b'));
	assert_string_equal(t->comm, "?[2Jevil");
	schedstat_snapshot_free(s);
}

/* CPU 1's runqueue read at @ts, its PELT clock then on its own epoch. */
static void cpu1_read(struct fixture *f, uint64_t ts)
{
	f->cpus[1].seen = ST_SEEN_CFS;
	f->cpus[1].cfs_ts = ts;
	f->cpus[1].cfs_lut = 5000 * MS;
}

/* A baseline sample, then the one at @ts: its two CPUs. */
static const struct schedstat_cpu *
sample_at(struct fixture *f, uint64_t ts, struct schedstat_snapshot **s)
{
	const struct schedstat_cpu *c;
	size_t n;

	assert_null(update(f, ts - 100 * MS));
	*s = update(f, ts);
	c = schedstat_snapshot_cpus(*s, &n);
	assert_int_equal(n, 2);
	return c;
}

/*
 * The kernel's sums of a task whose averages were just computed at a
 * period boundary (period_contrib 0): each average times the least
 * divider, LOAD_AVG_MAX - 1024 (load: over the nice-0 weight).
 */
static void sums_of(struct st_task_rec *r)
{
	r->util_sum = r->util_avg * PELT_MIN_DIVIDER;
	r->runnable_sum = (uint64_t)r->runnable_avg * PELT_MIN_DIVIDER;
	r->load_sum = (r->load_avg * PELT_MIN_DIVIDER + 1023) / 1024;
	r->weight = 1024;
	r->period_contrib = 0;
}

/*
 * A fair task asleep on CPU 1 for exactly 32 periods holds half its util
 * there; runnable and rt tasks hold none.
 */
static void blocked_util_decays_sleepers(void **state)
{
	struct fixture *f = *state;
	const uint64_t ts = 1000 * MS;
	struct st_task_rec *sleeper, *runner, *rt;
	struct schedstat_snapshot *s;
	const struct schedstat_cpu *c;

	cpu1_read(f, ts);
	f->cpus[1].cfs_util = 700;
	sleeper = add_task(f, 70, "sleeper", 1);
	sleeper->util_avg = 512;
	sleeper->load_avg = 1000;
	sums_of(sleeper);
	sleeper->last_update_time = 5000 * MS - 32 * PELT_PERIOD_NS;
	runner = add_task(f, 71, "runner", 1);
	runner->on_rq = 1;
	runner->util_avg = 100;
	runner->last_update_time = 5000 * MS;
	rt = add_task(f, 72, "rt", 1);
	rt->prio = 49;
	rt->util_avg = 300;
	rt->last_update_time = 4000 * MS;
	c = sample_at(f, ts, &s);
	/*
	 * The kernel's decay_load(sum, 32): sum >> 1, then times
	 * runnable_avg_yN_inv[0] = 0xffffffff >> 32, which takes one off,
	 * over the divider of period_contrib 0 again: 512 -> 255, 1000 ->
	 * 499 (worked here, not with pelt_decay()).
	 */
	assert_int_equal(c[1].blocked_util, 255);
	assert_int_equal(c[1].blocked_load, 499);
	assert_int_equal(c[1].nr_running, 1);
	assert_int_equal(c[1].util_avg, 700);
	assert_int_equal(c[0].blocked_util, 0);
	/* 32 periods of age show up on the task too, and it shows decayed. */
	assert_int_equal(find(s, 70, false)->pelt_age_ns, 32 * PELT_PERIOD_NS);
	assert_int_equal(find(s, 70, false)->util_avg, 255);
	assert_int_equal(find(s, 70, false)->load_avg, 499);
	/* Running and rt tasks keep the kernel's own value. */
	assert_int_equal(find(s, 71, false)->util_avg, 100);
	assert_int_equal(find(s, 72, false)->util_avg, 300);
	schedstat_snapshot_free(s);
}

/*
 * A sleeper whose last update crossed no period boundary: it grew the sum
 * but left the average as of the update before (___update_load_avg() runs
 * only when a period was crossed). Its next update decays the sum and
 * divides by the new divider; decaying the stored average instead read it
 * 4.5% low. The numbers of a kernel's own (the 5.10 guest of
 * test_vm_matrix, /proc/PID/sched): util_sum 16888632, util_avg 344,
 * period_contrib 798, asleep 67485184 ns: the kernel gives 88, the average
 * decayed 84.
 */
static void sleeper_decays_its_sums(void **state)
{
	struct fixture *f = *state;
	const uint64_t ts = 1000 * MS;
	struct st_task_rec *r;
	struct schedstat_snapshot *s;

	cpu1_read(f, ts);
	r = add_task(f, 70, "sleeper", 1);
	r->util_avg = 344;
	r->util_sum = 16888632;
	r->runnable_avg = 345;
	r->runnable_sum = 16924716;
	r->load_avg = 344;
	r->load_sum = 16527;
	r->weight = 1024;
	r->period_contrib = 798;
	r->last_update_time = 5000 * MS - 67485184;
	sample_at(f, ts, &s);
	assert_int_equal(find(s, 70, false)->pelt_age_ns, 67485184);
	assert_int_equal(find(s, 70, false)->util_avg, 88);
	assert_int_equal(find(s, 70, false)->runnable_avg, 88);
	assert_int_equal(find(s, 70, false)->load_avg, 88);
	schedstat_snapshot_free(s);
}

/* A sample at @ts where CPU 1's PELT clock stands @n periods past @lut. */
static const struct schedstat_task *sleeper_at(struct fixture *f, uint64_t ts,
					       uint64_t lut, uint64_t n,
					       struct schedstat_snapshot **s)
{
	f->cpus[1].cfs_ts = ts;
	f->cpus[1].cfs_lut = lut + n * PELT_PERIOD_NS;
	*s = update(f, ts);
	return find(*s, 74, false);
}

/*
 * A sleeper whose values decayed to 0 is not decayed again while its record
 * stays (model_tasks.c task_pelt()): its values must be what the kernel's
 * arithmetic gives at every sample all the same, 0 once its sums decayed
 * to 0, and its own again where the clock stands fewer periods on or its
 * record changed. util_sum 93436, runnable_sum 93436, load_sum 91 at weight
 * 1024, period_contrib 0; the kernel's decay_load() and the divider 46718:
 * after 1 period 93436 * 0xfa83b2da >> 32 = 91433, util 91433 / 46718 = 1;
 * load 1024 * (91 * 0xfa83b2da >> 32 = 89) / 46718 = 1. After 300 periods
 * (9 half-lives and 12) util 93436 >> 9 = 182, times 0xc5672a10 >> 32 =
 * 140, 0 over the divider; after 600 (18 half-lives) every sum is 0.
 */
static void sleeper_at_zero_stays_exact(void **state)
{
	struct fixture *f = *state;
	const uint64_t lut = 4000 * MS;
	const struct schedstat_task *t;
	struct schedstat_snapshot *s;
	struct st_task_rec *r;

	f->cpus[1].seen = ST_SEEN_CFS;
	r = add_task(f, 74, "sleeper", 1);
	r->state = 1;			/* TASK_INTERRUPTIBLE */
	r->util_avg = 1;
	r->runnable_avg = 1;
	r->load_avg = 1;
	r->util_sum = 93436;
	r->runnable_sum = 93436;
	r->load_sum = 91;
	r->weight = 1024;
	r->last_update_time = lut;
	assert_null(update(f, 100 * MS));
	t = sleeper_at(f, 200 * MS, lut, 1, &s);
	assert_int_equal(t->util_avg, 1);
	assert_int_equal(t->runnable_avg, 1);
	assert_int_equal(t->load_avg, 1);
	schedstat_snapshot_free(s);
	/* 0 over the divider, its sums not 0 yet. */
	t = sleeper_at(f, 300 * MS, lut, 300, &s);
	assert_int_equal(t->util_avg, 0);
	assert_int_equal(t->pelt_age_ns, 300 * PELT_PERIOD_NS);
	schedstat_snapshot_free(s);
	for (uint64_t n = 600; n <= 700; n += 50) {
		t = sleeper_at(f, 400 * MS + n * MS, lut, n, &s);
		assert_int_equal(t->util_avg, 0);
		assert_int_equal(t->runnable_avg, 0);
		assert_int_equal(t->load_avg, 0);
		assert_int_equal(t->pelt_age_ns, n * PELT_PERIOD_NS);
		schedstat_snapshot_free(s);
	}
	/* The clock back at 1 period: its values after 1 period again. */
	t = sleeper_at(f, 1200 * MS, lut, 1, &s);
	assert_int_equal(t->util_avg, 1);
	assert_int_equal(t->load_avg, 1);
	schedstat_snapshot_free(s);
	t = sleeper_at(f, 1300 * MS, lut, 700, &s);
	assert_int_equal(t->util_avg, 0);
	schedstat_snapshot_free(s);
	/*
	 * It ran: a new record, its sums 1, 0 after 1 period; it ran again,
	 * its sums as before: 1 after 1 period, not the last record's 0.
	 */
	r->sum_exec_runtime += 1 * MS;
	r->last_update_time = lut + 700 * PELT_PERIOD_NS;
	r->util_sum = r->runnable_sum = r->load_sum = 1;
	t = sleeper_at(f, 1400 * MS, lut, 701, &s);
	assert_int_equal(t->util_avg, 0);
	assert_int_equal(t->load_avg, 0);
	schedstat_snapshot_free(s);
	r->sum_exec_runtime += 1 * MS;
	r->last_update_time = lut + 800 * PELT_PERIOD_NS;
	r->util_sum = r->runnable_sum = 93436;
	r->load_sum = 91;
	t = sleeper_at(f, 1500 * MS, lut, 801, &s);
	assert_int_equal(t->util_avg, 1);
	assert_int_equal(t->runnable_avg, 1);
	assert_int_equal(t->load_avg, 1);
	schedstat_snapshot_free(s);
}

/*
 * EEVDF's delayed dequeue: a task that blocked while owing CPU time stays
 * queued (on_rq 1, se.sched_delayed 1, state S) until it is picked. It is
 * asleep: its util and runnable decay from its last update as a sleeper's
 * do, and its util is blocked util of its CPU, not a running task's. Its
 * load is still queued in the kernel: the next look adds its time since
 * as a queued task's (load 1 in ___update_load_sum()). Seen live: under load the cpu0 task of
 * test_tracefs engine_matches_kernel_pelt_* showed its util of 4-11 ms
 * before, 20-46 above the engine's.
 */
static void delayed_dequeue_task_decays_as_asleep(void **state)
{
	struct fixture *f = *state;
	const uint64_t ts = 1000 * MS;
	struct st_task_rec *delayed;
	struct schedstat_snapshot *s;
	const struct schedstat_task *t;
	const struct schedstat_cpu *c;

	cpu1_read(f, ts);
	delayed = add_task(f, 73, "delayed", 1);
	delayed->on_rq = 1;
	delayed->sched_delayed = 1;
	delayed->state = 1;			/* TASK_INTERRUPTIBLE */
	delayed->util_avg = 512;
	delayed->runnable_avg = 512;
	delayed->load_avg = 1000;
	sums_of(delayed);
	delayed->last_update_time = 5000 * MS - 32 * PELT_PERIOD_NS;
	c = sample_at(f, ts, &s);
	t = find(s, 73, false);
	assert_non_null(t);
	assert_int_equal(t->state, 'S');
	assert_int_equal(t->pelt_age_ns, 32 * PELT_PERIOD_NS);
	/* decay_load(512, 32): 512 >> 1, times 0xffffffff >> 32: 255. */
	assert_int_equal(t->util_avg, 255);
	assert_int_equal(t->runnable_avg, 255);
	/*
	 * load_sum (1000 * 46718 + 1023) / 1024 = 45624 decayed 32 periods:
	 * 22811, plus accumulate_pelt_segments(32, 1024, 0): decay_load(1024,
	 * 32) = 511, LOAD_AVG_MAX 47742 - decay_load(47742, 32) 23870 - 1024 =
	 * 22848: 46170; times 1024 over the divider 46718: 1011 (worked here;
	 * asleep it would be 499).
	 */
	assert_int_equal(t->load_avg, 1011);
	assert_int_equal(c[1].blocked_util, 255);
	assert_int_equal(c[1].blocked_load, 1011);
	assert_int_equal(c[1].nr_running, 0);
	schedstat_snapshot_free(s);
}

/*
 * A task that exited on (or woke away from) CPU 1 is still in the root's
 * util until its cfs_rq's next update: cfs_rq.removed holds it. Seen in a
 * fresh root: cpu1's root kept 48 units more than its sleepers for 21 ms,
 * nothing runnable (test_pelt); /sys/kernel/debug/sched/debug showed
 * .removed.util_avg 571 just after a task exited there. The BPF read sums
 * the root's and the leaf cfs_rqs' (st_pelt_decay32(), below); the model
 * counts it as blocked, beside the sleepers.
 */
static void blocked_util_holds_removed_until_cfs_rq_update(void **state)
{
	struct fixture *f = *state;
	const uint64_t ts = 1000 * MS;
	struct st_task_rec *sleeper;
	struct schedstat_snapshot *s;
	const struct schedstat_cpu *c;

	cpu1_read(f, ts);
	f->cpus[1].cfs_util = 600;
	f->cpus[1].cfs_removed_util = 48;
	f->cpus[1].cfs_removed_load = 90;
	sleeper = add_task(f, 74, "sleeper", 1);
	sleeper->util_avg = 100;
	sleeper->load_avg = 200;
	sleeper->last_update_time = 5000 * MS;
	/* Not read (no ST_SEEN_CFS): nothing to add. */
	f->cpus[0].cfs_removed_util = 40;
	c = sample_at(f, ts, &s);
	assert_int_equal(c[1].blocked_util, 148);
	assert_int_equal(c[1].blocked_load, 290);
	assert_int_equal(c[1].util_avg, 600);
	assert_int_equal(c[0].blocked_util, 0);
	schedstat_snapshot_free(s);
}

/*
 * The BPF side's decay of a pending removal, worked by hand as the
 * kernel's decay_load() and __update_load_avg_cfs_rq() do it: 32 periods
 * halve (512 -> 256, times 0xffffffff >> 32 takes one off: 255); the
 * periods count period_contrib in (512 + 32767) >> 10 = 32, and without it
 * 32767 >> 10 = 31; 31 periods: (512 * 0x82cd8698) >> 32 = 261.
 */
static void bpf_side_decays_removed_as_the_kernel(void **state)
{
	const uint64_t lut = 5000 * MS;
	const uint64_t now = lut + 32 * PELT_PERIOD_NS - 1024;

	(void)state;
	assert_int_equal(st_pelt_periods(lut, 512, now), 32);
	assert_int_equal(st_pelt_periods(lut, 0, now), 31);
	assert_int_equal(st_pelt_periods(now, 0, lut), 0);
	assert_int_equal(st_pelt_decay32(512, 32), 255);
	assert_int_equal(st_pelt_decay32(512, 31), 261);
	assert_int_equal(st_pelt_decay32(512, 0), 512);
	assert_int_equal(st_pelt_decay32(0xffffffff, 32 * 32), 0);
	assert_int_equal(st_pelt_decay32(1000, 64), 249);
}

/*
 * A source that sends only what changed (the BPF task table) and one that
 * lists every task must give the same rows. Each sample below is fed whole
 * to one model, and to another as the records that differ from the last
 * sample's (or are new) and the pids gone, as the table sends them; a
 * reused pid is a changed record, not a gone one (the table sees its slot's
 * task change). Both get the same exit events.
 */
struct twin {
	struct model *whole, *changed;
	struct st_task_rec prev[8];
	size_t nr_prev;
};

static void assert_rows_equal(const struct schedstat_task *a,
			      const struct schedstat_task *b)
{
#define SAME(name, member, type) \
	assert_memory_equal(&a->member, &b->member, sizeof(a->member));
	SCHEDSTAT_TASK_FIELDS(SAME, SAME)
#undef SAME
}

static void twin_update(struct fixture *f, struct twin *tw, uint64_t ts)
{
	struct st_task_rec changed[8];
	int32_t gone[8];
	size_t nr_changed = 0, nr_gone = 0, n, m;
	struct model_input in = {
		.ts_ns = ts, .cpus = f->cpus, .nr_cpus = 2, .online = &f->online,
		.global = &f->global, .avail = SCHEDSTAT_AVAIL_CFS,
	};
	struct schedstat_snapshot *a = NULL, *b = NULL;
	const struct schedstat_task *ta, *tb;
	const struct schedstat_cpu *ca, *cb;

	for (size_t i = 0; i < f->nr; i++) {
		bool same = false;

		for (size_t j = 0; j < tw->nr_prev; j++)
			if (!memcmp(&tw->prev[j], &f->tasks[i], sizeof(f->tasks[i])))
				same = true;
		if (!same)
			changed[nr_changed++] = f->tasks[i];
	}
	for (size_t j = 0; j < tw->nr_prev; j++) {
		bool listed = false;

		for (size_t i = 0; i < f->nr; i++)
			if (f->tasks[i].pid == tw->prev[j].pid)
				listed = true;
		if (!listed)
			gone[nr_gone++] = tw->prev[j].pid;
	}
	memcpy(tw->prev, f->tasks, f->nr * sizeof(f->tasks[0]));
	tw->nr_prev = f->nr;

	in.tasks = f->tasks;
	in.nr_tasks = f->nr;
	assert_int_equal(model_update(tw->whole, &in, &a), 0);
	in.tasks = changed;
	in.nr_tasks = nr_changed;
	in.tasks_changed = true;
	in.gone = gone;
	in.nr_gone = nr_gone;
	assert_int_equal(model_update(tw->changed, &in, &b), 0);
	assert_true(!a == !b);
	if (!a)
		return;
	ta = schedstat_snapshot_tasks(a, &n);
	tb = schedstat_snapshot_tasks(b, &m);
	assert_int_equal(n, m);
	for (size_t i = 0; i < n; i++)
		assert_rows_equal(&ta[i], &tb[i]);
	ca = schedstat_snapshot_cpus(a, &n);
	cb = schedstat_snapshot_cpus(b, &m);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(ca[i].blocked_util, cb[i].blocked_util);
		assert_int_equal(ca[i].blocked_load, cb[i].blocked_load);
		assert_int_equal(ca[i].nr_running, cb[i].nr_running);
		assert_int_equal(ca[i].util_est, cb[i].util_est);
	}
	schedstat_snapshot_free(a);
	schedstat_snapshot_free(b);
}

static void twin_exit(struct twin *tw, const struct st_task_rec *r)
{
	assert_int_equal(model_add_exit(tw->whole, r), 0);
	assert_int_equal(model_add_exit(tw->changed, r), 0);
}

static struct st_task_rec *task_of(struct fixture *f, int pid)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->tasks[i].pid == pid)
			return &f->tasks[i];
	fail();
	return NULL;
}

static void drop_task(struct fixture *f, int pid)
{
	struct st_task_rec *r = task_of(f, pid);

	*r = f->tasks[--f->nr];
}

static void changed_only_gives_the_rows_of_every_task(void **state)
{
	struct fixture *f = *state;
	struct twin tw = {};
	struct st_task_rec ghost, *r;

	assert_int_equal(model_new(&tw.whole, f->topo), 0);
	assert_int_equal(model_new(&tw.changed, f->topo), 0);
	cpu1_read(f, 0);
	r = add_task(f, 10, "sleeper", 1);
	r->util_avg = 400;
	r->load_avg = 900;
	r->last_update_time = 4000 * MS;
	r = add_task(f, 11, "runner", 1);
	r->on_rq = 1;
	r->on_cpu = 1;
	r->util_avg = 100;
	r->last_update_time = 5000 * MS;
	add_task(f, 12, "exits", 0)->sum_exec_runtime = 5 * MS;
	add_task(f, 13, "zombie", 0)->sum_exec_runtime = 7 * MS;
	add_task(f, 14, "reused", 0)->sum_exec_runtime = 9 * MS;
	twin_update(f, &tw, 100 * MS);

	cpu1_read(f, 200 * MS);
	task_of(f, 11)->sum_exec_runtime += 40 * MS;
	task_of(f, 11)->nvcsw += 3;
	r = task_of(f, 12);
	r->sum_exec_runtime += 1 * MS;
	twin_exit(&tw, r);
	drop_task(f, 12);
	r = task_of(f, 14);
	r->start_time += 1;
	r->sum_exec_runtime = 1 * MS;
	add_task(f, 15, "born", 0)->sum_exec_runtime = 2 * MS;
	twin_update(f, &tw, 200 * MS);

	cpu1_read(f, 300 * MS);
	r = task_of(f, 13);
	r->exit_state = 0x20;
	r->sum_exec_runtime += 2 * MS;
	twin_exit(&tw, r);
	memset(&ghost, 0, sizeof(ghost));
	ghost.pid = 16;
	ghost.start_time = 250 * MS;
	ghost.sum_exec_runtime = 3 * MS;
	twin_exit(&tw, &ghost);
	twin_update(f, &tw, 300 * MS);

	cpu1_read(f, 400 * MS);
	drop_task(f, 13);
	strcpy(task_of(f, 10)->comm, "renamed");
	twin_update(f, &tw, 400 * MS);

	/* Nothing changed: no record at all for the changed-only one. */
	cpu1_read(f, 500 * MS);
	twin_update(f, &tw, 500 * MS);

	cpu1_read(f, 600 * MS);
	f->nr = 1;
	twin_update(f, &tw, 600 * MS);
	model_free(tw.whole);
	model_free(tw.changed);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(first_update_is_baseline),
		T(counters_are_deltas),
		T(exit_event_accounts_final_stretch),
		T(vanished_task_without_event_has_no_delta),
		T(born_and_gone_within_interval),
		T(zombie_keeps_exit_event_until_gone),
		T(exit_record_older_than_zombie),
		T(reused_pid_is_a_new_task),
		T(comm_is_sanitized),
		T(sleeper_decays_its_sums),
		T(sleeper_at_zero_stays_exact),
		T(blocked_util_decays_sleepers),
		T(delayed_dequeue_task_decays_as_asleep),
		T(blocked_util_holds_removed_until_cfs_rq_update),
		T(bpf_side_decays_removed_as_the_kernel),
		T(changed_only_gives_the_rows_of_every_task),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
