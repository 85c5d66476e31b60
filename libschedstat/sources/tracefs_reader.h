/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a tracefs instance's ring buffers in bulk (named trace_reader_*:
 * tracefs_* is libtracefs's): every CPU's
 * trace_pipe_raw is read a whole sub-buffer (page) at a time, without
 * blocking, and the records are handed out in time order across CPUs
 * straight from those pages, each parsed once, none copied or sorted.
 */
#ifndef SCHEDSTAT_TRACEFS_READER_H
#define SCHEDSTAT_TRACEFS_READER_H

#include <stdint.h>

#include <tracefs.h>
#include <traceevent/event-parse.h>

struct trace_reader;

/* A record; nonzero stops the drain and is returned by it. */
typedef int (*trace_reader_fn)(void *ctx, struct tep_record *rec);

/*
 * Opens per_cpu/cpuN/trace_pipe_raw of @inst for CPUs 0 to @nr_cpus - 1
 * (a CPU without one is skipped), with @tep's page layout. Returns 0 or
 * -errno.
 */
int trace_reader_open(struct trace_reader **out, struct tracefs_instance *inst,
			struct tep_handle *tep, int nr_cpus);
void trace_reader_free(struct trace_reader *r);
/*
 * Reads what every CPU's buffer holds now (at most one buffer's worth per
 * CPU, so that a producer as fast as the reader cannot keep it here), then
 * hands @fn each record up to @upto in time order. Records after @upto wait
 * for a later drain, when everything before them has been read from every
 * CPU. Returns the number of records handed, or a negative error.
 */
int trace_reader_drain(struct trace_reader *r, uint64_t upto,
			 trace_reader_fn fn, void *ctx);
/*
 * Records the kernel overwrote before they were read, on @cpu, as the
 * pages read said (the ring buffer's "missed events"): cumulative.
 */
uint64_t trace_reader_missed(const struct trace_reader *r, int cpu);

#endif /* SCHEDSTAT_TRACEFS_READER_H */
