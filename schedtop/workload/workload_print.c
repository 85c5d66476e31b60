// SPDX-License-Identifier: GPL-2.0
/*
 * The score as schedtop workload and report print it, and the built-ins
 * as --list and the man page's WORKLOADS name them (from their files).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "workload.h"

static void list_one(const struct schedstat_workload *wl, bool man)
{
	size_t nt = schedstat_workload_nr_threads(wl);

	if (man)
		printf(".TP\n.B %s\n%s. Threads:", schedstat_workload_name(wl),
		       schedstat_workload_description(wl));
	else
		printf("%-7s %s\n        threads:", schedstat_workload_name(wl),
		       schedstat_workload_description(wl));
	for (size_t t = 0; t < nt; t++)
		printf(man ? " \\fB%s\\fR" : " %s", schedstat_workload_thread_comm(wl, t));
	printf(man ? ".\n" : "\n");
	for (size_t c = 0; c < schedstat_workload_nr_constraints(wl); c++) {
		const struct schedstat_workload_constraint *k = schedstat_workload_constraint(wl, c);

		if (man)
			printf(".br\nConstraint \\fI%s\\fR: ", k->name);
		else
			printf("        constraint: %s, ", k->name);
		if (k->kind == SCHEDSTAT_WORKLOAD_MISS_RATIO)
			printf("at most %g%% of activations late or dropped", 100 * k->limit);
		else
			printf("every response within %g ms", k->limit);
		printf(k->why[0] ? " (%s)%s\n" : "%s%s\n", k->why[0] ? k->why : "", man ? "." : "");
	}
}

int workload_list(bool man)
{
	for (size_t i = 0; workload_builtins[i].name; i++) {
		struct schedstat_workload *wl = workload_builtin(workload_builtins[i].name);

		if (!wl)
			return EXIT_FAIL;
		list_one(wl, man);
		schedstat_workload_free(wl);
	}
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}

static void observed_text(const struct schedstat_workload_result *r, char *buf, size_t size)
{
	if (r->c->kind == SCHEDSTAT_WORKLOAD_MISS_RATIO)
		snprintf(buf, size, "%.2f%% missed (%zu late, %zu dropped of %zu), limit %.2f%%",
			 100 * r->miss_ratio, r->late, r->dropped, r->nr, 100 * r->c->limit);
	else if (isinf(r->observed))
		snprintf(buf, size, "%zu of %zu never finished, limit %.0f ms",
			 r->dropped, r->nr, r->c->limit);
	else
		snprintf(buf, size, "max %.1f ms, limit %.0f ms", r->observed, r->c->limit);
}

void workload_score_print(FILE *f, const char *name,
			  const struct schedstat_workload_score *s)
{
	fprintf(f, "workload %s: %.1f s, %s\n", name, s->duration_s,
		s->met ? "every constraint met" : "constraints MISSED");
	for (size_t c = 0; c < s->nr_results; c++) {
		const struct schedstat_workload_result *r = &s->results[c];
		char obs[200];

		observed_text(r, obs, sizeof(obs));
		fprintf(f, "  %-4s %-24s %s; response p50 %.2f p95 %.2f p99 %.2f max %.2f ms\n",
			r->met ? "met" : "MISS", r->c->name, obs, r->p50_ms, r->p95_ms,
			r->p99_ms, r->max_ms);
		if (!r->met && r->nr && r->c->kind == SCHEDSTAT_WORKLOAD_MISS_RATIO)
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

void workload_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void workload_score_json(FILE *f, const char *name,
			 const struct schedstat_workload_score *s,
			 void (*more)(FILE *f, void *ctx), void *ctx)
{
	fputs("{\"workload\": ", f);
	workload_json_str(f, name);
	fputs(", \"duration_s\": ", f);
	json_num(f, s->duration_s);
	fprintf(f, ", \"met\": %s, \"figure_of_merit\": ", s->met ? "true" : "false");
	s->have_energy ? json_num(f, s->figure_of_merit) : (void)fputs("null", f);
	fputs(", \"avg_power_mw\": ", f);
	s->have_energy ? json_num(f, s->avg_power_mw) : (void)fputs("null", f);
	fputs(", \"eas_avg_power_mw\": ", f);
	s->have_energy ? json_num(f, s->eas_avg_power_mw) : (void)fputs("null", f);
	fputs(", \"energy_mj\": ", f);
	s->have_energy ? json_num(f, s->energy_mj) : (void)fputs("null", f);
	fputs(", \"clusters\": [", f);
	for (size_t k = 0; k < s->nr_clusters; k++) {
		fputs(k ? ", {\"name\": " : "{\"name\": ", f);
		workload_json_str(f, s->clusters[k].name);
		fputs(", \"energy_mj\": ", f);
		json_num(f, s->clusters[k].energy_uj / 1000);
		fputs(", \"eas_energy_mj\": ", f);
		json_num(f, s->clusters[k].eas_energy_uj / 1000);
		fprintf(f, ", \"freq_assumed\": %s}", s->clusters[k].freq_assumed ? "true" : "false");
	}
	fputs("], \"constraints\": [", f);
	for (size_t c = 0; c < s->nr_results; c++) {
		const struct schedstat_workload_result *r = &s->results[c];

		fputs(c ? ", {\"name\": " : "{\"name\": ", f);
		workload_json_str(f, r->c->name);
		fprintf(f, ", \"kind\": \"%s\", \"limit\": ",
			r->c->kind == SCHEDSTAT_WORKLOAD_MISS_RATIO ? "miss_ratio" : "max_response_ms");
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
	if (more)
		more(f, ctx);
	fputs("}\n", f);
}
