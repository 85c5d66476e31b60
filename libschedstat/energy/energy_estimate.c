// SPDX-License-Identifier: GPL-2.0
/*
 * The energy estimate, two ways (docs/signals.md, "Energy"): (a) from what
 * the CPUs did (busy time at a clock, idle time), (b) as the scheduler
 * itself estimates it when it places a task (EAS, em_cpu_energy()).
 */
#include <errno.h>

#include "energy_model.h"
#include "model.h"

/*
 * map_util_perf() (include/linux/sched/cpufreq.h): schedutil asks for 25%
 * more than the util, so that a growing task gets a clock in time.
 */
#define EAS_MARGIN_NUM	5
#define EAS_MARGIN_DEN	4

/* The OPP a clock of @khz runs at: the lowest at or above it. */
static int state_at_khz(const struct em_domain *d, uint32_t khz)
{
	for (int i = 0; i < d->nr_states; i++)
		if (d->states[i].khz >= khz)
			return i;
	return d->nr_states - 1;
}

/*
 * em_pd_get_efficient_state(): the lowest OPP whose performance covers
 * @util; the highest if none does.
 */
static int state_for_util(const struct em_domain *d, uint64_t util)
{
	for (int i = 0; i < d->nr_states; i++)
		if (d->states[i].performance >= util)
			return i;
	return d->nr_states - 1;
}

int schedstat_energy_estimate(const struct schedstat_energy_model *em, int dom,
			      uint64_t interval_ns,
			      const struct schedstat_energy_cpu_input *cpus, size_t nr,
			      const struct schedstat_freq_residency *freqs,
			      size_t nr_freqs,
			      struct schedstat_energy_result *out)
{
	const struct em_domain *d;
	const struct schedstat_em_state *top, *ps;
	double busy_mw_res = 0, energy_mw_ns = 0;
	uint64_t res_ns = 0, max_util = 0, sum_util = 0;

	*out = (struct schedstat_energy_result){};
	if (dom < 0 || dom >= em->nr_domains || !interval_ns)
		return -EINVAL;
	d = &em->domains[dom];
	top = &d->states[d->nr_states - 1];
	/* The domain's clock over the interval, where the kernel told it. */
	for (size_t i = 0; i < nr_freqs; i++) {
		if (!freqs[i].ns)
			continue;
		busy_mw_res += (double)freqs[i].ns *
			       d->states[state_at_khz(d, freqs[i].khz)].power_mw;
		res_ns += freqs[i].ns;
	}
	for (size_t i = 0; i < nr; i++) {
		uint64_t busy = cpus[i].busy_ns < interval_ns ? cpus[i].busy_ns : interval_ns;
		double busy_mw;

		if (res_ns) {
			busy_mw = busy_mw_res / res_ns;
		} else if (cpus[i].freq_khz) {
			busy_mw = d->states[state_at_khz(d, cpus[i].freq_khz)].power_mw;
		} else {
			busy_mw = top->power_mw;
			out->freq_assumed = true;
		}
		energy_mw_ns += busy * busy_mw + (interval_ns - busy) * d->idle_mw;
		if (cpus[i].util > max_util)
			max_util = cpus[i].util;
		sum_util += cpus[i].util;
	}
	out->power_mw = energy_mw_ns / interval_ns;
	/* mW x s = mJ; x 1000 = uJ. */
	out->energy_uj = out->power_mw * interval_ns / 1e6;
	out->eas_state = state_for_util(d, max_util * EAS_MARGIN_NUM / EAS_MARGIN_DEN);
	ps = &d->states[out->eas_state];
	/*
	 * em_cpu_energy(): ps->cost * sum_util, with cost = power * 10 /
	 * performance (6.9+; power * fmax / freq / scale_cpu before): the
	 * same power x busy fraction at that OPP, without the scaling.
	 */
	if (ps->performance)
		out->eas_power_mw = ps->power_mw * (double)sum_util / ps->performance;
	return 0;
}

/* The util EAS sums for a CPU: effective_cpu_util(), capped at capacity. */
static uint32_t cpu_eas_util(const struct schedstat_cpu *c)
{
	uint64_t cfs = c->util_avg, util;

	if ((c->avail & SCHEDSTAT_AVAIL_UTIL_EST) && c->util_est > cfs)
		cfs = c->util_est;
	util = cfs + c->rt_util + c->dl_util + c->irq_util;
	return util < c->capacity ? util : c->capacity;
}

void schedstat_snapshot_apply_energy(struct schedstat_snapshot *snap,
				     const struct schedstat_energy_model *em)
{
	/* A cluster may hold every CPU: sized for that, not for a phone. */
	static _Thread_local struct schedstat_energy_cpu_input in[SCHEDSTAT_MAX_CPUS];

	if (!em || !em->bound || !snap->interval_ns)
		return;
	for (size_t k = 0; k < snap->nr_clusters; k++) {
		struct schedstat_cluster *cl = &snap->clusters[k];
		struct schedstat_energy_result r;
		const struct schedstat_freq_residency *fr = NULL;
		size_t nr = 0, nr_fr = 0;
		bool busy_known = true;
		int dom;

		if (cl->id < 0 || cl->id >= SCHEDSTAT_MAX_CPUS)
			continue;
		dom = em->cluster_dom[cl->id];
		if (dom < 0)
			continue;
		for (size_t i = 0; i < snap->nr_cpus && nr < ARRAY_SIZE(in); i++) {
			const struct schedstat_cpu *c = &snap->cpus[i];

			if (c->cluster != cl->id || !c->online)
				continue;
			if (!(c->avail & SCHEDSTAT_AVAIL_BUSY))
				busy_known = false;
			in[nr++] = (struct schedstat_energy_cpu_input){
				.busy_ns = c->busy_ns,
				.freq_khz = c->avail & SCHEDSTAT_AVAIL_FREQ ? c->freq_avg_khz : 0,
				.util = cpu_eas_util(c),
			};
		}
		if (!busy_known)
			continue;
		/* freqs are sorted by cluster: this cluster's run. */
		for (size_t i = 0; i < snap->nr_freqs; i++) {
			if (snap->freqs[i].cluster != cl->id)
				continue;
			if (!fr)
				fr = &snap->freqs[i];
			nr_fr++;
		}
		if (schedstat_energy_estimate(em, dom, snap->interval_ns, in, nr,
					      fr, nr_fr, &r))
			continue;
		/* Each CPU's part: its own residency, its util at the cluster's OPP. */
		for (size_t i = 0, j = 0; i < snap->nr_cpus && j < nr; i++) {
			struct schedstat_cpu *c = &snap->cpus[i];
			const struct schedstat_em_state *ps = &em->domains[dom].states[r.eas_state];
			struct schedstat_energy_result one;

			if (c->cluster != cl->id || !c->online)
				continue;
			if (!schedstat_energy_estimate(em, dom, snap->interval_ns, &in[j], 1,
						       fr, nr_fr, &one)) {
				c->power_mw = one.power_mw;
				c->eas_power_mw = ps->performance ?
					ps->power_mw * (double)in[j].util / ps->performance : 0;
				c->avail |= SCHEDSTAT_AVAIL_ENERGY;
			}
			j++;
		}
		cl->power_mw = r.power_mw;
		cl->eas_power_mw = r.eas_power_mw;
		cl->energy_uj = r.energy_uj;
		cl->power_freq_assumed = r.freq_assumed;
		cl->avail |= SCHEDSTAT_AVAIL_ENERGY;
	}
}
