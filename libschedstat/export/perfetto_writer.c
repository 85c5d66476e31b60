// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop's numbers as a native Perfetto trace (docs/perfetto.md): the
 * file, its clocks, its packet sequences and its tree of tracks. The wire
 * format is written by hand (proto_writer.h) with the field numbers of
 * perfetto_proto.h; no Perfetto code is involved.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfetto_proto.h"
#include "perfetto_writer.h"
#include "schedstat-local.h"

/* Output held before it is written: bounds the writer's memory. */
#define PFW_FLUSH_AT	(256u << 10)
/* Sequence 1 carries the clocks and every track descriptor. */
#define PFW_SEQ_TRACKS	1
/* A task not in a sample for this many samples has gone without an exit row. */
#define PFW_TASK_STALE	64

uint64_t pfw_uuid(struct schedstat_perfetto *p)
{
	return p->next_uuid++;
}

static int flush_out(struct schedstat_perfetto *p)
{
	size_t done = 0;

	if (p->out.err && !p->err)
		p->err = p->out.err;
	while (!p->err && done < p->out.len) {
		ssize_t n = write(p->fd, p->out.p + done, p->out.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			p->err = n < 0 ? -errno : -EIO;
		else
			done += n;
	}
	proto_reset(&p->out);
	return p->err;
}

void pfw_packet_begin(struct schedstat_perfetto *p, uint32_t seq, uint64_t ts)
{
	proto_begin(&p->out, PF_TRACE_PACKET);
	if (ts)
		proto_put_uint(&p->out, PF_PKT_TIMESTAMP, ts);
	proto_put_uint(&p->out, PF_PKT_SEQUENCE_ID, seq);
}

int pfw_packet_end(struct schedstat_perfetto *p)
{
	proto_end(&p->out);
	if (p->out.err && !p->err)
		p->err = p->out.err;
	if (p->out.len >= PFW_FLUSH_AT)
		return flush_out(p);
	return p->err;
}

uint32_t pfw_sequence(struct schedstat_perfetto *p, const struct pfw_group_kind *k,
		      uint64_t uuid0)
{
	uint32_t seq = p->next_seq++;

	pfw_packet_begin(p, seq, 0);
	proto_put_uint(&p->out, PF_PKT_SEQUENCE_FLAGS, PF_SEQ_INCREMENTAL_STATE_CLEARED);
	proto_put_bool(&p->out, PF_PKT_FIRST_ON_SEQUENCE, true);
	proto_begin(&p->out, PF_PKT_DEFAULTS);
	proto_put_uint(&p->out, PF_DEF_TIMESTAMP_CLOCK_ID, PF_CLOCK_MONOTONIC);
	if (k) {
		proto_begin(&p->out, PF_DEF_TRACK_EVENT);
		proto_put_uint(&p->out, PF_TED_TRACK_UUID, uuid0);
		/* The first counter is the event's own; the others extras, in order. */
		for (unsigned int i = 1; i < k->nr; i++)
			proto_put_uint(&p->out, k->ctr[i]->type == SCHEDSTAT_FIELD_F64 ?
				       PF_TED_EXTRA_DOUBLE_UUIDS : PF_TED_EXTRA_COUNTER_UUIDS,
				       uuid0 + i);
		proto_end(&p->out);
	}
	proto_end(&p->out);
	pfw_packet_end(p);
	return seq;
}

void pfw_track(struct schedstat_perfetto *p, uint64_t uuid, uint64_t parent,
	       const char *name, const struct schedstat_trace_counter *counter,
	       int rank)
{
	pfw_packet_begin(p, PFW_SEQ_TRACKS, 0);
	proto_begin(&p->out, PF_PKT_TRACK_DESCRIPTOR);
	proto_put_uint(&p->out, PF_TD_UUID, uuid);
	if (parent)
		proto_put_uint(&p->out, PF_TD_PARENT_UUID, parent);
	proto_put_string(&p->out, PF_TD_NAME, name);
	if (counter) {
		proto_begin(&p->out, PF_TD_COUNTER);
		if (counter->unit) {
			proto_put_string(&p->out, PF_CD_UNIT_NAME, counter->unit);
			/* Signals in one unit under one parent share a scale. */
			proto_put_string(&p->out, PF_CD_Y_AXIS_SHARE_KEY, counter->unit);
		}
		proto_end(&p->out);
	} else {
		proto_put_uint(&p->out, PF_TD_CHILD_ORDERING, PF_ORDER_EXPLICIT);
	}
	if (rank >= 0)
		proto_put_int(&p->out, PF_TD_SIBLING_ORDER_RANK, rank);
	proto_end(&p->out);
	pfw_packet_end(p);
}

static void process_track(struct schedstat_perfetto *p, uint64_t uuid,
			  int32_t tgid, const char *name)
{
	pfw_packet_begin(p, PFW_SEQ_TRACKS, 0);
	proto_begin(&p->out, PF_PKT_TRACK_DESCRIPTOR);
	proto_put_uint(&p->out, PF_TD_UUID, uuid);
	proto_begin(&p->out, PF_TD_PROCESS);
	proto_put_int(&p->out, PF_PD_PID, tgid);
	if (name)
		proto_put_string(&p->out, PF_PD_PROCESS_NAME, name);
	proto_end(&p->out);
	proto_end(&p->out);
	pfw_packet_end(p);
}

/* @process: its process's track (Perfetto goes by pid; this names the tie). */
static void thread_track(struct schedstat_perfetto *p, uint64_t uuid, uint64_t process,
			 int32_t tgid, int32_t tid, const char *name)
{
	pfw_packet_begin(p, PFW_SEQ_TRACKS, 0);
	proto_begin(&p->out, PF_PKT_TRACK_DESCRIPTOR);
	proto_put_uint(&p->out, PF_TD_UUID, uuid);
	proto_put_uint(&p->out, PF_TD_PARENT_UUID, process);
	proto_begin(&p->out, PF_TD_THREAD);
	proto_put_int(&p->out, PF_THD_PID, tgid);
	proto_put_int(&p->out, PF_THD_TID, tid);
	proto_put_string(&p->out, PF_THD_THREAD_NAME, name);
	proto_end(&p->out);
	proto_end(&p->out);
	pfw_packet_end(p);
}

uint64_t pfw_task_signals(struct schedstat_perfetto *p, struct pfw_task *t)
{
	char name[SCHEDSTAT_COMM_LEN + 32];

	if (!t->signals_uuid) {
		t->signals_uuid = pfw_uuid(p);
		snprintf(name, sizeof(name), "schedtop: %s %d", t->comm, t->pid);
		pfw_track(p, t->signals_uuid, t->thread_uuid, name, NULL, -1);
	}
	return t->signals_uuid;
}

void pfw_task_drop(struct schedstat_perfetto *p, struct pfw_task *t)
{
	size_t slot = t - p->tasks;

	schedstat_hash_remove(p->task_index, (uint32_t)t->pid);
	free(t->groups);
	memset(t, 0, sizeof(*t));
	t->pid = -1;
	if (!util_array_reserve((void **)&p->free_slots, &p->cap_free,
				p->nr_free + 1, sizeof(*p->free_slots)))
		p->free_slots[p->nr_free++] = slot;
}

void pfw_tasks_sweep(struct schedstat_perfetto *p)
{
	for (size_t i = 0; i < p->nr_tasks; i++)
		if (p->tasks[i].pid >= 0 &&
		    p->tasks[i].last_seen + PFW_TASK_STALE < p->nr_samples)
			pfw_task_drop(p, &p->tasks[i]);
}

struct pfw_task *pfw_task_get(struct schedstat_perfetto *p, int32_t pid, int32_t tgid,
			      const char *comm, const char *process_name)
{
	struct pfw_task *t;
	uint64_t i, proc;
	size_t slot;

	if (!schedstat_hash_get(p->task_index, (uint32_t)pid, &i)) {
		t = &p->tasks[i];
		if (t->tgid == tgid) {
			t->last_seen = p->nr_samples;
			return t;
		}
		/* The pid went to another process: a new thread. */
		pfw_task_drop(p, t);
	}
	if (schedstat_hash_get(p->procs, (uint32_t)tgid, &proc)) {
		proc = pfw_uuid(p);
		if (schedstat_hash_put(p->procs, (uint32_t)tgid, proc))
			return NULL;
		process_track(p, proc, tgid, process_name);
	}
	if (p->nr_free) {
		slot = p->free_slots[--p->nr_free];
	} else {
		if (util_array_reserve((void **)&p->tasks, &p->cap_tasks, p->nr_tasks + 1,
				       sizeof(*p->tasks)))
			return NULL;
		slot = p->nr_tasks++;
	}
	t = &p->tasks[slot];
	memset(t, 0, sizeof(*t));
	t->pid = -1;
	if (p->nr_task_kinds) {
		t->groups = calloc(p->nr_task_kinds, sizeof(*t->groups));
		if (!t->groups)
			goto fail;
	}
	if (schedstat_hash_put(p->task_index, (uint32_t)pid, slot))
		goto fail;
	t->pid = pid;
	t->tgid = tgid;
	t->last_seen = p->nr_samples;
	t->thread_uuid = pfw_uuid(p);
	thread_track(p, t->thread_uuid, proc, tgid, pid, comm);
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	return t;
fail:
	free(t->groups);
	t->groups = NULL;
	/* Back where it came from: the end of the array or the free list. */
	if (slot == p->nr_tasks - 1)
		p->nr_tasks--;
	else
		p->free_slots[p->nr_free++] = slot;
	return NULL;
}

/* One ClockSnapshot; @primary: the trace's clock (0: leave it). */
static void clock_snapshot(struct schedstat_perfetto *p, const uint32_t *ids,
			   const uint64_t *ts, int n, uint32_t primary)
{
	pfw_packet_begin(p, PFW_SEQ_TRACKS, 0);
	proto_begin(&p->out, PF_PKT_CLOCK_SNAPSHOT);
	for (int i = 0; i < n; i++) {
		proto_begin(&p->out, PF_CS_CLOCKS);
		proto_put_uint(&p->out, PF_CLK_ID, ids[i]);
		proto_put_uint(&p->out, PF_CLK_TIMESTAMP, ts[i]);
		proto_end(&p->out);
	}
	if (primary)
		proto_put_uint(&p->out, PF_CS_PRIMARY_TRACE_CLOCK, primary);
	proto_end(&p->out);
	pfw_packet_end(p);
}

/*
 * Every pair the recording kept, at the start: the trace processor maps a
 * time by the latest snapshot at or before it (the first for earlier
 * times), so a suspend between two pairs moves BOOTTIME's offset where it
 * happened. Without pairs the trace's clock is MONOTONIC itself.
 */
static void clocks(struct schedstat_perfetto *p, const struct schedstat_perfetto_opts *o)
{
	uint32_t ids[3];
	uint64_t ts[3];
	int n = 0;

	p->aligned = o->nr_clocks > 0;
	ids[n] = PF_CLOCK_MONOTONIC;
	ts[n++] = p->aligned ? o->clocks[0].monotonic_ns : 0;
	if (p->aligned) {
		ids[n] = PF_CLOCK_BOOTTIME;
		ts[n++] = o->clocks[0].boottime_ns;
	}
	/* Realtime only once: NTP may step it, and snapshots must not go back. */
	if (o->have_realtime && (int64_t)ts[0] + o->realtime_offset_ns > 0) {
		ids[n] = PF_CLOCK_REALTIME;
		ts[n++] = ts[0] + o->realtime_offset_ns;
	}
	clock_snapshot(p, ids, ts, n, p->aligned ? PF_CLOCK_BOOTTIME : PF_CLOCK_MONOTONIC);
	for (size_t i = 1; i < o->nr_clocks; i++) {
		ids[0] = PF_CLOCK_MONOTONIC;
		ts[0] = o->clocks[i].monotonic_ns;
		ids[1] = PF_CLOCK_BOOTTIME;
		ts[1] = o->clocks[i].boottime_ns;
		if (ts[0] > o->clocks[i - 1].monotonic_ns &&
		    ts[1] > o->clocks[i - 1].boottime_ns)
			clock_snapshot(p, ids, ts, 2, 0);
	}
}

/* The machine's tracks: CPUs and clusters, each with its counters. */
static int machine_tracks(struct schedstat_perfetto *p)
{
	char name[64];

	p->cpu_uuid = calloc(p->nr_cpus, sizeof(*p->cpu_uuid));
	p->cluster_uuid = calloc(p->nr_clusters, sizeof(*p->cluster_uuid));
	p->cpu_groups = calloc((size_t)p->nr_cpus * (p->nr_cpu_kinds + 1),
			       sizeof(*p->cpu_groups));
	p->cluster_groups = calloc((size_t)p->nr_clusters * (p->nr_cluster_kinds + 1),
				   sizeof(*p->cluster_groups));
	p->cpu_pelt = calloc((size_t)p->nr_cpus * PFW_PELT_ENTITIES, sizeof(*p->cpu_pelt));
	p->hotplug_uuid = calloc(p->nr_cpus, sizeof(*p->hotplug_uuid));
	p->hotplug_seq = calloc(p->nr_cpus, sizeof(*p->hotplug_seq));
	if (!p->cpu_uuid || !p->cluster_uuid || !p->cpu_groups || !p->cluster_groups ||
	    !p->cpu_pelt || !p->hotplug_uuid || !p->hotplug_seq)
		return -ENOMEM;
	p->cpus_uuid = pfw_uuid(p);
	pfw_track(p, p->cpus_uuid, 0, "schedtop CPUs", NULL, 0);
	p->clusters_uuid = pfw_uuid(p);
	pfw_track(p, p->clusters_uuid, 0, "schedtop clusters", NULL, 1);
	for (int c = 0; c < p->nr_cpus; c++) {
		if (schedstat_topology_cpu_cluster(p->topo, c) < 0)
			continue;
		p->cpu_uuid[c] = pfw_uuid(p);
		snprintf(name, sizeof(name), "cpu%d", c);
		pfw_track(p, p->cpu_uuid[c], p->cpus_uuid, name, NULL, c);
		for (size_t k = 0; k < p->nr_cpu_kinds; k++)
			pfw_group_tracks(p, &p->cpu_groups[c * p->nr_cpu_kinds + k],
					 &p->kinds[p->first_cpu_kind + k],
					 p->cpu_uuid[c], name);
	}
	for (int k = 0; k < p->nr_clusters; k++) {
		const char *cl = schedstat_topology_cluster_name(p->topo, k);

		p->cluster_uuid[k] = pfw_uuid(p);
		pfw_track(p, p->cluster_uuid[k], p->clusters_uuid, cl, NULL, k);
		for (size_t g = 0; g < p->nr_cluster_kinds; g++)
			pfw_group_tracks(p, &p->cluster_groups[k * p->nr_cluster_kinds + g],
					 &p->kinds[p->first_cluster_kind + g],
					 p->cluster_uuid[k], cl);
	}
	return p->err;
}

int schedstat_perfetto_open(struct schedstat_perfetto **out, int fd,
			    const struct schedstat_perfetto_opts *opts)
{
	struct schedstat_perfetto *p;
	int err;

	*out = NULL;
	if (!opts || opts->sz < sizeof(*opts) || !opts->topo)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = fd;
	p->topo = opts->topo;
	p->nr_cpus = schedstat_topology_nr_cpus(opts->topo);
	p->nr_clusters = schedstat_topology_nr_clusters(opts->topo);
	p->next_uuid = 1;
	p->next_seq = PFW_SEQ_TRACKS + 1;
	err = schedstat_hash_new(&p->task_index);
	if (!err)
		err = schedstat_hash_new(&p->procs);
	if (!err)
		err = pfw_counter_kinds(p, opts->counters, opts->nr_counters);
	if (err)
		goto fail;
	/* The tracks' sequence: first, with nothing to carry but descriptors. */
	pfw_packet_begin(p, PFW_SEQ_TRACKS, 0);
	proto_put_uint(&p->out, PF_PKT_SEQUENCE_FLAGS, PF_SEQ_INCREMENTAL_STATE_CLEARED);
	proto_put_bool(&p->out, PF_PKT_FIRST_ON_SEQUENCE, true);
	pfw_packet_end(p);
	clocks(p, opts);
	err = machine_tracks(p);
	if (err)
		goto fail;
	*out = p;
	return 0;
fail:
	schedstat_perfetto_close(p);
	return err;
}

int schedstat_perfetto_add_sample(struct schedstat_perfetto *p,
				  const struct schedstat_snapshot *snap,
				  const struct schedstat_event *evs, size_t nr_evs)
{
	int err;

	if (p->err)
		return p->err;
	p->nr_samples++;
	err = pfw_events(p, evs, nr_evs);
	if (!err)
		err = pfw_samples_counters(p, snap);
	if (!err && p->nr_samples % PFW_TASK_STALE == 0)
		pfw_tasks_sweep(p);
	if (err && !p->err)
		p->err = err;
	return p->err;
}

int schedstat_perfetto_close(struct schedstat_perfetto *p)
{
	int err;

	if (!p)
		return 0;
	err = flush_out(p);
	for (size_t i = 0; i < p->nr_tasks; i++)
		free(p->tasks[i].groups);
	free(p->tasks);
	free(p->free_slots);
	schedstat_hash_free(p->task_index);
	schedstat_hash_free(p->procs);
	free(p->kinds);
	free(p->cpu_uuid);
	free(p->cluster_uuid);
	free(p->cpu_groups);
	free(p->cluster_groups);
	free(p->cpu_pelt);
	free(p->hotplug_uuid);
	free(p->hotplug_seq);
	proto_free(&p->out);
	free(p);
	return err;
}
