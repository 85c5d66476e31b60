// SPDX-License-Identifier: GPL-2.0
/*
 * The figure of merit (docs/workloads.md): with every constraint met, the
 * estimated average power in mW from residency (estimate (a)); with any
 * missed, SCHEDSTAT_WORKLOAD_FOM_MISSED per missed constraint plus that
 * power. A run and a recording of it add up the same samples and
 * activations here, so that report says what the run said.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload_local.h"

struct schedstat_workload_tally {
	const struct schedstat_workload_constraint *cons;
	size_t nr_cons;
	bool em;
	struct schedstat_workload_score score;
	struct schedstat_workload_result *res;
	struct schedstat_workload_activation *acts;
	size_t nr, cap;
	uint64_t last_ts;
};

int schedstat_workload_tally_new(struct schedstat_workload_tally **out,
				 const struct schedstat_workload_constraint *cons,
				 size_t nr, bool energy)
{
	struct schedstat_workload_tally *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->res = calloc(nr ? nr : 1, sizeof(*t->res));
	if (!t->res) {
		free(t);
		return -ENOMEM;
	}
	t->cons = cons;
	t->nr_cons = nr;
	t->em = energy;
	*out = t;
	return 0;
}

void schedstat_workload_tally_sample(struct schedstat_workload_tally *t,
				     const struct schedstat_snapshot *snap)
{
	struct schedstat_workload_score *s = &t->score;
	double dt = schedstat_snapshot_interval_ns(snap) / 1e9;
	const struct schedstat_cluster *cl;
	size_t n;

	cl = schedstat_snapshot_clusters(snap, &n);
	t->last_ts = schedstat_snapshot_ts_ns(snap);
	s->duration_s += dt;
	for (size_t k = 0; k < n && k < ARRAY_SIZE(s->clusters); k++) {
		struct schedstat_workload_cluster *e = &s->clusters[k];

		snprintf(e->name, sizeof(e->name), "%s", cl[k].name);
		if (!(cl[k].avail & SCHEDSTAT_AVAIL_ENERGY))
			continue;
		e->energy_uj += cl[k].energy_uj;
		e->eas_energy_uj += cl[k].eas_power_mw * dt * 1000;
		e->freq_assumed |= cl[k].power_freq_assumed;
		if (k + 1 > s->nr_clusters)
			s->nr_clusters = k + 1;
	}
}

int schedstat_workload_tally_activation(struct schedstat_workload_tally *t,
					const struct schedstat_workload_activation *a)
{
	/* Only what a constraint judges is kept. */
	if (a->constraint >= t->nr_cons)
		return 0;
	if (schedstat_array_reserve((void **)&t->acts, &t->cap, t->nr + 1, sizeof(*t->acts)))
		return -ENOMEM;
	t->acts[t->nr++] = *a;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank percentile @p (0..100) of sorted @v. */
static double percentile(const double *v, size_t n, double p)
{
	size_t rank;

	if (!n)
		return 0;
	/* Nearest rank: the smallest value with p% of values at or below it. */
	rank = (size_t)ceil(p / 100.0 * n);
	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

/*
 * Each constraint on the activations released in the run; those not
 * done and not yet due at @to are not judged.
 */
static void judge(struct schedstat_workload_tally *t, uint64_t to)
{
	struct schedstat_workload_score *s = &t->score;
	double *resp = calloc(t->nr ? t->nr : 1, sizeof(*resp));
	size_t missed = 0;

	s->met = true;
	for (size_t c = 0; c < t->nr_cons; c++) {
		struct schedstat_workload_result *res = &t->res[c];
		size_t n = 0;

		memset(res, 0, sizeof(*res));
		res->c = &t->cons[c];
		for (size_t i = 0; i < t->nr; i++) {
			const struct schedstat_workload_activation *a = &t->acts[i];

			if (a->constraint != c)
				continue;
			if (!a->dropped && !a->end && a->deadline > to)
				continue;
			res->nr++;
			if (a->dropped || !a->end) {
				res->dropped++;
				continue;
			}
			if (a->end > a->deadline)
				res->late++;
			if (resp)
				resp[n++] = (a->end - a->release) / 1e6;
		}
		res->miss_ratio = res->nr ? (double)(res->late + res->dropped) / res->nr : 0;
		if (resp && n) {
			qsort(resp, n, sizeof(*resp), cmp_double);
			res->max_ms = resp[n - 1];
			res->p50_ms = percentile(resp, n, 50);
			res->p95_ms = percentile(resp, n, 95);
			res->p99_ms = percentile(resp, n, 99);
		}
		if (res->c->kind == SCHEDSTAT_WORKLOAD_MISS_RATIO) {
			res->observed = res->miss_ratio;
			res->met = res->nr && res->miss_ratio <= res->c->limit;
		} else {
			/* A pass dropped or never done counts as infinitely late. */
			res->observed = res->dropped ? INFINITY : res->max_ms;
			res->met = res->nr && !res->dropped && res->max_ms <= res->c->limit;
		}
		if (!res->met) {
			s->met = false;
			missed++;
		}
	}
	free(resp);
	s->figure_of_merit = missed * SCHEDSTAT_WORKLOAD_FOM_MISSED +
			     (s->have_energy ? s->avg_power_mw : 0);
}

const struct schedstat_workload_score *
schedstat_workload_tally_finish(struct schedstat_workload_tally *t)
{
	return schedstat_workload_tally_finish_at(t, 0);
}

const struct schedstat_workload_score *
schedstat_workload_tally_finish_at(struct schedstat_workload_tally *t, uint64_t end_ns)
{
	struct schedstat_workload_score *s = &t->score;
	double uj = 0, eas = 0;

	s->have_energy = t->em && s->nr_clusters && s->duration_s > 0;
	for (size_t k = 0; k < s->nr_clusters; k++) {
		uj += s->clusters[k].energy_uj;
		eas += s->clusters[k].eas_energy_uj;
	}
	if (s->have_energy) {
		s->energy_mj = uj / 1000;
		s->avg_power_mw = uj / 1000 / s->duration_s;
		s->eas_avg_power_mw = eas / 1000 / s->duration_s;
	}
	s->end_ns = end_ns ? end_ns : t->last_ts;
	judge(t, s->end_ns);
	s->results = t->res;
	s->nr_results = t->nr_cons;
	return s;
}

void schedstat_workload_tally_free(struct schedstat_workload_tally *t)
{
	if (!t)
		return;
	free(t->acts);
	free(t->res);
	free(t);
}

void schedstat_workload_activation_event(const struct schedstat_workload_activation *a,
					 const char *comm, int32_t tgid,
					 struct schedstat_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = SCHEDSTAT_EV_ACTIVATION;
	ev->ts_ns = a->release;
	ev->cpu = -1;
	ev->pid = a->tid;
	ev->tgid = tgid;
	snprintf(ev->comm, sizeof(ev->comm), "%s", comm);
	/* A recording knows a dropped one by its start of 0. */
	ev->start_ns = a->dropped ? 0 : a->start;
	ev->end_ns = a->dropped ? 0 : a->end;
	ev->deadline_ns = a->deadline;
	ev->constraint = a->constraint == SCHEDSTAT_WORKLOAD_UNJUDGED ? -1 :
			 (int32_t)a->constraint;
}

bool schedstat_workload_event_activation(const struct schedstat_event *ev,
					 struct schedstat_workload_activation *a)
{
	if (ev->type != SCHEDSTAT_EV_ACTIVATION)
		return false;
	memset(a, 0, sizeof(*a));
	a->release = ev->ts_ns;
	a->start = ev->start_ns;
	a->end = ev->end_ns;
	a->deadline = ev->deadline_ns;
	a->tid = ev->pid;
	a->dropped = !ev->start_ns;
	a->constraint = ev->constraint >= 0 ? (uint32_t)ev->constraint :
			SCHEDSTAT_WORKLOAD_UNJUDGED;
	return true;
}
