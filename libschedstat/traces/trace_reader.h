/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every reader of an outside trace file gives the driver they share
 * (trace_driver.c): the file's sched and power events in one neutral form,
 * each CPU's in time order. The driver merges the CPUs in time order (within
 * a bounded window, unless the reader says its events are already merged),
 * reads the file twice (a first pass finds each CPU's highest frequency and
 * first switch, the threads' processes), sets the trace's window (the head
 * before each CPU's first switch, the tail up to the last event), feeds the
 * engine and samples by interval. A reader only decodes.
 *
 * A reader is a struct trace_reader_ops in trace_readers[] (trace_readers.c):
 * the file's format is found there by content, in that order, for every
 * command that reads a file (replay, report, csv --from, convert).
 */
#ifndef SCHEDSTAT_TRACE_READER_H
#define SCHEDSTAT_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedstat.h"
#include "trace_event.h"

/*
 * Where a file stopped making sense: the reader fills it and returns
 * -SCHEDSTAT_ERR_TRACE_DAMAGED from open() or next(). The driver keeps what
 * was read before, ends the trace there and the session says so (one line:
 * the file, the offset or line, @what).
 */
struct trace_damage {
	bool set;
	uint64_t offset;		/* bytes into the file (or an inflated packet's) */
	unsigned long line;		/* text readers: 1-based; 0 if by offset */
	char what[128];			/* "a varint runs past the end of its packet" */
};

/* What a reader knows about the file beyond its events (filled at open, or
 * as the first pass reads it: the driver looks after that pass). */
struct trace_reader_info {
	/* CPUs of the traced machine (highest CPU + 1); 0: from the events. */
	int nr_cpus;
	/* The kernel release the file names ("5.10.107-android13-4"), "" if none. */
	char release[65];
	/* Its machine (uname -m: "aarch64"), "" if the file does not say. */
	char machine[65];
	/* Without a release: an EAS 4.x event whose format the file stores. */
	char pelt_evidence[32];
	/* The reader's events are merged in time order across CPUs already. */
	bool sorted;
	/*
	 * SCHEDSTAT_AVAIL_* the file's events give (tracepoints.c's rows of
	 * the events it holds); SCHEDSTAT_AVAIL_PELT_ESTIMATED is added by
	 * the driver.
	 */
	uint32_t avail;
	/* Per CPU, from the file (Perfetto's cpu_info); 0: not given. */
	uint32_t capacity[SCHEDSTAT_MAX_CPUS];
	uint32_t max_khz[SCHEDSTAT_MAX_CPUS];
	/* The file is schedtop's own Perfetto export (counters, no events). */
	bool schedtop_export;
	/* ... and its counter values that name no row (or no time): not read. */
	uint64_t export_unread;
	/* ... and its clusters, as a --topology spec ("" none). */
	char topology[1024];
	/* Events named by the reader's format, e.g. "perfetto (compact sched)". */
	char format[48];
	struct trace_damage damage;
};

struct trace_reader_ops {
	const char *name;		/* "trace-cmd", "perfetto", ... */
	/*
	 * Whether the file is of this format, by its content: @head is its
	 * first @len bytes (up to 4096); @fd may be read further with pread().
	 */
	bool (*probe)(int fd, const uint8_t *head, size_t len);
	/*
	 * @fd stays the driver's (dup() it to keep it); @path names the file
	 * for libraries that open by name. 0, -errno, or
	 * -SCHEDSTAT_ERR_TRACE_DAMAGED with @info->damage set.
	 */
	int (*open)(void **out, int fd, const char *path,
		    struct trace_reader_info *info);
	/*
	 * The next event into @ev: 1, 0 at the end of the file, or a negative
	 * error (-SCHEDSTAT_ERR_TRACE_DAMAGED with info->damage set). Events
	 * of one CPU come in time order; of different CPUs, in any order
	 * within a few seconds of each other unless info->sorted.
	 */
	int (*next)(void *r, struct trace_ev *ev);
	/* Back to the first event, for the driver's second pass. */
	int (*rewind)(void *r);
	void (*close)(void *r);
};

/*
 * trace_readers.c: every reader, in probe order, NULL-ended; and the one
 * whose probe() takes the file at @fd (read from its start), or NULL.
 */
extern const struct trace_reader_ops *const trace_readers[];
const struct trace_reader_ops *trace_reader_detect(int fd);

#endif /* SCHEDSTAT_TRACE_READER_H */
