// SPDX-License-Identifier: GPL-2.0
/*
 * Encoding of recordings: varints, chunk headers, and snapshots coded row by
 * row against the previous sample. A row is a bit mask of the fields that
 * changed followed by those fields' differences, so a sleeping task costs a
 * few bytes per sample; zlib then squeezes the repetition out of a chunk.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "record_format.h"

/* ---- primitives --------------------------------------------------- */

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = v >> (8 * i);
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint8_t *buf_room(struct rec_buf *b, size_t len)
{
	if (b->err)
		return NULL;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	b->len += len;
	return b->p + b->len - len;
}

void rec_put_bytes(struct rec_buf *b, const void *p, size_t len)
{
	uint8_t *dst = buf_room(b, len);

	if (dst && len)
		memcpy(dst, p, len);
}

void rec_put_uvar(struct rec_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	rec_put_bytes(b, tmp, n);
}

void rec_put_svar(struct rec_buf *b, int64_t v)
{
	rec_put_uvar(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void rec_put_str(struct rec_buf *b, const char *s)
{
	size_t len = strlen(s);

	rec_put_uvar(b, len);
	rec_put_bytes(b, s, len);
}

void rec_put_u32le(struct rec_buf *b, uint32_t v)
{
	uint8_t *p = buf_room(b, 4);

	if (p)
		put_le(p, v, 4);
}

void rec_put_u64le(struct rec_buf *b, uint64_t v)
{
	uint8_t *p = buf_room(b, 8);

	if (p)
		put_le(p, v, 8);
}

static bool cur_take(struct rec_cur *c, size_t len)
{
	if (c->err || (size_t)(c->end - c->p) < len) {
		c->err = -EBADMSG;
		return false;
	}
	return true;
}

uint64_t rec_get_uvar(struct rec_cur *c)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t byte;

		if (!cur_take(c, 1))
			return 0;
		byte = *c->p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	c->err = -EBADMSG;	/* more than ten bytes: not a varint of ours */
	return 0;
}

int64_t rec_get_svar(struct rec_cur *c)
{
	uint64_t v = rec_get_uvar(c);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

void rec_get_str(struct rec_cur *c, char *dst, size_t size)
{
	uint64_t len = rec_get_uvar(c);

	dst[0] = '\0';
	if (c->err)
		return;
	if (len >= size || !cur_take(c, len)) {
		c->err = -EBADMSG;
		return;
	}
	/*
	 * Names go to terminals: a file must not smuggle escape sequences in
	 * (live names are sanitized alike, so a round trip stays exact).
	 */
	schedstat_comm_sanitize(dst, (const char *)c->p, len + 1);
	/* All of the rest: a row decoded over an older one keeps no tail of it. */
	len = strlen(dst);
	memset(dst + len, 0, size - len);
	c->p += len;
}

uint32_t rec_get_u32le(struct rec_cur *c)
{
	uint32_t v;

	if (!cur_take(c, 4))
		return 0;
	v = get_le(c->p, 4);
	c->p += 4;
	return v;
}

uint64_t rec_get_u64le(struct rec_cur *c)
{
	uint64_t v;

	if (!cur_take(c, 8))
		return 0;
	v = get_le(c->p, 8);
	c->p += 8;
	return v;
}

size_t rec_get_count(struct rec_cur *c, size_t min_item_len)
{
	uint64_t n = rec_get_uvar(c);

	if (c->err)
		return 0;
	if (min_item_len && n > (uint64_t)(c->end - c->p) / min_item_len) {
		c->err = -EBADMSG;
		return 0;
	}
	return n;
}

/* ---- chunk header ------------------------------------------------- */

uint32_t rec_chunk_crc(const uint8_t hdr[REC_CHUNK_HDR_LEN], const void *stored,
		       size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	crc = crc32(crc, hdr, REC_CHUNK_HDR_LEN - 4);
	if (len)
		crc = crc32(crc, stored, len);
	return crc;
}

void rec_chunk_hdr_encode(uint8_t out[REC_CHUNK_HDR_LEN],
			  const struct rec_chunk_hdr *h, const void *stored)
{
	put_le(out, REC_CHUNK_MAGIC, 4);
	put_le(out + 4, h->type, 2);
	put_le(out + 6, h->flags, 2);
	put_le(out + 8, h->stored_len, 4);
	put_le(out + 12, h->raw_len, 4);
	put_le(out + 16, h->first_ts, 8);
	put_le(out + 24, h->count, 4);
	put_le(out + 28, rec_chunk_crc(out, stored, h->stored_len), 4);
}

int rec_chunk_hdr_decode(const uint8_t in[REC_CHUNK_HDR_LEN],
			 struct rec_chunk_hdr *h)
{
	if (get_le(in, 4) != REC_CHUNK_MAGIC)
		return -EBADMSG;
	h->type = get_le(in + 4, 2);
	h->flags = get_le(in + 6, 2);
	h->stored_len = get_le(in + 8, 4);
	h->raw_len = get_le(in + 12, 4);
	h->first_ts = get_le(in + 16, 8);
	h->count = get_le(in + 24, 4);
	h->crc = get_le(in + 28, 4);
	if (h->stored_len > REC_CHUNK_MAX || h->raw_len > REC_CHUNK_MAX)
		return -EBADMSG;
	if (!(h->flags & REC_CHUNK_DEFLATE) && h->raw_len != h->stored_len)
		return -EBADMSG;
	return 0;
}

/* ---- rows --------------------------------------------------------- */

enum field_kind {
	F_BOOL,		/* bool */
	F_CHAR,		/* char */
	F_S32,
	F_U32,
	F_U64,
	F_F64,		/* stored as its IEEE-754 bits */
	F_STR,		/* char[size] */
};

struct field {
	enum field_kind kind;
	uint16_t off;
	uint16_t size;
};

#define FLD(kind, type, member) \
	{ kind, offsetof(type, member), sizeof(((type *)0)->member) }

/*
 * The order of fields is part of the format: append new ones at the end of
 * a table (readers of older files leave them zero). cpu_pct and per_sec are
 * not stored: they follow from other fields (see fill_derived()).
 */
#define T struct schedstat_task
static const struct field task_fields[] = {
	FLD(F_S32, T, pid), FLD(F_S32, T, tgid), FLD(F_STR, T, comm),
	FLD(F_S32, T, cpu), FLD(F_S32, T, cluster), FLD(F_CHAR, T, state),
	FLD(F_BOOL, T, running), FLD(F_BOOL, T, exited), FLD(F_S32, T, prio),
	FLD(F_U32, T, util_avg), FLD(F_U32, T, runnable_avg),
	FLD(F_U64, T, load_avg), FLD(F_U32, T, util_est),
	FLD(F_U64, T, pelt_age_ns), FLD(F_U64, T, run_ns),
	FLD(F_U64, T, wait_ns), FLD(F_U64, T, wakeups),
	FLD(F_U64, T, migrations), FLD(F_U64, T, nvcsw), FLD(F_U64, T, nivcsw),
	FLD(F_U32, T, up_migrations), FLD(F_U32, T, down_migrations),
	FLD(F_BOOL, T, misfit), FLD(F_BOOL, T, pelt_estimated),
};
#undef T

#define C struct schedstat_cpu
static const struct field cpu_fields[] = {
	FLD(F_S32, C, cpu), FLD(F_S32, C, cluster), FLD(F_BOOL, C, online),
	FLD(F_U32, C, capacity), FLD(F_U32, C, capacity_cfs),
	FLD(F_U32, C, util_avg), FLD(F_U32, C, runnable_avg),
	FLD(F_U64, C, load_avg), FLD(F_U32, C, util_est),
	FLD(F_U32, C, blocked_util), FLD(F_U64, C, blocked_load),
	FLD(F_U32, C, rt_util), FLD(F_U32, C, dl_util), FLD(F_U32, C, irq_util),
	FLD(F_U32, C, hw_pressure), FLD(F_U32, C, nr_running),
	FLD(F_U64, C, busy_ns), FLD(F_U64, C, nr_switches),
	FLD(F_U64, C, nr_preempt), FLD(F_U64, C, dropped),
	FLD(F_U32, C, hotplug_ops), FLD(F_U64, C, hotplug_ns),
	FLD(F_U32, C, freq_khz), FLD(F_U32, C, freq_avg_khz),
	{ F_U64, offsetof(C, idle_state_ns[0]), 8 },
	{ F_U64, offsetof(C, idle_state_ns[1]), 8 },
	{ F_U64, offsetof(C, idle_state_ns[2]), 8 },
	{ F_U64, offsetof(C, idle_state_ns[3]), 8 },
	FLD(F_U32, C, avail), FLD(F_BOOL, C, pelt_estimated),
	FLD(F_STR, C, hotplug_to),
};
#undef C

#define K struct schedstat_cluster
static const struct field cluster_fields[] = {
	FLD(F_S32, K, id), FLD(F_STR, K, name), FLD(F_STR, K, cpus),
	FLD(F_U32, K, nr_online), FLD(F_U32, K, capacity),
	FLD(F_F64, K, util_pct), FLD(F_U32, K, nr_running),
	FLD(F_S32, K, overutilized), FLD(F_U64, K, overutilized_ns),
	FLD(F_F64, K, busy_pct), FLD(F_U32, K, misfit_tasks),
	FLD(F_U32, K, up_migrations), FLD(F_U32, K, down_migrations),
	FLD(F_U32, K, freq_khz), FLD(F_U32, K, freq_avg_khz),
	FLD(F_U32, K, avail),
};
#undef K

#define G struct schedstat_group
static const struct field group_fields[] = {
	FLD(F_U64, G, cgroup_id), FLD(F_STR, G, path), FLD(F_S32, G, cpu),
	FLD(F_S32, G, cluster), FLD(F_U32, G, depth), FLD(F_U32, G, util_avg),
	FLD(F_U32, G, runnable_avg), FLD(F_U64, G, load_avg),
	FLD(F_U64, G, age_ns),
};
#undef G

static const struct field migration_fields[] = {
	FLD(F_S32, struct schedstat_migration, from),
	FLD(F_S32, struct schedstat_migration, to),
	FLD(F_U32, struct schedstat_migration, count),
};

static const struct field freq_fields[] = {
	FLD(F_S32, struct schedstat_freq_residency, cluster),
	FLD(F_U32, struct schedstat_freq_residency, khz),
	FLD(F_U64, struct schedstat_freq_residency, ns),
};

struct row_kind {
	const struct field *fields;
	size_t nr_fields;
	size_t size;
	/* Rows are matched to the previous sample's by pid (tasks) or index. */
	bool by_pid;
	size_t arr_off, nr_off;		/* in struct schedstat_snapshot */
};

#define SNAP_ARRAY(member, nr) \
	offsetof(struct schedstat_snapshot, member), \
	offsetof(struct schedstat_snapshot, nr)

static const struct row_kind row_kinds[] = {
	{ task_fields, ARRAY_SIZE(task_fields), sizeof(struct schedstat_task),
	  true, SNAP_ARRAY(tasks, nr_tasks) },
	{ cpu_fields, ARRAY_SIZE(cpu_fields), sizeof(struct schedstat_cpu),
	  false, SNAP_ARRAY(cpus, nr_cpus) },
	{ cluster_fields, ARRAY_SIZE(cluster_fields),
	  sizeof(struct schedstat_cluster), false,
	  SNAP_ARRAY(clusters, nr_clusters) },
	{ group_fields, ARRAY_SIZE(group_fields), sizeof(struct schedstat_group),
	  false, SNAP_ARRAY(groups, nr_groups) },
	{ migration_fields, ARRAY_SIZE(migration_fields),
	  sizeof(struct schedstat_migration), false,
	  SNAP_ARRAY(migrations, nr_migrations) },
	{ freq_fields, ARRAY_SIZE(freq_fields),
	  sizeof(struct schedstat_freq_residency), false,
	  SNAP_ARRAY(freqs, nr_freqs) },
};

static void **snap_rows(const struct schedstat_snapshot *s, const struct row_kind *k)
{
	return (void **)((char *)s + k->arr_off);
}

static size_t *snap_nr(const struct schedstat_snapshot *s, const struct row_kind *k)
{
	return (size_t *)((char *)s + k->nr_off);
}

/* Integer fields as 64 bits; differences wrap, which both sides undo alike. */
static uint64_t field_get(const void *row, const struct field *f)
{
	const char *p = (const char *)row + f->off;
	uint64_t v = 0;

	switch (f->kind) {
	case F_BOOL:
		return *(const bool *)p;
	case F_CHAR:
		return (uint8_t)*p;
	case F_S32:
		return (uint64_t)(int64_t)*(const int32_t *)p;
	case F_U32:
		return *(const uint32_t *)p;
	case F_U64:
	case F_F64:
		memcpy(&v, p, 8);
		return v;
	case F_STR:
		break;
	}
	return 0;
}

static void field_set(void *row, const struct field *f, uint64_t v)
{
	char *p = (char *)row + f->off;

	switch (f->kind) {
	case F_BOOL:
		*(bool *)p = v & 1;
		break;
	case F_CHAR:
		*p = (char)v;
		break;
	case F_S32:
		*(int32_t *)p = (int32_t)v;
		break;
	case F_U32:
		*(uint32_t *)p = (uint32_t)v;
		break;
	case F_U64:
	case F_F64:
		memcpy(p, &v, 8);
		break;
	case F_STR:
		break;
	}
}

static bool field_equal(const void *a, const void *b, const struct field *f)
{
	if (f->kind == F_STR)
		return !strncmp((const char *)a + f->off, (const char *)b + f->off,
				f->size);
	return field_get(a, f) == field_get(b, f);
}

static void encode_row(struct rec_buf *b, const struct row_kind *k,
		       const void *row, const void *ref)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < k->nr_fields; i++)
		if (!field_equal(row, ref, &k->fields[i]))
			mask |= 1ULL << i;
	rec_put_uvar(b, mask);
	for (size_t i = 0; i < k->nr_fields; i++) {
		const struct field *f = &k->fields[i];

		if (!(mask & (1ULL << i)))
			continue;
		if (f->kind == F_STR) {
			char s[SCHEDSTAT_PATH_LEN];

			snprintf(s, sizeof(s), "%.*s", (int)f->size - 1,
				 (const char *)row + f->off);
			rec_put_str(b, s);
		} else if (f->kind == F_F64) {
			rec_put_uvar(b, field_get(row, f) ^ field_get(ref, f));
		} else {
			rec_put_svar(b, field_get(row, f) - field_get(ref, f));
		}
	}
}

static void decode_row(struct rec_cur *c, const struct row_kind *k, void *row,
		       const void *ref)
{
	uint64_t mask = rec_get_uvar(c);

	if (row != ref)
		memcpy(row, ref, k->size);
	/* Fields this reader does not know of: a newer minor version. */
	if (k->nr_fields < 64 && mask >> k->nr_fields)
		c->err = -EBADMSG;
	for (size_t i = 0; i < k->nr_fields && !c->err; i++) {
		const struct field *f = &k->fields[i];

		if (!(mask & (1ULL << i)))
			continue;
		if (f->kind == F_STR)
			rec_get_str(c, (char *)row + f->off, f->size);
		else if (f->kind == F_F64)
			field_set(row, f, field_get(ref, f) ^ rec_get_uvar(c));
		else
			field_set(row, f, field_get(ref, f) + (uint64_t)rec_get_svar(c));
	}
}

/*
 * The reference row in the previous sample: the same pid (tasks are sorted
 * by pid, so one forward walk finds it) or the same index. *@pos carries the
 * walk; a row with no reference is coded against zeros.
 */
static const void *row_ref(const struct row_kind *k, const struct schedstat_snapshot *prev,
			   size_t i, const void *row, size_t *pos, const void *zero)
{
	const struct schedstat_task *tasks;
	int32_t pid;
	size_t nr;

	if (!prev)
		return zero;
	nr = *snap_nr(prev, k);
	if (!k->by_pid)
		return i < nr ? (const char *)*snap_rows(prev, k) + i * k->size : zero;
	tasks = prev->tasks;
	pid = ((const struct schedstat_task *)row)->pid;
	while (*pos < nr && tasks[*pos].pid < pid)
		(*pos)++;
	return *pos < nr && tasks[*pos].pid == pid ? &tasks[(*pos)++] : zero;
}

/* Room for the largest row of any kind, for the all-zero reference. */
#define ROW_MAX 512
_Static_assert(sizeof(struct schedstat_group) <= ROW_MAX &&
	       sizeof(struct schedstat_cpu) <= ROW_MAX &&
	       sizeof(struct schedstat_cluster) <= ROW_MAX &&
	       sizeof(struct schedstat_task) <= ROW_MAX, "ROW_MAX too small");

static void fill_derived(struct schedstat_snapshot *s)
{
	for (size_t i = 0; i < s->nr_tasks && s->interval_ns; i++)
		s->tasks[i].cpu_pct = 100.0 * s->tasks[i].run_ns / s->interval_ns;
	for (size_t i = 0; i < s->nr_migrations && s->interval_ns; i++)
		s->migrations[i].per_sec = s->migrations[i].count * 1e9 / s->interval_ns;
}

/* ---- snapshots ---------------------------------------------------- */

size_t rec_snapshot_bytes(const struct schedstat_snapshot *s)
{
	size_t bytes = 0;

	for (size_t k = 0; k < ARRAY_SIZE(row_kinds); k++)
		bytes += *snap_nr(s, &row_kinds[k]) * row_kinds[k].size;
	return bytes;
}

struct schedstat_snapshot *rec_snapshot_copy(const struct schedstat_snapshot *s)
{
	struct schedstat_snapshot *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->ts_ns = s->ts_ns;
	d->interval_ns = s->interval_ns;
	d->avail = s->avail;
	d->dropped = s->dropped;
	for (size_t k = 0; k < ARRAY_SIZE(row_kinds); k++) {
		const struct row_kind *rk = &row_kinds[k];
		size_t nr = *snap_nr(s, rk);
		void *rows = nr ? malloc(nr * rk->size) : NULL;

		if (nr && !rows) {
			schedstat_snapshot_free(d);
			return NULL;
		}
		if (nr)
			memcpy(rows, *snap_rows(s, rk), nr * rk->size);
		*snap_rows(d, rk) = rows;
		*snap_nr(d, rk) = nr;
	}
	return d;
}

void rec_codec_reset(struct rec_codec *cx)
{
	schedstat_snapshot_free(cx->prev);
	cx->prev = NULL;
}

/*
 * An activation fills the same nine slots as every event, so that readers
 * of format 1.0 skip it whole (docs/record-format.md): the cpu slot holds
 * its constraint, the last three its start, end and deadline as ns after
 * its release (start -1: dropped).
 */
static void encode_event(struct rec_buf *b, const struct schedstat_event *ev,
			 uint64_t ts)
{
	bool act = ev->type == SCHEDSTAT_EV_ACTIVATION;

	rec_put_uvar(b, ev->type);
	rec_put_svar(b, (int64_t)(ev->ts_ns - ts));
	rec_put_svar(b, act ? ev->constraint : ev->cpu);
	rec_put_svar(b, ev->pid);
	rec_put_svar(b, ev->tgid);
	rec_put_str(b, ev->comm);
	if (act) {
		rec_put_svar(b, ev->start_ns ? (int64_t)(ev->start_ns - ev->ts_ns) : -1);
		rec_put_svar(b, ev->end_ns ? (int64_t)(ev->end_ns - ev->ts_ns) : -1);
		rec_put_svar(b, (int64_t)(ev->deadline_ns - ev->ts_ns));
		return;
	}
	rec_put_svar(b, ev->orig_cpu);
	rec_put_svar(b, ev->dest_cpu);
	rec_put_svar(b, ev->overutilized);
}

static void decode_event(struct rec_cur *c, struct schedstat_event *ev, uint64_t ts)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = rec_get_uvar(c);
	ev->ts_ns = ts + (uint64_t)rec_get_svar(c);
	ev->cpu = rec_get_svar(c);
	ev->pid = rec_get_svar(c);
	ev->tgid = rec_get_svar(c);
	rec_get_str(c, ev->comm, sizeof(ev->comm));
	if (ev->type == SCHEDSTAT_EV_ACTIVATION) {
		int64_t start = rec_get_svar(c), end = rec_get_svar(c);

		ev->constraint = ev->cpu;
		ev->cpu = -1;
		ev->start_ns = start >= 0 ? ev->ts_ns + start : 0;
		ev->end_ns = end >= 0 ? ev->ts_ns + end : 0;
		ev->deadline_ns = ev->ts_ns + rec_get_svar(c);
		return;
	}
	ev->orig_cpu = rec_get_svar(c);
	ev->dest_cpu = rec_get_svar(c);
	ev->overutilized = rec_get_svar(c);
}

int rec_encode_sample(struct rec_codec *cx, struct rec_buf *b,
		      const struct schedstat_snapshot *snap,
		      const struct schedstat_event *evs, size_t nr_evs)
{
	static const char zero[ROW_MAX];
	const struct schedstat_snapshot *prev = cx->prev;
	struct schedstat_snapshot *copy;

	rec_put_svar(b, (int64_t)(snap->ts_ns - (prev ? prev->ts_ns : cx->base_ts)));
	rec_put_uvar(b, snap->interval_ns);
	rec_put_uvar(b, snap->avail);
	rec_put_uvar(b, snap->dropped);
	rec_put_uvar(b, nr_evs);
	for (size_t i = 0; i < nr_evs; i++)
		encode_event(b, &evs[i], snap->ts_ns);
	for (size_t k = 0; k < ARRAY_SIZE(row_kinds); k++) {
		const struct row_kind *rk = &row_kinds[k];
		const char *rows = *snap_rows(snap, rk);
		size_t nr = *snap_nr(snap, rk), pos = 0;
		int32_t pid = 0;

		rec_put_uvar(b, nr);
		for (size_t i = 0; i < nr; i++) {
			const void *row = rows + i * rk->size;

			/* The pid goes first: the reader finds the reference by it. */
			if (rk->by_pid) {
				int32_t p = ((const struct schedstat_task *)row)->pid;

				rec_put_svar(b, (int64_t)p - pid);
				pid = p;
			}
			encode_row(b, rk, row, row_ref(rk, prev, i, row, &pos, zero));
		}
	}
	if (b->err)
		return b->err;
	copy = rec_snapshot_copy(snap);
	if (!copy)
		return -ENOMEM;
	rec_codec_reset(cx);
	cx->prev = copy;
	return 0;
}

int rec_decode_sample(struct rec_codec *cx, struct rec_cur *c,
		      struct schedstat_snapshot **out,
		      struct schedstat_event **evs, size_t *nr_evs, size_t *cap)
{
	static const char zero[ROW_MAX];
	const struct schedstat_snapshot *prev = cx->prev;
	struct schedstat_snapshot *s, *copy;
	size_t nr;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ts_ns = (prev ? prev->ts_ns : cx->base_ts) + (uint64_t)rec_get_svar(c);
	s->interval_ns = rec_get_uvar(c);
	s->avail = rec_get_uvar(c);
	s->dropped = rec_get_uvar(c);
	/* An event takes at least nine bytes. */
	nr = rec_get_count(c, 9);
	err = c->err;
	if (!err && nr > cx->budget / sizeof(**evs))
		err = -EBADMSG;
	if (!err && nr) {
		cx->budget -= nr * sizeof(**evs);
		err = array_reserve((void **)evs, cap, *nr_evs + nr, sizeof(**evs));
	}
	for (size_t i = 0; i < nr && !err; i++) {
		decode_event(c, &(*evs)[(*nr_evs)++], s->ts_ns);
		err = c->err;
	}
	for (size_t k = 0; k < ARRAY_SIZE(row_kinds) && !err; k++) {
		const struct row_kind *rk = &row_kinds[k];
		int32_t pid = 0;
		size_t pos = 0;
		char *rows;

		/* Every row takes at least its mask byte. */
		nr = rec_get_count(c, 1);
		err = c->err;
		if (!err && nr > cx->budget / rk->size)
			err = -EBADMSG;
		if (err || !nr)
			continue;
		cx->budget -= nr * rk->size;
		rows = calloc(nr, rk->size);
		if (!rows) {
			err = -ENOMEM;
			break;
		}
		*snap_rows(s, rk) = rows;
		*snap_nr(s, rk) = nr;
		for (size_t i = 0; i < nr && !err; i++) {
			void *row = rows + i * rk->size;

			if (rk->by_pid) {
				/* Unsigned: a damaged delta must not overflow. */
				pid = (int32_t)((uint32_t)pid + (uint32_t)rec_get_svar(c));
				((struct schedstat_task *)row)->pid = pid;
			}
			decode_row(c, rk, row, row_ref(rk, prev, i, row, &pos, zero));
			if (rk->by_pid && ((struct schedstat_task *)row)->pid != pid)
				c->err = -EBADMSG;
			err = c->err;
		}
	}
	if (err)
		goto fail;
	fill_derived(s);
	copy = rec_snapshot_copy(s);
	if (!copy) {
		err = -ENOMEM;
		goto fail;
	}
	rec_codec_reset(cx);
	cx->prev = copy;
	*out = s;
	return 0;
fail:
	schedstat_snapshot_free(s);
	return err;
}

/* ---- topology ----------------------------------------------------- */

int rec_encode_topology(struct rec_buf *b, const struct schedstat_topology *topo)
{
	int nr = schedstat_topology_nr_clusters(topo);

	rec_put_uvar(b, schedstat_topology_origin(topo));
	rec_put_uvar(b, nr);
	for (int k = 0; k < nr; k++) {
		char list[SCHEDSTAT_CPULIST_LEN * 8];
		struct cpuset set = {};
		unsigned int fmin = 0, fmax = 0;
		int err;

		err = schedstat_topology_cluster_cpulist(topo, k, list, sizeof(list));
		if (!err)
			err = cpulist_parse(list, &set);
		if (err)
			return err;
		schedstat_topology_cluster_freq(topo, k, &fmin, &fmax);
		rec_put_str(b, schedstat_topology_cluster_name(topo, k));
		rec_put_str(b, list);
		rec_put_svar(b, schedstat_topology_cluster_policy(topo, k));
		rec_put_uvar(b, fmin);
		rec_put_uvar(b, fmax);
		for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)
			if (cpuset_test(&set, cpu))
				rec_put_uvar(b, schedstat_topology_cpu_capacity(topo, cpu));
	}
	return b->err;
}

int rec_decode_topology(struct rec_cur *c, struct schedstat_topology **out)
{
	unsigned int caps[SCHEDSTAT_MAX_CPUS];
	enum schedstat_topology_origin origin = rec_get_uvar(c);
	struct schedstat_topology *topo;
	size_t nr;
	int err = 0;

	*out = NULL;
	/* A cluster takes at least six bytes. */
	nr = rec_get_count(c, 6);
	if (c->err || !nr || nr > SCHEDSTAT_MAX_CPUS)
		return -EBADMSG;
	topo = topology_new(origin);
	if (!topo)
		return -ENOMEM;
	for (size_t k = 0; k < nr && !err; k++) {
		char name[SCHEDSTAT_NAME_LEN], list[SCHEDSTAT_CPULIST_LEN * 8];
		struct cpuset set = {};
		unsigned int fmin, fmax;
		int policy, n = 0;

		rec_get_str(c, name, sizeof(name));
		rec_get_str(c, list, sizeof(list));
		policy = rec_get_svar(c);
		fmin = rec_get_uvar(c);
		fmax = rec_get_uvar(c);
		if (c->err || cpulist_parse(list, &set)) {
			err = -EBADMSG;
			break;
		}
		for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)
			if (cpuset_test(&set, cpu))
				caps[n++] = rec_get_uvar(c);
		err = c->err ? c->err : topology_add_cluster(topo, name, &set, caps,
							     policy, fmin, fmax);
	}
	if (err) {
		schedstat_topology_free(topo);
		return err == -ENOMEM ? err : -EBADMSG;
	}
	topology_seal(topo);
	*out = topo;
	return 0;
}
