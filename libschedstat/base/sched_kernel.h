/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own numbers that libschedstat reasons with, each named as
 * the kernel names it and defined where the kernel defines it. They are
 * ABI in practice (tracepoints and /proc print them), so they do not move
 * between versions; a comment says so where one did.
 */
#ifndef SCHEDSTAT_SCHED_KERNEL_H
#define SCHEDSTAT_SCHED_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "schedstat.h"

/* include/linux/sched/prio.h: prio 0..99 is rt (and dl, -1), 100..139 fair. */
#define MAX_RT_PRIO		100
#define MAX_PRIO		140
#define DEFAULT_PRIO		(MAX_RT_PRIO + 20)	/* nice 0 */

/* A task of this prio is in the fair class, so its PELT sums are on a cfs_rq. */
static inline bool prio_is_fair(int prio)
{
	return prio >= MAX_RT_PRIO;
}

/* include/linux/sched.h: task_struct.__state bits and their report mask. */
#define TASK_UNINTERRUPTIBLE	0x0002
#define EXIT_DEAD		0x0010
#define TASK_NOLOAD		0x0400
#define TASK_IDLE		(TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_REPORT		0x7f

/* include/linux/sched.h: task_struct.flags, field 9 of /proc/PID/stat. */
#define PF_KTHREAD		0x00200000	/* a kernel thread */

/*
 * include/linux/sched.h: the capacity of the biggest CPU at its highest
 * frequency, and what a CPU without a cpu_capacity file is given.
 */
#define SCHED_CAPACITY_SCALE	SCHEDSTAT_CAPACITY_SCALE

/*
 * kernel/sched/fair.c fits_capacity(): @util fits a CPU of capacity @cap
 * with 20% headroom (1280/1024 = 1.25). A task that does not fit the CPU it
 * runs on is a misfit.
 */
static inline bool fits_capacity(uint64_t util, uint64_t cap)
{
	return util * 1280 < cap * 1024;
}

/* include/uapi/linux/capability.h since 5.8; older headers lack them. */
#ifndef CAP_PERFMON
#define CAP_PERFMON		38
#endif
#ifndef CAP_BPF
#define CAP_BPF			39
#endif

#endif /* SCHEDSTAT_SCHED_KERNEL_H */
