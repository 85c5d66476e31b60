/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atrace's trace_marker lines: the one formatter (schedtop --atrace) and the
 * one parser (the ftrace text and Perfetto readers) of the text that
 * Android's atrace, systrace and Perfetto's ftrace importer read from
 * print events:
 *
 *	B|PID|NAME  E|PID  C|PID|NAME|VALUE[|CATEGORY]  S|PID|NAME|COOKIE
 *	F|PID|NAME|COOKIE  I|PID|NAME  N|PID|TRACK|NAME
 *	G|PID|TRACK|NAME|COOKIE  H|PID|TRACK[|NAME]|COOKIE
 *
 * A counter's VALUE is a decimal int64 (Perfetto parses nothing else) and
 * PID the process the counter track belongs to.
 *
 * schedtop's counters (docs/perfetto.md, "Live counters"):
 *	C|TGID|COMM TID SIGNAL|VALUE	a task's, under its process
 *	C|PID|cpuN SIGNAL|VALUE		a CPU's, under schedtop's process
 *	C|PID|CLUSTER SIGNAL|VALUE	a cluster's, likewise
 * SIGNAL is a CSV column's name; a column of fractions (CSV "%.2f") is
 * written times 100 as SIGNAL_x100, so that the integer is the CSV's
 * digits. Names are split at their last spaces, so a COMM may hold spaces.
 */
#ifndef SCHEDSTAT_ATRACE_H
#define SCHEDSTAT_ATRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedstat.h"

/* The kernel cuts a trace_marker write here; no line of ours comes close. */
#define ATRACE_LINE_MAX		1024
/* What a double counter is multiplied by, and the suffix its name gets. */
#define ATRACE_X100_SUFFIX	"_x100"

/*
 * Copies @len bytes of @src (stopping at a NUL) to @dst as a counter name
 * may hold them: '|' (a field separator), C0 control characters (a newline
 * ends the event), DEL and bytes above 0x7e (a comm cut inside a UTF-8
 * sequence) become '?'. Always NUL-terminates (@size > 0).
 */
void atrace_name_clean(char *dst, size_t size, const char *src, size_t len);

/*
 * "C|PID|NAME|VALUE\n" into @buf, NAME cleaned as above. Returns its length
 * (without the NUL), or -ENOSPC if @size is short.
 */
int atrace_format_counter(char *buf, size_t size, int32_t pid, const char *name,
			  int64_t value);

/*
 * A task's counter name, "COMM TID SIGNAL", COMM cleaned; -ENOSPC if short.
 * A CPU's or cluster's is "SUBJECT SIGNAL" (atrace_format_name()).
 */
int atrace_task_name(char *buf, size_t size, const char *comm, int32_t tid,
		     const char *signal);
int atrace_format_name(char *buf, size_t size, const char *subject,
		       const char *signal);

/* One parsed line; the strings point into it and are not NUL-terminated. */
struct atrace_point {
	char phase;		/* B E C S F I N G H */
	int64_t pid;		/* -1: none given (E may omit it) */
	const char *name;	/* B C S F I N G; NULL for E, H */
	size_t name_len;
	const char *track;	/* N G H; else NULL */
	size_t track_len;
	int64_t value;		/* C: the value; S F G H: the cookie */
};

/*
 * atrace_parse - one print event's text, as Perfetto's systrace parser reads it
 *
 * Trailing newlines and NULs are ignored. Returns 0, -ENOTSUP for a line
 * atrace writes but that carries no point ("trace_event_clock_sync: ..."),
 * or -EINVAL for text that is not an atrace line (or is one with a field
 * missing, a PID or value that is no integer, a line over ATRACE_LINE_MAX).
 */
int atrace_parse(const char *line, size_t len, struct atrace_point *out);

/* schedtop's counter names taken apart (see the top of this file). */
struct atrace_name {
	const char *subject;	/* "COMM" of a task, "cpu3", "LITTLE" */
	size_t subject_len;
	int64_t tid;		/* a task's, else -1 */
	int cpu;		/* "cpuN" subjects of no task, else -1 */
	const char *signal;	/* without ATRACE_X100_SUFFIX */
	size_t signal_len;
	bool x100;		/* the value is 100 times the signal's */
};

/*
 * Splits @name (@len bytes) at its last space (the signal) and, if the word
 * before that is a decimal tid with a subject before it, at that one too.
 * -EINVAL if it has no space or an empty part.
 */
int atrace_name_split(const char *name, size_t len, struct atrace_name *out);

/*
 * One of schedtop's counter lines read back into a row's field: what a trace
 * reader needs to show a captured --atrace value as the value, not an
 * estimate. The field is the row schema's of the signal's name (stored or
 * derived; SCHEDSTAT_TASK_FIELDS and the others).
 */
struct atrace_counter {
	enum schedstat_row_kind row;
	int64_t tid;		/* a task's (pid): row TASK */
	int64_t tgid;		/* the line's PID: the task's process */
	int cpu;		/* row CPU */
	char cluster[SCHEDSTAT_NAME_LEN];	/* row CLUSTER: its name */
	enum schedstat_field_type type;
	size_t offset;		/* of the field in the row struct */
	double value;		/* the line's, divided by 100 for SIGNAL_x100 */
};

/*
 * -EINVAL unless @pt is a counter whose name is schedtop's ("COMM TID
 * SIGNAL", "cpuN SIGNAL", "CLUSTER SIGNAL") and SIGNAL names a numeric
 * field of that row.
 */
int atrace_counter_read(const struct atrace_point *pt, struct atrace_counter *out);

/*
 * The numeric field of @row's schema named @name (@len bytes: a CSV column
 * name): its type and offset in the row struct; -EINVAL if none. The
 * native export's counter tracks are read back by it too.
 */
int atrace_field_find(enum schedstat_row_kind row, const char *name, size_t len,
		      enum schedstat_field_type *type, size_t *offset);

#endif /* SCHEDSTAT_ATRACE_H */
