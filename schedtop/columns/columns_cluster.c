// SPDX-License-Identifier: GPL-2.0
/*
 * The tables of clusters: one row per cluster (struct schedstat_cluster),
 * per ordered pair of clusters (migrations) and per cluster and frequency
 * (residency).
 * Append only: CSV column order is public. docs/csv.md carries a generated
 * copy of the names and descriptions (see columns.c).
 */
#include "columns_schema.h"

#define CLUSTER_CONST(f, m, t)	SCHEMA_CONST(CLUSTER, struct schedstat_cluster, f, m, t)
enum { SCHEDSTAT_CLUSTER_FIELDS(CLUSTER_CONST, CLUSTER_CONST) };
#define CLUSTER(f)		SCHEMA_COL(CLUSTER, f, CLUSTER_T_##f)
#define CLUSTER_AS(f, t)	SCHEMA_COL(CLUSTER, f, t)

#define MIGRATION_CONST(f, m, t)	SCHEMA_CONST(MIGRATION, struct schedstat_migration, f, m, t)
enum { SCHEDSTAT_MIGRATION_FIELDS(MIGRATION_CONST, MIGRATION_CONST) };
#define MIGRATION(f)		SCHEMA_COL(MIGRATION, f, MIGRATION_T_##f)
#define MIGRATION_AS(f, t)	SCHEMA_COL(MIGRATION, f, t)

#define FREQ_CONST(f, m, t)	SCHEMA_CONST(FREQ, struct schedstat_freq_residency, f, m, t)
enum { SCHEDSTAT_FREQ_FIELDS(FREQ_CONST, FREQ_CONST) };
#define FREQ(f)		SCHEMA_COL(FREQ, f, FREQ_T_##f)
#define FREQ_AS(f, t)	SCHEMA_COL(FREQ, f, t)

static const struct column cluster_cols[] = {
	TS_COLUMN,
	{
		CLUSTER(cluster), .title = "CLUSTER", .width = 8,
		.desc = "Cluster name; clusters are listed by ascending CPU capacity",
		.tui_default = true,
	}, {
		CLUSTER(cpus), .title = "CPUS", .width = 12,
		.desc = "CPUs of the cluster in the kernel's CPU-list form, e.g. 0-3,6",
		.tui_default = true,
	}, {
		CLUSTER(capacity), .title = "CAPACITY", .width = 8,
		.desc = "Sum of the original capacities of the cluster's online CPUs",
		.sort_desc = true,
		.tui_default = true,
	}, {
		CLUSTER(util_pct), .title = "UTIL%", .width = 6,
		.desc = "Sum of the cluster's online CPUs' cfs+rt+dl+irq util_avg over the sum of their capacities, percent; empty unless every online CPU's cfs util is known (rt, dl, irq count as 0 where the kernel does not keep them)",
		.sort_desc = true,
		.tui_default = true,
		.avail = SCHEDSTAT_AVAIL_CFS,
	}, {
		CLUSTER(nr_running), .title = "NR_RUN", .width = 6,
		.desc = "Tasks queued on the cluster's CPUs at the sample, running ones included",
		.sort_desc = true,
		.tui_default = true,
	}, {
		CLUSTER(overutilized), .title = "OVERUTIL", .width = 8,
		.desc = "1 if the kernel's root domain is overutilized (root_domain.overutilized at the sample; set only where EAS runs on recent kernels), else 0",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_OVERUTILIZED, .tui_default = true,
	},
	/* Extra columns: append only. */
	{
		CLUSTER(nr_online), .title = "ONLINE", .width = 6,
		.desc = "Online CPUs in the cluster",
		.sort_desc = true,
		.tui_default = true,
	}, {
		CLUSTER_AS(overutilized_ns, COL_NS), .title = "OU_MS", .width = 7,
		.desc = "Time the root domain was overutilized during the interval (the same for every cluster), from sched_overutilized_tp, ns",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_OVERUTILIZED_NS,
	}, {
		CLUSTER(busy_pct), .title = "BUSY%", .width = 6,
		.desc = "Time the cluster's online CPUs ran anything but idle, over the interval times their number, percent",
		.sort_desc = true,
		.tui_default = true,
		.avail = SCHEDSTAT_AVAIL_BUSY,
	}, {
		CLUSTER(misfit_tasks), .title = "MISFIT", .width = 6,
		.desc = "Queued tasks on the cluster's CPUs that are misfit (see the task table's misfit)",
		.sort_desc = true,
		.tui_default = true,
	}, {
		CLUSTER(up_migrations), .title = "UP", .width = 4,
		.desc = "Migrations during the interval into this cluster from one of less capacity",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.tui_default = true,
	}, {
		CLUSTER(down_migrations), .title = "DOWN", .width = 4,
		.desc = "Migrations during the interval into this cluster from one of more capacity",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.tui_default = true,
	}, {
		CLUSTER(freq_khz), .title = "FREQ", .width = 8,
		.desc = "Clock of the cluster's online CPUs at the sample (the highest, should they differ), kHz",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_FREQ,
	}, {
		CLUSTER(freq_avg_khz), .title = "FREQ_AVG", .width = 8,
		.desc = "Time-weighted mean clock over the interval of that CPU, kHz",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_FREQ | SCHEDSTAT_AVAIL_ACTIVITY,
	}, {
		CLUSTER(power_mw), .title = "POWER_MW", .width = 8,
		.desc = "Estimated average power over the interval from residency: each online CPU's busy time times the power of the OPP at its clock (the highest OPP where the clock is unknown), plus idle time times the model's idle power, mW (docs/signals.md)",
		.sort_desc = true,
		.tui_default = true,
		.avail = SCHEDSTAT_AVAIL_ENERGY,
	}, {
		CLUSTER(eas_power_mw), .title = "EAS_MW", .width = 8,
		.desc = "Average power as EAS estimates it (em_cpu_energy): the OPP whose performance covers the cluster's highest CPU util times 1.25, times the cluster's summed util over that OPP's performance, mW",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_ENERGY,
	}, {
		CLUSTER(energy_uj), .title = "ENERGY_UJ", .width = 10,
		.desc = "Energy over the interval from power_mw, uJ",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_ENERGY,
	},
	EMULATION_COLUMN,
};

static const struct column migration_cols[] = {
	TS_COLUMN,
	{
		MIGRATION_AS(from_cluster, COL_CLUSTER), .title = "FROM", .width = 8,
		.desc = "Cluster the tasks left",
		.tui_default = true,
	}, {
		MIGRATION_AS(to_cluster, COL_CLUSTER), .title = "TO", .width = 8,
		.desc = "Cluster the tasks moved to (every ordered pair of different clusters has a row, every interval)",
		.tui_default = true,
	}, {
		MIGRATION(count), .title = "COUNT", .width = 6,
		.desc = "sched_migrate_task events from one to the other during the interval",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.tui_default = true,
	}, {
		MIGRATION(per_sec), .title = "PER_SEC", .width = 8,
		.desc = "The same count per second of the interval",
		.sort_desc = true,
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.tui_default = true,
	},
};

static const struct column freq_cols[] = {
	TS_COLUMN,
	{
		FREQ_AS(cluster, COL_CLUSTER), .title = "CLUSTER", .width = 8,
		.desc = "Cluster whose clock this is (read on its first online CPU)",
		.tui_default = true,
	}, {
		FREQ(freq_khz), .title = "FREQ", .width = 8,
		.desc = "A frequency the cluster ran at since schedtop started, kHz: cpufreq's own stats/time_in_state where the kernel keeps it, else power:cpu_frequency",
		.sort_desc = true,
		.tui_default = true,
	}, {
		FREQ_AS(time_ns, COL_NS), .title = "TIME_MS", .width = 8,
		.desc = "Time at that frequency during the interval, ns",
		.sort_desc = true,
		.tui_default = true,
	},
};

const struct column_table cluster_table = {
	.name = "cluster",
	.cols = cluster_cols,
	.nr_cols = ARRAY_SIZE(cluster_cols),
	.row_size = sizeof(struct schedstat_cluster),
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
