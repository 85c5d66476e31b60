// SPDX-License-Identifier: GPL-2.0
/*
 * cpuhp steps in recordings (format 1.2, docs/record-format.md "CPUHP
 * chunk"), and the hotplug operations they make, timed per cpuhp state as
 * the live timer (cpuhp_timing.c) times them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_exit.h"
#include "record_format.h"
#include "record_reader.h"

/* Flags: bit 0 the callback is cpuhp_kick_ap_work, bit 1 a name follows. */
#define CPUHP_KICK	0x1
#define CPUHP_NAMED	0x2

void rec_cpuhp_add(struct rec_cpuhp_out *o, const struct schedstat_event *ev)
{
	bool enter = ev->hp_kind != SCHEDSTAT_CPUHP_EXIT;
	const char *name = NULL;
	unsigned int flags = 0;

	/* Read once, at the first step: the states are the kernel's. */
	if (!o->names_read) {
		o->names_read = true;
		if (cpuhp_names_read(&o->names)) {
			o->buf.err = -ENOMEM;
			return;
		}
	}
	if (!o->count) {
		o->first_ts = ev->ts_ns;
		o->prev_ts = 0;
	}
	if (enter)
		name = cpuhp_name_known(&o->names, ev->hp_idx);
	if (enter && ev->hp_kick)
		flags |= CPUHP_KICK;
	if (name)
		flags |= CPUHP_NAMED;
	rec_put_svar(&o->buf, (int64_t)(ev->ts_ns - o->prev_ts));
	o->prev_ts = ev->ts_ns;
	rec_put_uvar(&o->buf, ev->hp_kind);
	rec_put_uvar(&o->buf, flags);
	rec_put_uvar(&o->buf, (uint32_t)ev->hp_cpu);
	rec_put_uvar(&o->buf, (uint32_t)ev->cpu);
	rec_put_svar(&o->buf, ev->hp_target);
	rec_put_svar(&o->buf, ev->hp_idx);
	rec_put_svar(&o->buf, enter ? 0 : ev->hp_ret);
	if (name)
		rec_put_str(&o->buf, name);
	o->count++;
}

void rec_cpuhp_out_free(struct rec_cpuhp_out *o)
{
	free(o->buf.p);
	cpuhp_names_free(&o->names);
}

/* One recorded step. */
struct hp_step {
	uint64_t ts;
	uint64_t seq;		/* file order, for equal timestamps */
	int kind;		/* enum schedstat_cpuhp_kind */
	bool kick;
	int cpu;		/* plugged */
	int target;		/* enter: target; exit: state */
	int idx;
	int ret;
};

struct hp_steps {
	struct hp_step *s;
	size_t nr, cap;
};

static int decode_chunk(struct schedstat_recording *r, uint64_t at,
			const struct rec_chunk_hdr *h, struct hp_steps *out)
{
	struct cpuhp_names *names = (&r->hp_names);
	uint64_t prev_ts = 0;
	struct rec_cur c;
	uint8_t *buf;
	int err;

	if (!h->count || h->count > REC_CHUNK_MAX_CPUHP ||
	    h->count > h->raw_len / REC_CPUHP_MIN_LEN)
		return -EBADMSG;
	err = rec_chunk_payload(r, at, h, &buf);
	if (err)
		return err;
	c = (struct rec_cur){ buf, buf + h->raw_len, 0 };
	for (uint32_t i = 0; i < h->count && !c.err && !err; i++) {
		struct hp_step st = {};
		uint64_t kind, flags, cpu, on_cpu;
		int64_t target, idx, ret;
		char name[96];

		st.ts = prev_ts + (uint64_t)rec_get_svar(&c);
		prev_ts = st.ts;
		kind = rec_get_uvar(&c);
		flags = rec_get_uvar(&c);
		cpu = rec_get_uvar(&c);
		on_cpu = rec_get_uvar(&c);
		target = rec_get_svar(&c);
		idx = rec_get_svar(&c);
		ret = rec_get_svar(&c);
		if (flags & CPUHP_NAMED)
			rec_get_str(&c, name, sizeof(name));
		if (c.err)
			break;
		if (kind < SCHEDSTAT_CPUHP_ENTER || kind > SCHEDSTAT_CPUHP_EXIT ||
		    flags > (CPUHP_KICK | CPUHP_NAMED) ||
		    cpu >= SCHEDSTAT_MAX_CPUS || on_cpu >= SCHEDSTAT_MAX_CPUS ||
		    target < -1 || target > 4096 || idx < 0 || idx > 4096 ||
		    ret < INT32_MIN || ret > INT32_MAX) {
			err = -EBADMSG;
			break;
		}
		st = (struct hp_step){ .ts = st.ts, .kind = kind,
			.kick = flags & CPUHP_KICK, .cpu = cpu, .target = target,
			.idx = idx, .ret = ret };
		if (flags & CPUHP_NAMED) {
			/* Stored as read from sysfs; it ends up on terminals. */
			for (char *p = name; *p; p++)
				if (schedstat_text_unsafe(*p, true))
					*p = '?';
			err = cpuhp_names_set(names, idx, name);
		}
		if (!err)
			err = schedstat_array_reserve((void **)&out->s, &out->cap,
					    out->nr + 1, sizeof(*out->s));
		if (!err) {
			st.seq = out->nr;
			out->s[out->nr++] = st;
		}
	}
	if (!err)
		err = c.err;
	if (!err && c.p != c.end)
		err = -EBADMSG;
	free(buf);
	return err;
}

static int cmp_step(const void *a, const void *b)
{
	const struct hp_step *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* An operation being put together: its steps as the live timer reads them. */
struct hp_build {
	int cpu;
	bool up;
	bool pending;		/* a multi-instance enter awaiting its exit */
	struct hp_step multi;
	struct exit_event *evs;
	size_t nr_evs, cap_evs;
};

static int add_event(struct hp_build *b, const struct hp_step *st)
{
	struct exit_event *e;

	if (schedstat_array_reserve((void **)&b->evs, &b->cap_evs, b->nr_evs + 1,
			  sizeof(*b->evs)))
		return -ENOMEM;
	e = &b->evs[b->nr_evs++];
	/* fun 1 marks the kick: cpuhp_attribute() is given kick_fn 1. */
	*e = (struct exit_event){ .ts = st->ts, .seq = st->seq,
		.fun = st->kick, .cpu = st->cpu, .idx = st->idx, .ret = st->ret,
		.kind = st->kind == SCHEDSTAT_CPUHP_EXIT ? XEV_EXIT : XEV_ENTER };
	return 0;
}

/* The operation of @b, timed, appended to *@ops; @b starts empty again. */
static int finish_op(struct schedstat_recording *r, struct hp_build *b,
		     struct schedstat_recorded_hotplug **ops, size_t *nr,
		     size_t *cap)
{
	struct schedstat_recorded_hotplug *op;
	int err;

	if (!b->nr_evs)
		return 0;
	if (schedstat_array_reserve((void **)ops, cap, *nr + 1, sizeof(**ops)))
		return -ENOMEM;
	op = &(*ops)[(*nr)++];
	memset(op, 0, sizeof(*op));
	op->cpu = b->cpu;
	op->ts_ns = b->evs[0].ts;
	op->op.back = b->up;
	err = cpuhp_attribute(b->evs, b->nr_evs, b->cpu, 1, (&r->hp_names),
			      &op->op, b->evs[0].ts, b->evs[b->nr_evs - 1].ts);
	op->op.back = b->up;
	b->nr_evs = 0;
	if (err == -SCHEDSTAT_ERR_HOTPLUG_FAILED) {
		op->failed = true;
		err = 0;
	}
	return err;
}

/*
 * An enter or exit joins its CPU's operation, or an enter starts the next
 * one. As the BPF source counts them (hotplug_step() in schedtop.bpf.c): a
 * change of direction starts an operation (going up runs states up to the
 * target, idx <= target; going down tears down states above it).
 */
static int join(struct schedstat_recording *r, struct hp_build *b,
		const struct hp_step *st,
		struct schedstat_recorded_hotplug **ops, size_t *nr, size_t *cap)
{
	int err;

	if (st->kind != SCHEDSTAT_CPUHP_EXIT) {
		bool up = st->idx <= st->target;

		if (!b->nr_evs || b->up != up) {
			err = finish_op(r, b, ops, nr, cap);
			if (err)
				return err;
			b->up = up;
		}
	} else if (!b->nr_evs) {
		return 0;	/* the exit of a step before the recording */
	}
	return add_event(b, st);
}

/*
 * A multi-instance step counts only if its exit leaves the CPU at that
 * step (or the one below): an instance added or removed on a CPU that
 * stays online leaves it where it is, and is no operation.
 */
static int add_step(struct schedstat_recording *r, struct hp_build *b,
		    const struct hp_step *st,
		    struct schedstat_recorded_hotplug **ops, size_t *nr,
		    size_t *cap)
{
	int err;

	if (st->kind == SCHEDSTAT_CPUHP_MULTI_ENTER) {
		b->multi = *st;
		b->pending = true;
		return 0;
	}
	if (st->kind == SCHEDSTAT_CPUHP_EXIT && b->pending) {
		b->pending = false;
		if (st->target != b->multi.idx && st->target != b->multi.idx - 1)
			return 0;
		err = join(r, b, &b->multi, ops, nr, cap);
		if (err)
			return err;
	}
	return join(r, b, st, ops, nr, cap);
}

static int by_time(const void *a, const void *b)
{
	const struct schedstat_recorded_hotplug *x = a, *y = b;

	return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

int schedstat_recording_hotplug(struct schedstat_recording *r,
				struct schedstat_recorded_hotplug **ops,
				size_t *nr, size_t *damaged)
{
	struct hp_steps steps = {};
	struct hp_build *cpus = NULL;
	size_t nr_chunks = 0, cap = 0;
	uint64_t off = r->head_end, at;
	struct rec_chunk_hdr h;
	int err;

	*ops = NULL;
	*nr = *damaged = 0;
	for (;;) {
		err = rec_next_chunk(r, &off, REC_CHUNK_CPUHP, &h, &at);
		if (err == -ENODATA)
			break;
		if (!err) {
			nr_chunks++;
			err = decode_chunk(r, at, &h, &steps);
		}
		if (err == -ENOMEM)
			goto cleanup;
		if (err)
			(*damaged)++;
	}
	err = -ENODATA;
	if (!nr_chunks && !*damaged)
		goto cleanup;
	/* One ring buffer for all CPUs: nearly, not quite, time order. */
	if (steps.nr)
		qsort(steps.s, steps.nr, sizeof(*steps.s), cmp_step);
	err = -ENOMEM;
	cpus = calloc(SCHEDSTAT_MAX_CPUS, sizeof(*cpus));
	if (!cpus)
		goto cleanup;
	err = 0;
	for (size_t i = 0; i < steps.nr && !err; i++) {
		struct hp_build *b = &cpus[steps.s[i].cpu];

		b->cpu = steps.s[i].cpu;
		err = add_step(r, b, &steps.s[i], ops, nr, &cap);
	}
	for (int c = 0; c < SCHEDSTAT_MAX_CPUS && !err; c++)
		err = finish_op(r, &cpus[c], ops, nr, &cap);
	if (!err && *nr)
		qsort(*ops, *nr, sizeof(**ops), by_time);
cleanup:
	if (cpus)
		for (int c = 0; c < SCHEDSTAT_MAX_CPUS; c++)
			free(cpus[c].evs);
	free(cpus);
	free(steps.s);
	if (err) {
		schedstat_recording_hotplug_free(*ops, *nr);
		*ops = NULL;
		*nr = 0;
	}
	return err;
}

void schedstat_recording_hotplug_free(struct schedstat_recorded_hotplug *ops,
				      size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		schedstat_exit_op_clear(&ops[i].op);
	free(ops);
}
