// SPDX-License-Identifier: GPL-2.0
/*
 * The model's life and one update: the previous sample kept as the base
 * of the next one's deltas, and model_update(), which has each part fill
 * its rows: tasks (model_tasks.c), migrations (model_migrations.c), CPUs
 * and clusters (model_cpus.c), frequency residency (model_freq.c), group
 * entities (model_groups.c), and what follows from those
 * (model_derived.c). The definitions are documented in docs/signals.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_local.h"

int model_new(struct model **out, const struct schedstat_topology *topo)
{
	struct model *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->topo = topo;
	m->nr_cpus = schedstat_topology_nr_cpus(topo);
	m->prev_cpus = calloc(m->nr_cpus ? m->nr_cpus : 1, sizeof(*m->prev_cpus));
	m->prev_hotplug = calloc(m->nr_cpus ? m->nr_cpus : 1,
				 sizeof(*m->prev_hotplug));
	m->now_pelt = calloc(m->nr_cpus ? m->nr_cpus : 1, sizeof(*m->now_pelt));
	if (!m->prev_cpus || !m->prev_hotplug || !m->now_pelt ||
	    model_tasks_new(m)) {
		model_free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	model_tasks_free(m);
	free(m->prev_cpus);
	free(m->prev_hotplug);
	free(m->prev_freq);
	free(m->exits);
	free(m->moves);
	free(m);
}

/* Keep this sample's tasks (the table) and CPUs as the next one's base. */
static int save_prev(struct model *m, const struct model_input *in)
{
	size_t keep = 0;
	int err;

	err = model_tasks_done(m);
	if (err)
		return err;
	for (size_t i = 0; i < (size_t)m->nr_cpus; i++) {
		m->prev_cpus[i] = *model_cpu_of(in, i);
		if (in->hotplug)
			m->prev_hotplug[i] = in->hotplug[i];
	}
	m->prev_ts = in->ts_ns;
	if (in->global)
		m->prev_global = *in->global;
	/* Exit events of tasks still listed (zombies) wait for the next sample. */
	for (size_t i = 0; i < m->nr_exits; i++)
		if (m->exits[i].pid >= 0)
			m->exits[keep++] = m->exits[i];
	m->nr_exits = keep;
	return 0;
}

int model_update(struct model *m, const struct model_input *in,
		 struct schedstat_snapshot **out)
{
	struct schedstat_snapshot *s = NULL;
	bool *cpu_running = NULL;
	size_t cap_tasks;
	int err;

	*out = NULL;
	err = model_apply_tasks(m, in);
	if (err)
		return err;
	if (!m->have_baseline) {
		/*
		 * Moves drained with the baseline (the BPF source drains its
		 * events just before each model_update()) happened before the
		 * first interval: a recording, not yet open then, kept none.
		 */
		m->nr_moves = 0;
		free(m->prev_freq);
		err = model_freq_cumulative(in, &m->prev_freq, &m->nr_prev_freq);
		if (!err)
			err = save_prev(m, in);
		m->have_baseline = true;
		goto cleanup;
	}
	err = -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto cleanup;
	s->ts_ns = in->ts_ns;
	s->interval_ns = in->ts_ns > m->prev_ts ? in->ts_ns - m->prev_ts : 0;
	s->avail = in->avail;
	/* Every row is written whole: no need to zero them. */
	cap_tasks = model_nr_task_rows(m);
	s->tasks = malloc((cap_tasks ? cap_tasks : 1) * sizeof(*s->tasks));
	s->nr_cpus = m->nr_cpus;
	s->cpus = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*s->cpus));
	s->nr_clusters = schedstat_topology_nr_clusters(m->topo);
	s->clusters = calloc(s->nr_clusters ? s->nr_clusters : 1,
			     sizeof(*s->clusters));
	cpu_running = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*cpu_running));
	if (!s->tasks || !s->cpus || !s->clusters || !cpu_running)
		goto cleanup;

	err = model_fill_tasks(m, in, s, cpu_running);
	if (err)
		goto cleanup;
	err = migrations_fill_table(s, m->moves, m->nr_moves, NULL);
	if (err)
		goto cleanup;
	migrations_count_moves(s, m->moves, m->nr_moves);
	m->nr_moves = 0;
	model_fill_derived(s);

	model_fill_cpus(m, in, s, cpu_running);
	model_fill_clusters(m, in, s);
	model_mark_misfits(m, s);
	err = model_fill_freq_residency(m, in, s);
	if (err)
		goto cleanup;
	err = model_fill_groups(m, in, s);
	if (err)
		goto cleanup;
	err = save_prev(m, in);
	if (err)
		goto cleanup;
	*out = s;
	s = NULL;
cleanup:
	free(cpu_running);
	if (s)
		schedstat_snapshot_free(s);
	return err;
}
