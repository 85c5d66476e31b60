// SPDX-License-Identifier: GPL-2.0
/*
 * The six tables of a sample, coded row by row against the previous sample
 * (docs/record-format.md, "SAMPLES"). A row is a bit mask of the fields
 * that changed followed by those fields' differences, so a sleeping task
 * costs a few bytes per sample; zlib then squeezes the repetition out of a
 * chunk. Which fields, in which order, is the row schemas' of schedstat.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_format.h"

struct field {
	enum schedstat_field_type type;
	uint16_t off;
	uint16_t size;
};

/*
 * One stored field of a schema: the member's place, and a build failure
 * when its C type is not the one the schema names (a uint64_t coded as
 * U32 would lose its high half). _Generic does not evaluate the
 * null-pointer access; a char array decays to char * there.
 */
#define CTYPE_BOOL	bool
#define CTYPE_CHAR	char
#define CTYPE_S32	int32_t
#define CTYPE_U32	uint32_t
#define CTYPE_U64	uint64_t
#define CTYPE_F64	double
#define CTYPE_STR	char *

#define FIELD(st, m, t)							\
	{ .type = SCHEDSTAT_FIELD_##t, .off = offsetof(st, m),		\
	  .size = sizeof(((st *)0)->m) +				\
		  0 * sizeof(_Generic(((st *)0)->m, CTYPE_##t: 0)) },
/* Derived fields are not stored (model_fill_derived() computes them). */
#define NOT_STORED(name, member, type)

#define TASK(name, member, type)	FIELD(struct schedstat_task, member, type)
#define CPU(name, member, type)		FIELD(struct schedstat_cpu, member, type)
#define CLUSTER(name, member, type)	FIELD(struct schedstat_cluster, member, type)
#define GROUP(name, member, type)	FIELD(struct schedstat_group, member, type)
#define MIGRATION(name, member, type)	FIELD(struct schedstat_migration, member, type)
#define FREQ(name, member, type)	FIELD(struct schedstat_freq_residency, member, type)

static const struct field task_fields[] = { SCHEDSTAT_TASK_FIELDS(TASK, NOT_STORED) };
static const struct field cpu_fields[] = { SCHEDSTAT_CPU_FIELDS(CPU, NOT_STORED) };
static const struct field cluster_fields[] = {
	SCHEDSTAT_CLUSTER_FIELDS(CLUSTER, NOT_STORED)
};
static const struct field group_fields[] = { SCHEDSTAT_GROUP_FIELDS(GROUP, NOT_STORED) };
static const struct field migration_fields[] = {
	SCHEDSTAT_MIGRATION_FIELDS(MIGRATION, NOT_STORED)
};
static const struct field freq_fields[] = { SCHEDSTAT_FREQ_FIELDS(FREQ, NOT_STORED) };

struct row_kind {
	const struct field *fields;
	size_t nr_fields;
	size_t size;
	/* Rows are matched to the previous sample's by pid (tasks) or index. */
	bool by_pid;
	size_t arr_off, nr_off;		/* in struct schedstat_snapshot */
};

#define SNAP_ARRAY(member, nr) \
	.arr_off = offsetof(struct schedstat_snapshot, member), \
	.nr_off = offsetof(struct schedstat_snapshot, nr)

/* The tables of a sample, in the order the format stores them. */
static const struct row_kind row_kinds[] = {
	{ .fields = task_fields, .nr_fields = ARRAY_SIZE(task_fields),
	  .size = sizeof(struct schedstat_task), .by_pid = true,
	  SNAP_ARRAY(tasks, nr_tasks) },
	{ .fields = cpu_fields, .nr_fields = ARRAY_SIZE(cpu_fields),
	  .size = sizeof(struct schedstat_cpu), SNAP_ARRAY(cpus, nr_cpus) },
	{ .fields = cluster_fields, .nr_fields = ARRAY_SIZE(cluster_fields),
	  .size = sizeof(struct schedstat_cluster),
	  SNAP_ARRAY(clusters, nr_clusters) },
	{ .fields = group_fields, .nr_fields = ARRAY_SIZE(group_fields),
	  .size = sizeof(struct schedstat_group), SNAP_ARRAY(groups, nr_groups) },
	{ .fields = migration_fields, .nr_fields = ARRAY_SIZE(migration_fields),
	  .size = sizeof(struct schedstat_migration),
	  SNAP_ARRAY(migrations, nr_migrations) },
	{ .fields = freq_fields, .nr_fields = ARRAY_SIZE(freq_fields),
	  .size = sizeof(struct schedstat_freq_residency),
	  SNAP_ARRAY(freqs, nr_freqs) },
};

/* A row's mask is one uvar of at most 64 bits. */
_Static_assert(ARRAY_SIZE(task_fields) <= 64 && ARRAY_SIZE(cpu_fields) <= 64 &&
	       ARRAY_SIZE(cluster_fields) <= 64, "a row mask holds 64 fields");

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

	switch (f->type) {
	case SCHEDSTAT_FIELD_BOOL:
		return *(const bool *)p;
	case SCHEDSTAT_FIELD_CHAR:
		return (uint8_t)*p;
	case SCHEDSTAT_FIELD_S32:
		return (uint64_t)(int64_t)*(const int32_t *)p;
	case SCHEDSTAT_FIELD_U32:
		return *(const uint32_t *)p;
	case SCHEDSTAT_FIELD_U64:
	case SCHEDSTAT_FIELD_F64:
		memcpy(&v, p, 8);
		return v;
	case SCHEDSTAT_FIELD_STR:
		break;
	}
	return 0;
}

static void field_set(void *row, const struct field *f, uint64_t v)
{
	char *p = (char *)row + f->off;

	switch (f->type) {
	case SCHEDSTAT_FIELD_BOOL:
		*(bool *)p = v & 1;
		break;
	case SCHEDSTAT_FIELD_CHAR:
		*p = (char)v;
		break;
	case SCHEDSTAT_FIELD_S32:
		*(int32_t *)p = (int32_t)v;
		break;
	case SCHEDSTAT_FIELD_U32:
		*(uint32_t *)p = (uint32_t)v;
		break;
	case SCHEDSTAT_FIELD_U64:
	case SCHEDSTAT_FIELD_F64:
		memcpy(p, &v, 8);
		break;
	case SCHEDSTAT_FIELD_STR:
		break;
	}
}

static bool field_equal(const void *a, const void *b, const struct field *f)
{
	if (f->type == SCHEDSTAT_FIELD_STR)
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
		if (f->type == SCHEDSTAT_FIELD_STR) {
			char s[SCHEDSTAT_PATH_LEN];

			snprintf(s, sizeof(s), "%.*s", (int)f->size - 1,
				 (const char *)row + f->off);
			rec_put_str(b, s);
		} else if (f->type == SCHEDSTAT_FIELD_F64) {
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
		if (f->type == SCHEDSTAT_FIELD_STR)
			rec_get_str(c, (char *)row + f->off, f->size);
		else if (f->type == SCHEDSTAT_FIELD_F64)
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

void rec_encode_tables(struct rec_buf *b, const struct schedstat_snapshot *snap,
		       const struct schedstat_snapshot *prev)
{
	static const char zero[ROW_MAX];

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
}

int rec_decode_tables(struct rec_codec *cx, struct rec_cur *c,
		      struct schedstat_snapshot *s,
		      const struct schedstat_snapshot *prev)
{
	static const char zero[ROW_MAX];
	int err = 0;

	for (size_t k = 0; k < ARRAY_SIZE(row_kinds) && !err; k++) {
		const struct row_kind *rk = &row_kinds[k];
		int32_t pid = 0;
		size_t nr, pos = 0;
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
	return err;
}

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
