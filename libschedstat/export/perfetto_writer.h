/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The native Perfetto writer's own layout, shared by its files:
 * perfetto_packets.c (packets, sequences, track descriptors, tasks),
 * perfetto_writer.c (the file: open, clocks, the machine's tracks, close),
 * perfetto_counters.c (samples and PELT updates as counters),
 * perfetto_slices.c (hotplug, activations, moves and overutilized flips).
 *
 * Every counter group of an entity (a task's PELT signals, a CPU's first
 * nine...) has a packet sequence of its own, whose defaults name its
 * tracks: a sample then costs each group one small event with the values
 * and no track ids. Slices and instants go on sequences of their own too,
 * so that every sequence's timestamps only grow. Timestamps are
 * CLOCK_MONOTONIC (the defaults' clock); clock snapshots at the start tie
 * it to CLOCK_BOOTTIME where the recording kept how (docs/perfetto.md).
 */
#ifndef SCHEDSTAT_PERFETTO_WRITER_H
#define SCHEDSTAT_PERFETTO_WRITER_H

#include "proto_writer.h"
#include "schedstat.h"

/* A group's counters: the trace processor's 1 + PF_MAX_EXTRA_COUNTERS. */
#define PFW_GROUP_MAX	9

/* The counters of one row kind in one group, in the order written. */
struct pfw_group_kind {
	enum schedstat_row_kind row;
	const struct schedstat_trace_counter *ctr[PFW_GROUP_MAX];
	unsigned int nr;
};

/*
 * One entity's group: its track uuids, its sequence (made at its first
 * event), the time of its last event (its clock counts from there: a
 * sample's delta is a few bytes, not a whole timestamp) and the values
 * last written.
 */
struct pfw_group {
	uint32_t seq;
	uint64_t last_ts;
	uint64_t uuid0;		/* counter i's track is uuid0 + i; 0: none yet */
	double last[PFW_GROUP_MAX];
	uint16_t had;		/* bit i: last[i] was written */
};

/* A task seen in samples or PELT updates. */
struct pfw_task {
	int32_t pid, tgid;
	uint64_t thread_uuid;
	/*
	 * Its counters' parent: a plain track under the thread track, as
	 * Perfetto nests only under a track of no thread or process of its own
	 * (track_descriptor.proto, parent_uuid).
	 */
	uint64_t signals_uuid;	/* 0 until its first counter */
	char comm[SCHEDSTAT_COMM_LEN];
	uint64_t last_seen;	/* sample number */
	struct pfw_group *groups;	/* one per task group kind, seq 0 until used */
	struct pfw_group pelt;		/* --pelt-trace counters */
	uint32_t events_seq;		/* instants and activation slices */
	uint64_t sampled_at;		/* the sample number of its last row, 0 none */
	bool gone_said;			/* its "gone" written since that row */
};

/* A CPU's PELT entity (cfs, rt, dl, irq). */
#define PFW_PELT_ENTITIES	6

struct schedstat_perfetto {
	int fd;
	int err;			/* sticky */
	struct proto_buf out;
	const struct schedstat_topology *topo;
	int nr_cpus, nr_clusters;
	uint64_t next_uuid;
	uint32_t next_seq;
	bool aligned;			/* clock snapshots tie us to BOOTTIME */
	/* Group kinds per row, from the counters. */
	struct pfw_group_kind *kinds;
	size_t nr_kinds;
	size_t nr_task_kinds;		/* the task ones come first */
	size_t first_cpu_kind, nr_cpu_kinds;
	size_t first_cluster_kind, nr_cluster_kinds;
	uint64_t cpus_uuid, clusters_uuid;
	uint64_t *cpu_uuid;		/* per CPU: its track */
	uint64_t *cluster_uuid;
	struct pfw_group *cpu_groups;	/* [cpu * nr_cpu_kinds + k] */
	struct pfw_group *cluster_groups;
	struct pfw_group *cpu_pelt;	/* [cpu * PFW_PELT_ENTITIES + entity] */
	uint64_t *hotplug_uuid;		/* per CPU, 0 until its first operation */
	uint32_t *hotplug_seq;
	uint64_t overutil_uuid;
	uint32_t overutil_seq;
	/* Tasks alive: pid -> index; freed slots listed for reuse. */
	struct schedstat_hash *task_index;
	struct pfw_task *tasks;
	size_t nr_tasks, cap_tasks;
	size_t *free_slots;
	size_t nr_free, cap_free;
	/* Processes whose track is written: tgid -> uuid. */
	struct schedstat_hash *procs;
	uint64_t nr_samples;
};

/* Sequence 1 carries the clocks and every track descriptor. */
#define PFW_SEQ_TRACKS	1

/* perfetto_packets.c */
uint64_t pfw_uuid(struct schedstat_perfetto *p);
/* Writes out what is held; the sticky error. */
int pfw_flush(struct schedstat_perfetto *p);
/* One ClockSnapshot of @n clocks; @primary: the trace's clock (0: leave it). */
void pfw_clock_snapshot(struct schedstat_perfetto *p, const uint32_t *ids,
			const uint64_t *ts, int n, uint32_t primary);
/*
 * A new sequence: its first packet sets the defaults and the clock. A
 * counter group's (@k) times are deltas on a clock of its own that starts
 * at @ts (CLOCK_MONOTONIC); others' are CLOCK_MONOTONIC.
 */
uint32_t pfw_sequence(struct schedstat_perfetto *p, const struct pfw_group_kind *k,
		      uint64_t uuid0, uint64_t ts);
/* Opens a TracePacket (Trace.packet) on @seq at @ts (0: none). */
void pfw_packet_begin(struct schedstat_perfetto *p, uint32_t seq, uint64_t ts);
/* The same at @delta after the sequence's last packet (written if 0 too). */
void pfw_packet_begin_delta(struct schedstat_perfetto *p, uint32_t seq,
			    uint64_t delta);
/* Closes it; flushes the output when enough is held. */
int pfw_packet_end(struct schedstat_perfetto *p);
/* A track: a plain one (@counter NULL) or a counter track. */
void pfw_track(struct schedstat_perfetto *p, uint64_t uuid, uint64_t parent,
	       const char *name, const struct schedstat_trace_counter *counter,
	       int rank);
/* The same, a plain track with a description (@desc). */
void pfw_track_desc(struct schedstat_perfetto *p, uint64_t uuid, uint64_t parent,
		    const char *name, const char *desc, int rank);
/*
 * The task's state (created, with its process and thread tracks; described
 * again, stamped @ts, when @comm is a new name); NULL: no memory.
 */
struct pfw_task *pfw_task_get(struct schedstat_perfetto *p, int32_t pid, int32_t tgid,
			      const char *comm, const char *process_name, uint64_t ts);
void pfw_task_drop(struct schedstat_perfetto *p, struct pfw_task *t);
/* The parent of its counter tracks, described on first asking. */
uint64_t pfw_task_signals(struct schedstat_perfetto *p, struct pfw_task *t);
/* Every so many samples: tasks not seen for a while (their exit lost) go. */
void pfw_tasks_sweep(struct schedstat_perfetto *p);

/* perfetto_counters.c */
int pfw_counter_kinds(struct schedstat_perfetto *p,
		      const struct schedstat_trace_counter *ctrs, size_t nr);
/*
 * Where a group's tracks go, made at its first event: under @task's
 * signals track, or under @parent; named "@prefix NAME" (NULL: "NAME").
 */
struct pfw_where {
	struct pfw_task *task;
	uint64_t parent;
	const char *prefix;
};
/* Writes @row's values of @k at @ts if any changed. */
int pfw_group_sample(struct schedstat_perfetto *p, struct pfw_group *g,
		     const struct pfw_group_kind *k, const void *row,
		     uint32_t avail, uint64_t ts, const struct pfw_where *where);
int pfw_samples_counters(struct schedstat_perfetto *p,
			 const struct schedstat_snapshot *snap);

/* perfetto_slices.c */
int pfw_events(struct schedstat_perfetto *p, const struct schedstat_event *evs,
	       size_t nr);
/* Its rows end: "exit" (@exited, at its last row) or "gone" (the first sample without it). */
int pfw_task_end(struct schedstat_perfetto *p, struct pfw_task *t, uint64_t ts,
		 bool exited);
/* A task's events sequence (instants, activation slices). */
uint32_t pfw_task_events_seq(struct schedstat_perfetto *p, struct pfw_task *t);

#endif /* SCHEDSTAT_PERFETTO_WRITER_H */
