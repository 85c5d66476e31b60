// SPDX-License-Identifier: GPL-2.0
/*
 * The model's task rows: each task matched to its previous sample by pid
 * and start time, its counters turned into deltas, its PELT values decayed
 * to the sample where it sleeps, its blocked load added to its CPU, and the
 * tasks gone since the last sample accounted once (docs/signals.md).
 */
#include <errno.h>
#include <stdlib.h>

#include "model_local.h"
#include "pelt.h"
#include "sched_kernel.h"

/* pid -> index into @recs; a pid listed twice maps to its first record. */
int model_pid_index_build(struct schedstat_hash *ix,
			  const struct st_task_rec *recs, size_t nr)
{
	schedstat_hash_clear(ix);
	/* Backwards, so that the first record is the last put: one probe
	 * sequence a task instead of a lookup and then an insert. */
	for (size_t i = nr; i-- > 0;)
		if (schedstat_hash_put(ix, (uint32_t)recs[i].pid, i))
			return -ENOMEM;
	return 0;
}

static long pid_index_find(const struct schedstat_hash *ix, int32_t pid)
{
	uint64_t i;

	return schedstat_hash_get(ix, (uint32_t)pid, &i) ? -1 : (long)i;
}

int model_add_exit(struct model *m, const struct st_task_rec *rec)
{
	if (schedstat_array_reserve((void **)&m->exits, &m->cap_exits, m->nr_exits + 1,
			  sizeof(*m->exits)))
		return -ENOMEM;
	m->exits[m->nr_exits++] = *rec;
	return 0;
}

char model_state_letter(unsigned int state, unsigned int exit_state)
{
	/* task_state_index() in include/linux/sched.h, same letters as ps. */
	static const char letters[] = "RSDTtXZPI";
	unsigned int report = (state & TASK_REPORT) | exit_state;
	int idx = 0;

	if (state == TASK_IDLE)
		return 'I';
	if (state & MODEL_STATE_DEAD)
		return 'x';
	while (report) {
		idx++;
		report >>= 1;
	}
	return idx < (int)sizeof(letters) - 1 ? letters[idx] : '?';
}

/*
 * Asleep with its PELT contribution parked on a cfs_rq (see add_blocked).
 * EEVDF's delayed dequeue (6.12+) leaves a task that blocked while owing
 * CPU time (negative lag: a contended CPU) queued, on_rq with
 * se.sched_delayed, until it is picked or woken. It is asleep all the
 * same: never curr, so its util decays from its switch-out, and
 * se_runnable() is false for it (mainline since "sched/eevdf: More PELT
 * vs DELAY_DEQUEUE"; 6.18 here), so its runnable decays too.
 */
static bool sleeping_fair(const struct st_task_rec *r)
{
	/* prio < MAX_RT_PRIO: rt or dl; their se.avg is not on any cfs_rq. */
	return (!r->on_rq || r->sched_delayed) && !r->exit_state &&
	       r->last_update_time && prio_is_fair(r->prio);
}

static uint64_t sleep_periods(const struct st_task_rec *r, uint64_t now_pelt)
{
	if (!now_pelt)
		return 0;
	return pelt_periods_since(r->last_update_time, r->period_contrib, now_pelt);
}

/* No periods, no change (the raw multiply would round one unit away). */
static uint64_t pelt_decay_avg(uint64_t v, uint64_t n)
{
	return n ? pelt_decay(v, n) : v;
}

static void fill_task(struct model *m, const struct model_input *in,
		      struct schedstat_task *t, const struct st_task_rec *r,
		      const struct st_task_rec *base)
{
	static const struct st_task_rec zero;
	uint64_t now_pelt, decay;

	if (!base)
		base = &zero;
	t->pid = r->pid;
	t->tgid = r->tgid;
	schedstat_comm_sanitize(t->comm, r->comm, sizeof(t->comm));
	t->cpu = r->cpu;
	t->cluster = schedstat_topology_cpu_cluster(m->topo, r->cpu);
	if (t->cluster < 0)
		t->cluster = -1;
	t->state = model_state_letter(r->state, r->exit_state);
	t->running = r->on_cpu;
	t->prio = r->prio;
	t->util_est = r->util_est;
	t->nr_cpus_allowed = r->nr_cpus_allowed;
	t->max_allowed_capacity = r->max_allowed_capacity;
	t->pelt_estimated = in->avail & SCHEDSTAT_AVAIL_PELT_ESTIMATED;
	now_pelt = model_pelt_now(model_cpu_of(in, r->cpu), in->ts_ns);
	t->pelt_age_ns = now_pelt > r->last_update_time && r->last_update_time ?
			 now_pelt - r->last_update_time : 0;
	/*
	 * A sleeping task's se.avg froze when it blocked; the kernel decays it
	 * at its next look (sync_entity_load_avg() before placing it). Show
	 * what that look will find, so an idle task does not keep its peak.
	 */
	decay = sleeping_fair(r) ? sleep_periods(r, now_pelt) : 0;
	t->util_avg = pelt_decay_avg(r->util_avg, decay);
	t->runnable_avg = pelt_decay_avg(r->runnable_avg, decay);
	/*
	 * A delayed task is still queued for load (__update_load_avg_se()
	 * passes !!se->on_rq): the kernel adds to it until the dequeue, so
	 * it keeps its last value, as queued tasks do.
	 */
	t->load_avg = r->sched_delayed ? r->load_avg :
		      pelt_decay_avg(r->load_avg, decay);
	t->run_ns = model_delta(r->sum_exec_runtime, base->sum_exec_runtime);
	t->wait_ns = model_delta(r->run_delay, base->run_delay);
	/*
	 * Without the sched_waking counter, count the sleeps that ended:
	 * every voluntary switch is the task blocking until a wakeup.
	 */
	if (in->avail & SCHEDSTAT_AVAIL_WAKEUPS)
		t->wakeups = model_delta(r->wakeups, base->wakeups);
	else
		t->wakeups = model_delta(r->nvcsw, base->nvcsw);
	t->migrations = model_delta(r->nr_migrations, base->nr_migrations);
	t->nvcsw = model_delta(r->nvcsw, base->nvcsw);
	t->nivcsw = model_delta(r->nivcsw, base->nivcsw);
}

/* The last row of a task gone since the previous sample. */
static void fill_exited(struct model *m, const struct model_input *in,
			struct schedstat_task *t, const struct st_task_rec *r,
			const struct st_task_rec *base)
{
	fill_task(m, in, t, r, base);
	t->state = 'X';
	t->exited = true;
	t->running = false;
}

static bool is_runnable(const struct st_task_rec *r)
{
	return r->on_rq && !r->sched_delayed && !r->exit_state;
}

/*
 * A sleeping fair task's PELT contribution stays in the root cfs_rq of the
 * CPU it last ran on and decays there by y per period (the seed RFC's blocked
 * load). Its se.avg was frozen at dequeue, so decay it to the sample time the
 * way the kernel will when it next looks.
 */
static void add_blocked(struct schedstat_cpu *cpus, size_t nr_cpus,
			const struct schedstat_task *t, const struct st_task_rec *r)
{
	if (!sleeping_fair(r) || r->cpu >= nr_cpus)
		return;
	/* fill_task() already decayed it to the sample. */
	cpus[r->cpu].blocked_util += t->util_avg;
	cpus[r->cpu].blocked_load += t->load_avg;
}

/* Moves the exit record of (pid, start_time) to @out, if there is one. */
static bool take_exit(struct model *m, int32_t pid, uint64_t start_time,
		      struct st_task_rec *out)
{
	for (size_t i = 0; i < m->nr_exits; i++) {
		if (m->exits[i].pid == pid && m->exits[i].start_time == start_time) {
			*out = m->exits[i];
			/* Mark used; compacted at the end of the update. */
			m->exits[i].pid = -1;
			return true;
		}
	}
	return false;
}

static int cmp_task(const void *a, const void *b)
{
	const struct schedstat_task *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->exited - y->exited;
}

static bool pid_listed(const struct schedstat_hash *ix,
		       const struct model_input *in, const struct st_task_rec *r)
{
	long j = pid_index_find(ix, r->pid);

	return j >= 0 && in->tasks[j].start_time == r->start_time;
}

/*
 * Every task row of @s: this sample's tasks against their previous
 * sample, the tasks gone since it (their final stretch, once), and those
 * born and gone within the interval; sorted by pid. Marks the CPUs that
 * run a task in @cpu_running and counts their runnable tasks and util_est.
 */
void model_fill_tasks(struct model *m, const struct model_input *in,
		      struct schedstat_snapshot *s, bool *cpu_running)
{
	size_t n = 0;

	for (size_t i = 0; i < in->nr_tasks; i++) {
		const struct st_task_rec *r = &in->tasks[i];
		const struct st_task_rec *base = NULL;
		long j = pid_index_find(m->prev_index, r->pid);

		if (j >= 0 && m->prev[j].start_time == r->start_time) {
			base = &m->prev[j];
			m->prev_matched[j] = true;
		}
		fill_task(m, in, &s->tasks[n], r, base);
		if (in->task_kernel_pelt && in->task_kernel_pelt[i])
			s->tasks[n].pelt_estimated = false;
		if (r->cpu < s->nr_cpus) {
			if (is_runnable(r))
				s->cpus[r->cpu].nr_running++;
			/*
			 * The kernel adds a fair task's util_est to its CPU's
			 * root cfs_rq at enqueue and takes the same value
			 * away at dequeue: the sum over queued tasks is it.
			 */
			if (is_runnable(r) && prio_is_fair(r->prio))
				s->cpus[r->cpu].util_est += r->util_est;
			if (r->on_cpu)
				cpu_running[r->cpu] = true;
		}
		add_blocked(s->cpus, s->nr_cpus, &s->tasks[n++], r);
	}
	/* Gone since the last sample: account their final stretch once. */
	for (size_t j = 0; j < m->nr_prev; j++) {
		struct st_task_rec last;

		if (m->prev_matched[j])
			continue;
		/*
		 * The exit event is taken in do_exit(); a zombie seen by the
		 * iterator afterwards is newer. Keep the newest record.
		 */
		if (!take_exit(m, m->prev[j].pid, m->prev[j].start_time, &last) ||
		    last.sum_exec_runtime < m->prev[j].sum_exec_runtime)
			last = m->prev[j];
		fill_exited(m, in, &s->tasks[n++], &last, &m->prev[j]);
	}
	/* Born and gone within the interval. */
	for (size_t i = 0; i < m->nr_exits; i++) {
		const struct st_task_rec *r = &m->exits[i];
		long j;

		if (r->pid < 0)
			continue;
		j = pid_index_find(m->prev_index, r->pid);
		if (j >= 0 && m->prev[j].start_time == r->start_time)
			continue;
		if (pid_listed(m->cur_index, in, r))
			continue;
		fill_exited(m, in, &s->tasks[n++], r, NULL);
		m->exits[i].pid = -1;
	}
	s->nr_tasks = n;
	qsort(s->tasks, n, sizeof(*s->tasks), cmp_task);
}
