// SPDX-License-Identifier: GPL-2.0
/*
 * Sched events in, task records and CPU state out (engine.h). This file
 * owns the engine: its life, the seeds from /proc, and what engine_fill()
 * hands the model. The task table is engine_tasks.c, the PELT arithmetic
 * engine_pelt.c, the events that change a task's or CPU's state
 * engine_events.c, the time steal and interrupts took engine_lost_time.c;
 * engine_local.h is their shared layout. engine.c calls the others;
 * engine_events.c calls the task table and PELT; those call none of them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine_local.h"
#include "sched_kernel.h"

static int pids_rebuild(struct engine *e)
{
	schedstat_hash_clear(e->pids);
	/* In order, so that the later entry of a reused pid wins. */
	for (size_t i = 0; i < e->nr_tasks; i++)
		if (schedstat_hash_put(e->pids, (uint32_t)e->tasks[i].rec.pid, i))
			return -ENOMEM;
	return 0;
}

int engine_seed(struct engine *e, const struct engine_seed *seed, uint64_t ts)
{
	struct etask *t = engine_task_get(e, seed->pid, seed->prio, seed->comm, ts);
	struct ecpu *c = engine_cpu_at(e, seed->cpu);

	if (!t)
		return -ENOMEM;
	t->rec.tgid = seed->tgid;
	t->rec.start_time = seed->start_time;
	if (!c)
		return 0;
	t->rec.cpu = seed->cpu;
	if (seed->have_avg && t->fair) {
		t->avg.util_avg = seed->avg.util_avg;
		t->avg.runnable_avg = seed->avg.runnable_avg;
		t->avg.load_avg = seed->avg.load_avg;
	}
	/*
	 * Its sums join the CPU's as they are in the kernel; a sleeping task
	 * stays attached there (blocked load).
	 */
	if (t->fair)
		engine_attach(e, t, seed->cpu, ts);
	if (seed->runnable)
		engine_enqueue(e, t, seed->cpu, ts);
	return 0;
}

/* The CPU's PELT values brought forward to @ts, without changing it. */
static void cpu_out(struct ecpu *c, uint64_t ts, struct st_cpu_state *out)
{
	struct ecpu copy = *c;

	*out = c->st;
	if (!c->started)
		return;
	engine_update_cpu(&copy, ts);
	out->cfs_ts = ts;
	out->cfs_lut = copy.pelt;
	out->cfs_util = copy.avg.util_avg;
	out->cfs_runnable = copy.avg.runnable_avg;
	out->cfs_load = copy.avg.load_avg;
	out->cfs_h_nr = copy.nr_queued;
	out->capacity = c->capacity;
	out->seen |= ST_SEEN_CFS;
}

static void task_out(struct engine *e, struct etask *t, uint64_t ts,
		     const struct st_cpu_state *cpus, struct st_task_rec *out)
{
	struct ecpu *c = engine_cpu_at(e, t->attached);
	bool on_cpu = t->rec.on_cpu;
	uint64_t since = t->on_cpu_since;

	*out = t->rec;
	/* Woken first onto a CPU whose switch away from idle is missing. */
	if (!on_cpu && t->rec.on_rq && c && c->drops_idle_switches &&
	    c->curr == 0 && c->idle_wake_ts &&
	    t->queued_since == c->idle_wake_ts &&
	    t->rec.cpu == (uint32_t)t->attached) {
		on_cpu = true;
		since = t->queued_since;
		out->on_cpu = 1;
	}
	if (on_cpu && ts > since)
		out->sum_exec_runtime += ts - since;
	if (t->rec.on_rq && !on_cpu && t->queued_since &&
	    ts > t->queued_since)
		out->run_delay += ts - t->queued_since;
	if (c && t->fair) {
		struct ecpu cc = *c;
		struct pelt_avg a = t->avg;

		engine_update_cpu(&cc, ts);
		engine_cpu_pelt_update(&cc, &a, cc.pelt, t->rec.on_rq, t->rec.on_rq,
				       on_cpu, pelt_prio_weight(t->rec.prio));
		out->util_avg = a.util_avg;
		out->runnable_avg = a.runnable_avg;
		out->load_avg = a.load_avg;
		out->period_contrib = a.period_contrib;
		/* The model decays from here to its sample: nothing left. */
		out->last_update_time = cpus[t->attached].cfs_lut;
	} else if (t->fair) {
		out->util_avg = t->avg.util_avg;
		out->runnable_avg = t->avg.runnable_avg;
		out->load_avg = t->avg.load_avg;
	}
}

/*
 * What update_misfit_status() reads of @r's affinity, asked of the source
 * only for a task that could be misfit (queued, fair, its util not fitting
 * a CPU smaller than the biggest): one /proc read each, not one per task.
 * The others keep 0, not known, which the misfit rule does not need. The
 * original capacity is what the model judges these sources' tasks by too:
 * only the BPF source knows capacity_of().
 */
static void task_affinity(struct engine *e, struct st_task_rec *r)
{
	uint64_t util = r->util_avg > r->util_est ? r->util_avg : r->util_est;
	unsigned int cap, max = 0, biggest = 0;
	struct cpuset allowed = {};
	uint32_t n = 0;
	int end;

	if (!e->hooks.affinity || !e->topo || !r->on_rq || r->exit_state ||
	    !prio_is_fair(r->prio))
		return;
	cap = schedstat_topology_cpu_capacity(e->topo, r->cpu);
	for (int i = 0; i < schedstat_topology_nr_clusters(e->topo); i++)
		if (schedstat_topology_cluster_capacity(e->topo, i) > biggest)
			biggest = schedstat_topology_cluster_capacity(e->topo, i);
	if (!cap || cap >= biggest || fits_capacity(util, cap))
		return;
	if (e->hooks.affinity(e->hooks.ctx, r->pid, &allowed))
		return;
	end = cpuset_end(&allowed);
	for (int cpu = 0; cpu < end; cpu++) {
		if (!cpuset_test(&allowed, cpu))
			continue;
		n++;
		if (schedstat_topology_cpu_capacity(e->topo, cpu) > max)
			max = schedstat_topology_cpu_capacity(e->topo, cpu);
	}
	r->nr_cpus_allowed = n;
	if (e->hooks.max_allowed_capacity)
		r->max_allowed_capacity = max;
}

int engine_fill(struct engine *e, uint64_t ts, struct model_input *in)
{
	size_t n = 0, keep = 0;

	/* Exited tasks were handed over at their exit: drop them now. */
	for (size_t i = 0; i < e->nr_tasks; i++)
		if (!e->tasks[i].dead)
			e->tasks[keep++] = e->tasks[i];
	if (keep != e->nr_tasks) {
		e->nr_tasks = keep;
		if (pids_rebuild(e))
			return -ENOMEM;
	}
	if (schedstat_array_reserve((void **)&e->recs, &e->cap_recs, e->nr_tasks + 1,
			  sizeof(*e->recs)) ||
	    schedstat_array_reserve((void **)&e->recs_kernel, &e->cap_recs_kernel,
			  e->nr_tasks + 1, sizeof(*e->recs_kernel)))
		return -ENOMEM;
	for (int i = 0; i < e->nr_cpus; i++) {
		cpu_out(&e->cpus[i], ts, &e->cpu_out[i]);
		e->hp_out[i] = e->cpus[i].hp;
		e->cpu_kernel[i] = e->cpus[i].kernel_pelt;
	}
	for (size_t i = 0; i < e->nr_tasks; i++) {
		e->recs_kernel[n] = e->tasks[i].kernel_pelt;
		task_out(e, &e->tasks[i], ts, e->cpu_out, &e->recs[n]);
		task_affinity(e, &e->recs[n++]);
	}
	in->task_kernel_pelt = e->recs_kernel;
	in->cpu_kernel_pelt = e->cpu_kernel;
	in->ts_ns = ts;
	in->tasks = e->recs;
	in->nr_tasks = n;
	in->cpus = e->cpu_out;
	in->hotplug = e->hp_out;
	in->nr_cpus = e->nr_cpus;
	in->freq_times = e->freqs;
	in->nr_freq_times = e->nr_freqs;
	in->global = &e->global;
	return 0;
}

uint64_t engine_implicit_switches(const struct engine *e)
{
	return e->implicit_switches;
}

void engine_set_dropped(struct engine *e, int cpu, uint64_t dropped)
{
	struct ecpu *c = engine_cpu_at(e, cpu);

	if (c)
		c->st.dropped = dropped;
}

int engine_new(struct engine **out, const struct schedstat_topology *topo,
	       const struct engine_hooks *hooks)
{
	struct engine *e;
	int err = -ENOMEM;

	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->topo = topo;
	if (hooks)
		e->hooks = *hooks;
	e->nr_cpus = schedstat_topology_nr_cpus(topo);
	e->cpus = calloc(e->nr_cpus ? e->nr_cpus : 1, sizeof(*e->cpus));
	e->cpu_out = calloc(e->nr_cpus ? e->nr_cpus : 1, sizeof(*e->cpu_out));
	e->hp_out = calloc(e->nr_cpus ? e->nr_cpus : 1, sizeof(*e->hp_out));
	e->cpu_kernel = calloc(e->nr_cpus ? e->nr_cpus : 1, sizeof(*e->cpu_kernel));
	if (!e->cpus || !e->cpu_out || !e->hp_out || !e->cpu_kernel)
		goto cleanup;
	for (int i = 0; i < e->nr_cpus; i++) {
		struct ecpu *c = &e->cpus[i];
		int k = schedstat_topology_cpu_cluster(topo, i);
		unsigned int min_khz = 0, max_khz = 0;

		c->capacity = schedstat_topology_cpu_capacity(topo, i);
		if (!c->capacity)
			c->capacity = SCHED_CAPACITY_SCALE;
		if (k >= 0)
			schedstat_topology_cluster_freq(topo, k, &min_khz, &max_khz);
		c->max_khz = max_khz;
		c->curr = -1;
		c->st.cstate = -1;
	}
	err = schedstat_hash_new(&e->pids);
	if (err)
		goto cleanup;
	*out = e;
	e = NULL;
cleanup:
	engine_free(e);
	return err;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	free(e->cpus);
	free(e->cpu_out);
	free(e->hp_out);
	free(e->cpu_kernel);
	free(e->recs_kernel);
	free(e->tasks);
	schedstat_hash_free(e->pids);
	free(e->recs);
	free(e->freqs);
	free(e);
}
