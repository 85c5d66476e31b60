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
} trace_picks[] = {
	{ "task", "util_avg", 1, "capacity" },
	{ "task", "runnable_avg", 1, "capacity" },
	{ "task", "util_est", 1, "capacity" },
	{ "task", "load_avg", 1, "load" },
	{ "task", "cpu_pct", 2, "%" },
	{ "task", "wait_ns", 2, "ns" },
	{ "task", "cpu", 2, "cpu" },
	{ "task", "misfit", 2, "flag" },
	{ "cpu", "util_avg", 1, "capacity" },
	{ "cpu", "runnable_avg", 1, "capacity" },
	{ "cpu", "util_est", 1, "capacity" },
	{ "cpu", "blocked_util", 1, "capacity" },
	{ "cpu", "capacity_cfs", 1, "capacity" },
	{ "cpu", "load_avg", 1, "load" },
	{ "cpu", "nr_running", 1, "tasks" },
	{ "cpu", "freq_khz", 1, "kHz" },
	{ "cpu", "online", 1, "flag" },
	{ "cpu", "rt_util", 2, "capacity" },
	{ "cpu", "dl_util", 2, "capacity" },
	{ "cpu", "irq_util", 2, "capacity" },
	{ "cpu", "hw_pressure", 2, "capacity" },
	{ "cpu", "capacity", 2, "capacity" },
	{ "cluster", "util_pct", 1, "%" },
	{ "cluster", "busy_pct", 1, "%" },
	{ "cluster", "nr_running", 1, "tasks" },
	{ "cluster", "misfit_tasks", 1, "tasks" },
	{ "cluster", "freq_khz", 1, "kHz" },
	{ "cluster", "nr_online", 1, "cpus" },
	{ "cluster", "capacity", 1, "capacity" },
	{ "cluster", "power_mw", 2, "mW" },
	{ "cluster", "eas_power_mw", 2, "mW" },
	{ "cluster", "energy_uj", 2, "uJ" },
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

int trace_counters(struct schedstat_trace_counter **out, size_t *nr)
{
	struct schedstat_trace_counter *c = calloc(ARRAY_SIZE(trace_picks), sizeof(*c));

	*out = NULL;
	*nr = 0;
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(trace_picks); i++) {
		const struct trace_pick *tp = &trace_picks[i];
		const struct column_table *t = column_table_find(tp->table);
		const struct column *col = t ? column_find(t, tp->column) : NULL;

		/* A column renamed without this table: a bug, caught by test_cli. */
		if (!col || field_type(col->type, &c[i].type)) {
			free(c);
			return -ENOENT;
		}
		c[i].row = t == &task_table ? SCHEDSTAT_ROW_TASK :
			   t == &cpu_table ? SCHEDSTAT_ROW_CPU : SCHEDSTAT_ROW_CLUSTER;
		c[i].name = col->name;
		c[i].offset = col->offset;
		c[i].avail = col->avail;
		c[i].group = tp->group;
		c[i].unit = tp->unit;
	}
	*out = c;
	*nr = ARRAY_SIZE(trace_picks);
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
