// SPDX-License-Identifier: GPL-2.0
/*
 * Deltas between samples, exited tasks, per-CPU blocked load, clusters.
 * The definitions implemented here are documented in docs/signals.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "pelt.h"
#include "sched_kernel.h"

struct cluster_move {
	int32_t pid;
	int16_t dir;		/* 1 up, -1 down, 0 same capacity */
	int16_t dest;		/* cluster moved to */
	int16_t from;
};

struct model {
	const struct schedstat_topology *topo;
	int nr_cpus;
	bool have_baseline;
	uint64_t prev_ts;
	struct st_task_rec *prev;
	bool *prev_matched;
	size_t nr_prev;
	/* pid -> index into prev; this sample's, swapped in by save_prev(). */
	struct schedstat_hash *prev_index, *cur_index;
	struct st_cpu_state *prev_cpus;
	struct st_hotplug *prev_hotplug;
	struct st_global_state prev_global;
	struct model_freq_time *prev_freq;	/* cumulative, at prev_ts */
	size_t nr_prev_freq;
	struct st_task_rec *exits;
	size_t nr_exits;
	size_t cap_exits;
	/* Cross-cluster migrations since the last sample, by pid. */
	struct cluster_move *moves;
	size_t nr_moves;
	size_t cap_moves;
};

/* pid -> index into @recs; a pid listed twice maps to its first record. */
static int pid_index_build(struct schedstat_hash *ix,
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
	if (!m->prev_cpus || !m->prev_hotplug ||
	    schedstat_hash_new(&m->prev_index) ||
	    schedstat_hash_new(&m->cur_index)) {
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
	free(m->prev);
	free(m->prev_matched);
	schedstat_hash_free(m->prev_index);
	schedstat_hash_free(m->cur_index);
	free(m->prev_cpus);
	free(m->prev_hotplug);
	free(m->prev_freq);
	free(m->exits);
	free(m->moves);
	free(m);
}

int model_add_exit(struct model *m, const struct st_task_rec *rec)
{
	if (array_reserve((void **)&m->exits, &m->cap_exits, m->nr_exits + 1,
			  sizeof(*m->exits)))
		return -ENOMEM;
	m->exits[m->nr_exits++] = *rec;
	return 0;
}

int model_add_migration(struct model *m, int32_t pid, int32_t orig_cpu,
			int32_t dest_cpu)
{
	int from = schedstat_topology_cpu_cluster(m->topo, orig_cpu);
	int to = schedstat_topology_cpu_cluster(m->topo, dest_cpu);
	unsigned int cap_from, cap_to;

	if (from < 0 || to < 0 || from == to)
		return 0;
	cap_from = schedstat_topology_cluster_capacity(m->topo, from);
	cap_to = schedstat_topology_cluster_capacity(m->topo, to);
	if (array_reserve((void **)&m->moves, &m->cap_moves, m->nr_moves + 1,
			  sizeof(*m->moves)))
		return -ENOMEM;
	m->moves[m->nr_moves].pid = pid;
	m->moves[m->nr_moves].dest = to;
	m->moves[m->nr_moves].from = from;
	/* Clusters of one capacity (cpufreq domains): neither up nor down. */
	m->moves[m->nr_moves++].dir = cap_to > cap_from ? 1 :
				      cap_to < cap_from ? -1 : 0;
	return 0;
}

static int cmp_move(const void *a, const void *b)
{
	const struct cluster_move *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct model_freq_time *freq_find(struct model_freq_time *t, size_t n,
					  uint32_t cpu, uint32_t khz)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].cpu == cpu && t[i].khz == khz)
			return &t[i];
	return NULL;
}

/* Time at each (CPU, frequency) up to @in->ts_ns: completed stays plus current. */
static int freq_cumulative(const struct model_input *in, struct model_freq_time **out,
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
static int fill_freq_residency(struct model *m, const struct model_input *in,
			       struct schedstat_snapshot *s)
{
	struct model_freq_time *cum;
	size_t nr_cum, n = 0;
	int err = freq_cumulative(in, &cum, &nr_cum);

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

/* Every ordered pair of different clusters, so the table has one shape. */
static int fill_migrations(struct model *m, struct schedstat_snapshot *s)
{
	size_t n = s->nr_clusters, k = 0;

	if (n < 2)
		return 0;
	s->migrations = calloc(n * (n - 1), sizeof(*s->migrations));
	if (!s->migrations)
		return -ENOMEM;
	s->nr_migrations = n * (n - 1);
	for (size_t f = 0; f < n; f++) {
		for (size_t t = 0; t < n; t++) {
			if (f == t)
				continue;
			s->migrations[k].from = f;
			s->migrations[k++].to = t;
		}
	}
	for (size_t i = 0; i < m->nr_moves; i++) {
		size_t f = m->moves[i].from, t = m->moves[i].dest;

		if (f >= n || t >= n || f == t)
			continue;
		/* Row f holds the n - 1 targets in order, skipping f itself. */
		s->migrations[f * (n - 1) + (t < f ? t : t - 1)].count++;
	}
	for (size_t i = 0; i < s->nr_migrations && s->interval_ns; i++)
		s->migrations[i].per_sec = s->migrations[i].count * 1e9 / s->interval_ns;
	return 0;
}

/* Tasks are sorted by pid, and so are the moves: one merge pass. */
static void count_moves(struct model *m, struct schedstat_snapshot *s)
{
	size_t j = 0;

	for (size_t k = 0; k < m->nr_moves; k++) {
		struct schedstat_cluster *cl;

		if ((size_t)m->moves[k].dest >= s->nr_clusters)
			continue;
		cl = &s->clusters[m->moves[k].dest];
		if (m->moves[k].dir > 0)
			cl->up_migrations++;
		else if (m->moves[k].dir < 0)
			cl->down_migrations++;
	}
	/* qsort() wants an array even for none. */
	if (m->nr_moves)
		qsort(m->moves, m->nr_moves, sizeof(*m->moves), cmp_move);
	for (size_t i = 0; i < s->nr_tasks; i++) {
		struct schedstat_task *t = &s->tasks[i];

		while (j < m->nr_moves && m->moves[j].pid < t->pid)
			j++;
		/* An exited row and a live row may share a pid: count once. */
		if (i + 1 < s->nr_tasks && s->tasks[i + 1].pid == t->pid)
			continue;
		for (; j < m->nr_moves && m->moves[j].pid == t->pid; j++) {
			if (m->moves[j].dir > 0)
				t->up_migrations++;
			else if (m->moves[j].dir < 0)
				t->down_migrations++;
		}
	}
	m->nr_moves = 0;
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

static uint64_t delta(uint64_t now, uint64_t then)
{
	/* Counters never go back; a smaller value means a different task. */
	return now >= then ? now - then : now;
}

/* A CPU's PELT clock at @ts, extrapolated from its last root cfs_rq update. */
static uint64_t pelt_now(const struct st_cpu_state *c, uint64_t ts)
{
	if (!(c->seen & ST_SEEN_CFS))
		return 0;
	return c->cfs_lut + (ts > c->cfs_ts ? ts - c->cfs_ts : 0);
}

static const struct st_cpu_state *cpu_of(const struct model_input *in,
					 uint32_t cpu)
{
	static const struct st_cpu_state none;

	return cpu < in->nr_cpus ? &in->cpus[cpu] : &none;
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
	t->pelt_estimated = in->avail & SCHEDSTAT_AVAIL_PELT_ESTIMATED;
	now_pelt = pelt_now(cpu_of(in, r->cpu), in->ts_ns);
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
	t->run_ns = delta(r->sum_exec_runtime, base->sum_exec_runtime);
	t->wait_ns = delta(r->run_delay, base->run_delay);
	/*
	 * Without the sched_waking counter, count the sleeps that ended:
	 * every voluntary switch is the task blocking until a wakeup.
	 */
	if (in->avail & SCHEDSTAT_AVAIL_WAKEUPS)
		t->wakeups = delta(r->wakeups, base->wakeups);
	else
		t->wakeups = delta(r->nvcsw, base->nvcsw);
	t->migrations = delta(r->nr_migrations, base->nr_migrations);
	t->nvcsw = delta(r->nvcsw, base->nvcsw);
	t->nivcsw = delta(r->nivcsw, base->nivcsw);
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

static uint64_t idle_total(const struct st_cpu_state *c, uint64_t ts)
{
	return c->idle_ns + (c->idle_start && ts > c->idle_start ?
			     ts - c->idle_start : 0);
}

static uint32_t cpu_avail(uint32_t avail, uint32_t seen)
{
	static const struct { uint32_t avail, seen; } map[] = {
		{ SCHEDSTAT_AVAIL_CFS, ST_SEEN_CFS },
		{ SCHEDSTAT_AVAIL_RT, ST_SEEN_RT },
		{ SCHEDSTAT_AVAIL_DL, ST_SEEN_DL },
		{ SCHEDSTAT_AVAIL_IRQ, ST_SEEN_IRQ },
		{ SCHEDSTAT_AVAIL_HW, ST_SEEN_HW },
		{ SCHEDSTAT_AVAIL_CAPACITY_CFS, ST_SEEN_CAPACITY },
		{ SCHEDSTAT_AVAIL_FREQ, ST_SEEN_FREQ },
		{ SCHEDSTAT_AVAIL_IDLE, ST_SEEN_IDLE },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!(seen & map[i].seen))
			avail &= ~map[i].avail;
	/* Read from the runqueue (BPF): what this kernel keeps per CPU. */
	if ((seen & ST_SEEN_RQ) && !(seen & ST_SEEN_IDLE_TIME))
		avail &= ~SCHEDSTAT_AVAIL_BUSY;
	if ((seen & ST_SEEN_RQ) && !(seen & ST_SEEN_OVERUTILIZED))
		avail &= ~SCHEDSTAT_AVAIL_OVERUTILIZED;
	return avail;
}

/* A signal the kernel did not report is 0 in the row, never a stale value. */
static void clear_unavailable(struct schedstat_cpu *o)
{
	if (!(o->avail & SCHEDSTAT_AVAIL_CFS)) {
		o->util_avg = o->runnable_avg = 0;
		o->load_avg = 0;
	}
	if (!(o->avail & SCHEDSTAT_AVAIL_RT))
		o->rt_util = 0;
	if (!(o->avail & SCHEDSTAT_AVAIL_DL))
		o->dl_util = 0;
	if (!(o->avail & SCHEDSTAT_AVAIL_IRQ))
		o->irq_util = 0;
	if (!(o->avail & SCHEDSTAT_AVAIL_HW))
		o->hw_pressure = 0;
	if (!(o->avail & SCHEDSTAT_AVAIL_CAPACITY_CFS))
		o->capacity_cfs = 0;
	if (!(o->avail & SCHEDSTAT_AVAIL_FREQ))
		o->freq_khz = o->freq_avg_khz = 0;
	if (!(o->avail & SCHEDSTAT_AVAIL_BUSY))
		o->busy_ns = 0;
	if (!(o->avail & SCHEDSTAT_AVAIL_PREEMPT))
		o->nr_preempt = 0;
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

static void fill_cpus(struct model *m, const struct model_input *in,
		      struct schedstat_snapshot *s, const bool *cpu_running)
{
	uint64_t interval = s->interval_ns;

	for (size_t i = 0; i < s->nr_cpus; i++) {
		struct schedstat_cpu *o = &s->cpus[i];
		const struct st_cpu_state *c = cpu_of(in, i);
		const struct st_cpu_state *p = &m->prev_cpus[i];
		uint64_t idle;

		o->cpu = i;
		o->cluster = schedstat_topology_cpu_cluster(m->topo, i);
		o->online = cpuset_test(in->online, i);
		o->capacity = schedstat_topology_cpu_capacity(m->topo, i);
		o->capacity_cfs = c->capacity;
		o->util_avg = c->cfs_util;
		o->runnable_avg = c->cfs_runnable;
		o->load_avg = c->cfs_load;
		o->rt_util = c->rt_util;
		o->dl_util = c->dl_util;
		o->irq_util = c->irq_util;
		o->hw_pressure = c->hw_pressure;
		/* Read from the runqueue: the kernel's count and sum, not ours. */
		if (c->seen & ST_SEEN_RQ) {
			o->nr_running = c->nr_running;
			o->util_est = c->cfs_util_est;
		}
		o->avail = cpu_avail(in->avail, c->seen);
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
		o->nr_switches = delta(c->nr_switches, p->nr_switches);
		o->nr_preempt = delta(c->nr_preempt, p->nr_preempt);
		o->dropped = delta(c->dropped, p->dropped);
		/*
		 * sched_switch only sees idle periods that start after attach:
		 * a CPU idle throughout (no switch, nothing on it) is all idle.
		 * tick_sched's accounting (ST_SEEN_IDLE_TIME) has no such gap.
		 */
		if (!(c->seen & ST_SEEN_IDLE_TIME) && !o->nr_switches &&
		    !c->idle_start && !cpu_running[i])
			idle = interval;
		else
			idle = delta(idle_total(c, in->ts_ns),
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
		clear_unavailable(o);
	}
}

static uint64_t overutilized_total(const struct st_global_state *g, uint64_t ts)
{
	return g->overutilized_ns + (g->overutilized && ts > g->overutilized_since ?
				     ts - g->overutilized_since : 0);
}

/*
 * fits_capacity() of kernel/sched/fair.c: util fits with 20% to spare. A
 * task that does not fit is misfit only where a bigger cluster exists.
 */
static void mark_misfits(struct model *m, struct schedstat_snapshot *s)
{
	int top = s->nr_clusters ? (int)s->nr_clusters - 1 : 0;
	unsigned int biggest = schedstat_topology_cluster_capacity(m->topo, top);

	for (size_t i = 0; i < s->nr_tasks; i++) {
		struct schedstat_task *t = &s->tasks[i];
		const struct schedstat_cpu *c;
		uint64_t util, cap;

		if (t->exited || t->state != 'R' || !prio_is_fair(t->prio) ||
		    t->cpu < 0 || (size_t)t->cpu >= s->nr_cpus || t->cluster < 0)
			continue;
		c = &s->cpus[t->cpu];
		if (c->capacity >= biggest)
			continue;
		util = t->util_avg > t->util_est ? t->util_avg : t->util_est;
		cap = c->avail & SCHEDSTAT_AVAIL_CAPACITY_CFS ? c->capacity_cfs :
							       c->capacity;
		t->misfit = !fits_capacity(util, cap);
		if (t->misfit && (size_t)t->cluster < s->nr_clusters)
			s->clusters[t->cluster].misfit_tasks++;
	}
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

static void fill_clusters(struct model *m, const struct model_input *in,
			  struct schedstat_snapshot *s)
{
	const struct st_global_state *g = in->global;
	uint64_t ou_ns = 0;
	uint32_t cpu_bits;

	if ((in->avail & SCHEDSTAT_AVAIL_OVERUTILIZED_NS) && g && g->overutilized_seen) {
		uint64_t now = overutilized_total(g, in->ts_ns);
		uint64_t then = overutilized_total(&m->prev_global, m->prev_ts);

		ou_ns = now > then ? now - then : 0;
	}

	for (size_t k = 0; k < s->nr_clusters; k++) {
		struct schedstat_cluster *cl = &s->clusters[k];
		uint64_t util = 0, busy = 0;

		cl->id = k;
		snprintf(cl->name, sizeof(cl->name), "%s",
			 schedstat_topology_cluster_name(m->topo, k));
		schedstat_topology_cluster_cpulist(m->topo, k, cl->cpus,
						   sizeof(cl->cpus));
		cl->overutilized = (in->avail & SCHEDSTAT_AVAIL_OVERUTILIZED) &&
				   g && g->overutilized_seen ? (int)g->overutilized : -1;
		cl->overutilized_ns = ou_ns;
		/* Only what every online CPU of the cluster has (see below). */
		cpu_bits = ~0u;
		for (size_t i = 0; i < s->nr_cpus; i++) {
			const struct schedstat_cpu *c = &s->cpus[i];
			const struct st_cpu_state *st = cpu_of(in, i);

			if (c->cluster != (int)k || !c->online)
				continue;
			cpu_bits &= c->avail;
			/* The root domain's state, as read at the sample. */
			if (st->seen & ST_SEEN_OVERUTILIZED && st->overutilized >= 0)
				cl->overutilized = st->overutilized;
			cl->nr_online++;
			cl->capacity += c->capacity;
			cl->nr_running += c->nr_running;
			util += c->util_avg + c->rt_util + c->dl_util + c->irq_util;
			busy += c->busy_ns;
			if (c->freq_khz > cl->freq_khz) {
				cl->freq_khz = c->freq_khz;
				cl->freq_avg_khz = c->freq_avg_khz;
			}
		}
		cl->util_pct = cl->capacity ? 100.0 * util / cl->capacity : 0;
		cl->avail = in->avail & ~SCHEDSTAT_AVAIL_FREQ;
		/*
		 * util_pct needs every online CPU's cfs util, busy_pct every
		 * one's busy time: a sum with holes would be a wrong number.
		 */
		cl->avail &= cpu_bits | ~(SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_BUSY);
		if (!cl->nr_online)
			cl->avail &= ~(SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_BUSY);
		if (!(cl->avail & SCHEDSTAT_AVAIL_CFS))
			cl->util_pct = 0;
		if (cl->overutilized < 0)
			cl->avail &= ~SCHEDSTAT_AVAIL_OVERUTILIZED;
		if (!overutilized_ns_known(in, cl->overutilized)) {
			cl->avail &= ~SCHEDSTAT_AVAIL_OVERUTILIZED_NS;
			cl->overutilized_ns = 0;
		} else if (!(g && g->overutilized_seen)) {
			/* No flip since attach: the state held all along. */
			cl->overutilized_ns = cl->overutilized > 0 ? s->interval_ns : 0;
		}
		if (cl->freq_khz)
			cl->avail |= SCHEDSTAT_AVAIL_FREQ;
		cl->busy_pct = cl->nr_online && s->interval_ns &&
			       (cl->avail & SCHEDSTAT_AVAIL_BUSY) ?
			       100.0 * busy / ((double)s->interval_ns * cl->nr_online) : 0;
	}
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

static int cmp_group(const void *a, const void *b)
{
	const struct schedstat_group *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (x->cgroup_id != y->cgroup_id)
		return x->cgroup_id < y->cgroup_id ? -1 : 1;
	return x->cpu - y->cpu;
}

static int fill_groups(struct model *m, const struct model_input *in,
		       struct schedstat_snapshot *s)
{
	if (!in->nr_groups)
		return 0;
	s->groups = malloc(in->nr_groups * sizeof(*s->groups));
	if (!s->groups)
		return -ENOMEM;
	memcpy(s->groups, in->groups, in->nr_groups * sizeof(*s->groups));
	s->nr_groups = in->nr_groups;
	for (size_t i = 0; i < s->nr_groups; i++) {
		int c = schedstat_topology_cpu_cluster(m->topo, s->groups[i].cpu);

		s->groups[i].cluster = c < 0 ? -1 : c;
	}
	qsort(s->groups, s->nr_groups, sizeof(*s->groups), cmp_group);
	return 0;
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

/* Keep this sample's records and their index (cur_index) as the base. */
static int save_prev(struct model *m, const struct model_input *in)
{
	struct schedstat_hash *ix;
	struct st_task_rec *recs = NULL;
	bool *matched = NULL;
	size_t keep = 0;

	if (in->nr_tasks) {
		recs = malloc(in->nr_tasks * sizeof(*recs));
		matched = calloc(in->nr_tasks, sizeof(*matched));
		if (!recs || !matched) {
			free(recs);
			free(matched);
			return -ENOMEM;
		}
		memcpy(recs, in->tasks, in->nr_tasks * sizeof(*recs));
	}
	free(m->prev);
	free(m->prev_matched);
	m->prev = recs;
	m->prev_matched = matched;
	m->nr_prev = in->nr_tasks;
	for (size_t i = 0; i < (size_t)m->nr_cpus; i++) {
		m->prev_cpus[i] = *cpu_of(in, i);
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
	ix = m->prev_index;
	m->prev_index = m->cur_index;
	m->cur_index = ix;
	return 0;
}

int model_update(struct model *m, const struct model_input *in,
		 struct schedstat_snapshot **out)
{
	struct schedstat_snapshot *s = NULL;
	bool *cpu_running = NULL;
	size_t cap_tasks, n = 0;
	int err;

	*out = NULL;
	err = pid_index_build(m->cur_index, in->tasks, in->nr_tasks);
	if (err)
		return err;
	if (!m->have_baseline) {
		m->have_baseline = true;
		free(m->prev_freq);
		err = freq_cumulative(in, &m->prev_freq, &m->nr_prev_freq);
		if (!err)
			err = save_prev(m, in);
		goto cleanup;
	}
	err = -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto cleanup;
	s->ts_ns = in->ts_ns;
	s->interval_ns = in->ts_ns > m->prev_ts ? in->ts_ns - m->prev_ts : 0;
	s->avail = in->avail;
	cap_tasks = in->nr_tasks + m->nr_prev + m->nr_exits;
	s->tasks = calloc(cap_tasks ? cap_tasks : 1, sizeof(*s->tasks));
	s->nr_cpus = m->nr_cpus;
	s->cpus = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*s->cpus));
	s->nr_clusters = schedstat_topology_nr_clusters(m->topo);
	s->clusters = calloc(s->nr_clusters ? s->nr_clusters : 1,
			     sizeof(*s->clusters));
	cpu_running = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*cpu_running));
	if (!s->tasks || !s->cpus || !s->clusters || !cpu_running)
		goto cleanup;

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
	for (size_t i = 0; i < n && s->interval_ns; i++)
		s->tasks[i].cpu_pct = 100.0 * s->tasks[i].run_ns / s->interval_ns;
	qsort(s->tasks, n, sizeof(*s->tasks), cmp_task);
	err = fill_migrations(m, s);
	if (err)
		goto cleanup;
	count_moves(m, s);

	fill_cpus(m, in, s, cpu_running);
	fill_clusters(m, in, s);
	mark_misfits(m, s);
	err = fill_freq_residency(m, in, s);
	if (err)
		goto cleanup;
	err = fill_groups(m, in, s);
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
