// SPDX-License-Identifier: GPL-2.0
/*
 * Column tables. docs/csv.md carries a generated copy of the names and
 * descriptions (tests/unit/test_csv.c fails when they differ): after editing
 * a description, paste the output of `schedtop csv --list-columns` there.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "array_size.h"
#include "columns.h"

/*
 * Offset and size of a row field, refusing to build when the field's C type
 * is not the one its column type reads: a uint64_t declared COL_U32 would
 * print its low half on little-endian machines and its high half elsewhere.
 * _Generic does not evaluate the null-pointer access; a char array decays to
 * char * in its controlling expression.
 */
#define CTYPE_COL_U32		uint32_t
#define CTYPE_COL_U64		uint64_t
#define CTYPE_COL_NS		uint64_t
#define CTYPE_COL_I32		int32_t
#define CTYPE_COL_BOOL		bool
#define CTYPE_COL_CHAR		char
#define CTYPE_COL_STR		char *
#define CTYPE_COL_PCT		double
#define CTYPE_COL_CLUSTER	int32_t

#define FIELD(st, m, t)							\
	.type = (t), .offset = offsetof(st, m),				\
	.size = sizeof(((st *)0)->m) +					\
		0 * sizeof(_Generic(((st *)0)->m, CTYPE_##t: 0))

#define TASK(m, t)	FIELD(struct schedstat_task, m, t)
#define CPU(m, t)	FIELD(struct schedstat_cpu, m, t)
#define CLUSTER(m, t)	FIELD(struct schedstat_cluster, m, t)

#define TS_COLUMN {							\
	.name = "ts_ns", .title = "TS_NS", .width = 14,			\
	.desc = "CLOCK_MONOTONIC time the sample was taken (the clock of "	\
		"bpf_ktime_get_ns()), ns",					\
	.type = COL_TS,							\
}

static const struct column task_cols[] = {
	TS_COLUMN,
	{
		.name = "pid", .title = "PID", .width = 7,
		.desc = "Thread ID (the kernel's pid)",
		TASK(pid, COL_I32), .tui_default = true, .tui_rank = 0,
	}, {
		.name = "tgid", .title = "TGID", .width = 7,
		.desc = "Process ID: the thread group ID, pid of the group's leader",
		TASK(tgid, COL_I32),
	}, {
		.name = "comm", .title = "COMM", .width = 15,
		.desc = "Thread name (task comm, at most 15 bytes) with control characters replaced by '?'",
		TASK(comm, COL_STR), .tui_default = true, .tui_rank = 0,
	}, {
		.name = "cpu", .title = "CPU", .width = 4,
		.desc = "CPU the task is running on, or last ran on",
		TASK(cpu, COL_I32), .tui_default = true, .tui_rank = 1,
	}, {
		.name = "cluster", .title = "CLUSTER", .width = 7,
		.desc = "Name of the cluster of that CPU, empty if the CPU is in no cluster",
		TASK(cluster, COL_CLUSTER), .tui_default = true, .tui_rank = 3,
	}, {
		.name = "state", .title = "S", .width = 1,
		.desc = "R running/runnable, S sleeping, D uninterruptible, T stopped, t traced, X dead, Z zombie, P parked, I idle kernel thread, x died (its last switch out, as traces of kernels before 4.14 print it)",
		TASK(state, COL_CHAR), .tui_default = true, .tui_rank = 2,
	}, {
		.name = "util_avg", .title = "UTIL", .width = 4,
		.desc = "PELT utilization of the task's sched_entity, 0..1024 scaled to CPU capacity: the kernel's value as of its last update, for a sleeping task decayed to the sample as the kernel will at its next look (see pelt_age_ns)",
		.sort_desc = true,
		TASK(util_avg, COL_U32), .tui_default = true, .tui_rank = 0,
	}, {
		.name = "runnable_avg", .title = "RUNNABLE", .width = 8,
		.desc = "PELT runnable average of the task's sched_entity: like util_avg but also counting time spent waiting on a runqueue, 0..1024; decayed like util_avg while asleep",
		.sort_desc = true,
		TASK(runnable_avg, COL_U32), .tui_default = true, .tui_rank = 4,
	}, {
		.name = "load_avg", .title = "LOAD", .width = 6,
		.desc = "PELT load average of the task's sched_entity: runnable time weighted by the task's nice weight (1024 at nice 0); decayed like util_avg while asleep",
		.sort_desc = true,
		TASK(load_avg, COL_U64), .tui_default = true, .tui_rank = 5,
	}, {
		.name = "util_est", .title = "UTIL_EST", .width = 8,
		.desc = "Estimated utilization the scheduler places the task by (se.avg.util_est, before Linux 6.7 the larger of its ewma and enqueued fields), 0..1024",
		.sort_desc = true,
		TASK(util_est, COL_U32),
		.avail = SCHEDSTAT_AVAIL_UTIL_EST, .tui_default = true, .tui_rank = 5,
	}, {
		.name = "run_ns", .title = "RUN_MS", .width = 10,
		.desc = "Time on CPU during the interval (delta of se.sum_exec_runtime), ns",
		.sort_desc = true,
		TASK(run_ns, COL_NS),
	}, {
		.name = "wait_ns", .title = "WAIT_MS", .width = 10,
		.desc = "Time runnable but waiting on a runqueue during the interval (delta of sched_info.run_delay), ns",
		.sort_desc = true,
		TASK(wait_ns, COL_NS), .tui_default = true, .tui_rank = 4,
	}, {
		.name = "wakeups", .title = "WAKEUPS", .width = 7,
		.desc = "Times the task was woken during the interval: its sleeps that ended (voluntary context switches), or with --exact-wakeups every sched_waking and sched_wakeup_new",
		.sort_desc = true,
		TASK(wakeups, COL_U64), .tui_default = true, .tui_rank = 6,
	}, {
		.name = "migrations", .title = "MIGR", .width = 5,
		.desc = "Times the task moved to another CPU during the interval (delta of se.nr_migrations)",
		.sort_desc = true,
		TASK(migrations, COL_U64), .tui_default = true, .tui_rank = 6,
	},
	/* Extra columns: append only. */
	{
		.name = "prio", .title = "PRIO", .width = 4,
		.desc = "Kernel priority p->prio, lower runs first: -1 deadline, 0..99 real-time, 100..139 normal (120 is nice 0)",
		TASK(prio, COL_I32),
	}, {
		.name = "running", .title = "ONCPU", .width = 5,
		.desc = "1 if the task was on a CPU at the instant of the sample, else 0",
		.sort_desc = true,
		TASK(running, COL_BOOL),
	}, {
		.name = "exited", .title = "EXIT", .width = 4,
		.desc = "1 if the task exited during the interval (its last row, with the counters of its exit), else 0",
		.sort_desc = true,
		TASK(exited, COL_BOOL),
	}, {
		.name = "nvcsw", .title = "NVCSW", .width = 6,
		.desc = "Voluntary context switches during the interval, the task blocked or yielded (delta of nvcsw)",
		.sort_desc = true,
		TASK(nvcsw, COL_U64),
	}, {
		.name = "nivcsw", .title = "NIVCSW", .width = 6,
		.desc = "Involuntary context switches during the interval, the task was preempted (delta of nivcsw)",
		.sort_desc = true,
		TASK(nivcsw, COL_U64),
	}, {
		.name = "pelt_age_ns", .title = "AGE_MS", .width = 10,
		.desc = "Time since the entity's PELT signals were last updated by the kernel, on the CPU's PELT clock at the sample, ns",
		.sort_desc = true,
		TASK(pelt_age_ns, COL_NS),
	}, {
		.name = "cpu_pct", .title = "%CPU", .width = 5,
		.desc = "run_ns over the interval: percent of one CPU the task used",
		.sort_desc = true,
		TASK(cpu_pct, COL_PCT), .tui_default = true, .tui_rank = 1,
	}, {
		.name = "up_migrations", .title = "UP", .width = 3,
		.desc = "Migrations during the interval to a CPU of a cluster with more capacity (sched_migrate_task events)",
		.sort_desc = true,
		TASK(up_migrations, COL_U32), .tui_default = true, .tui_rank = 7,
	}, {
		.name = "down_migrations", .title = "DOWN", .width = 4,
		.desc = "Migrations during the interval to a CPU of a cluster with less capacity",
		.sort_desc = true,
		TASK(down_migrations, COL_U32), .tui_default = true, .tui_rank = 7,
	}, {
		.name = "misfit", .title = "MISFIT", .width = 6,
		.desc = "1 if the task is queued and its util (max of util_avg and util_est) does not fit its CPU's capacity with the kernel's 20% margin while a cluster of more capacity exists",
		.sort_desc = true,
		TASK(misfit, COL_BOOL),
	}, {
		.name = "pelt_estimated", .title = "EST", .width = 3,
		.desc = "1 if util_avg, runnable_avg and load_avg come from schedtop's own PELT engine fed by sched events (--source=tracefs, trace files) rather than from the kernel",
		TASK(pelt_estimated, COL_BOOL),
	},
};

static const struct column cpu_cols[] = {
	TS_COLUMN,
	{
		.name = "cpu", .title = "CPU", .width = 4,
		.desc = "CPU number",
		CPU(cpu, COL_I32), .tui_default = true,
	}, {
		.name = "cluster", .title = "CLUSTER", .width = 7,
		.desc = "Name of the cluster the CPU belongs to",
		CPU(cluster, COL_CLUSTER), .tui_default = true,
	}, {
		.name = "online", .title = "ONLINE", .width = 6,
		.desc = "1 if the CPU is online, else 0",
		CPU(online, COL_BOOL),
	}, {
		.name = "capacity", .title = "CAP", .width = 4,
		.desc = "Original capacity of the CPU (cpu_capacity in sysfs, or the --topology override), 0..1024",
		.sort_desc = true,
		CPU(capacity, COL_U32), .tui_default = true,
	}, {
		.name = "util_avg", .title = "UTIL", .width = 4,
		.desc = "PELT utilization of the CPU's root cfs_rq (CFS tasks) as of its last kernel update, in capacity units",
		.sort_desc = true,
		CPU(util_avg, COL_U32),
		.avail = SCHEDSTAT_AVAIL_CFS, .tui_default = true,
	}, {
		.name = "runnable_avg", .title = "RUNNABLE", .width = 8,
		.desc = "PELT runnable average of the root cfs_rq as of its last kernel update: like util_avg but also counting tasks waiting to run, so above util_avg under contention",
		.sort_desc = true,
		CPU(runnable_avg, COL_U32),
		.avail = SCHEDSTAT_AVAIL_CFS, .tui_default = true,
	}, {
		.name = "load_avg", .title = "LOAD", .width = 7,
		.desc = "PELT load average of the root cfs_rq as of its last kernel update: runnable time weighted by nice weight (1024 per nice-0 task)",
		.sort_desc = true,
		CPU(load_avg, COL_U64),
		.avail = SCHEDSTAT_AVAIL_CFS,
	}, {
		.name = "blocked_util", .title = "BLK_UTIL", .width = 8,
		.desc = "Utilization still held on this CPU's root cfs_rq by sleeping tasks, decayed to the sample time, in capacity units (see docs/signals.md)",
		.sort_desc = true,
		CPU(blocked_util, COL_U32),
		.avail = SCHEDSTAT_AVAIL_CFS, .tui_default = true,
	}, {
		.name = "blocked_load", .title = "BLK_LOAD", .width = 8,
		.desc = "Load still held on this CPU's root cfs_rq by sleeping tasks, decayed to the sample time (see docs/signals.md)",
		.sort_desc = true,
		CPU(blocked_load, COL_U64),
		.avail = SCHEDSTAT_AVAIL_CFS,
	}, {
		.name = "rt_util", .title = "RT", .width = 4,
		.desc = "PELT utilization of real-time tasks on this CPU (rq->avg_rt.util_avg), in capacity units",
		.sort_desc = true,
		CPU(rt_util, COL_U32),
		.avail = SCHEDSTAT_AVAIL_RT, .tui_default = true,
	}, {
		.name = "dl_util", .title = "DL", .width = 4,
		.desc = "PELT utilization of deadline tasks on this CPU (rq->avg_dl.util_avg), in capacity units",
		.sort_desc = true,
		CPU(dl_util, COL_U32),
		.avail = SCHEDSTAT_AVAIL_DL, .tui_default = true,
	}, {
		.name = "irq_util", .title = "IRQ", .width = 4,
		.desc = "PELT utilization of interrupt handling on this CPU (rq->avg_irq.util_avg), in capacity units",
		.sort_desc = true,
		CPU(irq_util, COL_U32),
		.avail = SCHEDSTAT_AVAIL_IRQ, .tui_default = true,
	}, {
		.name = "nr_running", .title = "NR_RUN", .width = 6,
		.desc = "Tasks queued on this CPU at the sample, the running one included (rq->nr_running; counted from the tasks for the event sources)",
		.sort_desc = true,
		CPU(nr_running, COL_U32), .tui_default = true,
	},
	/* Extra columns: append only. */
	{
		.name = "capacity_cfs", .title = "CAP_CFS", .width = 7,
		.desc = "Capacity left for CFS tasks after rt, dl, irq and hardware pressure (rq->cpu_capacity), in capacity units",
		.sort_desc = true,
		CPU(capacity_cfs, COL_U32),
		.avail = SCHEDSTAT_AVAIL_CAPACITY_CFS,
	}, {
		.name = "util_est", .title = "UTIL_EST", .width = 8,
		.desc = "Estimated utilization of the CPU's root cfs_rq (cfs.avg.util_est, util_est.enqueued before 6.8): the util_est of the fair tasks queued on it, as the kernel's util_est_enqueue() sums it, in capacity units",
		.sort_desc = true,
		CPU(util_est, COL_U32),
		.avail = SCHEDSTAT_AVAIL_UTIL_EST,
	}, {
		.name = "hw_pressure", .title = "HW", .width = 4,
		.desc = "Capacity lost to hardware (thermal) capping, PELT-averaged (rq->avg_hw or rq->avg_thermal), in capacity units",
		.sort_desc = true,
		CPU(hw_pressure, COL_U32),
		.avail = SCHEDSTAT_AVAIL_HW,
	}, {
		.name = "busy_ns", .title = "BUSY_MS", .width = 10,
		.desc = "Time the CPU ran anything but its idle task during the interval, ns: the kernel's idle accounting (tick_sched, or /proc/stat at 1/USER_HZ resolution where per-CPU symbols are not in kallsyms); from sched_switch for the event sources",
		.sort_desc = true,
		CPU(busy_ns, COL_NS), .tui_default = true,
		.avail = SCHEDSTAT_AVAIL_BUSY,
	}, {
		.name = "nr_switches", .title = "SWITCHES", .width = 8,
		.desc = "Context switches on this CPU during the interval (rq->nr_switches)",
		.sort_desc = true,
		CPU(nr_switches, COL_U64),
	}, {
		.name = "nr_preempt", .title = "PREEMPT", .width = 7,
		.desc = "Context switches on this CPU during the interval where the outgoing task was still runnable (involuntary); the kernel does not count them per CPU, so only with --exact-wakeups (a program on sched_switch) or the event sources",
		.sort_desc = true,
		CPU(nr_preempt, COL_U64),
		.avail = SCHEDSTAT_AVAIL_PREEMPT,
	}, {
		.name = "dropped", .title = "DROPPED", .width = 7,
		.desc = "Ring buffer reserves that failed on this CPU during the interval (events lost)",
		.sort_desc = true,
		CPU(dropped, COL_U64),
	}, {
		.name = "hotplug_ops", .title = "HP_OPS", .width = 6,
		.desc = "CPU hotplug operations (offline or online) on this CPU started during the interval, from the cpuhp tracepoints",
		.sort_desc = true,
		CPU(hotplug_ops, COL_U32),
		.avail = SCHEDSTAT_AVAIL_HOTPLUG,
	}, {
		.name = "hotplug_ns", .title = "HP_MS", .width = 7,
		.desc = "How long the latest hotplug operation on this CPU took, from its first cpuhp_enter to its last cpuhp_exit (so far, if it goes on past the sample), ns; 0 if none ran during the interval",
		.sort_desc = true,
		CPU(hotplug_ns, COL_NS),
		.avail = SCHEDSTAT_AVAIL_HOTPLUG,
	}, {
		.name = "hotplug_to", .title = "HP_TO", .width = 7,
		.desc = "Where the latest hotplug operation on this CPU during the interval took it, online or offline, from the direction of its cpuhp steps (not from the online state at the sample); blank if none ran",
		CPU(hotplug_to, COL_STR),
		.avail = SCHEDSTAT_AVAIL_HOTPLUG,
	}, {
		.name = "freq_khz", .title = "FREQ", .width = 8,
		.desc = "CPU clock at the sample, kHz: the latest power:cpu_frequency event, or the policy's scaling_cur_freq where the event never fired",
		.sort_desc = true,
		CPU(freq_khz, COL_U32),
		.avail = SCHEDSTAT_AVAIL_FREQ,
	}, {
		.name = "freq_avg_khz", .title = "FREQ_AVG", .width = 8,
		.desc = "Time-weighted mean clock over the interval from the power:cpu_frequency events, kHz (the sampled value where only scaling_cur_freq is known)",
		.sort_desc = true,
		CPU(freq_avg_khz, COL_U32),
		.avail = SCHEDSTAT_AVAIL_FREQ,
	}, {
		.name = "idle0_ns", .title = "IDLE0_MS", .width = 9,
		.desc = "Time in idle state 0 during the interval (cpuidle sysfs stateK/time; power:cpu_idle for the event sources), ns",
		.sort_desc = true,
		CPU(idle_state_ns[0], COL_NS),
		.avail = SCHEDSTAT_AVAIL_IDLE,
	}, {
		.name = "idle1_ns", .title = "IDLE1_MS", .width = 9,
		.desc = "Time in idle state 1 during the interval (cpuidle sysfs stateK/time; power:cpu_idle for the event sources), ns",
		.sort_desc = true,
		CPU(idle_state_ns[1], COL_NS),
		.avail = SCHEDSTAT_AVAIL_IDLE,
	}, {
		.name = "idle2_ns", .title = "IDLE2_MS", .width = 9,
		.desc = "Time in idle state 2 during the interval (cpuidle sysfs stateK/time; power:cpu_idle for the event sources), ns",
		.sort_desc = true,
		CPU(idle_state_ns[2], COL_NS),
		.avail = SCHEDSTAT_AVAIL_IDLE,
	}, {
		.name = "idle3_ns", .title = "IDLE3_MS", .width = 9,
		.desc = "Time in idle state 3 and deeper during the interval (cpuidle sysfs stateK/time; power:cpu_idle for the event sources), ns",
		.sort_desc = true,
		CPU(idle_state_ns[3], COL_NS),
		.avail = SCHEDSTAT_AVAIL_IDLE,
	}, {
		.name = "pelt_estimated", .title = "EST", .width = 3,
		.desc = "1 if util_avg, runnable_avg, load_avg and blocked_util come from schedtop's own PELT engine fed by sched events (--source=tracefs, trace files) rather than from the kernel",
		CPU(pelt_estimated, COL_BOOL),
	}, {
		.name = "power_mw", .title = "POWER_MW", .width = 8,
		.desc = "This CPU's part of its cluster's power_mw: its busy time times the power of the OPP at its clock plus its idle time times the idle power, over the interval, mW",
		.sort_desc = true,
		CPU(power_mw, COL_PCT),
		.avail = SCHEDSTAT_AVAIL_ENERGY,
	}, {
		.name = "eas_power_mw", .title = "EAS_MW", .width = 8,
		.desc = "This CPU's part of its cluster's eas_power_mw: its util over the performance of the OPP EAS chose for the cluster, times that OPP's power, mW",
		.sort_desc = true,
		CPU(eas_power_mw, COL_PCT),
		.avail = SCHEDSTAT_AVAIL_ENERGY,
	},
};

static const struct column cluster_cols[] = {
	TS_COLUMN,
	{
		.name = "cluster", .title = "CLUSTER", .width = 8,
		.desc = "Cluster name; clusters are listed by ascending CPU capacity",
		CLUSTER(name, COL_STR), .tui_default = true,
	}, {
		.name = "cpus", .title = "CPUS", .width = 12,
		.desc = "CPUs of the cluster in the kernel's CPU-list form, e.g. 0-3,6",
		CLUSTER(cpus, COL_STR), .tui_default = true,
	}, {
		.name = "capacity", .title = "CAPACITY", .width = 8,
		.desc = "Sum of the original capacities of the cluster's online CPUs",
		.sort_desc = true,
		CLUSTER(capacity, COL_U32), .tui_default = true,
	}, {
		.name = "util_pct", .title = "UTIL%", .width = 6,
		.desc = "Sum of the cluster's online CPUs' cfs+rt+dl+irq util_avg over the sum of their capacities, percent; empty unless every online CPU's cfs util is known (rt, dl, irq count as 0 where the kernel does not keep them)",
		.sort_desc = true,
		CLUSTER(util_pct, COL_PCT), .tui_default = true,
		.avail = SCHEDSTAT_AVAIL_CFS,
	}, {
		.name = "nr_running", .title = "NR_RUN", .width = 6,
		.desc = "Tasks queued on the cluster's CPUs at the sample, running ones included",
		.sort_desc = true,
		CLUSTER(nr_running, COL_U32), .tui_default = true,
	}, {
		.name = "overutilized", .title = "OVERUTIL", .width = 8,
		.desc = "1 if the kernel's root domain is overutilized (root_domain.overutilized at the sample; set only where EAS runs on recent kernels), else 0",
		.sort_desc = true,
		CLUSTER(overutilized, COL_I32),
		.avail = SCHEDSTAT_AVAIL_OVERUTILIZED, .tui_default = true,
	},
	/* Extra columns: append only. */
	{
		.name = "nr_online", .title = "ONLINE", .width = 6,
		.desc = "Online CPUs in the cluster",
		.sort_desc = true,
		CLUSTER(nr_online, COL_U32), .tui_default = true,
	}, {
		.name = "overutilized_ns", .title = "OU_MS", .width = 7,
		.desc = "Time the root domain was overutilized during the interval (the same for every cluster), from sched_overutilized_tp, ns",
		.sort_desc = true,
		CLUSTER(overutilized_ns, COL_NS),
		.avail = SCHEDSTAT_AVAIL_OVERUTILIZED_NS,
	}, {
		.name = "busy_pct", .title = "BUSY%", .width = 6,
		.desc = "Time the cluster's online CPUs ran anything but idle, over the interval times their number, percent",
		.sort_desc = true,
		CLUSTER(busy_pct, COL_PCT), .tui_default = true,
		.avail = SCHEDSTAT_AVAIL_BUSY,
	}, {
		.name = "misfit_tasks", .title = "MISFIT", .width = 6,
		.desc = "Queued tasks on the cluster's CPUs that are misfit (see the task table's misfit)",
		.sort_desc = true,
		CLUSTER(misfit_tasks, COL_U32), .tui_default = true,
	}, {
		.name = "up_migrations", .title = "UP", .width = 4,
		.desc = "Migrations during the interval into this cluster from one of less capacity",
		.sort_desc = true,
		CLUSTER(up_migrations, COL_U32), .tui_default = true,
	}, {
		.name = "down_migrations", .title = "DOWN", .width = 4,
		.desc = "Migrations during the interval into this cluster from one of more capacity",
		.sort_desc = true,
		CLUSTER(down_migrations, COL_U32), .tui_default = true,
	}, {
		.name = "freq_khz", .title = "FREQ", .width = 8,
		.desc = "Clock of the cluster's online CPUs at the sample (the highest, should they differ), kHz",
		.sort_desc = true,
		CLUSTER(freq_khz, COL_U32),
		.avail = SCHEDSTAT_AVAIL_FREQ,
	}, {
		.name = "freq_avg_khz", .title = "FREQ_AVG", .width = 8,
		.desc = "Time-weighted mean clock over the interval of that CPU, kHz",
		.sort_desc = true,
		CLUSTER(freq_avg_khz, COL_U32),
		.avail = SCHEDSTAT_AVAIL_FREQ,
	}, {
		.name = "power_mw", .title = "POWER_MW", .width = 8,
		.desc = "Estimated average power over the interval from residency: each online CPU's busy time times the power of the OPP at its clock (the highest OPP where the clock is unknown), plus idle time times the model's idle power, mW (docs/signals.md)",
		.sort_desc = true,
		CLUSTER(power_mw, COL_PCT), .tui_default = true,
		.avail = SCHEDSTAT_AVAIL_ENERGY,
	}, {
		.name = "eas_power_mw", .title = "EAS_MW", .width = 8,
		.desc = "Average power as EAS estimates it (em_cpu_energy): the OPP whose performance covers the cluster's highest CPU util times 1.25, times the cluster's summed util over that OPP's performance, mW",
		.sort_desc = true,
		CLUSTER(eas_power_mw, COL_PCT),
		.avail = SCHEDSTAT_AVAIL_ENERGY,
	}, {
		.name = "energy_uj", .title = "ENERGY_UJ", .width = 10,
		.desc = "Energy over the interval from power_mw, uJ",
		.sort_desc = true,
		CLUSTER(energy_uj, COL_PCT),
		.avail = SCHEDSTAT_AVAIL_ENERGY,
	},
};

#define GROUP(m, t)	FIELD(struct schedstat_group, m, t)

static const struct column group_cols[] = {
	TS_COLUMN,
	{
		.name = "cgroup_id", .title = "CGROUP_ID", .width = 10,
		.desc = "Kernel id of the cgroup (the inode of its cgroupfs directory)",
		GROUP(cgroup_id, COL_U64),
	}, {
		.name = "cgroup", .title = "CGROUP", .width = 24,
		.desc = "Path of the cgroup below its cgroupfs mount, empty if it is gone",
		GROUP(path, COL_STR), .tui_default = true,
	}, {
		.name = "cpu", .title = "CPU", .width = 4,
		.desc = "CPU whose cfs_rq this group entity is queued on",
		GROUP(cpu, COL_I32), .tui_default = true,
	}, {
		.name = "cluster", .title = "CLUSTER", .width = 7,
		.desc = "Name of the cluster of that CPU, empty if the CPU is in no cluster",
		GROUP(cluster, COL_CLUSTER), .tui_default = true,
	}, {
		.name = "depth", .title = "DEPTH", .width = 5,
		.desc = "Nesting of the group entity: 0 for a child of the root task group",
		GROUP(depth, COL_U32),
	}, {
		.name = "util_avg", .title = "UTIL", .width = 4,
		.desc = "PELT utilization of the group entity (that of its cfs_rq, propagated unscaled) as of its last update, in capacity units",
		.sort_desc = true,
		GROUP(util_avg, COL_U32), .tui_default = true,
	}, {
		.name = "runnable_avg", .title = "RUNNABLE", .width = 8,
		.desc = "PELT runnable average of the group entity as of its last update",
		.sort_desc = true,
		GROUP(runnable_avg, COL_U32), .tui_default = true,
	}, {
		.name = "load_avg", .title = "LOAD", .width = 6,
		.desc = "PELT load of the group entity: the group's share of its parent, weighted by cpu.weight",
		.sort_desc = true,
		GROUP(load_avg, COL_U64), .tui_default = true,
	}, {
		.name = "age_ns", .title = "AGE_MS", .width = 10,
		.desc = "Time since the kernel last updated the group entity's PELT values (pelt_se_tp), ns",
		GROUP(age_ns, COL_NS),
	},
};

#define MIGRATION(m, t)	FIELD(struct schedstat_migration, m, t)

static const struct column migration_cols[] = {
	TS_COLUMN,
	{
		.name = "from_cluster", .title = "FROM", .width = 8,
		.desc = "Cluster the tasks left",
		MIGRATION(from, COL_CLUSTER), .tui_default = true,
	}, {
		.name = "to_cluster", .title = "TO", .width = 8,
		.desc = "Cluster the tasks moved to (every ordered pair of different clusters has a row, every interval)",
		MIGRATION(to, COL_CLUSTER), .tui_default = true,
	}, {
		.name = "count", .title = "COUNT", .width = 6,
		.desc = "sched_migrate_task events from one to the other during the interval",
		.sort_desc = true,
		MIGRATION(count, COL_U32), .tui_default = true,
	}, {
		.name = "per_sec", .title = "PER_SEC", .width = 8,
		.desc = "The same count per second of the interval",
		.sort_desc = true,
		MIGRATION(per_sec, COL_PCT), .tui_default = true,
	},
};

#define FREQ(m, t)	FIELD(struct schedstat_freq_residency, m, t)

static const struct column freq_cols[] = {
	TS_COLUMN,
	{
		.name = "cluster", .title = "CLUSTER", .width = 8,
		.desc = "Cluster whose clock this is (read on its first online CPU)",
		FREQ(cluster, COL_CLUSTER), .tui_default = true,
	}, {
		.name = "freq_khz", .title = "FREQ", .width = 8,
		.desc = "A frequency the cluster ran at since schedtop started, kHz: cpufreq's own stats/time_in_state where the kernel keeps it, else power:cpu_frequency",
		.sort_desc = true,
		FREQ(khz, COL_U32), .tui_default = true,
	}, {
		.name = "time_ns", .title = "TIME_MS", .width = 8,
		.desc = "Time at that frequency during the interval, ns",
		.sort_desc = true,
		FREQ(ns, COL_NS), .tui_default = true,
	},
};

#define PELT(m, t)	FIELD(struct schedstat_pelt_update, m, t)

/* One row per PELT update (--pelt-trace): its own time, not a sample's. */
static const struct column pelt_cols[] = {
	{
		.name = "ts_ns", .title = "TS_NS", .width = 14,
		.desc = "CLOCK_MONOTONIC time of the update (bpf_ktime_get_ns() in the tracepoint), ns; rows are in this order across CPUs",
		PELT(ts_ns, COL_U64),
	}, {
		.name = "cpu", .title = "CPU", .width = 4,
		.desc = "CPU whose runqueue the entity is on (for a task: where the update ran)",
		PELT(cpu, COL_I32), .tui_default = true,
	}, {
		.name = "pid", .title = "PID", .width = 7,
		.desc = "Thread id of a task's entity",
		PELT(pid, COL_I32), .avail = SCHEDSTAT_AVAIL_PELT_TASK,
		.tui_default = true,
	}, {
		.name = "tgid", .title = "TGID", .width = 7,
		.desc = "Process id of a task's entity",
		PELT(tgid, COL_I32), .avail = SCHEDSTAT_AVAIL_PELT_TASK,
	}, {
		.name = "comm", .title = "COMM", .width = 15,
		.desc = "Task name at the update, control characters replaced by '?'",
		PELT(comm, COL_STR), .avail = SCHEDSTAT_AVAIL_PELT_TASK,
		.tui_default = true,
	}, {
		.name = "entity", .title = "ENTITY", .width = 6,
		.desc = "What was updated: task (pelt_se_tp), or the CPU's cfs (root cfs_rq, pelt_cfs_tp), rt, dl or irq (pelt_rt_tp, pelt_dl_tp, pelt_irq_tp)",
		PELT(entity, COL_STR), .tui_default = true,
	}, {
		.name = "util_avg", .title = "UTIL", .width = 5,
		.desc = "sched_avg.util_avg right after the update (0..1024)",
		.sort_desc = true,
		PELT(util_avg, COL_U32), .tui_default = true,
	}, {
		.name = "runnable_avg", .title = "RUNNABLE", .width = 8,
		.desc = "sched_avg.runnable_avg right after the update",
		.sort_desc = true,
		PELT(runnable_avg, COL_U32), .tui_default = true,
	}, {
		.name = "load_avg", .title = "LOAD", .width = 7,
		.desc = "sched_avg.load_avg right after the update",
		.sort_desc = true,
		PELT(load_avg, COL_U64), .tui_default = true,
	}, {
		.name = "util_est", .title = "UTIL_EST", .width = 8,
		.desc = "util_est as the kernel uses it (task: max of ewma and enqueued; cfs: the runqueue's sum); empty for rt, dl and irq, which keep none",
		.sort_desc = true,
		PELT(util_est, COL_U32), .avail = SCHEDSTAT_AVAIL_UTIL_EST,
		.tui_default = true,
	}, {
		.name = "last_update_ns", .title = "LAST_UPD", .width = 10,
		.desc = "sched_avg.last_update_time: the CPU's PELT clock (rq_clock_pelt(), which stops while idle and runs slower at low capacity), not CLOCK_MONOTONIC, ns",
		PELT(last_update_ns, COL_NS),
	},
};

const struct column_table task_table = {
	.name = "task",
	.cols = task_cols,
	.nr_cols = ARRAY_SIZE(task_cols),
	.row_size = sizeof(struct schedstat_task),
};

const struct column_table cpu_table = {
	.name = "cpu",
	.cols = cpu_cols,
	.nr_cols = ARRAY_SIZE(cpu_cols),
	.row_size = sizeof(struct schedstat_cpu),
};

const struct column_table cluster_table = {
	.name = "cluster",
	.cols = cluster_cols,
	.nr_cols = ARRAY_SIZE(cluster_cols),
	.row_size = sizeof(struct schedstat_cluster),
};

const struct column_table group_table = {
	.name = "group",
	.cols = group_cols,
	.nr_cols = ARRAY_SIZE(group_cols),
	.row_size = sizeof(struct schedstat_group),
};

const struct column_table migration_table = {
	.name = "migration",
	.cols = migration_cols,
	.nr_cols = ARRAY_SIZE(migration_cols),
	.row_size = sizeof(struct schedstat_migration),
};

const struct column_table freq_table = {
	.name = "freq",
	.cols = freq_cols,
	.nr_cols = ARRAY_SIZE(freq_cols),
	.row_size = sizeof(struct schedstat_freq_residency),
};

const struct column_table pelt_table = {
	.name = "pelt",
	.cols = pelt_cols,
	.nr_cols = ARRAY_SIZE(pelt_cols),
	.row_size = sizeof(struct schedstat_pelt_update),
};

const struct column_table *const column_tables[] = {
	&task_table, &cpu_table, &cluster_table, &group_table,
	&migration_table, &freq_table, &pelt_table,
};
const size_t column_nr_tables = ARRAY_SIZE(column_tables);

const struct column_table *column_table_find(const char *name)
{
	for (size_t i = 0; name && i < column_nr_tables; i++)
		if (!strcmp(column_tables[i]->name, name))
			return column_tables[i];
	return NULL;
}

const struct column *column_find(const struct column_table *t, const char *name)
{
	for (size_t i = 0; name && i < t->nr_cols; i++)
		if (!strcmp(t->cols[i].name, name))
			return &t->cols[i];
	return NULL;
}

/* Signals that no one tracepoint gives (those: schedstat_tracepoints()). */
static const struct {
	uint32_t bit;
	const char *note;
} avail_notes[] = {
	{ SCHEDSTAT_AVAIL_CFS,
	  "empty if the CPU's runqueue could not be read (see docs/signals.md)" },
	{ SCHEDSTAT_AVAIL_RT,
	  "empty if the CPU's runqueue could not be read" },
	{ SCHEDSTAT_AVAIL_DL,
	  "empty if the CPU's runqueue could not be read" },
	{ SCHEDSTAT_AVAIL_IRQ,
	  "empty if the kernel keeps no rq->avg_irq (no IRQ_TIME_ACCOUNTING or PARAVIRT_TIME_ACCOUNTING)" },
	{ SCHEDSTAT_AVAIL_HW,
	  "empty if the kernel keeps no rq->avg_hw (avg_thermal before Linux 6.10): no SCHED_HW_PRESSURE (SCHED_THERMAL_PRESSURE)" },
	{ SCHEDSTAT_AVAIL_CAPACITY_CFS,
	  "empty if the CPU's runqueue could not be read" },
	{ SCHEDSTAT_AVAIL_OVERUTILIZED,
	  "empty if the runqueue's root domain could not be read" },
	{ SCHEDSTAT_AVAIL_BUSY,
	  "empty if neither tick_sched nor /proc/stat gives the CPU's idle time" },
	{ SCHEDSTAT_AVAIL_FREQ,
	  "empty where neither power:cpu_frequency nor cpufreq's scaling_cur_freq tells the clock (no cpufreq)" },
	{ SCHEDSTAT_AVAIL_IDLE,
	  "empty where the CPU has no cpuidle states in sysfs (cpuN/cpuidle/stateK/time); from power:cpu_idle for the event sources" },
	{ SCHEDSTAT_AVAIL_PELT_TASK,
	  "empty for a CPU's entity (cfs, rt, dl, irq)" },
	{ SCHEDSTAT_AVAIL_UTIL_EST,
	  "empty if the kernel's sched_entity has no util_est" },
	{ SCHEDSTAT_AVAIL_ENERGY,
	  "empty without an energy model (debugfs energy_model/ or --energy-model FILE) for the cluster, or when the CPUs' busy time is unknown" },
};

const char *column_avail_note(uint32_t avail)
{
	size_t nr;
	const struct schedstat_tracepoint *tp = schedstat_tracepoints(&nr);

	for (size_t i = 0; avail && i < nr; i++)
		if (tp[i].bpf_avail == avail && tp[i].missing)
			return tp[i].missing;
	for (size_t i = 0; i < ARRAY_SIZE(avail_notes); i++)
		if (avail_notes[i].bit == avail)
			return avail_notes[i].note;
	return NULL;
}

/* Integer-like values widened for comparing; strings are handled apart. */
static double column_number(const struct column *c, const void *row)
{
	const unsigned char *p = (const unsigned char *)row + c->offset;
	union {
		uint32_t u32;
		uint64_t u64;
		int32_t i32;
		double d;
	} v = {};

	switch (c->type) {
	case COL_U32:
		memcpy(&v.u32, p, sizeof(v.u32));
		return v.u32;
	case COL_U64:
	case COL_NS:
		memcpy(&v.u64, p, sizeof(v.u64));
		return v.u64;
	case COL_I32:
	case COL_CLUSTER:
		memcpy(&v.i32, p, sizeof(v.i32));
		return v.i32;
	case COL_BOOL:
	case COL_CHAR:
		return *p;
	case COL_PCT:
		memcpy(&v.d, p, sizeof(v.d));
		return isfinite(v.d) ? v.d : -1;
	default:
		return 0;
	}
}

int column_cmp(const struct column *c, const void *a, const void *b)
{
	double x, y;

	if (c->type == COL_STR)
		return strncmp((const char *)a + c->offset,
			       (const char *)b + c->offset, c->size);
	x = column_number(c, a);
	y = column_number(c, b);
	return (x > y) - (x < y);
}

void column_text(const struct column *c, const struct schedstat_topology *topo,
		 uint32_t avail, const void *row, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)row + c->offset;
	double v;

	if (c->avail && !(avail & c->avail)) {
		snprintf(buf, size, "-");
		return;
	}
	switch (c->type) {
	case COL_STR:
		snprintf(buf, size, "%.*s", (int)c->size, (const char *)p);
		return;
	case COL_CHAR:
		snprintf(buf, size, "%c", *p ? *p : ' ');
		return;
	case COL_CLUSTER: {
		int32_t idx;
		const char *name = NULL;

		memcpy(&idx, p, sizeof(idx));
		if (idx >= 0 && topo)
			name = schedstat_topology_cluster_name(topo, idx);
		snprintf(buf, size, "%s", name ? name : "-");
		return;
	}
	case COL_NS: {
		uint64_t ns;

		memcpy(&ns, p, sizeof(ns));
		snprintf(buf, size, "%.1f", ns / 1e6);
		return;
	}
	case COL_PCT:
		memcpy(&v, p, sizeof(v));
		snprintf(buf, size, isfinite(v) ? "%.1f" : "-", v);
		return;
	case COL_I32:
		if (c->avail && column_number(c, row) < 0) {
			snprintf(buf, size, "-");
			return;
		}
		/* fall through */
	default:
		snprintf(buf, size, "%.0f", column_number(c, row));
		return;
	case COL_TS:
		snprintf(buf, size, "-");
		return;
	}
}
