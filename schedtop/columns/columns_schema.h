/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the files that hold the column tables (columns_*.c): a column of a
 * row table takes its name, type, offset and size from the row's schema in
 * schedstat.h (SCHEDSTAT_<ROW>_FIELDS), the list the recording codec is
 * generated from too; the table adds only what a person reads (title,
 * width, description, sorting, the live view's choice).
 */
#ifndef SCHEDTOP_COLUMNS_SCHEMA_H
#define SCHEDTOP_COLUMNS_SCHEMA_H

#include <stddef.h>

#include "array_size.h"
#include "columns.h"

/* How a field of each schema type is shown unless a column says otherwise. */
#define COL_OF_BOOL	COL_BOOL
#define COL_OF_CHAR	COL_CHAR
#define COL_OF_S32	COL_I32
#define COL_OF_U32	COL_U32
#define COL_OF_U64	COL_U64
#define COL_OF_F64	COL_PCT
#define COL_OF_STR	COL_STR

/*
 * One schema field as constants: R_T_name its column type, R_O_name and
 * R_S_name its offset and size. A table file declares them for its row:
 *	#define TASK_CONST(f, m, t) SCHEMA_CONST(TASK, struct schedstat_task, f, m, t)
 *	enum { SCHEDSTAT_TASK_FIELDS(TASK_CONST, TASK_CONST) };
 */
#define SCHEMA_CONST(R, st, f, m, t)					\
	R##_T_##f = COL_OF_##t,						\
	R##_O_##f = offsetof(st, m),					\
	R##_S_##f = sizeof(((st *)0)->m),

/*
 * Another type may show a field only as another view of the same bytes:
 * nanoseconds as COL_NS, a cluster index by its name.
 */
#define COL_SHOWS(t, base)						\
	((int)(t) == (int)(base) ||					\
	 ((int)(t) == COL_NS && (int)(base) == COL_U64) ||		\
	 ((int)(t) == COL_CLUSTER && (int)(base) == COL_I32))

/* Field @f of row @R, shown as @t (a build failure if it cannot be). */
#define SCHEMA_COL(R, f, t)						\
	.name = #f, .type = (enum column_type)(t), .offset = R##_O_##f,	\
	.size = R##_S_##f +						\
		0 * sizeof(char[COL_SHOWS(t, R##_T_##f) ? 1 : -1])

/*
 * Offset and size of a field of a row without a schema (the PELT updates,
 * whose recording has a coding of its own), refusing to build when the
 * field's C type is not the one its column type reads: a uint64_t declared
 * COL_U32 would print its low half on little-endian machines and its high
 * half elsewhere. _Generic does not evaluate the null-pointer access; a
 * char array decays to char * in its controlling expression.
 */
#define CTYPE_COL_U32		uint32_t
#define CTYPE_COL_U64		uint64_t
#define CTYPE_COL_NS		uint64_t
#define CTYPE_COL_I32		int32_t
#define CTYPE_COL_BOOL		bool
#define CTYPE_COL_CHAR		char
#define CTYPE_COL_STR		char *
#define CTYPE_COL_PCT		double
#define CTYPE_COL_CLUSTER	int32_t

#define FIELD(st, m, t)							\
	.type = (t), .offset = offsetof(st, m),				\
	.size = sizeof(((st *)0)->m) +					\
		0 * sizeof(_Generic(((st *)0)->m, CTYPE_##t: 0))

/* The sample's timestamp, first in every per-sample table. */
#define TS_COLUMN {							\
	.name = "ts_ns", .title = "TS_NS", .width = 14,			\
	.desc = "CLOCK_MONOTONIC time the sample was taken (the clock of "	\
		"bpf_ktime_get_ns()), ns",					\
	.type = COL_TS,							\
}

/*
 * Whether the machine was emulated (docs/emulation.md) is a property of the
 * run, not of the kernel's rows: the CSV writer gets it with the row.
 */
#define EMULATION_COLUMN {						\
	.name = "emulation", .title = "EMULATION", .width = 9,		\
	.desc = "How this machine was made to behave as the --emulate "	\
		"spec, stealer (SCHED_FIFO threads take the LITTLE CPUs' "	\
		"time) or cpufreq (frequency caps and floors), the same on "	\
		"every row of the run; empty when not emulated",		\
	.type = COL_EMULATION,						\
}

#endif /* SCHEDTOP_COLUMNS_SCHEMA_H */
