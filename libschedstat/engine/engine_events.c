// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's event handling: each sched, power and cpuhp event (engine.h)
 * moves a task between running, queued and asleep, or changes a CPU's
 * frequency, idle state or hotplug step, bringing PELT (engine_pelt.c) up
 * to the event's time first; the kernel's own PELT events replace the
 * engine's values with the kernel's.
 */
#include <errno.h>

#include "engine_local.h"
#include "sched_kernel.h"

/* __trace_sched_switch_state(): the preempted and idle-report bits. */
#define SWITCH_PREEMPTED	0x100
#define SWITCH_REPORT_IDLE	0x80

void engine_enqueue(struct engine *e, struct etask *t, int cpu, uint64_t ts)
{
	struct ecpu *c = engine_cpu_at(e, cpu);

	if (t->rec.on_rq || !c)
		return;
	engine_update_task(e, t, ts);
	if (t->fair && t->attached != cpu) {
		engine_detach(e, t);
		engine_attach(e, t, cpu, ts);
	}
	if (t->fair) {
		engine_update_cpu(c, ts);
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

void engine_dequeue(struct engine *e, struct etask *t, uint64_t ts)
{
	struct ecpu *c = engine_cpu_at(e, t->rec.cpu);

	if (!t->rec.on_rq)
		return;
	engine_update_task(e, t, ts);
	if (t->fair && c) {
		engine_update_cpu(c, ts);
		if (c->nr_queued)
			c->nr_queued--;
		engine_sub_clamped(&c->load, pelt_prio_weight(t->rec.prio));
	}
	t->rec.on_rq = 0;
	t->queued_since = 0;
}

/* A clock going back is counted and clamped (perf sched's "time travel"). */
uint64_t engine_check_time(struct engine *e, uint64_t ts)
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

	engine_update_task(e, t, ts);
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
	engine_dequeue(e, t, ts);
	t->rec.on_cpu = 0;
	t->rec.state = switch_state(prev_state);
}

static void switch_in(struct engine *e, int cpu, struct etask *t, uint64_t ts)
{
	if (t->fair && t->attached >= 0 && t->attached != cpu) {
		/* A migration we did not see (lost events). */
		engine_dequeue(e, t, ts);
		engine_detach(e, t);
	}
	if (!t->rec.on_rq)
		engine_enqueue(e, t, cpu, ts);
	if (t->fair && t->attached < 0)
		engine_attach(e, t, cpu, ts);
	engine_update_task(e, t, ts);
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

	engine_update_cpu(c, ts);
	prev = prev_pid > 0 ? engine_task_find(e, prev_pid) : NULL;
	/* The last switch of an exited task: nothing left to track. */
	if (prev && prev->dead) {
		prev = NULL;
	} else if (prev_pid > 0) {
		if (!prev)
			prev = engine_task_add(e, prev_pid, prev_prio, prev_comm, ts);
		if (!prev)
			return -ENOMEM;
		prev->rec.prio = prev_prio;
		prev->fair = prio_is_fair(prev_prio);
		engine_task_set_comm(prev, prev_comm);
		if (!prev->rec.on_cpu || prev->rec.cpu != (uint32_t)cpu) {
			/* First sight: it was running here, queued. */
			prev->rec.on_cpu = 1;
			prev->on_cpu_since = ts;
			if (!prev->rec.on_rq)
				engine_enqueue(e, prev, cpu, ts);
			prev->rec.on_cpu = 1;
		}
	}
	if (prev)
		switch_out(e, c, prev, ts, prev_state);
	/* An exited task back on the CPU to finish dying is not a new one. */
	if (next_pid > 0 && !engine_task_exited(e, next_pid)) {
		next = engine_task_get(e, next_pid, next_prio, next_comm, ts);
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
	/*
	 * Idle to idle (a trace's first switch naming the idle task on both
	 * sides, once the head has made the CPU idle) stays idle.
	 */
	if (next_pid == 0 && !c->st.idle_start) {
		c->st.idle_start = ts;
	} else if (prev_pid == 0 && next_pid != 0 && c->st.idle_start) {
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
	struct ecpu *c = engine_cpu_at(e, cpu);
	int err;

	if (!c)
		return 0;
	err = engine_current(e, ts, cpu, prev_pid);
	if (err)
		return err;
	ts = engine_check_time(e, ts);
	err = do_switch(e, ts, c, cpu, prev_pid, prev_prio, prev_state,
			prev_comm, next_pid, next_prio, next_comm);
	if (!err && prev_pid > 0 && prio_is_fair(prev_prio)) {
		/* A switch the trace dates itself: engine_cpu_clocks() asks. */
		c->out_pid = prev_pid;
		c->out_ts = ts;
		c->out_new = true;
	}
	return err;
}

int engine_left_unseen(struct engine *e, uint64_t ts, int cpu)
{
	struct ecpu *c = engine_cpu_at(e, cpu);
	struct etask *t;

	if (!c || c->curr <= 0)
		return 0;
	ts = engine_check_time(e, ts);
	engine_update_cpu(c, ts);
	t = engine_task_find(e, c->curr);
	if (t && !t->dead && t->rec.on_cpu && t->rec.cpu == (uint32_t)cpu) {
		engine_update_task(e, t, ts);
		if (ts > t->on_cpu_since)
			t->rec.sum_exec_runtime += ts - t->on_cpu_since;
		t->on_cpu_since = ts;
		t->rec.on_cpu = 0;
		t->clock_unsure = true;
	}
	e->implicit_switches++;
	c->curr = 0;
	c->curr_prio = DEFAULT_PRIO;
	c->curr_since = ts;
	c->curr_fair = false;
	c->idle_wake_ts = 0;
	if (!c->st.idle_start)
		c->st.idle_start = ts;
	return 0;
}

int engine_set_running(struct engine *e, uint64_t ts, int cpu, int32_t pid,
		       int32_t prio, const char *comm)
{
	struct ecpu *c = engine_cpu_at(e, cpu);
	struct etask *t = NULL;

	if (!c || pid < 0)
		return 0;
	ts = engine_check_time(e, ts);
	engine_update_cpu(c, ts);
	if (pid > 0) {
		t = engine_task_get(e, pid, prio, comm, ts);
		if (!t)
			return -ENOMEM;
		t->rec.prio = prio;
		t->fair = prio_is_fair(prio);
		switch_in(e, cpu, t, ts);
	} else if (!c->st.idle_start) {
		c->st.idle_start = ts;
	}
	c->curr = pid;
	c->curr_prio = prio;
	c->curr_since = ts;
	c->curr_fair = t && t->fair;
	c->idle_wake_ts = 0;
	if (ts > c->seen_ts)
		c->seen_ts = ts;
	return 0;
}

int engine_current(struct engine *e, uint64_t ts, int cpu, int32_t pid)
{
	struct ecpu *c = engine_cpu_at(e, cpu);
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
	t = pid > 0 ? engine_task_find(e, pid) : NULL;
	if (t)
		t->clock_unsure = true;
	if (c->curr > 0 && engine_task_find(e, c->curr))
		engine_task_find(e, c->curr)->clock_unsure = true;
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
	ts = engine_check_time(e, ts);
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

int engine_waking(struct engine *e, uint64_t ts, int32_t pid, int32_t prio,
		  const char *comm)
{
	struct etask *t = engine_task_find(e, pid);

	ts = engine_check_time(e, ts);
	/*
	 * A task the trace names first here was woken here: the wakeup is
	 * its own (the kernel's nr_wakeups counts it), so it is made now, not
	 * at the sched_wakeup after. An exited one's pid is only a fork's.
	 */
	if (!t && pid > 0) {
		t = engine_task_get(e, pid, prio, comm, ts);
		if (!t)
			return -ENOMEM;
	}
	if (t && !t->dead)
		t->rec.wakeups++;
	return 0;
}

int engine_wakeup(struct engine *e, uint64_t ts, int32_t pid, int32_t prio,
		  int cpu, const char *comm, bool new_task)
{
	struct etask *t;

	if (!engine_cpu_at(e, cpu))
		return 0;
	ts = engine_check_time(e, ts);
	/* Only a fork makes a new task of an exited one's pid. */
	if (!new_task && engine_task_exited(e, pid))
		return 0;
	t = engine_task_get(e, pid, prio, comm, ts);
	if (!t)
		return -ENOMEM;
	t->rec.prio = prio;
	t->fair = prio_is_fair(prio);
	if (new_task) {
		t->rec.start_time = ts;
		engine_init_new(e, t, cpu, ts);
	}
	engine_enqueue(e, t, cpu, ts);
	return 0;
}

int engine_migrate(struct engine *e, uint64_t ts, int32_t pid, int32_t prio,
		   int orig_cpu, int dest_cpu, const char *comm)
{
	struct etask *t;
	bool queued;

	if (!engine_cpu_at(e, dest_cpu) || engine_task_exited(e, pid))
		return 0;
	ts = engine_check_time(e, ts);
	t = engine_task_get(e, pid, prio, comm, ts);
	if (!t)
		return -ENOMEM;
	queued = t->rec.on_rq;
	/* Load balancing moves a queued task: off one runqueue, onto another. */
	if (queued)
		engine_dequeue(e, t, ts);
	else
		engine_update_task(e, t, ts);
	if (t->fair) {
		engine_detach(e, t);
		engine_attach(e, t, dest_cpu, ts);
	}
	t->rec.cpu = dest_cpu;
	t->rec.nr_migrations++;
	if (queued)
		engine_enqueue(e, t, dest_cpu, ts);
	if (e->hooks.migrate)
		e->hooks.migrate(e->hooks.ctx, &t->rec, orig_cpu, dest_cpu, ts);
	return 0;
}

int engine_exit(struct engine *e, uint64_t ts, int32_t pid, const char *comm)
{
	struct etask *t = engine_task_find(e, pid);

	ts = engine_check_time(e, ts);
	if (!t || t->dead)
		return 0;
	engine_update_task(e, t, ts);
	if (t->rec.on_cpu && ts > t->on_cpu_since) {
		t->rec.sum_exec_runtime += ts - t->on_cpu_since;
		t->on_cpu_since = ts;
	}
	engine_task_set_comm(t, comm);
	t->rec.exit_state = EXIT_DEAD;
	if (e->hooks.exit)
		e->hooks.exit(e->hooks.ctx, &t->rec, ts);
	/* task_dead_fair(): its contribution leaves the CPU now. */
	engine_dequeue(e, t, ts);
	engine_detach(e, t);
	t->dead = true;
	return 0;
}

void engine_overutilized(struct engine *e, uint64_t ts, bool on)
{
	struct st_global_state *g = &e->global;
	bool was = g->overutilized_seen && g->overutilized;

	ts = engine_check_time(e, ts);
	/* The event fires at every evaluation: only flips count. */
	if (was && !on)
		g->overutilized_ns += ts - g->overutilized_since;
	if (!was && on)
		g->overutilized_since = ts;
	g->overutilized = on;
	g->overutilized_seen = 1;
}

void engine_freq(struct engine *e, uint64_t ts, int cpu, uint32_t khz)
{
	struct ecpu *c = engine_cpu_at(e, cpu);

	if (!c)
		return;
	ts = engine_check_time(e, ts);
	/* The time so far ran at the old clock. */
	engine_update_cpu(c, ts);
	/*
	 * Before 5.0 the kernel scaled what accrued since an entity's last
	 * update by the frequency at the update: the running task's ticks
	 * (every 1-10 ms) applied the old one to nearly all of its run so far.
	 * The engine sees no ticks: it updates the task here instead.
	 */
	if (c->scaled_contrib && c->curr > 0) {
		struct etask *t = engine_task_find(e, c->curr);

		if (t && !t->dead)
			engine_update_task(e, t, ts);
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
		    !schedstat_array_reserve((void **)&e->freqs, &e->cap_freqs,
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
	struct ecpu *c = engine_cpu_at(e, cpu);

	if (!c)
		return;
	ts = engine_check_time(e, ts);
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
	struct ecpu *c = engine_cpu_at(e, cpu);

	if (!c)
		return;
	ts = engine_check_time(e, ts);
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
	struct etask *t = engine_task_find(e, pid);
	struct ecpu *c;

	if (!t || t->dead || !t->fair)
		return;
	ts = engine_check_time(e, ts);
	c = engine_cpu_at(e, t->attached);
	if (c) {
		/* Detached from the CPU's sums as it was, attached as it is. */
		engine_update_task(e, t, ts);
		engine_sub_clamped(&c->avg.util_avg, t->avg.util_avg);
		engine_sub_clamped(&c->avg.runnable_avg, t->avg.runnable_avg);
		engine_sub_clamped(&c->avg.load_avg, t->avg.load_avg);
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
	struct ecpu *c = engine_cpu_at(e, cpu);

	if (!c)
		return;
	engine_update_cpu(c, engine_check_time(e, ts));
	take_kernel_avg(&c->avg, k, 1);
	c->kernel_pelt = true;
}
