/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table of which tracepoint gives which signal (schedstat_tracepoints()
 * in schedstat.h), indexed by name for the sources: the BPF source takes
 * each program's avail bits and opt-in from it, the event sources their
 * events (sched_events.c parses the first TP_NR_EVENTS, in this order).
 */
#ifndef SCHEDSTAT_TRACEPOINTS_H
#define SCHEDSTAT_TRACEPOINTS_H

#include "schedstat.h"

enum tp_id {
	/* Read by the event sources; sched_switch first (they need it). */
	TP_SCHED_SWITCH,
	TP_SCHED_WAKING,
	TP_SCHED_WAKEUP,
	TP_SCHED_WAKEUP_NEW,
	TP_SCHED_MIGRATE_TASK,
	TP_SCHED_PROCESS_EXIT,
	TP_CPU_FREQUENCY,
	TP_CPU_IDLE,
	TP_CPUHP_ENTER,
	TP_CPUHP_MULTI_ENTER,
	TP_CPUHP_EXIT,
	TP_SCHED_STAT_RUNTIME,
	/* EAS-era kernels and vendor modules: the kernel's own PELT values. */
	TP_SCHED_PELT_SE,
	TP_SCHED_PELT_CFS,
	TP_SCHED_LOAD_SE,
	TP_SCHED_LOAD_AVG_TASK,
	TP_SCHED_LOAD_AVG_CPU,
	TP_SCHED_LOAD_CFS_RQ,
	TP_LISA_PELT_SE,
	TP_LISA_PELT_CFS,
	TP_SCHED_OVERUTILIZED_EVENT,
	TP_LISA_OVERUTILIZED,
	TP_TASK_RENAME,
	TP_NR_EVENTS,
	/* BTF-only tracepoints: the BPF source alone. */
	TP_SCHED_OVERUTILIZED = TP_NR_EVENTS,
	TP_PELT_SE,
	TP_PELT_CFS,
	TP_PELT_RT,
	TP_PELT_DL,
	TP_PELT_IRQ,
	TP_TASK_NEWTASK,
	TP_SCHED_PROCESS_EXEC,
	TP_NR,
};

extern const struct schedstat_tracepoint tp_table[TP_NR];

/* The row of tracepoint @name, or NULL. */
const struct schedstat_tracepoint *tp_find(const char *name);

#endif /* SCHEDSTAT_TRACEPOINTS_H */
