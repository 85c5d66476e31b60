// SPDX-License-Identifier: GPL-2.0
/*
 * The values of a snapshot that follow from its other fields and the
 * interval: %CPU of each task, migrations per second; and from its rows and
 * a topology, which tasks are misfits. Recordings do not store them;
 * whoever rebuilds a snapshot calls these again.
 */
#include "model_local.h"
#include "sched_kernel.h"

void model_fill_derived(struct schedstat_snapshot *s)
{
	for (size_t i = 0; i < s->nr_tasks && s->interval_ns; i++)
		s->tasks[i].cpu_pct = 100.0 * s->tasks[i].run_ns / s->interval_ns;
	for (size_t i = 0; i < s->nr_migrations && s->interval_ns; i++)
		s->migrations[i].per_sec = s->migrations[i].count * 1e9 / s->interval_ns;
}

void snapshot_sum_cluster(const struct schedstat_snapshot *s,
			  struct schedstat_cluster *cl, uint32_t avail)
{
	/* Only what every online CPU of the cluster has. */
	uint32_t cpu_bits = ~0u;
	uint64_t util = 0, busy = 0;

	for (size_t i = 0; i < s->nr_cpus; i++) {
		const struct schedstat_cpu *c = &s->cpus[i];

		if (c->cluster != cl->id || !c->online)
			continue;
		cpu_bits &= c->avail;
		cl->nr_online++;
		cl->capacity += c->capacity;
		cl->nr_running += c->nr_running;
		util += c->util_avg + c->rt_util + c->dl_util + c->irq_util;
		busy += c->busy_ns;
		if (c->freq_khz > cl->freq_khz) {
			cl->freq_khz = c->freq_khz;
			cl->freq_avg_khz = c->freq_avg_khz;
		}
	}
	cl->avail = avail & ~SCHEDSTAT_AVAIL_FREQ;
	/*
	 * util_pct needs every online CPU's cfs util, busy_pct every one's
	 * busy time: a sum with holes would be a wrong number.
	 */
	cl->avail &= cpu_bits | ~(SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_BUSY);
	if (!cl->nr_online)
		cl->avail &= ~(SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_BUSY);
	if (cl->freq_khz)
		cl->avail |= SCHEDSTAT_AVAIL_FREQ;
	cl->util_pct = cl->capacity && (cl->avail & SCHEDSTAT_AVAIL_CFS) ?
		       100.0 * util / cl->capacity : 0;
	cl->busy_pct = cl->nr_online && s->interval_ns &&
		       (cl->avail & SCHEDSTAT_AVAIL_BUSY) ?
		       100.0 * busy / ((double)s->interval_ns * cl->nr_online) : 0;
}

/*
 * update_misfit_status() of kernel/sched/fair.c: a task allowed on one CPU
 * is never misfit (every version); from 6.10 neither is one whose CPU has
 * its p->max_allowed_capacity already, no bigger CPU in its affinity (0:
 * the kernel keeps none, or the source does not know). Otherwise
 * fits_capacity(): util fits with 20% to spare. A task that does not fit
 * is misfit only where a bigger cluster exists (sched_asym_cpucap_active()).
 */
void snapshot_mark_misfits(struct schedstat_snapshot *s,
			   const struct schedstat_topology *topo)
{
	int top = s->nr_clusters ? (int)s->nr_clusters - 1 : 0;
	unsigned int biggest = schedstat_topology_cluster_capacity(topo, top);

	for (size_t i = 0; i < s->nr_tasks; i++) {
		struct schedstat_task *t = &s->tasks[i];
		const struct schedstat_cpu *c;
		uint64_t util, cap;

		t->misfit = false;
		if (t->exited || t->state != 'R' || !prio_is_fair(t->prio) ||
		    t->cpu < 0 || (size_t)t->cpu >= s->nr_cpus || t->cluster < 0)
			continue;
		c = &s->cpus[t->cpu];
		if (c->capacity >= biggest || t->nr_cpus_allowed == 1 ||
		    (t->max_allowed_capacity &&
		     c->capacity == t->max_allowed_capacity))
			continue;
		util = t->util_avg > t->util_est ? t->util_avg : t->util_est;
		cap = c->avail & SCHEDSTAT_AVAIL_CAPACITY_CFS ? c->capacity_cfs :
							       c->capacity;
		t->misfit = !fits_capacity(util, cap);
		if (t->misfit && (size_t)t->cluster < s->nr_clusters)
			s->clusters[t->cluster].misfit_tasks++;
	}
}
