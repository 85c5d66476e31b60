// SPDX-License-Identifier: GPL-2.0
/*
 * Ordering the --pelt-trace stream. Records arrive nearly sorted (see
 * PELT_REORDER_NS), so the held ones are kept as a sorted array: a new one
 * is inserted by walking back from the end, which is one step almost always.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pelt_stream.h"
#include "schedstat-local.h"

struct pelt_stream {
	schedstat_pelt_fn fn;
	void *ctx;
	struct schedstat_pelt_update *held;	/* sorted from head on */
	size_t head, nr, cap;
	uint64_t cgroup_id;			/* --pelt-cgroup's */
	char cgroup[SCHEDSTAT_PATH_LEN];
};

int pelt_stream_new(struct pelt_stream **out, schedstat_pelt_fn fn, void *ctx)
{
	struct pelt_stream *ps = calloc(1, sizeof(*ps));

	*out = ps;
	if (!ps)
		return -ENOMEM;
	ps->fn = fn;
	ps->ctx = ctx;
	return 0;
}

void pelt_stream_free(struct pelt_stream *ps)
{
	if (!ps)
		return;
	free(ps->held);
	free(ps);
}

void pelt_stream_set_group(struct pelt_stream *ps, uint64_t cgroup_id,
			   const char *path)
{
	ps->cgroup_id = cgroup_id;
	snprintf(ps->cgroup, sizeof(ps->cgroup), "%s", path);
}

static void to_update(const struct pelt_stream *ps,
		      struct schedstat_pelt_update *u, const struct st_pelt_rec *r)
{
	const char *name = schedstat_pelt_entity_name(r->entity);

	memset(u, 0, sizeof(*u));
	u->ts_ns = r->ts;
	u->cpu = r->cpu;
	u->pid = r->pid;
	u->tgid = r->tgid;
	snprintf(u->entity, sizeof(u->entity), "%s", name ? name : "?");
	u->util_avg = r->util_avg;
	u->runnable_avg = r->runnable_avg;
	u->load_avg = r->load_avg;
	u->last_update_ns = r->last_update_time;
	if (r->entity == ST_PELT_TASK) {
		u->avail |= SCHEDSTAT_AVAIL_PELT_TASK;
		schedstat_comm_sanitize(u->comm, r->comm, sizeof(u->comm));
	}
	if (r->entity == ST_PELT_GROUP) {
		u->cgroup_id = r->cgroup_id;
		if (r->cgroup_id == ps->cgroup_id)
			memcpy(u->cgroup, ps->cgroup, sizeof(u->cgroup));
	}
	if (r->util_est != ST_PELT_NO_UTIL_EST) {
		u->util_est = r->util_est;
		u->avail |= SCHEDSTAT_AVAIL_UTIL_EST;
	}
}

static bool before(const struct schedstat_pelt_update *a,
		   const struct schedstat_pelt_update *b)
{
	return a->ts_ns < b->ts_ns || (a->ts_ns == b->ts_ns && a->cpu < b->cpu);
}

int pelt_stream_add(struct pelt_stream *ps, const struct st_pelt_rec *r)
{
	struct schedstat_pelt_update u;
	size_t i;

	/* Delivered ones at the front: move the rest down before growing. */
	if (ps->head && ps->nr == ps->cap) {
		memmove(ps->held, ps->held + ps->head,
			(ps->nr - ps->head) * sizeof(*ps->held));
		ps->nr -= ps->head;
		ps->head = 0;
	}
	if (schedstat_array_reserve((void **)&ps->held, &ps->cap, ps->nr + 1, sizeof(*ps->held)))
		return -ENOMEM;
	to_update(ps, &u, r);
	/* Equal keys keep their arrival order. */
	for (i = ps->nr; i > ps->head && before(&u, &ps->held[i - 1]); i--)
		;
	memmove(ps->held + i + 1, ps->held + i, (ps->nr - i) * sizeof(*ps->held));
	ps->held[i] = u;
	ps->nr++;
	return 0;
}

void pelt_stream_release(struct pelt_stream *ps, uint64_t upto)
{
	while (ps->head < ps->nr && ps->held[ps->head].ts_ns <= upto) {
		if (ps->fn)
			ps->fn(&ps->held[ps->head], ps->ctx);
		ps->head++;
	}
	if (ps->head == ps->nr)
		ps->head = ps->nr = 0;
}
