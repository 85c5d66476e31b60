// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's task table: tasks by pid, a reused pid mapping to its later
 * entry, and a dying task's pid kept its own until another task takes it.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_local.h"
#include "sched_kernel.h"

struct etask *engine_task_find(struct engine *e, int32_t pid)
{
	uint64_t i;

	if (schedstat_hash_get(e->pids, (uint32_t)pid, &i))
		return NULL;
	return &e->tasks[i];
}

void engine_task_set_comm(struct etask *t, const char *comm)
{
	if (comm && comm[0])
		strncpy(t->rec.comm, comm, sizeof(t->rec.comm) - 1);
}

void engine_rename(struct engine *e, int32_t pid, const char *comm)
{
	struct etask *t = pid > 0 ? engine_task_find(e, pid) : NULL;

	if (t && !t->dead)
		engine_task_set_comm(t, comm);
}

struct etask *engine_task_add(struct engine *e, int32_t pid, int32_t prio,
			      const char *comm, uint64_t ts)
{
	struct etask *t;

	if (schedstat_array_reserve((void **)&e->tasks, &e->cap_tasks, e->nr_tasks + 1,
			  sizeof(*e->tasks)))
		return NULL;
	t = &e->tasks[e->nr_tasks++];
	memset(t, 0, sizeof(*t));
	t->rec.pid = pid;
	t->rec.tgid = e->hooks.tgid ? e->hooks.tgid(e->hooks.ctx, pid) : 0;
	if (t->rec.tgid <= 0)
		t->rec.tgid = pid;
	t->rec.prio = prio;
	t->rec.cpu = 0;
	/* Tells this task from a later one reusing its pid (model.c). */
	t->rec.start_time = ts;
	t->rec.state = 1;		/* S until seen otherwise */
	t->attached = -1;
	t->fair = prio_is_fair(prio);
	engine_task_set_comm(t, comm);
	if (schedstat_hash_put(e->pids, (uint32_t)pid, e->nr_tasks - 1)) {
		e->nr_tasks--;
		return NULL;
	}
	return t;
}

/*
 * A task runs on after sched_process_exit: do_exit() goes on to release
 * its files and memory, may block or be preempted there, and switches out
 * for the last time in do_task_dead(). Until sched_wakeup_new starts
 * another task with its pid, the pid's events are that dying task's.
 */
bool engine_task_exited(struct engine *e, int32_t pid)
{
	struct etask *t = engine_task_find(e, pid);

	return t && t->dead;
}

/*
 * The live entry for @pid, or a new one when unknown or exited: callers
 * that are not a fork ask engine_task_exited() first.
 */
struct etask *engine_task_get(struct engine *e, int32_t pid, int32_t prio,
			      const char *comm, uint64_t ts)
{
	struct etask *t = engine_task_find(e, pid);

	if (t && !t->dead) {
		engine_task_set_comm(t, comm);
		return t;
	}
	return engine_task_add(e, pid, prio, comm, ts);
}
