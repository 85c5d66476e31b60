/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --pelt-trace's programs, part of schedtop.bpf.c (included at its end, one
 * object and one skeleton): every PELT update of the selected tasks, task
 * groups and CPUs into the pelt_events ring buffer (docs/signals.md).
 */
#ifndef SCHEDTOP_PELT_TRACE_BPF_H
#define SCHEDTOP_PELT_TRACE_BPF_H

/*
 * --pelt-trace: every PELT update of the selected tasks and CPUs. These
 * programs are loaded only when asked for (bpf_source.c choose_programs()):
 * by default nothing below runs. The selection is set before attach:
 * pelt_pids (pid or tgid, filled by user space), pelt_comm, pelt_cpu[].
 */
const volatile bool pelt_by_pid = false;
const volatile bool pelt_by_comm = false;
const volatile char pelt_comm[ST_COMM_LEN] = {};
const volatile __u8 pelt_cpu[ST_MAX_CPUS] = {};
/* --pelt-cgroup: that cgroup's group entities (kernfs id, 0: none). */
const volatile __u64 pelt_cgroup_id = 0;

/*
 * 2 MiB: about 26000 records, 13 s of a UI and a render thread updating at
 * 1 kHz each, while user space drains every loop turn (docs/performance.md).
 */
#define PELT_RINGBUF_SIZE	(2 * 1024 * 1024)
#define PELT_WAKEUP_AT		(PELT_RINGBUF_SIZE / 8)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PELT_RINGBUF_SIZE);
} pelt_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ST_PELT_MAX_PIDS);
	__type(key, __s32);
	__type(value, __u8);
} pelt_pids SEC(".maps");

static __always_inline struct st_pelt_rec *pelt_reserve(void)
{
	struct st_pelt_rec *r = bpf_ringbuf_reserve(&pelt_events, sizeof(*r), 0);

	if (!r)
		__sync_fetch_and_add(&global_state.pelt_dropped, 1);
	return r;
}

/* Wake the reader only once the ring fills: it drains every loop turn. */
static __always_inline void pelt_submit(struct st_pelt_rec *r)
{
	__u64 queued = bpf_ringbuf_query(&pelt_events, BPF_RB_AVAIL_DATA);

	bpf_ringbuf_submit(r, queued > PELT_WAKEUP_AT ? BPF_RB_FORCE_WAKEUP :
			   BPF_RB_NO_WAKEUP);
}

static __always_inline bool pelt_comm_matches(struct task_struct *p)
{
	char comm[ST_COMM_LEN];

	bpf_probe_read_kernel(comm, sizeof(comm), p->comm);
	for (int i = 0; i < ST_COMM_LEN; i++) {
		if (comm[i] != pelt_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* A CPU's or a group's average: no pid, no comm. */
static __always_inline void pelt_send_avg(__u32 cpu, __u32 entity,
					  struct sched_avg *sa, __u32 util_est,
					  __u64 cgroup_id)
{
	struct st_pelt_rec *r = pelt_reserve();

	if (!r)
		return;
	r->ts = bpf_ktime_get_ns();
	r->last_update_time = BPF_CORE_READ(sa, last_update_time);
	r->load_avg = BPF_CORE_READ(sa, load_avg);
	r->pid = -1;
	r->tgid = -1;
	r->cpu = cpu;
	r->entity = entity;
	r->util_avg = BPF_CORE_READ(sa, util_avg);
	r->runnable_avg = BPF_CORE_READ(sa, runnable_avg);
	r->util_est = util_est;
	r->pad = 0;
	__builtin_memset(r->comm, 0, sizeof(r->comm));
	r->cgroup_id = cgroup_id;
	pelt_submit(r);
}

static __always_inline void pelt_rq_avg(struct rq *rq, __u32 entity,
					struct sched_avg *sa, __u32 util_est)
{
	__u32 cpu = BPF_CORE_READ(rq, cpu);

	if (pelt_cpu[cpu & (ST_MAX_CPUS - 1)])
		pelt_send_avg(cpu, entity, sa, util_est, 0);
}

/*
 * A group entity (se->my_q set) of the --pelt-cgroup cgroup: one per CPU,
 * standing for the group's tasks there in its parent's cfs_rq. It keeps no
 * util_est (only tasks' are kept).
 */
static __always_inline void pelt_group(struct sched_entity *se,
				       struct cfs_rq *my_q)
{
	/*
	 * Plain loads through BTF pointers, as for se: a group entity exists
	 * only with FAIR_GROUP_SCHED, which gives cfs_rq its tg and rq.
	 */
	__u64 id = my_q->tg->css.cgroup->kn->id;

	if (id == pelt_cgroup_id)
		pelt_send_avg(my_q->rq->cpu, ST_PELT_GROUP, &se->avg,
			      ST_PELT_NO_UTIL_EST, id);
}

/*
 * pelt_se_tp fires in __update_load_avg_se() when a task's sums crossed a
 * 1024 us period boundary: at the tick for a running task (so once per tick
 * where HZ < 1000), at enqueue and dequeue; a group's entity at the same
 * points of its tasks, as the hierarchy is walked up.
 */
SEC("tp_btf/pelt_se_tp")
int BPF_PROG(pelt_trace_se, struct sched_entity *se)
{
	__u32 pid_off = bpf_core_field_offset(struct task_struct, pid);
	struct { __s32 pid, tgid; } id;
	struct task_struct *p;
	struct st_pelt_rec *r;

	/* Plain loads through the BTF pointer: this runs for every entity. */
	if (bpf_core_field_exists(se->my_q) && se->my_q) {
		/* rodata: without --pelt-cgroup the verifier drops this. */
		if (pelt_cgroup_id)
			pelt_group(se, se->my_q);
		return 0;
	}
	/* Only a group selected: no task is. */
	if (!pelt_by_pid && !pelt_by_comm)
		return 0;
	/*
	 * A task's sched_entity is embedded in its task_struct, which the
	 * verifier cannot reach from @se: one read for pid and tgid, which
	 * sit side by side in every kernel (checked at load).
	 */
	p = (void *)se - bpf_core_field_offset(struct task_struct, se);
	if (bpf_core_field_offset(struct task_struct, tgid) == pid_off + 4) {
		bpf_probe_read_kernel(&id, sizeof(id), (void *)p + pid_off);
	} else {
		id.pid = BPF_CORE_READ(p, pid);
		id.tgid = BPF_CORE_READ(p, tgid);
	}
	if (pelt_by_pid && !bpf_map_lookup_elem(&pelt_pids, &id.pid) &&
	    !bpf_map_lookup_elem(&pelt_pids, &id.tgid))
		return 0;
	if (pelt_by_comm && !pelt_comm_matches(p))
		return 0;
	r = pelt_reserve();
	if (!r)
		return 0;
	r->ts = bpf_ktime_get_ns();
	r->last_update_time = se->avg.last_update_time;
	r->load_avg = se->avg.load_avg;
	r->pid = id.pid;
	r->tgid = id.tgid;
	r->cpu = bpf_get_smp_processor_id();
	r->entity = ST_PELT_TASK;
	r->util_avg = se->avg.util_avg;
	r->runnable_avg = se->avg.runnable_avg;
	r->util_est = avg_util_est(&se->avg);
	r->pad = 0;
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), p->comm);
	pelt_submit(r);
	return 0;
}

/* Fires for every cfs_rq, group ones too: only a CPU's root one is kept. */
SEC("tp_btf/pelt_cfs_tp")
int BPF_PROG(pelt_trace_cfs, struct cfs_rq *cfs)
{
	struct rq *rq = cfs_rq_rq(cfs);

	if (!rq || !cfs_rq_is_root(cfs, rq))
		return 0;
	pelt_rq_avg(rq, ST_PELT_CFS, &cfs->avg, cfs_util_est(cfs));
	return 0;
}

SEC("tp_btf/pelt_rt_tp")
int BPF_PROG(pelt_trace_rt, struct rq *rq)
{
	pelt_rq_avg(rq, ST_PELT_RT, &rq->avg_rt, ST_PELT_NO_UTIL_EST);
	return 0;
}

SEC("tp_btf/pelt_dl_tp")
int BPF_PROG(pelt_trace_dl, struct rq *rq)
{
	pelt_rq_avg(rq, ST_PELT_DL, &rq->avg_dl, ST_PELT_NO_UTIL_EST);
	return 0;
}

/* rq->avg_irq exists only with IRQ or paravirt time accounting. */
SEC("tp_btf/pelt_irq_tp")
int BPF_PROG(pelt_trace_irq, struct rq *rq)
{
	if (!bpf_core_field_exists(rq->avg_irq))
		return 0;
	pelt_rq_avg(rq, ST_PELT_IRQ, &rq->avg_irq, ST_PELT_NO_UTIL_EST);
	return 0;
}

#endif /* SCHEDTOP_PELT_TRACE_BPF_H */
