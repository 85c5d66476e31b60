// SPDX-License-Identifier: GPL-2.0
/*
 * Time the task clock lost to steal and interrupts, which the kernel's PELT
 * clock skips and trace time does not: from sched_stat_runtime where it is
 * read, else from each task's kernel run time against what its switches
 * spanned, at most what /proc/stat says went there (engine.h).
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

void engine_task_clocks(struct engine *e)
{
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
