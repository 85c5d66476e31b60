// SPDX-License-Identifier: GPL-2.0
/*
 * The model's CPU and cluster rows: per-interval busy, idle and frequency
 * time, what this kernel keeps per CPU (the avail bits), the clusters'
 * sums and the misfit tasks (fits_capacity()).
 */
#include <stdio.h>

#include "model_local.h"
#include "sched_kernel.h"
#include "signals.h"

static uint64_t idle_total(const struct st_cpu_state *c, uint64_t ts)
{
	return c->idle_ns + (c->idle_start && ts > c->idle_start ?
			     ts - c->idle_start : 0);
}

static uint64_t cstate_total(const struct st_cpu_state *c, int s, uint64_t ts)
{
	int now_in = c->cstate < ST_IDLE_STATES ? c->cstate : ST_IDLE_STATES - 1;

	return c->cstate_ns[s] + (c->cstate >= 0 && now_in == s && c->cstate_ts &&
				  ts > c->cstate_ts ? ts - c->cstate_ts : 0);
}

static uint64_t freq_total(const struct st_cpu_state *c, uint64_t ts)
{
	return c->freq_khz_us + (uint64_t)c->freq_khz *
	       ((ts > c->freq_ts ? ts - c->freq_ts : 0) / 1000);
}

/* The clock over the interval, from the events, else from the poll. */
static void fill_freq(struct model *m, const struct model_input *in,
		      struct schedstat_cpu *o, const struct st_cpu_state *c,
		      const struct st_cpu_state *p, uint64_t interval)
{
	uint32_t polled = in->polled_khz ? in->polled_khz[o->cpu] : 0;

	if (c->seen & ST_SEEN_FREQ) {
		uint64_t now = freq_total(c, in->ts_ns);
		uint64_t then = freq_total(p, m->prev_ts);

		o->freq_khz = c->freq_khz;
		/* Events began within the interval: no full mean yet. */
		o->freq_avg_khz = (p->seen & ST_SEEN_FREQ) && interval >= 1000 &&
				  now >= then ? (now - then) / (interval / 1000) :
				  c->freq_khz;
		o->avail |= SCHEDSTAT_AVAIL_FREQ;
	} else if (polled) {
		o->freq_khz = o->freq_avg_khz = polled;
		o->avail |= SCHEDSTAT_AVAIL_FREQ;
	}
}

void model_fill_cpus(struct model *m, const struct model_input *in,
		     struct schedstat_snapshot *s, const bool *cpu_running)
{
	uint64_t interval = s->interval_ns;

	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct schedstat_cpu *o = &s->cpus[i];
		const struct st_cpu_state *c = model_cpu_of(in, i);
		const struct st_cpu_state *p = &m->prev_cpus[i];
		uint64_t idle;

		o->cpu = i;
		o->cluster = schedstat_topology_cpu_cluster(m->topo, i);
		o->online = cpuset_test(in->online, i);
		o->capacity = schedstat_topology_cpu_capacity(m->topo, i);
		/* What the runqueue holds as it is (the signal table). */
		signal_copy_slot(o, c);
		/* Read from the runqueue: the kernel's count and sum, not ours. */
		if (c->seen & ST_SEEN_RQ) {
			o->nr_running = c->nr_running;
			o->util_est = c->cfs_util_est;
		}
		/*
		 * Tasks that left the CPU stay in its root's signals until
		 * the next update of their cfs_rq (docs/signals.md).
		 */
		if (c->seen & ST_SEEN_CFS) {
			o->blocked_util += c->cfs_removed_util;
			o->blocked_load += c->cfs_removed_load;
		}
		o->avail = signal_cpu_avail(in->avail, c->seen);
		o->pelt_estimated = (in->avail & SCHEDSTAT_AVAIL_PELT_ESTIMATED) &&
				    !(in->cpu_kernel_pelt && in->cpu_kernel_pelt[i]);
		fill_freq(m, in, o, c, p, interval);
		for (int k = 0; (o->avail & SCHEDSTAT_AVAIL_IDLE) && k < ST_IDLE_STATES; k++) {
			uint64_t now = cstate_total(c, k, in->ts_ns);
			uint64_t then = cstate_total(p, k, m->prev_ts);

			o->idle_state_ns[k] = now > then ? now - then : 0;
			if (o->idle_state_ns[k] > interval)
				o->idle_state_ns[k] = interval;
		}
		o->nr_switches = model_delta(c->nr_switches, p->nr_switches);
		o->nr_preempt = model_delta(c->nr_preempt, p->nr_preempt);
		o->dropped = model_delta(c->dropped, p->dropped);
		/*
		 * sched_switch only sees idle periods that start after attach:
		 * a CPU idle throughout (no switch, nothing on it) is all idle.
		 * tick_sched's accounting (ST_SEEN_IDLE_TIME) has no such gap.
		 */
		if (!(c->seen & ST_SEEN_IDLE_TIME) && !o->nr_switches &&
		    !c->idle_start && !cpu_running[i])
			idle = interval;
		else
			idle = model_delta(idle_total(c, in->ts_ns),
					   idle_total(p, m->prev_ts));
		o->busy_ns = idle < interval ? interval - idle : 0;
		s->dropped += c->dropped;
		if (in->hotplug) {
			const struct st_hotplug *h = &in->hotplug[i];

			/* An operation may span two samples: show it in each. */
			o->hotplug_ops = h->ops - m->prev_hotplug[i].ops;
			if (h->last != m->prev_hotplug[i].last ||
			    o->hotplug_ops) {
				o->hotplug_ns = h->last - h->first;
				snprintf(o->hotplug_to, sizeof(o->hotplug_to),
					 "%s", h->up ? "online" : "offline");
			}
		}
		signal_clear_missing(o);
	}
}

static uint64_t overutilized_total(const struct st_global_state *g, uint64_t ts)
{
	return g->overutilized_ns + (g->overutilized && ts > g->overutilized_since ?
				     ts - g->overutilized_since : 0);
}

/* Misfits by the model's topology (snapshot_mark_misfits(), model_derived.c). */
void model_mark_misfits(struct model *m, struct schedstat_snapshot *s)
{
	snapshot_mark_misfits(s, m->topo);
}

/*
 * Time overutilized needs the flips (sched_overutilized_tp); with none seen
 * since attach, the state read at the sample held throughout.
 */
static bool overutilized_ns_known(const struct model_input *in, int now)
{
	const struct st_global_state *g = in->global;

	if (!(in->avail & SCHEDSTAT_AVAIL_OVERUTILIZED_NS) || !g)
		return false;
	return g->overutilized_seen || now >= 0;
}

void model_fill_clusters(struct model *m, const struct model_input *in,
			 struct schedstat_snapshot *s)
{
	const struct st_global_state *g = in->global;
	uint64_t ou_ns = 0;

	if ((in->avail & SCHEDSTAT_AVAIL_OVERUTILIZED_NS) && g && g->overutilized_seen) {
		uint64_t now = overutilized_total(g, in->ts_ns);
		uint64_t then = overutilized_total(&m->prev_global, m->prev_ts);

		ou_ns = now > then ? now - then : 0;
	}

	for (size_t k = 0; k < s->nr_clusters; k++) {
		struct schedstat_cluster *cl = &s->clusters[k];

		cl->id = k;
		snprintf(cl->name, sizeof(cl->name), "%s",
			 schedstat_topology_cluster_name(m->topo, k));
		schedstat_topology_cluster_cpulist(m->topo, k, cl->cpus,
						   sizeof(cl->cpus));
		cl->overutilized = (in->avail & SCHEDSTAT_AVAIL_OVERUTILIZED) &&
				   g && g->overutilized_seen ? (int)g->overutilized : -1;
		cl->overutilized_ns = ou_ns;
		snapshot_sum_cluster(s, cl, in->avail);
		/* The root domain's state, as read at the sample. */
		for (size_t i = 0; i < s->nr_cpus; i++) {
			const struct schedstat_cpu *c = &s->cpus[i];
			const struct st_cpu_state *st = model_cpu_of(in, i);

			if (c->cluster == (int)k && c->online &&
			    st->seen & ST_SEEN_OVERUTILIZED && st->overutilized >= 0)
				cl->overutilized = st->overutilized;
		}
		if (cl->overutilized < 0)
			cl->avail &= ~SCHEDSTAT_AVAIL_OVERUTILIZED;
		if (!overutilized_ns_known(in, cl->overutilized)) {
			cl->avail &= ~SCHEDSTAT_AVAIL_OVERUTILIZED_NS;
			cl->overutilized_ns = 0;
		} else if (!(g && g->overutilized_seen)) {
			/* No flip since attach: the state held all along. */
			cl->overutilized_ns = cl->overutilized > 0 ? s->interval_ns : 0;
		}
	}
}
