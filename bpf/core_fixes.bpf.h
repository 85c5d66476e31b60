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

/* 5.14 (2f064a59a11f) renamed task_struct.state to __state. */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int task_state(struct task_struct *p)
{
	if (bpf_core_field_exists(p->__state))
		return BPF_CORE_READ(p, __state);
	return BPF_CORE_READ((struct task_struct___old *)p, state);
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
		return BPF_CORE_READ(p, thread_info.cpu);
	return BPF_CORE_READ((struct task_struct___cpu *)p, cpu);
}

/* 6.12 (152e11f6df29, EEVDF delayed dequeue) added se.sched_delayed. */
struct sched_entity___delayed {
	unsigned char sched_delayed;
} __attribute__((preserve_access_index));

static __always_inline unsigned char se_delayed(struct sched_entity *se)
{
	if (bpf_core_field_exists(((struct sched_entity___delayed *)se)->sched_delayed))
		return BPF_CORE_READ((struct sched_entity___delayed *)se, sched_delayed);
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
		return BPF_CORE_READ(sa_new, util_est) & ~UTIL_AVG_UNCHANGED;
	if (!bpf_core_field_exists(sa_old->util_est))
		return 0;
	ewma = BPF_CORE_READ(sa_old, util_est.ewma);
	enq = BPF_CORE_READ(sa_old, util_est.enqueued) & ~UTIL_AVG_UNCHANGED;
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
	return BPF_CORE_READ(se, depth);
}

static __always_inline struct cfs_rq *se_my_q(struct sched_entity *se)
{
	if (!bpf_core_field_exists(se->my_q))
		return NULL;
	return BPF_CORE_READ(se, my_q);
}

static __always_inline struct task_group *cfs_rq_tg(struct cfs_rq *cfs)
{
	if (!bpf_core_field_exists(cfs->tg))
		return NULL;
	return BPF_CORE_READ(cfs, tg);
}

#endif /* SCHEDTOP_CORE_FIXES_BPF_H */
