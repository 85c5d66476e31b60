/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one description of every column schedtop shows or writes.
 *
 * CSV header and rows, TUI headers, sorting, the help screen, docs/csv.md and
 * the man page are all generated from these tables, so a column is added,
 * renamed or documented here and nowhere else. Column order is a public
 * interface (scripts index CSV columns by position): append, never reorder.
 */
#ifndef SCHEDTOP_COLUMNS_H
#define SCHEDTOP_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "schedstat.h"

enum column_type {
	COL_U32,	/* uint32_t */
	COL_U64,	/* uint64_t */
	COL_NS,		/* uint64_t nanoseconds: CSV integer, TUI milliseconds */
	COL_I32,	/* int32_t; with avail bits, negative = not available
			 * (unless negative_valid) */
	COL_BOOL,	/* bool, printed 1 or 0 */
	COL_CHAR,	/* one char, e.g. the task state letter */
	COL_STR,	/* NUL-terminated char array of @size bytes */
	COL_PCT,	/* double, printed "%.2f" */
	COL_CLUSTER,	/* int32_t cluster index, printed as its name */
	COL_TS,		/* the snapshot timestamp: not stored in the row */
	COL_EMULATION,	/* the run's emulation method: not stored in the row */
};

struct column {
	const char *name;	/* CSV header, sort key name: snake_case */
	const char *title;	/* TUI header: upper case, at most @width */
	int width;		/* TUI width in characters */
	const char *desc;	/* one sentence with units, no final period */
	bool sort_desc;		/* biggest first when sorted on */
	enum column_type type;
	size_t offset;		/* of the value in the row struct */
	size_t size;		/* sizeof the value in the row (0: not in it) */
	/*
	 * SCHEDSTAT_AVAIL_* bits it needs, every one (column_shown()), 0:
	 * always.
	 */
	uint32_t avail;
	/* COL_I32: a negative value is one (prio -1: deadline), not "none". */
	bool negative_valid;
	bool tui_default;	/* shown by the TUI unless the user picks */
	/*
	 * When the terminal is narrow the live view drops the shown columns
	 * with the highest rank first (0 is kept longest), keeping table order.
	 */
	unsigned char tui_rank;
};

struct column_table {
	const char *name;	/* "task", "cpu", "cluster" */
	const struct column *cols;
	size_t nr_cols;
	size_t row_size;	/* sizeof the row struct */
};

extern const struct column_table task_table;	/* struct schedstat_task */
extern const struct column_table cpu_table;	/* struct schedstat_cpu */
extern const struct column_table cluster_table;	/* struct schedstat_cluster */
extern const struct column_table group_table;	/* struct schedstat_group */
extern const struct column_table migration_table; /* struct schedstat_migration */
extern const struct column_table freq_table;	/* struct schedstat_freq_residency */
extern const struct column_table pelt_table;	/* struct schedstat_pelt_update */

/* Every table, in the order docs and completion list them. */
extern const struct column_table *const column_tables[];
extern const size_t column_nr_tables;

/* The table called @name ("task", "cpu", "cluster"), or NULL. */
const struct column_table *column_table_find(const char *name);

/* The column of @t called @name, or NULL. */
const struct column *column_find(const struct column_table *t, const char *name);

/*
 * column_avail_note - when a column is empty, for docs and help
 * @avail: one SCHEDSTAT_AVAIL_* bit
 *
 * Returns a clause such as "empty if pelt_rt_tp is missing or has not fired
 * for this CPU yet", or NULL for 0 or an unknown bit.
 */
const char *column_avail_note(uint32_t avail);

/* @avail (the row's, or a task's snapshot's) has every bit @c needs. */
static inline bool column_shown(const struct column *c, uint32_t avail)
{
	return (avail & c->avail) == c->avail;
}

/*
 * column_avail_notes - why a column of @avail (one or more bits) can be
 * empty: each bit's note, "; " before each, through @put(@f, text).
 */
void column_avail_notes(FILE *f, uint32_t avail, void (*put)(FILE *f, const char *s));

/* Order of two rows by column @c, ascending (strings as text). */
int column_cmp(const struct column *c, const void *a, const void *b);

/*
 * The value as a person reads it in the live view: nanoseconds as
 * milliseconds, an unavailable value as "-". @topo names clusters.
 */
void column_text(const struct column *c, const struct schedstat_topology *topo,
		 uint32_t avail, const void *row, char *buf, size_t size);

#endif /* SCHEDTOP_COLUMNS_H */
