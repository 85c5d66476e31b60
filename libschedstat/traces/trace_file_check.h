/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDSTAT_TRACE_FILE_CHECK_H
#define SCHEDSTAT_TRACE_FILE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "schedstat.h"

/*
 * Whether the trace-cmd file on @fd (version 6 or 7) keeps every length
 * and offset it declares inside itself: 0, -SCHEDSTAT_ERR_TRACE_DAMAGED if
 * not (cut short, damaged), -SCHEDSTAT_ERR_TRACE_FILE if it is no trace-cmd
 * file of those versions, or a negative errno.
 */
int trace_file_check(int fd);

/*
 * Whether one event's format text, @size bytes at @fmt (NUL-terminated
 * there), is what a kernel writes, so that libtraceevent may parse it
 * (trace_format_check.c).
 */
bool trace_event_format_ok(const char *fmt, size_t size);

/*
 * Whether a HOOK option's NUL-terminated @text has the shape trace-cmd
 * record -H writes, which libtracecmd parses on open (trace_format_check.c).
 */
bool trace_hook_option_ok(const char *text);

#endif /* SCHEDSTAT_TRACE_FILE_CHECK_H */
