/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One line of ftrace text into the neutral event form (trace_reader.h):
 * the kernel's trace and trace_pipe (4.x to 6.18: with or without the TGID
 * column, with or without the irq-info flags, timestamps in seconds with
 * 6 or 9 decimals or, for clocks not in ns, as counted), atrace's and
 * systrace's copies of them, and trace-cmd report's lines (its own
 * sched_switch and sched_wakeup formats, libtraceevent's plugin). Pure: no
 * I/O; what a line teaches about the trace (its CPUs, its kernel's
 * prev_state letters) is kept in struct ftrace_text_state.
 */
#ifndef SCHEDSTAT_FTRACE_LINE_H
#define SCHEDSTAT_FTRACE_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_reader.h"

/* What the lines read so far say of the whole trace. */
struct ftrace_text_state {
	int nr_cpus;			/* "#P:N" (the kernel's header), "cpus=N" (trace-cmd) */
	bool trace_cmd;			/* trace-cmd report's header or its own words */
	/*
	 * trace-cmd report prints prev_state through libtraceevent's plugin,
	 * bit i as "SDTtZXxW"[i] (1.7, Debian 12) or "SDTtXZPI"[i] (later):
	 * the kernel's bits, not its letters, whose meaning changed in 4.14
	 * (before: 0x40 TASK_DEAD, 0x80 TASK_WAKEKILL; since: 0x40 TASK_PARKED,
	 * 0x80 TASK_IDLE). A 'P' or an 'I' says the later table. A kernel
	 * before 4.14 shows in letters only it printed (the kernel's x, K, W;
	 * the plugin's joined by '|': since 4.14 a state is one bit) or in its
	 * EAS load events; and in the plugin's 'x' (a dying task) where no
	 * idle 'W' (TASK_IDLE, common since 4.14) says otherwise. The first
	 * pass decides; the second reads by it.
	 */
	bool plugin_new_letters;
	bool plugin_x, plugin_idle;
	char old_evidence[32];		/* "" none */
};

/*
 * Whether the trace's kernel is older than 4.14 (and so than 5.1), and why
 * (for trace_reader_info.pelt_evidence); NULL if not.
 */
const char *ftrace_text_old_kernel(const struct ftrace_text_state *st);

enum ftrace_line_kind {
	FTRACE_LINE_NONE,		/* a header, comment or blank line */
	FTRACE_LINE_EVENT,		/* @ev */
	FTRACE_LINE_LOST,		/* @ev: TRACE_EV_LOST of ev.cpu, no time */
	FTRACE_LINE_BAD,		/* @why */
};

struct ftrace_line {
	struct trace_ev ev;
	int32_t tgid;			/* the TGID column's, 0 if it has none */
	char why[96];
};

/*
 * @line is NUL-terminated at @len, without its newline. Returns the kind;
 * a line of an event not read (irq, a trace_printk, the function tracer)
 * is TRACE_EV_CURRENT, naming the task current on its CPU.
 */
enum ftrace_line_kind ftrace_line_parse(struct ftrace_text_state *st, const char *line,
					size_t len, struct ftrace_line *out);

enum ftrace_header {
	FTRACE_HEADER_NONE,		/* not a header */
	FTRACE_HEADER_OTHER,		/* a comment, blank, or a header of no consequence */
	FTRACE_HEADER_TRACE,		/* "# tracer: ..." or "cpus=N": an ftrace text */
};
enum ftrace_header ftrace_line_header(const char *line);
/* Whether @line is an ftrace event line (task, CPU and time), for the probes. */
bool ftrace_line_is_event(const char *line, size_t len);

#endif /* SCHEDSTAT_FTRACE_LINE_H */
