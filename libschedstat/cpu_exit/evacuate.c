// SPDX-License-Identifier: GPL-2.0
/*
 * Evacuating a CPU without hotplug, as a phone's power HAL or a cpuset
 * manager would: affinities of every task that may run elsewhere, and of
 * every IRQ, lose the CPU; then sched_switch on that CPU tells when the last
 * such task left it. Everything changed is kept, to be put back exactly.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracefs.h>

#include "cpu_exit.h"
#include "sched_kernel.h"

/* Passes over /proc until one moves nothing: tasks fork meanwhile. */
#define MAX_PASSES	8
/* How long the CPU is watched after the last pass for a straggler. */
#define WATCH_MS	20

static bool saved_has(const struct schedstat_cpu_exit *x, int tid)
{
	for (size_t i = 0; i < x->nr_tasks; i++)
		if (x->tasks[i].tid == tid)
			return true;
	return false;
}

static int mask_format(const cpu_set_t *mask, char *buf, size_t size)
{
	struct cpuset set = {};

	for (int c = 0; c < CPU_SETSIZE && c < SCHEDSTAT_MAX_CPUS; c++)
		if (CPU_ISSET(c, mask))
			cpuset_set(&set, c);
	return cpulist_format(&set, buf, size);
}

/* The task's affinity as found, into the state file before it changes. */
static int state_line_task(struct schedstat_cpu_exit *x, const struct saved_task *t)
{
	char list[256];

	if (mask_format(&t->mask, list, sizeof(list)))
		return -EINVAL;
	return exit_state_add(x, "task %d %llu %s\n", t->tid, t->start, list);
}

static int online_others(const struct schedstat_cpu_exit *x, cpu_set_t *set)
{
	struct cpuset online = {};
	int err = topology_read_online(NULL, &online);

	if (err)
		return err;
	CPU_ZERO(set);
	for (int c = 0; c < cpuset_end(&online) && c < CPU_SETSIZE; c++)
		if (c != x->cpu && cpuset_test(&online, c))
			CPU_SET(c, set);
	return CPU_COUNT(set) ? 0 : -EBUSY;	/* nowhere else to go */
}

/*
 * One thread: off the CPU if it may run elsewhere. A per-CPU kernel thread
 * (kernel-made, allowed only there) stays, and counts as pinned; so does a
 * task the kernel refuses to move (PF_NO_SETAFFINITY, a cpuset that holds
 * only this CPU).
 */
static int move_task(struct schedstat_cpu_exit *x, int tid, const cpu_set_t *others,
		     struct schedstat_exit_op *op, unsigned int *moved)
{
	struct saved_task t = { .tid = tid };
	unsigned int flags;
	cpu_set_t new;

	if (saved_has(x, tid))
		return 0;
	if (sched_getaffinity(tid, sizeof(t.mask), &t.mask) ||
	    !CPU_ISSET(x->cpu, &t.mask) || exit_task_stat(tid, &flags, &t.start))
		return 0;	/* gone, or not here anyway */
	if ((flags & PF_KTHREAD) && CPU_COUNT(&t.mask) == 1) {
		op->tasks_pinned++;
		return 0;
	}
	new = t.mask;
	CPU_CLR(x->cpu, &new);
	if (!CPU_COUNT(&new))
		new = *others;
	if (state_line_task(x, &t))
		return -EIO;
	if (sched_setaffinity(tid, sizeof(new), &new)) {
		if (errno != ESRCH)
			op->tasks_pinned++;
		return 0;
	}
	if (schedstat_array_reserve((void **)&x->tasks, &x->cap_tasks, x->nr_tasks + 1,
			  sizeof(*x->tasks)))
		return -ENOMEM;
	x->tasks[x->nr_tasks++] = t;
	(*moved)++;
	return 0;
}

static int move_tasks(struct schedstat_cpu_exit *x, struct schedstat_exit_op *op)
{
	cpu_set_t others;
	int err = online_others(x, &others);

	for (int pass = 0; !err && pass < MAX_PASSES; pass++) {
		unsigned int moved = 0;
		DIR *proc = opendir("/proc");
		struct dirent *pd;

		if (!proc)
			return -errno;
		op->tasks_pinned = 0;	/* counted again each pass */
		while (!err && (pd = readdir(proc))) {
			char path[300];
			struct dirent *td;
			DIR *task;

			if (pd->d_name[0] < '1' || pd->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task", pd->d_name);
			task = opendir(path);
			if (!task)
				continue;
			while (!err && (td = readdir(task)))
				if (td->d_name[0] >= '1' && td->d_name[0] <= '9')
					err = move_task(x, atoi(td->d_name), &others,
							op, &moved);
			closedir(task);
		}
		closedir(proc);
		op->tasks_moved += moved;
		if (!moved)
			break;
	}
	return err;
}

/* Every IRQ allowed on the CPU: moved, or pinned if the kernel refuses
 * (per-CPU and managed interrupts). */
static int move_irqs(struct schedstat_cpu_exit *x, struct schedstat_exit_op *op)
{
	DIR *d = opendir("/proc/irq");
	struct dirent *de;
	struct cpuset others = {};
	cpu_set_t o;
	int err = online_others(x, &o);

	if (!d)
		return -errno;
	for (int c = 0; c < CPU_SETSIZE && c < SCHEDSTAT_MAX_CPUS; c++)
		if (CPU_ISSET(c, &o))
			cpuset_set(&others, c);
	while (!err && (de = readdir(d))) {
		struct saved_irq s = {};
		struct cpuset set;
		char path[64], list[256];

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		s.irq = atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", s.irq);
		if (util_read_small_file(path, s.list, sizeof(s.list)) ||
		    cpulist_parse(s.list, &set) || !cpuset_test(&set, x->cpu))
			continue;
		set.bits[x->cpu / 64] &= ~(1ULL << (x->cpu % 64));
		if (!cpuset_count(&set))
			set = others;
		if (cpulist_format(&set, list, sizeof(list)) ||
		    exit_state_add(x, "irq %d %s\n", s.irq, s.list) ||
		    util_write_small_file(path, list)) {
			op->irqs_pinned++;
			continue;
		}
		if (schedstat_array_reserve((void **)&x->irqs, &x->cap_irqs, x->nr_irqs + 1,
				  sizeof(*x->irqs))) {
			err = -ENOMEM;
			break;
		}
		x->irqs[x->nr_irqs++] = s;
		op->irqs_moved++;
	}
	closedir(d);
	return err;
}

/*
 * One cgroup's cpuset.cpus, if it lists the CPU: rewritten without it, so
 * that the kernel moves the tasks the cpuset held there. Emptied, it gets
 * the parent's CPUs but this one (cgroup v1 needs a subset), or every
 * other online CPU (in v2 empty would mean the parent's, this one too).
 * A v2 partition root is left alone: rewriting it would break it.
 */
static int move_cpuset(struct schedstat_cpu_exit *x, const char *dir,
		       const char *parent, bool v2, const struct cpuset *others,
		       struct schedstat_exit_op *op)
{
	struct saved_cpuset c = {};
	char path[PATH_MAX_LINE + 32], list[256];
	struct cpuset set;

	snprintf(c.path, sizeof(c.path), "%s/cpuset.cpus", dir);
	if (util_read_small_file(c.path, c.list, sizeof(c.list)) || !c.list[0] ||
	    cpulist_parse(c.list, &set) || !cpuset_test(&set, x->cpu))
		return 0;
	snprintf(path, sizeof(path), "%s/cpuset.cpus.partition", dir);
	if (v2 && !util_read_small_file(path, list, sizeof(list)) && strcmp(list, "member")) {
		op->cpusets_pinned++;
		return 0;
	}
	set.bits[x->cpu / 64] &= ~(1ULL << (x->cpu % 64));
	if (!cpuset_count(&set) && !v2) {
		snprintf(path, sizeof(path), "%s/cpuset.cpus", parent);
		if (util_read_small_file(path, list, sizeof(list)) || cpulist_parse(list, &set))
			memset(&set, 0, sizeof(set));
		set.bits[x->cpu / 64] &= ~(1ULL << (x->cpu % 64));
	}
	if (!cpuset_count(&set))
		set = *others;
	/* The state file is a line per thing, split at spaces. */
	if (strchr(c.path, ' ') || cpulist_format(&set, list, sizeof(list)) ||
	    exit_state_add(x, "cpuset %s %s\n", c.path, c.list) ||
	    util_write_small_file(c.path, list)) {
		op->cpusets_pinned++;
		return 0;
	}
	if (schedstat_array_reserve((void **)&x->cpusets, &x->cap_cpusets, x->nr_cpusets + 1,
			  sizeof(*x->cpusets)))
		return -ENOMEM;
	x->cpusets[x->nr_cpusets++] = c;
	op->cpusets_moved++;
	return 0;
}

/* Children before their parent: cgroup v1 refuses to take a CPU from a
 * parent while a child still lists it. The root's CPUs are not ours. */
static int walk_cpusets(struct schedstat_cpu_exit *x, const char *dir,
			const char *parent, bool v2, const struct cpuset *others,
			struct schedstat_exit_op *op)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int err = 0;

	if (!d)
		return 0;	/* gone meanwhile */
	while (!err && (de = readdir(d))) {
		char sub[PATH_MAX_LINE];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >= (int)sizeof(sub))
			continue;
		err = walk_cpusets(x, sub, dir, v2, others, op);
	}
	closedir(d);
	if (!err && parent)
		err = move_cpuset(x, dir, parent, v2, others, op);
	return err;
}

/* @opts, comma-separated, holds @name. */
static bool has_option(const char *opts, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = opts; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

/* Every hierarchy with cpusets: cgroup v1's "cpuset" (Android's
 * /dev/cpuset) and cgroup v2, from mountinfo. */
static int move_cpusets(struct schedstat_cpu_exit *x, struct schedstat_exit_op *op)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct cpuset others = {};
	char line[2048];
	cpu_set_t o;
	int err = online_others(x, &o);

	if (!f)
		return -errno;
	for (int c = 0; c < CPU_SETSIZE && c < SCHEDSTAT_MAX_CPUS; c++)
		if (CPU_ISSET(c, &o))
			cpuset_set(&others, c);
	while (!err && fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX_LINE], fstype[32], opts[512];
		char *dash = strstr(line, " - ");
		bool v2;

		if (!dash || sscanf(line, "%*s %*s %*s %*s %1023s", mnt) != 1 ||
		    sscanf(dash + 3, "%31s %*s %511s", fstype, opts) != 2 ||
		    strchr(mnt, '\\'))	/* escaped: a space in it */
			continue;
		v2 = !strcmp(fstype, "cgroup2");
		if (!v2 && (strcmp(fstype, "cgroup") || !has_option(opts, "cpuset")))
			continue;
		err = walk_cpusets(x, mnt, NULL, v2, &others, op);
	}
	fclose(f);
	return err;
}

/* Parents before children, the reverse of the change. */
static int restore_cpusets(struct schedstat_cpu_exit *x)
{
	int err = 0, e;

	for (size_t i = x->nr_cpusets; i-- > 0;) {
		e = util_write_small_file(x->cpusets[i].path, x->cpusets[i].list);
		if (e && e != -ENOENT && !err)
			err = e;
	}
	x->nr_cpusets = 0;
	return err;
}

/* A task that must not run on an evacuated CPU: moved by us, or any task
 * that is not a kernel thread (a user task cpusets held there is one). */
static bool must_leave(const struct schedstat_cpu_exit *x, int pid)
{
	unsigned long long start;
	unsigned int flags;

	if (pid <= 0)
		return false;
	if (saved_has(x, pid))
		return true;
	return !exit_task_stat(pid, &flags, &start) && !(flags & PF_KTHREAD);
}

/*
 * When the last task that must leave was last switched out of the CPU
 * (none seen: @since), and how many such tasks ran there after @since.
 */
static uint64_t last_departure(struct schedstat_cpu_exit *x, uint64_t since,
			       unsigned int *left)
{
	uint64_t last = since;
	int running = -1;

	*left = 0;
	for (size_t i = 0; i < x->nr_evs; i++) {
		const struct exit_event *e = &x->evs[i];

		if (e->kind != XEV_SWITCH || e->cpu != x->cpu)
			continue;
		if (must_leave(x, e->prev_pid) && e->ts > last)
			last = e->ts;
		if (must_leave(x, e->next_pid) && e->ts > since)
			(*left)++;
		running = e->next_pid;
	}
	if (running > 0 && must_leave(x, running))
		(*left)++;
	return last;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int add_step(struct schedstat_exit_op *op, const char *name, uint64_t ns)
{
	struct schedstat_exit_step *st = exit_op_step(op, name, -1);

	if (!st)
		return -ENOMEM;
	st->ns += ns;
	st->calls++;
	op->total_ns += ns;
	return 0;
}

int schedstat_cpu_exit_evacuate(struct schedstat_cpu_exit *x,
				struct schedstat_exit_op *op)
{
	uint64_t t0, t1, tc, t2, gone;
	int err;

	memset(op, 0, sizeof(*op));
	if (x->evacuated)
		return -EALREADY;
	if (tracefs_event_enable(x->inst, "sched", "sched_switch"))
		return -SCHEDSTAT_ERR_TRACEFS_EVENTS;
	err = cpu_exit_read_events(x);	/* from here on only */
	if (err)
		goto cleanup;
	x->evacuated = true;
	t0 = util_mono_ns();
	err = move_tasks(x, op);
	t1 = util_mono_ns();
	if (!err)
		err = move_cpusets(x, op);
	tc = util_mono_ns();
	if (!err)
		err = move_irqs(x, op);
	t2 = util_mono_ns();
	if (err)
		goto cleanup;
	sleep_ms(WATCH_MS);
	err = cpu_exit_read_events(x);
	if (err)
		goto cleanup;
	gone = last_departure(x, t2, &op->tasks_left);
	err = add_step(op, "tasks", t1 - t0) ?: add_step(op, "cpusets", tc - t1) ?:
	      add_step(op, "irqs", t2 - tc) ?: add_step(op, "drain", gone - t2);
cleanup:
	tracefs_event_disable(x->inst, "sched", "sched_switch");
	return err;
}

int evacuate_restore(struct schedstat_cpu_exit *x, struct schedstat_exit_op *op)
{
	uint64_t t0 = util_mono_ns(), tc, t1;
	int err, reset;

	memset(op, 0, sizeof(*op));
	op->back = true;
	/* Cpusets first: the kernel resets their tasks' affinities then. */
	err = restore_cpusets(x);
	tc = util_mono_ns();
	for (size_t i = 0; i < x->nr_tasks; i++) {
		const struct saved_task *t = &x->tasks[i];
		unsigned long long start;
		unsigned int flags;

		/* Gone, or its tid now another task's: nothing to put back. */
		if (exit_task_stat(t->tid, &flags, &start) || start != t->start)
			continue;
		if (sched_setaffinity(t->tid, sizeof(t->mask), &t->mask) &&
		    errno != ESRCH && !err)
			err = -errno;
	}
	t1 = util_mono_ns();
	for (size_t i = 0; i < x->nr_irqs; i++) {
		char path[64];
		int e;

		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list",
			 x->irqs[i].irq);
		e = util_write_small_file(path, x->irqs[i].list);
		if (e && e != -ENOENT && !err)
			err = e;
	}
	x->nr_tasks = x->nr_irqs = 0;
	x->evacuated = false;
	/* Kept when something failed: a later --restore tries again. */
	reset = err ? 0 : exit_state_reset(x);
	if (add_step(op, "cpusets", tc - t0) || add_step(op, "tasks", t1 - tc) ||
	    add_step(op, "irqs", util_mono_ns() - t1))
		return err ?: -ENOMEM;
	return err ?: reset;
}

int schedstat_cpu_exit_restore(struct schedstat_cpu_exit *x,
			       struct schedstat_exit_op *op)
{
	if (!x->evacuated) {
		memset(op, 0, sizeof(*op));
		return -EINVAL;
	}
	return evacuate_restore(x, op);
}
