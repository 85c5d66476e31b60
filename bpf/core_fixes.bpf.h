/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference schedtop's BPF programs meet, in one place.
 * Each helper reads a field that moved or changed shape, choosing at load
 * time (CO-RE) the flavour the running kernel has. "___name" structs are
 * flavours: libbpf matches them to the kernel's type without the suffix.
 */
#ifndef SCHEDTOP_CORE_FIXES_BPF_H
#define SCHEDTOP_CORE_FIXES_BPF_H

#include <bpf/bpf_core_read.h>
#include "kernel_types.h"

#define UTIL_AVG_UNCHANGED	0x80000000u

/*
 * The task helpers below read through @p (or @se, @sa) with plain loads,
 * relocated by CO-RE like BPF_CORE_READ() but without its
 * bpf_probe_read_kernel() call: each took ~40 ns a task, 14% of a sample's
 * CPU time at 3,000 tasks. So the pointer must be one the verifier knows
 * (a tp_btf or iterator argument, or a field of one); a field that a kernel
 * lacks is read only under its bpf_core_field_exists(), which the verifier
 * sees as a constant: the relocated load in the other branch is dead code.
 */

/* 5.14 (2f064a59a11f) renamed task_struct.state to __state. */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int task_state(struct task_struct *p)
{
	if (bpf_core_field_exists(p->__state))
		return p->__state;
	return ((struct task_struct___old *)p)->state;
}

/*
 * The CPU lives in thread_info on arches with THREAD_INFO_IN_TASK that keep
 * it there (x86, arm64 since 5.16) and in task_struct.cpu otherwise.
 */
struct task_struct___cpu {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline unsigned int task_cpu(struct task_struct *p)
{
	if (bpf_core_field_exists(p->thread_info.cpu))
		return p->thread_info.cpu;
	return ((struct task_struct___cpu *)p)->cpu;
}

/* 6.12 (152e11f6df29, EEVDF delayed dequeue) added se.sched_delayed. */
struct sched_entity___delayed {
	unsigned char sched_delayed;
} __attribute__((preserve_access_index));

static __always_inline unsigned char se_delayed(struct sched_entity *se)
{
	if (bpf_core_field_exists(((struct sched_entity___delayed *)se)->sched_delayed))
		return ((struct sched_entity___delayed *)se)->sched_delayed;
	return 0;
}

/*
 * 6.10 ("sched/fair: Check a task has a fitting cpu when updating misfit")
 * added p->max_allowed_capacity: update_misfit_status() leaves a task on a
 * CPU of that capacity alone. 0 before: the rule did not exist.
 */
struct task_struct___maxcap {
	unsigned long max_allowed_capacity;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_max_allowed_capacity(struct task_struct *p)
{
	if (bpf_core_field_exists(((struct task_struct___maxcap *)p)->max_allowed_capacity))
		return ((struct task_struct___maxcap *)p)->max_allowed_capacity;
	return 0;
}

/*
 * 6.7 (11137d384996) made sched_avg.util_est a plain unsigned int; before, it
 * was struct util_est { enqueued, ewma }. Either way report what the kernel's
 * _task_util_est() uses, with the UTIL_AVG_UNCHANGED flag cleared.
 */
struct util_est___old {
	unsigned int enqueued;
	unsigned int ewma;
} __attribute__((preserve_access_index));

struct sched_avg___old {
	struct util_est___old util_est;
} __attribute__((preserve_access_index));

struct sched_avg___new {
	unsigned int util_est;
} __attribute__((preserve_access_index));

/*
 * A field relocation also checks the field's type, so each flavour's
 * existence test fails on the other shape and its read is dead code there.
 */
static __always_inline unsigned int avg_util_est(struct sched_avg *sa)
{
	struct sched_avg___new *sa_new = (void *)sa;
	struct sched_avg___old *sa_old = (void *)sa;
	unsigned int ewma, enq;

	if (bpf_core_field_exists(sa_new->util_est))
		return sa_new->util_est & ~UTIL_AVG_UNCHANGED;
	if (!bpf_core_field_exists(sa_old->util_est))
		return 0;
	ewma = sa_old->util_est.ewma;
	enq = sa_old->util_est.enqueued & ~UTIL_AVG_UNCHANGED;
	return ewma > enq ? ewma : enq;
}

/* 6.13 (7b8a702d9438) renamed cfs_rq.h_nr_running to h_nr_queued. */
struct cfs_rq___queued {
	unsigned int h_nr_queued;
} __attribute__((preserve_access_index));

struct cfs_rq___running {
	unsigned int h_nr_running;
} __attribute__((preserve_access_index));

static __always_inline unsigned int cfs_h_nr(struct cfs_rq *cfs)
{
	if (bpf_core_field_exists(((struct cfs_rq___queued *)cfs)->h_nr_queued))
		return BPF_CORE_READ((struct cfs_rq___queued *)cfs, h_nr_queued);
	return BPF_CORE_READ((struct cfs_rq___running *)cfs, h_nr_running);
}

/*
 * cfs_rq.rq exists only with CONFIG_FAIR_GROUP_SCHED; without it every cfs_rq
 * is the one embedded in its rq.
 */
static __always_inline struct rq *cfs_rq_rq(struct cfs_rq *cfs)
{
	if (bpf_core_field_exists(cfs->rq))
		return BPF_CORE_READ(cfs, rq);
	return (void *)cfs - bpf_core_field_offset(struct rq, cfs);
}

static __always_inline bool cfs_rq_is_root(struct cfs_rq *cfs, struct rq *rq)
{
	return (void *)cfs == (void *)rq + bpf_core_field_offset(struct rq, cfs);
}

/*
 * Hardware (thermal) pressure: rq.avg_thermal until 6.10 (d4dbc991714e)
 * renamed it avg_hw, along with pelt_thermal_tp becoming pelt_hw_tp.
 */
struct rq___hw {
	struct sched_avg avg_hw;
} __attribute__((preserve_access_index));

struct rq___thermal {
	struct sched_avg avg_thermal;
} __attribute__((preserve_access_index));

static __always_inline unsigned int rq_hw_pressure(struct rq *rq)
{
	if (bpf_core_field_exists(((struct rq___hw *)rq)->avg_hw))
		return BPF_CORE_READ((struct rq___hw *)rq, avg_hw.util_avg);
	if (bpf_core_field_exists(((struct rq___thermal *)rq)->avg_thermal))
		return BPF_CORE_READ((struct rq___thermal *)rq, avg_thermal.util_avg);
	return 0;
}

/*
 * task_group.autogroup exists with CONFIG_SCHED_AUTOGROUP only: the groups
 * the kernel makes per session (setsid) when no cgroup holds the task.
 */
struct task_group___autogroup {
	struct autogroup *autogroup;
} __attribute__((preserve_access_index));

static __always_inline unsigned long tg_autogroup_id(struct task_group *tg)
{
	struct task_group___autogroup *t = (void *)tg;

	if (!bpf_core_field_exists(t->autogroup))
		return 0;
	return BPF_CORE_READ(t, autogroup, id);
}

/*
 * Fields that exist only with some kernel configurations. A tp_btf program
 * reading a field the kernel lacks fails to load, and takes the whole
 * skeleton with it, so each is read only where it exists.
 */

/* rq.avg_irq: CONFIG_HAVE_SCHED_AVG_IRQ (IRQ_TIME or PARAVIRT_TIME accounting). */
static __always_inline unsigned int rq_irq_util(struct rq *rq)
{
	if (!bpf_core_field_exists(rq->avg_irq))
		return 0;
	return BPF_CORE_READ(rq, avg_irq.util_avg);
}

/* se.depth, se.my_q and cfs_rq.tg: CONFIG_FAIR_GROUP_SCHED. */
static __always_inline int se_depth(struct sched_entity *se)
{
	if (!bpf_core_field_exists(se->depth))
		return 0;
	return se->depth;
}

static __always_inline struct cfs_rq *se_my_q(struct sched_entity *se)
{
	if (!bpf_core_field_exists(se->my_q))
		return NULL;
	return BPF_CORE_READ(se, my_q);
}

/* cfs_rq.throttled_clock_pelt_time: CONFIG_CFS_BANDWIDTH. */
struct cfs_rq___throttled {
	__u64 throttled_clock_pelt_time;
} __attribute__((preserve_access_index));

static __always_inline __u64 cfs_rq_throttled_pelt(struct cfs_rq *cfs)
{
	struct cfs_rq___throttled *t = (void *)cfs;

	if (!cfs || !bpf_core_field_exists(t->throttled_clock_pelt_time))
		return 0;
	return BPF_CORE_READ(t, throttled_clock_pelt_time);
}

/* The cfs_rq an entity is queued on (se.cfs_rq): CONFIG_FAIR_GROUP_SCHED. */
static __always_inline struct cfs_rq *se_cfs_rq(struct sched_entity *se)
{
	if (!bpf_core_field_exists(se->cfs_rq))
		return NULL;
	return BPF_CORE_READ(se, cfs_rq);
}

static __always_inline struct task_group *cfs_rq_tg(struct cfs_rq *cfs)
{
	if (!bpf_core_field_exists(cfs->tg))
		return NULL;
	return BPF_CORE_READ(cfs, tg);
}

/*
 * Per-CPU values read at sample time (read_cpus() in schedtop.bpf.c): the
 * kernel's own per-CPU variables, reached with bpf_per_cpu_ptr() (5.10).
 * The verifier finds their addresses with kallsyms, which lists per-CPU
 * variables only with CONFIG_KALLSYMS_ALL: without it (user space checks
 * /proc/kallsyms, bpf_cpus.c), the runqueues are found through the tasks' cfs_rq
 * (task_rq()) and tick_sched is not reachable at all.
 */
extern const struct rq runqueues __ksym __weak;
extern const struct tick_sched tick_cpu_sched __ksym __weak;

/* se.cfs_rq: CONFIG_FAIR_GROUP_SCHED; the cfs_rq the task is (was) on. */
static __always_inline struct rq *task_rq(struct task_struct *p)
{
	struct cfs_rq *cfs;

	if (!bpf_core_field_exists(p->se.cfs_rq))
		return NULL;
	cfs = BPF_CORE_READ(p, se.cfs_rq);
	return cfs ? cfs_rq_rq(cfs) : NULL;
}

/*
 * The root cfs_rq's util_est, as cpu_util() adds it: a plain unsigned int
 * since 11137d384996 (as for tasks, see avg_util_est()); before,
 * util_est.enqueued (the ewma of a cfs_rq is not used). The kernel never flags a cfs_rq's value.
 */
static __always_inline unsigned int cfs_util_est(struct cfs_rq *cfs)
{
	struct sched_avg___new *sa_new = (void *)&cfs->avg;
	struct sched_avg___old *sa_old = (void *)&cfs->avg;

	if (bpf_core_field_exists(sa_new->util_est))
		return BPF_CORE_READ(sa_new, util_est);
	if (bpf_core_field_exists(sa_old->util_est))
		return BPF_CORE_READ(sa_old, util_est.enqueued);
	return 0;
}

/*
 * root_domain.overutilized: an int in 5.10, a bool in later kernels (6.18
 * here); the probed bitfield read loads the field's real size either way. -1: no such field.
 */
static __always_inline int rq_overutilized(struct rq *rq)
{
	struct root_domain *rd = BPF_CORE_READ(rq, rd);

	if (!bpf_core_field_exists(rd->overutilized) || !rd)
		return -1;
	return BPF_CORE_READ_BITFIELD_PROBED(rd, overutilized) ? 1 : 0;
}

static __always_inline bool rq_has_hw_pressure(struct rq *rq)
{
	return bpf_core_field_exists(((struct rq___hw *)rq)->avg_hw) ||
	       bpf_core_field_exists(((struct rq___thermal *)rq)->avg_thermal);
}

/*
 * The idle time the kernel accounts in tick_sched (what /proc/stat's idle
 * and iowait show with NO_HZ): completed idle periods in idle_sleeptime and
 * iowait_sleeptime, plus the one under way, since idle_entrytime, while the
 * CPU is "idle active". That flag is the bitfield idle_active in 5.10 to 6.1;
 * later kernels (6.18 here) fold the bits into flags (TS_FLAG_IDLE_ACTIVE).
 */
#define TS_FLAG_IDLE_ACTIVE	(1u << 2)

struct tick_sched___flags {
	unsigned long flags;
} __attribute__((preserve_access_index));

struct tick_sched___bits {
	unsigned int idle_active:1;
} __attribute__((preserve_access_index));

struct seqcount___st {
	unsigned int sequence;
} __attribute__((preserve_access_index));

/* Later kernels (6.18 here, not 5.10) guard the sums with a seqcount. */
struct tick_sched___seq {
	struct seqcount___st idle_sleeptime_seq;
} __attribute__((preserve_access_index));

static __always_inline bool ts_idle_active(struct tick_sched *ts)
{
	struct tick_sched___flags *f = (void *)ts;
	struct tick_sched___bits *b = (void *)ts;

	if (bpf_core_field_exists(f->flags))
		return BPF_CORE_READ(f, flags) & TS_FLAG_IDLE_ACTIVE;
	if (bpf_core_field_exists(b->idle_active))
		return BPF_CORE_READ_BITFIELD_PROBED(b, idle_active);
	return false;
}

static __always_inline unsigned int ts_seq(struct tick_sched *ts)
{
	struct tick_sched___seq *q = (void *)ts;

	if (!bpf_core_field_exists(q->idle_sleeptime_seq))
		return 0;
	return BPF_CORE_READ(q, idle_sleeptime_seq.sequence);
}

/*
 * Idle ns of @cpu up to @now, or ~0 where the kernel keeps none. The idle
 * CPU updates the sums as it wakes: retry a read that overlapped a write
 * (the seqcount is odd or moved), as get_cpu_idle_time_us() does.
 */
static __always_inline __u64 cpu_idle_ns(__u32 cpu, __u64 now)
{
	struct tick_sched *ts;
	__u64 idle = 0;

	ts = (void *)bpf_per_cpu_ptr(&tick_cpu_sched, cpu);
	if (!ts)
		return ~0ULL;
	for (int i = 0; i < 4; i++) {
		unsigned int seq = ts_seq(ts);
		__s64 entry;
		bool active;

		idle = BPF_CORE_READ(ts, idle_sleeptime) +
		       BPF_CORE_READ(ts, iowait_sleeptime);
		active = ts_idle_active(ts);
		entry = BPF_CORE_READ(ts, idle_entrytime);
		if (active && entry > 0 && now > (__u64)entry)
			idle += now - entry;
		if (!(seq & 1) && seq == ts_seq(ts))
			break;
	}
	return idle;
}

/*
 * kfuncs of later kernels, for the task table only (task_table.bpf.h):
 * bpf_task_acquire()/bpf_task_release() (6.2, "bpf: Add kfuncs for storing
 * struct task_struct * as a kptr"; a "kptr" tagged field holds a reference
 * from 6.3), bpf_rcu_read_lock()/bpf_rcu_read_unlock() (6.2, "bpf: Add kfunc
 * bpf_rcu_read_lock/unlock()") and the open-coded numeric iterator (6.4,
 * "bpf: add bpf_iter_num"). Weak: a kernel without them loads the other programs;
 * user space loads the table's only where vmlinux BTF has all of them
 * (bpf_tasks.c).
 */
struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __weak __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __weak __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __weak __ksym;
extern struct task_struct *bpf_task_acquire(struct task_struct *p) __weak __ksym;
extern void bpf_task_release(struct task_struct *p) __weak __ksym;
extern void bpf_rcu_read_lock(void) __weak __ksym;
extern void bpf_rcu_read_unlock(void) __weak __ksym;

#endif /* SCHEDTOP_CORE_FIXES_BPF_H */
