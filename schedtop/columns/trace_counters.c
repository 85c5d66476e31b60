// SPDX-License-Identifier: GPL-2.0
/*
 * Which columns become counter tracks in a trace (convert --perfetto) and
 * counter lines in a capture (--atrace): named by their CSV column, whose
 * table entry gives the field, its type and when it is empty. Counters of
 * one group change together and go out in one event (at most nine).
 * docs/perfetto.md lists them (schedtop --list-trace-counters).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "array_size.h"
#include "columns.h"
#include "trace_counters.h"

static const struct trace_pick {
	const char *table, *column;
	unsigned char group;
	const char *unit;	/* also what counters share a y axis by */
	/*
	 * A task's activity, not a signal of the scheduler's: --atrace writes
	 * it, convert --perfetto with --task-stats only (a capture has every
	 * switch; these double a trace of 500 tasks).
	 */
	bool stats;
} trace_picks[] = {
	{ "task", "util_avg", 1, "capacity", false },
	{ "task", "runnable_avg", 1, "capacity", false },
	{ "task", "util_est", 1, "capacity", false },
	{ "task", "load_avg", 1, "load", false },
	{ "task", "cpu_pct", 2, "%", true },
	{ "task", "wait_ns", 2, "ns", true },
	{ "task", "cpu", 2, "cpu", true },
	{ "task", "misfit", 2, "flag", true },
	{ "cpu", "util_avg", 1, "capacity", false },
	{ "cpu", "runnable_avg", 1, "capacity", false },
	{ "cpu", "util_est", 1, "capacity", false },
	{ "cpu", "blocked_util", 1, "capacity", false },
	{ "cpu", "capacity_cfs", 1, "capacity", false },
	{ "cpu", "load_avg", 1, "load", false },
	{ "cpu", "nr_running", 1, "tasks", false },
	{ "cpu", "freq_khz", 1, "kHz", false },
	{ "cpu", "online", 1, "flag", false },
	{ "cpu", "rt_util", 2, "capacity", false },
	{ "cpu", "dl_util", 2, "capacity", false },
	{ "cpu", "irq_util", 2, "capacity", false },
	{ "cpu", "hw_pressure", 2, "capacity", false },
	{ "cpu", "capacity", 2, "capacity", false },
	{ "cluster", "util_pct", 1, "%", false },
	{ "cluster", "busy_pct", 1, "%", false },
	{ "cluster", "nr_running", 1, "tasks", false },
	{ "cluster", "misfit_tasks", 1, "tasks", false },
	{ "cluster", "freq_khz", 1, "kHz", false },
	{ "cluster", "nr_online", 1, "cpus", false },
	{ "cluster", "capacity", 1, "capacity", false },
	{ "cluster", "power_mw", 2, "mW", false },
	{ "cluster", "eas_power_mw", 2, "mW", false },
	{ "cluster", "energy_uj", 2, "uJ", false },
};

static int field_type(enum column_type t, enum schedstat_field_type *out)
{
	switch (t) {
	case COL_U32:
		*out = SCHEDSTAT_FIELD_U32;
		return 0;
	case COL_U64:
	case COL_NS:
		*out = SCHEDSTAT_FIELD_U64;
		return 0;
	case COL_I32:
	case COL_CLUSTER:
		*out = SCHEDSTAT_FIELD_S32;
		return 0;
	case COL_BOOL:
		*out = SCHEDSTAT_FIELD_BOOL;
		return 0;
	case COL_PCT:
		*out = SCHEDSTAT_FIELD_F64;
		return 0;
	default:
		return -EINVAL;
	}
}

int trace_counters(struct schedstat_trace_counter **out, size_t *nr, bool stats)
{
	struct schedstat_trace_counter *c = calloc(ARRAY_SIZE(trace_picks), sizeof(*c));
	size_t n = 0;

	*out = NULL;
	*nr = 0;
	if (!c)
		return -ENOMEM;
	for (size_t k = 0; k < ARRAY_SIZE(trace_picks); k++) {
		const struct trace_pick *tp = &trace_picks[k];
		const struct column_table *t = column_table_find(tp->table);
		const struct column *col = t ? column_find(t, tp->column) : NULL;
		size_t i = n;

		if (tp->stats && !stats)
			continue;
		/* A column renamed without this table: a bug, caught by test_cli. */
		if (!col || field_type(col->type, &c[i].type)) {
			free(c);
			return -ENOENT;
		}
		n++;
		c[i].row = t == &task_table ? SCHEDSTAT_ROW_TASK :
			   t == &cpu_table ? SCHEDSTAT_ROW_CPU : SCHEDSTAT_ROW_CLUSTER;
		c[i].name = col->name;
		c[i].offset = col->offset;
		c[i].avail = col->avail;
		c[i].group = tp->group;
		c[i].unit = tp->unit;
	}
	*out = c;
	*nr = n;
	return 0;
}

const char *trace_counter_desc(const struct schedstat_trace_counter *c)
{
	const struct column_table *t = c->row == SCHEDSTAT_ROW_TASK ? &task_table :
				       c->row == SCHEDSTAT_ROW_CPU ? &cpu_table :
				       &cluster_table;
	const struct column *col = column_find(t, c->name);

	return col ? col->desc : "";
}
