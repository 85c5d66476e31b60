/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A neutral trace event (trace_event.h) into the engine: the one place
 * where every event source's sched and power events meet the engine (the
 * tracefs source's too, through sched_events.c).
 */
#ifndef SCHEDSTAT_TRACE_APPLY_H
#define SCHEDSTAT_TRACE_APPLY_H

#include "engine.h"
#include "trace_event.h"

struct trace_apply {
	struct engine *engine;
	/*
	 * The events hold sched_waking: a sched_wakeup is then not counted
	 * again (every sched_waking is followed by one sched_wakeup).
	 */
	bool have_waking;
	/*
	 * The events hold no sched_wakeup (Perfetto records sched_waking
	 * only, compact): a sched_waking is also the wakeup, the task queued
	 * on its target CPU then (ttwu enqueues it microseconds later).
	 */
	bool waking_enqueues;
	/* Every cpuhp step also goes here as SCHEDSTAT_EV_CPUHP (optional). */
	schedstat_event_fn on_cpuhp;
	void *cpuhp_ctx;
	uint64_t kick_fn;	/* cpuhp_kick_ap_work's address, 0 unknown */
};

/* 0 or -ENOMEM. TRACE_EV_LOST, _CURRENT and _TASK are the caller's. */
int trace_apply(const struct trace_apply *a, const struct trace_ev *ev);

#endif /* SCHEDSTAT_TRACE_APPLY_H */
