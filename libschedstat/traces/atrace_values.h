/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The values schedtop's own --atrace counters in a trace give
 * (TRACE_EV_COUNTER): the driver (trace_source.c) keeps the latest of each
 * row field and writes it into the rows of every sample it takes, in place
 * of the engine's estimate. A counter holds its value until its next one,
 * as Perfetto draws a counter track; one that stops (a task that left the
 * selection or exited, schedtop that ended before the capture) holds for
 * half an interval of its own more, then the rows are the engine's again.
 */
#ifndef SCHEDSTAT_ATRACE_VALUES_H
#define SCHEDSTAT_ATRACE_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "schedstat.h"
#include "trace_event.h"

/* Row fields that differ (row kind, offset): more than schedtop writes. */
#define ATRACE_VALUES_FIELDS	64

struct atrace_value {
	double value;
	uint64_t ts;		/* when schedtop wrote it */
	uint64_t gap;		/* since the one before of the same field, 0: first */
};

struct atrace_values {
	struct schedstat_hash *idx;	/* key() -> index in vals */
	struct atrace_value *vals;
	size_t nr, cap;
	struct {
		uint8_t row, type;
		uint16_t offset;
	} fields[ATRACE_VALUES_FIELDS];
	int nr_fields;
	const struct schedstat_topology *topo;
	uint64_t taken;		/* counter events taken */
	uint64_t ignored;	/* ... naming no CPU or cluster of the trace */
	uint64_t set;		/* row values written from them */
	/*
	 * Each value holds until the next of its field, however long (schedtop's
	 * export writes a counter only when it changed).
	 */
	bool hold_all;
};

int atrace_values_init(struct atrace_values *v, const struct schedstat_topology *topo);
void atrace_values_free(struct atrace_values *v);
/* One TRACE_EV_COUNTER, in time order: 0 or -ENOMEM. */
int atrace_values_take(struct atrace_values *v, const struct trace_ev *ev);
/*
 * Every row of @snap (taken at @ts) a held counter names gets its value;
 * a first value, whose interval is not known yet, holds @hold_ns. Task and
 * CPU rows whose util_avg came from a counter are not pelt_estimated; a CPU
 * or cluster row's field gets the availability bit that guards it, and in
 * an export (hold_all) a task's field its snapshot's.
 */
void atrace_values_apply(struct atrace_values *v, struct schedstat_snapshot *snap,
			 uint64_t ts, uint64_t hold_ns);

#endif /* SCHEDSTAT_ATRACE_VALUES_H */
