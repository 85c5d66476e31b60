// SPDX-License-Identifier: GPL-2.0
/*
 * A recording read with clusters other than those it was recorded with
 * (schedstat_recording_regroup()): each sample's CPU rows are the truth,
 * and the cluster rows are summed again from them as the model sums them
 * live (model.c, fill_clusters()). What only the recorded clusters could
 * tell is left out rather than guessed: moves between clusters were kept
 * only between the recorded ones (moves within one were never stored).
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

int rec_regroup_snapshot(struct schedstat_snapshot *s,
			 const struct schedstat_topology *recorded,
			 const struct schedstat_topology *topo)
{
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
	/* Moves between the new clusters: not all were recorded (see above). */
	free(s->migrations);
	s->migrations = NULL;
	s->nr_migrations = 0;
	snapshot_mark_misfits(s, topo);
	return 0;
}

int schedstat_recording_regroup(struct schedstat_recording *r, const char *spec)
{
	const struct schedstat_topology *recorded = r->recorded ? r->recorded : r->topo;
	struct schedstat_topology *topo;
	int err;

	err = rec_regroup_topology(&topo, spec, recorded);
	if (err)
		return err;
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
