// SPDX-License-Identifier: GPL-2.0
/*
 * The PELT engine against closed forms: pelt_update() as the kernel's
 * ___update_load_sum/avg, and the event engine (libschedstat/engine/) fed
 * synthetic sched_switch/wakeup/migrate streams.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine.h"
#include "pelt.h"

#define MS	1000000ULL
#define PERIOD	PELT_PERIOD_NS

static const double Y = 0.97857206208770013451;	/* 2^(-1/32) */

/* A task running all the time: util after n periods is 1024 (1 - y^n). */
static void running_entity_follows_closed_form(void **state)
{
	struct pelt_avg a = {};

	for (int n = 1; n <= 400; n++) {
		double want = 1024.0 * (1 - pow(Y, n));

		pelt_update(&a, n * PERIOD, 1, 1, 1, 1024);
		assert_true(fabs((double)a.util_avg - want) <= 3.0);
		assert_true(fabs((double)a.runnable_avg - want) <= 3.0);
		assert_true(fabs((double)a.load_avg - want) <= 3.0);
	}
	assert_true(a.util_avg >= 1022 && a.util_avg <= 1024);
}

/* Updates at any instants, not only at boundaries, give the same curve. */
static void update_instants_do_not_matter(void **state)
{
	struct pelt_avg fine = {}, coarse = {};
	uint64_t t;

	for (t = 0; t <= 100 * PERIOD; t += 300 * 1024) {
		pelt_update(&fine, t, 1, 1, 1, 1024);
		if (t % PERIOD < 300 * 1024)
			pelt_update(&coarse, t, 1, 1, 1, 1024);
	}
	pelt_update(&fine, 101 * PERIOD, 1, 1, 1, 1024);
	pelt_update(&coarse, 101 * PERIOD, 1, 1, 1, 1024);
	assert_true(labs((long)fine.util_avg - (long)coarse.util_avg) <= 2);
	assert_true(fabs(fine.util_avg - 1024.0 * (1 - pow(Y, 101))) <= 3.0);
}

/*
 * The sum of an entity that has always run peaks at LOAD_AVG_MAX: exactly
 * (less the current period's missing unit) when one update spans all of
 * it, a little below when updated every period (each decay rounds down).
 */
static void load_sum_peaks_at_load_avg_max(void **state)
{
	struct pelt_avg once = {}, often = {};
	uint64_t top = 0;

	pelt_update(&once, 2000 * PERIOD + 1023 * 1024, 1, 1, 1, 1024);
	assert_int_equal(once.load_sum, PELT_LOAD_AVG_MAX - 1);
	assert_int_equal(once.period_contrib, 1023);
	for (int n = 1; n <= 2000; n++) {
		/* Just before each boundary: the current period is all but full. */
		pelt_update(&often, n * PERIOD - 1024, 1, 1, 1, 1024);
		if (often.load_sum > top)
			top = often.load_sum;
		pelt_update(&often, n * PERIOD, 1, 1, 1, 1024);
	}
	print_message("# peak load_sum updated every period: %llu\n",
		      (unsigned long long)top);
	assert_true(top <= PELT_LOAD_AVG_MAX);
	assert_true(top >= PELT_LOAD_AVG_MAX * 0.998);
	/* The rounded-down sum shows: 1022, as the kernel's own tasks do. */
	assert_true(often.load_avg >= 1022 && often.load_avg <= 1024);
}

/* Blocked: 32 periods without running halve util, load and runnable. */
static void blocked_entity_halves_in_32ms(void **state)
{
	struct pelt_avg a = {};
	uint64_t u0, l0;

	pelt_update(&a, 200 * PERIOD, 1, 1, 1, 1024);
	u0 = a.util_avg;
	l0 = a.load_avg;
	pelt_update(&a, 232 * PERIOD, 0, 0, 0, 1024);
	assert_true(labs((long)a.util_avg - (long)u0 / 2) <= 1);
	assert_true(labs((long)a.load_avg - (long)l0 / 2) <= 1);
	pelt_update(&a, 264 * PERIOD, 0, 0, 0, 1024);
	assert_true(labs((long)a.util_avg - (long)u0 / 4) <= 1);
}

/* load_avg counts the weight of the task's nice level. */
static void load_weighted_by_nice(void **state)
{
	struct pelt_avg a = {};

	assert_int_equal(pelt_prio_weight(120), 1024);
	assert_int_equal(pelt_prio_weight(100), 88761);
	assert_int_equal(pelt_prio_weight(139), 15);
	pelt_update(&a, 1000 * PERIOD, 1, 1, 1, pelt_prio_weight(125));
	assert_true(a.load_avg >= 333 && a.load_avg <= 335);
	assert_true(a.util_avg >= 1022);
}

struct fixture {
	struct schedstat_topology *topo;
	struct engine *e;
	struct model_input in;
	int exits, migrations;
	/* The kernel's run time of pid 70 as /proc/70/schedstat would say. */
	uint64_t kernel_run;
	int clock_asks;
	/* The CPUs pid 70 may run on, as /proc/70/status would say. */
	struct cpuset allowed;
	int affinity_asks;
	/*
	 * se.exec_start of pids 0-99 as /proc/PID/sched would say; 0: no
	 * such file (the hook fails, as without CONFIG_SCHED_DEBUG).
	 */
	uint64_t exec_start[100];
	int exec_asks;
};

static void on_exit_hook(void *ctx, const struct st_task_rec *rec, uint64_t ts)
{
	((struct fixture *)ctx)->exits++;
}

static void on_migrate_hook(void *ctx, const struct st_task_rec *rec,
			    int32_t orig, int32_t dest, uint64_t ts)
{
	((struct fixture *)ctx)->migrations++;
}

static int task_clock_hook(void *ctx, int32_t pid, uint64_t *ns)
{
	struct fixture *f = ctx;

	f->clock_asks++;
	if (pid != 70)
		return -ENOENT;
	*ns = f->kernel_run;
	return 0;
}

static int exec_start_hook(void *ctx, int32_t pid, uint64_t *ns)
{
	struct fixture *f = ctx;

	f->exec_asks++;
	if (pid < 0 || pid >= 100 || !f->exec_start[pid])
		return -ENOENT;
	*ns = f->exec_start[pid];
	return 0;
}

static int affinity_hook(void *ctx, int32_t pid, struct cpuset *allowed)
{
	struct fixture *f = ctx;

	f->affinity_asks++;
	if (pid != 70)
		return -ENOENT;
	*allowed = f->allowed;
	return 0;
}

static int setup(void **state)
{
	static struct fixture f;
	struct engine_hooks hooks = {
		.exit = on_exit_hook, .migrate = on_migrate_hook,
		.task_clock = task_clock_hook, .exec_start = exec_start_hook,
		.affinity = affinity_hook,
		.max_allowed_capacity = true, .ctx = &f,
	};

	memset(&f, 0, sizeof(f));
	if (schedstat_topology_parse(&f.topo, "LITTLE:0@512,big:1-2@1024", NULL))
		return -1;
	if (engine_new(&f.e, f.topo, &hooks))
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	engine_free(f->e);
	schedstat_topology_free(f->topo);
	return 0;
}

static const struct st_task_rec *task_at(struct fixture *f, uint64_t ts,
					 int32_t pid)
{
	assert_int_equal(engine_fill(f->e, ts, &f->in), 0);
	for (size_t i = 0; i < f->in.nr_tasks; i++)
		if (f->in.tasks[i].pid == pid)
			return &f->in.tasks[i];
	return NULL;
}

/*
 * A task that runs @run_ms of every @period_ms on @cpu from @t0 for @n
 * periods, idle in between; returns when its last sleep starts.
 */
static uint64_t periodic(struct fixture *f, int cpu, int32_t pid, uint64_t t0,
			 uint64_t run_ms, uint64_t period_ms, int n)
{
	uint64_t t = t0;

	for (int i = 0; i < n; i++) {
		t = t0 + i * period_ms * MS;
		assert_int_equal(engine_wakeup(f->e, t, pid, 120, cpu, "rt", false), 0);
		assert_int_equal(engine_switch(f->e, t, cpu, 0, 120, 0, "swapper",
					       pid, 120, "rt"), 0);
		t += run_ms * MS;
		assert_int_equal(engine_switch(f->e, t, cpu, pid, 120, 1, "rt",
					       0, 120, "swapper"), 0);
	}
	return t;
}

/*
 * A periodic task in steady state swings between 1024 (1 - y^r) / (1 - y^p)
 * at the end of its run and y^(p - r) times that at the end of its sleep
 * (r run and p period length in PELT periods).
 */
static void periodic_task_steady_state(void **state)
{
	struct fixture *f = *state;
	/* 8.192 ms of 16.384: whole PELT periods, 8 of 16. */
	const double r = 8, p = 16;
	double top = 1024 * (1 - pow(Y, r)) / (1 - pow(Y, p));
	double bottom = top * pow(Y, p - r);
	uint64_t t0 = 1000 * MS, end;
	const struct st_task_rec *rec;

	end = t0;
	for (int i = 0; i < 100; i++) {
		uint64_t t = t0 + i * 16 * PERIOD;

		engine_wakeup(f->e, t, 42, 120, 1, "rt", false);
		engine_switch(f->e, t, 1, 0, 120, 0, "swapper", 42, 120, "rt");
		end = t + 8 * PERIOD;
		engine_switch(f->e, end, 1, 42, 120, 1, "rt", 0, 120, "swapper");
	}
	rec = task_at(f, end, 42);
	assert_non_null(rec);
	print_message("# end of run: util %u, closed form %.1f\n", rec->util_avg, top);
	assert_true(fabs(rec->util_avg - top) <= 1024 * 0.01);
	rec = task_at(f, end + 8 * PERIOD, 42);
	print_message("# end of sleep: util %u, closed form %.1f\n", rec->util_avg,
		      bottom);
	assert_true(fabs(rec->util_avg - bottom) <= 1024 * 0.01);
	/* Asleep and not queued; the CPU holds its contribution, blocked. */
	assert_int_equal(rec->on_rq, 0);
	assert_int_equal(rec->state, 1);
	assert_true(fabs((double)f->in.cpus[1].cfs_util - rec->util_avg) <= 8);
	/* 100 runs of 8 PELT periods, each 8.39 ms of CPU time. */
	assert_int_equal(rec->sum_exec_runtime, 100 * 8 * PERIOD);
	assert_int_equal(rec->nvcsw, 100);
}

/* A task asleep for 32 ms has half the util it went to sleep with. */
static void sleeping_task_halves(void **state)
{
	struct fixture *f = *state;
	uint64_t t = 1000 * MS;
	const struct st_task_rec *rec;
	uint32_t u0;

	engine_wakeup(f->e, t, 7, 120, 2, "busy", false);
	engine_switch(f->e, t, 2, 0, 120, 0, "swapper", 7, 120, "busy");
	t += 100 * PERIOD;
	engine_switch(f->e, t, 2, 7, 120, 1, "busy", 0, 120, "swapper");
	rec = task_at(f, t, 7);
	u0 = rec->util_avg;
	assert_true(fabs(u0 - 1024 * (1 - pow(Y, 100))) <= 4);
	rec = task_at(f, t + 32 * PERIOD, 7);
	assert_true(labs((long)rec->util_avg - (long)u0 / 2) <= 2);
	/* The CPU's blocked util decays with it. */
	assert_true(labs((long)f->in.cpus[2].cfs_util - (long)u0 / 2) <= 4);
}

/* Migrating, a task takes its util along: off one CPU, onto the other. */
static void migrating_task_carries_its_load(void **state)
{
	struct fixture *f = *state;
	uint64_t t = 1000 * MS;
	const struct st_task_rec *rec;
	uint32_t u0, cpu1_before;

	engine_wakeup(f->e, t, 9, 120, 1, "mover", false);
	engine_switch(f->e, t, 1, 0, 120, 0, "swapper", 9, 120, "mover");
	t += 64 * PERIOD;
	engine_switch(f->e, t, 1, 9, 120, 1, "mover", 0, 120, "swapper");
	rec = task_at(f, t, 9);
	u0 = rec->util_avg;
	cpu1_before = f->in.cpus[1].cfs_util;
	assert_true(u0 > 700);
	assert_true(cpu1_before >= u0 - 2);
	t += MS;
	engine_migrate(f->e, t, 9, 120, 1, 2, "mover");
	engine_wakeup(f->e, t, 9, 120, 2, "mover", false);
	rec = task_at(f, t, 9);
	assert_int_equal(rec->cpu, 2);
	assert_int_equal(rec->nr_migrations, 1);
	assert_int_equal(f->migrations, 1);
	assert_true(rec->util_avg >= u0 * 0.95);
	assert_true(f->in.cpus[2].cfs_util >= rec->util_avg - 2);
	assert_true(f->in.cpus[1].cfs_util <= 8);
}

/*
 * On a CPU of half the capacity, the same work takes twice as long, and
 * counts half: PELT's clock runs at capacity while the CPU works.
 */
static void util_scaled_by_capacity(void **state)
{
	struct fixture *f = *state;
	const struct st_task_rec *little, *big;
	uint64_t end0, end1;
	uint32_t ul;

	/* 2 ms of big-CPU work every 16 ms: 4 ms on the LITTLE. */
	/* One after the other: the engine refuses time going back. */
	end0 = periodic(f, 0, 100, 1000 * MS, 4, 16, 60);
	end1 = periodic(f, 1, 101, end0 + 16 * MS, 2, 16, 60);
	little = task_at(f, end0, 100);
	ul = little->util_avg;
	big = task_at(f, end1, 101);
	print_message("# LITTLE %u, big %u\n", ul, big->util_avg);
	assert_true(fabs((double)ul - big->util_avg) <= 0.1 * big->util_avg);
}

/* Tasks gone: the exit hook gets the final record, the table forgets it. */
static void exit_hands_over_final_record(void **state)
{
	struct fixture *f = *state;
	uint64_t t = 1000 * MS;

	engine_wakeup(f->e, t, 77, 120, 1, "brief", true);
	engine_switch(f->e, t, 1, 0, 120, 0, "swapper", 77, 120, "brief");
	engine_exit(f->e, t + 3 * MS, 77, "brief");
	engine_switch(f->e, t + 3 * MS, 1, 77, 120, 0x10, "brief", 0, 120,
		      "swapper");
	assert_int_equal(f->exits, 1);
	assert_null(task_at(f, t + 4 * MS, 77));
}

/* A switch the trace lacks is made up from the next event's current pid. */
static void missing_switch_is_inferred(void **state)
{
	struct fixture *f = *state;
	uint64_t t = 1000 * MS;
	const struct st_task_rec *rec;

	engine_wakeup(f->e, t, 5, 120, 1, "hidden", false);
	engine_switch(f->e, t, 1, 0, 120, 0, "swapper", 5, 120, "hidden");
	/* Its switch out is not in the trace; idle records an event. */
	engine_current(f->e, t + 10 * MS, 1, 0);
	rec = task_at(f, t + 10 * MS, 5);
	assert_int_equal(rec->on_cpu, 0);
	assert_int_equal(rec->sum_exec_runtime, 10 * MS);
	assert_int_equal(engine_implicit_switches(f->e), 1);
}

/*
 * A task preempted by one whose switches away tracefs never records (the
 * test VM's tokio-rt-worker) gets the CPU back when that one leaves, soon
 * after the CPU's last event, not at its own next event: as traced on the
 * 6.18 VM, duty60 preempted at +2 ms, a third task's switch to the hidden
 * one at +2.165 ms, duty60's switch out at +9.38 ms. It ran 2 + 7.215 ms
 * (the switch dated at +9.38 ms left it 2 ms).
 */
static void preempted_task_resumes_after_the_last_event(void **state)
{
	struct fixture *f = *state;
	uint64_t t = 1000 * MS;
	const struct st_task_rec *rec;

	engine_wakeup(f->e, t, 60, 120, 1, "duty60", false);
	engine_switch(f->e, t, 1, 0, 120, 0, "swapper", 60, 120, "duty60");
	engine_wakeup(f->e, t + 2 * MS, 74, 110, 1, "tokio", false);
	engine_switch(f->e, t + 2 * MS, 1, 60, 120, 0, "duty60", 74, 110, "tokio");
	/* tokio -> memfd is missing; memfd's own switch back to tokio is not. */
	engine_switch(f->e, t + 2165000, 1, 90, 120, 1, "memfd", 74, 110, "tokio");
	/* tokio -> duty60 is missing too. */
	engine_switch(f->e, t + 9380000, 1, 60, 120, 1, "duty60", 0, 120,
		      "swapper");
	rec = task_at(f, t + 10 * MS, 60);
	assert_int_equal(rec->sum_exec_runtime, 9215000);
	assert_int_equal(engine_implicit_switches(f->e), 2);
}

/* The switch away from an exited task is its last; no error, no new task. */
static void switch_after_exit(void **state)
{
	struct fixture *f = *state;
	uint64_t t = 1000 * MS;

	engine_wakeup(f->e, t, 88, 120, 1, "gone", false);
	engine_switch(f->e, t, 1, 0, 120, 0, "swapper", 88, 120, "gone");
	assert_int_equal(engine_exit(f->e, t + MS, 88, "gone"), 0);
	assert_int_equal(engine_switch(f->e, t + 2 * MS, 1, 88, 120, 0x10, "gone",
				       0, 120, "swapper"), 0);
	assert_null(task_at(f, t + 3 * MS, 88));
}

/*
 * Preempted after sched_process_exit and back to finish dying: the same
 * task, no second one with its pid. The events of an rt-app thread's end
 * on this VM (a tracefs trace, times from 33026.664117 s; it showed twice
 * in the sample, then once more as a task run 0 ns):
 *   dat40-14993 sched_process_exit
 *   dat40:14993 R ==> rcu_preempt:15      +50 us
 *   rcu_preempt:15 W ==> dat40:14993      +57 us
 *   dat40:14993 Z ==> swapper/1:0         +72 us
 * A fork reusing the pid later is a new task.
 */
static void preempted_while_exiting(void **state)
{
	struct fixture *f = *state;
	uint64_t t = 1000 * MS;
	const struct st_task_rec *rec;
	size_t seen = 0;

	engine_wakeup(f->e, t, 14993, 120, 1, "dat40", false);
	engine_switch(f->e, t, 1, 0, 120, 0, "swapper/1", 14993, 120, "dat40");
	assert_int_equal(engine_exit(f->e, t + 117000, 14993, "dat40"), 0);
	engine_switch(f->e, t + 167000, 1, 14993, 120, 0, "dat40", 15, 120,
		      "rcu_preempt");
	engine_switch(f->e, t + 174000, 1, 15, 120, 0x100, "rcu_preempt",
		      14993, 120, "dat40");
	engine_switch(f->e, t + 189000, 1, 14993, 120, 0x20, "dat40", 0, 120,
		      "swapper/1");
	assert_int_equal(engine_fill(f->e, t + 100 * MS, &f->in), 0);
	for (size_t i = 0; i < f->in.nr_tasks; i++)
		seen += f->in.tasks[i].pid == 14993;
	assert_int_equal(seen, 0);
	/* A fork reusing the pid: a new task, as from its wakeup. */
	engine_wakeup(f->e, t + 200 * MS, 14993, 120, 1, "again", true);
	rec = task_at(f, t + 201 * MS, 14993);
	assert_non_null(rec);
	assert_string_equal(rec->comm, "again");
	assert_int_equal(rec->sum_exec_runtime, 0);
}

/*
 * A CPU whose switches away from idle are missing from the trace: a task
 * woken onto it idle runs (and accrues util) from its wakeup, as if the
 * switch had been recorded, though only its switch out shows it.
 */
static void dropped_idle_switches_are_dated_back(void **state)
{
	struct fixture *f = *state;
	uint64_t t = 1000 * MS;
	const struct st_task_rec *rec;

	/* Idle to "first" unrecorded; its own switch out shows it. */
	engine_switch(f->e, t, 1, 3, 120, 1, "other", 0, 120, "swapper");
	engine_wakeup(f->e, t + MS, 60, 120, 1, "first", false);
	engine_switch(f->e, t + 5 * MS, 1, 60, 120, 1, "first", 0, 120, "swapper");
	rec = task_at(f, t + 5 * MS, 60);
	assert_int_equal(rec->sum_exec_runtime, 4 * MS);
	/* Another task woken meanwhile moves the CPU's clock on. */
	for (int i = 1; i <= 40; i++) {
		uint64_t w = t + i * 16 * PERIOD;

		engine_wakeup(f->e, w, 60, 120, 1, "first", false);
		engine_wakeup(f->e, w + 2 * PERIOD, 61, 120, 1, "second", false);
		engine_switch(f->e, w + 8 * PERIOD, 1, 60, 120, 1, "first", 61, 120,
			      "second");
		engine_switch(f->e, w + 8 * PERIOD, 1, 61, 120, 1, "second", 0, 120,
			      "swapper");
	}
	rec = task_at(f, t + 40 * 16 * PERIOD + 8 * PERIOD, 60);
	assert_int_equal(rec->sum_exec_runtime, 4 * MS + 40 * 8 * PERIOD);
	/* The periodic steady state at the end of a run (see above): 556. */
	assert_true(fabs(rec->util_avg - 556.3) <= 1024 * 0.02);
}

/*
 * Steal: a task on the CPU for 32 ms of trace time that sched_stat_runtime
 * says ran 16 ms of it (the hypervisor took the rest) accrues what 16 ms of
 * running gives, as the kernel's PELT clock skips stolen time. Without the
 * correction it would be 1024 (1 - y^31), about half again as much.
 */
static void stolen_time_does_not_count(void **state)
{
	struct fixture *f = *state;
	const struct st_task_rec *rec;
	uint64_t t = 1000 * MS;
	double want = 1024 * (1 - pow(Y, 16 * MS / PERIOD));

	assert_int_equal(engine_wakeup(f->e, t, 70, 120, 1, "stolen", false), 0);
	assert_int_equal(engine_switch(f->e, t, 1, 0, 120, 0, "swapper", 70, 120,
				       "stolen"), 0);
	/* The task clock moved 4 ms in each 8 ms of trace time. */
	for (int i = 1; i <= 4; i++)
		engine_runtime(f->e, t + i * 8 * MS, 1, 70, 4 * MS);
	rec = task_at(f, t + 32 * MS, 70);
	print_message("# util %u after 16 of 32 ms (want %.0f)\n", rec->util_avg, want);
	assert_true(fabs(rec->util_avg - want) <= 0.03 * 1024);
}

/*
 * Steal learned from the task clock (no sched_stat_runtime): a task's
 * switches spanned 8 ms but the kernel counted 4 ms of run time. Once idle,
 * the kernel's PELT clock is its task clock (update_idle_rq_clock_pelt()),
 * 4 ms behind trace time: the sleeping task's util decays over 28 ms of
 * the 32 that follow, not 32. A task on its CPU is not asked; and no more
 * is credited than /proc/stat's steal and irq allow.
 */
/*
 * The kernel's overutilized evaluations (sched_overutilized events): unknown
 * before the first, then the flag as of the latest and the time it held,
 * counted from the flips only (the event fires at every evaluation).
 */
static void overutilized_from_the_kernels_events(void **state)
{
	struct fixture *f = *state;
	const struct st_global_state *g;

	assert_int_equal(engine_fill(f->e, 10 * MS, &f->in), 0);
	assert_false(f->in.global->overutilized_seen);
	engine_overutilized(f->e, 20 * MS, false);
	engine_overutilized(f->e, 30 * MS, true);
	engine_overutilized(f->e, 35 * MS, true);	/* no flip */
	engine_overutilized(f->e, 50 * MS, false);
	engine_overutilized(f->e, 60 * MS, true);
	assert_int_equal(engine_fill(f->e, 70 * MS, &f->in), 0);
	g = f->in.global;
	assert_true(g->overutilized_seen);
	assert_true(g->overutilized);
	/* 30-50 ms done; 60 ms on, still going. */
	assert_int_equal(g->overutilized_ns, 20 * MS);
	assert_int_equal(g->overutilized_since, 60 * MS);
}

static void lost_time_from_task_clock(void **state)
{
	struct fixture *f = *state;
	uint64_t t = 1000 * MS, end;
	double u, got, want;
	int asks;

	/* /proc/stat: 4 ms of steal and irq on cpu1 meanwhile. */
	engine_lost_budget(f->e, 1, 100 * MS);
	end = periodic(f, 1, 70, t, 8, 16, 1);
	f->kernel_run = 8 * MS;
	engine_lost_budget(f->e, 1, 104 * MS);
	engine_task_clocks(f->e);
	assert_int_equal(f->clock_asks, 1);
	end = periodic(f, 1, 70, end + 8 * MS, 8, 16, 1);
	f->kernel_run = 12 * MS;
	engine_task_clocks(f->e);
	u = task_at(f, end, 70)->util_avg;
	got = task_at(f, end + 32 * MS, 70)->util_avg;
	want = u * pow(Y, 28.0 * MS / PERIOD);
	print_message("# util %.0f at sleep, %.0f 32 ms later (want %.0f, "
		      "uncorrected %.0f)\n", u, got, want,
		      u * pow(Y, 32.0 * MS / PERIOD));
	/* Decay steps at period boundaries: within one period of it. */
	assert_true(got >= want * Y - 1 && got <= want / Y + 1);
	asks = f->clock_asks;
	assert_int_equal(engine_wakeup(f->e, end + 40 * MS, 70, 120, 1, "rt", false), 0);
	assert_int_equal(engine_switch(f->e, end + 40 * MS, 1, 0, 120, 0, "swapper",
				       70, 120, "rt"), 0);
	engine_task_clocks(f->e);
	assert_int_equal(f->clock_asks, asks);
	/* 4 ms more by the task clock, 1 ms by /proc/stat: 1 ms is lost. */
	assert_int_equal(engine_switch(f->e, end + 48 * MS, 1, 70, 120, 1, "rt",
				       0, 120, "swapper"), 0);
	f->kernel_run += 4 * MS;
	engine_lost_budget(f->e, 1, 105 * MS);
	engine_task_clocks(f->e);
	u = task_at(f, end + 48 * MS, 70)->util_avg;
	got = task_at(f, end + 80 * MS, 70)->util_avg;
	want = u * pow(Y, 31.0 * MS / PERIOD);
	print_message("# util %.0f at sleep, %.0f 32 ms later (want %.0f)\n",
		      u, got, want);
	assert_true(got >= want * Y - 1 && got <= want / Y + 1);
}

/* Pid @pid woken on idle cpu1 at @k, run 0.1 ms, asleep again. */
static void kworker_run(struct fixture *f, int32_t pid, uint64_t k)
{
	assert_int_equal(engine_wakeup(f->e, k, pid, 120, 1, "kworker", false), 0);
	assert_int_equal(engine_switch(f->e, k, 1, 0, 120, 0, "swapper",
				       pid, 120, "kworker"), 0);
	assert_int_equal(engine_switch(f->e, k + MS / 10, 1, pid, 120, 1,
				       "kworker", 0, 120, "swapper"), 0);
}

/*
 * A task clock 500 ms behind trace time, read at each CPU's last switch.
 * The hypervisor then holds idle cpu1 back 4 ms as it wakes for a kworker:
 * the task clock (and, idle, the PELT clock: update_idle_rq_clock_pelt())
 * skips them, so pid 70 asleep there decays over 28 ms of the next 32.
 * Its run times say nothing of it (/proc/PID/schedstat is not asked once
 * the switches say it). A late read (the kworker ran again since) and a
 * read of another CPU's clock (more growth than time went by) credit
 * nothing.
 */
static void lost_time_while_idle_from_switches(void **state)
{
	struct fixture *f = *state;
	uint64_t t = 1000 * MS, end, k;
	double u, got, want;

	end = periodic(f, 1, 70, t, 8, 16, 4);
	u = task_at(f, end, 70)->util_avg;
	f->exec_start[70] = end - 500 * MS;
	engine_task_clocks(f->e);
	assert_int_equal(f->exec_asks, 1);
	/* The kworker's run: woken at +5 ms, 4 ms late on the task clock. */
	k = end + 5 * MS;
	kworker_run(f, 80, k);
	f->exec_start[80] = k + MS / 10 - 504 * MS;
	engine_task_clocks(f->e);
	assert_int_equal(f->exec_asks, 2);
	assert_int_equal(f->clock_asks, 0);
	got = task_at(f, end + 32 * MS, 70)->util_avg;
	want = u * pow(Y, 28.0 * MS / PERIOD);
	print_message("# util %.0f at sleep, %.0f 32 ms later (want %.0f, "
		      "uncorrected %.0f)\n", u, got, want,
		      u * pow(Y, 32.0 * MS / PERIOD));
	assert_true(got >= want * Y - 1 && got <= want / Y + 1);

	/* Late: it ran again since (its clock 1 ms on): less, nothing. */
	k = end + 40 * MS;
	kworker_run(f, 80, k);
	f->exec_start[80] = k + MS / 10 - 503 * MS;
	engine_task_clocks(f->e);
	/* Another CPU's clock: 40 ms more lost in 10 ms; refused. */
	k = end + 50 * MS;
	kworker_run(f, 81, k);
	f->exec_start[81] = k + MS / 10 - 544 * MS;
	engine_task_clocks(f->e);
	assert_int_equal(f->exec_asks, 4);
	/* 4 ms skipped in all: 64 of the 68 ms since it slept. */
	got = task_at(f, end + 68 * MS, 70)->util_avg;
	want = u * pow(Y, 64.0 * MS / PERIOD);
	print_message("# %.0f 68 ms after (want %.0f)\n", got, want);
	assert_true(got >= want * Y - 1 && got <= want / Y + 1);
}

/*
 * What update_misfit_status() reads of the affinity, asked only of a task
 * that could be misfit: pid 70 flat out on the LITTLE CPU (512) once its
 * util no longer fits it (util * 1280 >= 512 * 1024); never while it fits.
 */
static void affinity_of_a_possible_misfit(void **state)
{
	struct fixture *f = *state;
	const struct st_task_rec *rec;
	uint64_t t = 1000 * MS;

	cpuset_set(&f->allowed, 0);
	cpuset_set(&f->allowed, 2);
	engine_wakeup(f->e, t, 70, 120, 0, "spin", false);
	engine_switch(f->e, t, 0, 0, 120, 0, "swapper", 70, 120, "spin");
	rec = task_at(f, t + 10 * MS, 70);
	assert_true(rec->util_avg * 1280 < 512 * 1024);
	assert_int_equal(f->affinity_asks, 0);
	assert_int_equal(rec->nr_cpus_allowed, 0);
	rec = task_at(f, t + 400 * MS, 70);
	assert_true(rec->util_avg * 1280 >= 512 * 1024);
	assert_int_equal(f->affinity_asks, 1);
	assert_int_equal(rec->nr_cpus_allowed, 2);
	assert_int_equal(rec->max_allowed_capacity, 1024);
	/* Pinned to the LITTLE CPU: its own capacity is the biggest it has. */
	memset(&f->allowed, 0, sizeof(f->allowed));
	cpuset_set(&f->allowed, 0);
	rec = task_at(f, t + 410 * MS, 70);
	assert_int_equal(rec->nr_cpus_allowed, 1);
	assert_int_equal(rec->max_allowed_capacity, 512);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(running_entity_follows_closed_form),
		cmocka_unit_test(update_instants_do_not_matter),
		cmocka_unit_test(load_sum_peaks_at_load_avg_max),
		cmocka_unit_test(blocked_entity_halves_in_32ms),
		cmocka_unit_test(load_weighted_by_nice),
		cmocka_unit_test_setup_teardown(periodic_task_steady_state, setup, teardown),
		cmocka_unit_test_setup_teardown(sleeping_task_halves, setup, teardown),
		cmocka_unit_test_setup_teardown(migrating_task_carries_its_load, setup, teardown),
		cmocka_unit_test_setup_teardown(util_scaled_by_capacity, setup, teardown),
		cmocka_unit_test_setup_teardown(exit_hands_over_final_record, setup, teardown),
		cmocka_unit_test_setup_teardown(missing_switch_is_inferred, setup, teardown),
		cmocka_unit_test_setup_teardown(preempted_task_resumes_after_the_last_event, setup, teardown),
		cmocka_unit_test_setup_teardown(switch_after_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(preempted_while_exiting, setup, teardown),
		cmocka_unit_test_setup_teardown(dropped_idle_switches_are_dated_back, setup, teardown),
		cmocka_unit_test_setup_teardown(stolen_time_does_not_count, setup, teardown),
		cmocka_unit_test_setup_teardown(lost_time_from_task_clock, setup, teardown),
		cmocka_unit_test_setup_teardown(lost_time_while_idle_from_switches, setup, teardown),
		cmocka_unit_test_setup_teardown(overutilized_from_the_kernels_events, setup, teardown),
		cmocka_unit_test_setup_teardown(affinity_of_a_possible_misfit, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
