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
	size_t n;

	f->cpus[1].seen = ST_SEEN_CFS;
	f->cpus[1].cfs_ts = ts;
	f->cpus[1].cfs_lut = 5000 * MS;		/* PELT clock: its own epoch */
	f->cpus[1].cfs_util = 700;
	sleeper = add_task(f, 70, "sleeper", 1);
	sleeper->util_avg = 512;
	sleeper->load_avg = 1000;
	sleeper->last_update_time = 5000 * MS - 32 * PELT_PERIOD_NS;
	runner = add_task(f, 71, "runner", 1);
	runner->on_rq = 1;
	runner->util_avg = 100;
	runner->last_update_time = 5000 * MS;
	rt = add_task(f, 72, "rt", 1);
	rt->prio = 49;
	rt->util_avg = 300;
	rt->last_update_time = 4000 * MS;
	assert_null(update(f, ts - 100 * MS));
	s = update(f, ts);
	c = schedstat_snapshot_cpus(s, &n);
	assert_int_equal(n, 2);
	/*
	 * The kernel's decay_load(val, 32): val >> 1, then times
	 * runnable_avg_yN_inv[0] = 0xffffffff >> 32, which takes one off:
	 * 512 -> 255, 1000 -> 499 (worked here, not with pelt_decay()).
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
 * EEVDF's delayed dequeue: a task that blocked while owing CPU time stays
 * queued (on_rq 1, se.sched_delayed 1, state S) until it is picked. It is
 * asleep: its util and runnable decay from its last update as a sleeper's
 * do, and its util is blocked util of its CPU, not a running task's. Its
 * load is still queued in the kernel (it grows until the real dequeue) and
 * keeps its last value. Seen live: under load the cpu0 task of
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
	size_t n;

	f->cpus[1].seen = ST_SEEN_CFS;
	f->cpus[1].cfs_ts = ts;
	f->cpus[1].cfs_lut = 5000 * MS;
	delayed = add_task(f, 73, "delayed", 1);
	delayed->on_rq = 1;
	delayed->sched_delayed = 1;
	delayed->state = 1;			/* TASK_INTERRUPTIBLE */
	delayed->util_avg = 512;
	delayed->runnable_avg = 512;
	delayed->load_avg = 1000;
	delayed->last_update_time = 5000 * MS - 32 * PELT_PERIOD_NS;
	assert_null(update(f, ts - 100 * MS));
	s = update(f, ts);
	t = find(s, 73, false);
	assert_non_null(t);
	assert_int_equal(t->state, 'S');
	assert_int_equal(t->pelt_age_ns, 32 * PELT_PERIOD_NS);
	/* decay_load(512, 32): 512 >> 1, times 0xffffffff >> 32: 255. */
	assert_int_equal(t->util_avg, 255);
	assert_int_equal(t->runnable_avg, 255);
	assert_int_equal(t->load_avg, 1000);
	c = schedstat_snapshot_cpus(s, &n);
	assert_int_equal(c[1].blocked_util, 255);
	assert_int_equal(c[1].blocked_load, 1000);
	assert_int_equal(c[1].nr_running, 0);
	schedstat_snapshot_free(s);
}

/*
 * A task that exited on (or woke away from) CPU 1 is still in the root's
 * util until the root's next update: cfs_rq.removed holds it as of the
 * root's last update. Seen in a fresh root: cpu1's root kept 48 units of a
 * short-lived task 21 ms after it was gone, blocked_util 78 against the
 * root's 124 (test_pelt); /sys/kernel/debug/sched/debug showed
 * .removed.util_avg 571 just after a task exited there. Read 32 periods
 * after that update (period_contrib 512: the kernel counts
 * (512 + 32768 - 1) / 1024 = 32 whole periods), it decays as the root will.
 */
static void blocked_util_holds_removed_until_root_update(void **state)
{
	struct fixture *f = *state;
	const uint64_t ts = 1000 * MS;
	struct schedstat_snapshot *s;
	const struct schedstat_cpu *c;
	size_t n;

	f->cpus[1].seen = ST_SEEN_CFS;
	f->cpus[1].cfs_ts = ts;
	f->cpus[1].cfs_lut = 5000 * MS;
	f->cpus[1].cfs_util = 600;
	f->cpus[1].cfs_avg_lut = 5000 * MS - 32 * PELT_PERIOD_NS + 1024;
	f->cpus[1].cfs_period_contrib = 512;
	f->cpus[1].cfs_removed_util = 512;
	f->cpus[1].cfs_removed_load = 1000;
	/* CPU 0: removed as of now, not decayed at all. */
	f->cpus[0].seen = ST_SEEN_CFS;
	f->cpus[0].cfs_ts = ts;
	f->cpus[0].cfs_lut = 7000 * MS;
	f->cpus[0].cfs_avg_lut = 7000 * MS;
	f->cpus[0].cfs_removed_util = 40;
	assert_null(update(f, ts - 100 * MS));
	s = update(f, ts);
	c = schedstat_snapshot_cpus(s, &n);
	assert_int_equal(n, 2);
	/* decay_load(512, 32) = 255, decay_load(1000, 32) = 499 (above). */
	assert_int_equal(c[1].blocked_util, 255);
	assert_int_equal(c[1].blocked_load, 499);
	assert_int_equal(c[1].util_avg, 600);
	assert_int_equal(c[0].blocked_util, 40);
	assert_int_equal(c[0].blocked_load, 0);
	schedstat_snapshot_free(s);
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
		T(blocked_util_decays_sleepers),
		T(delayed_dequeue_task_decays_as_asleep),
		T(blocked_util_holds_removed_until_root_update),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
