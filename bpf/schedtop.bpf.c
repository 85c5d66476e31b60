// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop's kernel side. Aggregates in the kernel and keeps hot paths tiny:
 *
 *  - per-task values (PELT, run time, run delay, migrations, context switches)
 *    are the kernel's own fields, read once per sample by the iter/task
 *    program below instead of being copied on every scheduler event;
 *  - per-CPU values (root cfs_rq, rt, dl, irq, hw pressure, capacities,
 *    nr_running, nr_switches, idle time, overutilized) are the runqueue's
 *    and tick_sched's own, copied by the same iterator's last call into
 *    cpu_state[], which user space reads through mmap;
 *  - by default nothing runs on sched_switch, wakeups, idle entry or
 *    enqueue/dequeue; --exact-wakeups adds sched_waking, sched_wakeup_new
 *    and a counter on sched_switch (docs/performance.md says the cost);
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
#include "pelt_decay.h"

char LICENSE[] SEC("license") = "GPL";

/* Set before load: --exact-wakeups. Off, the task storage is not used at all. */
const volatile bool count_wakeups = false;
/* Set before load: CPUs whose runqueue read_cpus() copies. */
const volatile __u32 nr_cpus = 1;

struct st_cpu_state cpu_state[ST_MAX_CPUS];
struct st_hotplug hotplug[ST_MAX_CPUS];
/* A cpuhp_multi_enter waiting for its cpuhp_exit to say what it was. */
static struct {
	__u64 ts;
	__s32 target;
	__s32 idx;
	__u32 set;
	__u32 pad;
} hotplug_multi[ST_MAX_CPUS];
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

/*
 * --exact-wakeups only: the kernel counts switches (rq->nr_switches) but
 * not which of them preempted.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	if (preempt)
		cpu_slot(bpf_get_smp_processor_id())->nr_preempt++;
	return 0;
}

static __always_inline void count_wakeup(struct task_struct *p)
{
	struct task_local *t;

	t = bpf_task_storage_get(&task_locals, p, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (t) {
		t->wakeups++;
	} else {
		/* A wakeup not counted (no memory for the task's storage):
		 * lost, shown as this CPU's dropped. */
		__sync_fetch_and_add(&global_state.storage_fail, 1);
		__sync_fetch_and_add(&cpu_slot(bpf_get_smp_processor_id())->dropped, 1);
	}
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

/*
 * @p is a BTF pointer (iterator, tp_btf): plain loads, relocated by CO-RE,
 * instead of a bpf_probe_read_kernel() call per field: 467 ns a task
 * instead of 856 measured here.
 */
static __always_inline void fill_task(struct st_task_rec *r, struct task_struct *p)
{
	struct task_local *t;

	r->pid = p->pid;
	r->tgid = p->tgid;
	/*
	 * A plain copy, not _str: the kernel keeps comm NUL-terminated within
	 * its 16 bytes, and the byte-by-byte string copy was 13% of a
	 * sample's CPU time with 10,000 tasks. User space stops at the NUL.
	 * Two plain 8-byte loads, not a bpf_probe_read_kernel() call.
	 */
	__builtin_memcpy(r->comm, p->comm, sizeof(r->comm));
	r->cpu = task_cpu(p);
	r->state = task_state(p);
	r->exit_state = p->exit_state;
	r->flags = p->flags;
	r->prio = p->prio;
	r->on_rq = p->on_rq;
	r->on_cpu = p->on_cpu;
	r->sched_delayed = se_delayed(&p->se);
	r->depth = se_depth(&p->se);
	r->start_time = p->start_time;
	r->sum_exec_runtime = p->se.sum_exec_runtime;
	r->run_delay = p->sched_info.run_delay;
	r->nr_migrations = p->se.nr_migrations;
	r->nvcsw = p->nvcsw;
	r->nivcsw = p->nivcsw;
	/* Constant at load: the verifier drops this for kernels without it. */
	r->wakeups = 0;
	if (count_wakeups) {
		t = bpf_task_storage_get(&task_locals, p, 0, 0);
		r->wakeups = t ? t->wakeups : 0;
	}
	r->last_update_time = p->se.avg.last_update_time;
	r->load_avg = p->se.avg.load_avg;
	r->util_avg = p->se.avg.util_avg;
	r->runnable_avg = p->se.avg.runnable_avg;
	r->util_est = avg_util_est(&p->se.avg);
	r->period_contrib = p->se.avg.period_contrib;
	r->load_sum = p->se.avg.load_sum;
	r->runnable_sum = p->se.avg.runnable_sum;
	r->util_sum = p->se.avg.util_sum;
	/* scale_load_down(): 64-bit kernels keep weights << 10. */
	r->weight = p->se.load.weight >> 10;
	r->nr_cpus_allowed = p->nr_cpus_allowed;
	r->max_allowed_capacity = task_max_allowed_capacity(p);
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

/*
 * Runqueue addresses learned from the tasks (task_rq()), for kernels whose
 * kallsyms cannot resolve runqueues; a runqueue never moves.
 */
__u64 rq_addr[ST_MAX_CPUS];

static __always_inline void learn_rq(struct task_struct *p, __u32 cpu)
{
	struct rq *rq;

	if (rq_addr[cpu & (ST_MAX_CPUS - 1)])
		return;
	rq = task_rq(p);
	if (rq)
		rq_addr[BPF_CORE_READ(rq, cpu) & (ST_MAX_CPUS - 1)] = (__u64)rq;
}

static __always_inline struct rq *cpu_rq(__u32 cpu, bool ksyms)
{
	if (ksyms)
		return bpf_per_cpu_ptr(&runqueues, cpu);
	return (struct rq *)rq_addr[cpu & (ST_MAX_CPUS - 1)];
}

/*
 * The PELT clock now: rq_clock_pelt() (rq->clock_pelt less the idle time
 * lost while the CPU was full, rq->lost_idle_time: with capacity or
 * frequency invariance, a busy CPU's PELT clock lags and what it never
 * caught up on is lost) as of the CPU's last rq clock update, advanced by
 * the sched_clock time since (as the kernel does for an idle CPU in
 * migrate_se_pelt_lag()). BPF has no sched_clock: @sched_now is
 * sched_now() below. A CPU that updated its clocks after @sched_now (the
 * reading CPU stalled between its clock read and this one: 0.2 and 2.9 ms
 * under QEMU's TCG, where pelt_age_ns then came out past the kernel's own
 * clock) gives its PELT clock as of its own rq clock, @ahead later.
 */
static __always_inline __u64 pelt_clock_now(struct rq *rq, __u64 sched_now,
					    __u64 *ahead)
{
	__u64 lut = BPF_CORE_READ(rq, cfs.avg.last_update_time);
	__u64 clock = 0, pelt = 0;

	/* clock_pelt: every SMP kernel since 5.1; else what the cfs_rq saw. */
	if (!bpf_core_field_exists(rq->clock_pelt))
		return lut;
	/*
	 * Read without the rq lock: the CPU may update its clocks (clock,
	 * then clock_pelt) between the two reads, and clock_pelt then stands
	 * for a later instant than clock: the clock came out ahead by the
	 * time since its update before (6.12 guest: a sleeper's pelt_age_ns
	 * 3.6 ms past the kernel's own clock, once in 40 samples). The pair
	 * counts where clock read the same before and after.
	 */
	for (int i = 0; i < 4; i++) {
		clock = BPF_CORE_READ(rq, clock);
		pelt = BPF_CORE_READ(rq, clock_pelt);
		if (bpf_core_field_exists(rq->lost_idle_time))
			pelt -= BPF_CORE_READ(rq, lost_idle_time);
		if (BPF_CORE_READ(rq, clock) == clock)
			break;
	}
	if ((__s64)(sched_now - clock) > 0)
		pelt += sched_now - clock;
	else
		*ahead = clock - sched_now;
	return pelt > lut ? pelt : lut;
}

static __always_inline __u32 clamp32(__u64 v)
{
	return v < 0xffffffff ? v : 0xffffffff;
}

/*
 * Adds one cfs_rq's pending removals (see st_cpu_state.cfs_removed_util),
 * decayed to @now: cfs_rq.removed is synced to the cfs_rq's
 * avg.last_update_time (remove_entity_load_avg()), and the update that
 * takes it off decays the rest from there.
 */
static __always_inline void add_removed(struct cfs_rq *cfs, __u64 now,
					__u64 *util, __u64 *load)
{
	unsigned long u = BPF_CORE_READ(cfs, removed.util_avg);
	unsigned long l = BPF_CORE_READ(cfs, removed.load_avg);
	__u64 n;

	if (!u && !l)
		return;
	n = st_pelt_periods(BPF_CORE_READ(cfs, avg.last_update_time),
			    BPF_CORE_READ(cfs, avg.period_contrib), now);
	*util += st_pelt_decay32(clamp32(u), n);
	*load += st_pelt_decay32(clamp32(l), n);
}

/* A PELT average decayed from its last update to @now, as the next will. */
static __always_inline __u32 avg_at(struct sched_avg *sa, unsigned long v,
				    __u64 now)
{
	return st_pelt_decay32(clamp32(v),
			       st_pelt_periods(BPF_CORE_READ(sa, last_update_time),
					       BPF_CORE_READ(sa, period_contrib),
					       now));
}

/*
 * The verifier explores every path through a loop: groups_removed()'s,
 * inlined in the walk over CPUs with its sums in registers (each path a
 * different range), went past its 1M instructions. So it is a global
 * function, checked once by itself (its loop's body another), and sums
 * here, in memory, whose values the verifier does not track. One iterator
 * reads them at a time: read_cpus() runs in its last call.
 */
static __u64 groups_util, groups_load;
static __s64 groups_lag;
struct st_group_samples group_samples;

/*
 * Keeps group entity @gse (its cfs_rq @cfs, on @cpu) as the kernel has it
 * now, in group_samples: its last update was @pelt_now less its
 * last_update_time ago on its cfs_rq's PELT clock (rq_clock_pelt() less
 * the time its parent spent throttled, cfs_rq_clock_pelt()), stamped on
 * the monotonic clock from @ktime.
 */
static __always_inline void group_sample(struct sched_entity *gse,
					 struct cfs_rq *cfs, int cpu,
					 __u64 pelt_now, __u64 ktime)
{
	struct task_group *tg = cfs_rq_tg(cfs);
	struct st_group_val *g;
	__u64 lut, age = 0;
	__u32 i = group_samples.nr;

	if (i >= ST_MAX_GROUP_SAMPLES) {
		/* Not shown this sample: a read lost, counted. */
		__sync_fetch_and_add(&cpu_slot(cpu)->dropped, 1);
		return;
	}
	g = &group_samples.g[i & (ST_MAX_GROUP_SAMPLES - 1)];
	__builtin_memset(g, 0, sizeof(*g));
	g->cgroup_id = BPF_CORE_READ(tg, css.cgroup, kn, id);
	if (!g->cgroup_id)
		g->autogroup_id = tg_autogroup_id(tg);
	g->cpu = cpu;
	if (bpf_core_field_exists(gse->depth))
		g->depth = BPF_CORE_READ(gse, depth);
	g->load_avg = BPF_CORE_READ(gse, avg.load_avg);
	g->util_avg = BPF_CORE_READ(gse, avg.util_avg);
	g->runnable_avg = BPF_CORE_READ(gse, avg.runnable_avg);
	lut = BPF_CORE_READ(gse, avg.last_update_time);
	pelt_now -= cfs_rq_throttled_pelt(se_cfs_rq(gse));
	if ((__s64)(pelt_now - lut) > 0)
		age = pelt_now - lut;
	g->ts = ktime > age ? ktime - age : 0;
	group_samples.nr = i + 1;
}

/*
 * Adds what the task groups of the runqueue at @rq_addr hold in the root
 * for tasks that left, for each cfs_rq on rq->leaf_cfs_rq_list (the ones
 * not fully decayed nor throttled) but the root:
 * - its pending removals, to groups_util and groups_load;
 * - its entity's util less its own (groups_lag): an update of the group's
 *   cfs_rq alone takes a removal off it, and the entity, in its parent,
 *   keeps it until the group propagates (at its entity's next update: on
 *   an idle CPU, the next blocked-load update, tens of ms away). Nested
 *   groups add up level by level. Both decayed to @now.
 * The list is read node by node under the iterator's RCU read lock, as
 * list_for_each_entry_rcu() would: it ends at the head. A global function
 * takes scalars only (6.12 refused the runqueue's BTF pointer): addresses
 * here are plain numbers. Returns 1 when the list held more than
 * ST_MAX_LEAF_CFS_RQS task groups' cfs_rqs, the rest unread (the sums
 * are short).
 *
 * One cfs_rq is group_removed(), a global function too: the verifier walks
 * a bounded loop once per turn, and every branch of the body (a removal
 * or none, an entity or none, a sample kept or dropped) doubled the
 * states of each turn: 32 turns made 70,000 of the 73,000 instructions it
 * checked for the walk's program, and 80 ms of the start (the table's scan,
 * which reads the CPUs too, as much). Called, the body is checked once and
 * a turn is a few instructions: 8,500 and 12,400 for the two programs.
 */
__noinline int group_removed(__u64 cfs_addr, int cpu, __u64 now, __u64 ktime)
{
	struct cfs_rq *cfs = (struct cfs_rq *)cfs_addr;
	struct sched_entity *gse;
	__u64 ses;

	add_removed(cfs, now, &groups_util, &groups_load);
	ses = (__u64)BPF_CORE_READ(cfs, tg, se);
	if (!ses || bpf_probe_read_kernel(&gse, sizeof(gse),
			(void *)(ses + (__u64)cpu * sizeof(gse))) || !gse)
		return 0;
	groups_lag += (__s64)avg_at(&gse->avg,
				    BPF_CORE_READ(gse, avg.util_avg), now) -
		      avg_at(&cfs->avg, BPF_CORE_READ(cfs, avg.util_avg), now);
	group_sample(gse, cfs, cpu, now, ktime);
	return 0;
}

__noinline int groups_removed(__u64 rq_addr, __u64 now, __u64 ktime)
{
	struct rq *rq = (struct rq *)rq_addr;
	__u64 head, root, pos, cfs;
	int cpu;

	if (!rq_addr || !bpf_core_field_exists(rq->leaf_cfs_rq_list) ||
	    !bpf_core_field_exists(rq->cfs.removed))
		return 0;
	cpu = BPF_CORE_READ(rq, cpu);
	head = rq_addr + bpf_core_field_offset(struct rq, leaf_cfs_rq_list);
	root = rq_addr + bpf_core_field_offset(struct rq, cfs);
	pos = (__u64)BPF_CORE_READ(rq, leaf_cfs_rq_list.next);
	for (int i = 0; i < ST_MAX_LEAF_CFS_RQS && pos && pos != head; i++) {
		cfs = pos - bpf_core_field_offset(struct cfs_rq, leaf_cfs_rq_list);
		pos = (__u64)BPF_CORE_READ((struct list_head *)pos, next);
		if (cfs != root)
			group_removed(cfs, cpu, now, ktime);
	}
	/*
	 * Unread: what is left but the root, which the kernel keeps at the
	 * list's tail (read_removed() reads it): 32 groups and the root
	 * were all read.
	 */
	return pos && pos != head &&
	       pos != root + bpf_core_field_offset(struct cfs_rq, leaf_cfs_rq_list);
}

/* The root's pending removals and its groups'. */
static __always_inline void read_removed(struct rq *rq, struct st_cpu_state *c)
{
	__u64 util = 0, load = 0;
	__s64 left;

	if (!bpf_core_field_exists(rq->cfs.removed))
		return;
	add_removed(&rq->cfs, c->cfs_lut, &util, &load);
	groups_util = 0;
	groups_load = 0;
	groups_lag = 0;
	/* Task groups keep a back pointer: the runqueue's address, read. */
	/*
	 * More task groups than read: blocked util and load are short by
	 * theirs. Counted as a dropped read of this CPU, so that it shows.
	 */
	if (bpf_core_field_exists(rq->cfs.rq) &&
	    groups_removed((__u64)BPF_CORE_READ(rq, cfs.rq), c->cfs_lut,
			   c->cfs_ts))
		__sync_fetch_and_add(&c->dropped, 1);
	left = (__s64)(util + groups_util) + groups_lag;
	c->cfs_removed_util = left > 0 ? clamp32(left) : 0;
	c->cfs_removed_load = clamp32(load + groups_load);
}

/* One CPU's runqueue (and, with ksyms, idle time), as they are now. */
static __always_inline void read_cpu(__u32 cpu, __u64 now, __u64 sched_now,
				     bool ksyms)
{
	struct st_cpu_state *c = cpu_slot(cpu);
	__u64 ahead = 0;
	__u32 seen = ST_SEEN_CFS | ST_SEEN_RT | ST_SEEN_DL | ST_SEEN_CAPACITY |
		     ST_SEEN_RQ;
	struct cfs_rq *cfs;
	struct rq *rq;
	int ou;

	rq = cpu_rq(cpu, ksyms);
	if (!rq)
		return;
	cfs = &rq->cfs;
	c->cfs_lut = pelt_clock_now(rq, sched_now, &ahead);
	c->cfs_ts = now + ahead;
	c->cfs_load = BPF_CORE_READ(cfs, avg.load_avg);
	c->cfs_util = BPF_CORE_READ(cfs, avg.util_avg);
	c->cfs_runnable = BPF_CORE_READ(cfs, avg.runnable_avg);
	c->cfs_util_est = cfs_util_est(cfs);
	c->cfs_h_nr = cfs_h_nr(cfs);
	read_removed(rq, c);
	c->rt_util = BPF_CORE_READ(rq, avg_rt.util_avg);
	c->dl_util = BPF_CORE_READ(rq, avg_dl.util_avg);
	if (bpf_core_field_exists(rq->avg_irq)) {
		c->irq_util = rq_irq_util(rq);
		seen |= ST_SEEN_IRQ;
	}
	if (rq_has_hw_pressure(rq)) {
		c->hw_pressure = rq_hw_pressure(rq);
		seen |= ST_SEEN_HW;
	}
	c->capacity = BPF_CORE_READ(rq, cpu_capacity);
	if (bpf_core_field_exists(rq->misfit_task_load)) {
		c->misfit_task_load = BPF_CORE_READ(rq, misfit_task_load);
		seen |= ST_SEEN_MISFIT;
	}
	c->nr_running = BPF_CORE_READ(rq, nr_running);
	c->nr_switches = BPF_CORE_READ(rq, nr_switches);
	ou = rq_overutilized(rq);
	c->overutilized = ou;
	if (ou >= 0)
		seen |= ST_SEEN_OVERUTILIZED;
	if (ksyms) {
		c->idle_ns = cpu_idle_ns(cpu, now);
		c->idle_start = 0;
		seen |= ST_SEEN_IDLE_TIME;
	}
	/* Bits of the event programs (frequency) stay as they are. */
	c->seen = (c->seen & ST_SEEN_FREQ) | seen;
}

/*
 * The reading CPU's rq clock and the monotonic clock at the walk's first
 * call: user space has just brought that rq clock up to date
 * (bpfsrc_sample()), so the pair says where sched_clock stood then.
 */
static __u64 walk_clock, walk_ktime;

static __always_inline void walk_begins(bool ksyms)
{
	struct rq *self = cpu_rq(bpf_get_smp_processor_id(), ksyms);

	walk_clock = self ? BPF_CORE_READ(self, clock) : 0;
	walk_ktime = bpf_ktime_get_ns();
}

/*
 * sched_clock at @now, from below: the reading CPU's rq clock @clock is as
 * of its last update (a tick or a switch, up to 1/HZ ago: the blocked
 * tasks' decay came out that much short, 8% of their util at HZ=250), the
 * walk's first clock advanced by the monotonic time since is as of the
 * walk's start (microseconds after user space updated it). The later of
 * the two. Both clocks must be read before @now: one updated after it
 * stands for a later instant, and every CPU's PELT clock came out ahead by
 * as much (see read_cpus()).
 */
static __always_inline __u64 sched_now(__u64 clock, __u64 now)
{
	__u64 since = walk_clock && now > walk_ktime ?
		      walk_clock + (now - walk_ktime) : 0;

	return since > clock ? since : clock;
}

/* Every CPU the kernel may have (offline ones keep their last values). */
static __always_inline void read_cpus(bool ksyms)
{
	struct rq *self = cpu_rq(bpf_get_smp_processor_id(), ksyms);
	/*
	 * This CPU's rq clock before the monotonic time, not after: a tick
	 * (or another CPU's update_rq_clock() of this rq) between the two
	 * made the clock stand for a later instant than @now, and every
	 * CPU's PELT clock ahead by as much. Under QEMU's TCG a vCPU stalls
	 * for milliseconds at any instruction and the tick that came due
	 * meanwhile runs first on its return: in 2 of 150 samples of a 6.12
	 * guest this clock, read right after @now, stood 0.12 and 2.0 ms
	 * past sched_clock at @now (walks of 3.6 and 2.4 ms, 0.2 normally),
	 * and CI saw a sleeper's pelt_age_ns 4.35 ms past the kernel's clock.
	 */
	__u64 self_clock = self ? BPF_CORE_READ(self, clock) : 0;
	__u64 now = bpf_ktime_get_ns();
	__u64 sched_clock_now = sched_now(self_clock, now);

	group_samples.nr = 0;

	for (__u32 cpu = 0; cpu < nr_cpus && cpu < ST_MAX_CPUS; cpu++)
		read_cpu(cpu, now, sched_clock_now, ksyms);
	/*
	 * The sample's instant: after every CPU's read, each of which stands
	 * for its cfs_ts, no later (a CPU's clocks may have moved past @now
	 * before its turn); user space brings their PELT clocks to this.
	 */
	global_state.cpus_read_ts = bpf_ktime_get_ns();
	walk_clock = 0;
}

/*
 * Called once per task, then once with no task when the walk ends: that
 * last call reads the CPUs, so one read() of the iterator is one sample.
 */
static __always_inline int dump(struct bpf_iter__task *ctx, bool ksyms)
{
	struct task_struct *p = ctx->task;
	struct st_task_rec r = {};

	if (!p) {
		read_cpus(ksyms);
		return 0;
	}
	if (ctx->meta->seq_num == 0)
		walk_begins(ksyms);
	fill_task(&r, p);
	if (!ksyms)
		learn_rq(p, r.cpu);
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}

/* User space loads one of the two (bpfsrc_cpus_ksyms_resolvable()). */
SEC("iter/task")
int dump_task(struct bpf_iter__task *ctx)
{
	return dump(ctx, true);
}

SEC("iter/task")
int dump_task_nosym(struct bpf_iter__task *ctx)
{
	return dump(ctx, false);
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

static __always_inline void hotplug_step(unsigned int cpu, int target, int idx,
					 __u64 now)
{
	struct st_hotplug *h = &hotplug[cpu & (ST_MAX_CPUS - 1)];
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

/* Every step to user space too, for recordings' per-state breakdown. */
static __always_inline void send_cpuhp(__u32 kind, unsigned int cpu,
				       int target, int idx, int ret, __u64 fun)
{
	struct st_event_cpuhp *e = reserve(ST_EV_CPUHP, sizeof(*e));

	if (!e)
		return;
	e->fun = fun;
	e->kind = kind;
	e->cpu = cpu;
	e->target = target;
	e->idx = idx;
	e->ret = ret;
	e->pad = 0;
	submit(e);
}

SEC("tp_btf/cpuhp_enter")
int BPF_PROG(on_cpuhp_enter, unsigned int cpu, int target, int idx)
{
	hotplug_step(cpu, target, idx, bpf_ktime_get_ns());
	return 0;
}

/*
 * The callback's address tells cpuhp_kick_ap_work() from a state's. A
 * tp_btf program may not read it (a function pointer is no struct to the
 * verifier); a raw tracepoint's arguments are plain u64s.
 */
SEC("raw_tp/cpuhp_enter")
int BPF_PROG(on_cpuhp_enter_step, unsigned int cpu, int target, int idx,
	     void *fun)
{
	send_cpuhp(ST_CPUHP_ENTER, cpu, target, idx, 0, (__u64)fun);
	return 0;
}

SEC("raw_tp/cpuhp_multi_enter")
int BPF_PROG(on_cpuhp_multi_enter_step, unsigned int cpu, int target, int idx,
	     void *fun)
{
	send_cpuhp(ST_CPUHP_MULTI_ENTER, cpu, target, idx, 0, (__u64)fun);
	return 0;
}

/*
 * A multi-instance callback runs in an operation, once per instance, but also
 * when an instance is added or removed on a CPU that stays as it is: every new
 * tracefs instance adds one to CPUHP_TRACE_RB_PREPARE on every online CPU, a
 * step "up" that is no operation. Its cpuhp_exit tells: in an operation the
 * CPU's state is the step's (going up) or the one below it (going down, or
 * the step itself before 5.7's cpuhp_next_state()); an instance call leaves
 * it where the CPU is, far from the step. So the step is kept until then.
 */
SEC("tp_btf/cpuhp_multi_enter")
int BPF_PROG(on_cpuhp_multi_enter, unsigned int cpu, int target, int idx)
{
	unsigned int i = cpu & (ST_MAX_CPUS - 1);

	hotplug_multi[i].ts = bpf_ktime_get_ns();
	hotplug_multi[i].target = target;
	hotplug_multi[i].idx = idx;
	hotplug_multi[i].set = 1;
	return 0;
}

SEC("tp_btf/cpuhp_exit")
int BPF_PROG(on_cpuhp_exit, unsigned int cpu, int state, int idx, int ret)
{
	unsigned int i = cpu & (ST_MAX_CPUS - 1);

	send_cpuhp(ST_CPUHP_EXIT, cpu, state, idx, ret, 0);

	if (hotplug_multi[i].set) {
		hotplug_multi[i].set = 0;
		if (state != hotplug_multi[i].idx &&
		    state != hotplug_multi[i].idx - 1)
			return 0;
		hotplug_step(cpu, hotplug_multi[i].target,
			     hotplug_multi[i].idx, hotplug_multi[i].ts);
	}
	hotplug[i].last = bpf_ktime_get_ns();
	return 0;
}

/* --pelt-trace: its programs, loaded only when asked for. */
#include "pelt_trace.bpf.h"

/* The task table, where the kernel has what it needs (6.4+). */
#include "task_table.bpf.h"
