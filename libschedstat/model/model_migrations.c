// SPDX-License-Identifier: GPL-2.0
/*
 * Migrations between clusters: sched_migrate_task events collected between
 * samples, counted up or down per task and cluster, and the table of every
 * ordered pair of clusters.
 */
#include <errno.h>
#include <stdlib.h>

#include "model_local.h"

int model_add_migration(struct model *m, int32_t pid, int32_t orig_cpu,
			int32_t dest_cpu)
{
	int from = schedstat_topology_cpu_cluster(m->topo, orig_cpu);
	int to = schedstat_topology_cpu_cluster(m->topo, dest_cpu);
	unsigned int cap_from, cap_to;

	if (from < 0 || to < 0 || from == to)
		return 0;
	cap_from = schedstat_topology_cluster_capacity(m->topo, from);
	cap_to = schedstat_topology_cluster_capacity(m->topo, to);
	if (array_reserve((void **)&m->moves, &m->cap_moves, m->nr_moves + 1,
			  sizeof(*m->moves)))
		return -ENOMEM;
	m->moves[m->nr_moves].pid = pid;
	m->moves[m->nr_moves].dest = to;
	m->moves[m->nr_moves].from = from;
	/* Clusters of one capacity (cpufreq domains): neither up nor down. */
	m->moves[m->nr_moves++].dir = cap_to > cap_from ? 1 :
				      cap_to < cap_from ? -1 : 0;
	return 0;
}

static int cmp_move(const void *a, const void *b)
{
	const struct cluster_move *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Every ordered pair of different clusters, so the table has one shape. */
int model_fill_migrations(struct model *m, struct schedstat_snapshot *s)
{
	size_t n = s->nr_clusters, k = 0;

	if (n < 2)
		return 0;
	s->migrations = calloc(n * (n - 1), sizeof(*s->migrations));
	if (!s->migrations)
		return -ENOMEM;
	s->nr_migrations = n * (n - 1);
	for (size_t f = 0; f < n; f++) {
		for (size_t t = 0; t < n; t++) {
			if (f == t)
				continue;
			s->migrations[k].from = f;
			s->migrations[k++].to = t;
		}
	}
	for (size_t i = 0; i < m->nr_moves; i++) {
		size_t f = m->moves[i].from, t = m->moves[i].dest;

		if (f >= n || t >= n || f == t)
			continue;
		/* Row f holds the n - 1 targets in order, skipping f itself. */
		s->migrations[f * (n - 1) + (t < f ? t : t - 1)].count++;
	}
	return 0;
}

/* Tasks are sorted by pid, and so are the moves: one merge pass. */
void model_count_moves(struct model *m, struct schedstat_snapshot *s)
{
	size_t j = 0;

	for (size_t k = 0; k < m->nr_moves; k++) {
		struct schedstat_cluster *cl;

		if ((size_t)m->moves[k].dest >= s->nr_clusters)
			continue;
		cl = &s->clusters[m->moves[k].dest];
		if (m->moves[k].dir > 0)
			cl->up_migrations++;
		else if (m->moves[k].dir < 0)
			cl->down_migrations++;
	}
	/* qsort() wants an array even for none. */
	if (m->nr_moves)
		qsort(m->moves, m->nr_moves, sizeof(*m->moves), cmp_move);
	for (size_t i = 0; i < s->nr_tasks; i++) {
		struct schedstat_task *t = &s->tasks[i];

		while (j < m->nr_moves && m->moves[j].pid < t->pid)
			j++;
		/* An exited row and a live row may share a pid: count once. */
		if (i + 1 < s->nr_tasks && s->tasks[i + 1].pid == t->pid)
			continue;
		for (; j < m->nr_moves && m->moves[j].pid == t->pid; j++) {
			if (m->moves[j].dir > 0)
				t->up_migrations++;
			else if (m->moves[j].dir < 0)
				t->down_migrations++;
		}
	}
	m->nr_moves = 0;
}
