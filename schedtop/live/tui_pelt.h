/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recent PELT updates (--pelt-trace) of the traced tasks and CPUs, for
 * the task detail and the cluster screen: every update of the last few
 * seconds, and how they fall onto the columns of a line with a time axis.
 * No ncurses here.
 */
#ifndef SCHEDTOP_TUI_PELT_H
#define SCHEDTOP_TUI_PELT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedstat.h"

/*
 * A running task updates about once per 1024 us PELT period, plus at each
 * enqueue and dequeue: 8192 updates hold several seconds of it, more than
 * the window drawn (16 bytes each, 128 KiB per task).
 */
#define PELT_RING		8192
/* Tasks kept: -c COMM may match many; the first ones seen are kept. */
#define PELT_TASKS		16
/*
 * CPU entities kept (--pelt-cpus): cfs, rt, dl and irq of the first
 * PELT_CPUS CPUs seen, a ring each like a task's.
 */
#define PELT_CPUS		16
#define PELT_CPU_ENTITIES	4	/* SCHEDSTAT_PELT_CFS .. _IRQ */
/* What the screens draw: the last 2 s up to the shown sample. */
#define PELT_WINDOW_NS		2000000000ULL

struct pelt_point {
	uint64_t ts_ns;
	uint16_t util, runnable, util_est;
	bool has_util_est;
};

/* One entity's updates: a task's (entity "task") or one of a CPU's. */
struct pelt_task {
	int32_t pid;			/* -1 for a CPU's entity */
	int32_t cpu;			/* a CPU entity's CPU */
	enum schedstat_pelt_entity entity;
	uint32_t n, head;		/* head: the next slot written */
	struct pelt_point p[PELT_RING];
};

struct tui_pelt {
	struct pelt_task *tasks[PELT_TASKS];
	size_t nr;
	uint64_t untracked;		/* updates of tasks past PELT_TASKS */
	/* CPU entities: [k][entity - SCHEDSTAT_PELT_CFS] is CPU cpus[k]'s. */
	struct pelt_task *cpu_series[PELT_CPUS][PELT_CPU_ENTITIES];
	int32_t cpus[PELT_CPUS];
	size_t nr_cpus;
	uint64_t cpu_untracked;		/* updates of CPUs past PELT_CPUS */
};

/*
 * Keep @u, a task's or a CPU entity's update. Updates arrive in time order
 * (the session and the recording both give them so). 0 or -ENOMEM.
 */
int tui_pelt_add(struct tui_pelt *tp, const struct schedstat_pelt_update *u);
/* The updates of @pid, or NULL if it has none. */
const struct pelt_task *tui_pelt_find(const struct tui_pelt *tp, int32_t pid);
/* The updates of CPU @cpu's @entity (cfs, rt, dl, irq), or NULL. */
const struct pelt_task *tui_pelt_find_cpu(const struct tui_pelt *tp, int32_t cpu,
					  enum schedstat_pelt_entity entity);
/* Forget every update (a jump back in a replay); keeps the memory. */
void tui_pelt_clear(struct tui_pelt *tp);
void tui_pelt_free(struct tui_pelt *tp);

enum pelt_signal { PELT_UTIL, PELT_RUNNABLE, PELT_UTIL_EST };

/*
 * The window (@now_ns - @window_ns, @now_ns] on @width columns: column i
 * covers (start + i * window / width, start + (i + 1) * window / width],
 * start = now - window. A column with updates gets the largest value of
 * @sig among them (a peak inside a column stays visible); one without
 * gets the value the signal held, the last update before it; -1 where no
 * update came before. Returns the updates inside the window.
 */
size_t tui_pelt_layout(const struct pelt_task *t, enum pelt_signal sig,
		       uint64_t now_ns, uint64_t window_ns, int width, int *cols);

#endif /* SCHEDTOP_TUI_PELT_H */
