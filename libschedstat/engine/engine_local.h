/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's own layout, shared by its files (engine.c: its life and
 * output; engine_tasks.c: the task table; engine_pelt.c: PELT;
 * engine_events.c: the events; engine_lost_time.c: steal and irq time).
 * Sources see engine.h only.
 */
#ifndef SCHEDSTAT_ENGINE_LOCAL_H
#define SCHEDSTAT_ENGINE_LOCAL_H

#include "engine.h"

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
	 * engine_cpu_clocks(): the last fair task switched out in the trace
	 * and when (not yet asked: out_new); trace time less the kernel's
	 * task clock at the first switch asked (its origin), and at the last
	 * one credited; the time lost since the first, all credited.
	 */
	int32_t out_pid;
	uint64_t out_ts;
	bool out_new;
	bool exec_known;
	int64_t exec_origin;
	uint64_t exec_ts, exec_lost;
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
	struct st_global_state global;	/* the overutilized flag's flips */
};

static inline struct ecpu *engine_cpu_at(struct engine *e, int cpu)
{
	return cpu >= 0 && cpu < e->nr_cpus ? &e->cpus[cpu] : NULL;
}

static inline void engine_sub_clamped(uint64_t *v, uint64_t by)
{
	*v = *v > by ? *v - by : 0;
}

/* engine_tasks.c: the task table. */
struct etask *engine_task_find(struct engine *e, int32_t pid);
struct etask *engine_task_add(struct engine *e, int32_t pid, int32_t prio,
			      const char *comm, uint64_t ts);
bool engine_task_exited(struct engine *e, int32_t pid);
/* The live entry for @pid, or a new one (after engine_task_exited()). */
struct etask *engine_task_get(struct engine *e, int32_t pid, int32_t prio,
			      const char *comm, uint64_t ts);
void engine_task_set_comm(struct etask *t, const char *comm);

/* engine_pelt.c */
/* pelt_update() as the CPU's kernel did it: scaled clock or contributions. */
bool engine_cpu_pelt_update(const struct ecpu *c, struct pelt_avg *sa,
			    uint64_t now, uint64_t load, uint64_t runnable,
			    int running, uint64_t weight);
/* update_cfs_rq_load_avg() up to @ts with the CPU's current flags. */
void engine_update_cpu(struct ecpu *c, uint64_t ts);
/* __update_load_avg_se() of @t up to @ts, in the flags it had until then. */
void engine_update_task(struct engine *e, struct etask *t, uint64_t ts);
/* detach_entity_load_avg(): the CPU's sums lose the task's. */
void engine_detach(struct engine *e, struct etask *t);
/* attach_entity_load_avg(): the CPU's sums gain the task's. */
void engine_attach(struct engine *e, struct etask *t, int cpu, uint64_t ts);
/* A new task's first averages (post_init_entity_util_avg()), attached. */
void engine_init_new(struct engine *e, struct etask *t, int cpu, uint64_t ts);

/* engine_events.c */
void engine_enqueue(struct engine *e, struct etask *t, int cpu, uint64_t ts);
void engine_dequeue(struct engine *e, struct etask *t, uint64_t ts);
/* A clock going back is counted and clamped (perf sched's "time travel"). */
uint64_t engine_check_time(struct engine *e, uint64_t ts);

#endif /* SCHEDSTAT_ENGINE_LOCAL_H */
