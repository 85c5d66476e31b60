/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedtop's own native Perfetto export (convert --perfetto) read back:
 * its track descriptors, by their stable names (docs/perfetto.md), tell
 * which row field of which task, CPU or cluster a counter track holds; its
 * packet sequences' defaults and incremental clocks give each counter
 * event its tracks and its time. perfetto_reader.c walks the packets and
 * hands this what it finds; out come TRACE_EV_COUNTER events (the same the
 * --atrace counters of a capture give) and TRACE_EV_TASK for its threads.
 *
 * What has no row is counted, not read: --pelt-trace's "pelt" counters,
 * the overutilized flag, slices and instants (hotplug, activations, moves).
 */
#ifndef SCHEDSTAT_PERFETTO_TRACKS_H
#define SCHEDSTAT_PERFETTO_TRACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "proto_reader.h"
#include "trace_event.h"

/* A group's counters: one event's and 8 extras (the writer's 9). */
#define PFT_MAX_VALUES	9

struct pf_track;
struct pf_seq;

struct pf_tracks {
	struct schedstat_hash *idx;	/* uuid -> index in tracks */
	struct pf_track *tracks;
	size_t nr, cap;
	struct schedstat_hash *seq_idx;	/* sequence id -> index in seqs */
	struct pf_seq *seqs;
	size_t nr_seqs, cap_seqs;
	int nr_cpus;			/* highest "cpuN" track + 1 */
	/*
	 * Its clusters as a --topology spec ("LITTLE:0-3@446,..."), from the
	 * cluster tracks' descriptions ("cpus 0-3 capacity 446"); "" if any
	 * cluster has none or one that does not read.
	 */
	char topology[1024];
	bool topology_bad;
	/* Counted for the note: values with no row, events not placed in time. */
	uint64_t no_row, no_time;
	const char *err;		/* what a -EINVAL was (a bound) */
};

/* One packet's place: its sequence and time, from a first walk of it. */
struct pf_packet_head {
	uint32_t seq;
	uint64_t ts;
	uint32_t clock;			/* timestamp_clock_id, 0: the defaults' */
	bool has_ts, cleared;
};

int pf_tracks_init(struct pf_tracks *t);
void pf_tracks_free(struct pf_tracks *t);
/* Everything forgotten: the file is read again from its start. */
void pf_tracks_reset(struct pf_tracks *t);

/* The packet's first walk: its head, and its sequence's incremental clock. */
int pf_tracks_packet(struct pf_tracks *t, const struct proto_cursor *pkt,
		     struct pf_packet_head *h);
/*
 * A TrackDescriptor (in the packet @h): remembered. A thread's fills @task
 * (TRACE_EV_TASK) and returns 1; a thread described again under another
 * name at a time (the writer's task_renamed()) fills it as TRACE_EV_RENAME
 * at that time instead; 0 otherwise; -ENOMEM, or -EINVAL past a bound
 * (@t->err).
 */
int pf_tracks_descriptor(struct pf_tracks *t, const struct pf_packet_head *h,
			 const struct proto_field *f, struct trace_ev *task);
/* trace_packet_defaults, a ClockSnapshot on a sequence. */
int pf_tracks_defaults(struct pf_tracks *t, const struct pf_packet_head *h,
		       const struct proto_field *f);
int pf_tracks_clock(struct pf_tracks *t, const struct pf_packet_head *h,
		    const struct proto_field *f);
/*
 * A TrackEvent: its counter values on tracks that hold a row's field, as
 * TRACE_EV_COUNTER events in @out (at most PFT_MAX_VALUES); how many.
 * Malformed bytes: -EBADMSG.
 */
int pf_tracks_event(struct pf_tracks *t, const struct pf_packet_head *h,
		    const struct proto_field *f, struct trace_ev *out);

#endif /* SCHEDSTAT_PERFETTO_TRACKS_H */
