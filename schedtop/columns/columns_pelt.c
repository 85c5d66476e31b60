// SPDX-License-Identifier: GPL-2.0
/*
 * The pelt table: one row per PELT update of --pelt-trace (struct
 * schedstat_pelt_update). Its rows have no schema: their recording has a
 * coding of its own (record_pelt.c), so each column names its member.
 * Append only: CSV column order is public. docs/csv.md carries a generated
 * copy of the names and descriptions (see columns.c).
 */
#include "columns_schema.h"

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
		.desc = "What was updated: task (pelt_se_tp), group (a cgroup's entity on that CPU, pelt_se_tp, --pelt-cgroup), or the CPU's cfs (root cfs_rq, pelt_cfs_tp), rt, dl or irq (pelt_rt_tp, pelt_dl_tp, pelt_irq_tp)",
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
	}, {
		.name = "cgroup", .title = "CGROUP", .width = 16,
		.desc = "A group entity's cgroup, its path below the cgroup mount (as the group table); empty for other entities",
		PELT(cgroup, COL_STR),
	},
};

const struct column_table pelt_table = {
	.name = "pelt",
	.cols = pelt_cols,
	.nr_cols = ARRAY_SIZE(pelt_cols),
	.row_size = sizeof(struct schedstat_pelt_update),
};
