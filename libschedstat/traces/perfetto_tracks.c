// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop's native export read back (perfetto_tracks.h): its tracks by
 * their stable names, its sequences' defaults and clocks, its counter
 * events as row values. Every table is bounded; nothing here prints.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atrace.h"
#include "perfetto_fields.h"
#include "perfetto_tracks.h"
#include "schedstat-local.h"

/* More tracks or sequences than this is not an export of ours (500 tasks x 13 ...). */
#define PFT_MAX_TRACKS	(1u << 22)
#define PFT_MAX_SEQS	(1u << 20)
#define PFT_MAX_EXTRAS	(PFT_MAX_VALUES - 1)

enum pf_track_kind {
	TRK_OTHER,
	TRK_ROOT_CPUS,		/* "schedtop CPUs" */
	TRK_ROOT_CLUSTERS,	/* "schedtop clusters" */
	TRK_CPU,		/* "cpuN" under the first */
	TRK_CLUSTER,		/* a cluster's name under the second */
	TRK_THREAD,		/* a thread descriptor */
	TRK_TASK,		/* "schedtop: COMM TID" under a thread */
	TRK_COUNTER,		/* a counter of a row's field */
	TRK_NO_ROW,		/* a counter of none ("pelt ...", overutilized) */
};

struct pf_track {
	uint8_t kind;
	uint8_t row, type;		/* TRK_COUNTER */
	uint16_t offset;
	int32_t tid, tgid;		/* TRK_THREAD, TRK_TASK, a task's counter */
	int32_t cpu;			/* TRK_CPU, a CPU's counter */
	/* TRK_CPU/TRK_CLUSTER's, a cluster counter's cluster; TRK_THREAD's comm */
	char name[TRACE_COMM_LEN];
};

struct pf_seq {
	/* Its incremental clock (id 64): where it stands, tied to MONOTONIC. */
	bool have_clock, incremental;
	uint64_t clock_now, clock_base, mono_base;
	/* trace_packet_defaults */
	uint32_t def_clock;
	uint64_t def_track;
	uint64_t def_int[PFT_MAX_EXTRAS], def_dbl[PFT_MAX_EXTRAS];
	uint8_t nr_int, nr_dbl;
};

int pf_tracks_init(struct pf_tracks *t)
{
	memset(t, 0, sizeof(*t));
	if (schedstat_hash_new(&t->idx) || schedstat_hash_new(&t->seq_idx)) {
		pf_tracks_free(t);
		return -ENOMEM;
	}
	return 0;
}

void pf_tracks_free(struct pf_tracks *t)
{
	schedstat_hash_free(t->idx);
	schedstat_hash_free(t->seq_idx);
	free(t->tracks);
	free(t->seqs);
	memset(t, 0, sizeof(*t));
}

void pf_tracks_reset(struct pf_tracks *t)
{
	schedstat_hash_clear(t->idx);
	schedstat_hash_clear(t->seq_idx);
	t->nr = t->nr_seqs = 0;
	t->nr_cpus = 0;
	t->topology[0] = '\0';
	t->topology_bad = false;
	t->no_row = t->no_time = 0;
}

static struct pf_track *track_find(const struct pf_tracks *t, uint64_t uuid)
{
	uint64_t i;

	if (!uuid || schedstat_hash_get(t->idx, uuid, &i))
		return NULL;
	return &t->tracks[i];
}

static struct pf_seq *seq_get(struct pf_tracks *t, uint32_t id, bool make)
{
	uint64_t i;

	if (!id)
		return NULL;
	if (!schedstat_hash_get(t->seq_idx, id, &i))
		return &t->seqs[i];
	if (!make || t->nr_seqs >= PFT_MAX_SEQS ||
	    schedstat_array_reserve((void **)&t->seqs, &t->cap_seqs, t->nr_seqs + 1,
				    sizeof(*t->seqs)) ||
	    schedstat_hash_put(t->seq_idx, id, t->nr_seqs))
		return NULL;
	memset(&t->seqs[t->nr_seqs], 0, sizeof(t->seqs[0]));
	return &t->seqs[t->nr_seqs++];
}

int pf_tracks_packet(struct pf_tracks *t, const struct proto_cursor *pkt,
		     struct pf_packet_head *h)
{
	struct proto_cursor c = *pkt;
	struct proto_field f;
	struct pf_seq *s;
	uint64_t ts = 0;
	uint32_t clock;

	memset(h, 0, sizeof(*h));
	while (proto_next(&c, &f)) {
		if (f.wire != PROTO_VARINT)
			continue;
		if (f.id == PF_PKT_TIMESTAMP) {
			ts = f.value;
			h->has_ts = true;
		} else if (f.id == PF_PKT_SEQUENCE_ID) {
			h->seq = (uint32_t)f.value;
		} else if (f.id == PF_PKT_TIMESTAMP_CLOCK_ID) {
			h->clock = (uint32_t)f.value;
		} else if (f.id == PF_PKT_SEQUENCE_FLAGS) {
			h->cleared = f.value & PF_SEQ_INCREMENTAL_STATE_CLEARED;
		}
	}
	s = seq_get(t, h->seq, h->cleared);
	if (h->cleared && s)
		memset(s, 0, sizeof(*s));
	if (!h->has_ts)
		return 0;
	h->has_ts = false;
	clock = h->clock ? h->clock : s ? s->def_clock : 0;
	if (clock == PF_CLOCK_MONOTONIC) {
		h->ts = ts;
		h->has_ts = true;
	} else if (clock == PF_CLOCK_SEQUENCE && s && s->have_clock) {
		s->clock_now = s->incremental ? s->clock_now + ts : ts;
		if (s->clock_now >= s->clock_base) {
			h->ts = s->mono_base + (s->clock_now - s->clock_base);
			h->has_ts = true;
		}
	}
	/* Any other clock (a capture's BOOTTIME): not an export's counters. */
	return 0;
}

/* A counter under @parent named @name: which row field, if any. */
static void counter_of(struct pf_track *tr, const struct pf_track *parent,
		       const char *name)
{
	const char *sig = name;
	size_t offset;
	enum schedstat_field_type type;

	tr->kind = TRK_NO_ROW;
	if (!parent)
		return;
	switch (parent->kind) {
	case TRK_CPU:
		tr->row = SCHEDSTAT_ROW_CPU;
		break;
	case TRK_CLUSTER:
		tr->row = SCHEDSTAT_ROW_CLUSTER;
		break;
	case TRK_TASK:
		tr->row = SCHEDSTAT_ROW_TASK;
		break;
	default:
		return;
	}
	/* "cpuN SIGNAL", "CLUSTER SIGNAL": the parent's name first. */
	if (parent->kind != TRK_TASK) {
		size_t n = strlen(parent->name);

		if (strncmp(name, parent->name, n) || name[n] != ' ')
			return;
		sig = name + n + 1;
	}
	/* "pelt SIGNAL", "cpuN cfs pelt SIGNAL": updates, no row's. */
	if (strchr(sig, ' ') ||
	    atrace_field_find(tr->row, sig, strlen(sig), &type, &offset) ||
	    offset > UINT16_MAX)
		return;
	tr->kind = TRK_COUNTER;
	tr->type = type;
	tr->offset = (uint16_t)offset;
	tr->tid = parent->tid;
	tr->tgid = parent->tgid;
	tr->cpu = parent->cpu;
	memcpy(tr->name, parent->name, sizeof(tr->name));
}

/* A cluster track's description, "cpus LIST capacity N", into the spec. */
static void cluster_spec(struct pf_tracks *t, const char *name, const char *desc)
{
	char list[sizeof(t->topology)];
	unsigned int cap;
	size_t len = strlen(t->topology);
	int n;

	if (t->topology_bad || strpbrk(name, ",:@ ") ||
	    sscanf(desc, "cpus %1000[0-9,-] capacity %u%n", list, &cap, &n) != 2 ||
	    desc[n] || !cap || cap > 1u << 20 ||
	    snprintf(t->topology + len, sizeof(t->topology) - len, "%s%s:%s@%u",
		     len ? "," : "", name, list, cap) >= (int)(sizeof(t->topology) - len)) {
		t->topology_bad = true;
		t->topology[0] = '\0';
	}
}

int pf_tracks_descriptor(struct pf_tracks *t, const struct pf_packet_head *head,
			 const struct proto_field *f, struct trace_ev *task)
{
	struct proto_cursor c, sub;
	struct proto_field g, h;
	uint64_t uuid = 0, parent_uuid = 0, i;
	bool counter = false, thread = false, renamed = false;
	int32_t pid = 0, tid = 0;
	char name[160] = "", comm[TRACE_COMM_LEN] = "", desc[160] = "";
	const struct pf_track *parent;
	struct pf_track tr = { .cpu = -1 };
	unsigned int cpu;
	char end;

	proto_cursor_init(&c, f->data, f->len);
	while (proto_next(&c, &g)) {
		if (g.id == PF_TD_UUID && g.wire == PROTO_VARINT)
			uuid = g.value;
		else if (g.id == PF_TD_PARENT_UUID && g.wire == PROTO_VARINT)
			parent_uuid = g.value;
		else if (g.id == PF_TD_NAME && g.wire == PROTO_BYTES)
			proto_string(&g, name, sizeof(name));
		else if (g.id == PF_TD_DESCRIPTION && g.wire == PROTO_BYTES)
			proto_string(&g, desc, sizeof(desc));
		else if (g.id == PF_TD_COUNTER && g.wire == PROTO_BYTES)
			counter = true;
		else if (g.id == PF_TD_THREAD && g.wire == PROTO_BYTES) {
			thread = true;
			proto_cursor_init(&sub, g.data, g.len);
			while (proto_next(&sub, &h)) {
				if (h.id == PF_THD_PID && h.wire == PROTO_VARINT)
					pid = (int32_t)h.value;
				else if (h.id == PF_THD_TID && h.wire == PROTO_VARINT)
					tid = (int32_t)h.value;
				else if (h.id == PF_THD_THREAD_NAME && h.wire == PROTO_BYTES)
					proto_string(&h, comm, sizeof(comm));
			}
			if (sub.err)
				return -EBADMSG;
		}
	}
	if (c.err)
		return -EBADMSG;
	if (!uuid)
		return 0;
	parent = track_find(t, parent_uuid);
	if (thread) {
		tr.kind = TRK_THREAD;
		tr.tid = tid;
		tr.tgid = pid;
		snprintf(tr.name, sizeof(tr.name), "%s", comm);
	} else if (counter) {
		counter_of(&tr, parent, name);
	} else if (!parent_uuid && !strcmp(name, "schedtop CPUs")) {
		tr.kind = TRK_ROOT_CPUS;
	} else if (!parent_uuid && !strcmp(name, "schedtop clusters")) {
		tr.kind = TRK_ROOT_CLUSTERS;
	} else if (parent && parent->kind == TRK_ROOT_CPUS &&
		   sscanf(name, "cpu%u%c", &cpu, &end) == 1 && cpu < SCHEDSTAT_MAX_CPUS) {
		tr.kind = TRK_CPU;
		tr.cpu = (int32_t)cpu;
		snprintf(tr.name, sizeof(tr.name), "cpu%u", cpu);
		if ((int)cpu >= t->nr_cpus)
			t->nr_cpus = (int)cpu + 1;
	} else if (parent && parent->kind == TRK_ROOT_CLUSTERS && name[0] &&
		   strlen(name) < sizeof(tr.name)) {
		tr.kind = TRK_CLUSTER;
		memcpy(tr.name, name, strlen(name) + 1);
		cluster_spec(t, name, desc);
	} else if (parent && parent->kind == TRK_THREAD && !strncmp(name, "schedtop: ", 10)) {
		tr.kind = TRK_TASK;
		tr.tid = parent->tid;
		tr.tgid = parent->tgid;
	}
	if (!schedstat_hash_get(t->idx, uuid, &i)) {
		const struct pf_track *was = &t->tracks[i];

		/*
		 * The same thread under a new name, from the time the writer
		 * stamped on it (the first sample or update that has the
		 * name). An export written before it stamped them: the first
		 * name stays, as it did then.
		 */
		renamed = thread && tid > 0 && comm[0] && head->has_ts &&
			  was->kind == TRK_THREAD && was->tid == tid &&
			  strcmp(was->name, tr.name);
	} else {
		if (t->nr >= PFT_MAX_TRACKS) {
			t->err = "more than 4194304 tracks";
			return -EINVAL;
		}
		if (schedstat_array_reserve((void **)&t->tracks, &t->cap, t->nr + 1,
					    sizeof(*t->tracks)) ||
		    schedstat_hash_put(t->idx, uuid, t->nr))
			return -ENOMEM;
		i = t->nr++;
	}
	t->tracks[i] = tr;
	if (!thread || tid <= 0)
		return 0;
	trace_ev_task(task, tid, pid, comm);
	if (renamed) {
		task->kind = TRACE_EV_RENAME;
		task->ts = head->ts;
		task->cpu = 0;		/* an export's events are all CPU 0's */
	}
	return 1;
}

/* Up to @max uuids of a repeated field (packed or not) into @out from @n on. */
static int uuids_add(const struct proto_field *f, uint64_t *out, uint8_t *n, int max)
{
	struct proto_packed pk;
	uint64_t v;

	if (f->wire == PROTO_VARINT) {
		if (*n < max)
			out[(*n)++] = f->value;
		return 0;
	}
	if (f->wire != PROTO_BYTES)
		return -EBADMSG;
	proto_packed_init(&pk, f);
	while (proto_packed_next(&pk, &v))
		if (*n < max)
			out[(*n)++] = v;
	return pk.err ? -EBADMSG : 0;
}

/* Doubles of a repeated double field, packed (8 bytes each) or not. */
static int doubles_add(const struct proto_field *f, double *out, uint8_t *n, int max)
{
	uint64_t bits;

	if (f->wire == PROTO_FIXED64) {
		if (*n < max) {
			bits = f->value;
			memcpy(&out[(*n)++], &bits, sizeof(bits));
		}
		return 0;
	}
	if (f->wire != PROTO_BYTES || f->len % 8)
		return -EBADMSG;
	for (size_t o = 0; o < f->len; o += 8) {
		if (*n >= max)
			break;
		bits = 0;
		for (int b = 7; b >= 0; b--)
			bits = bits << 8 | f->data[o + b];
		memcpy(&out[(*n)++], &bits, sizeof(bits));
	}
	return 0;
}

int pf_tracks_clock(struct pf_tracks *t, const struct pf_packet_head *h,
		    const struct proto_field *f)
{
	struct proto_cursor c, cc;
	struct proto_field g, k;
	uint64_t seq_ts = 0, mono = 0;
	bool have_seq = false, have_mono = false, incremental = false;
	struct pf_seq *s;

	proto_cursor_init(&c, f->data, f->len);
	while (proto_next(&c, &g)) {
		uint64_t id = 0, ts = 0;
		bool inc = false;

		if (g.id != PF_CSNAP_CLOCKS || g.wire != PROTO_BYTES)
			continue;
		proto_cursor_init(&cc, g.data, g.len);
		while (proto_next(&cc, &k)) {
			if (k.wire != PROTO_VARINT)
				continue;
			if (k.id == PF_CLK_ID)
				id = k.value;
			else if (k.id == PF_CLK_TIMESTAMP)
				ts = k.value;
			else if (k.id == PF_CLK_IS_INCREMENTAL)
				inc = k.value;
		}
		if (cc.err)
			return -EBADMSG;
		if (id == PF_CLOCK_SEQUENCE) {
			have_seq = true;
			seq_ts = ts;
			incremental = inc;
		} else if (id == PF_CLOCK_MONOTONIC) {
			have_mono = true;
			mono = ts;
		}
	}
	if (c.err)
		return -EBADMSG;
	if (!have_seq || !have_mono)
		return 0;
	s = seq_get(t, h->seq, true);
	if (!s)
		return -ENOMEM;
	s->have_clock = true;
	s->incremental = incremental;
	s->clock_now = s->clock_base = seq_ts;
	s->mono_base = mono;
	return 0;
}

int pf_tracks_defaults(struct pf_tracks *t, const struct pf_packet_head *h,
		       const struct proto_field *f)
{
	struct proto_cursor c, ted;
	struct proto_field g, k;
	struct pf_seq *s = seq_get(t, h->seq, true);

	if (!s)
		return -ENOMEM;
	s->def_clock = 0;
	s->def_track = 0;
	s->nr_int = s->nr_dbl = 0;
	proto_cursor_init(&c, f->data, f->len);
	while (proto_next(&c, &g)) {
		if (g.id == PF_DEF_TIMESTAMP_CLOCK_ID && g.wire == PROTO_VARINT)
			s->def_clock = (uint32_t)g.value;
		if (g.id != PF_DEF_TRACK_EVENT || g.wire != PROTO_BYTES)
			continue;
		proto_cursor_init(&ted, g.data, g.len);
		while (proto_next(&ted, &k)) {
			int err = 0;

			if (k.id == PF_TED_TRACK_UUID && k.wire == PROTO_VARINT)
				s->def_track = k.value;
			else if (k.id == PF_TED_EXTRA_COUNTER_UUIDS)
				err = uuids_add(&k, s->def_int, &s->nr_int, PFT_MAX_EXTRAS);
			else if (k.id == PF_TED_EXTRA_DOUBLE_UUIDS)
				err = uuids_add(&k, s->def_dbl, &s->nr_dbl, PFT_MAX_EXTRAS);
			if (err)
				return err;
		}
		if (ted.err)
			return -EBADMSG;
	}
	return c.err ? -EBADMSG : 0;
}

/* One value on @uuid into out[n]: 1 if the track holds a row's field. */
static int value_out(struct pf_tracks *t, const struct pf_packet_head *h,
		     uint64_t uuid, double v, struct trace_ev *ev)
{
	const struct pf_track *tr = track_find(t, uuid);

	if (!tr || tr->kind != TRK_COUNTER) {
		if (tr && tr->kind == TRK_NO_ROW)
			t->no_row++;
		return 0;
	}
	memset(ev, 0, sizeof(*ev));
	ev->ts = h->ts;
	ev->cpu = 0;
	ev->pid = -1;
	ev->kind = TRACE_EV_COUNTER;
	ev->counter.row = tr->row;
	ev->counter.type = tr->type;
	ev->counter.offset = tr->offset;
	ev->counter.tid = tr->row == SCHEDSTAT_ROW_TASK ? tr->tid : -1;
	ev->counter.cpu = tr->row == SCHEDSTAT_ROW_CPU ? tr->cpu : -1;
	if (tr->row == SCHEDSTAT_ROW_CLUSTER)
		memcpy(ev->counter.cluster, tr->name, sizeof(ev->counter.cluster));
	ev->counter.value = v;
	return 1;
}

/*
 * "exit" and "gone" on a thread (the writer's pfw_task_end()): its rows
 * end, as TRACE_EV_EXIT (its last row is at this time) and TRACE_EV_FREE
 * (none from this time on). Other instants have no row.
 */
static int task_end(struct pf_tracks *t, const struct pf_packet_head *h,
		    uint64_t uuid, const char *name, struct trace_ev *ev)
{
	const struct pf_track *tr = track_find(t, uuid);
	bool exited = !strcmp(name, "exit");

	if (!tr || tr->kind != TRK_THREAD || tr->tid <= 0 || !h->has_ts ||
	    (!exited && strcmp(name, "gone")))
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->ts = h->ts;
	ev->cpu = 0;
	ev->pid = -1;
	ev->kind = exited ? TRACE_EV_EXIT : TRACE_EV_FREE;
	ev->task.pid = tr->tid;
	ev->task.tgid = tr->tgid;
	return 1;
}

int pf_tracks_event(struct pf_tracks *t, const struct pf_packet_head *h,
		    const struct proto_field *f, struct trace_ev *out)
{
	struct proto_cursor c;
	struct proto_field g;
	const struct pf_seq *s = seq_get(t, h->seq, false);
	uint64_t track = 0, ints[PFT_MAX_EXTRAS], dbls[PFT_MAX_EXTRAS], bits;
	int64_t ivals[PFT_MAX_EXTRAS];
	double dvals[PFT_MAX_EXTRAS], v = 0;
	uint8_t nr_int = 0, nr_dbl = 0, nr_iv = 0, nr_dv = 0, nr_iu = 0;
	bool has_track = false, has_value = false, own_int = false, own_dbl = false;
	uint64_t iv[PFT_MAX_EXTRAS], type = 0;
	char name[8] = "";
	int n = 0, err = 0;

	proto_cursor_init(&c, f->data, f->len);
	while (!err && proto_next(&c, &g)) {
		switch (g.id) {
		case PF_TE_TYPE:
			if (g.wire == PROTO_VARINT)
				type = g.value;
			break;
		case PF_TE_NAME:
			if (g.wire == PROTO_BYTES && g.len < sizeof(name))
				proto_string(&g, name, sizeof(name));
			break;
		case PF_TE_TRACK_UUID:
			if (g.wire == PROTO_VARINT) {
				track = g.value;
				has_track = true;
			}
			break;
		case PF_TE_COUNTER_VALUE:
			if (g.wire == PROTO_VARINT) {
				v = (double)(int64_t)g.value;
				has_value = true;
			}
			break;
		case PF_TE_DOUBLE_COUNTER_VALUE:
			if (g.wire == PROTO_FIXED64) {
				bits = g.value;
				memcpy(&v, &bits, sizeof(v));
				has_value = true;
			}
			break;
		case PF_TE_EXTRA_COUNTER_UUIDS:
			own_int = true;
			err = uuids_add(&g, ints, &nr_int, PFT_MAX_EXTRAS);
			break;
		case PF_TE_EXTRA_DOUBLE_UUIDS:
			own_dbl = true;
			err = uuids_add(&g, dbls, &nr_dbl, PFT_MAX_EXTRAS);
			break;
		case PF_TE_EXTRA_COUNTER_VALUES:
			err = uuids_add(&g, iv, &nr_iv, PFT_MAX_EXTRAS);
			break;
		case PF_TE_EXTRA_DOUBLE_VALUES:
			err = doubles_add(&g, dvals, &nr_dv, PFT_MAX_EXTRAS);
			break;
		}
	}
	if (err || c.err)
		return -EBADMSG;
	if (type == PF_TYPE_INSTANT)
		return task_end(t, h, has_track ? track : s ? s->def_track : 0, name, out);
	if (!has_value && !nr_iv && !nr_dv)
		return 0;	/* a slice: no row */
	if (!h->has_ts) {
		t->no_time += (has_value ? 1 : 0) + nr_iv + nr_dv;
		return 0;
	}
	for (int i = 0; i < nr_iv; i++)
		ivals[i] = (int64_t)iv[i];
	/* The defaults' tracks where the event names none of its own. */
	if (!has_track && s)
		track = s->def_track;
	if (!own_int && s) {
		nr_int = s->nr_int;
		memcpy(ints, s->def_int, sizeof(ints));
	}
	if (!own_dbl && s) {
		nr_dbl = s->nr_dbl;
		memcpy(dbls, s->def_dbl, sizeof(dbls));
	}
	if (has_value)
		n += value_out(t, h, track, v, &out[n]);
	nr_iu = nr_iv < nr_int ? nr_iv : nr_int;
	for (int i = 0; i < nr_iu; i++)
		n += value_out(t, h, ints[i], (double)ivals[i], &out[n]);
	for (int i = 0; i < nr_dv && i < nr_dbl; i++)
		n += value_out(t, h, dbls[i], dvals[i], &out[n]);
	return n;
}
