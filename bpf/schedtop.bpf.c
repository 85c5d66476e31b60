// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop's kernel side. Aggregates in the kernel and keeps hot paths tiny:
 *
 *  - per-task values (PELT, run time, run delay, migrations, context switches)
 *    are the kernel's own fields, read once per sample by the iter/task
 *    program below instead of being copied on every scheduler event;
 *  - per-CPU signals (root cfs_rq, rt, dl, irq, hw pressure, capacity) are
 *    stored by the cold PELT tracepoints into cpu_state[], which user space
 *    reads through mmap;
 *  - sched_switch only bumps per-CPU counters: no map lookup, no helper call
 *    except a clock read on idle transitions;
 *  - the ring buffer carries discrete events only (exit, migration,
 *    overutilized flips), every failed reserve counted per CPU.
 *
 * docs/signals.md says what each signal means.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "core_fixes.bpf.h"
#include "schedtop.h"

char LICENSE[] SEC("license") = "GPL";

/* Set before load: --exact-wakeups. Off, the task storage is not used at all. */
const volatile bool count_wakeups = false;

struct st_cpu_state cpu_state[ST_MAX_CPUS];
struct st_hotplug hotplug[ST_MAX_CPUS];
struct st_global_state global_state;

#define RINGBUF_SIZE		(512 * 1024)
#define RINGBUF_WAKEUP_AT	(RINGBUF_SIZE / 4)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RINGBUF_SIZE);
} events SEC(".maps");

/* Only what the kernel does not count itself without schedstats. */
struct task_local {
	__u64 wakeups;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_local);
} task_locals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);		/* the group sched_entity's address */
	__type(value, struct st_group_val);
} groups SEC(".maps");

/* Completed stays per (CPU, frequency); the current one is in cpu_state. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct st_freq_key);
	__type(value, __u64);
} freq_time SEC(".maps");

static __always_inline struct st_cpu_state *cpu_slot(unsigned int cpu)
{
	return &cpu_state[cpu & (ST_MAX_CPUS - 1)];
}

/*
 * Waking the reader costs an irq_work per event; user space drains at every
 * sample anyway, so only wake it when the buffer is filling up.
 */
static __always_inline void submit(void *e)
{
	__u64 queued = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	bpf_ringbuf_submit(e, queued > RINGBUF_WAKEUP_AT ? BPF_RB_FORCE_WAKEUP :
			   BPF_RB_NO_WAKEUP);
}

static __always_inline void *reserve(__u32 type, __u32 size)
{
	struct st_event_hdr *hdr = bpf_ringbuf_reserve(&events, size, 0);
	__u32 cpu = bpf_get_smp_processor_id();

	if (!hdr) {
		__sync_fetch_and_add(&cpu_slot(cpu)->dropped, 1);
		return NULL;
	}
	hdr->type = type;
	hdr->size = size;
	hdr->ts = bpf_ktime_get_ns();
	hdr->cpu = cpu;
	hdr->pad = 0;
	return hdr;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct st_cpu_state *c = cpu_slot(bpf_get_smp_processor_id());

	c->nr_switches++;
	if (preempt)
		c->nr_preempt++;
	/* The idle task is pid 0 on every CPU. */
	if (next->pid == 0) {
		c->idle_start = bpf_ktime_get_ns();
	} else if (prev->pid == 0 && c->idle_start) {
		c->idle_ns += bpf_ktime_get_ns() - c->idle_start;
		c->idle_start = 0;
	}
	return 0;
}

static __always_inline void count_wakeup(struct task_struct *p)
{
	struct task_local *t;

	t = bpf_task_storage_get(&task_locals, p, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (t)
		t->wakeups++;
	else
		__sync_fetch_and_add(&global_state.storage_fail, 1);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	count_wakeup(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct *p)
{
	count_wakeup(p);
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(on_migrate, struct task_struct *p, int dest_cpu)
{
	struct st_event_migrate *e;

	e = reserve(ST_EV_MIGRATE, sizeof(*e));
	if (!e)
		return 0;
	e->pid = p->pid;
	e->tgid = p->tgid;
	e->orig_cpu = task_cpu(p);
	e->dest_cpu = dest_cpu;
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), p->comm);
	submit(e);
	return 0;
}

static __always_inline void fill_task(struct st_task_rec *r, struct task_struct *p)
{
	struct task_local *t;

	r->pid = BPF_CORE_READ(p, pid);
	r->tgid = BPF_CORE_READ(p, tgid);
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), p->comm);
	r->cpu = task_cpu(p);
	r->state = task_state(p);
	r->exit_state = BPF_CORE_READ(p, exit_state);
	r->flags = BPF_CORE_READ(p, flags);
	r->prio = BPF_CORE_READ(p, prio);
	r->on_rq = BPF_CORE_READ(p, on_rq);
	r->on_cpu = BPF_CORE_READ(p, on_cpu);
	r->sched_delayed = se_delayed(&p->se);
	r->depth = se_depth(&p->se);
	r->start_time = BPF_CORE_READ(p, start_time);
	r->sum_exec_runtime = BPF_CORE_READ(p, se.sum_exec_runtime);
	r->run_delay = BPF_CORE_READ(p, sched_info.run_delay);
	r->nr_migrations = BPF_CORE_READ(p, se.nr_migrations);
	r->nvcsw = BPF_CORE_READ(p, nvcsw);
	r->nivcsw = BPF_CORE_READ(p, nivcsw);
	/* Constant at load: the verifier drops this for kernels without it. */
	if (count_wakeups) {
		t = bpf_task_storage_get(&task_locals, p, 0, 0);
		r->wakeups = t ? t->wakeups : 0;
	}
	r->last_update_time = BPF_CORE_READ(p, se.avg.last_update_time);
	r->load_avg = BPF_CORE_READ(p, se.avg.load_avg);
	r->util_avg = BPF_CORE_READ(p, se.avg.util_avg);
	r->runnable_avg = BPF_CORE_READ(p, se.avg.runnable_avg);
	r->util_est = avg_util_est(&p->se.avg);
	r->period_contrib = BPF_CORE_READ(p, se.avg.period_contrib);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	struct st_event_exit *e;

	e = reserve(ST_EV_EXIT, sizeof(*e));
	if (!e)
		return 0;
	fill_task(&e->task, p);
	submit(e);
	return 0;
}

SEC("iter/task")
int dump_task(struct bpf_iter__task *ctx)
{
	struct task_struct *p = ctx->task;
	struct st_task_rec r = {};

	if (!p)
		return 0;
	fill_task(&r, p);
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}

SEC("tp_btf/pelt_cfs_tp")
int BPF_PROG(on_pelt_cfs, struct cfs_rq *cfs)
{
	struct rq *rq = cfs_rq_rq(cfs);
	struct st_cpu_state *c;

	if (!cfs_rq_is_root(cfs, rq))
		return 0;
	c = cpu_slot(BPF_CORE_READ(rq, cpu));
	c->cfs_ts = bpf_ktime_get_ns();
	c->cfs_lut = BPF_CORE_READ(cfs, avg.last_update_time);
	c->cfs_load = BPF_CORE_READ(cfs, avg.load_avg);
	c->cfs_util = BPF_CORE_READ(cfs, avg.util_avg);
	c->cfs_runnable = BPF_CORE_READ(cfs, avg.runnable_avg);
	c->cfs_h_nr = cfs_h_nr(cfs);
	c->seen |= ST_SEEN_CFS;
	return 0;
}

SEC("tp_btf/pelt_rt_tp")
int BPF_PROG(on_pelt_rt, struct rq *rq)
{
	struct st_cpu_state *c = cpu_slot(BPF_CORE_READ(rq, cpu));

	c->rt_util = BPF_CORE_READ(rq, avg_rt.util_avg);
	c->seen |= ST_SEEN_RT;
	return 0;
}

SEC("tp_btf/pelt_dl_tp")
int BPF_PROG(on_pelt_dl, struct rq *rq)
{
	struct st_cpu_state *c = cpu_slot(BPF_CORE_READ(rq, cpu));

	c->dl_util = BPF_CORE_READ(rq, avg_dl.util_avg);
	c->seen |= ST_SEEN_DL;
	return 0;
}

SEC("tp_btf/pelt_irq_tp")
int BPF_PROG(on_pelt_irq, struct rq *rq)
{
	struct st_cpu_state *c = cpu_slot(BPF_CORE_READ(rq, cpu));

	c->irq_util = rq_irq_util(rq);
	c->seen |= ST_SEEN_IRQ;
	return 0;
}

static __always_inline void store_hw(struct rq *rq)
{
	struct st_cpu_state *c = cpu_slot(BPF_CORE_READ(rq, cpu));

	c->hw_pressure = rq_hw_pressure(rq);
	c->seen |= ST_SEEN_HW;
}

/* One of these two exists, depending on the kernel (see core_fixes.bpf.h). */
SEC("tp_btf/pelt_hw_tp")
int BPF_PROG(on_pelt_hw, struct rq *rq)
{
	store_hw(rq);
	return 0;
}

SEC("tp_btf/pelt_thermal_tp")
int BPF_PROG(on_pelt_thermal, struct rq *rq)
{
	store_hw(rq);
	return 0;
}

SEC("tp_btf/sched_cpu_capacity_tp")
int BPF_PROG(on_cpu_capacity, struct rq *rq)
{
	struct st_cpu_state *c = cpu_slot(BPF_CORE_READ(rq, cpu));

	c->capacity = BPF_CORE_READ(rq, cpu_capacity);
	c->seen |= ST_SEEN_CAPACITY;
	return 0;
}

SEC("tp_btf/sched_overutilized_tp")
int BPF_PROG(on_overutilized, struct root_domain *rd, bool overutilized)
{
	struct st_event_overutilized *e;
	__u32 was = global_state.overutilized;
	__u32 seen = global_state.overutilized_seen;
	__u64 now;

	/* The tracepoint fires on every evaluation; only flips are events. */
	if (seen && was == (__u32)overutilized)
		return 0;
	now = bpf_ktime_get_ns();
	if (was && !overutilized)
		global_state.overutilized_ns += now - global_state.overutilized_since;
	if (overutilized)
		global_state.overutilized_since = now;
	global_state.overutilized = overutilized;
	global_state.overutilized_seen = 1;
	e = reserve(ST_EV_OVERUTILIZED, sizeof(*e));
	if (!e)
		return 0;
	e->overutilized = overutilized;
	e->pad = 0;
	submit(e);
	return 0;
}

/*
 * Fires on every frequency change, for each CPU of the policy: rare next to
 * scheduling. kHz x us keeps the time-weighted sum in 64 bits for months.
 */
SEC("tp_btf/cpu_frequency")
int BPF_PROG(on_cpu_frequency, unsigned int khz, unsigned int cpu)
{
	struct st_cpu_state *c = cpu_slot(cpu);
	__u64 now = bpf_ktime_get_ns();

	if (c->seen & ST_SEEN_FREQ) {
		struct st_freq_key key = { .cpu = cpu, .khz = c->freq_khz };
		__u64 spent = now - c->freq_ts, *ns;

		c->freq_khz_us += (__u64)c->freq_khz * (spent / 1000);
		ns = bpf_map_lookup_elem(&freq_time, &key);
		if (ns)
			__sync_fetch_and_add(ns, spent);
		else if (bpf_map_update_elem(&freq_time, &key, &spent, BPF_NOEXIST))
			__sync_fetch_and_add(&global_state.freq_fail, 1);
	}
	c->freq_khz = khz;
	c->freq_ts = now;
	c->seen |= ST_SEEN_FREQ;
	return 0;
}

#define PWR_EVENT_EXIT	((unsigned int)-1)

/* Entry to an idle state, and exit from it (PWR_EVENT_EXIT), on this CPU. */
SEC("tp_btf/cpu_idle")
int BPF_PROG(on_cpu_idle, unsigned int state, unsigned int cpu)
{
	struct st_cpu_state *c = cpu_slot(cpu);
	__u64 now = bpf_ktime_get_ns();

	if (state != PWR_EVENT_EXIT) {
		c->cstate = state;
		c->cstate_ts = now;
		c->seen |= ST_SEEN_IDLE;
		return 0;
	}
	if (c->cstate >= 0 && c->cstate_ts) {
		int s = c->cstate < ST_IDLE_STATES ? c->cstate : ST_IDLE_STATES - 1;

		c->cstate_ns[s & (ST_IDLE_STATES - 1)] += now - c->cstate_ts;
	}
	c->cstate = -1;
	return 0;
}

static __always_inline void hotplug_step(unsigned int cpu, int target, int idx)
{
	struct st_hotplug *h = &hotplug[cpu & (ST_MAX_CPUS - 1)];
	__u64 now = bpf_ktime_get_ns();
	__u32 up = idx <= target;

	/*
	 * Going down runs the AP's teardown towards CPUHP_TEARDOWN_CPU, then
	 * the control CPU's towards CPUHP_OFFLINE; going up the control CPU's
	 * towards CPUHP_BRINGUP_CPU, then the AP's towards CPUHP_ONLINE. All
	 * steps of one operation run in its direction, the next operation on
	 * this CPU runs the other way (a failed one rolls back: also the
	 * other way). So a change of direction starts an operation; neither
	 * the target nor the time between steps does.
	 */
	if (!h->ops || h->up != up) {
		h->first = now;
		h->ops++;
		h->up = up;
	}
	h->target = target;
	h->last = now;
}

SEC("tp_btf/cpuhp_enter")
int BPF_PROG(on_cpuhp_enter, unsigned int cpu, int target, int idx)
{
	hotplug_step(cpu, target, idx);
	return 0;
}

SEC("tp_btf/cpuhp_multi_enter")
int BPF_PROG(on_cpuhp_multi_enter, unsigned int cpu, int target, int idx)
{
	hotplug_step(cpu, target, idx);
	return 0;
}

SEC("tp_btf/cpuhp_exit")
int BPF_PROG(on_cpuhp_exit, unsigned int cpu)
{
	hotplug[cpu & (ST_MAX_CPUS - 1)].last = bpf_ktime_get_ns();
	return 0;
}

/*
 * Fires only when an entity's PELT sums cross a 1024 us period boundary, so it
 * is cold. Task entities are read by dump_task; only group entities (a
 * cgroup's share on one CPU, se->my_q set) are kept here.
 */
SEC("tp_btf/pelt_se_tp")
int BPF_PROG(on_pelt_se, struct sched_entity *se)
{
	struct cfs_rq *my_q = se_my_q(se);
	struct st_group_val v = {};
	__u64 key = (__u64)se;

	if (!my_q)
		return 0;
	v.ts = bpf_ktime_get_ns();
	v.cgroup_id = BPF_CORE_READ(cfs_rq_tg(my_q), css.cgroup, kn, id);
	if (!v.cgroup_id)
		v.autogroup_id = tg_autogroup_id(cfs_rq_tg(my_q));
	v.load_avg = BPF_CORE_READ(se, avg.load_avg);
	v.util_avg = BPF_CORE_READ(se, avg.util_avg);
	v.runnable_avg = BPF_CORE_READ(se, avg.runnable_avg);
	v.cpu = BPF_CORE_READ(cfs_rq_rq(my_q), cpu);
	v.depth = se_depth(se);
	if (bpf_map_update_elem(&groups, &key, &v, BPF_ANY))
		__sync_fetch_and_add(&global_state.group_fail, 1);
	return 0;
}
