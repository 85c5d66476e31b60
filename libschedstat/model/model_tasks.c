// SPDX-License-Identifier: GPL-2.0
/*
 * The model's task rows. Each task is kept from sample to sample in a table
 * found by pid (its start time tells a reused pid): a record that differs
 * from the task's last one is turned into a row again, with its counters'
 * deltas; a task whose record did not change costs a copy of its row and its
 * PELT values decayed to the sample where it sleeps (not once they reached 0). Its blocked load is
 * added to its CPU, and the tasks gone since the last sample are accounted
 * once (docs/signals.md). A source gives every task (gone: not listed) or
 * only the changed ones and the gone (the BPF source's task table).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_local.h"
#include "pelt.h"
#include "sched_kernel.h"

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
 * Asleep with its PELT contribution parked on a cfs_rq (see the blocked
 * load in model_fill_tasks()). EEVDF's delayed dequeue (6.12+) leaves a task
 * that blocked while owing CPU time (negative lag: a contended CPU) queued,
 * on_rq with se.sched_delayed, until it is picked or woken. It is asleep
 * all the same: never curr, so its util decays from its switch-out, and
 * se_runnable() is false for it (mainline since "sched/eevdf: More PELT
 * vs DELAY_DEQUEUE"; 6.18 here), so its runnable decays too.
 */
static bool sleeping_fair(const struct st_task_rec *r)
{
	/* prio < MAX_RT_PRIO: rt or dl; their se.avg is not on any cfs_rq. */
	return (!r->on_rq || r->sched_delayed) && !r->exit_state &&
	       r->last_update_time && prio_is_fair(r->prio);
}

static bool is_runnable(const struct st_task_rec *r)
{
	return r->on_rq && !r->sched_delayed && !r->exit_state;
}

/*
 * What a sleeper's next update finds after @n periods: as
 * ___update_load_sum() and ___update_load_avg() compute it, the sum
 * decayed and divided by the divider of the period_contrib it reaches
 * (times @weight for load). Its stored average can be older than its sum
 * (an update that crossed no period grew the sum alone): decaying the
 * average read 4.5% low (5.10 guest: 84 where the kernel's sums gave 88).
 * A source without the sums (the event sources' estimate, brought to the
 * sample already) decays the average. No periods, no change (the raw
 * multiply would round one unit away).
 */
static uint64_t sleeper_avg(const struct st_task_rec *r, uint64_t avg,
			    uint64_t sum, uint64_t weight, uint64_t n,
			    uint64_t now_pelt, bool sums)
{
	uint32_t pc;

	if (!n)
		return avg;
	if (!sums)
		return pelt_decay(avg, n);
	pc = (r->period_contrib + ((now_pelt - r->last_update_time) >> 10)) % 1024;
	return weight * pelt_decay(sum, n) / (PELT_MIN_DIVIDER + pc);
}

/* What a row takes from its record alone. */
static void row_of_record(const struct model *m, struct schedstat_task *t,
			  const struct st_task_rec *r)
{
	memset(t, 0, sizeof(*t));
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
}

static uint64_t pelt_age(const struct st_task_rec *r, uint64_t now_pelt)
{
	return now_pelt > r->last_update_time && r->last_update_time ?
	       now_pelt - r->last_update_time : 0;
}

/* The periods a sleeper's next update decays it by; 0 for the others. */
static uint64_t sleeper_periods(const struct st_task_rec *r, uint64_t now_pelt)
{
	if (!sleeping_fair(r) || !now_pelt)
		return 0;
	return pelt_periods_since(r->last_update_time, r->period_contrib,
				  now_pelt);
}

/*
 * A delayed task's load at @now_pelt: ___update_load_sum() with load 1,
 * runnable and running 0 (se_runnable() is false for it, it is not curr),
 * then ___update_load_avg() with its weight.
 */
static uint64_t delayed_load(const struct st_task_rec *r, uint64_t now_pelt)
{
	struct pelt_avg sa = {
		.last_update_time = r->last_update_time,
		.load_sum = r->load_sum,
		.runnable_sum = r->runnable_sum,
		.util_sum = r->util_sum,
		.period_contrib = r->period_contrib,
		.load_avg = r->load_avg,
	};

	if (!pelt_update(&sa, now_pelt, 1, 0, 0, r->weight))
		return r->load_avg;
	return sa.load_avg;
}

/*
 * The PELT values at the sample, @now_pelt being the task's CPU's PELT
 * clock then. A sleeping task's se.avg froze when it blocked; the kernel
 * decays it at its next look (sync_entity_load_avg() before placing it).
 * Show what that look will find, so an idle task does not keep its peak.
 * Returns the periods decayed by.
 */
static uint64_t row_pelt(struct schedstat_task *t, const struct st_task_rec *r,
			 uint64_t now_pelt, bool sums)
{
	uint64_t decay = sleeper_periods(r, now_pelt);

	t->pelt_age_ns = pelt_age(r, now_pelt);
	t->util_avg = sleeper_avg(r, r->util_avg, r->util_sum, 1, decay,
				  now_pelt, sums);
	t->runnable_avg = sleeper_avg(r, r->runnable_avg, r->runnable_sum, 1,
				      decay, now_pelt, sums);
	/*
	 * A delayed task is still queued for load (__update_load_avg_se()
	 * passes !!se->on_rq): the kernel's next look adds its time since to
	 * load_sum as a queued task's (6.18 host: 460 shown where its sums
	 * gave 440 asleep; the kernel's look finds more).
	 */
	if (r->sched_delayed && decay && sums && r->weight)
		t->load_avg = delayed_load(r, now_pelt);
	else
		t->load_avg = sleeper_avg(r, r->load_avg, r->load_sum, r->weight,
					  decay, now_pelt, sums && r->weight);
	return decay;
}

static void deltas_of(struct model_deltas *d, const struct st_task_rec *r,
		      const struct st_task_rec *base, uint32_t avail)
{
	static const struct st_task_rec zero;

	if (!base)
		base = &zero;
	d->run_ns = model_delta(r->sum_exec_runtime, base->sum_exec_runtime);
	d->wait_ns = model_delta(r->run_delay, base->run_delay);
	/*
	 * Without the sched_waking counter, count the sleeps that ended:
	 * every voluntary switch is the task blocking until a wakeup.
	 */
	if (avail & SCHEDSTAT_AVAIL_WAKEUPS)
		d->wakeups = model_delta(r->wakeups, base->wakeups);
	else
		d->wakeups = model_delta(r->nvcsw, base->nvcsw);
	d->migrations = model_delta(r->nr_migrations, base->nr_migrations);
	d->nvcsw = model_delta(r->nvcsw, base->nvcsw);
	d->nivcsw = model_delta(r->nivcsw, base->nivcsw);
}

static void row_deltas(struct schedstat_task *t, const struct model_deltas *d)
{
	t->run_ns = d->run_ns;
	t->wait_ns = d->wait_ns;
	t->wakeups = d->wakeups;
	t->migrations = d->migrations;
	t->nvcsw = d->nvcsw;
	t->nivcsw = d->nivcsw;
}

static uint64_t now_pelt_of(const struct model *m, uint32_t cpu)
{
	return cpu < (uint32_t)m->nr_cpus ? m->now_pelt[cpu] : 0;
}

/* The last row of a task gone since the previous sample. */
static void row_exited(const struct model *m, const struct model_input *in,
		       struct schedstat_task *t, const struct st_task_rec *r,
		       const struct st_task_rec *base)
{
	struct model_deltas d;

	row_of_record(m, t, r);
	deltas_of(&d, r, base, in->avail);
	row_deltas(t, &d);
	row_pelt(t, r, now_pelt_of(m, r->cpu),
		 !(in->avail & SCHEDSTAT_AVAIL_PELT_ESTIMATED));
	t->pelt_estimated = in->avail & SCHEDSTAT_AVAIL_PELT_ESTIMATED;
	t->state = 'X';
	t->exited = true;
	t->running = false;
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

int model_tasks_new(struct model *m)
{
	return schedstat_hash_new(&m->by_pid);
}

void model_tasks_free(struct model *m)
{
	schedstat_hash_free(m->by_pid);
	free(m->tasks);
	free(m->order);
	free(m->order_next);
	free(m->born);
	free(m->freed);
	free(m->gone_rows);
	free(m->now_pelt);
}

static struct model_task *task_at(const struct model *m, uint64_t idx)
{
	return &m->tasks[idx];
}

static long task_find(const struct model *m, int32_t pid)
{
	uint64_t idx;

	return schedstat_hash_get(m->by_pid, (uint32_t)pid, &idx) ? -1 : (long)idx;
}

/* A free entry: one freed before this sample, else a new one. */
static long task_alloc(struct model *m)
{
	uint32_t idx;

	if (m->nr_reuse) {
		idx = m->freed[--m->nr_reuse];
		m->freed[m->nr_reuse] = m->freed[--m->nr_freed];
	} else {
		if (schedstat_array_reserve((void **)&m->tasks, &m->cap_tasks,
					    m->nr_tasks + 1, sizeof(*m->tasks)))
			return -ENOMEM;
		idx = m->nr_tasks++;
	}
	return idx;
}

/*
 * The task at @idx is gone: its final stretch from its exit record when
 * that is newer (the exit event is taken in do_exit(); a zombie seen after
 * it is newer), else from its last record, into @row if given (the
 * baseline has no rows). Its entry is free from the next sample on: this
 * one's order[] may still name it.
 */
static int task_gone(struct model *m, const struct model_input *in, long idx,
		     struct schedstat_task *row)
{
	struct model_task *e = task_at(m, idx);
	struct st_task_rec last;

	if (schedstat_array_reserve((void **)&m->freed, &m->cap_freed, m->nr_freed + 1,
				    sizeof(*m->freed)))
		return -ENOMEM;
	if (!take_exit(m, e->rec.pid, e->rec.start_time, &last) ||
	    last.sum_exec_runtime < e->rec.sum_exec_runtime)
		last = e->rec;
	if (row)
		row_exited(m, in, row, &last, &e->rec);
	schedstat_hash_remove(m->by_pid, (uint32_t)e->rec.pid);
	e->live = false;
	m->freed[m->nr_freed++] = idx;
	return 0;
}

/* A gone task's row among the ones merged in by pid (model_fill_tasks()). */
static int task_gone_row(struct model *m, const struct model_input *in,
			 long idx)
{
	if (!m->have_baseline)
		return task_gone(m, in, idx, NULL);
	if (schedstat_array_reserve((void **)&m->gone_rows, &m->cap_gone_rows,
				    m->nr_gone_rows + 1, sizeof(*m->gone_rows)))
		return -ENOMEM;
	return task_gone(m, in, idx, &m->gone_rows[m->nr_gone_rows++]);
}

/* One record of this sample: a change, a new task, or one unchanged. */
static int task_apply(struct model *m, const struct model_input *in, size_t i)
{
	const struct st_task_rec *r = &in->tasks[i];
	bool kernel_pelt = in->task_kernel_pelt && in->task_kernel_pelt[i];
	struct model_task *e;
	long idx = task_find(m, r->pid);
	int err;

	if (idx >= 0) {
		e = task_at(m, idx);
		/* Listed twice in one sample: its first record counts. */
		if (e->seen_gen == m->gen)
			return 0;
		if (e->rec.start_time == r->start_time) {
			e->seen_gen = m->gen;
			e->kernel_pelt = kernel_pelt;
			if (!memcmp(&e->rec, r, sizeof(*r)))
				return 0;
			deltas_of(&e->deltas, r, &e->rec, in->avail);
			e->delta_gen = m->gen;
			e->rec = *r;
			e->zero_periods = 0;
			row_of_record(m, &e->row, r);
			return 0;
		}
		/* A reused pid: a new task, the old one gone. */
		err = task_gone_row(m, in, idx);
		if (err)
			return err;
	}
	idx = task_alloc(m);
	if (idx < 0)
		return idx;
	if (schedstat_array_reserve((void **)&m->born, &m->cap_born, m->nr_born + 1,
				    sizeof(*m->born)) ||
	    schedstat_hash_put(m->by_pid, (uint32_t)r->pid, idx))
		return -ENOMEM;
	e = task_at(m, idx);
	memset(e, 0, sizeof(*e));
	e->rec = *r;
	row_of_record(m, &e->row, r);
	/* New since the last sample: its counters count from zero. */
	deltas_of(&e->deltas, r, NULL, in->avail);
	e->delta_gen = m->gen;
	e->seen_gen = m->gen;
	e->live = true;
	e->kernel_pelt = kernel_pelt;
	m->born[m->nr_born++] = idx;
	return 0;
}

int model_apply_tasks(struct model *m, const struct model_input *in)
{
	int err = 0;

	m->nr_gone_rows = 0;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		m->now_pelt[cpu] = model_pelt_now(model_cpu_of(in, cpu), in->ts_ns);
	for (size_t i = 0; in->tasks_changed && !err && i < in->nr_gone; i++) {
		long idx = task_find(m, in->gone[i]);

		if (idx >= 0)
			err = task_gone_row(m, in, idx);
	}
	for (size_t i = 0; !err && i < in->nr_tasks; i++)
		err = task_apply(m, in, i);
	return err;
}

size_t model_nr_task_rows(const struct model *m)
{
	return m->nr_order + m->nr_born + m->nr_gone_rows + m->nr_exits;
}

/* Gone this sample: missing from a full list. */
static bool task_missing(const struct model *m, const struct model_input *in,
			 const struct model_task *e)
{
	return !in->tasks_changed && e->seen_gen != m->gen;
}

/*
 * Exit records of tasks the table does not hold (born and gone within the
 * interval) into gone_rows. Those of tasks still listed (zombies) wait for
 * the next sample; those of tasks missing now are taken when the sweep
 * reaches them.
 */
static int born_and_gone(struct model *m, const struct model_input *in)
{
	for (size_t i = 0; i < m->nr_exits; i++) {
		const struct st_task_rec *r = &m->exits[i];
		long idx;

		if (r->pid < 0)
			continue;
		idx = task_find(m, r->pid);
		if (idx >= 0 && task_at(m, idx)->rec.start_time == r->start_time)
			continue;
		if (schedstat_array_reserve((void **)&m->gone_rows, &m->cap_gone_rows,
					    m->nr_gone_rows + 1, sizeof(*m->gone_rows)))
			return -ENOMEM;
		row_exited(m, in, &m->gone_rows[m->nr_gone_rows++], r, NULL);
		m->exits[i].pid = -1;
	}
	return 0;
}

/* Room in order_next for every live task and every one born. */
static int order_reserve(struct model *m)
{
	size_t need = m->nr_order + m->nr_born;

	if (schedstat_array_reserve((void **)&m->order_next, &m->cap_order_next,
				    need, sizeof(*m->order_next)))
		return -ENOMEM;
	return 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct schedstat_task *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->exited - y->exited;
}

static int cmp_born(const void *a, const void *b, void *ctx)
{
	const struct model *m = ctx;
	int32_t x = task_at(m, *(const uint32_t *)a)->rec.pid;
	int32_t y = task_at(m, *(const uint32_t *)b)->rec.pid;

	return (x > y) - (x < y);
}

/*
 * Whether what a sleeper's values are computed from has decayed to 0
 * after @n periods: each sum (else average) decay_load()ed. Divided by the
 * divider, a value can be 0 while its sum is not, and the divider moves
 * with period_contrib: only a numerator of 0 stays 0 (below).
 */
static bool sleeper_gone_to_zero(const struct st_task_rec *r, uint64_t n,
				 bool sums)
{
	uint64_t load;

	/* A delayed task's load grows while it stays queued (delayed_load()). */
	if (r->sched_delayed)
		return false;
	load = pelt_decay(sums && r->weight ? r->load_sum : r->load_avg, n);
	if (sums)
		return !pelt_decay(r->util_sum, n) &&
		       !pelt_decay(r->runnable_sum, n) && !load;
	return !pelt_decay(r->util_avg, n) && !pelt_decay(r->runnable_avg, n) &&
	       !load;
}

/*
 * A task's PELT values at this sample. Most of a phone's threads sleep
 * for seconds: their values decay to 0 and stay there. decay_load() of a
 * value is 0 after more periods where it is 0 after n = 32a + b: then
 * (v >> a) * y^b * 2^32 < 2^32 with y^b > 1/2, so v >> a is 0 or 1; more
 * periods of the same half-life multiply by less, one more half-life
 * shifts it to 0. So a sleeper of the same record whose sums were all 0
 * before is 0 again now, with no decay computed (3,000 sleeping threads:
 * 87 instructions a task, three divisions among them, every sample).
 */
static void task_pelt(struct model_task *e, struct schedstat_task *t,
		      uint64_t now_pelt, bool sums)
{
	const struct st_task_rec *r = &e->rec;
	uint64_t n;

	if (e->zero_periods && e->zero_sums == sums &&
	    sleeper_periods(r, now_pelt) >= e->zero_periods) {
		t->pelt_age_ns = pelt_age(r, now_pelt);
		t->util_avg = 0;
		t->runnable_avg = 0;
		t->load_avg = 0;
		return;
	}
	n = row_pelt(t, r, now_pelt, sums);
	if (n && !t->util_avg && !t->runnable_avg && !t->load_avg &&
	    sleeper_gone_to_zero(r, n, sums)) {
		e->zero_periods = n;
		e->zero_sums = sums;
	}
}

/* A live task's row at this sample, and what it adds to its CPU. */
static void task_row(struct model *m, const struct model_input *in,
		     struct schedstat_snapshot *s, struct schedstat_task *t,
		     struct model_task *e, bool *cpu_running)
{
	const struct st_task_rec *r = &e->rec;

	*t = e->row;
	if (e->delta_gen == m->gen)
		row_deltas(t, &e->deltas);
	t->pelt_estimated = (in->avail & SCHEDSTAT_AVAIL_PELT_ESTIMATED) &&
			    !e->kernel_pelt;
	/* Only the BPF source's records carry the sums. */
	task_pelt(e, t, now_pelt_of(m, r->cpu),
		  !(in->avail & SCHEDSTAT_AVAIL_PELT_ESTIMATED));
	if (r->cpu >= s->nr_cpus)
		return;
	if (is_runnable(r)) {
		s->cpus[r->cpu].nr_running++;
		/*
		 * The kernel adds a fair task's util_est to its CPU's root
		 * cfs_rq at enqueue and takes the same value away at dequeue:
		 * the sum over queued tasks is it.
		 */
		if (prio_is_fair(r->prio))
			s->cpus[r->cpu].util_est += r->util_est;
	}
	if (r->on_cpu)
		cpu_running[r->cpu] = true;
	/*
	 * A sleeping fair task's PELT contribution stays in the root cfs_rq
	 * of the CPU it last ran on and decays there by y per period (the
	 * seed RFC's blocked load); row_pelt() decayed it to the sample.
	 */
	if (sleeping_fair(r)) {
		s->cpus[r->cpu].blocked_util += t->util_avg;
		s->cpus[r->cpu].blocked_load += t->load_avg;
	}
}

/*
 * Rows in pid order, merging the table's live tasks (order[], then the
 * ones born this sample) and gone_rows; a gone task's row after a live one
 * of its pid. A task missing from a full list is gone here, in its place.
 */
int model_fill_tasks(struct model *m, const struct model_input *in,
		     struct schedstat_snapshot *s, bool *cpu_running)
{
	size_t i = 0, j = 0, k = 0, n = 0, next = 0;
	int err;

	err = born_and_gone(m, in);
	if (err)
		return err;
	if (m->nr_gone_rows > 1)
		qsort(m->gone_rows, m->nr_gone_rows, sizeof(*m->gone_rows), cmp_task);
	if (m->nr_born > 1)
		qsort_r(m->born, m->nr_born, sizeof(*m->born), cmp_born, m);
	err = order_reserve(m);
	if (err)
		return err;
	while (i < m->nr_order || j < m->nr_born) {
		uint32_t idx;
		struct model_task *e;

		if (j == m->nr_born || (i < m->nr_order &&
		    task_at(m, m->order[i])->rec.pid < task_at(m, m->born[j])->rec.pid))
			idx = m->order[i++];
		else
			idx = m->born[j++];
		e = task_at(m, idx);
		if (!e->live)
			continue;
		while (k < m->nr_gone_rows && m->gone_rows[k].pid < e->rec.pid)
			s->tasks[n++] = m->gone_rows[k++];
		if (task_missing(m, in, e)) {
			err = task_gone(m, in, idx, &s->tasks[n++]);
			if (err)
				return err;
			continue;
		}
		task_row(m, in, s, &s->tasks[n++], e, cpu_running);
		m->order_next[next++] = idx;
		while (k < m->nr_gone_rows && m->gone_rows[k].pid == e->rec.pid)
			s->tasks[n++] = m->gone_rows[k++];
	}
	while (k < m->nr_gone_rows)
		s->tasks[n++] = m->gone_rows[k++];
	s->nr_tasks = n;
	m->nr_order = next;
	return 0;
}

/*
 * The baseline: the table holds every task listed; order[] lists them. A
 * full list's missing ones cannot be: there was no table before.
 */
static int tasks_baseline(struct model *m)
{
	int err;

	if (m->nr_born > 1)
		qsort_r(m->born, m->nr_born, sizeof(*m->born), cmp_born, m);
	err = order_reserve(m);
	if (err)
		return err;
	/* No task yet (a trace's first instant): nothing reserved, nothing to copy. */
	if (m->nr_born)
		memcpy(m->order_next, m->born, m->nr_born * sizeof(*m->born));
	m->nr_order = m->nr_born;
	return 0;
}

int model_tasks_done(struct model *m)
{
	uint32_t *o = m->order;
	size_t cap = m->cap_order;
	int err;

	if (!m->have_baseline) {
		err = tasks_baseline(m);
		if (err)
			return err;
	}
	/* order_next is the new order[]; the old one is the next's buffer. */
	m->order = m->order_next;
	m->cap_order = m->cap_order_next;
	m->order_next = o;
	m->cap_order_next = cap;
	m->nr_born = 0;
	m->nr_reuse = m->nr_freed;
	m->gen++;
	return 0;
}
