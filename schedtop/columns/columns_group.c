// SPDX-License-Identifier: GPL-2.0
/*
 * The group table: one row per task group entity on a CPU
 * (struct schedstat_group).
 * Append only: CSV column order is public. docs/csv.md carries a generated
 * copy of the names and descriptions (see columns.c).
 */
#include "columns_schema.h"

#define GROUP_CONST(f, m, t)	SCHEMA_CONST(GROUP, struct schedstat_group, f, m, t)
enum { SCHEDSTAT_GROUP_FIELDS(GROUP_CONST, GROUP_CONST) };
#define GROUP(f)		SCHEMA_COL(GROUP, f, GROUP_T_##f)
#define GROUP_AS(f, t)	SCHEMA_COL(GROUP, f, t)

static const struct column group_cols[] = {
	TS_COLUMN,
	{
		GROUP(cgroup_id), .title = "CGROUP_ID", .width = 10,
		.desc = "Kernel id of the cgroup (the inode of its cgroupfs directory)",
	}, {
		GROUP(cgroup), .title = "CGROUP", .width = 24,
		.desc = "Path of the cgroup below its cgroupfs mount, empty if it is gone",
		.tui_default = true,
	}, {
		GROUP(cpu), .title = "CPU", .width = 4,
		.desc = "CPU whose cfs_rq this group entity is queued on",
		.tui_default = true,
	}, {
		GROUP_AS(cluster, COL_CLUSTER), .title = "CLUSTER", .width = 7,
		.desc = "Name of the cluster of that CPU, empty if the CPU is in no cluster",
		.tui_default = true,
	}, {
		GROUP(depth), .title = "DEPTH", .width = 5,
		.desc = "Nesting of the group entity: 0 for a child of the root task group",
	}, {
		GROUP(util_avg), .title = "UTIL", .width = 4,
		.desc = "PELT utilization of the group entity (that of its cfs_rq, propagated unscaled) as the kernel keeps it at the sample, in capacity units",
		.sort_desc = true,
		.tui_default = true,
	}, {
		GROUP(runnable_avg), .title = "RUNNABLE", .width = 8,
		.desc = "PELT runnable average of the group entity as the kernel keeps it at the sample",
		.sort_desc = true,
		.tui_default = true,
	}, {
		GROUP(load_avg), .title = "LOAD", .width = 6,
		.desc = "PELT load of the group entity: the group's share of its parent, weighted by cpu.weight",
		.sort_desc = true,
		.tui_default = true,
	}, {
		GROUP_AS(age_ns, COL_NS), .title = "AGE_MS", .width = 10,
		.desc = "Time since the kernel last updated the group entity's PELT sums (its last_update_time, on its cfs_rq's PELT clock), ns",
	},
};

const struct column_table group_table = {
	.name = "group",
	.cols = group_cols,
	.nr_cols = ARRAY_SIZE(group_cols),
	.row_size = sizeof(struct schedstat_group),
};
