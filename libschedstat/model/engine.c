// SPDX-License-Identifier: GPL-2.0
/*
 * Sched events in, task records and CPU state out (engine.h). The PELT part
 * follows kernel/sched/fair.c: a task's se.avg is updated at each event that
 * changes its state, with the flags of the state it was in (queued: load
 * and runnable; curr: running); a CPU's root cfs_rq is updated at each event
 * on that CPU with the weight and number of queued fair tasks. Migrating
 * tasks leave with their sums (detach) and bring them to the new CPU,
 * aligned to its period (attach).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "sched_kernel.h"

/* __trace_sched_switch_state(): the preempted and idle-report bits. */
#define SWITCH_PREEMPTED	0x100
#define SWITCH_REPORT_IDLE	0x80

struct etask {
	struct st_task_rec rec;
	struct pelt_avg avg;
	uint64_t on_cpu_since;		/* ts it was switched in */
	uint64_t queued_since;		/* ts it became runnable, 0: not */
	int32_t attached;		/* CPU whose cfs_rq holds its sums, -1 */
	bool dead;
	bool fair;
	/* Its values came from the kernel's own PELT events. */
	bool kernel_pelt;
	/*
	 * engine_task_clocks(): ran since it was last asked; its run time by
	 * the events and by the kernel then; the lost time credited since.
	 */
	bool ran;
	bool clock_known;
	bool clock_unsure;		/* a switch of it was made up since */
	uint64_t clock_events, clock_kernel;
	int64_t clock_lost;
};

struct ecpu {
	struct pelt_avg avg;		/* root cfs_rq */
	struct st_cpu_state st;
	struct st_hotplug hp;
	/* A cpuhp_multi_enter waiting for its cpuhp_exit (engine_hotplug). */
	struct {
		uint64_t ts;
		int32_t target, idx;
		bool set;
	} hp_multi;
	uint64_t clock;			/* trace time of its last event */
	uint64_t pelt;			/* rq_clock_pelt() at @clock */
	bool started;
	int32_t curr;			/* pid on the CPU, 0 idle, -1 unknown */
	int32_t curr_prio;
	bool curr_fair;
	/* First wakeup onto it since it went idle: when it left idle. */
	uint64_t idle_wake_ts;
	uint64_t curr_since;		/* the last switch */
	/* Its own last event: the task current then was still on it. */
	uint64_t seen_ts;
	/*
	 * Time the task clock lost to steal and interrupts (from
	 * sched_stat_runtime): all of it, the part the PELT clock has yet
	 * to skip, and when curr's run time was last accounted.
	 */
	uint64_t lag, lag_pending;
	uint64_t accounted_at;
	/* engine_lost_budget(): the last total, and what is left to credit. */
	uint64_t lost_total, lost_budget;
	bool lost_known;
	/*
	 * Its switches away from idle have gone missing from the trace
	 * before (the 6.18 test VM's second CPU): a snapshot taken while it
	 * looks idle with a task woken onto it shows that task running.
	 */
	bool drops_idle_switches;
	uint32_t nr_queued;		/* fair tasks queued, curr included */
	uint64_t load;			/* their weights */
	uint32_t capacity;
	uint32_t max_khz;
	/* Before 5.0: contributions scaled, the clock is the task clock. */
	bool scaled_contrib;
	bool kernel_pelt;	/* from the kernel's own PELT events */
};

struct engine {
	const struct schedstat_topology *topo;
	struct engine_hooks hooks;
	int nr_cpus;
	struct ecpu *cpus;
	struct etask *tasks;
	size_t nr_tasks, cap_tasks;
	/* pid -> index into tasks; a reused pid maps to its later entry. */
	struct schedstat_hash *pids;
	uint64_t last_ts;
	uint64_t time_travel;
	uint64_t implicit_switches;
	/* Output of engine_fill(). */
	struct st_task_rec *recs;
	uint8_t *recs_kernel;		/* kernel PELT values, per recs[] */
	size_t cap_recs, cap_recs_kernel;
	uint8_t *cpu_kernel;
	struct st_cpu_state *cpu_out;
	struct st_hotplug *hp_out;
	struct model_freq_time *freqs;
	size_t nr_freqs, cap_freqs;
};

static int pids_rebuild(struct engine *e)
{
	schedstat_hash_clear(e->pids);
	/* In order, so that the later entry of a reused pid wins. */
	for (size_t i = 0; i < e->nr_tasks; i++)
		if (schedstat_hash_put(e->pids, (uint32_t)e->tasks[i].rec.pid, i))
			return -ENOMEM;
	return 0;
}

static struct etask *find(struct engine *e, int32_t pid)
{
	uint64_t i;

	if (schedstat_hash_get(e->pids, (uint32_t)pid, &i))
		return NULL;
	return &e->tasks[i];
}

static void set_comm(struct etask *t, const char *comm)
{
	if (comm && comm[0])
		strncpy(t->rec.comm, comm, sizeof(t->rec.comm) - 1);
}

static struct etask *add_task(struct engine *e, int32_t pid, int32_t prio,
			      const char *comm, uint64_t ts)
{
	struct etask *t;

	if (array_reserve((void **)&e->tasks, &e->cap_tasks, e->nr_tasks + 1,
			  sizeof(*e->tasks)))
		return NULL;
	t = &e->tasks[e->nr_tasks++];
	memset(t, 0, sizeof(*t));
	t->rec.pid = pid;
	t->rec.tgid = e->hooks.tgid ? e->hooks.tgid(e->hooks.ctx, pid) : 0;
	if (t->rec.tgid <= 0)
		t->rec.tgid = pid;
	t->rec.prio = prio;
	t->rec.cpu = 0;
	/* Tells this task from a later one reusing its pid (model.c). */
	t->rec.start_time = ts;
	t->rec.state = 1;		/* S until seen otherwise */
	t->attached = -1;
	t->fair = prio_is_fair(prio);
	set_comm(t, comm);
	if (schedstat_hash_put(e->pids, (uint32_t)pid, e->nr_tasks - 1)) {
		e->nr_tasks--;
		return NULL;
	}
	return t;
}

/* The live entry for @pid, or a new one when unknown or exited. */
static struct etask *get_task(struct engine *e, int32_t pid, int32_t prio,
			      const char *comm, uint64_t ts)
{
	struct etask *t = find(e, pid);

	if (t && !t->dead) {
		set_comm(t, comm);
		return t;
	}
	return add_task(e, pid, prio, comm, ts);
}

static struct ecpu *cpu_at(struct engine *e, int cpu)
{
	return cpu >= 0 && cpu < e->nr_cpus ? &e->cpus[cpu] : NULL;
}

/*
 * arch_scale_freq_capacity(): cur/max of 1024, full when either is
 * unknown (the kernel's default without a cpufreq driver that sets it).
 */
static uint32_t freq_scale(const struct ecpu *c)
{
	if (!c->st.freq_khz || !c->max_khz || c->st.freq_khz >= c->max_khz)
		return PELT_SCALE_ONE;
	return (uint64_t)c->st.freq_khz * PELT_SCALE_ONE / c->max_khz;
}

/* pelt_update() as the CPU's kernel did it: scaled clock or contributions. */
static bool cpu_pelt_update(const struct ecpu *c, struct pelt_avg *sa,
			    uint64_t now, uint64_t load, uint64_t runnable,
			    int running, uint64_t weight)
{
	if (!c->scaled_contrib)
		return pelt_update(sa, now, load, runnable, running, weight);
	return pelt_update_scaled(sa, now, load, runnable, running, weight,
				  freq_scale(c), c->capacity);
}

/*
 * rq_clock_pelt(): while the CPU works, time counts at its capacity and
 * clock (a LITTLE core at half speed accrues half as much); once idle,
 * the kernel resyncs it with the task clock (update_idle_rq_clock_pelt()).
 */
static void advance_clock(struct ecpu *c, uint64_t ts)
{
	uint64_t d;

	if (!c->started) {
		c->started = true;
		c->clock = c->pelt = ts;
		c->avg.last_update_time = ts;
		return;
	}
	if (ts <= c->clock)
		return;
	d = ts - c->clock;
	c->clock = ts;
	/* Before 5.0, rq_clock_task(): scaling happens in pelt.c. */
	if (c->curr == 0 || c->scaled_contrib) {
		/* The task clock, which lags trace time by what was lost. */
		if (ts - c->lag > c->pelt)
			c->pelt = ts - c->lag;
		c->lag_pending = 0;
		return;
	}
	if (c->lag_pending) {
		uint64_t skip = d < c->lag_pending ? d : c->lag_pending;

		d -= skip;
		c->lag_pending -= skip;
	}
	if (c->st.freq_khz && c->max_khz && c->st.freq_khz < c->max_khz)
		d = d * c->st.freq_khz / c->max_khz;
	c->pelt += d * c->capacity >> 10;
}

/* update_cfs_rq_load_avg() up to @ts with the CPU's current flags. */
static void update_cpu(struct ecpu *c, uint64_t ts)
{
	advance_clock(c, ts);
	cpu_pelt_update(c, &c->avg, c->pelt, c->load, c->nr_queued,
			c->curr_fair, 1);
}

/*
 * __update_load_avg_se() of @t up to @ts, in the flags it had until then.
 * A switch the trace lacks is made up late, dated back (engine_current()):
 * the CPU's clock may be past @ts already, the task's is not.
 */
static void update_task(struct engine *e, struct etask *t, uint64_t ts)
{
	struct ecpu *c = cpu_at(e, t->attached);
	bool queued = t->rec.on_rq;
	uint64_t now;

	if (!c || !t->fair)
		return;
	update_cpu(c, ts);
	now = c->pelt;
	if (ts < c->clock)
		now = c->pelt > c->clock - ts ? c->pelt - (c->clock - ts) : 0;
	if (now < t->avg.last_update_time)
		now = t->avg.last_update_time;
	cpu_pelt_update(c, &t->avg, now, queued, queued, t->rec.on_cpu,
			pelt_prio_weight(t->rec.prio));
}

static void sub_clamped(uint64_t *v, uint64_t by)
{
	*v = *v > by ? *v - by : 0;
}

/* detach_entity_load_avg(): the CPU's sums lose the task's. */
static void detach(struct engine *e, struct etask *t)
{
	struct ecpu *c = cpu_at(e, t->attached);
	uint64_t util_sum;

	if (!c)
		return;
	sub_clamped(&c->avg.util_avg, t->avg.util_avg);
	util_sum = c->avg.util_sum;
	sub_clamped(&util_sum, t->avg.util_sum);
	/* Rounding must not leave a sum below what its average implies. */
	if (util_sum < c->avg.util_avg * PELT_MIN_DIVIDER)
		util_sum = c->avg.util_avg * PELT_MIN_DIVIDER;
	c->avg.util_sum = util_sum;
	sub_clamped(&c->avg.runnable_avg, t->avg.runnable_avg);
	sub_clamped(&c->avg.runnable_sum, t->avg.runnable_sum);
	if (c->avg.runnable_sum < c->avg.runnable_avg * PELT_MIN_DIVIDER)
		c->avg.runnable_sum = c->avg.runnable_avg * PELT_MIN_DIVIDER;
	sub_clamped(&c->avg.load_avg, t->avg.load_avg);
	sub_clamped(&c->avg.load_sum, t->avg.load_sum);
	if (c->avg.load_sum < c->avg.load_avg * PELT_MIN_DIVIDER)
		c->avg.load_sum = c->avg.load_avg * PELT_MIN_DIVIDER;
	t->attached = -1;
}

/*
 * attach_entity_load_avg(): the task takes the CPU's period alignment, its
 * sums are rebuilt from its averages, and the CPU's sums gain them.
 */
static void attach(struct engine *e, struct etask *t, int cpu, uint64_t ts)
{
	struct ecpu *c = cpu_at(e, cpu);
	uint32_t divider;
	uint64_t weight = pelt_prio_weight(t->rec.prio);

	if (!c)
		return;
	update_cpu(c, ts);
	divider = PELT_MIN_DIVIDER + c->avg.period_contrib;
	t->avg.last_update_time = c->avg.last_update_time;
	t->avg.period_contrib = c->avg.period_contrib;
	t->avg.util_sum = t->avg.util_avg * divider;
	t->avg.runnable_sum = t->avg.runnable_avg * divider;
	t->avg.load_sum = t->avg.load_avg * divider;
	t->avg.load_sum = weight < t->avg.load_sum ? t->avg.load_sum / weight : 1;
	c->avg.util_avg += t->avg.util_avg;
	c->avg.util_sum += t->avg.util_sum;
	c->avg.runnable_avg += t->avg.runnable_avg;
	c->avg.runnable_sum += t->avg.runnable_sum;
	c->avg.load_avg += t->avg.load_avg;
	c->avg.load_sum += t->avg.load_sum;
	t->attached = cpu;
}

/*
 * init_entity_runnable_average() and post_init_entity_util_avg(): a new
 * task starts with its full weight as load and a share of its CPU's util,
 * at most half the spare capacity.
 */
static void init_new(struct engine *e, struct etask *t, int cpu, uint64_t ts)
{
	struct ecpu *c = cpu_at(e, cpu);
	uint64_t weight = pelt_prio_weight(t->rec.prio);
	int64_t cap;

	memset(&t->avg, 0, sizeof(t->avg));
	if (!c || !t->fair)
		return;
	update_cpu(c, ts);
	t->avg.load_avg = weight;
	/* Before 5.0 the share was of SCHED_CAPACITY_SCALE, on every CPU. */
	cap = ((int64_t)(c->scaled_contrib ? PELT_SCALE_ONE : c->capacity) -
	       (int64_t)c->avg.util_avg) / 2;
	if (cap > 0) {
		if (c->avg.util_avg) {
			t->avg.util_avg = c->avg.util_avg * weight /
					  (c->avg.load_avg + 1);
			if (t->avg.util_avg > (uint64_t)cap)
				t->avg.util_avg = cap;
		} else {
			t->avg.util_avg = cap;
		}
	}
	t->avg.runnable_avg = t->avg.util_avg;
	attach(e, t, cpu, ts);
}

static void enqueue(struct engine *e, struct etask *t, int cpu, uint64_t ts)
{
	struct ecpu *c = cpu_at(e, cpu);

	if (t->rec.on_rq || !c)
		return;
	update_task(e, t, ts);
	if (t->fair && t->attached != cpu) {
		detach(e, t);
		attach(e, t, cpu, ts);
	}
	if (t->fair) {
		update_cpu(c, ts);
		c->nr_queued++;
		c->load += pelt_prio_weight(t->rec.prio);
	}
	if (c->curr == 0 && !c->idle_wake_ts)
		c->idle_wake_ts = ts;
	t->rec.on_rq = 1;
	t->rec.cpu = cpu;
	t->rec.state = 0;
	t->queued_since = ts;
}

static void dequeue(struct engine *e, struct etask *t, uint64_t ts)
{
	struct ecpu *c = cpu_at(e, t->rec.cpu);

	if (!t->rec.on_rq)
		return;
	update_task(e, t, ts);
	if (t->fair && c) {
		update_cpu(c, ts);
		if (c->nr_queued)
			c->nr_queued--;
		sub_clamped(&c->load, pelt_prio_weight(t->rec.prio));
	}
	t->rec.on_rq = 0;
	t->queued_since = 0;
}

/* A clock going back is counted and clamped (perf sched's "time travel"). */
static uint64_t check_time(struct engine *e, uint64_t ts)
{
	if (ts < e->last_ts) {
		e->time_travel++;
		return e->last_ts;
	}
	e->last_ts = ts;
	return ts;
}

static uint32_t switch_state(uint64_t prev_state)
{
	if (prev_state == SWITCH_REPORT_IDLE)
		return TASK_IDLE;
	return prev_state & (TASK_REPORT | MODEL_STATE_DEAD);
}

static void switch_out(struct engine *e, struct ecpu *c, struct etask *t,
		       uint64_t ts, uint64_t prev_state)
{
	bool runnable = !(prev_state & (0xff | MODEL_STATE_DEAD));

	update_task(e, t, ts);
	if (t->rec.on_cpu && ts > t->on_cpu_since)
		t->rec.sum_exec_runtime += ts - t->on_cpu_since;
	t->ran = true;
	if (runnable) {
		/* Still queued, waiting for its next turn. */
		t->rec.nivcsw++;
		c->st.nr_preempt++;
		t->rec.on_cpu = 0;
		t->rec.state = 0;
		t->queued_since = ts;
		return;
	}
	t->rec.nvcsw++;
	dequeue(e, t, ts);
	t->rec.on_cpu = 0;
	t->rec.state = switch_state(prev_state);
}

static void switch_in(struct engine *e, int cpu, struct etask *t, uint64_t ts)
{
	if (t->fair && t->attached >= 0 && t->attached != cpu) {
		/* A migration we did not see (lost events). */
		dequeue(e, t, ts);
		detach(e, t);
	}
	if (!t->rec.on_rq)
		enqueue(e, t, cpu, ts);
	if (t->fair && t->attached < 0)
		attach(e, t, cpu, ts);
	update_task(e, t, ts);
	if (t->queued_since && ts > t->queued_since)
		t->rec.run_delay += ts - t->queued_since;
	t->queued_since = 0;
	t->rec.on_cpu = 1;
	t->rec.cpu = cpu;
	t->rec.state = 0;
	t->on_cpu_since = ts;
}

static int do_switch(struct engine *e, uint64_t ts, struct ecpu *c, int cpu,
		     int32_t prev_pid, int32_t prev_prio, uint64_t prev_state,
		     const char *prev_comm, int32_t next_pid, int32_t next_prio,
		     const char *next_comm)
{
	struct etask *prev = NULL, *next = NULL;

	update_cpu(c, ts);
	prev = prev_pid > 0 ? find(e, prev_pid) : NULL;
	/* The last switch of an exited task: nothing left to track. */
	if (prev && prev->dead) {
		prev = NULL;
	} else if (prev_pid > 0) {
		if (!prev)
			prev = add_task(e, prev_pid, prev_prio, prev_comm, ts);
		if (!prev)
			return -ENOMEM;
		prev->rec.prio = prev_prio;
		prev->fair = prio_is_fair(prev_prio);
		set_comm(prev, prev_comm);
		if (!prev->rec.on_cpu || prev->rec.cpu != (uint32_t)cpu) {
			/* First sight: it was running here, queued. */
			prev->rec.on_cpu = 1;
			prev->on_cpu_since = ts;
			if (!prev->rec.on_rq)
				enqueue(e, prev, cpu, ts);
			prev->rec.on_cpu = 1;
		}
	}
	if (prev)
		switch_out(e, c, prev, ts, prev_state);
	if (next_pid > 0) {
		next = get_task(e, next_pid, next_prio, next_comm, ts);
		if (!next)
			return -ENOMEM;
		if (next->rec.prio != next_prio && next->rec.on_rq && next->fair)
			/* A prio change while queued: reweight (approximately). */
			c->load += pelt_prio_weight(next_prio) -
				   pelt_prio_weight(next->rec.prio);
		next->rec.prio = next_prio;
		next->fair = prio_is_fair(next_prio);
		switch_in(e, cpu, next, ts);
	}
	c->curr = next_pid;
	c->curr_prio = next_prio;
	c->idle_wake_ts = 0;
	c->curr_since = ts;
	c->curr_fair = next && next->fair;
	c->st.nr_switches++;
	if (next_pid == 0 && !c->st.idle_start) {
		c->st.idle_start = ts;
	} else if (prev_pid == 0 && c->st.idle_start) {
		c->st.idle_ns += ts - c->st.idle_start;
		c->st.idle_start = 0;
	}
	return 0;
}

int engine_switch(struct engine *e, uint64_t ts, int cpu,
		  int32_t prev_pid, int32_t prev_prio, uint64_t prev_state,
		  const char *prev_comm, int32_t next_pid, int32_t next_prio,
		  const char *next_comm)
{
	struct ecpu *c = cpu_at(e, cpu);
	int err;

	if (!c)
		return 0;
	err = engine_current(e, ts, cpu, prev_pid);
	if (err)
		return err;
	return do_switch(e, check_time(e, ts), c, cpu, prev_pid, prev_prio,
			 prev_state, prev_comm, next_pid, next_prio, next_comm);
}

/* Steal and irq time: the PELT clock skips it at the next busy time. */
static void lost_time(struct ecpu *c, uint64_t ns)
{
	c->lag += ns;
	c->lag_pending += ns;
}

void engine_runtime(struct engine *e, uint64_t ts, int cpu, int32_t pid,
		    uint64_t runtime_ns)
{
	struct ecpu *c = cpu_at(e, cpu);
	uint64_t since, wall;

	if (!c || c->curr != pid || pid <= 0)
		return;
	since = c->accounted_at > c->curr_since ? c->accounted_at : c->curr_since;
	c->accounted_at = ts;
	if (ts <= since)
		return;
	wall = ts - since;
	if (runtime_ns < wall)
		lost_time(c, wall - runtime_ns);
}

void engine_task_clocks(struct engine *e)
{
	if (!e->hooks.task_clock)
		return;
	for (size_t i = 0; i < e->nr_tasks; i++) {
		struct etask *t = &e->tasks[i];
		struct ecpu *c = cpu_at(e, t->rec.cpu);
		uint64_t kernel;
		int64_t lost;

		/* A running task's kernel count is as old as its last tick. */
		if (!t->ran || t->dead || t->rec.on_cpu || !c)
			continue;
		t->ran = false;
		if (e->hooks.task_clock(e->hooks.ctx, t->rec.pid, &kernel))
			continue;
		/*
		 * A made-up switch is dated by a guess (engine_current()): its
		 * run time says nothing about steal. Start again from here.
		 */
		if (!t->clock_known || t->clock_unsure ||
		    /* It ran by the events, not by the kernel: not its events. */
		    (kernel == t->clock_kernel &&
		     t->rec.sum_exec_runtime != t->clock_events)) {
			t->clock_known = true;
			t->clock_unsure = false;
			t->clock_lost = 0;
			t->clock_events = t->rec.sum_exec_runtime;
			t->clock_kernel = kernel;
			continue;
		}
		lost = (int64_t)(t->rec.sum_exec_runtime - t->clock_events) -
		       (int64_t)(kernel - t->clock_kernel);
		/*
		 * Switch times jitter either way against the kernel's clock
		 * reads: only what grows beyond all that was credited counts.
		 */
		if (lost > t->clock_lost) {
			uint64_t credit = lost - t->clock_lost;

			if (credit > c->lost_budget)
				credit = c->lost_budget;
			c->lost_budget -= credit;
			lost_time(c, credit);
			t->clock_lost += credit;
		}
	}
}

void engine_lost_budget(struct engine *e, int cpu, uint64_t total_ns)
{
	struct ecpu *c = cpu_at(e, cpu);

	if (!c)
		return;
	if (c->lost_known && total_ns > c->lost_total)
		c->lost_budget += total_ns - c->lost_total;
	c->lost_total = total_ns;
	c->lost_known = true;
}

int engine_current(struct engine *e, uint64_t ts, int cpu, int32_t pid)
{
	struct ecpu *c = cpu_at(e, cpu);
	uint64_t seen;
	struct etask *t;

	if (!c)
		return 0;
	seen = c->seen_ts;
	if (ts > c->seen_ts)
		c->seen_ts = ts;
	if (c->curr < 0 || c->curr == pid)
		return 0;
	/*
	 * Another task is current than the last switch said: its switch
	 * went unrecorded (a lost event, or a task whose own events tracefs
	 * does not record). It left before this event; as what, nobody
	 * knows: take it as asleep, a later switch-in queues it again.
	 */
	e->implicit_switches++;
	t = pid > 0 ? find(e, pid) : NULL;
	if (t)
		t->clock_unsure = true;
	if (c->curr > 0 && find(e, c->curr))
		find(e, c->curr)->clock_unsure = true;
	/*
	 * An idle CPU leaves idle at the first wakeup onto it, whichever of
	 * the tasks woken then it picks (on some kernels tracefs drops exactly
	 * these switches away from idle): date the switch there. A task woken
	 * onto a busy CPU mostly preempts at once: date it to its wakeup.
	 * A task queued here since before (woken or preempted earlier) takes
	 * the CPU back when the one on it leaves, and the tasks whose switches
	 * away tracefs does not record (the test VM's tokio-rt-worker: 43
	 * switches in, none out in a 6 s trace) leave within microseconds:
	 * date it to the CPU's last event, where the one on it was still seen
	 * (dated to its own next event, a preempted duty60 lost 7.2 ms of run
	 * and 48 of util at the next sample). Otherwise it may have happened
	 * at any time until now: date it now.
	 */
	ts = check_time(e, ts);
	if (c->curr == 0 && pid > 0)
		c->drops_idle_switches = true;
	if (c->curr == 0 && c->idle_wake_ts && c->idle_wake_ts < ts) {
		ts = c->idle_wake_ts;
	} else if (c->curr > 0 && t && !t->dead && t->rec.on_rq &&
		   t->rec.cpu == (uint32_t)cpu && t->queued_since) {
		uint64_t from = t->queued_since > seen ? t->queued_since : seen;

		if (from < ts)
			ts = from;
	}
	return do_switch(e, ts, c, cpu, c->curr, c->curr_prio, 1, NULL, pid,
			 t ? t->rec.prio : DEFAULT_PRIO, NULL);
}

int engine_waking(struct engine *e, uint64_t ts, int32_t pid, const char *comm)
{
	struct etask *t = find(e, pid);

	check_time(e, ts);
	if (t && !t->dead)
		t->rec.wakeups++;
	return 0;
}

int engine_wakeup(struct engine *e, uint64_t ts, int32_t pid, int32_t prio,
		  int cpu, const char *comm, bool new_task)
{
	struct etask *t;

	if (!cpu_at(e, cpu))
		return 0;
	ts = check_time(e, ts);
	t = get_task(e, pid, prio, comm, ts);
	if (!t)
		return -ENOMEM;
	t->rec.prio = prio;
	t->fair = prio_is_fair(prio);
	if (new_task) {
		t->rec.start_time = ts;
		init_new(e, t, cpu, ts);
	}
	enqueue(e, t, cpu, ts);
	return 0;
}

int engine_migrate(struct engine *e, uint64_t ts, int32_t pid, int32_t prio,
		   int orig_cpu, int dest_cpu, const char *comm)
{
	struct etask *t;
	bool queued;

	if (!cpu_at(e, dest_cpu))
		return 0;
	ts = check_time(e, ts);
	t = get_task(e, pid, prio, comm, ts);
	if (!t)
		return -ENOMEM;
	queued = t->rec.on_rq;
	/* Load balancing moves a queued task: off one runqueue, onto another. */
	if (queued)
		dequeue(e, t, ts);
	else
		update_task(e, t, ts);
	if (t->fair) {
		detach(e, t);
		attach(e, t, dest_cpu, ts);
	}
	t->rec.cpu = dest_cpu;
	t->rec.nr_migrations++;
	if (queued)
		enqueue(e, t, dest_cpu, ts);
	if (e->hooks.migrate)
		e->hooks.migrate(e->hooks.ctx, &t->rec, orig_cpu, dest_cpu, ts);
	return 0;
}

int engine_exit(struct engine *e, uint64_t ts, int32_t pid, const char *comm)
{
	struct etask *t = find(e, pid);

	ts = check_time(e, ts);
	if (!t || t->dead)
		return 0;
	update_task(e, t, ts);
	if (t->rec.on_cpu && ts > t->on_cpu_since) {
		t->rec.sum_exec_runtime += ts - t->on_cpu_since;
		t->on_cpu_since = ts;
	}
	set_comm(t, comm);
	t->rec.exit_state = EXIT_DEAD;
	if (e->hooks.exit)
		e->hooks.exit(e->hooks.ctx, &t->rec, ts);
	/* task_dead_fair(): its contribution leaves the CPU now. */
	dequeue(e, t, ts);
	detach(e, t);
	t->dead = true;
	return 0;
}

void engine_freq(struct engine *e, uint64_t ts, int cpu, uint32_t khz)
{
	struct ecpu *c = cpu_at(e, cpu);

	if (!c)
		return;
	ts = check_time(e, ts);
	/* The time so far ran at the old clock. */
	update_cpu(c, ts);
	/*
	 * Before 5.0 the kernel scaled what accrued since an entity's last
	 * update by the frequency at the update: the running task's ticks
	 * (every 1-10 ms) applied the old one to nearly all of its run so far.
	 * The engine sees no ticks: it updates the task here instead.
	 */
	if (c->scaled_contrib && c->curr > 0) {
		struct etask *t = find(e, c->curr);

		if (t && !t->dead)
			update_task(e, t, ts);
	}
	if (c->st.seen & ST_SEEN_FREQ) {
		uint64_t spent = ts - c->st.freq_ts;
		size_t i;

		c->st.freq_khz_us += (uint64_t)c->st.freq_khz * (spent / 1000);
		for (i = 0; i < e->nr_freqs; i++)
			if (e->freqs[i].cpu == (uint32_t)cpu &&
			    e->freqs[i].khz == c->st.freq_khz)
				break;
		if (i == e->nr_freqs &&
		    !array_reserve((void **)&e->freqs, &e->cap_freqs,
				   e->nr_freqs + 1, sizeof(*e->freqs)))
			e->freqs[e->nr_freqs++] = (struct model_freq_time){
				cpu, c->st.freq_khz, 0 };
		if (i < e->nr_freqs)
			e->freqs[i].ns += spent;
	}
	c->st.freq_khz = khz;
	c->st.freq_ts = ts;
	c->st.seen |= ST_SEEN_FREQ;
}

void engine_idle(struct engine *e, uint64_t ts, int cpu, int32_t state)
{
	struct ecpu *c = cpu_at(e, cpu);

	if (!c)
		return;
	ts = check_time(e, ts);
	if (state >= 0) {
		c->st.cstate = state;
		c->st.cstate_ts = ts;
		c->st.seen |= ST_SEEN_IDLE;
		return;
	}
	if (c->st.cstate >= 0 && c->st.cstate_ts) {
		int s = c->st.cstate < ST_IDLE_STATES ? c->st.cstate :
			ST_IDLE_STATES - 1;

		c->st.cstate_ns[s] += ts - c->st.cstate_ts;
	}
	c->st.cstate = -1;
}

static void hotplug_step(struct ecpu *c, uint64_t ts, int32_t target,
			 int32_t idx)
{
	uint32_t up = idx <= target;

	/*
	 * As in the BPF program: an operation is the run of steps in one
	 * direction (a step runs state idx towards target: up while
	 * idx <= target); the target changes halfway through either way.
	 */
	if (!c->hp.ops || c->hp.up != up) {
		c->hp.ops++;
		c->hp.first = ts;
		c->hp.up = up;
	}
	c->hp.target = target;
	c->hp.last = ts;
}

void engine_hotplug(struct engine *e, uint64_t ts, int cpu,
		    int32_t target_or_state, int32_t idx,
		    enum engine_hp_event ev)
{
	struct ecpu *c = cpu_at(e, cpu);

	if (!c)
		return;
	ts = check_time(e, ts);
	switch (ev) {
	case ENGINE_HP_ENTER:
		hotplug_step(c, ts, target_or_state, idx);
		return;
	case ENGINE_HP_MULTI_ENTER:
		/*
		 * Also runs when an instance is added or removed on a CPU
		 * that stays as it is (each new tracefs instance adds one on
		 * every CPU): its cpuhp_exit tells (on_cpuhp_multi_enter in
		 * the BPF program says how).
		 */
		c->hp_multi.ts = ts;
		c->hp_multi.target = target_or_state;
		c->hp_multi.idx = idx;
		c->hp_multi.set = true;
		return;
	case ENGINE_HP_EXIT:
		if (c->hp_multi.set) {
			c->hp_multi.set = false;
			if (target_or_state != c->hp_multi.idx &&
			    target_or_state != c->hp_multi.idx - 1)
				return;
			hotplug_step(c, c->hp_multi.ts, c->hp_multi.target,
				     c->hp_multi.idx);
		}
		c->hp.last = ts;
		return;
	}
}

/*
 * @sa, just brought to now, takes the kernel's averages; its sums follow
 * them as attach_entity_load_avg() rebuilds sums from averages, so that
 * the next update decays and accrues from the kernel's values.
 */
static void take_kernel_avg(struct pelt_avg *sa, const struct engine_kernel_pelt *k,
			    uint64_t weight)
{
	uint32_t divider = PELT_MIN_DIVIDER + sa->period_contrib;

	if (k->util) {
		sa->util_avg = *k->util;
		sa->util_sum = sa->util_avg * divider;
	}
	if (k->runnable) {
		sa->runnable_avg = *k->runnable;
		sa->runnable_sum = sa->runnable_avg * divider;
	}
	if (k->load) {
		sa->load_avg = *k->load;
		sa->load_sum = weight ? sa->load_avg * divider / weight : 0;
	}
}

void engine_kernel_task_pelt(struct engine *e, uint64_t ts, int32_t pid,
			     const struct engine_kernel_pelt *k)
{
	struct etask *t = find(e, pid);
	struct ecpu *c;

	if (!t || t->dead || !t->fair)
		return;
	ts = check_time(e, ts);
	c = cpu_at(e, t->attached);
	if (c) {
		/* Detached from the CPU's sums as it was, attached as it is. */
		update_task(e, t, ts);
		sub_clamped(&c->avg.util_avg, t->avg.util_avg);
		sub_clamped(&c->avg.runnable_avg, t->avg.runnable_avg);
		sub_clamped(&c->avg.load_avg, t->avg.load_avg);
	}
	take_kernel_avg(&t->avg, k, pelt_prio_weight(t->rec.prio));
	if (c && !c->kernel_pelt) {
		c->avg.util_avg += t->avg.util_avg;
		c->avg.runnable_avg += t->avg.runnable_avg;
		c->avg.load_avg += t->avg.load_avg;
	}
	t->kernel_pelt = true;
}

void engine_kernel_cpu_pelt(struct engine *e, uint64_t ts, int cpu,
			    const struct engine_kernel_pelt *k)
{
	struct ecpu *c = cpu_at(e, cpu);

	if (!c)
		return;
	update_cpu(c, check_time(e, ts));
	take_kernel_avg(&c->avg, k, 1);
	c->kernel_pelt = true;
}

void engine_set_pelt_scheme(struct engine *e, bool scaled_contrib)
{
	for (int i = 0; i < e->nr_cpus; i++)
		e->cpus[i].scaled_contrib = scaled_contrib;
}

void engine_set_max_freq(struct engine *e, int cpu, uint32_t khz)
{
	struct ecpu *c = cpu_at(e, cpu);

	if (c && khz)
		c->max_khz = khz;
}

uint32_t engine_max_freq(const struct engine *e, int cpu)
{
	return cpu >= 0 && cpu < e->nr_cpus ? e->cpus[cpu].max_khz : 0;
}

void engine_set_dropped(struct engine *e, int cpu, uint64_t dropped)
{
	struct ecpu *c = cpu_at(e, cpu);

	if (c)
		c->st.dropped = dropped;
}

int engine_seed(struct engine *e, const struct engine_seed *seed, uint64_t ts)
{
	struct etask *t = get_task(e, seed->pid, seed->prio, seed->comm, ts);
	struct ecpu *c = cpu_at(e, seed->cpu);

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
		attach(e, t, seed->cpu, ts);
	if (seed->runnable)
		enqueue(e, t, seed->cpu, ts);
	return 0;
}

/* The CPU's PELT values brought forward to @ts, without changing it. */
static void cpu_out(struct engine *e, struct ecpu *c, uint64_t ts,
		    struct st_cpu_state *out)
{
	struct ecpu copy = *c;

	*out = c->st;
	if (!c->started)
		return;
	update_cpu(&copy, ts);
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
	struct ecpu *c = cpu_at(e, t->attached);
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

		update_cpu(&cc, ts);
		cpu_pelt_update(&cc, &a, cc.pelt, t->rec.on_rq, t->rec.on_rq,
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
	if (array_reserve((void **)&e->recs, &e->cap_recs, e->nr_tasks + 1,
			  sizeof(*e->recs)) ||
	    array_reserve((void **)&e->recs_kernel, &e->cap_recs_kernel,
			  e->nr_tasks + 1, sizeof(*e->recs_kernel)))
		return -ENOMEM;
	for (int i = 0; i < e->nr_cpus; i++) {
		cpu_out(e, &e->cpus[i], ts, &e->cpu_out[i]);
		e->hp_out[i] = e->cpus[i].hp;
		e->cpu_kernel[i] = e->cpus[i].kernel_pelt;
	}
	for (size_t i = 0; i < e->nr_tasks; i++) {
		e->recs_kernel[n] = e->tasks[i].kernel_pelt;
		task_out(e, &e->tasks[i], ts, e->cpu_out, &e->recs[n++]);
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
	return 0;
}

uint64_t engine_implicit_switches(const struct engine *e)
{
	return e->implicit_switches;
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
