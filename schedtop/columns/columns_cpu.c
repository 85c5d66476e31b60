// SPDX-License-Identifier: GPL-2.0
/*
 * The cpu table: one row per CPU (struct schedstat_cpu).
 * Append only: CSV column order is public. docs/csv.md carries a generated
 * copy of the names and descriptions (see columns.c).
 */
#include "columns_schema.h"

#define CPU_CONST(f, m, t)	SCHEMA_CONST(CPU, struct schedstat_cpu, f, m, t)
enum { SCHEDSTAT_CPU_FIELDS(CPU_CONST, CPU_CONST) };
#define CPU(f)		SCHEMA_COL(CPU, f, CPU_T_##f)
#define CPU_AS(f, t)	SCHEMA_COL(CPU, f, t)

static const struct column cpu_cols[] = {
	TS_COLUMN,
	{
		CPU(cpu), .title = "CPU", .width = 4,
		.desc = "CPU number",
		.tui_default = true,
	}, {
		CPU_AS(cluster, COL_CLUSTER), .title = "CLUSTER", .width = 7,
		.desc = "Name of the cluster the CPU belongs to",
		.tui_default = true,
	}, {
		CPU(online), .title = "ONLINE", .width = 6,
		.desc = "1 if the CPU is online, else 0",
	}, {
		CPU(capacity), .title = "CAP", .width = 4,
		.desc = "Original capacity of the CPU (cpu_capacity in sysfs, or the --topology override), 0..1024",
		.sort_desc = true,
		.tui_default = true,
	}, {
		CPU(util_avg), .title = "UTIL", .width = 4,
		.desc = "PELT utilization of the CPU's root cfs_rq (CFS tasks) as of its last kernel update, in capacity units",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_CFS, .tui_default = true,
	}, {
		CPU(runnable_avg), .title = "RUNNABLE", .width = 8,
		.desc = "PELT runnable average of the root cfs_rq as of its last kernel update: like util_avg but also counting tasks waiting to run, so above util_avg under contention",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_CFS, .tui_default = true,
	}, {
		CPU(load_avg), .title = "LOAD", .width = 7,
		.desc = "PELT load average of the root cfs_rq as of its last kernel update: runnable time weighted by nice weight (1024 per nice-0 task)",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_CFS,
	}, {
		CPU(blocked_util), .title = "BLK_UTIL", .width = 8,
		.desc = "Utilization still held on this CPU's root cfs_rq by sleeping tasks, and by tasks that left until the root's next update, decayed to the sample time, in capacity units (see docs/signals.md)",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_CFS, .tui_default = true,
	}, {
		CPU(blocked_load), .title = "BLK_LOAD", .width = 8,
		.desc = "Load still held on this CPU's root cfs_rq by sleeping tasks, and by tasks that left until the root's next update, decayed to the sample time (see docs/signals.md)",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_ACTIVITY,
	}, {
		CPU(rt_util), .title = "RT", .width = 4,
		.desc = "PELT utilization of real-time tasks on this CPU (rq->avg_rt.util_avg), in capacity units",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_RT, .tui_default = true,
	}, {
		CPU(dl_util), .title = "DL", .width = 4,
		.desc = "PELT utilization of deadline tasks on this CPU (rq->avg_dl.util_avg), in capacity units",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_DL, .tui_default = true,
	}, {
		CPU(irq_util), .title = "IRQ", .width = 4,
		.desc = "PELT utilization of interrupt handling on this CPU (rq->avg_irq.util_avg), in capacity units",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_IRQ, .tui_default = true,
	}, {
		CPU(nr_running), .title = "NR_RUN", .width = 6,
		.desc = "Tasks queued on this CPU at the sample, the running one included (rq->nr_running; counted from the tasks for the event sources)",
		.sort_desc = true,
		.tui_default = true,
	},
	/* Extra columns: append only. */
	{
		CPU(capacity_cfs), .title = "CAP_CFS", .width = 7,
		.desc = "Capacity left for CFS tasks after rt, dl, irq and hardware pressure (rq->cpu_capacity), in capacity units",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_CAPACITY_CFS,
	}, {
		CPU(util_est), .title = "UTIL_EST", .width = 8,
		.desc = "Estimated utilization of the CPU's root cfs_rq (cfs.avg.util_est, util_est.enqueued before 6.8): the util_est of the fair tasks queued on it, as the kernel's util_est_enqueue() sums it, in capacity units",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_UTIL_EST,
	}, {
		CPU(hw_pressure), .title = "HW", .width = 4,
		.desc = "Capacity lost to hardware (thermal) capping, PELT-averaged (rq->avg_hw or rq->avg_thermal), in capacity units",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_HW,
	}, {
		CPU_AS(busy_ns, COL_NS), .title = "BUSY_MS", .width = 10,
		.desc = "Time the CPU ran anything but its idle task during the interval, ns: the kernel's idle accounting (tick_sched, or /proc/stat at 1/USER_HZ resolution where per-CPU symbols are not in kallsyms); from sched_switch for the event sources",
		.sort_desc = true,
		.tui_default = true,
		.avail = SCHEDSTAT_AVAIL_BUSY,
	}, {
		CPU(nr_switches), .title = "SWITCHES", .width = 8,
		.desc = "Context switches on this CPU during the interval (rq->nr_switches)",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
	}, {
		CPU(nr_preempt), .title = "PREEMPT", .width = 7,
		.desc = "Context switches on this CPU during the interval where the outgoing task was still runnable (involuntary); the kernel does not count them per CPU, so only with --exact-wakeups (a program on sched_switch) or the event sources",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_PREEMPT,
	}, {
		CPU(dropped), .title = "DROPPED", .width = 7,
		.desc = "Events and reads lost on this CPU during the interval: ring buffer reserves that failed, wakeups the task storage or group updates the full group map could not keep, and samples whose read of the CPU's task groups stopped at 32 (its blocked_util and blocked_load then miss the others'); from a trace file, the events its buffer lost (a Perfetto bundle's lost_events counts one)",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
	}, {
		CPU(hotplug_ops), .title = "HP_OPS", .width = 6,
		.desc = "CPU hotplug operations (offline or online) on this CPU started during the interval, from the cpuhp tracepoints",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_HOTPLUG,
	}, {
		CPU_AS(hotplug_ns, COL_NS), .title = "HP_MS", .width = 7,
		.desc = "How long the latest hotplug operation on this CPU took, from its first cpuhp_enter to its last cpuhp_exit (so far, if it goes on past the sample), ns; 0 if none ran during the interval",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_HOTPLUG,
	}, {
		CPU(hotplug_to), .title = "HP_TO", .width = 7,
		.desc = "Where the latest hotplug operation on this CPU during the interval took it, online or offline, from the direction of its cpuhp steps (not from the online state at the sample); blank if none ran",
		.avail = SCHEDSTAT_AVAIL_HOTPLUG,
	}, {
		CPU(freq_khz), .title = "FREQ", .width = 8,
		.desc = "CPU clock at the sample, kHz: the latest power:cpu_frequency event, or the policy's scaling_cur_freq where the event never fired",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_FREQ,
	}, {
		CPU(freq_avg_khz), .title = "FREQ_AVG", .width = 8,
		.desc = "Time-weighted mean clock over the interval from the power:cpu_frequency events, kHz (the sampled value where only scaling_cur_freq is known)",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_FREQ | SCHEDSTAT_AVAIL_ACTIVITY,
	}, {
		CPU_AS(idle0_ns, COL_NS), .title = "IDLE0_MS", .width = 9,
		.desc = "Time in idle state 0 during the interval (cpuidle sysfs stateK/time; power:cpu_idle for the event sources), ns",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_IDLE,
	}, {
		CPU_AS(idle1_ns, COL_NS), .title = "IDLE1_MS", .width = 9,
		.desc = "Time in idle state 1 during the interval (cpuidle sysfs stateK/time; power:cpu_idle for the event sources), ns",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_IDLE,
	}, {
		CPU_AS(idle2_ns, COL_NS), .title = "IDLE2_MS", .width = 9,
		.desc = "Time in idle state 2 during the interval (cpuidle sysfs stateK/time; power:cpu_idle for the event sources), ns",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_IDLE,
	}, {
		CPU_AS(idle3_ns, COL_NS), .title = "IDLE3_MS", .width = 9,
		.desc = "Time in idle state 3 and deeper during the interval (cpuidle sysfs stateK/time; power:cpu_idle for the event sources), ns",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_IDLE,
	}, {
		CPU(pelt_estimated), .title = "EST", .width = 3,
		.desc = "1 if util_avg, runnable_avg, load_avg and blocked_util come from schedtop's own PELT engine fed by sched events (--source=tracefs, trace files) rather than from the kernel",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
	}, {
		CPU(power_mw), .title = "POWER_MW", .width = 8,
		.desc = "This CPU's part of its cluster's power_mw: its busy time times the power of the OPP at its clock plus its idle time times the idle power, over the interval, mW",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_ENERGY,
	}, {
		CPU(eas_power_mw), .title = "EAS_MW", .width = 8,
		.desc = "This CPU's part of its cluster's eas_power_mw: its util over the performance of the OPP EAS chose for the cluster, times that OPP's power, mW",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_ENERGY,
	}, {
		CPU(misfit_task_load), .title = "MISFIT", .width = 6,
		.desc = "The kernel's misfit load of this CPU (rq->misfit_task_load), read at the sample: the h_load (at least 1) of the fair task running here when, at the last tick or pick, it did not fit the CPU with the 20% margin and may run on a CPU of more capacity; 0 when it fits, and always where capacities are all equal. The load balancer moves such a task up",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_MISFIT_LOAD,
	},
	EMULATION_COLUMN,
};

const struct column_table cpu_table = {
	.name = "cpu",
	.cols = cpu_cols,
	.nr_cols = ARRAY_SIZE(cpu_cols),
	.row_size = sizeof(struct schedstat_cpu),
};
