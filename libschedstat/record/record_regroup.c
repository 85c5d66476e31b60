// SPDX-License-Identifier: GPL-2.0
/*
 * A recording read with clusters other than those it was recorded with
 * (schedstat_recording_regroup()): each sample's CPU rows are the truth,
 * and the cluster rows are summed again from them as the model sums them
 * live (model.c, fill_clusters()). Moves between clusters are counted
 * again from the recorded ones, which carry their two CPUs; but a
 * recording keeps no move within one of its clusters (recording.c), so
 * the moves between two new clusters that share a recorded one are not
 * known: those are left out rather than guessed (a task's CPU at each
 * sample would give only a lower bound).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "energy_model.h"
#include "record_reader.h"
#include "record_regroup.h"
#include "sched_kernel.h"

int rec_regroup_topology(struct schedstat_topology **out, const char *spec,
			 const struct schedstat_topology *recorded)
{
	struct schedstat_topology *topo;
	int n = schedstat_topology_nr_cpus(recorded), err;

	err = topology_parse_recorded(&topo, spec, recorded);
	if (err)
		return err;
	/* The same CPUs: rows of a CPU in no cluster would be lost. */
	for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++) {
		bool had = cpu < n && schedstat_topology_cpu_cluster(recorded, cpu) >= 0;
		bool has = schedstat_topology_cpu_cluster(topo, cpu) >= 0;

		if (had != has) {
			schedstat_topology_free(topo);
			return had ? -SCHEDSTAT_ERR_TOPOLOGY_TRACE :
				     -SCHEDSTAT_ERR_TOPOLOGY_SPEC;
		}
	}
	*out = topo;
	return 0;
}

/*
 * Frequency residency is read on a cluster's first online CPU: a new
 * cluster takes the rows of the recorded cluster that CPU was in.
 */
static int regroup_freqs(struct schedstat_snapshot *s,
			 const struct schedstat_topology *recorded,
			 const struct schedstat_cluster *cl, size_t nr)
{
	struct schedstat_freq_residency *f;
	size_t n = 0;

	if (!s->nr_freqs)
		return 0;
	f = calloc(s->nr_freqs * (nr ? nr : 1), sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (size_t k = 0; k < nr; k++) {
		int from = -1;

		for (size_t i = 0; i < s->nr_cpus && from < 0; i++)
			if (s->cpus[i].cluster == (int)k && s->cpus[i].online)
				from = schedstat_topology_cpu_cluster(recorded,
								      s->cpus[i].cpu);
		for (size_t i = 0; from >= 0 && i < s->nr_freqs; i++) {
			if (s->freqs[i].cluster != from)
				continue;
			f[n] = s->freqs[i];
			f[n++].cluster = cl[k].id;
		}
	}
	free(s->freqs);
	s->freqs = f;
	s->nr_freqs = n;
	return 0;
}

/*
 * The moves between the new clusters that the recording's events give,
 * counted as the model counts live ones (model_migrations.c): the table
 * has the pairs whose every move was kept, and the up/down counts are
 * derived only when every pair's were.
 */
static int regroup_moves(struct schedstat_snapshot *s,
			 const struct schedstat_recording *r,
			 const struct schedstat_event *evs, size_t nr_evs)
{
	struct cluster_move *mv = calloc(nr_evs ? nr_evs : 1, sizeof(*mv));
	size_t n = 0, nc = s->nr_clusters;
	int err;

	if (!mv)
		return -ENOMEM;
	for (size_t i = 0; i < nr_evs; i++) {
		if (evs[i].type == SCHEDSTAT_EV_MIGRATE &&
		    cluster_move_of(&mv[n], r->topo, evs[i].pid, evs[i].orig_cpu,
				    evs[i].dest_cpu) &&
		    (size_t)mv[n].from < nc && (size_t)mv[n].dest < nc &&
		    r->moves_known[mv[n].from * nc + mv[n].dest])
			n++;
	}
	free(s->migrations);
	s->migrations = NULL;
	s->nr_migrations = 0;
	err = migrations_fill_table(s, mv, n, r->moves_known);
	if (!err && r->all_moves_known)
		migrations_count_moves(s, mv, n);
	free(mv);
	model_fill_derived(s);
	return err;
}

int rec_regroup_snapshot(struct schedstat_snapshot *s,
			 const struct schedstat_recording *r,
			 const struct schedstat_event *evs, size_t nr_evs)
{
	const struct schedstat_topology *recorded = r->recorded, *topo = r->topo;
	size_t nr = schedstat_topology_nr_clusters(topo);
	struct schedstat_cluster *cl = calloc(nr ? nr : 1, sizeof(*cl));
	/* The root domain's state is the same in every recorded cluster. */
	struct schedstat_cluster rd = { .overutilized = -1 };
	int err;

	if (!cl)
		return -ENOMEM;
	if (s->nr_clusters)
		rd = s->clusters[0];
	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct schedstat_cpu *c = &s->cpus[i];
		int k = schedstat_topology_cpu_cluster(topo, c->cpu);

		c->cluster = k < 0 ? -1 : k;
		c->capacity = schedstat_topology_cpu_capacity(topo, c->cpu);
	}
	for (size_t i = 0; i < s->nr_tasks; i++) {
		struct schedstat_task *t = &s->tasks[i];
		int k = t->cpu >= 0 ? schedstat_topology_cpu_cluster(topo, t->cpu) : -1;

		t->cluster = k < 0 ? -1 : k;
		t->up_migrations = t->down_migrations = 0;
	}
	for (size_t i = 0; i < s->nr_groups; i++) {
		int k = schedstat_topology_cpu_cluster(topo, s->groups[i].cpu);

		s->groups[i].cluster = k < 0 ? -1 : k;
	}
	for (size_t k = 0; k < nr; k++) {
		cl[k].id = k;
		snprintf(cl[k].name, sizeof(cl[k].name), "%s",
			 schedstat_topology_cluster_name(topo, k));
		schedstat_topology_cluster_cpulist(topo, k, cl[k].cpus,
						   sizeof(cl[k].cpus));
		cl[k].overutilized = rd.overutilized;
		cl[k].overutilized_ns = rd.overutilized_ns;
		snapshot_sum_cluster(s, &cl[k], s->avail);
		cl[k].avail &= rd.avail | ~(SCHEDSTAT_AVAIL_OVERUTILIZED |
					     SCHEDSTAT_AVAIL_OVERUTILIZED_NS);
	}
	err = regroup_freqs(s, recorded, cl, nr);
	if (err) {
		free(cl);
		return err;
	}
	free(s->clusters);
	s->clusters = cl;
	s->nr_clusters = nr;
	err = regroup_moves(s, r, evs, nr_evs);
	if (err)
		return err;
	snapshot_mark_misfits(s, topo);
	return 0;
}

/*
 * Which moves between @topo's clusters a recording made with @recorded
 * kept: those from f to t unless a recorded cluster holds CPUs of both.
 */
static int moves_known(bool **out, bool *all,
		       const struct schedstat_topology *recorded,
		       const struct schedstat_topology *topo)
{
	size_t n = schedstat_topology_nr_clusters(topo);
	size_t nr = schedstat_topology_nr_clusters(recorded);
	int cpus = schedstat_topology_nr_cpus(recorded);
	/* calloc() of 0 may return NULL: one spare element. */
	bool *in = calloc(nr * n + 1, sizeof(*in));
	bool *known = calloc(n * n + 1, sizeof(*known));

	if (!in || !known) {
		free(in);
		free(known);
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < cpus; cpu++) {
		int was = schedstat_topology_cpu_cluster(recorded, cpu);
		int is = schedstat_topology_cpu_cluster(topo, cpu);

		if (was >= 0 && is >= 0)
			in[was * n + is] = true;
	}
	*all = true;
	for (size_t f = 0; f < n; f++) {
		for (size_t t = 0; t < n; t++) {
			known[f * n + t] = f != t;
			for (size_t k = 0; k < nr && known[f * n + t]; k++)
				if (in[k * n + f] && in[k * n + t])
					known[f * n + t] = false;
			if (f != t && !known[f * n + t])
				*all = false;
		}
	}
	free(in);
	*out = known;
	return 0;
}

bool schedstat_recording_moves_known(const struct schedstat_recording *r,
				     int from, int to)
{
	int n = schedstat_topology_nr_clusters(r->topo);

	if (from < 0 || to < 0 || from >= n || to >= n || from == to)
		return false;
	return !r->moves_known || r->moves_known[from * n + to];
}

int schedstat_recording_regroup(struct schedstat_recording *r, const char *spec)
{
	const struct schedstat_topology *recorded = r->recorded ? r->recorded : r->topo;
	struct schedstat_topology *topo;
	int err;

	bool *known, all;

	err = rec_regroup_topology(&topo, spec, recorded);
	if (err)
		return err;
	err = moves_known(&known, &all, recorded, topo);
	if (err) {
		schedstat_topology_free(topo);
		return err;
	}
	free(r->moves_known);
	r->moves_known = known;
	r->all_moves_known = all;
	if (r->recorded)
		schedstat_topology_free(r->topo);
	else
		r->recorded = r->topo;
	r->topo = topo;
	/* The model was bound to the recorded clusters: bound again or gone. */
	if (r->em && schedstat_energy_model_bind(r->em, topo)) {
		schedstat_energy_model_free(r->em);
		r->em = NULL;
	}
	return 0;
}
