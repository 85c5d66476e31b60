// SPDX-License-Identifier: GPL-2.0
/*
 * The task table: one row per thread (struct schedstat_task).
 * Append only: CSV column order is public. docs/csv.md carries a generated
 * copy of the names and descriptions (see columns.c).
 */
#include "columns_schema.h"

#define TASK_CONST(f, m, t)	SCHEMA_CONST(TASK, struct schedstat_task, f, m, t)
enum { SCHEDSTAT_TASK_FIELDS(TASK_CONST, TASK_CONST) };
#define TASK(f)		SCHEMA_COL(TASK, f, TASK_T_##f)
#define TASK_AS(f, t)	SCHEMA_COL(TASK, f, t)

static const struct column task_cols[] = {
	TS_COLUMN,
	{
		TASK(pid), .title = "PID", .width = 7,
		.desc = "Thread ID (the kernel's pid)",
		.tui_default = true, .tui_rank = 0,
	}, {
		TASK(tgid), .title = "TGID", .width = 7,
		.desc = "Process ID: the thread group ID, pid of the group's leader",
	}, {
		TASK(comm), .title = "COMM", .width = 15,
		.desc = "Thread name (task comm, at most 15 bytes) with control characters replaced by '?'",
		.tui_default = true, .tui_rank = 0,
	}, {
		TASK(cpu), .title = "CPU", .width = 4,
		.desc = "CPU the task is running on, or last ran on",
		.avail = SCHEDSTAT_AVAIL_TASK_TIME,
		.tui_default = true, .tui_rank = 1,
	}, {
		TASK_AS(cluster, COL_CLUSTER), .title = "CLUSTER", .width = 7,
		.desc = "Name of the cluster of that CPU, empty if the CPU is in no cluster",
		.avail = SCHEDSTAT_AVAIL_TASK_TIME,
		.tui_default = true, .tui_rank = 3,
	}, {
		TASK(state), .title = "S", .width = 1,
		.desc = "R running/runnable, S sleeping, D uninterruptible, T stopped, t traced, X dead, Z zombie, P parked, I idle kernel thread, x died (its last switch out, as traces of kernels before 4.14 print it)",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.tui_default = true, .tui_rank = 2,
	}, {
		TASK(util_avg), .title = "UTIL", .width = 4,
		.desc = "PELT utilization of the task's sched_entity, 0..1024 scaled to CPU capacity: the kernel's value as of its last update, for a sleeping task decayed to the sample as the kernel will at its next look (see pelt_age_ns)",
		.sort_desc = true,
		.tui_default = true, .tui_rank = 0,
	}, {
		TASK(runnable_avg), .title = "RUNNABLE", .width = 8,
		.desc = "PELT runnable average of the task's sched_entity: like util_avg but also counting time spent waiting on a runqueue, 0..1024; decayed like util_avg while asleep",
		.sort_desc = true,
		.tui_default = true, .tui_rank = 4,
	}, {
		TASK(load_avg), .title = "LOAD", .width = 6,
		.desc = "PELT load average of the task's sched_entity: runnable time weighted by the task's nice weight (1024 at nice 0); decayed like util_avg while asleep",
		.sort_desc = true,
		.tui_default = true, .tui_rank = 5,
	}, {
		TASK(util_est), .title = "UTIL_EST", .width = 8,
		.desc = "Estimated utilization the scheduler places the task by (se.avg.util_est, before Linux 6.7 the larger of its ewma and enqueued fields), 0..1024",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_UTIL_EST, .tui_default = true, .tui_rank = 5,
	}, {
		TASK_AS(run_ns, COL_NS), .title = "RUN_MS", .width = 10,
		.desc = "Time on CPU during the interval (delta of se.sum_exec_runtime), ns",
		.avail = SCHEDSTAT_AVAIL_TASK_TIME,
		.sort_desc = true,
	}, {
		TASK_AS(wait_ns, COL_NS), .title = "WAIT_MS", .width = 10,
		.desc = "Time runnable but waiting on a runqueue during the interval (delta of sched_info.run_delay), ns",
		.avail = SCHEDSTAT_AVAIL_TASK_TIME,
		.sort_desc = true,
		.tui_default = true, .tui_rank = 4,
	}, {
		TASK(wakeups), .title = "WAKEUPS", .width = 7,
		.desc = "Times the task was woken during the interval: its sleeps that ended (voluntary context switches), or with --exact-wakeups every sched_waking and sched_wakeup_new",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.sort_desc = true,
		.tui_default = true, .tui_rank = 6,
	}, {
		TASK(migrations), .title = "MIGR", .width = 5,
		.desc = "Times the task moved to another CPU during the interval (delta of se.nr_migrations)",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.sort_desc = true,
		.tui_default = true, .tui_rank = 6,
	},
	/* Extra columns: append only. */
	{
		TASK(prio), .title = "PRIO", .width = 4,
		.desc = "Kernel priority p->prio, lower runs first: -1 deadline, 0..99 real-time, 100..139 normal (120 is nice 0)",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY, .negative_valid = true,
	}, {
		TASK(running), .title = "ONCPU", .width = 5,
		.desc = "1 if the task was on a CPU at the instant of the sample, else 0",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.sort_desc = true,
	}, {
		TASK(exited), .title = "EXIT", .width = 4,
		.desc = "1 if the task exited during the interval (its last row, with the counters of its exit), else 0",
		.sort_desc = true,
	}, {
		TASK(nvcsw), .title = "NVCSW", .width = 6,
		.desc = "Voluntary context switches during the interval, the task blocked or yielded (delta of nvcsw)",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.sort_desc = true,
	}, {
		TASK(nivcsw), .title = "NIVCSW", .width = 6,
		.desc = "Involuntary context switches during the interval, the task was preempted (delta of nivcsw)",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.sort_desc = true,
	}, {
		TASK_AS(pelt_age_ns, COL_NS), .title = "AGE_MS", .width = 10,
		.desc = "Time since the entity's PELT signals were last updated by the kernel, on the CPU's PELT clock at the sample, ns",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.sort_desc = true,
	}, {
		TASK(cpu_pct), .title = "%CPU", .width = 5,
		.desc = "run_ns over the interval: percent of one CPU the task used",
		.avail = SCHEDSTAT_AVAIL_TASK_TIME,
		.sort_desc = true,
		.tui_default = true, .tui_rank = 1,
	}, {
		TASK(up_migrations), .title = "UP", .width = 3,
		.desc = "Migrations during the interval to a CPU of a cluster with more capacity (sched_migrate_task events)",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.sort_desc = true,
		.tui_default = true, .tui_rank = 7,
	}, {
		TASK(down_migrations), .title = "DOWN", .width = 4,
		.desc = "Migrations during the interval to a CPU of a cluster with less capacity",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.sort_desc = true,
		.tui_default = true, .tui_rank = 7,
	}, {
		TASK(misfit), .title = "MISFIT", .width = 6,
		.desc = "1 if the task is queued and its util (max of util_avg and util_est) does not fit its CPU's capacity with the kernel's 20% margin while a cluster of more capacity exists, and, as the kernel reads the affinity, it may run on more than one CPU and (from 6.10) on one of more capacity than its own",
		.avail = SCHEDSTAT_AVAIL_TASK_TIME,
		.sort_desc = true,
	}, {
		TASK(pelt_estimated), .title = "EST", .width = 3,
		.desc = "1 if util_avg, runnable_avg and load_avg come from schedtop's own PELT engine fed by sched events (--source=tracefs, trace files) rather than from the kernel",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
	},
};

const struct column_table task_table = {
	.name = "task",
	.cols = task_cols,
	.nr_cols = ARRAY_SIZE(task_cols),
	.row_size = sizeof(struct schedstat_task),
};
