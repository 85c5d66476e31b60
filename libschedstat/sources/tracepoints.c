// SPDX-License-Identifier: GPL-2.0
/*
 * Which tracepoint gives which signal, once. The BPF source
 * (bpf_source_programs.c), the event sources (sched_events.c,
 * tracefs_source.c), the column notes (schedtop/columns.c) and the table
 * in docs/signals.md (schedtop --list-tracepoints) all read it;
 * tests/integration/test_docs.py checks it against bpf/schedtop.bpf.c's
 * programs and the docs.
 */
#include <string.h>

#include "array_size.h"
#include "tracepoints.h"

#define EVENTS_PELT(sys, tp)						\
	{ sys, tp, SCHEDSTAT_TP_EVENTS, 0, 0,				\
	  "the kernel's own PELT values, where the kernel has the event", NULL }

/* The overutilized flag's events, which the trace sources read alike. */
#define EVENTS_OVERUTILIZED(sys, tp)					\
	{ sys, tp, SCHEDSTAT_TP_EVENTS, 0,				\
	  SCHEDSTAT_AVAIL_OVERUTILIZED | SCHEDSTAT_AVAIL_OVERUTILIZED_NS,	\
	  "the root domain's overutilized flag and its time, from the first event on", \
	  NULL }

const struct schedstat_tracepoint tp_table[TP_NR] = {
	[TP_SCHED_SWITCH] = {
		"sched", "sched_switch",
		SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EXACT_WAKEUPS | SCHEDSTAT_TP_EVENTS,
		SCHEDSTAT_AVAIL_PREEMPT,
		/* The engine's PELT runs on switches: no source without them. */
		SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_PELT_ESTIMATED |
		SCHEDSTAT_AVAIL_BUSY | SCHEDSTAT_AVAIL_PREEMPT,
		"preemptions per CPU; for the event sources also busy time, run and wait time and the estimated PELT",
		"empty unless --exact-wakeups (the kernel does not count preemptions per CPU)",
	},
	[TP_SCHED_WAKING] = {
		"sched", "sched_waking",
		SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EXACT_WAKEUPS | SCHEDSTAT_TP_EVENTS |
		SCHEDSTAT_TP_FILES_ONLY,
		SCHEDSTAT_AVAIL_WAKEUPS, SCHEDSTAT_AVAIL_WAKEUPS,
		"every wakeup, counted per task", NULL,
	},
	[TP_SCHED_WAKEUP] = {
		"sched", "sched_wakeup", SCHEDSTAT_TP_EVENTS,
		0, SCHEDSTAT_AVAIL_WAKEUPS,
		"the task queued on a CPU, and its wakeup where sched_waking is not read",
		NULL,
	},
	[TP_SCHED_WAKEUP_NEW] = {
		"sched", "sched_wakeup_new",
		SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EXACT_WAKEUPS | SCHEDSTAT_TP_EVENTS,
		0, 0, "a new task's first wakeup and, for the event sources, its first PELT values",
		NULL,
	},
	[TP_SCHED_MIGRATE_TASK] = {
		"sched", "sched_migrate_task", SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		0, 0, "migrations between clusters, up and down", NULL,
	},
	[TP_SCHED_PROCESS_EXIT] = {
		"sched", "sched_process_exit", SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		0, 0, "a task's last values, so that its final interval counts", NULL,
	},
	[TP_CPU_FREQUENCY] = {
		"power", "cpu_frequency", SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		0, 0, "the CPU's clock and the time at each frequency", NULL,
	},
	[TP_CPU_IDLE] = {
		"power", "cpu_idle", SCHEDSTAT_TP_EVENTS,
		0, SCHEDSTAT_AVAIL_IDLE, "idle-state residency (cpuidle's sysfs for the BPF source)",
		NULL,
	},
	[TP_CPUHP_ENTER] = {
		"cpuhp", "cpuhp_enter", SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		0, 0, "the start of each hotplug step", NULL,
	},
	[TP_CPUHP_MULTI_ENTER] = {
		"cpuhp", "cpuhp_multi_enter", SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		0, 0, "the start of each multi-instance hotplug step", NULL,
	},
	[TP_CPUHP_EXIT] = {
		"cpuhp", "cpuhp_exit", SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		SCHEDSTAT_AVAIL_HOTPLUG, SCHEDSTAT_AVAIL_HOTPLUG,
		"the end of each hotplug step: hotplug operations and their time",
		"empty if the cpuhp tracepoints are missing",
	},
	[TP_SCHED_STAT_RUNTIME] = {
		"sched", "sched_stat_runtime",
		SCHEDSTAT_TP_EVENTS | SCHEDSTAT_TP_FILES_ONLY,
		0, 0, "steal and irq time, which the PELT clock skips", NULL,
	},
	[TP_SCHED_PELT_SE] = EVENTS_PELT("sched", "sched_pelt_se"),
	[TP_SCHED_PELT_CFS] = EVENTS_PELT("sched", "sched_pelt_cfs"),
	[TP_SCHED_LOAD_SE] = EVENTS_PELT("sched", "sched_load_se"),
	[TP_SCHED_LOAD_AVG_TASK] = EVENTS_PELT("sched", "sched_load_avg_task"),
	[TP_SCHED_LOAD_AVG_CPU] = EVENTS_PELT("sched", "sched_load_avg_cpu"),
	[TP_SCHED_LOAD_CFS_RQ] = EVENTS_PELT("sched", "sched_load_cfs_rq"),
	/* LISA's kernel module (lisa/_assets/kmodules/lisa/ftrace_events.h). */
	[TP_LISA_PELT_SE] = EVENTS_PELT("lisa", "lisa__sched_pelt_se"),
	[TP_LISA_PELT_CFS] = EVENTS_PELT("lisa", "lisa__sched_pelt_cfs"),
	/*
	 * EAS-era Android kernels' sched_overutilized (overutilized=%d), and
	 * LISA's module's form of sched_overutilized_tp: the kernel's flag at
	 * each evaluation.
	 */
	[TP_SCHED_OVERUTILIZED_EVENT] = EVENTS_OVERUTILIZED("sched", "sched_overutilized"),
	[TP_LISA_OVERUTILIZED] = EVENTS_OVERUTILIZED("lisa", "lisa__sched_overutilized"),
	[TP_SCHED_OVERUTILIZED] = {
		"sched", "sched_overutilized_tp", SCHEDSTAT_TP_BPF,
		SCHEDSTAT_AVAIL_OVERUTILIZED_NS, 0,
		"the time the root domain was overutilized",
		"empty where sched_overutilized_tp cannot be attached (no btf_trace typedef, e.g. 5.10) and the state at the sample is unknown",
	},
	[TP_PELT_SE] = {
		"sched", "pelt_se_tp", SCHEDSTAT_TP_BPF,
		0, 0, "group entities' PELT values; with --pelt-trace every update of the traced tasks",
		NULL,
	},
	[TP_PELT_CFS] = {
		"sched", "pelt_cfs_tp", SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_PELT_TRACE,
		0, 0, "every update of the traced CPUs' root cfs_rq", NULL,
	},
	[TP_PELT_RT] = {
		"sched", "pelt_rt_tp", SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_PELT_TRACE,
		0, 0, "every update of the traced CPUs' rt PELT", NULL,
	},
	[TP_PELT_DL] = {
		"sched", "pelt_dl_tp", SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_PELT_TRACE,
		0, 0, "every update of the traced CPUs' dl PELT", NULL,
	},
	[TP_PELT_IRQ] = {
		"sched", "pelt_irq_tp", SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_PELT_TRACE,
		0, 0, "every update of the traced CPUs' irq PELT (where the kernel keeps it)", NULL,
	},
};

const struct schedstat_tracepoint *tp_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(tp_table); i++)
		if (!strcmp(tp_table[i].name, name))
			return &tp_table[i];
	return NULL;
}

const struct schedstat_tracepoint *schedstat_tracepoints(size_t *nr)
{
	*nr = ARRAY_SIZE(tp_table);
	return tp_table;
}
