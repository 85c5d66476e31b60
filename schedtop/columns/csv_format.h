/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RFC 4180 CSV from the column tables, plus the column documentation
 * (Markdown for docs/csv.md, troff for the man page) generated from them.
 *
 * Writers return 0 or -errno from the stream (a closed pipe gives -EPIPE once
 * the stream's buffer is written out), so they can be checked once per row
 * and the caller decides what a write error means.
 */
#ifndef SCHEDTOP_CSV_FORMAT_H
#define SCHEDTOP_CSV_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "columns.h"

struct schedstat_topology;

/* What a row needs besides the row struct itself. */
struct csv_ctx {
	const struct schedstat_topology *topo;	/* names of COL_CLUSTER values */
	uint32_t avail;		/* SCHEDSTAT_AVAIL_* bits valid for this row */
	uint64_t ts_ns;		/* the COL_TS value */
	const char *emulation;	/* the COL_EMULATION value, NULL: empty */
};

/*
 * csv_field - write one field, sanitized and quoted as needed
 * @s: the value; NULL writes an empty field
 *
 * Bytes below 0x20 and 0x7f become '?' (a task may name itself with a
 * terminal escape sequence); the field is quoted when it holds ',' or '"' or
 * starts or ends with a space, and inner quotes are doubled. No separator or
 * record end is written.
 */
void csv_field(FILE *f, const char *s);

/* The names of @t's columns as one CRLF-terminated record. */
int csv_write_header(FILE *f, const struct column_table *t);

/*
 * csv_write_row - one CRLF-terminated record for @row
 * @row: a struct of the kind @t describes (struct schedstat_task for
 *       task_table, ...)
 *
 * A column whose avail bit is not in @ctx->avail is written as an empty
 * field, so pandas and friends read "not available" (NaN), never 0.
 */
int csv_write_row(FILE *f, const struct column_table *t,
		  const struct csv_ctx *ctx, const void *row);

/*
 * columns_write_markdown - "## <table> table" and a | column | description |
 * table in column order; `schedtop csv --list-columns` prints this and
 * docs/csv.md carries a copy.
 */
int columns_write_markdown(FILE *f, const struct column_table *t);

/* One ".TP / .B name / description" entry per column, for the man page. */
int columns_write_man(FILE *f, const struct column_table *t);
/*
 * @s as troff text, escaped; @line_start: it begins an output line, where
 * '.' or '\'' would start a request. The columns' and the keys' man text.
 */
void man_text(FILE *f, const char *s, bool line_start);

#endif /* SCHEDTOP_CSV_FORMAT_H */
