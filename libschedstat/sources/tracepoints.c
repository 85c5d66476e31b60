// SPDX-License-Identifier: GPL-2.0
/*
 * Which tracepoint gives which signal, once. The BPF source
 * (bpf_source_programs.c), the event sources (sched_events.c,
 * tracefs_source.c) and the table in docs/signals.md (schedtop
 * --list-tracepoints) all read it (why a signal can be missing is the
 * signal table's, base/signals.c);
 * tests/integration/test_docs.py checks it against bpf/schedtop.bpf.c's
 * programs and the docs.
 */
#include <string.h>

#include "array_size.h"
#include "tracepoints.h"

#define EVENTS_PELT(sys, tp) {						\
	.system = sys, .name = tp, .flags = SCHEDSTAT_TP_EVENTS,		\
	.gives = "the kernel's own PELT values, where the kernel has the event", \
}

/* The overutilized flag's events, which the trace sources read alike. */
#define EVENTS_OVERUTILIZED(sys, tp) {					\
	.system = sys, .name = tp, .flags = SCHEDSTAT_TP_EVENTS,		\
	.events_avail = SCHEDSTAT_AVAIL_OVERUTILIZED |			\
			SCHEDSTAT_AVAIL_OVERUTILIZED_NS,			\
	.gives = "the root domain's overutilized flag and its time, from the first event on", \
}

const struct schedstat_tracepoint tp_table[TP_NR] = {
	[TP_SCHED_SWITCH] = {
		.system = "sched", .name = "sched_switch",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EXACT_WAKEUPS |
			 SCHEDSTAT_TP_EVENTS,
		.bpf_avail = SCHEDSTAT_AVAIL_PREEMPT,
		/* The engine's PELT runs on switches: no source without them. */
		.events_avail = SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_PELT_ESTIMATED |
				SCHEDSTAT_AVAIL_BUSY | SCHEDSTAT_AVAIL_PREEMPT |
				SCHEDSTAT_AVAIL_TASK_TIME | SCHEDSTAT_AVAIL_ACTIVITY,
		.gives = "preemptions per CPU; for the event sources also busy time, run and wait time and the estimated PELT",
	},
	[TP_SCHED_WAKING] = {
		.system = "sched", .name = "sched_waking",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EXACT_WAKEUPS |
			 SCHEDSTAT_TP_EVENTS | SCHEDSTAT_TP_FILES_ONLY,
		.bpf_avail = SCHEDSTAT_AVAIL_WAKEUPS,
		.events_avail = SCHEDSTAT_AVAIL_WAKEUPS,
		.gives = "every wakeup, counted per task",
	},
	[TP_SCHED_WAKEUP] = {
		.system = "sched", .name = "sched_wakeup",
		.flags = SCHEDSTAT_TP_EVENTS,
		.events_avail = SCHEDSTAT_AVAIL_WAKEUPS,
		.gives = "the task queued on a CPU, and its wakeup where sched_waking is not read",
	},
	[TP_SCHED_WAKEUP_NEW] = {
		.system = "sched", .name = "sched_wakeup_new",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EXACT_WAKEUPS |
			 SCHEDSTAT_TP_EVENTS,
		.gives = "a new task's first wakeup and, for the event sources, its first PELT values",
	},
	[TP_SCHED_MIGRATE_TASK] = {
		.system = "sched", .name = "sched_migrate_task",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		.gives = "migrations between clusters, up and down",
	},
	[TP_SCHED_PROCESS_EXIT] = {
		.system = "sched", .name = "sched_process_exit",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		.gives = "a task's last values, so that its final interval counts",
	},
	[TP_CPU_FREQUENCY] = {
		.system = "power", .name = "cpu_frequency",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		.gives = "the CPU's clock and the time at each frequency",
	},
	[TP_CPU_IDLE] = {
		.system = "power", .name = "cpu_idle",
		.flags = SCHEDSTAT_TP_EVENTS,
		.events_avail = SCHEDSTAT_AVAIL_IDLE,
		.gives = "idle-state residency (cpuidle's sysfs for the BPF source)",
	},
	[TP_CPUHP_ENTER] = {
		.system = "cpuhp", .name = "cpuhp_enter",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		.gives = "the start of each hotplug step",
	},
	[TP_CPUHP_MULTI_ENTER] = {
		.system = "cpuhp", .name = "cpuhp_multi_enter",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		.gives = "the start of each multi-instance hotplug step",
	},
	[TP_CPUHP_EXIT] = {
		.system = "cpuhp", .name = "cpuhp_exit",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_EVENTS,
		.bpf_avail = SCHEDSTAT_AVAIL_HOTPLUG,
		.events_avail = SCHEDSTAT_AVAIL_HOTPLUG,
		.gives = "the end of each hotplug step: hotplug operations and their time",
	},
	[TP_SCHED_STAT_RUNTIME] = {
		.system = "sched", .name = "sched_stat_runtime",
		.flags = SCHEDSTAT_TP_EVENTS | SCHEDSTAT_TP_FILES_ONLY,
		.gives = "steal and irq time, which the PELT clock skips",
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
	[TP_TASK_RENAME] = {
		.system = "task", .name = "task_rename",
		.flags = SCHEDSTAT_TP_EVENTS | SCHEDSTAT_TP_FILES_ONLY,
		.gives = "a thread's new name from the time it took it (prctl, exec, a sibling's /proc write), not from its next switch",
	},
	[TP_SCHED_OVERUTILIZED] = {
		.system = "sched", .name = "sched_overutilized_tp",
		.flags = SCHEDSTAT_TP_BPF,
		.bpf_avail = SCHEDSTAT_AVAIL_OVERUTILIZED_NS,
		.gives = "the time the root domain was overutilized",
	},
	[TP_PELT_SE] = {
		.system = "sched", .name = "pelt_se_tp",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_PELT_TRACE,
		.gives = "every update of the traced tasks, and of --pelt-cgroup's group entities",
	},
	[TP_PELT_CFS] = {
		.system = "sched", .name = "pelt_cfs_tp",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_PELT_TRACE,
		.gives = "every update of the traced CPUs' root cfs_rq",
	},
	[TP_PELT_RT] = {
		.system = "sched", .name = "pelt_rt_tp",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_PELT_TRACE,
		.gives = "every update of the traced CPUs' rt PELT",
	},
	[TP_PELT_DL] = {
		.system = "sched", .name = "pelt_dl_tp",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_PELT_TRACE,
		.gives = "every update of the traced CPUs' dl PELT",
	},
	[TP_PELT_IRQ] = {
		.system = "sched", .name = "pelt_irq_tp",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_PELT_TRACE,
		.gives = "every update of the traced CPUs' irq PELT (where the kernel keeps it)",
	},
	/*
	 * The task table's (bpf/task_table.bpf.h): which tasks a sample
	 * reads. The event sources see new tasks in their switches.
	 */
	[TP_TASK_NEWTASK] = {
		.system = "task", .name = "task_newtask",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_TASK_TABLE,
		.gives = "each new task, which the samples read from then on",
	},
	[TP_SCHED_PROCESS_EXEC] = {
		.system = "sched", .name = "sched_process_exec",
		.flags = SCHEDSTAT_TP_BPF | SCHEDSTAT_TP_TASK_TABLE,
		.gives = "a thread that took its process's pid by exec, read by its new pid",
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
