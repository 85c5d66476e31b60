// SPDX-License-Identifier: GPL-2.0
/*
 * Perfetto's protobuf traces (trace_reader.h): the sched and power events of
 * its ftrace bundles, full FtraceEvents and CompactSched alike, the threads
 * of process_tree and process_stats, the kernel of system_info, the CPUs of
 * cpu_info; compressed packets (zlib or zstd) inflated one at a time.
 *
 * Streamed: the file is read packet by packet into one buffer, and each
 * packet walked in place with proto_reader.h; no packet is unpacked ahead.
 * A bundle's full events, switches and wakings are three lists, each in
 * time order: they are merged here, so that each CPU's events come out in
 * time order. The CPUs' bundles are not: the driver merges them.
 *
 * Field numbers: perfetto_fields.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "perfetto_fields.h"
#include "perfetto_tracks.h"
#include "proto_reader.h"
#include "schedstat-local.h"
#include "trace_marker_counter.h"
#include "trace_reader.h"

#define STR_(x)		#x
#define STR(x)		STR_(x)
#define PF_READ_CHUNK	(1u << 20)
/* A packet bigger than this is refused: ftrace bundles are a few pages. */
#define PF_MAX_PACKET	(256u << 20)
/* What one compressed packet may inflate to (Perfetto's are ~1 MB): a bomb stops here. */
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define PF_MAX_INFLATED_MB	64
#else
#define PF_MAX_INFLATED_MB	4	/* the fuzzer's inputs are small: stay fast */
#endif
#define PF_MAX_INFLATED	((size_t)PF_MAX_INFLATED_MB << 20)

enum pf_sub { SUB_NONE, SUB_BUNDLE, SUB_TREE, SUB_STATS, SUB_QUEUE };

/* Up to 8 fields of one small message, by number (1-8): values and bytes. */
struct pf_msg {
	uint64_t v[9];
	struct proto_field f[9];
	uint16_t has;
};

/* The last task switched in on a CPU: CompactSched's next previous task. */
struct pf_cpu {
	int32_t pid, prio;
	char comm[TRACE_COMM_LEN];
	bool known;
};

struct pf_intern {
	const uint8_t *p;
	size_t len;
};

/* One FtraceEventBundle being walked: three sources, merged by time. */
struct pf_bundle {
	int cpu;
	bool lost;			/* lost_events: said before the first event */
	struct proto_cursor events;	/* its fields, for the FtraceEvents */
	bool ev_have, sw_have, wk_have;
	struct trace_ev ev, sw, wk;	/* the next of each */
	struct proto_packed sw_ts, sw_state, sw_pid, sw_prio, sw_comm;
	struct proto_packed wk_ts, wk_pid, wk_cpu, wk_prio, wk_comm;
	uint64_t sw_acc, wk_acc;	/* timestamps are deltas */
	const uint8_t *compact;		/* its CompactSched, for messages */
};

struct pf_reader {
	int fd;
	uint64_t size;
	struct trace_reader_info *info;
	/* The file, in chunks: buf[pos, len) is read, at file offset buf_off. */
	uint8_t *buf;
	size_t cap, pos, len;
	uint64_t buf_off;
	/* The file's current packet. */
	const uint8_t *pkt;
	size_t pkt_len;
	uint64_t pkt_off;
	struct proto_cursor fpc;
	bool have_pkt;
	/* The inflated packets of a compressed_packets field, walked in turn. */
	uint8_t *z;
	size_t zcap, zlen;
	uint64_t z_off;			/* the compressed field's file offset */
	const uint8_t *z_field;		/* its bytes, in the file's packet */
	struct proto_cursor zc, ipc;
	bool in_z, have_ipc;
	ZSTD_DCtx *zstd;
	/* What the packet's current field is walked by. */
	enum pf_sub sub;
	struct pf_bundle b;
	struct proto_cursor tree, stats, proc;
	bool in_proc;
	int32_t proc_pid;
	struct pf_cpu *cpus;
	size_t nr_cpus;
	struct pf_intern *intern;
	size_t nr_intern, cap_intern;
	/* prev_state's layout: before 4.14 the bits were others. */
	bool old_states;
	/* schedtop's own export: its tracks, the packet's place, its values. */
	struct pf_tracks tracks;
	bool export_seen;		/* this pass: its root tracks came */
	struct pf_packet_head head;
	bool head_due;
	struct trace_ev queue[PFT_MAX_VALUES];
	int nr_queued, next_queued;
};

/* ---- damage ---- */

/* Where @p lies: in the file, or in inflated packets. */
static int damage_at(struct pf_reader *r, const uint8_t *p, const char *what)
{
	struct trace_damage *d = &r->info->damage;

	if (d->set)
		return -SCHEDSTAT_ERR_TRACE_DAMAGED;
	d->set = true;
	if (r->in_z && p >= r->z && p <= r->z + r->zlen) {
		d->offset = r->z_off;
		snprintf(d->what, sizeof(d->what), "in the packets compressed there, "
			 "inflated byte %zu: %s", (size_t)(p - r->z), what);
	} else {
		/* Where in the packet, or the packet's start. */
		d->offset = r->pkt_off;
		if (p && r->pkt && p >= r->pkt && p <= r->pkt + r->pkt_len)
			d->offset += p - r->pkt;
		snprintf(d->what, sizeof(d->what), "%s", what);
	}
	return -SCHEDSTAT_ERR_TRACE_DAMAGED;
}

static int damage_cursor(struct pf_reader *r, const struct proto_cursor *c)
{
	return damage_at(r, c->err_at, proto_strerror(c->err));
}

static int damage_packed(struct pf_reader *r, const struct proto_packed *pk)
{
	return damage_at(r, pk->err_at, proto_strerror(pk->err));
}

/* What perfetto_tracks.c refused in the field at @at. */
static int damage_tracks(struct pf_reader *r, const uint8_t *at, int err)
{
	if (err == -ENOMEM)
		return err;
	return damage_at(r, at, err == -EINVAL && r->tracks.err ? r->tracks.err :
			 "a malformed track descriptor or track event");
}

/* ---- small messages ---- */

static bool msg_read(struct proto_cursor *parent, const struct proto_field *f,
		     struct pf_msg *m)
{
	struct proto_cursor c;
	struct proto_field g;

	m->has = 0;
	if (!proto_enter(parent, f, &c))
		return false;
	while (proto_next(&c, &g)) {
		if (g.id > 8 || (m->has & 1u << g.id))
			continue;	/* repeated: the first is kept */
		m->has |= 1u << g.id;
		m->v[g.id] = g.value;
		m->f[g.id] = g;
	}
	if (c.err) {
		*parent = c;	/* its fault, reported through the parent */
		return false;
	}
	return true;
}

static int64_t msg_int(const struct pf_msg *m, int id, int64_t dflt)
{
	return m->has & 1u << id && m->f[id].wire == PROTO_VARINT ? (int64_t)m->v[id] : dflt;
}

static void msg_str(const struct pf_msg *m, int id, char *buf, size_t size)
{
	buf[0] = '\0';
	if (m->has & 1u << id)
		proto_string(&m->f[id], buf, size);
}

/* ---- events ---- */

/*
 * prev_state as the engine has it: since 4.14 the kernel traces
 * TASK_REPORT's bits and TASK_REPORT_MAX (0x100) for a preempted task,
 * as the engine does. Before, x (TASK_DEAD) was 0x40, P (parked) 0x200,
 * and preempted TASK_STATE_MAX, a bit above all the others.
 */
static uint64_t pf_prev_state(const struct pf_reader *r, uint64_t v)
{
	uint64_t out;

	if (!r->old_states)
		return v;
	out = v & 0x3f;
	if (v & 0x40)
		out |= TRACE_STATE_DEAD;
	if (v & 0x200)
		out |= 0x40;
	if (!out && v >= 0x800)
		out = TRACE_STATE_PREEMPTED;
	return out;
}

/* One FtraceEvent of @cpu into @ev: 0 or damage. */
static int event_decode(struct pf_reader *r, struct proto_cursor *parent,
			const struct proto_field *f, int cpu, struct trace_ev *ev)
{
	struct proto_cursor c;
	struct proto_field g, body = { 0 };
	struct pf_msg m;
	char line[96];

	memset(ev, 0, offsetof(struct trace_ev, sw));
	ev->cpu = cpu;
	ev->pid = -1;
	ev->kind = TRACE_EV_CURRENT;
	if (!proto_enter(parent, f, &c))
		return damage_cursor(r, parent);
	while (proto_next(&c, &g)) {
		if (g.id == PF_EVENT_TIMESTAMP && g.wire == PROTO_VARINT)
			ev->ts = g.value;
		else if (g.id == PF_EVENT_PID && g.wire == PROTO_VARINT)
			ev->pid = (int32_t)g.value;
		else if (g.wire == PROTO_BYTES && !body.id)
			body = g;
	}
	if (c.err)
		return damage_cursor(r, &c);
	switch (body.id) {
	case PF_EV_SCHED_SWITCH:
	case PF_EV_SCHED_WAKING:
	case PF_EV_SCHED_WAKEUP:
	case PF_EV_SCHED_WAKEUP_NEW:
	case PF_EV_SCHED_MIGRATE_TASK:
	case PF_EV_SCHED_PROCESS_EXIT:
	case PF_EV_SCHED_PROCESS_FREE:
	case PF_EV_TASK_NEWTASK:
	case PF_EV_TASK_RENAME:
	case PF_EV_CPU_FREQUENCY:
	case PF_EV_CPU_IDLE:
	case PF_EV_CPUHP_ENTER:
	case PF_EV_CPUHP_MULTI_ENTER:
	case PF_EV_CPUHP_EXIT:
	case PF_EV_PRINT:
		if (!msg_read(&c, &body, &m))
			return damage_cursor(r, &c);
		break;
	default:
		/* Any other event: its common pid was current. */
		return 0;
	}
	switch (body.id) {
	case PF_EV_SCHED_SWITCH:
		ev->kind = TRACE_EV_SWITCH;
		msg_str(&m, PF_SW_PREV_COMM, ev->sw.prev_comm, sizeof(ev->sw.prev_comm));
		msg_str(&m, PF_SW_NEXT_COMM, ev->sw.next_comm, sizeof(ev->sw.next_comm));
		ev->sw.prev_pid = msg_int(&m, PF_SW_PREV_PID, 0);
		ev->sw.prev_prio = msg_int(&m, PF_SW_PREV_PRIO, 0);
		ev->sw.prev_state = pf_prev_state(r, msg_int(&m, PF_SW_PREV_STATE, 0));
		ev->sw.next_pid = msg_int(&m, PF_SW_NEXT_PID, 0);
		ev->sw.next_prio = msg_int(&m, PF_SW_NEXT_PRIO, 0);
		ev->pid = -1;
		break;
	case PF_EV_SCHED_WAKING:
	case PF_EV_SCHED_WAKEUP:
	case PF_EV_SCHED_WAKEUP_NEW:
		ev->kind = body.id == PF_EV_SCHED_WAKING ? TRACE_EV_WAKING :
			   body.id == PF_EV_SCHED_WAKEUP ? TRACE_EV_WAKEUP :
			   TRACE_EV_WAKEUP_NEW;
		msg_str(&m, PF_WK_COMM, ev->wake.comm, sizeof(ev->wake.comm));
		ev->wake.pid = msg_int(&m, PF_WK_PID, 0);
		ev->wake.prio = msg_int(&m, PF_WK_PRIO, 0);
		ev->wake.target_cpu = msg_int(&m, PF_WK_TARGET_CPU, 0);
		break;
	case PF_EV_SCHED_MIGRATE_TASK:
		ev->kind = TRACE_EV_MIGRATE;
		msg_str(&m, PF_MG_COMM, ev->migrate.comm, sizeof(ev->migrate.comm));
		ev->migrate.pid = msg_int(&m, PF_MG_PID, 0);
		ev->migrate.prio = msg_int(&m, PF_MG_PRIO, 0);
		ev->migrate.orig_cpu = msg_int(&m, PF_MG_ORIG_CPU, 0);
		ev->migrate.dest_cpu = msg_int(&m, PF_MG_DEST_CPU, 0);
		break;
	case PF_EV_SCHED_PROCESS_EXIT:
	case PF_EV_SCHED_PROCESS_FREE:
		ev->kind = body.id == PF_EV_SCHED_PROCESS_EXIT ? TRACE_EV_EXIT :
			   TRACE_EV_FREE;
		msg_str(&m, PF_EX_COMM, ev->task.comm, sizeof(ev->task.comm));
		ev->task.pid = msg_int(&m, PF_EX_PID, 0);
		ev->task.tgid = 0;
		break;
	case PF_EV_TASK_NEWTASK:
		ev->kind = TRACE_EV_NEWTASK;
		msg_str(&m, PF_NT_COMM, ev->task.comm, sizeof(ev->task.comm));
		ev->task.pid = msg_int(&m, PF_NT_PID, 0);
		ev->task.tgid = 0;
		break;
	case PF_EV_TASK_RENAME:
		ev->kind = TRACE_EV_RENAME;
		msg_str(&m, PF_RN_NEWCOMM, ev->task.comm, sizeof(ev->task.comm));
		/* 0 where the event has no pid: see engine_rename(). */
		ev->task.pid = msg_int(&m, PF_RN_PID, 0);
		ev->task.tgid = 0;
		break;
	case PF_EV_CPU_FREQUENCY:
	case PF_EV_CPU_IDLE:
		ev->kind = body.id == PF_EV_CPU_FREQUENCY ? TRACE_EV_FREQ : TRACE_EV_IDLE;
		ev->power.cpu = msg_int(&m, PF_PW_CPU_ID, 0);
		/* cpu_idle's exit is (u32)-1: as a signed state, -1. */
		ev->power.state = (int32_t)msg_int(&m, PF_PW_STATE, 0);
		break;
	case PF_EV_CPUHP_ENTER:
	case PF_EV_CPUHP_MULTI_ENTER:
		ev->kind = body.id == PF_EV_CPUHP_ENTER ? TRACE_EV_CPUHP_ENTER :
			   TRACE_EV_CPUHP_MULTI_ENTER;
		ev->hp.cpu = msg_int(&m, PF_HP_CPU, 0);
		ev->hp.fun = msg_int(&m, PF_HP_FUN, 0);
		ev->hp.idx = msg_int(&m, PF_HP_IDX, 0);
		ev->hp.target = msg_int(&m, PF_HP_TARGET, 0);
		ev->hp.ret = 0;
		ev->pid = -1;
		break;
	case PF_EV_CPUHP_EXIT:
		ev->kind = TRACE_EV_CPUHP_EXIT;
		ev->hp.cpu = msg_int(&m, PF_HPX_CPU, 0);
		ev->hp.idx = msg_int(&m, PF_HPX_IDX, 0);
		ev->hp.ret = msg_int(&m, PF_HPX_RET, 0);
		ev->hp.target = msg_int(&m, PF_HPX_STATE, 0);
		ev->hp.fun = 0;
		ev->pid = -1;
		break;
	case PF_EV_PRINT:
		if (!(m.has & 1u << PF_PRINT_BUF))
			break;
		/* schedtop's own --atrace counters: the values, not estimates. */
		if (trace_marker_counter((const char *)m.f[PF_PRINT_BUF].data,
					 m.f[PF_PRINT_BUF].len, ev))
			break;
		/* Most other prints are atrace's slices: only "cpu_frequency..." is read. */
		if (m.f[PF_PRINT_BUF].len < 13 ||
		    memcmp(m.f[PF_PRINT_BUF].data, "cpu_frequency", 13))
			break;
		proto_string(&m.f[PF_PRINT_BUF], line, sizeof(line));
		if (trace_marker_freq(line, &ev->power.cpu, &ev->power.state)) {
			ev->kind = TRACE_EV_FREQ;
			ev->pid = -1;
		}
		break;
	}
	return 0;
}

/* ---- bundles ---- */

static struct pf_cpu *pf_cpu(struct pf_reader *r, int cpu)
{
	if ((size_t)cpu >= r->nr_cpus) {
		size_t n = cpu + 1;
		struct pf_cpu *c = realloc(r->cpus, n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + r->nr_cpus, 0, (n - r->nr_cpus) * sizeof(*c));
		r->cpus = c;
		r->nr_cpus = n;
	}
	return &r->cpus[cpu];
}

static int intern_str(struct pf_reader *r, uint64_t i, char *buf, size_t size,
		      const uint8_t *at)
{
	struct proto_field f = { .wire = PROTO_BYTES };

	if (i >= r->nr_intern)
		return damage_at(r, at, "a compact sched comm index past the bundle's intern table");
	f.data = r->intern[i].p;
	f.len = r->intern[i].len;
	proto_string(&f, buf, size);
	return 0;
}

/* The next full event of the bundle, if any. */
static int bundle_fill_event(struct pf_reader *r)
{
	struct pf_bundle *b = &r->b;
	struct proto_field f;
	int err;

	b->ev_have = false;
	while (proto_next(&b->events, &f)) {
		if (f.id != PF_BUNDLE_EVENT || f.wire != PROTO_BYTES)
			continue;
		err = event_decode(r, &b->events, &f, b->cpu, &b->ev);
		if (err)
			return err;
		b->ev_have = true;
		return 0;
	}
	if (b->events.err)
		return damage_cursor(r, &b->events);
	return 0;
}

static int packed_step(struct pf_reader *r, struct proto_packed *pk, uint64_t *v)
{
	if (proto_packed_next(pk, v))
		return 1;
	return pk->err ? damage_packed(r, pk) : 0;
}

/* The next switch of the bundle's CompactSched, if any. */
static int bundle_fill_switch(struct pf_reader *r)
{
	struct pf_bundle *b = &r->b;
	struct trace_ev *ev = &b->sw;
	uint64_t d, state, pid, prio, comm;
	const uint8_t *comm_at = b->sw_comm.p;
	struct pf_cpu *c = &r->cpus[b->cpu];
	int n = 0, err;

	b->sw_have = false;
	if ((err = packed_step(r, &b->sw_ts, &d)) < 0)
		return err;
	n += err;
	if ((err = packed_step(r, &b->sw_state, &state)) < 0)
		return err;
	n += err;
	if ((err = packed_step(r, &b->sw_pid, &pid)) < 0)
		return err;
	n += err;
	if ((err = packed_step(r, &b->sw_prio, &prio)) < 0)
		return err;
	n += err;
	if ((err = packed_step(r, &b->sw_comm, &comm)) < 0)
		return err;
	n += err;
	if (!n)
		return 0;
	if (n != 5)
		return damage_at(r, b->compact, "compact sched switch arrays of different lengths");
	b->sw_acc += d;
	memset(ev, 0, sizeof(*ev));
	ev->ts = b->sw_acc;
	ev->cpu = b->cpu;
	ev->pid = -1;
	ev->kind = TRACE_EV_SWITCH;
	err = intern_str(r, comm, ev->sw.next_comm, sizeof(ev->sw.next_comm), comm_at);
	if (err)
		return err;
	ev->sw.next_pid = (int32_t)pid;
	ev->sw.next_prio = (int32_t)prio;
	ev->sw.prev_state = pf_prev_state(r, state);
	/* The previous task is the one the CPU's last switch brought in. */
	if (c->known) {
		ev->sw.prev_pid = c->pid;
		ev->sw.prev_prio = c->prio;
		memcpy(ev->sw.prev_comm, c->comm, sizeof(ev->sw.prev_comm));
	} else {
		ev->sw.prev_pid = -1;
	}
	c->known = true;
	c->pid = ev->sw.next_pid;
	c->prio = ev->sw.next_prio;
	memcpy(c->comm, ev->sw.next_comm, sizeof(c->comm));
	b->sw_have = true;
	return 0;
}

/* The next waking of the bundle's CompactSched, if any. */
static int bundle_fill_waking(struct pf_reader *r)
{
	struct pf_bundle *b = &r->b;
	struct trace_ev *ev = &b->wk;
	uint64_t d, pid, cpu, prio, comm;
	const uint8_t *comm_at = b->wk_comm.p;
	int n = 0, err;

	b->wk_have = false;
	if ((err = packed_step(r, &b->wk_ts, &d)) < 0)
		return err;
	n += err;
	if ((err = packed_step(r, &b->wk_pid, &pid)) < 0)
		return err;
	n += err;
	if ((err = packed_step(r, &b->wk_cpu, &cpu)) < 0)
		return err;
	n += err;
	if ((err = packed_step(r, &b->wk_prio, &prio)) < 0)
		return err;
	n += err;
	if ((err = packed_step(r, &b->wk_comm, &comm)) < 0)
		return err;
	n += err;
	if (!n)
		return 0;
	if (n != 5)
		return damage_at(r, b->compact, "compact sched waking arrays of different lengths");
	b->wk_acc += d;
	memset(ev, 0, sizeof(*ev));
	ev->ts = b->wk_acc;
	ev->cpu = b->cpu;
	ev->pid = -1;		/* the waker is not kept */
	ev->kind = TRACE_EV_WAKING;
	ev->wake.pid = (int32_t)pid;
	ev->wake.target_cpu = (int32_t)cpu;
	ev->wake.prio = (int32_t)prio;
	err = intern_str(r, comm, ev->wake.comm, sizeof(ev->wake.comm), comm_at);
	if (err)
		return err;
	b->wk_have = true;
	return 0;
}

static int compact_array(struct pf_reader *r, const struct proto_field *f,
			 struct proto_packed *pk)
{
	if (f->wire != PROTO_BYTES)
		return damage_at(r, f->data, "a compact sched array that is not packed");
	if (pk->p)
		return damage_at(r, f->data, "a compact sched array given twice");
	proto_packed_init(pk, f);
	return 0;
}

static int compact_start(struct pf_reader *r, struct proto_cursor *parent,
			 const struct proto_field *f)
{
	static const uint8_t none;
	struct pf_bundle *b = &r->b;
	struct proto_packed *arrays[PF_CS_WAKING_COMM_INDEX + 1] = {
		[PF_CS_SWITCH_TIMESTAMP] = &b->sw_ts,
		[PF_CS_SWITCH_PREV_STATE] = &b->sw_state,
		[PF_CS_SWITCH_NEXT_PID] = &b->sw_pid,
		[PF_CS_SWITCH_NEXT_PRIO] = &b->sw_prio,
		[PF_CS_SWITCH_NEXT_COMM_INDEX] = &b->sw_comm,
		[PF_CS_WAKING_TIMESTAMP] = &b->wk_ts,
		[PF_CS_WAKING_PID] = &b->wk_pid,
		[PF_CS_WAKING_TARGET_CPU] = &b->wk_cpu,
		[PF_CS_WAKING_PRIO] = &b->wk_prio,
		[PF_CS_WAKING_COMM_INDEX] = &b->wk_comm,
	};
	struct proto_cursor c;
	struct proto_field g;
	int err;

	if (!proto_enter(parent, f, &c))
		return damage_cursor(r, parent);
	b->compact = f->data;
	r->nr_intern = 0;
	while (proto_next(&c, &g)) {
		if (g.id == PF_CS_INTERN_TABLE && g.wire == PROTO_BYTES) {
			if (util_array_reserve((void **)&r->intern, &r->cap_intern,
					       r->nr_intern + 1, sizeof(*r->intern)))
				return -ENOMEM;
			r->intern[r->nr_intern++] = (struct pf_intern){ g.data, g.len };
		} else if (g.id < sizeof(arrays) / sizeof(arrays[0]) && arrays[g.id]) {
			err = compact_array(r, &g, arrays[g.id]);
			if (err)
				return err;
		}
	}
	if (c.err)
		return damage_cursor(r, &c);
	/* An array left out is empty. */
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		if (arrays[i] && !arrays[i]->p)
			arrays[i]->p = arrays[i]->end = &none;
	snprintf(r->info->format, sizeof(r->info->format), "perfetto (compact sched)");
	return 0;
}

static int bundle_start(struct pf_reader *r, struct proto_cursor *parent,
			const struct proto_field *f)
{
	struct pf_bundle *b = &r->b;
	struct proto_cursor c;
	struct proto_field g;
	bool compact = false;
	int err;

	memset(b, 0, sizeof(*b));
	if (!proto_enter(parent, f, &c))
		return damage_cursor(r, parent);
	b->events = c;
	while (proto_next(&c, &g)) {
		if (g.id == PF_BUNDLE_CPU && g.wire == PROTO_VARINT) {
			if (g.value >= SCHEDSTAT_MAX_CPUS)
				return damage_at(r, f->data, "a bundle of a CPU beyond schedtop's 1024");
			b->cpu = g.value;
		} else if (g.id == PF_BUNDLE_LOST_EVENTS && g.wire == PROTO_VARINT) {
			b->lost = g.value;
		} else if (g.id == PF_BUNDLE_COMPACT_SCHED && g.wire == PROTO_BYTES) {
			if (compact)
				return damage_at(r, g.data, "a bundle with two compact sched messages");
			err = compact_start(r, &c, &g);
			if (err)
				return err;
			compact = true;
		}
	}
	if (c.err)
		return damage_cursor(r, &c);
	if (!pf_cpu(r, b->cpu))
		return -ENOMEM;
	err = bundle_fill_event(r);
	if (!err && compact)
		err = bundle_fill_switch(r);
	if (!err && compact)
		err = bundle_fill_waking(r);
	return err;
}

/*
 * The bundle's next event in time order: full events first at equal
 * times, then wakings, then switches (an idle exit or a wakeup comes
 * before the switch it leads to). 1, 0 at the bundle's end, or damage.
 */
static int bundle_next(struct pf_reader *r, struct trace_ev *ev)
{
	struct pf_bundle *b = &r->b;
	struct trace_ev *pick = NULL;
	int err;

	if (b->ev_have)
		pick = &b->ev;
	if (b->wk_have && (!pick || b->wk.ts < pick->ts))
		pick = &b->wk;
	if (b->sw_have && (!pick || b->sw.ts < pick->ts))
		pick = &b->sw;
	if (!pick)
		return 0;
	if (b->lost) {
		/* Lost before the bundle's first event. */
		b->lost = false;
		memset(ev, 0, sizeof(*ev));
		ev->ts = pick->ts;
		ev->cpu = b->cpu;
		ev->pid = -1;
		ev->kind = TRACE_EV_LOST;
		return 1;
	}
	*ev = *pick;
	if (pick == &b->ev)
		err = bundle_fill_event(r);
	else if (pick == &b->wk)
		err = bundle_fill_waking(r);
	else
		err = bundle_fill_switch(r);
	return err ? err : 1;
}

/* ---- processes and threads ---- */

static int tree_next(struct pf_reader *r, struct trace_ev *ev)
{
	struct proto_field f;
	struct pf_msg m;
	char name[TRACE_COMM_LEN];

	while (proto_next(&r->tree, &f)) {
		if (f.wire != PROTO_BYTES ||
		    (f.id != PF_TREE_PROCESSES && f.id != PF_TREE_THREADS))
			continue;
		if (!msg_read(&r->tree, &f, &m))
			return damage_cursor(r, &r->tree);
		if (f.id == PF_TREE_PROCESSES) {
			int32_t pid = msg_int(&m, PF_TREE_PROC_PID, 0);

			trace_ev_task(ev, pid, pid, "");
		} else {
			msg_str(&m, PF_TREE_THREAD_NAME, name, sizeof(name));
			trace_ev_task(ev, msg_int(&m, PF_TREE_THREAD_TID, 0),
				msg_int(&m, PF_TREE_THREAD_TGID, 0), name);
		}
		if (ev->task.pid > 0)
			return 1;
	}
	return r->tree.err ? damage_cursor(r, &r->tree) : 0;
}

static int stats_next(struct pf_reader *r, struct trace_ev *ev)
{
	struct proto_field f;
	struct pf_msg m;

	for (;;) {
		while (r->in_proc && proto_next(&r->proc, &f)) {
			if (f.id != PF_STATS_PROC_THREADS || f.wire != PROTO_BYTES)
				continue;
			if (!msg_read(&r->proc, &f, &m))
				return damage_cursor(r, &r->proc);
			trace_ev_task(ev, msg_int(&m, PF_STATS_THREAD_TID, 0), r->proc_pid, "");
			if (ev->task.pid > 0)
				return 1;
		}
		if (r->in_proc && r->proc.err)
			return damage_cursor(r, &r->proc);
		r->in_proc = false;
		if (!proto_next(&r->stats, &f))
			return r->stats.err ? damage_cursor(r, &r->stats) : 0;
		if (f.id != PF_STATS_PROCESSES || f.wire != PROTO_BYTES)
			continue;
		/* Its pid first, wherever it is; then its threads. */
		if (!msg_read(&r->stats, &f, &m) || !proto_enter(&r->stats, &f, &r->proc))
			return damage_cursor(r, &r->stats);
		r->proc_pid = msg_int(&m, PF_STATS_PROC_PID, 0);
		r->in_proc = r->proc_pid > 0;
		if (r->in_proc) {
			trace_ev_task(ev, r->proc_pid, r->proc_pid, "");
			return 1;
		}
	}
}

/* ---- system_info, cpu_info ---- */

static int system_info(struct pf_reader *r, struct proto_cursor *parent,
		       const struct proto_field *f)
{
	struct pf_msg info, uts;
	unsigned int major, minor;

	if (!msg_read(parent, f, &info))
		return damage_cursor(r, parent);
	if (!(info.has & 1u << PF_SYSINFO_UTSNAME) ||
	    info.f[PF_SYSINFO_UTSNAME].wire != PROTO_BYTES)
		return 0;
	if (!msg_read(parent, &info.f[PF_SYSINFO_UTSNAME], &uts))
		return damage_cursor(r, parent);
	msg_str(&uts, PF_UTS_RELEASE, r->info->release, sizeof(r->info->release));
	msg_str(&uts, PF_UTS_MACHINE, r->info->machine, sizeof(r->info->machine));
	r->old_states = sscanf(r->info->release, "%u.%u", &major, &minor) == 2 &&
			(major < 4 || (major == 4 && minor < 14));
	return 0;
}

static int cpu_info(struct pf_reader *r, struct proto_cursor *parent,
		    const struct proto_field *f)
{
	struct proto_cursor c, cc;
	struct proto_field g, h;
	int cpu = 0;

	if (!proto_enter(parent, f, &c))
		return damage_cursor(r, parent);
	while (proto_next(&c, &g)) {
		if (g.id != PF_CPUINFO_CPUS || g.wire != PROTO_BYTES)
			continue;
		if (!proto_enter(&c, &g, &cc))
			return damage_cursor(r, &c);
		while (proto_next(&cc, &h)) {
			if (cpu >= SCHEDSTAT_MAX_CPUS)
				break;
			if (h.id == PF_CPU_CAPACITY && h.wire == PROTO_VARINT)
				r->info->capacity[cpu] = h.value;
			/* repeated uint32, unpacked in Perfetto's proto2 */
			if (h.id == PF_CPU_FREQUENCIES && h.wire == PROTO_VARINT &&
			    h.value > r->info->max_khz[cpu] && h.value <= UINT32_MAX)
				r->info->max_khz[cpu] = h.value;
		}
		if (cc.err)
			return damage_cursor(r, &cc);
		cpu++;
	}
	if (c.err)
		return damage_cursor(r, &c);
	if (cpu > r->info->nr_cpus && cpu <= SCHEDSTAT_MAX_CPUS)
		r->info->nr_cpus = cpu;
	return 0;
}

/* ---- compressed packets ---- */

static int grow_z(struct pf_reader *r)
{
	size_t n = r->zcap ? r->zcap * 2 : PF_READ_CHUNK;
	uint8_t *z;

	if (r->zcap >= PF_MAX_INFLATED)
		return damage_at(r, r->z_field, "compressed packets that inflate past "
				 STR(PF_MAX_INFLATED_MB) " MB (a deflate bomb, or not Perfetto's)");
	if (n > PF_MAX_INFLATED)
		n = PF_MAX_INFLATED;
	z = realloc(r->z, n);
	if (!z)
		return -ENOMEM;
	r->z = z;
	r->zcap = n;
	return 0;
}

static int inflate_zlib(struct pf_reader *r, const struct proto_field *f)
{
	z_stream s = { 0 };
	int ret, err = 0;

	if (inflateInit2(&s, 15 + 32) != Z_OK)	/* zlib or gzip header */
		return -ENOMEM;
	s.next_in = (Bytef *)f->data;
	s.avail_in = f->len;
	for (;;) {
		if (r->zlen == r->zcap && (err = grow_z(r)))
			break;
		s.next_out = r->z + r->zlen;
		s.avail_out = r->zcap - r->zlen;
		ret = inflate(&s, Z_NO_FLUSH);
		r->zlen = r->zcap - s.avail_out;
		if (ret == Z_STREAM_END)
			break;
		if (ret == Z_OK || (ret == Z_BUF_ERROR && !s.avail_out))
			continue;
		err = damage_at(r, r->z_field, ret == Z_BUF_ERROR ?
				"compressed packets cut short" :
				"compressed packets that do not inflate (zlib)");
		break;
	}
	inflateEnd(&s);
	return err;
}

static int inflate_zstd(struct pf_reader *r, const struct proto_field *f)
{
	ZSTD_inBuffer in = { f->data, f->len, 0 };
	size_t ret = 1;
	int err;

	if (!r->zstd && !(r->zstd = ZSTD_createDCtx()))
		return -ENOMEM;
	ZSTD_DCtx_reset(r->zstd, ZSTD_reset_session_only);
	while (in.pos < in.size || ret) {
		ZSTD_outBuffer out;

		if (r->zlen == r->zcap && (err = grow_z(r)))
			return err;
		out = (ZSTD_outBuffer){ r->z, r->zcap, r->zlen };
		ret = ZSTD_decompressStream(r->zstd, &out, &in);
		r->zlen = out.pos;
		if (ZSTD_isError(ret))
			return damage_at(r, r->z_field, "compressed packets that do not inflate (zstd)");
		if (ret && in.pos == in.size && out.pos < out.size)
			return damage_at(r, r->z_field, "compressed packets cut short");
	}
	return 0;
}

static int compressed(struct pf_reader *r, const struct proto_field *f, bool zstd)
{
	int err;

	if (r->in_z)
		return damage_at(r, f->data, "compressed packets inside compressed packets");
	if (f->wire != PROTO_BYTES)
		return damage_at(r, r->pkt, "compressed packets that are no bytes");
	r->z_field = f->data;
	r->z_off = r->pkt_off + (f->data - r->pkt);
	r->zlen = 0;
	err = zstd ? inflate_zstd(r, f) : inflate_zlib(r, f);
	if (err)
		return err;
	r->in_z = true;
	r->have_ipc = false;
	proto_cursor_init(&r->zc, r->z, r->zlen);
	return 0;
}

/* ---- packets ---- */

/* Makes buf[pos, pos + @need) readable: 1, 0 if the file ends first, -errno. */
static int fill(struct pf_reader *r, size_t need)
{
	if (r->len - r->pos >= need)
		return 1;
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->buf_off += r->pos;
	r->len -= r->pos;
	r->pos = 0;
	if (need > r->cap) {
		uint8_t *b = realloc(r->buf, need);

		if (!b)
			return -ENOMEM;
		r->buf = b;
		r->cap = need;
	}
	while (r->len < need) {
		ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return 0;
		r->len += n;
	}
	return 1;
}

/* The file's next packet: 1, 0 at its end, or damage. */
static int file_packet(struct pf_reader *r)
{
	for (;;) {
		const uint8_t *p, *end;
		uint64_t tag, len = 0, at, left;
		size_t hdr;
		int ret = fill(r, 1);

		if (ret <= 0)
			return ret;
		ret = fill(r, 16);	/* a tag and a length at most; less at the end */
		if (ret < 0)
			return ret;
		at = r->buf_off + r->pos;
		r->pkt = NULL;
		r->pkt_off = at;
		p = r->buf + r->pos;
		end = r->buf + r->len;
		if (proto_varint(&p, end, &tag) || !(tag >> 3))
			return damage_at(r, NULL, "not a protobuf field where a packet should start");
		switch (tag & 7) {
		case PROTO_VARINT:
			if (proto_varint(&p, end, &len))
				return damage_at(r, NULL, "the file ends inside a field");
			len = 0;
			break;
		case PROTO_FIXED64:
			len = 8;
			break;
		case PROTO_FIXED32:
			len = 4;
			break;
		case PROTO_BYTES:
			if (proto_varint(&p, end, &len))
				return damage_at(r, NULL, "the file ends inside a packet's length");
			break;
		default:
			return damage_at(r, NULL, "a field of a wire type the schema does not have");
		}
		hdr = p - (r->buf + r->pos);
		left = r->size - at - hdr;
		if (len > left) {
			char what[128];

			snprintf(what, sizeof(what), "a packet of %llu bytes, and only %llu "
				 "left in the file: cut short",
				 (unsigned long long)len, (unsigned long long)left);
			return damage_at(r, NULL, what);
		}
		if (len > PF_MAX_PACKET)
			return damage_at(r, NULL, "a packet larger than 256 MB");
		ret = fill(r, hdr + len);
		if (ret < 0)
			return ret;
		if (!ret)
			return damage_at(r, NULL, "the file ends inside a packet (it shrank?)");
		r->pos += hdr + len;
		if (tag >> 3 != PF_TRACE_PACKET || (tag & 7) != PROTO_BYTES)
			continue;	/* not a packet: nothing Trace has today */
		r->pkt = r->buf + r->pos - len;
		r->pkt_len = len;
		r->pkt_off = at + hdr;
		proto_cursor_init(&r->fpc, r->pkt, len);
		r->have_pkt = true;
		r->head_due = true;
		return 1;
	}
}

/*
 * schedtop's own export (convert --perfetto) is told by its two root
 * tracks (docs/perfetto.md, "Stable names"): it holds counters, no sched
 * events, and the driver says so instead of "no sched_switch".
 */
static int track_descriptor(struct pf_reader *r, struct proto_cursor *parent,
			    const struct proto_field *f)
{
	struct proto_cursor c;
	struct proto_field g;
	char name[32];

	if (!proto_enter(parent, f, &c))
		return damage_cursor(r, parent);
	while (proto_next(&c, &g)) {
		if (g.id != PF_TD_NAME || g.wire != PROTO_BYTES)
			continue;
		proto_string(&g, name, sizeof(name));
		if (!strcmp(name, "schedtop CPUs") || !strcmp(name, "schedtop clusters"))
			r->info->schedtop_export = r->export_seen = true;
	}
	return c.err ? damage_cursor(r, &c) : 0;
}

/* @n events of schedtop's export queued: handed out before the next field. */
static int queued(struct pf_reader *r, int n)
{
	r->nr_queued = n;
	r->next_queued = 0;
	if (n)
		r->sub = SUB_QUEUE;
	return 1;
}

/*
 * The next field of the packet being read, taken in: 1 (go on), 0 at the
 * packet's end, or damage. Inflated packets come here in turn, inside the
 * file's packet that held them.
 */
static int packet_field(struct pf_reader *r)
{
	struct proto_cursor *c;
	struct proto_field f;
	int err;

	if (r->in_z && !r->have_ipc) {
		/* The next inflated packet, or back to the file's. */
		while (proto_next(&r->zc, &f)) {
			if (f.id != PF_TRACE_PACKET)
				continue;
			if (!proto_enter(&r->zc, &f, &r->ipc))
				break;
			r->have_ipc = true;
			r->head_due = true;
			return 1;
		}
		if (r->zc.err)
			return damage_cursor(r, &r->zc);
		r->in_z = false;
	}
	if (!r->have_pkt)
		return 0;
	c = r->in_z ? &r->ipc : &r->fpc;
	/* schedtop's export: the packet's sequence and time, before its fields. */
	if (r->head_due && r->export_seen &&
	    (err = pf_tracks_packet(&r->tracks, c, &r->head)))
		return damage_tracks(r, c->p, err);
	r->head_due = false;
	if (!proto_next(c, &f)) {
		if (c->err)
			return damage_cursor(r, c);
		if (r->in_z) {
			r->have_ipc = false;
			return 1;
		}
		r->have_pkt = false;
		return 0;
	}
	switch (f.id) {
	case PF_PKT_FTRACE_EVENTS:
		if (f.wire != PROTO_BYTES)
			return 1;
		r->sub = SUB_BUNDLE;
		return bundle_start(r, c, &f) ?: 1;
	case PF_PKT_PROCESS_TREE:
		if (f.wire != PROTO_BYTES || !proto_enter(c, &f, &r->tree))
			return c->err ? damage_cursor(r, c) : 1;
		r->sub = SUB_TREE;
		return 1;
	case PF_PKT_PROCESS_STATS:
		if (f.wire != PROTO_BYTES || !proto_enter(c, &f, &r->stats))
			return c->err ? damage_cursor(r, c) : 1;
		r->in_proc = false;
		r->sub = SUB_STATS;
		return 1;
	case PF_PKT_SYSTEM_INFO:
		return f.wire == PROTO_BYTES ? system_info(r, c, &f) ?: 1 : 1;
	case PF_PKT_CPU_INFO:
		return f.wire == PROTO_BYTES ? cpu_info(r, c, &f) ?: 1 : 1;
	case PF_PKT_TRACK_DESCRIPTOR:
		if (f.wire != PROTO_BYTES)
			return 1;
		if ((err = track_descriptor(r, c, &f)))
			return err;
		if (!r->export_seen)
			return 1;
		err = pf_tracks_descriptor(&r->tracks, &r->head, &f, &r->queue[0]);
		if (err < 0)
			return damage_tracks(r, f.data, err);
		if (r->tracks.nr_cpus > r->info->nr_cpus)
			r->info->nr_cpus = r->tracks.nr_cpus;
		memcpy(r->info->topology, r->tracks.topology, sizeof(r->info->topology));
		return queued(r, err);
	case PF_PKT_CLOCK_SNAPSHOT:
	case PF_PKT_DEFAULTS:
	case PF_PKT_TRACK_EVENT:
		/* From its roots on, in each pass alike: a file reads the same twice. */
		if (!r->export_seen || f.wire != PROTO_BYTES)
			return 1;
		if (f.id == PF_PKT_TRACK_EVENT)
			err = pf_tracks_event(&r->tracks, &r->head, &f, r->queue);
		else if (f.id == PF_PKT_DEFAULTS)
			err = pf_tracks_defaults(&r->tracks, &r->head, &f);
		else
			err = pf_tracks_clock(&r->tracks, &r->head, &f);
		r->info->export_unread = r->tracks.no_row + r->tracks.no_time;
		return err < 0 ? damage_tracks(r, f.data, err) : queued(r, err);
	case PF_PKT_COMPRESSED:
	case PF_PKT_ZSTD_COMPRESSED:
		return compressed(r, &f, f.id == PF_PKT_ZSTD_COMPRESSED) ?: 1;
	}
	return 1;
}

static int pf_next(void *rr, struct trace_ev *ev)
{
	struct pf_reader *r = rr;
	int ret;

	if (r->info->damage.set)
		return -SCHEDSTAT_ERR_TRACE_DAMAGED;
	for (;;) {
		switch (r->sub) {
		case SUB_BUNDLE:
			ret = bundle_next(r, ev);
			break;
		case SUB_TREE:
			ret = tree_next(r, ev);
			break;
		case SUB_STATS:
			ret = stats_next(r, ev);
			break;
		case SUB_QUEUE:
			ret = r->next_queued < r->nr_queued;
			if (ret)
				*ev = r->queue[r->next_queued++];
			break;
		default:
			ret = 0;
		}
		if (ret)
			return ret;
		r->sub = SUB_NONE;
		ret = packet_field(r);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		ret = file_packet(r);
		if (ret <= 0)
			return ret;
	}
}

static int pf_rewind(void *rr)
{
	struct pf_reader *r = rr;

	if (lseek(r->fd, 0, SEEK_SET) < 0)
		return -errno;
	r->pos = r->len = 0;
	r->buf_off = 0;
	r->have_pkt = r->in_z = r->have_ipc = false;
	r->sub = SUB_NONE;
	r->nr_queued = 0;
	r->export_seen = false;
	pf_tracks_reset(&r->tracks);
	if (r->cpus)
		memset(r->cpus, 0, r->nr_cpus * sizeof(*r->cpus));
	return 0;
}

static void pf_close(void *rr)
{
	struct pf_reader *r = rr;

	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->zstd);
	pf_tracks_free(&r->tracks);
	free(r->buf);
	free(r->z);
	free(r->cpus);
	free(r->intern);
	free(r);
}

static int pf_open(void **out, int fd, const char *path, struct trace_reader_info *info)
{
	struct pf_reader *r = calloc(1, sizeof(*r));
	struct stat st;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->info = info;
	if (pf_tracks_init(&r->tracks)) {
		free(r);
		return -ENOMEM;
	}
	r->fd = dup(fd);
	if (r->fd < 0 || fstat(r->fd, &st)) {
		pf_close(r);
		return -errno;
	}
	r->size = st.st_size;
	/* A chunk at a time; a small file, in a buffer its size. */
	r->cap = r->size < PF_READ_CHUNK ? r->size + 16 : PF_READ_CHUNK;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		pf_close(r);
		return -ENOMEM;
	}
	snprintf(info->format, sizeof(info->format), "perfetto");
	*out = r;
	return pf_rewind(r);
}

/* A fault that only says the bytes seen end inside a field. */
static bool cut_fault(enum proto_err err)
{
	return err == PROTO_ERR_VARINT_END || err == PROTO_ERR_LENGTH ||
	       err == PROTO_ERR_FIXED_END;
}

/*
 * A Perfetto trace is a Trace message: packets (field 1, bytes) one after
 * another. Taken when its first packet parses as a message throughout, and
 * what follows starts another packet. Where fewer bytes than the packet's
 * length are seen (the file cut inside it, or more than the 1 MB looked
 * at), they must parse as a message up to where they stop, a field cut
 * there included (a packet that is one field longer than that: its tag):
 * the reader then says where the file is cut.
 */
static bool pf_probe(int fd, const uint8_t *head, size_t len)
{
	const uint8_t *p = head, *end = head + len;
	uint64_t plen, avail, checked;
	struct proto_cursor c;
	struct proto_field f;
	struct stat st;
	uint8_t *buf;
	bool ok;
	int n = 0;

	if (len < 2 || head[0] != (PF_TRACE_PACKET << 3 | PROTO_BYTES) || fstat(fd, &st))
		return false;
	p++;
	if (proto_varint(&p, end, &plen) || !plen ||
	    (uint64_t)st.st_size <= (uint64_t)(p - head))
		return false;
	avail = (uint64_t)st.st_size - (p - head);
	/* The first packet, read whole if it is not in the head (1 MB at most). */
	checked = plen < avail ? plen : avail;
	if (checked > 1u << 20)
		checked = 1u << 20;
	buf = malloc(checked + 1);
	if (!buf)
		return false;
	ok = pread(fd, buf, checked + 1, p - head) >= (ssize_t)checked;
	proto_cursor_init(&c, buf, checked);
	while (ok && proto_next(&c, &f))
		n++;
	if (ok && c.err && checked < plen) {
		/*
		 * Only the end of what was seen may cut a field, and not its
		 * tag; a length must still fit the packet.
		 */
		const uint8_t *q = c.err_at;
		uint64_t tag, flen;

		ok = cut_fault(c.err) && !proto_varint(&q, buf + checked, &tag) &&
		     tag >> 3 && (tag & 7) != 3 && (tag & 7) != 4 && (tag & 7) < 6;
		if (ok && c.err == PROTO_ERR_LENGTH)
			ok = !proto_varint(&q, buf + checked, &flen) &&
			     flen <= plen - (uint64_t)(q - buf);
		n++;
	} else {
		ok = ok && !c.err;
	}
	ok = ok && n;
	/* The next packet starts right after it. */
	if (ok && checked == plen && avail > plen)
		ok = buf[checked] == head[0];
	free(buf);
	return ok;
}

const struct trace_reader_ops perfetto_reader_ops = {
	.name = "perfetto",
	.probe = pf_probe,
	.open = pf_open,
	.next = pf_next,
	.rewind = pf_rewind,
	.close = pf_close,
};
