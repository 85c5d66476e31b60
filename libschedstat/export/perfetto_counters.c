// SPDX-License-Identifier: GPL-2.0
/*
 * Samples and PELT updates as counter tracks: each entity's counters go out
 * in groups, one event per group when one of its values changed (a counter
 * holds its value until the next), with every value of the group; PELT
 * updates at every update.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_fields.h"
#include "perfetto_writer.h"
#include "schedstat-local.h"
#include "trace_counter.h"

static bool is_double(const struct schedstat_trace_counter *c)
{
	return c->type == SCHEDSTAT_FIELD_F64;
}

/* Kinds of one row, in the order their counters come: group by group. */
static int add_kinds(struct schedstat_perfetto *p, enum schedstat_row_kind row,
		     const struct schedstat_trace_counter *ctrs, size_t nr)
{
	size_t first = p->nr_kinds;

	for (size_t i = 0; i < nr; i++) {
		struct pfw_group_kind *k = NULL;

		if (ctrs[i].row != row)
			continue;
		if (ctrs[i].type == SCHEDSTAT_FIELD_STR || ctrs[i].type == SCHEDSTAT_FIELD_CHAR)
			return -EINVAL;
		/* The last kind of its group with room, or a new one. */
		for (size_t k2 = p->nr_kinds; k2-- > first;) {
			if (p->kinds[k2].ctr[0]->group == ctrs[i].group) {
				if (p->kinds[k2].nr < PFW_GROUP_MAX)
					k = &p->kinds[k2];
				break;
			}
		}
		if (!k) {
			void *grown = realloc(p->kinds, (p->nr_kinds + 1) * sizeof(*p->kinds));

			if (!grown)
				return -ENOMEM;
			p->kinds = grown;
			k = &p->kinds[p->nr_kinds++];
			*k = (struct pfw_group_kind){ .row = row };
		}
		k->ctr[k->nr++] = &ctrs[i];
	}
	return 0;
}

int pfw_counter_kinds(struct schedstat_perfetto *p,
		      const struct schedstat_trace_counter *ctrs, size_t nr)
{
	int err;

	err = add_kinds(p, SCHEDSTAT_ROW_TASK, ctrs, nr);
	p->nr_task_kinds = p->nr_kinds;
	p->first_cpu_kind = p->nr_kinds;
	if (!err)
		err = add_kinds(p, SCHEDSTAT_ROW_CPU, ctrs, nr);
	p->nr_cpu_kinds = p->nr_kinds - p->first_cpu_kind;
	p->first_cluster_kind = p->nr_kinds;
	if (!err)
		err = add_kinds(p, SCHEDSTAT_ROW_CLUSTER, ctrs, nr);
	p->nr_cluster_kinds = p->nr_kinds - p->first_cluster_kind;
	return err;
}

static void group_tracks(struct schedstat_perfetto *p, struct pfw_group *g,
			 const struct pfw_group_kind *k, uint64_t parent,
			 const char *prefix)
{
	/* Ranks follow the counters' order across the row's groups. */
	int rank = 0;

	if (k->row == 0)
		rank = 1000;	/* PELT updates after the samples' counters */
	else
		for (size_t o = 0; &p->kinds[o] != k; o++)
			rank += p->kinds[o].row == k->row ? (int)p->kinds[o].nr : 0;
	g->uuid0 = p->next_uuid;
	p->next_uuid += k->nr;
	for (unsigned int i = 0; i < k->nr; i++) {
		char name[128];

		if (prefix)
			snprintf(name, sizeof(name), "%s %s", prefix, k->ctr[i]->name);
		else
			snprintf(name, sizeof(name), "%s", k->ctr[i]->name);
		pfw_track(p, g->uuid0 + i, parent, name, k->ctr[i], rank + (int)i);
	}
	g->seq = 0;
	g->had = 0;
}

static void put_value(struct proto_buf *b, const struct schedstat_trace_counter *c,
		      const void *row, double v, bool main)
{
	if (is_double(c))
		proto_put_double(b, main ? PF_TE_DOUBLE_COUNTER_VALUE :
				 PF_TE_EXTRA_DOUBLE_VALUES, v);
	else
		proto_put_int(b, main ? PF_TE_COUNTER_VALUE : PF_TE_EXTRA_COUNTER_VALUES,
			      trace_counter_int(c, row));
}

/*
 * @force: write even when nothing changed (PELT updates: each is news).
 * The group's tracks (under @where's parent) and sequence are made at its
 * first event: a signal never available leaves no empty track behind.
 */
static int group_write(struct schedstat_perfetto *p, struct pfw_group *g,
		       const struct pfw_group_kind *k, const void *row,
		       uint32_t avail, uint64_t ts, bool force,
		       const struct pfw_where *where)
{
	double v[PFW_GROUP_MAX];
	uint16_t have = 0, all = (1u << k->nr) - 1;
	bool changed = force;
	int first = -1;

	for (unsigned int i = 0; i < k->nr; i++) {
		if (!schedstat_trace_counter_value(k->ctr[i], row, avail, &v[i]))
			continue;
		have |= 1u << i;
		if (first < 0)
			first = (int)i;
		if (!(g->had >> i & 1) || g->last[i] != v[i])
			changed = true;
	}
	if (!changed || first < 0)
		return 0;
	if (!g->uuid0)
		group_tracks(p, g, k, where->task ? pfw_task_signals(p, where->task) :
				       where->parent, where->prefix);
	if (!g->seq) {
		g->seq = pfw_sequence(p, k, g->uuid0, ts);
		g->last_ts = ts;
	}
	/* Never back: a sequence's clock counts up (the caller keeps order). */
	if (ts < g->last_ts)
		ts = g->last_ts;
	pfw_packet_begin_delta(p, g->seq, ts - g->last_ts);
	g->last_ts = ts;
	proto_begin(&p->out, PF_PKT_TRACK_EVENT);
	proto_put_uint(&p->out, PF_TE_TYPE, PF_TYPE_COUNTER);
	if (have == all) {
		/* The sequence's defaults name every track. */
		for (unsigned int i = 0; i < k->nr; i++)
			put_value(&p->out, k->ctr[i], row, v[i], i == 0);
	} else {
		/* Some are not available now: name the tracks of the others. */
		proto_put_uint(&p->out, PF_TE_TRACK_UUID, g->uuid0 + first);
		put_value(&p->out, k->ctr[first], row, v[first], true);
		for (unsigned int i = first + 1; i < k->nr; i++) {
			if (!(have >> i & 1))
				continue;
			proto_put_uint(&p->out, is_double(k->ctr[i]) ? PF_TE_EXTRA_DOUBLE_UUIDS :
				       PF_TE_EXTRA_COUNTER_UUIDS, g->uuid0 + i);
			put_value(&p->out, k->ctr[i], row, v[i], false);
		}
	}
	proto_end(&p->out);
	for (unsigned int i = 0; i < k->nr; i++)
		if (have >> i & 1)
			g->last[i] = v[i];
	g->had |= have;
	return pfw_packet_end(p);
}

int pfw_group_sample(struct schedstat_perfetto *p, struct pfw_group *g,
		     const struct pfw_group_kind *k, const void *row,
		     uint32_t avail, uint64_t ts, const struct pfw_where *where)
{
	return group_write(p, g, k, row, avail, ts, false, where);
}

/* The process's name: its main thread's comm, if this sample has it. */
static const char *process_name(const struct schedstat_task *t, size_t n, int32_t tgid)
{
	size_t lo = 0, hi = n;

	/* Samples list tasks by pid. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].pid == tgid)
			return t[mid].comm;
		if (t[mid].pid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int task_counters(struct schedstat_perfetto *p, const struct schedstat_snapshot *snap,
			 uint64_t ts)
{
	uint32_t avail = schedstat_snapshot_avail(snap);
	const struct schedstat_task *t;
	size_t n;
	int err = 0;

	t = schedstat_snapshot_tasks(snap, &n);
	for (size_t i = 0; i < n && !err; i++) {
		struct pfw_task *pt = pfw_task_get(p, t[i].pid, t[i].tgid, t[i].comm,
						   process_name(t, n, t[i].tgid), ts);

		if (!pt)
			return -ENOMEM;
		/* Back after "gone": its values again, changed or not. */
		if (pt->gone_said)
			for (size_t k = 0; k < p->nr_task_kinds; k++)
				pt->groups[k].had = 0;
		pt->sampled_at = p->nr_samples;
		pt->gone_said = false;
		for (size_t k = 0; k < p->nr_task_kinds && !err; k++)
			err = pfw_group_sample(p, &pt->groups[k], &p->kinds[k], &t[i],
					       avail, ts, &(struct pfw_where){ .task = pt });
		/* Its last row: what it holds stays on its tracks. */
		if (t[i].exited && !err) {
			err = pfw_task_end(p, pt, ts, true);
			pfw_task_drop(p, pt);
		}
	}
	/* Tasks of the last sample that this one lists no more. */
	for (size_t i = 0; i < p->nr_tasks && !err; i++) {
		struct pfw_task *pt = &p->tasks[i];

		if (pt->pid >= 0 && pt->sampled_at && pt->sampled_at < p->nr_samples &&
		    !pt->gone_said) {
			pt->gone_said = true;
			err = pfw_task_end(p, pt, ts, false);
		}
	}
	return err;
}

int pfw_samples_counters(struct schedstat_perfetto *p,
			 const struct schedstat_snapshot *snap)
{
	uint64_t ts = schedstat_snapshot_ts_ns(snap);
	const struct schedstat_cluster *cl;
	const struct schedstat_cpu *c;
	char prefix[16];
	size_t n;
	int err = 0;

	c = schedstat_snapshot_cpus(snap, &n);
	for (size_t i = 0; i < n && !err; i++) {
		int cpu = c[i].cpu;

		/* As the CSV: CPUs of no cluster are left out. */
		if (c[i].cluster < 0 || cpu < 0 || cpu >= p->nr_cpus || !p->cpu_uuid[cpu])
			continue;
		snprintf(prefix, sizeof(prefix), "cpu%d", cpu);
		for (size_t k = 0; k < p->nr_cpu_kinds && !err; k++)
			err = pfw_group_sample(p, &p->cpu_groups[cpu * p->nr_cpu_kinds + k],
					       &p->kinds[p->first_cpu_kind + k], &c[i],
					       c[i].avail, ts, &(struct pfw_where){
						.parent = p->cpu_uuid[cpu], .prefix = prefix });
	}
	cl = schedstat_snapshot_clusters(snap, &n);
	for (size_t i = 0; i < n && (int)i < p->nr_clusters && !err; i++)
		for (size_t k = 0; k < p->nr_cluster_kinds && !err; k++)
			err = pfw_group_sample(p, &p->cluster_groups[i * p->nr_cluster_kinds + k],
					       &p->kinds[p->first_cluster_kind + k], &cl[i],
					       cl[i].avail, ts, &(struct pfw_where){
						.parent = p->cluster_uuid[i],
						.prefix = schedstat_topology_cluster_name(p->topo, (int)i) });
	if (!err)
		err = task_counters(p, snap, ts);
	return err;
}

/* A PELT update's counters: row kind 0, the update struct. */
#define PELT_CTR(f, t, a, u) {						\
	.name = #f, .type = SCHEDSTAT_FIELD_##t, .avail = (a), .unit = (u),	\
	.offset = offsetof(struct schedstat_pelt_update, f),		\
}
static const struct schedstat_trace_counter pelt_ctrs[] = {
	PELT_CTR(util_avg, U32, 0, "capacity"),
	PELT_CTR(runnable_avg, U32, 0, "capacity"),
	PELT_CTR(load_avg, U64, 0, "load"),
	PELT_CTR(util_est, U32, SCHEDSTAT_AVAIL_UTIL_EST, "capacity"),
};
static const struct pfw_group_kind pelt_kind = {
	.row = 0,
	.ctr = { &pelt_ctrs[0], &pelt_ctrs[1], &pelt_ctrs[2], &pelt_ctrs[3] },
	.nr = 4,
};

int schedstat_perfetto_add_pelt(struct schedstat_perfetto *p,
				const struct schedstat_pelt_update *u)
{
	struct pfw_where where = {};
	struct pfw_group *g;
	char prefix[32];
	int e;

	if (p->err)
		return p->err;
	if (u->avail & SCHEDSTAT_AVAIL_PELT_TASK) {
		struct pfw_task *t = pfw_task_get(p, u->pid, u->tgid, u->comm, NULL, u->ts_ns);

		if (!t)
			return p->err = -ENOMEM;
		g = &t->pelt;
		where = (struct pfw_where){ .task = t, .prefix = "pelt" };
	} else {
		for (e = 1; e < PFW_PELT_ENTITIES; e++) {
			const char *name = schedstat_pelt_entity_name(e);

			if (name && !strcmp(name, u->entity))
				break;
		}
		if (u->cpu < 0 || u->cpu >= p->nr_cpus || !p->cpu_uuid[u->cpu] ||
		    e >= PFW_PELT_ENTITIES)
			return 0;
		g = &p->cpu_pelt[u->cpu * PFW_PELT_ENTITIES + e];
		snprintf(prefix, sizeof(prefix), "cpu%d %s pelt", u->cpu, u->entity);
		where = (struct pfw_where){ .parent = p->cpu_uuid[u->cpu], .prefix = prefix };
	}
	return group_write(p, g, &pelt_kind, u, u->avail, u->ts_ns, true, &where);
}
