// SPDX-License-Identifier: GPL-2.0
/*
 * Time the task clock lost to steal and interrupts, which the kernel's PELT
 * clock skips and trace time does not: from sched_stat_runtime where it is
 * read, else from the task clock at each CPU's latest switch, else from
 * each task's kernel run time against what its switches spanned, at most
 * what /proc/stat says went there (engine.h).
 */
#include "engine_local.h"

/* Steal and irq time: the PELT clock skips it at the next busy time. */
static void lost_time(struct ecpu *c, uint64_t ns)
{
	c->lag += ns;
	c->lag_pending += ns;
}

void engine_runtime(struct engine *e, uint64_t ts, int cpu, int32_t pid,
		    uint64_t runtime_ns)
{
	struct ecpu *c = engine_cpu_at(e, cpu);
	uint64_t since, wall;

	if (!c || c->curr != pid || pid <= 0)
		return;
	since = c->accounted_at > c->curr_since ? c->accounted_at : c->curr_since;
	c->accounted_at = ts;
	if (ts <= since)
		return;
	wall = ts - since;
	if (runtime_ns < wall)
		lost_time(c, wall - runtime_ns);
}

/*
 * Trace time less the kernel's task clock, both at @c's latest switch: it
 * grows by what the task clock skipped in between, steal and irq time,
 * also while the CPU was idle (the hypervisor holds a vCPU back as it
 * wakes), which no task's run time shows, and to the us where /proc/stat
 * counts in 10 ms. Without it a sleeper decays further than the kernel's.
 *
 * A read can only be late (the task ran again on this CPU since: its
 * clock is later, the difference smaller), so only growth is credited; a
 * task moved to another CPU has its clock zeroed (migrate_task_rq_fair()),
 * or, woken elsewhere and run, reads another CPU's clock, which growth
 * beyond the trace time between the two switches refuses.
 */
static void cpu_clock(struct engine *e, int cpu)
{
	struct ecpu *c = &e->cpus[cpu];
	struct etask *t;
	uint64_t clock;
	int64_t est, grew;

	if (!c->out_new)
		return;
	c->out_new = false;
	t = engine_task_find(e, c->out_pid);
	if (!t || t->dead || t->rec.on_cpu || t->rec.cpu != (uint32_t)cpu ||
	    e->hooks.exec_start(e->hooks.ctx, c->out_pid, &clock) || !clock)
		return;
	est = (int64_t)(c->out_ts - clock);
	if (!c->exec_known) {
		c->exec_known = true;
		c->exec_origin = est;
		c->exec_ts = c->out_ts;
		return;
	}
	grew = est - c->exec_origin - (int64_t)c->exec_lost;
	if (grew > (int64_t)(c->out_ts - c->exec_ts))
		return;
	c->exec_ts = c->out_ts;
	if (grew > 0) {
		lost_time(c, grew);
		c->exec_lost += grew;
	}
}

void engine_task_clocks(struct engine *e)
{
	if (e->hooks.exec_start)
		for (int cpu = 0; cpu < e->nr_cpus; cpu++)
			cpu_clock(e, cpu);
	if (!e->hooks.task_clock)
		return;
	for (size_t i = 0; i < e->nr_tasks; i++) {
		struct etask *t = &e->tasks[i];
		struct ecpu *c = engine_cpu_at(e, t->rec.cpu);
		uint64_t kernel;
		int64_t lost;

		/* A running task's kernel count is as old as its last tick. */
		if (!t->ran || t->dead || t->rec.on_cpu || !c)
			continue;
		t->ran = false;
		/* Known from switches: its run time would count it twice. */
		if (c->exec_known)
			continue;
		if (e->hooks.task_clock(e->hooks.ctx, t->rec.pid, &kernel))
			continue;
		/*
		 * A made-up switch is dated by a guess (engine_current()): its
		 * run time says nothing about steal. Start again from here.
		 */
		if (!t->clock_known || t->clock_unsure ||
		    /* It ran by the events, not by the kernel: not its events. */
		    (kernel == t->clock_kernel &&
		     t->rec.sum_exec_runtime != t->clock_events)) {
			t->clock_known = true;
			t->clock_unsure = false;
			t->clock_lost = 0;
			t->clock_events = t->rec.sum_exec_runtime;
			t->clock_kernel = kernel;
			continue;
		}
		lost = (int64_t)(t->rec.sum_exec_runtime - t->clock_events) -
		       (int64_t)(kernel - t->clock_kernel);
		/*
		 * Switch times jitter either way against the kernel's clock
		 * reads: only what grows beyond all that was credited counts.
		 */
		if (lost > t->clock_lost) {
			uint64_t credit = lost - t->clock_lost;

			if (credit > c->lost_budget)
				credit = c->lost_budget;
			c->lost_budget -= credit;
			lost_time(c, credit);
			t->clock_lost += credit;
		}
	}
}

void engine_lost_budget(struct engine *e, int cpu, uint64_t total_ns)
{
	struct ecpu *c = engine_cpu_at(e, cpu);

	if (!c)
		return;
	if (c->lost_known && total_ns > c->lost_total)
		c->lost_budget += total_ns - c->lost_total;
	c->lost_total = total_ns;
	c->lost_known = true;
}
