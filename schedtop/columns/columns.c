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

/* Why a column of signal @avail can be empty: the signal table's word. */
const char *column_avail_note(uint32_t avail)
{
	size_t nr;
	const struct schedstat_signal *sig = schedstat_signals(&nr);

	for (size_t i = 0; avail && i < nr; i++)
		if (sig[i].avail == avail)
			return sig[i].missing;
	return NULL;
}

void column_avail_notes(FILE *f, uint32_t avail, void (*put)(FILE *f, const char *s))
{
	for (int b = 0; b < 32; b++) {
		const char *note = avail & 1u << b ? column_avail_note(1u << b) : NULL;

		if (note) {
			put(f, "; ");
			put(f, note);
		}
	}
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

	if (!column_shown(c, avail)) {
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
		if (c->avail && !c->negative_valid && column_number(c, row) < 0) {
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
