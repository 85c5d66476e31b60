/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The task table, part of schedtop.bpf.c (included at its end): where the
 * kernel has bpf_task_acquire() and open-coded iterators (6.4+), a sample
 * reads the tasks it holds instead of walking them with the task iterator,
 * and sends only the records that changed (docs/performance.md).
 *
 * Why: the task iterator finds each task by pid (a radix-tree step, the
 * struct pid, then a reference taken and dropped: two atomic operations on
 * a cache line that is cold at every sample), one task after the other, and
 * writes every task's record through the seq_file for user space to match
 * again. A walk of the task list is no better: each next task is known only
 * once the last one's cache line came in. Here the tasks' addresses are in
 * an array, so the CPU fetches several tasks' lines at once, and a task that
 * did not change costs the lines its fingerprint is read from.
 *
 * The table: a slot per pid (task_table, pid_max slots, a power of two)
 * holds a reference to its task (a kptr), taken when the task was made
 * (track_new: task_newtask, at the end of copy_process(), which every new
 * task passes, io_uring's and vhost's workers too, which sched_process_fork
 * misses) or when schedtop started (fill_task_table, run once through the
 * task iterator);
 * task_bits marks the slots in use. A task released by the kernel (gone
 * from its pid, as the iterator would no longer find it) is let go at the
 * next sample, which says so (ST_TASK_GONE). An exec by a thread other than
 * the leader takes the leader's pid (de_thread()): track_exec moves it.
 * Only processes whose leader the table holds, and their threads, are
 * taken: what the task iterator leaves out (a kernel may hide a process from
 * it) stays out.
 *
 * Loaded only where user space found the kfuncs and pid_max fits
 * (bpf_tasks.c); elsewhere, and if anything here fails, the iterator walk
 * (dump_task) reads every task as before.
 */
#ifndef SCHEDTOP_TASK_TABLE_BPF_H
#define SCHEDTOP_TASK_TABLE_BPF_H

/* include/linux/sched.h: set by exit_signals() in do_exit(), never cleared. */
#define PF_EXITING	0x00000004

/* Set before load: the table's size (a power of two, >= pid_max). */
const volatile __u32 task_slots = 1;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* task_slots, set by user space */
	__type(key, __u32);
	/* .task is a kptr: user space tags it so (bpfsrc_tag_kptr()). */
	__type(value, struct st_task_slot);
} task_table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, ST_TASK_OUT);
	__type(key, __u32);
	__type(value, struct st_task_out);
} task_out SEC(".maps");

/* One bit per slot in use: a sample reads the tasks, not every slot. */
__u64 task_bits[ST_MAX_TASK_SLOTS / 64];
struct st_task_scan task_scan;

/* The lowest set bit's index, by a de Bruijn sequence (no ctz in BPF). */
static const __u8 debruijn64[64] = {
	0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
	62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
	63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
	46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6,
};

static __always_inline __u32 lowest_bit(__u64 bits)
{
	return debruijn64[(((bits & -bits) * 0x03f79d71b4cb0a89ULL) >> 58) & 63];
}

static __always_inline struct st_task_slot *task_slot(__u32 k)
{
	return bpf_map_lookup_elem(&task_table, &k);
}

/*
 * Takes a reference to @p into its pid's slot. A task already there is let
 * go: the same one (taken twice while schedtop starts), or one released
 * whose slot the next sample has not read yet (it says so then: the slot's
 * id is not this task's).
 */
static __always_inline void table_insert(struct task_struct *p)
{
	struct task_struct *old;
	struct st_task_slot *slot;
	__u32 pid = p->pid;

	/* An idle task (fork_idle()): the iterator lists none either. */
	if (!pid)
		return;
	/* pid_max was raised after the table was made: it cannot hold it. */
	if (pid >= task_slots) {
		__sync_fetch_and_add(&task_scan.lost, 1);
		return;
	}
	slot = task_slot(pid);
	if (!slot)
		return;
	p = bpf_task_acquire(p);
	if (!p) {
		__sync_fetch_and_add(&task_scan.lost, 1);
		return;
	}
	old = bpf_kptr_xchg(&slot->task, p);
	if (old)
		bpf_task_release(old);
	/*
	 * After the task is in its slot: a sample that clears the bit reads
	 * the slot again after clearing (scan_table()).
	 */
	__sync_fetch_and_or(&task_bits[(pid / 64) & (ST_MAX_TASK_SLOTS / 64 - 1)],
			    1ULL << (pid % 64));
}

/* A process or thread whose process the table holds (see the top). */
static __always_inline bool table_holds_process(struct task_struct *p)
{
	struct st_task_slot *slot;
	__u32 tgid = p->tgid;

	if (tgid == (__u32)p->pid)
		return true;
	if (tgid >= task_slots)
		return false;
	slot = task_slot(tgid);
	return slot && slot->task == (__u64)p->group_leader;
}

SEC("tp_btf/task_newtask")
int BPF_PROG(track_new, struct task_struct *p, unsigned long clone_flags)
{
	if (table_holds_process(p))
		table_insert(p);
	return 0;
}

/*
 * de_thread() gave the exec'ing thread its leader's pid (the leader is
 * released by then): its reference moves there. The slot it leaves is
 * empty; the next sample says it is gone.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(track_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct st_task_slot *slot;
	struct task_struct *t;

	if (old_pid == p->pid || (__u32)old_pid >= task_slots)
		return 0;
	slot = task_slot(old_pid);
	if (!slot)
		return 0;
	/* A thread the table does not hold stays out (see the top). */
	t = bpf_kptr_xchg(&slot->task, NULL);
	if (!t)
		return 0;
	bpf_task_release(t);
	table_insert(p);
	return 0;
}

/* Every task the iterator lists, once, as schedtop starts. */
SEC("iter/task")
int fill_task_table(struct bpf_iter__task *ctx)
{
	struct task_struct *p = ctx->task;

	if (p)
		table_insert(p);
	return 0;
}

/* What a record is sent again for (struct st_task_fp). */
static __always_inline void read_fp(struct st_task_fp *f, struct task_struct *p)
{
	struct task_local *t;

	f->sum_exec_runtime = p->se.sum_exec_runtime;
	f->last_update_time = p->se.avg.last_update_time;
	f->load_avg = p->se.avg.load_avg;
	f->nr_migrations = p->se.nr_migrations;
	f->weight = p->se.load.weight;
	f->nvcsw = p->nvcsw;
	f->nivcsw = p->nivcsw;
	f->run_delay = p->sched_info.run_delay;
	f->wakeups = 0;
	if (count_wakeups) {
		t = bpf_task_storage_get(&task_locals, p, 0, 0);
		f->wakeups = t ? t->wakeups : 0;
	}
	__builtin_memcpy(f->comm, p->comm, sizeof(f->comm));
	f->state = task_state(p);
	f->flags = p->flags;
	f->cpu = task_cpu(p);
	f->prio = p->prio;
	f->util_est = avg_util_est(&p->se.avg);
	f->nr_cpus_allowed = p->nr_cpus_allowed;
	f->max_allowed_capacity = task_max_allowed_capacity(p);
	f->on_rq = p->on_rq;
	f->on_cpu = p->on_cpu;
	f->sched_delayed = se_delayed(&p->se);
	f->depth = se_depth(&p->se);
}

static __always_inline bool fp_differs(const struct st_task_fp *a,
				       const struct st_task_fp *b)
{
	const __u64 *x = (const void *)a, *y = (const void *)b;
	__u64 diff = 0;

#pragma unroll
	for (int i = 0; i < sizeof(*a) / 8; i++)
		diff |= x[i] ^ y[i];
	return diff != 0;
}

/* The next record of task_out, or NULL when it is full. */
static __always_inline struct st_task_out *out_next(__u32 change, __s32 pid)
{
	__u32 n = task_scan.nr_out;
	struct st_task_out *o;

	o = bpf_map_lookup_elem(&task_out, &n);
	if (!o)
		return NULL;
	task_scan.nr_out = n + 1;
	o->change = change;
	o->pid = pid;
	return o;
}

/* The slot is empty now; its bit too, unless a fork filled it meanwhile. */
static __always_inline void slot_emptied(struct st_task_slot *slot, __u32 k)
{
	__u64 *word = &task_bits[(k / 64) & (ST_MAX_TASK_SLOTS / 64 - 1)];

	if (slot->id)
		out_next(ST_TASK_GONE, k);
	slot->id = 0;
	/*
	 * A fetching atomic orders as a full barrier (the BPF memory model),
	 * so the slot is read again after the bit is clear; table_insert()
	 * sets the bit after filling the slot.
	 */
	if (__sync_fetch_and_and(word, ~(1ULL << (k % 64))) && slot->task)
		__sync_fetch_and_or(word, 1ULL << (k % 64));
}

/*
 * One slot: a task released since the last sample is let go and reported
 * gone; one new in its slot, changed, or exiting (its exit_state moves
 * without it running: a zombie reaped) is sent whole. Returns false when
 * task_out has no room left.
 */
static __always_inline bool scan_slot(__u32 k, bool ksyms)
{
	struct st_task_slot *slot = task_slot(k);
	struct st_task_out *o;
	struct task_struct *p, *t;
	struct st_task_fp fp;

	if (!slot)
		return true;
	if (task_scan.nr_out >= ST_TASK_OUT)
		return false;
	p = (void *)slot->task;
	if (!p) {
		slot_emptied(slot, k);
		return true;
	}
	if ((p->flags & PF_EXITING) && !p->thread_pid) {
		t = bpf_kptr_xchg(&slot->task, NULL);
		/*
		 * A fork given p's pid since the read above (track_new put it
		 * in the slot): put it back, or it would never be held again.
		 */
		if (t && t != p) {
			t = bpf_kptr_xchg(&slot->task, t);
			if (t)
				bpf_task_release(t);
			/* Read as any task: its pid's record is a new task's. */
			p = (void *)slot->task;
		} else if (t) {
			bpf_task_release(t);
			p = NULL;
		} else {
			p = NULL;
		}
		if (!p) {
			slot_emptied(slot, k);
			return true;
		}
	}
	task_scan.nr_tasks++;
	if (!ksyms)
		learn_rq(p, task_cpu(p));
	read_fp(&fp, p);
	if (slot->id == (__u64)p && !(fp.flags & PF_EXITING) &&
	    !fp_differs(&fp, &slot->fp))
		return true;
	o = out_next(ST_TASK_CHANGED, k);
	if (!o)
		return false;
	fill_task(&o->rec, p);
	slot->id = (__u64)p;
	slot->fp = fp;
	return true;
}

/*
 * Brings in the cache lines that scan_slot() reads of the tasks of @bits
 * (one word of task_bits, @i), before it reads them: each task's lines
 * are apart from the others' and from its slot's, and scan_slot() reads
 * the task only once its slot came in, a task at a time, many
 * instructions apart. Here the loads of a word's tasks are a few
 * instructions each, none waits for another task's, so the CPU fetches
 * them together (measured: the scan of 3,000 tasks took twice as long
 * without). What they load is summed into a global only so that the
 * compiler keeps them.
 */
__u64 task_touch;

static __always_inline void touch_tasks(__u32 i, __u64 bits)
{
	struct bpf_iter_num it;
	__u64 sum = 0;

	bpf_iter_num_new(&it, 0, 64);
	while (bits && bpf_iter_num_next(&it)) {
		struct st_task_slot *slot = task_slot(i * 64 + lowest_bit(bits));
		struct task_struct *p;

		bits &= bits - 1;
		if (!slot)
			continue;
		sum += slot->fp.depth;
		p = (void *)slot->task;
		if (!p)
			continue;
		/* One load from each line read_fp() reads (docs/performance.md). */
		sum += p->flags + p->prio + p->se.sum_exec_runtime +
		       p->se.nr_migrations + p->se.avg.last_update_time +
		       p->nr_cpus_allowed + *(__u64 *)p->comm;
	}
	bpf_iter_num_destroy(&it);
	task_touch += sum;
}

/*
 * The table's tasks from slot task_scan.cursor on, until the end (then the
 * CPUs, as the iterator walk's last call reads them) or until task_out is
 * full: the slot that did not fit is the cursor then, user space takes the
 * records and calls again. Every slot is read once a sample. Slot 0 (pid
 * 0) is never used: a cursor of 0 starts a sample.
 */
static __always_inline void scan_table(bool ksyms)
{
	__u32 words = task_slots / 64 ? task_slots / 64 : 1;
	__u32 first = task_scan.cursor;
	struct bpf_iter_num words_it;
	bool full = false;
	int *w;

	if (!first) {
		task_scan.nr_tasks = 0;
		walk_begins(ksyms);
	}
	bpf_iter_num_new(&words_it, first / 64, words);
	while (!full && (w = bpf_iter_num_next(&words_it))) {
		__u32 i = *w;
		__u64 bits = task_bits[i & (ST_MAX_TASK_SLOTS / 64 - 1)];
		struct bpf_iter_num bits_it;

		/* Resumed: the slots before the cursor were read already. */
		if (i == first / 64)
			bits &= ~0ULL << (first % 64);
		/*
		 * Most words are empty (pid_max 32,768: 512 words for a few
		 * hundred tasks): without the two inner iterators' kfunc calls
		 * they cost a load each (the scan was 15% of a sample at 125
		 * tasks, mostly empty words).
		 */
		if (!bits)
			continue;
		touch_tasks(i, bits);
		/* The set bits only, lowest first: at most 64. */
		bpf_iter_num_new(&bits_it, 0, 64);
		while (bits && bpf_iter_num_next(&bits_it)) {
			__u32 k = i * 64 + lowest_bit(bits);

			bits &= bits - 1;
			if (!scan_slot(k, ksyms)) {
				task_scan.cursor = k;
				full = true;
				break;
			}
		}
		bpf_iter_num_destroy(&bits_it);
	}
	bpf_iter_num_destroy(&words_it);
	if (full)
		return;
	task_scan.cursor = words * 64;
	task_scan.done = 1;
	read_cpus(ksyms);
}

/*
 * Run by user space with BPF_PROG_RUN, one system call a call: an
 * iterator over one task cost three (create, read, close) and a file, a
 * seq_file and its 32 KiB buffer made and freed every sample
 * (docs/performance.md). A syscall program is sleepable: the scan holds
 * the RCU read lock an iterator ran under, so that its tasks are the
 * kernel's trusted pointers again and the runqueues' lists of task
 * groups are read as list_for_each_entry_rcu() would. User space loads
 * one of the two (as dump_task).
 */
SEC("syscall")
int scan_tasks(void *ctx)
{
	bpf_rcu_read_lock();
	scan_table(true);
	bpf_rcu_read_unlock();
	return 0;
}

SEC("syscall")
int scan_tasks_nosym(void *ctx)
{
	bpf_rcu_read_lock();
	scan_table(false);
	bpf_rcu_read_unlock();
	return 0;
}

#endif /* SCHEDTOP_TASK_TABLE_BPF_H */
