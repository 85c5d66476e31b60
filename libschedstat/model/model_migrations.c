// SPDX-License-Identifier: GPL-2.0
/*
 * Migrations between clusters: sched_migrate_task events collected between
 * samples, counted up or down per task and cluster, and the table of every
 * ordered pair of clusters. The model counts live moves with these; a
 * recording regrouped by --topology counts its recorded moves again by the
 * new clusters with the same functions (record_regroup.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "model_local.h"

bool cluster_move_of(struct cluster_move *mv, const struct schedstat_topology *topo,
		     int32_t pid, int32_t orig_cpu, int32_t dest_cpu)
{
	int from = schedstat_topology_cpu_cluster(topo, orig_cpu);
	int to = schedstat_topology_cpu_cluster(topo, dest_cpu);
	unsigned int cap_from, cap_to;

	if (from < 0 || to < 0 || from == to)
		return false;
	cap_from = schedstat_topology_cluster_capacity(topo, from);
	cap_to = schedstat_topology_cluster_capacity(topo, to);
	mv->pid = pid;
	mv->dest = to;
	mv->from = from;
	/* Clusters of one capacity (cpufreq domains): neither up nor down. */
	mv->dir = cap_to > cap_from ? 1 : cap_to < cap_from ? -1 : 0;
	return true;
}

int model_add_migration(struct model *m, int32_t pid, int32_t orig_cpu,
			int32_t dest_cpu)
{
	struct cluster_move mv;

	if (!cluster_move_of(&mv, m->topo, pid, orig_cpu, dest_cpu))
		return 0;
	if (schedstat_array_reserve((void **)&m->moves, &m->cap_moves, m->nr_moves + 1,
			  sizeof(*m->moves)))
		return -ENOMEM;
	m->moves[m->nr_moves++] = mv;
	return 0;
}

static int cmp_move(const void *a, const void *b)
{
	const struct cluster_move *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * Every ordered pair of different clusters that @known allows (all of them
 * if NULL), in order of origin then destination, so the table has one shape.
 */
int migrations_fill_table(struct schedstat_snapshot *s, const struct cluster_move *moves,
			  size_t nr_moves, const bool *known)
{
	size_t n = s->nr_clusters, k = 0;
	size_t *row;

	if (n < 2)
		return 0;
	s->migrations = calloc(n * (n - 1), sizeof(*s->migrations));
	row = calloc(n * n, sizeof(*row));
	if (!s->migrations || !row) {
		free(s->migrations);
		s->migrations = NULL;
		free(row);
		return -ENOMEM;
	}
	for (size_t f = 0; f < n; f++) {
		for (size_t t = 0; t < n; t++) {
			row[f * n + t] = SIZE_MAX;
			if (f == t || (known && !known[f * n + t]))
				continue;
			row[f * n + t] = k;
			s->migrations[k].from = f;
			s->migrations[k++].to = t;
		}
	}
	s->nr_migrations = k;
	for (size_t i = 0; i < nr_moves; i++) {
		size_t f = moves[i].from, t = moves[i].dest;

		if (f < n && t < n && row[f * n + t] != SIZE_MAX)
			s->migrations[row[f * n + t]].count++;
	}
	free(row);
	return 0;
}

/* Tasks are sorted by pid, and so are the moves: one merge pass. */
void migrations_count_moves(struct schedstat_snapshot *s, struct cluster_move *moves,
			    size_t nr_moves)
{
	size_t j = 0;

	for (size_t k = 0; k < nr_moves; k++) {
		struct schedstat_cluster *cl;

		if ((size_t)moves[k].dest >= s->nr_clusters)
			continue;
		cl = &s->clusters[moves[k].dest];
		if (moves[k].dir > 0)
			cl->up_migrations++;
		else if (moves[k].dir < 0)
			cl->down_migrations++;
	}
	/* qsort() wants an array even for none. */
	if (nr_moves)
		qsort(moves, nr_moves, sizeof(*moves), cmp_move);
	for (size_t i = 0; i < s->nr_tasks; i++) {
		struct schedstat_task *t = &s->tasks[i];

		while (j < nr_moves && moves[j].pid < t->pid)
			j++;
		/* An exited row and a live row may share a pid: count once. */
		if (i + 1 < s->nr_tasks && s->tasks[i + 1].pid == t->pid)
			continue;
		for (; j < nr_moves && moves[j].pid == t->pid; j++) {
			if (moves[j].dir > 0)
				t->up_migrations++;
			else if (moves[j].dir < 0)
				t->down_migrations++;
		}
	}
}
