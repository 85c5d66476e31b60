// SPDX-License-Identifier: GPL-2.0
/*
 * The list of column tables and what every column does with a row: find,
 * compare, show. The tables themselves are in columns_<row>.c, built from
 * the row schemas of schedstat.h (columns_schema.h). docs/csv.md carries a
 * generated copy of the names and descriptions (tests/unit/test_csv.c fails
 * when they differ): after editing a description, paste the output of
 * `schedtop csv --list-columns` there.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "array_size.h"
#include "columns.h"

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
	case COL_EMULATION:
		snprintf(buf, size, "-");
		return;
	}
}
