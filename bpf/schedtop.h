/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one contract between schedtop's BPF programs and user space.
 * Plain fixed-size types only: both sides include this file.
 */
#ifndef SCHEDTOP_H
#define SCHEDTOP_H

#define ST_COMM_LEN	16
/* Must stay a power of two: BPF indexes cpu_state[] with a mask. */
#define ST_MAX_CPUS	1024
/* Leaf cfs_rqs of a CPU read for pending removals (task groups). */
#define ST_MAX_LEAF_CFS_RQS	32
/* Idle states told apart; deeper ones count as the last. */
#define ST_IDLE_STATES	4

/*
 * Bits of st_cpu_state.seen: which per-CPU signals this kernel keeps and
 * were read (read_cpus() at sample time) or filled by an event.
 */
enum st_seen {
	ST_SEEN_CFS		= 1 << 0,
	ST_SEEN_RT		= 1 << 1,
	ST_SEEN_DL		= 1 << 2,
	ST_SEEN_IRQ		= 1 << 3,
	ST_SEEN_HW		= 1 << 4,
	ST_SEEN_CAPACITY	= 1 << 5,
	ST_SEEN_FREQ		= 1 << 6,
	ST_SEEN_IDLE		= 1 << 7,	/* cpuidle residency (user space) */
	ST_SEEN_IDLE_TIME	= 1 << 8,	/* tick_sched idle time */
	ST_SEEN_OVERUTILIZED	= 1 << 9,	/* root_domain.overutilized */
	ST_SEEN_PREEMPT		= 1 << 10,	/* sched_switch (--exact-wakeups) */
	ST_SEEN_RQ		= 1 << 11,	/* nr_running, util_est read */
	ST_SEEN_MISFIT		= 1 << 12,	/* rq->misfit_task_load */
};

/*
 * Per-CPU aggregate, one slot per CPU in a global array that user space
 * reads through the skeleton's mmap. The runqueue's values are copied at
 * sample time by the task iterator's last call (read_cpus()), before user
 * space reads them; the few event programs left write other fields.
 */
struct st_cpu_state {
	/* Root cfs_rq, read from the runqueue at sample time. */
	__u64 cfs_ts;		/* bpf_ktime_get_ns() cfs_lut stands for */
	__u64 cfs_lut;		/* the CPU's PELT clock at cfs_ts (see read_cpu()) */
	__u64 cfs_load;
	__u32 cfs_util;
	__u32 cfs_runnable;
	__u32 cfs_h_nr;		/* h_nr_running, h_nr_queued since 6.13 */
	/* Other classes: rq->avg_{rt,dl,irq,hw or thermal}. */
	__u32 rt_util;
	__u32 dl_util;
	__u32 irq_util;
	__u32 hw_pressure;
	__u32 capacity;		/* rq->cpu_capacity */
	__u32 seen;		/* enum st_seen */
	__u32 nr_running;	/* rq->nr_running */
	__u64 nr_switches;	/* rq->nr_switches */
	__u64 nr_preempt;	/* sched_switch, --exact-wakeups only */
	/*
	 * Idle time: tick_sched's idle + iowait up to cfs_ts (BPF), or the
	 * completed periods plus the one under way since idle_start, if not
	 * 0 (the event sources' engine).
	 */
	__u64 idle_ns;
	__u64 idle_start;
	/* Failed bpf_ringbuf_reserve() on this CPU. */
	__u64 dropped;
	/* power:cpu_frequency: current kHz, since when, and kHz x us before. */
	__u64 freq_ts;
	__u64 freq_khz_us;
	__u32 freq_khz;
	/* power:cpu_idle: the state entered (-1 when not idle), since when,
	 * and completed residency per state. */
	__s32 cstate;
	__u64 cstate_ts;
	__u64 cstate_ns[ST_IDLE_STATES];
	__u32 cfs_util_est;	/* root cfs_rq util_est */
	__s32 overutilized;	/* its root domain's, -1 if not kept */
	/*
	 * Tasks that left the CPU (woke elsewhere, exited) are taken off a
	 * cfs_rq at its next update: until then its cfs_rq.removed holds their
	 * util and load, still in the root's signals (a group's through its
	 * entity there). Summed over the root and the CPU's leaf cfs_rqs,
	 * each decayed to cfs_lut as its next update will; clamped.
	 */
	__u32 cfs_removed_util;
	__u32 cfs_removed_load;
	__u64 misfit_task_load;	/* rq's; one slot = three cache lines */
};

/*
 * CPU hotplug of one CPU, from the cpuhp tracepoints: an operation is the
 * run of cpuhp_enter/cpuhp_exit steps in one direction. Each step names the
 * state it runs (idx) and the state aimed at (target): bringing a CPU up
 * runs states up to the target (idx <= target), taking it down tears down
 * states above it (idx > target). The target alone does not tell: both
 * directions pass through intermediate targets (CPUHP_TEARDOWN_CPU going
 * down, CPUHP_BRINGUP_CPU going up). Indexed by the CPU being plugged;
 * operations are serialized by the hotplug lock.
 */
struct st_hotplug {
	__u64 first;		/* first step's cpuhp_enter */
	__u64 last;		/* latest step's cpuhp_exit */
	__u32 ops;		/* operations started since load */
	__s32 target;		/* cpuhp state aimed at: 0 is CPUHP_OFFLINE */
	__u32 up;		/* 1: the latest operation brings the CPU up */
	__u32 pad;
};

/* Root-domain state, from sched_overutilized_tp, and counters. */
struct st_global_state {
	__u64 overutilized_since;	/* when it last became overutilized */
	__u32 overutilized;
	__u32 overutilized_seen;
	__u64 storage_fail;	/* task storage could not be created */
	__u64 overutilized_ns;	/* completed overutilized periods */
	__u64 freq_fail;	/* frequency residency map full */
	__u64 cpus_read_ts;	/* bpf_ktime_get_ns() of the last read_cpus() */
	__u64 pelt_dropped;	/* --pelt-trace: failed reserves, all CPUs */
};

/* Time a CPU spent at one frequency: the key of the residency map. */
struct st_freq_key {
	__u32 cpu;
	__u32 khz;
};

/* One record per task, written by the iter/task program. */
struct st_task_rec {
	__s32 pid;
	__s32 tgid;
	char comm[ST_COMM_LEN];
	__u32 cpu;
	__u32 state;		/* task_struct.__state */
	__u32 exit_state;
	__u32 flags;		/* PF_* */
	__s32 prio;
	__u8 on_rq;
	__u8 on_cpu;
	__u8 sched_delayed;
	__u8 depth;		/* se.depth: 0 in the root task group */
	__u64 start_time;	/* tells a reused pid from the old task */
	__u64 sum_exec_runtime;
	__u64 run_delay;
	__u64 nr_migrations;
	__u64 nvcsw;
	__u64 nivcsw;
	__u64 wakeups;
	/* se.avg */
	__u64 last_update_time;
	__u64 load_avg;
	/*
	 * The sums the averages come from: a sleeper's next update decays
	 * them and divides by the new divider (a stored average can be older
	 * than its sum, which its last update grew without crossing a
	 * period), so the sample shows what that update will find.
	 */
	__u64 load_sum;
	__u64 runnable_sum;
	__u32 util_sum;
	__u32 weight;		/* se_weight(): se.load.weight scaled down */
	__u32 util_avg;
	__u32 runnable_avg;
	__u32 util_est;		/* UTIL_AVG_UNCHANGED flag already cleared */
	__u32 period_contrib;
	/*
	 * What update_misfit_status() reads of the affinity: a task allowed
	 * on one CPU is never misfit; from 6.10 neither is one on a CPU of
	 * its max_allowed_capacity. 0: not known (a source without it), or
	 * for max_allowed_capacity a kernel without the rule.
	 */
	__u32 nr_cpus_allowed;
	__u32 max_allowed_capacity;
};

/*
 * The task table (bpf/task_table.bpf.h, kernels with bpf_task_acquire()
 * and open-coded iterators: 6.4+). A slot per pid holds a reference to
 * the task, taken when it was forked (or when schedtop started), and what
 * its record was made from when last sent: each sample reads that much of
 * every task and sends the record of a task only when it differs, so a
 * task that did not run costs no record and no copy.
 */
#define ST_MAX_TASK_SLOTS	(1 << 16)	/* pid_max at most this */
#define ST_TASK_OUT		4096		/* records per scan call */

/*
 * What a task's record is sent again for: everything the record holds
 * that can change while the task sleeps (name, state, priority, weight,
 * affinity, group), and the counters that move whenever it runs, wakes or
 * moves. Its other fields change only with these (docs/signals.md).
 */
struct st_task_fp {
	__u64 sum_exec_runtime;
	__u64 last_update_time;
	__u64 load_avg;
	__u64 nr_migrations;
	__u64 wakeups;		/* --exact-wakeups only */
	/* se.load.weight: a renice while asleep changes the sleeper's load. */
	__u64 weight;
	/*
	 * A switch whose run the clock did not see (update_curr_common()
	 * with a delta of 0: a stopper's run between two rq clock updates)
	 * counts itself with sum_exec_runtime unchanged: migration/1's nvcsw
	 * was held stale (test_task_table).
	 */
	__u64 nvcsw;
	__u64 nivcsw;
	__u64 run_delay;
	char comm[ST_COMM_LEN];
	__u32 state;
	__u32 flags;
	__u32 cpu;
	__s32 prio;
	__u32 util_est;
	__u32 nr_cpus_allowed;
	__u32 max_allowed_capacity;
	__u8 on_rq;
	__u8 on_cpu;
	__u8 sched_delayed;
	__u8 depth;
};

struct st_task_slot {
	__u64 task;		/* a struct task_struct kptr, referenced */
	__u64 id;		/* the task's address when last sent; 0: none */
	struct st_task_fp fp;
};

enum st_task_change {
	ST_TASK_GONE = 1,	/* pid only: its task was released */
	ST_TASK_CHANGED,	/* a new task, or one whose record differs */
};

struct st_task_out {
	__u32 change;		/* enum st_task_change */
	__s32 pid;
	struct st_task_rec rec;
};

/* One sample's walk of the table, across scan calls. */
struct st_task_scan {
	__u32 cursor;		/* next slot to read; 0: a new sample */
	__u32 nr_out;		/* records in task_out */
	__u32 done;		/* the walk reached the end: CPUs read */
	__u32 pad;
	__u64 nr_tasks;		/* tasks held */
	__u64 lost;		/* inserts that failed: the table is wrong */
};

enum st_event_type {
	ST_EV_EXIT = 1,
	ST_EV_MIGRATE,
	ST_EV_OVERUTILIZED,
	ST_EV_CPUHP,
};

/* Every ring buffer record starts with this; size covers the whole record. */
struct st_event_hdr {
	__u32 type;
	__u32 size;
	__u64 ts;
	__u32 cpu;
	__u32 pad;
};

/* A task's last counters, taken as it exits, so its final interval counts. */
struct st_event_exit {
	struct st_event_hdr hdr;
	struct st_task_rec task;
};

struct st_event_migrate {
	struct st_event_hdr hdr;
	__s32 pid;
	__s32 tgid;
	__s32 orig_cpu;
	__s32 dest_cpu;
	char comm[ST_COMM_LEN];
};

struct st_event_overutilized {
	struct st_event_hdr hdr;
	__u32 overutilized;
	__u32 pad;
};

enum st_cpuhp_kind {
	ST_CPUHP_ENTER = 1,	/* SCHEDSTAT_CPUHP_ENTER */
	ST_CPUHP_MULTI_ENTER,
	ST_CPUHP_EXIT,
};

/*
 * One cpuhp step as the tracepoint gave it, every one (the stray
 * multi-instance calls too: user space tells them apart as st_hotplug
 * does). A few hundred per operation; hdr.cpu is where it ran.
 */
struct st_event_cpuhp {
	struct st_event_hdr hdr;
	__u64 fun;		/* enter: the callback's address */
	__u32 kind;		/* enum st_cpuhp_kind */
	__u32 cpu;		/* the CPU taken down or brought up */
	__s32 target;		/* enter: target; exit: the CPU's state */
	__s32 idx;		/* the step's state */
	__s32 ret;		/* exit: the callback's result */
	__u32 pad;
};

/*
 * A cgroup's sched_entity on one CPU, as the kernel keeps it at the sample.
 * ts: when the kernel last updated its PELT sums, on the monotonic clock.
 */
struct st_group_val {
	__u64 ts;
	__u64 cgroup_id;	/* 0 for an autogroup */
	__u64 autogroup_id;	/* CONFIG_SCHED_AUTOGROUP session groups */
	__u64 load_avg;
	__u32 util_avg;
	__u32 runnable_avg;
	__u32 cpu;
	__u32 depth;
};

/*
 * Group entities read at sample time by the walk of each CPU's
 * rq->leaf_cfs_rq_list (groups_removed(), the task groups with anything on
 * that CPU), their only writer, which user space reads right after. Not
 * pelt_se_tp: it fires on every PELT update of every entity (1.1 us each
 * here, ~8 us per activation of a 100 us thread: on the scheduler's path),
 * and inside __update_load_avg_se(), before update_load_avg() propagates
 * the group's cfs_rq into its entity (update_tg_cfs_util() and _runnable()
 * set util_avg and runnable_avg to the cfs_rq's with no tracepoint): a
 * map it filled showed util_avg 667 where the entity held 661 before and
 * after (test_groups). Past ST_MAX_LEAF_CFS_RQS groups on a CPU or
 * ST_MAX_GROUP_SAMPLES in all, the rest are not shown: counted in the
 * CPU's dropped.
 */
#define ST_MAX_GROUP_SAMPLES	1024

struct st_group_samples {
	__u32 nr;
	__u32 pad;
	struct st_group_val g[ST_MAX_GROUP_SAMPLES];
};

/*
 * --pelt-trace: one record per PELT update of a selected entity, from the
 * pelt_*_tp tracepoints, in their own ring buffer (pelt_events) so that a
 * flood of them never costs the discrete events above a slot. Records have
 * no st_event_hdr: the ring holds nothing else, and each is reserved at
 * exactly this size.
 */
#define ST_PELT_MAX_PIDS	64	/* SCHEDSTAT_PELT_MAX_PIDS */

enum st_pelt_entity {
	ST_PELT_TASK = 1,	/* pelt_se_tp on a task's sched_entity */
	ST_PELT_CFS,		/* pelt_cfs_tp on a CPU's root cfs_rq */
	ST_PELT_RT,		/* pelt_rt_tp: rq->avg_rt */
	ST_PELT_DL,		/* pelt_dl_tp: rq->avg_dl */
	ST_PELT_IRQ,		/* pelt_irq_tp: rq->avg_irq */
	ST_PELT_GROUP,		/* pelt_se_tp on a task group's sched_entity */
};

/* util_est of an entity that keeps none (rt, dl, irq). */
#define ST_PELT_NO_UTIL_EST	0xffffffffu

struct st_pelt_rec {
	__u64 ts;		/* bpf_ktime_get_ns() at the update */
	__u64 last_update_time;	/* sched_avg.last_update_time: PELT clock, ns */
	__u64 load_avg;
	__s32 pid;		/* -1 for a CPU's or a group's entity */
	__s32 tgid;
	__u32 cpu;		/* a group's: the CPU of its runqueue */
	__u32 entity;		/* enum st_pelt_entity */
	__u32 util_avg;
	__u32 runnable_avg;
	__u32 util_est;		/* ST_PELT_NO_UTIL_EST when not kept */
	__u32 pad;
	union {
		char comm[ST_COMM_LEN];	/* a task's; "" for a CPU's entity */
		__u64 cgroup_id;	/* ST_PELT_GROUP: its cgroup's kernfs id */
	};
};

#endif /* SCHEDTOP_H */
