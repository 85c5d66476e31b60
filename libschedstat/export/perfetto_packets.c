// SPDX-License-Identifier: GPL-2.0
/*
 * The native Perfetto writer's ground (perfetto_writer.h): packets and the
 * buffer they go out from, sequences, track descriptors, the tasks' tracks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfetto_fields.h"
#include "perfetto_writer.h"
#include "schedstat-local.h"

/* Output held before it is written: bounds the writer's memory. */
#define PFW_FLUSH_AT	(256u << 10)
/* A task not in a sample for this many samples has gone without an exit row. */
#define PFW_TASK_STALE	64

uint64_t pfw_uuid(struct schedstat_perfetto *p)
{
	return p->next_uuid++;
}

int pfw_flush(struct schedstat_perfetto *p)
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

void pfw_packet_begin_delta(struct schedstat_perfetto *p, uint32_t seq,
			    uint64_t delta)
{
	proto_begin(&p->out, PF_TRACE_PACKET);
	proto_put_uint(&p->out, PF_PKT_TIMESTAMP, delta);
	proto_put_uint(&p->out, PF_PKT_SEQUENCE_ID, seq);
}

int pfw_packet_end(struct schedstat_perfetto *p)
{
	proto_end(&p->out);
	if (p->out.err && !p->err)
		p->err = p->out.err;
	if (p->out.len >= PFW_FLUSH_AT)
		return pfw_flush(p);
	return p->err;
}

uint32_t pfw_sequence(struct schedstat_perfetto *p, const struct pfw_group_kind *k,
		      uint64_t uuid0, uint64_t ts)
{
	uint32_t seq = p->next_seq++;

	pfw_packet_begin(p, seq, 0);
	proto_put_uint(&p->out, PF_PKT_SEQUENCE_FLAGS, PF_SEQ_INCREMENTAL_STATE_CLEARED);
	proto_put_bool(&p->out, PF_PKT_FIRST_ON_SEQUENCE, true);
	if (k) {
		/* Its clock: CLOCK_MONOTONIC from @ts on, counted in deltas. */
		proto_begin(&p->out, PF_PKT_CLOCK_SNAPSHOT);
		proto_begin(&p->out, PF_CSNAP_CLOCKS);
		proto_put_uint(&p->out, PF_CLK_ID, PF_CLOCK_SEQUENCE);
		proto_put_uint(&p->out, PF_CLK_TIMESTAMP, ts);
		proto_put_bool(&p->out, PF_CLK_IS_INCREMENTAL, true);
		proto_end(&p->out);
		proto_begin(&p->out, PF_CSNAP_CLOCKS);
		proto_put_uint(&p->out, PF_CLK_ID, PF_CLOCK_MONOTONIC);
		proto_put_uint(&p->out, PF_CLK_TIMESTAMP, ts);
		proto_end(&p->out);
		proto_end(&p->out);
	}
	proto_begin(&p->out, PF_PKT_DEFAULTS);
	proto_put_uint(&p->out, PF_DEF_TIMESTAMP_CLOCK_ID,
		       k ? PF_CLOCK_SEQUENCE : PF_CLOCK_MONOTONIC);
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

static void track(struct schedstat_perfetto *p, uint64_t uuid, uint64_t parent,
		  const char *name, const char *desc,
		  const struct schedstat_trace_counter *counter, int rank)
{
	pfw_packet_begin(p, PFW_SEQ_TRACKS, 0);
	proto_begin(&p->out, PF_PKT_TRACK_DESCRIPTOR);
	proto_put_uint(&p->out, PF_TD_UUID, uuid);
	if (parent)
		proto_put_uint(&p->out, PF_TD_PARENT_UUID, parent);
	proto_put_string(&p->out, PF_TD_NAME, name);
	if (desc)
		proto_put_string(&p->out, PF_TD_DESCRIPTION, desc);
	if (counter) {
		proto_begin(&p->out, PF_TD_COUNTER);
		/* Signals in one unit under one parent share a scale (the
		 * unit is the key: a name of its own would double the bytes). */
		if (counter->unit)
			proto_put_string(&p->out, PF_CD_Y_AXIS_SHARE_KEY, counter->unit);
		proto_end(&p->out);
	} else {
		proto_put_uint(&p->out, PF_TD_CHILD_ORDERING, PF_ORDER_EXPLICIT);
	}
	if (rank >= 0)
		proto_put_int(&p->out, PF_TD_SIBLING_ORDER_RANK, rank);
	proto_end(&p->out);
	pfw_packet_end(p);
}

void pfw_track(struct schedstat_perfetto *p, uint64_t uuid, uint64_t parent,
	       const char *name, const struct schedstat_trace_counter *counter,
	       int rank)
{
	track(p, uuid, parent, name, NULL, counter, rank);
}

void pfw_track_desc(struct schedstat_perfetto *p, uint64_t uuid, uint64_t parent,
		    const char *name, const char *desc, int rank)
{
	track(p, uuid, parent, name, desc, NULL, rank);
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
/*
 * A thread's descriptor; @ts (CLOCK_MONOTONIC, 0 none) stamps one that
 * describes it again under a new name, so that a reader (ours:
 * perfetto_tracks.c) knows from when the name holds.
 */
static void thread_track(struct schedstat_perfetto *p, uint64_t uuid, uint64_t process,
			 int32_t tgid, int32_t tid, const char *name, uint64_t ts)
{
	pfw_packet_begin(p, PFW_SEQ_TRACKS, ts);
	if (ts)
		proto_put_uint(&p->out, PF_PKT_TIMESTAMP_CLOCK_ID, PF_CLOCK_MONOTONIC);
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
	if (p->nr_samples % PFW_TASK_STALE)
		return;
	for (size_t i = 0; i < p->nr_tasks; i++)
		if (p->tasks[i].pid >= 0 &&
		    p->tasks[i].last_seen + PFW_TASK_STALE < p->nr_samples)
			pfw_task_drop(p, &p->tasks[i]);
}

/*
 * A thread renamed (prctl, or exec for its process): its descriptor again,
 * same uuid and parent, new name, stamped with the time of the sample or
 * event (@ts) that first has the name. Perfetto keeps a track whose
 * descriptor comes again with only its name changed and takes the newest
 * name for the thread (and the process, where the main thread's name is
 * the process's). Android names most threads after they start: the first
 * name seen is often "Thread-N".
 */
static void task_renamed(struct schedstat_perfetto *p, struct pfw_task *t,
			 const char *comm, const char *process_name, uint64_t ts)
{
	uint64_t proc;

	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	if (schedstat_hash_get(p->procs, (uint32_t)t->tgid, &proc))
		return;
	if (t->pid == t->tgid && process_name)
		process_track(p, proc, t->tgid, process_name);
	thread_track(p, t->thread_uuid, proc, t->tgid, t->pid, comm, ts);
}

struct pfw_task *pfw_task_get(struct schedstat_perfetto *p, int32_t pid, int32_t tgid,
			      const char *comm, const char *process_name, uint64_t ts)
{
	struct pfw_task *t;
	uint64_t i, proc;
	size_t slot;

	if (!schedstat_hash_get(p->task_index, (uint32_t)pid, &i)) {
		t = &p->tasks[i];
		if (t->tgid == tgid) {
			t->last_seen = p->nr_samples;
			if (strcmp(t->comm, comm))
				task_renamed(p, t, comm, process_name, ts);
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
	thread_track(p, t->thread_uuid, proc, tgid, pid, comm, 0);
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
void pfw_clock_snapshot(struct schedstat_perfetto *p, const uint32_t *ids,
			   const uint64_t *ts, int n, uint32_t primary)
{
	pfw_packet_begin(p, PFW_SEQ_TRACKS, 0);
	proto_begin(&p->out, PF_PKT_CLOCK_SNAPSHOT);
	for (int i = 0; i < n; i++) {
		proto_begin(&p->out, PF_CSNAP_CLOCKS);
		proto_put_uint(&p->out, PF_CLK_ID, ids[i]);
		proto_put_uint(&p->out, PF_CLK_TIMESTAMP, ts[i]);
		proto_end(&p->out);
	}
	if (primary)
		proto_put_uint(&p->out, PF_CSNAP_PRIMARY_TRACE_CLOCK, primary);
	proto_end(&p->out);
	pfw_packet_end(p);
}
