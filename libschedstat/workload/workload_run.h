/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A workload's threads while they run: what workload_run.c (their life),
 * workload_events.c (rt-app's events) and workload_log.c (rt-app's logs)
 * share.
 */
#ifndef WORKLOAD_RUN_H
#define WORKLOAD_RUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "workload_local.h"

/* Longest sleep or wait between looks at the stop flag. */
#define WL_STOP_POLL_NS		50000000ULL
/* Work between looks at the stop flag, in loops: ~1 ms. */
#define WL_WORK_SLICE_NS	1000000ULL
/* runtime: work in slices of this much, reading the clock after each. */
#define WL_RUNTIME_SLICE_NS	32000ULL
/* Activations per chunk a thread fills (about 50 KiB). */
#define WL_CHUNK_ACTS		512
#define WL_MAX_HELD		64

/*
 * A thread's activations, in chunks: the thread (the one writer) fills
 * its last chunk and links the next; the sampler follows the links up to
 * the count the thread published. Nothing is moved once written, so
 * neither waits for the other.
 */
struct wl_chunk {
	struct wl_chunk *_Atomic next;
	struct schedstat_workload_activation acts[WL_CHUNK_ACTS];
};

struct wl_timer_state {
	pthread_mutex_t lock;		/* a timer several threads share */
	bool init;
	uint64_t next;			/* its next expiry */
};

struct wl_res_state {
	pthread_mutex_t mutex;		/* MUTEX; BARRIER's own */
	pthread_cond_t cond;		/* COND; BARRIER's own */
	_Atomic uint64_t woke_ns;	/* COND: the last resume, signal or broadcast */
	struct wl_timer_state timer;	/* TIMER (not unique) */
	uint32_t arrived;		/* BARRIER */
	uint64_t generation, last_ns;
};

/* Why a thread could not be set up; said once by the starter. */
enum wl_setup_step {
	WL_SETUP_OK,
	WL_SETUP_CPUS,
	WL_SETUP_POLICY,
	WL_SETUP_MEMORY,
};

struct wl_thread {
	struct schedstat_workload_run *run;
	uint32_t idx;
	const struct wl_task *t;
	pthread_t th;
	bool started;
	_Atomic int32_t tid;
	uint64_t cpu_ns;
	uint64_t rng;
	/* setup, before the start */
	_Atomic int setup_done;		/* 1 ready, -1 failed */
	int setup_err;			/* -errno */
	enum wl_setup_step setup_step;
	bool policy_refused, uclamp_unsupported;
	const struct cpuset *cur_cpus;
	const struct wl_sched *cur_sched;
	/* while it runs */
	struct wl_timer_state *utimers;	/* its "unique" timers */
	char *mem;
	uint32_t held[WL_MAX_HELD];
	size_t nr_held;
	uint32_t prev_timer;		/* the timer that ended its last pass */
	bool passed;			/* a pass was done */
	uint64_t t_first;		/* its timers start here (rt-app's t_first) */
	_Atomic bool done;
	/* Activations: written by the thread alone, nr published with release order. */
	struct wl_chunk *first, *last;
	_Atomic size_t nr;
	struct wl_chunk *_Atomic spare;	/* the sampler's, one ahead */
	_Atomic int err;
	/* The sampler's place. */
	size_t drained, drain_base;
	struct wl_chunk *drain_chunk;
	FILE *log;
};

struct schedstat_workload_run {
	const struct schedstat_workload *wl;
	struct schedstat_workload_opts o;
	double loops_per_ns;
	struct wl_thread *threads;
	size_t nr_threads;
	struct wl_res_state *res;
	/* Threads whose file names no CPU: --cpus, or the starter's own. */
	struct cpuset *default_cpus;
	int io_fd;
	atomic_bool stop;
	bool stopped;
	atomic_size_t nr_ready, nr_done;
	_Atomic uint64_t start_ns;
	uint64_t stop_ns;
	bool locked_pages, lock_pages_refused;
	struct schedstat_workload_activation *all;
	size_t nr_all;
	char error[SCHEDSTAT_WORKLOAD_ERR_LEN];
	_Atomic bool failed;
};

/* workload_events.c: the thread's passes over its phases, to its end. */
void wl_thread_body(struct wl_thread *t);
void wl_add_act(struct wl_thread *t, const struct schedstat_workload_activation *a);
uint64_t wl_now(void);
/* Sleeps until @t (CLOCK_MONOTONIC), looking at the stop flag; false if stopped. */
bool wl_sleep_until(struct schedstat_workload_run *r, uint64_t t);
/* Applies @s (NULL: nothing to do); 0, or -errno of a refusal that stops the run. */
int wl_apply_sched(struct wl_thread *t, const struct wl_sched *s);
/* A failure after the start: said once, and the run stops. */
void wl_run_fail(struct schedstat_workload_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* workload_log.c: rt-app's per-thread log files. */
int wl_log_open(struct schedstat_workload_run *r, char *err, size_t errlen);
void wl_log_pass(struct wl_thread *t, const struct schedstat_workload_activation *a);
int wl_log_close(struct schedstat_workload_run *r);

#endif /* WORKLOAD_RUN_H */
