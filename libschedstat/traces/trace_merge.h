/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPUs' event streams of a trace merged in time order (the shape of
 * Perfetto's trace processor sorter): events go into per-CPU queues as the
 * file gives them, each CPU's in its own time order, and come out earliest
 * first once no CPU can still bring an earlier one: every other CPU has
 * one queued, or has passed that time, or has given all the events it has
 * (counted by the driver's first pass). A CPU that falls silent holds the
 * others back at most TRACE_MERGE_WINDOW_NS of trace time, or
 * TRACE_MERGE_MAX_EVENTS events: memory stays bounded, whatever the file.
 */
#ifndef SCHEDSTAT_TRACE_MERGE_H
#define SCHEDSTAT_TRACE_MERGE_H

#include "trace_reader.h"

#define TRACE_MERGE_WINDOW_NS	2000000000ULL
#define TRACE_MERGE_MAX_EVENTS	32768

struct trace_merge_queue {
	struct trace_ev *ev;
	uint32_t head, n, cap;
	uint64_t last_ts;		/* the latest pushed */
	uint64_t pushed, total;		/* total: all it has (if totals_known) */
};

struct trace_merge {
	struct trace_merge_queue *q;
	int nr_cpus;
	bool sorted;			/* the reader merged them already */
	bool totals_known;
	size_t queued, high_water;
	uint64_t newest;
	uint64_t last_out;
	uint64_t late;			/* came out before an event they precede */
};

/* @totals: each CPU's number of events in the file, or NULL. */
int trace_merge_init(struct trace_merge *m, int nr_cpus, bool sorted,
		     const uint64_t *totals);
void trace_merge_free(struct trace_merge *m);
/* 0 or -ENOMEM; @ev->cpu must be below nr_cpus. */
int trace_merge_push(struct trace_merge *m, const struct trace_ev *ev);
/*
 * The earliest queued event, if it may come out now (@all_in: the file
 * has no more), else NULL.
 */
const struct trace_ev *trace_merge_peek(struct trace_merge *m, bool all_in);
/* Takes out what trace_merge_peek() returned. */
void trace_merge_pop(struct trace_merge *m, const struct trace_ev *ev);

#endif /* SCHEDSTAT_TRACE_MERGE_H */
