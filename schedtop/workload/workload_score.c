// SPDX-License-Identifier: GPL-2.0
/*
 * The figure of merit (docs/workloads.md): with every constraint met, the
 * estimated average power in mW from residency (estimate (a)); with any
 * missed, WL_FOM_MISSED per missed constraint plus that power.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "cli.h"
#include "workload.h"

double wl_percentile(double *v, size_t n, double p)
{
	size_t rank;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	/* Nearest rank: the smallest value with p% of values at or below it. */
	rank = (size_t)ceil(p / 100.0 * n);
	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

void wl_score_judge(struct wl_score *s, const struct wl_activation *acts,
		    size_t nr, uint64_t to)
{
	double *resp = calloc(nr ? nr : 1, sizeof(*resp));
	size_t missed = 0;

	s->nr_constraints = s->wl->nr_constraints;
	s->met = true;
	for (size_t c = 0; c < s->nr_constraints; c++) {
		struct wl_constraint_result *res = &s->res[c];
		size_t n = 0;

		memset(res, 0, sizeof(*res));
		res->c = &s->wl->constraints[c];
		for (size_t i = 0; i < nr; i++) {
			const struct wl_activation *a = &acts[i];

			if (a->constraint != c)
				continue;
			/* Unfinished and not yet due when the run ended: unjudged. */
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
		if (resp) {
			res->max_ms = n ? wl_percentile(resp, n, 100) : 0;
			res->p50_ms = wl_percentile(resp, n, 50);
			res->p95_ms = wl_percentile(resp, n, 95);
			res->p99_ms = wl_percentile(resp, n, 99);
		}
		if (res->c->kind == WL_MISS_RATIO) {
			res->observed = res->miss_ratio;
			res->met = res->nr && res->miss_ratio <= res->c->limit;
		} else {
			/* A load dropped or never done counts as infinitely late. */
			res->observed = res->dropped ? INFINITY : res->max_ms;
			res->met = res->nr && !res->dropped && res->max_ms <= res->c->limit;
		}
		if (!res->met) {
			s->met = false;
			missed++;
		}
	}
	free(resp);
	s->figure_of_merit = missed * WL_FOM_MISSED + (s->have_energy ? s->avg_power_mw : 0);
}

static void observed_text(const struct wl_constraint_result *r, char *buf, size_t size)
{
	if (r->c->kind == WL_MISS_RATIO)
		snprintf(buf, size, "%.2f%% missed (%zu late, %zu dropped of %zu), limit %.2f%%",
			 100 * r->miss_ratio, r->late, r->dropped, r->nr, 100 * r->c->limit);
	else if (isinf(r->observed))
		snprintf(buf, size, "%zu of %zu never finished, limit %.0f ms",
			 r->dropped, r->nr, r->c->limit);
	else
		snprintf(buf, size, "max %.1f ms, limit %.0f ms", r->observed, r->c->limit);
}

void wl_score_print(FILE *f, const struct wl_score *s)
{
	fprintf(f, "workload %s: %.1f s, %s\n", s->wl->name, s->duration_s,
		s->met ? "every constraint met" : "constraints MISSED");
	for (size_t c = 0; c < s->nr_constraints; c++) {
		const struct wl_constraint_result *r = &s->res[c];
		char obs[160];

		observed_text(r, obs, sizeof(obs));
		fprintf(f, "  %-4s %-24s %s; response p50 %.2f p95 %.2f p99 %.2f max %.2f ms\n",
			r->met ? "met" : "MISS", r->c->name, obs, r->p50_ms, r->p95_ms,
			r->p99_ms, r->max_ms);
		if (!r->met && r->nr && r->c->kind == WL_MISS_RATIO)
			fprintf(f, "       missed by %.2f percentage points\n",
				100 * (r->miss_ratio - r->c->limit));
		else if (!r->met && r->nr && !isinf(r->observed))
			fprintf(f, "       missed by %.1f ms\n", r->observed - r->c->limit);
		else if (!r->nr)
			fprintf(f, "       no activation finished in the run: run longer (-d)\n");
	}
	if (!s->have_energy) {
		fprintf(f, "no energy model: no power estimate nor figure of merit (give --energy-model FILE)\n");
		return;
	}
	for (size_t k = 0; k < s->nr_clusters; k++)
		fprintf(f, "  cluster %-8s %10.1f mJ (EAS %.1f mJ)%s\n", s->clusters[k].name,
			s->clusters[k].energy_uj / 1000, s->clusters[k].eas_energy_uj / 1000,
			s->clusters[k].freq_assumed ?
			"  clock unknown: highest OPP assumed" : "");
	fprintf(f, "average power %.1f mW (EAS estimate %.1f mW), energy %.1f mJ\n",
		s->avg_power_mw, s->eas_avg_power_mw, s->energy_mj);
	fprintf(f, "figure of merit %.1f%s\n", s->figure_of_merit,
		s->met ? " (= average power, mW)" :
		" (1e6 per missed constraint + average power)");
}

/*
 * A JSON number to 15 significant digits, all a double holds for sure:
 * "%.6g" printed a figure of merit of 1000031.97 (1e6 + 31.97 mW) as
 * 1000030, off from the text summary by 2 mW. Infinity (a load never
 * done) has no JSON form: null.
 */
static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.15g", v);
	else
		fputs("null", f);
}

void wl_score_json(FILE *f, const struct wl_score *s, const char *const *extra)
{
	fprintf(f, "{\"workload\": \"%s\", \"duration_s\": ", s->wl->name);
	json_num(f, s->duration_s);
	fprintf(f, ", \"met\": %s, \"figure_of_merit\": ", s->met ? "true" : "false");
	if (s->have_energy)
		json_num(f, s->figure_of_merit);
	else
		fputs("null", f);
	fputs(", \"avg_power_mw\": ", f);
	s->have_energy ? json_num(f, s->avg_power_mw) : (void)fputs("null", f);
	fputs(", \"eas_avg_power_mw\": ", f);
	s->have_energy ? json_num(f, s->eas_avg_power_mw) : (void)fputs("null", f);
	fputs(", \"energy_mj\": ", f);
	s->have_energy ? json_num(f, s->energy_mj) : (void)fputs("null", f);
	fputs(", \"clusters\": [", f);
	for (size_t k = 0; k < s->nr_clusters; k++) {
		fprintf(f, "%s{\"name\": \"%s\", \"energy_mj\": ", k ? ", " : "",
			s->clusters[k].name);
		json_num(f, s->clusters[k].energy_uj / 1000);
		fputs(", \"eas_energy_mj\": ", f);
		json_num(f, s->clusters[k].eas_energy_uj / 1000);
		fprintf(f, ", \"freq_assumed\": %s}", s->clusters[k].freq_assumed ? "true" : "false");
	}
	fputs("], \"constraints\": [", f);
	for (size_t c = 0; c < s->nr_constraints; c++) {
		const struct wl_constraint_result *r = &s->res[c];

		fprintf(f, "%s{\"name\": \"%s\", \"kind\": \"%s\", \"limit\": ", c ? ", " : "",
			r->c->name, r->c->kind == WL_MISS_RATIO ? "miss_ratio" : "max_response_ms");
		json_num(f, r->c->limit);
		fputs(", \"observed\": ", f);
		json_num(f, r->observed);
		fprintf(f, ", \"met\": %s, \"activations\": %zu, \"late\": %zu, \"dropped\": %zu, \"miss_ratio\": ",
			r->met ? "true" : "false", r->nr, r->late, r->dropped);
		json_num(f, r->miss_ratio);
		fputs(", \"response_ms\": {\"p50\": ", f);
		json_num(f, r->p50_ms);
		fputs(", \"p95\": ", f);
		json_num(f, r->p95_ms);
		fputs(", \"p99\": ", f);
		json_num(f, r->p99_ms);
		fputs(", \"max\": ", f);
		json_num(f, r->max_ms);
		fputs("}}", f);
	}
	fputs("]", f);
	/* Pre-formatted "key", "json value" pairs: threads, settings. */
	for (size_t i = 0; extra && extra[i]; i += 2)
		fprintf(f, ", \"%s\": %s", extra[i], extra[i + 1]);
	fputs("}\n", f);
}

void wl_tally_sample(struct wl_tally *t, const struct schedstat_snapshot *snap)
{
	struct wl_score *s = &t->score;
	double dt = schedstat_snapshot_interval_ns(snap) / 1e9;
	const struct schedstat_cluster *cl;
	size_t n;

	cl = schedstat_snapshot_clusters(snap, &n);
	t->last_ts = schedstat_snapshot_ts_ns(snap);
	s->duration_s += dt;
	for (size_t k = 0; k < n && k < ARRAY_SIZE(s->clusters); k++) {
		struct wl_cluster_energy *e = &s->clusters[k];

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

int wl_tally_activation(struct wl_tally *t, const struct wl_activation *a)
{
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct wl_activation *n = realloc(t->acts, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->acts = n;
		t->cap = cap;
	}
	t->acts[t->nr++] = *a;
	return 0;
}

void wl_tally_finish(struct wl_tally *t, const struct workload *wl)
{
	struct wl_score *s = &t->score;
	double uj = 0, eas = 0;

	s->wl = wl;
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
	wl_score_judge(s, t->acts, t->nr, t->last_ts);
}

void wl_tally_free(struct wl_tally *t)
{
	free(t->acts);
	t->acts = NULL;
	t->nr = t->cap = 0;
}

void wl_activation_event(const struct wl_activation *a, const struct workload *wl,
			 int32_t tgid, struct schedstat_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = SCHEDSTAT_EV_ACTIVATION;
	ev->ts_ns = a->release;
	ev->cpu = -1;
	ev->pid = a->tid;
	ev->tgid = tgid;
	snprintf(ev->comm, sizeof(ev->comm), "%s", wl->threads[a->thread].comm);
	ev->start_ns = a->dropped ? 0 : a->start;
	ev->end_ns = a->dropped ? 0 : a->end;
	ev->deadline_ns = a->deadline;
	ev->constraint = a->constraint < wl->nr_constraints ? a->constraint : -1;
}

bool wl_event_activation(const struct schedstat_event *ev, const struct workload *wl,
			 struct wl_activation *a)
{
	if (ev->type != SCHEDSTAT_EV_ACTIVATION)
		return false;
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < wl->nr_threads; i++)
		if (!strcmp(ev->comm, wl->threads[i].comm))
			a->thread = i;
	a->release = ev->ts_ns;
	a->start = ev->start_ns;
	a->end = ev->end_ns;
	a->deadline = ev->deadline_ns;
	a->tid = ev->pid;
	a->dropped = !ev->start_ns;
	a->constraint = ev->constraint >= 0 ? (uint16_t)ev->constraint : 0xffff;
	return true;
}
