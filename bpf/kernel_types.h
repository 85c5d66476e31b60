/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel types schedtop's BPF programs read, and only those.
 *
 * Hand-kept instead of a generated vmlinux.h so that a cross build needs no
 * device BTF: every struct carries preserve_access_index, so libbpf relocates
 * each field by name against the running kernel's BTF (CO-RE). Field order
 * and the absence of other fields do not matter. A field that some kernels
 * lack or renamed must be read through core_fixes.bpf.h, never directly.
 */
#ifndef SCHEDTOP_KERNEL_TYPES_H
#define SCHEDTOP_KERNEL_TYPES_H

#include <linux/types.h>
#include <linux/bpf.h>

typedef __u8 u8;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
typedef __s64 s64;
typedef int pid_t;
typedef _Bool bool;
enum { false = 0, true = 1 };

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)

struct sched_avg {
	u64 last_update_time;
	u64 load_sum;
	u64 runnable_sum;		/* since 5.7 (runnable_load_sum before) */
	u32 util_sum;
	u32 period_contrib;
	unsigned long load_avg;
	unsigned long runnable_avg;
	unsigned long util_avg;
	/* util_est: an int since 6.7, a struct before; see core_fixes.bpf.h */
};

struct load_weight {
	unsigned long weight;
};

struct sched_entity {
	struct load_weight load;
	unsigned char on_rq;
	u64 sum_exec_runtime;
	u64 nr_migrations;
	int depth;
	struct sched_entity *parent;
	struct cfs_rq *cfs_rq;
	struct cfs_rq *my_q;		/* non-NULL for a group entity */
	struct sched_avg avg;
};

struct sched_info {
	unsigned long pcount;
	unsigned long long run_delay;
};

struct thread_info {
	u32 cpu;
};

struct pid;
struct linux_binprm;

struct task_struct {
	struct thread_info thread_info;
	unsigned int __state;
	unsigned int flags;
	int on_cpu;
	int on_rq;
	int prio;
	int nr_cpus_allowed;
	struct sched_entity se;
	struct sched_info sched_info;
	int exit_state;
	pid_t pid;
	pid_t tgid;
	struct task_struct *group_leader;
	struct pid *thread_pid;		/* NULL once released (pid_alive()) */
	u64 start_time;
	unsigned long nvcsw;
	unsigned long nivcsw;
	char comm[16];
};

struct kernfs_node {
	u64 id;
};

struct cgroup {
	struct kernfs_node *kn;
};

struct cgroup_subsys_state {
	struct cgroup *cgroup;
};

struct task_group {
	struct cgroup_subsys_state css;
	struct task_group *parent;
	struct sched_entity **se;	/* the group's entity on each CPU */
};

struct autogroup {
	unsigned long id;
};

struct list_head {
	struct list_head *next, *prev;
};

struct cfs_rq {
	struct sched_avg avg;
	struct {			/* CONFIG_SMP */
		unsigned long load_avg;
		unsigned long util_avg;
	} removed;
	struct list_head leaf_cfs_rq_list;	/* CONFIG_FAIR_GROUP_SCHED */
	struct rq *rq;			/* CONFIG_FAIR_GROUP_SCHED only */
	struct task_group *tg;
};

struct root_domain {
	int overutilized;		/* CONFIG_SMP */
};

struct rq {
	unsigned int nr_running;
	u64 nr_switches;
	struct cfs_rq cfs;
	struct list_head leaf_cfs_rq_list;	/* CONFIG_FAIR_GROUP_SCHED */
	struct sched_avg avg_rt;
	struct sched_avg avg_dl;
	struct sched_avg avg_irq;
	unsigned long cpu_capacity;
	unsigned long misfit_task_load;	/* 4.20+, update_misfit_status() */
	u64 clock;			/* sched_clock at update_rq_clock() */
	u64 clock_pelt;
	u64 lost_idle_time;
	struct root_domain *rd;
	int cpu;
};

typedef s64 ktime_t;

/* The idle accounting of kernel/time/tick-sched.h (see core_fixes.bpf.h). */
struct tick_sched {
	ktime_t idle_entrytime;
	ktime_t idle_sleeptime;
	ktime_t iowait_sleeptime;
};
struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
	u64 session_id;
	u64 seq_num;
};

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
};

#pragma clang attribute pop

#endif /* SCHEDTOP_KERNEL_TYPES_H */
