// SPDX-License-Identifier: GPL-2.0
/*
 * Frequency residency: the time each cluster spent at each frequency in
 * the interval, from the cumulative times per CPU and frequency.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_local.h"

static struct model_freq_time *freq_find(struct model_freq_time *t, size_t n,
					  uint32_t cpu, uint32_t khz)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].cpu == cpu && t[i].khz == khz)
			return &t[i];
	return NULL;
}

/* Time at each (CPU, frequency) up to @in->ts_ns: completed stays plus current. */
int model_freq_cumulative(const struct model_input *in, struct model_freq_time **out,
			  size_t *nr)
{
	size_t n = in->nr_freq_times, cap = n + in->nr_cpus + 1;
	struct model_freq_time *t = malloc(cap * sizeof(*t));

	if (!t)
		return -ENOMEM;
	if (n)
		memcpy(t, in->freq_times, n * sizeof(*t));
	for (size_t cpu = 0; cpu < in->nr_cpus; cpu++) {
		const struct st_cpu_state *c = &in->cpus[cpu];
		struct model_freq_time *e;
		uint64_t now;

		if (!(c->seen & ST_SEEN_FREQ))
			continue;
		now = in->ts_ns > c->freq_ts ? in->ts_ns - c->freq_ts : 0;
		e = freq_find(t, n, cpu, c->freq_khz);
		if (e) {
			e->ns += now;
			continue;
		}
		t[n++] = (struct model_freq_time){ cpu, c->freq_khz, now };
	}
	*out = t;
	*nr = n;
	return 0;
}

static int cmp_freq(const void *a, const void *b)
{
	const struct schedstat_freq_residency *x = a, *y = b;

	if (x->cluster != y->cluster)
		return x->cluster < y->cluster ? -1 : 1;
	return (x->khz > y->khz) - (x->khz < y->khz);
}

/*
 * Frequency residency per cluster, read on its first online CPU (a cluster
 * shares one clock), as deltas of the cumulative times since the last sample.
 */
int model_fill_freq_residency(struct model *m, const struct model_input *in,
			      struct schedstat_snapshot *s)
{
	struct model_freq_time *cum;
	size_t nr_cum, n = 0;
	int err = model_freq_cumulative(in, &cum, &nr_cum);

	if (err)
		return err;
	s->freqs = calloc(nr_cum ? nr_cum : 1, sizeof(*s->freqs));
	if (!s->freqs) {
		free(cum);
		return -ENOMEM;
	}
	for (size_t k = 0; k < s->nr_clusters; k++) {
		int cpu = -1;

		for (size_t i = 0; i < s->nr_cpus && cpu < 0; i++)
			if (s->cpus[i].cluster == (int)k && s->cpus[i].online)
				cpu = i;
		for (size_t i = 0; cpu >= 0 && i < nr_cum; i++) {
			struct model_freq_time *then;
			uint64_t ns = cum[i].ns;

			if (cum[i].cpu != (uint32_t)cpu)
				continue;
			then = freq_find(m->prev_freq, m->nr_prev_freq, cpu, cum[i].khz);
			if (then && then->ns <= ns)
				ns -= then->ns;
			s->freqs[n++] = (struct schedstat_freq_residency){
				.cluster = k, .khz = cum[i].khz,
				.ns = ns < s->interval_ns ? ns : s->interval_ns,
			};
		}
	}
	s->nr_freqs = n;
	qsort(s->freqs, n, sizeof(*s->freqs), cmp_freq);
	free(m->prev_freq);
	m->prev_freq = cum;
	m->nr_prev_freq = nr_cum;
	return 0;
}
