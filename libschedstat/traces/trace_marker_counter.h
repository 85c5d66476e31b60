/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedtop's own --atrace counter lines (export/atrace.h) found in a
 * trace's print events, as the neutral event every reader hands the driver
 * (TRACE_EV_COUNTER): the one place the three readers (Perfetto, ftrace
 * text, trace.dat) recognise them.
 */
#ifndef SCHEDSTAT_TRACE_MARKER_COUNTER_H
#define SCHEDSTAT_TRACE_MARKER_COUNTER_H

#include <stdbool.h>
#include <stddef.h>

#include "trace_event.h"

/*
 * True if the print event's text @buf (@len bytes, trailing newline or NUL
 * allowed) is one of schedtop's counters: @ev's kind and counter are then
 * set; its ts, cpu and pid (the writer, current on the CPU) are left as
 * they are. False leaves @ev alone.
 */
bool trace_marker_counter(const char *buf, size_t len, struct trace_ev *ev);

#endif /* SCHEDSTAT_TRACE_MARKER_COUNTER_H */
