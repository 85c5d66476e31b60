// SPDX-License-Identifier: GPL-2.0
/*
 * kpelt's BPF side: every PELT update of a root cfs_rq (pelt_cfs_tp) and of
 * a task's sched_entity (pelt_se_tp), the values the kernel just computed,
 * into a ring buffer. A test's own recorder of the kernel's numbers
 * (tests/integration/pelt_truth.KernelPelt), written apart from schedtop's
 * BPF so that a test does not take schedtop's copy of them for the truth:
 * its own types (CO-RE relocated by name), its own filters, its own
 * record.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)
struct sched_avg {
	__u64 last_update_time;
	unsigned long runnable_avg;
	unsigned long util_avg;
};
struct task_group {
	struct task_group *parent;
};
struct rq {
	int cpu;
};
struct cfs_rq {
	struct sched_avg avg;
	struct task_group *tg;
	struct rq *rq;
};
struct sched_entity {
	struct sched_avg avg;
	struct cfs_rq *cfs_rq;
	struct cfs_rq *my_q;
};
struct task_struct {
	struct sched_entity se;
	int pid;
	char comm[16];
};
#pragma clang attribute pop

/* One update: kind 0 a root cfs_rq, 1 a task. */
struct krec {
	__u64 ts, lut;
	__u32 kind, cpu, util, runnable;
	__s32 pid;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} recs SEC(".maps");

/* Reserves that failed: kpelt prints them, a test with any fails. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static struct krec *reserve(void)
{
	struct krec *r = bpf_ringbuf_reserve(&recs, sizeof(*r), 0);
	__u32 zero = 0;
	__u64 *n;

	if (!r) {
		n = bpf_map_lookup_elem(&lost, &zero);
		if (n)
			__sync_fetch_and_add(n, 1);
	}
	return r;
}

SEC("tp_btf/pelt_cfs_tp")
int BPF_PROG(kpelt_cfs, struct cfs_rq *cfs)
{
	struct krec *r;

	/* The root cfs_rq: the root task group has no parent. */
	if (BPF_CORE_READ(cfs, tg, parent))
		return 0;
	r = reserve();
	if (!r)
		return 0;
	r->ts = bpf_ktime_get_ns();
	r->kind = 0;
	r->cpu = BPF_CORE_READ(cfs, rq, cpu);
	r->lut = BPF_CORE_READ(cfs, avg.last_update_time);
	r->util = BPF_CORE_READ(cfs, avg.util_avg);
	r->runnable = BPF_CORE_READ(cfs, avg.runnable_avg);
	r->pid = -1;
	__builtin_memset(r->comm, 0, sizeof(r->comm));
	bpf_ringbuf_submit(r, 0);
	return 0;
}

SEC("tp_btf/pelt_se_tp")
int BPF_PROG(kpelt_se, struct sched_entity *se)
{
	struct task_struct *p;
	struct krec *r;

	/* A group's entity runs a cfs_rq of its own: not a task. */
	if (BPF_CORE_READ(se, my_q))
		return 0;
	p = (void *)se - bpf_core_field_offset(struct task_struct, se);
	r = reserve();
	if (!r)
		return 0;
	r->ts = bpf_ktime_get_ns();
	r->kind = 1;
	r->cpu = BPF_CORE_READ(se, cfs_rq, rq, cpu);
	r->lut = BPF_CORE_READ(se, avg.last_update_time);
	r->util = BPF_CORE_READ(se, avg.util_avg);
	r->runnable = BPF_CORE_READ(se, avg.runnable_avg);
	r->pid = BPF_CORE_READ(p, pid);
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), p->comm);
	bpf_ringbuf_submit(r, 0);
	return 0;
}

/*
 * A new task's first util, as post_init_entity_util_avg() set it from its
 * cfs_rq (the group's where it is in one: an autogroup, a cgroup), read at
 * sched_wakeup_new, just after the task joined that cfs_rq: kind 2, util
 * and lut the task's (lut: that cfs_rq's PELT clock at the join), runnable
 * that cfs_rq's util_avg with the task in it, cpu with bit 31 set if the
 * cfs_rq is a group's. (fexit on post_init_entity_util_avg() would read it
 * as it is set, but needs ftrace, which this VM refuses.)
 */
SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(kpelt_born, struct task_struct *p)
{
	struct cfs_rq *cfs = BPF_CORE_READ(p, se.cfs_rq);
	struct krec *r = reserve();

	if (!r)
		return 0;
	r->ts = bpf_ktime_get_ns();
	r->kind = 2;
	r->cpu = BPF_CORE_READ(cfs, rq, cpu);
	if (BPF_CORE_READ(cfs, tg, parent))
		r->cpu |= 1u << 31;
	r->lut = BPF_CORE_READ(p, se.avg.last_update_time);
	r->util = BPF_CORE_READ(p, se.avg.util_avg);
	r->runnable = BPF_CORE_READ(cfs, avg.util_avg);
	r->pid = BPF_CORE_READ(p, pid);
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), p->comm);
	bpf_ringbuf_submit(r, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
