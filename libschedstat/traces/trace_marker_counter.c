// SPDX-License-Identifier: GPL-2.0
/*
 * A print event's text as one of schedtop's --atrace counters
 * (trace_marker_counter.h): atrace's parser and schedtop's counter names
 * (export/atrace.c), into the neutral event.
 */
#include <string.h>

#include "atrace.h"
#include "trace_marker_counter.h"

bool trace_marker_counter(const char *buf, size_t len, struct trace_ev *ev)
{
	struct atrace_counter c;
	struct atrace_point pt;

	/* Most prints are atrace's slices: only counters are looked at. */
	if (len < 2 || buf[0] != 'C' || buf[1] != '|')
		return false;
	if (atrace_parse(buf, len, &pt) || atrace_counter_read(&pt, &c))
		return false;
	if (c.offset > UINT16_MAX || (c.row == SCHEDSTAT_ROW_TASK &&
				      (c.tid <= 0 || c.tid > INT32_MAX)))
		return false;
	/* A cluster's name longer than a row holds names no cluster of ours. */
	if (c.row == SCHEDSTAT_ROW_CLUSTER && strlen(c.cluster) >= TRACE_COMM_LEN)
		return false;
	ev->kind = TRACE_EV_COUNTER;
	memset(&ev->counter, 0, sizeof(ev->counter));
	ev->counter.row = c.row;
	ev->counter.type = c.type;
	ev->counter.offset = (uint16_t)c.offset;
	ev->counter.tid = c.row == SCHEDSTAT_ROW_TASK ? (int32_t)c.tid : -1;
	ev->counter.cpu = c.row == SCHEDSTAT_ROW_CPU ? c.cpu : -1;
	memcpy(ev->counter.cluster, c.cluster, strlen(c.cluster));
	ev->counter.value = c.value;
	return true;
}
