/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A use case as schedtop runs it: rt-app's tasks, phases and events
 * (rtapp_parse.c reads them), the resources the events name, and the
 * constraints that judge its activations (docs/workloads.md).
 */
#ifndef WORKLOAD_LOCAL_H
#define WORKLOAD_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedstat-local.h"

/* rt-app's names: a thread takes its task's, cut to what comm holds. */
#define WL_NAME_MAX		255
/* Events of one phase, phases of one task: far above what is written. */
#define WL_MAX_EVENTS		4096
#define WL_MAX_PHASES		1024
/* rt-app's defaults: nice 0 for SCHED_OTHER, priority 10 for the others. */
#define WL_DEFAULT_RT_PRIO	10
#define WL_DEFAULT_MEM_BUF	(4u << 20)
#define WL_MAX_MEM_BUF		(256u << 20)
/* Unset policy, priority and clamp values of a phase. */
#define WL_UNSET		INT32_MIN

enum wl_ev_type {
	WL_EV_RUN,		/* µs of work at the calibrated speed */
	WL_EV_RUNTIME,		/* µs of work by the clock */
	WL_EV_SLEEP,
	WL_EV_TIMER,
	WL_EV_SUSPEND,
	WL_EV_RESUME,
	WL_EV_LOCK,
	WL_EV_UNLOCK,
	WL_EV_WAIT,
	WL_EV_SIGNAL,
	WL_EV_BROADCAST,
	WL_EV_SYNC,
	WL_EV_BARRIER,
	WL_EV_YIELD,
	WL_EV_MEM,
	WL_EV_IORUN,
};

struct wl_event {
	uint8_t type;		/* enum wl_ev_type */
	bool absolute;		/* TIMER: "mode": "absolute" */
	uint32_t line;
	uint32_t res;		/* cond, timer, barrier, or the mutex of LOCK/UNLOCK */
	uint32_t mutex;		/* WAIT, SYNC, SUSPEND, RESUME: their mutex */
	uint64_t value;		/* µs (RUN, RUNTIME, SLEEP, TIMER's period); bytes */
};

/*
 * rt-app creates a resource the first time a name is used, one name space
 * per kind: "suspend": "X" waits on the condition X with the mutex X,
 * which "lock": "X" takes too.
 */
enum wl_res_type {
	WL_RES_MUTEX,
	WL_RES_COND,
	WL_RES_TIMER,
	WL_RES_BARRIER,
};

struct wl_res {
	char *name;
	uint8_t type;		/* enum wl_res_type */
	bool unique;		/* TIMER "unique...": one per thread */
	uint32_t users;		/* BARRIER: its references, times instances */
	uint32_t suspenders;	/* COND: SUSPEND events on it */
	uint32_t slot;		/* unique TIMER: its index in each thread's own */
	uint32_t line;		/* where it was first named */
};

/* Policy and priority of a task, or of a phase (unset: the task's). */
struct wl_sched {
	int32_t policy;		/* SCHED_*, or WL_UNSET */
	int32_t prio;		/* nice for SCHED_OTHER, else 1..99; WL_UNSET */
	uint64_t dl_runtime, dl_period, dl_deadline;	/* ns */
	int32_t util_min, util_max;	/* 0..1024, or WL_UNSET */
};

struct wl_phase {
	char *name;
	uint32_t line;
	int64_t loop;		/* passes, >= 1 */
	struct wl_event *ev;
	size_t nr_ev;
	struct cpuset *cpus;	/* NULL: the task's */
	struct wl_sched sched;
	bool has_sched;
	uint32_t last_timer;	/* index of its last TIMER event, or UINT32_MAX */
};

struct wl_task {
	char *name;
	char comm[SCHEDSTAT_COMM_LEN];
	uint32_t line;
	uint32_t instances;
	uint32_t first_thread;	/* rt-app's index of its first instance */
	int64_t loop;		/* passes over its phases, or -1 for ever */
	uint64_t delay_us;
	struct wl_sched sched;
	struct cpuset *cpus;	/* NULL: --cpus, else where schedtop runs */
	struct wl_phase *phases;
	size_t nr_phases;
};

/*
 * What judges one thread's activations, per phase: its timer activations
 * (each due by the next timer release), or each pass of the phase from its
 * start (deadline_ns after it). Per condition: the passes a resume of it
 * wakes. WL_NONE where none does.
 */
#define WL_NONE		UINT32_MAX

struct wl_judge {
	uint32_t constraint;
	bool pass;		/* the phase pass, else the timer activations */
	uint64_t deadline_ns;	/* pass: after its start; timer: 0, the timer's */
};

struct wl_resume_judge {
	uint32_t thread, cond, constraint;
	uint64_t deadline_ns;
};

struct schedstat_workload {
	char *name, *origin, *description;
	struct wl_task *tasks;
	size_t nr_tasks;
	size_t nr_threads;
	uint32_t *thread_task;		/* thread -> task */
	struct wl_res *res;
	size_t nr_res, cap_res;
	size_t nr_unique_timers;
	/* global */
	double duration_s;		/* 0: until the threads end */
	int calib_cpu;			/* -1: calib_ns_per_loop */
	double calib_ns_per_loop;
	int32_t default_policy;
	bool lock_pages, pi_enabled, cumulative_slack;
	char *log_basename, *io_device;
	uint64_t mem_buffer_size;
	/* "schedtop" */
	double jitter_run, jitter_sleep;	/* +- this share, from --seed */
	double miss_ratio;			/* the default limit */
	struct schedstat_workload_constraint *cons;
	size_t nr_cons, cap_cons;
	struct wl_judge *judge;		/* [thread_phase[thread] + phase] */
	size_t *thread_phase;
	struct wl_resume_judge *resume_judge;
	size_t nr_resume_judge, cap_resume_judge;
};

/* rtapp_parse.c: "FILE:LINE: task 'T': key 'K': what" into @err. */
int wl_parse(struct schedstat_workload *wl, const char *text, size_t len,
	     const char *origin, char *err, size_t errlen);
/* workload_constraints.c: the file's "schedtop" member and the defaults. */
struct rj_doc;
struct rj_node;
int wl_constraints_parse(struct schedstat_workload *wl, const struct rj_doc *d,
			 const struct rj_node *st, char *err, size_t errlen);
int wl_constraints_default(struct schedstat_workload *wl, char *err, size_t errlen);

const char *wl_policy_name(int policy);
/* "SCHED_FIFO" -> SCHED_FIFO; -1 if unknown. */
int wl_policy_from_name(const char *s);

#endif /* WORKLOAD_LOCAL_H */
