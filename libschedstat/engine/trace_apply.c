// SPDX-License-Identifier: GPL-2.0
/*
 * Each neutral event's effect on the engine (trace_apply.h), as the
 * tracefs source has always applied the kernel's events.
 */
#include "trace_apply.h"

/* One cpuhp step to the session's events, as the BPF source sends them. */
static void deliver_cpuhp(const struct trace_apply *a, const struct trace_ev *ev)
{
	struct schedstat_event out = { .type = SCHEDSTAT_EV_CPUHP, .ts_ns = ev->ts,
				       .cpu = ev->cpu };

	out.hp_cpu = ev->hp.cpu;
	out.hp_target = ev->hp.target;
	out.hp_idx = ev->hp.idx;
	if (ev->kind == TRACE_EV_CPUHP_EXIT) {
		out.hp_kind = SCHEDSTAT_CPUHP_EXIT;
		out.hp_ret = ev->hp.ret;
	} else {
		out.hp_kind = ev->kind == TRACE_EV_CPUHP_ENTER ? SCHEDSTAT_CPUHP_ENTER :
			      SCHEDSTAT_CPUHP_MULTI_ENTER;
		out.hp_kick = ev->kind == TRACE_EV_CPUHP_ENTER && a->kick_fn &&
			      ev->hp.fun == a->kick_fn;
	}
	a->on_cpuhp(&out, a->cpuhp_ctx);
}

static bool names_current(int kind)
{
	switch (kind) {
	case TRACE_EV_SWITCH:	/* engine_switch() checks its prev itself */
	case TRACE_EV_CPUHP_ENTER:
	case TRACE_EV_CPUHP_MULTI_ENTER:
	case TRACE_EV_CPUHP_EXIT:
	case TRACE_EV_LOST:
	case TRACE_EV_CURRENT:
	case TRACE_EV_TASK:
	case TRACE_EV_FREE:
	case TRACE_EV_NEWTASK:
	case TRACE_EV_RENAME:
		return false;
	}
	return true;
}

int trace_apply(const struct trace_apply *a, const struct trace_ev *ev)
{
	struct engine *e = a->engine;
	int err;

	/* Whoever recorded the event was current on its CPU. */
	if (ev->pid >= 0 && names_current(ev->kind)) {
		err = engine_current(e, ev->ts, ev->cpu, ev->pid);
		if (err)
			return err;
	}
	switch (ev->kind) {
	case TRACE_EV_SWITCH:
		return engine_switch(e, ev->ts, ev->cpu, ev->sw.prev_pid, ev->sw.prev_prio,
				     ev->sw.prev_state, ev->sw.prev_comm, ev->sw.next_pid,
				     ev->sw.next_prio, ev->sw.next_comm);
	case TRACE_EV_WAKING:
		err = engine_waking(e, ev->ts, ev->wake.pid, ev->wake.prio, ev->wake.comm);
		if (!err && a->waking_enqueues)
			err = engine_wakeup(e, ev->ts, ev->wake.pid, ev->wake.prio,
					    ev->wake.target_cpu, ev->wake.comm, false);
		return err;
	case TRACE_EV_WAKEUP:
	case TRACE_EV_WAKEUP_NEW:
		err = engine_wakeup(e, ev->ts, ev->wake.pid, ev->wake.prio,
				    ev->wake.target_cpu, ev->wake.comm,
				    ev->kind == TRACE_EV_WAKEUP_NEW);
		/*
		 * Without sched_waking a wakeup counts where it lands: every
		 * sched_waking is followed by one sched_wakeup of the task.
		 */
		if (!err && ev->kind == TRACE_EV_WAKEUP && !a->have_waking)
			err = engine_waking(e, ev->ts, ev->wake.pid, ev->wake.prio,
					    ev->wake.comm);
		return err;
	case TRACE_EV_MIGRATE:
		return engine_migrate(e, ev->ts, ev->migrate.pid, ev->migrate.prio,
				      ev->migrate.orig_cpu, ev->migrate.dest_cpu,
				      ev->migrate.comm);
	case TRACE_EV_EXIT:
		return engine_exit(e, ev->ts, ev->task.pid, ev->task.comm);
	case TRACE_EV_FREQ:
		engine_freq(e, ev->ts, ev->power.cpu, ev->power.state);
		return 0;
	case TRACE_EV_IDLE:
		engine_idle(e, ev->ts, ev->power.cpu, ev->power.state);
		return 0;
	case TRACE_EV_CPUHP_ENTER:
	case TRACE_EV_CPUHP_MULTI_ENTER:
	case TRACE_EV_CPUHP_EXIT:
		if (a->on_cpuhp)
			deliver_cpuhp(a, ev);
		engine_hotplug(e, ev->ts, ev->hp.cpu, ev->hp.target, ev->hp.idx,
			       ev->kind == TRACE_EV_CPUHP_ENTER ? ENGINE_HP_ENTER :
			       ev->kind == TRACE_EV_CPUHP_MULTI_ENTER ?
			       ENGINE_HP_MULTI_ENTER : ENGINE_HP_EXIT);
		return 0;
	case TRACE_EV_RUNTIME:
		engine_runtime(e, ev->ts, ev->cpu, ev->runtime.pid, ev->runtime.runtime_ns);
		return 0;
	case TRACE_EV_PELT_TASK:
	case TRACE_EV_PELT_CPU: {
		struct engine_kernel_pelt kp = {
			.util = &ev->pelt.util,
			.load = ev->pelt.has_load ? &ev->pelt.load : NULL,
			.runnable = ev->pelt.has_runnable ? &ev->pelt.runnable : NULL,
		};

		if (ev->kind == TRACE_EV_PELT_TASK)
			engine_kernel_task_pelt(e, ev->ts, ev->pelt.pid, &kp);
		else
			engine_kernel_cpu_pelt(e, ev->ts, ev->pelt.cpu, &kp);
		return 0;
	}
	case TRACE_EV_OVERUTILIZED:
		engine_overutilized(e, ev->ts, ev->overutilized.on);
		return 0;
	case TRACE_EV_RENAME:
		/*
		 * At its time, not at the task's next switch or wakeup that
		 * names it: a thread renamed while asleep (Android names most
		 * after they start) has its rows under the new name from here.
		 */
		engine_rename(e, ev->task.pid, ev->task.comm);
		return 0;
	}
	/* sched_process_free, task_newtask: nothing the engine keeps. */
	return 0;
}
