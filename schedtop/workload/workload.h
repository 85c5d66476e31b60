/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedtop workload: synthetic mobile use cases run as threads inside
 * schedtop, each activation timestamped, scored by the figure of merit of
 * the 2012 scheduler mini-summit (docs/workloads.md).
 */
#ifndef SCHEDTOP_WORKLOAD_H
#define SCHEDTOP_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "schedstat.h"

#define WL_MAX_THREADS		4
#define WL_MAX_CONSTRAINTS	3
/*
 * A missed constraint scores WL_FOM_MISSED per missed constraint plus the
 * average power: never below 1e6 mW, and more misses score worse.
 */
#define WL_FOM_MISSED		1e6

enum wl_role {
	WL_PERIODIC,		/* a frame every period, due by the deadline */
	WL_PAGE_LOAD,		/* browse: page loads, scroll frames, reading */
	WL_HELPER,		/* browse: its share of each page load */
};

struct wl_thread_spec {
	const char *comm;	/* what the live view shows, <= 15 bytes */
	enum wl_role role;
	double period_ms;	/* PERIODIC, and PAGE_LOAD's scroll frames */
	double deadline_ms;	/* after release */
	double offset_ms;	/* first release after the start */
	double work_ms;		/* at the calibrated speed, --scale 1 */
	int constraint;		/* index in the workload's constraints */
	/*
	 * The policy Android gives such a thread: SCHED_FIFO priority (audio's
	 * fast mixer), else a nice value (-10: display, -16: media).
	 */
	int fifo_prio;
	int nice;
};

enum wl_constraint_kind {
	WL_MISS_RATIO,		/* share of activations late or dropped */
	WL_MAX_RESPONSE_MS,	/* every activation's response, ms */
};

struct wl_constraint {
	const char *name;
	enum wl_constraint_kind kind;
	double limit;		/* a ratio (0..1) or ms */
	const char *why;	/* what a user would notice */
};

struct workload {
	const char *name;
	const char *desc;
	size_t nr_threads;
	struct wl_thread_spec threads[WL_MAX_THREADS];
	size_t nr_constraints;
	struct wl_constraint constraints[WL_MAX_CONSTRAINTS];
	/* browse: page load work per thread, frames of scrolling, reading pause. */
	double load_work_ms;
	unsigned int scroll_frames;
	double read_min_ms, read_max_ms;
};

extern const struct workload workloads[];
extern const size_t nr_workloads;
const struct workload *workload_find(const char *name);

/*
 * One activation: CLOCK_MONOTONIC ns. start/end 0 for a dropped one; end 0
 * for one not finished when the run stopped (start 0 if not started).
 */
struct wl_activation {
	uint64_t release, start, end, deadline;
	int32_t tid;
	uint16_t thread;	/* index in the workload's threads */
	uint16_t constraint;
	bool dropped;		/* its release passed while the last one ran */
};

/* ---- work units and their calibration (workload_calib.c) --------- */

/*
 * A unit is a fixed chain of dependent integer operations: no memory, no
 * vector unit, the same instructions on every CPU, so a slower CPU (or a
 * lower clock) takes longer for the same units.
 */
uint64_t wl_work(uint64_t units, uint64_t seed);
/* Units per ms of CPU time, measured here now (@cpu: -1 where it runs). */
double wl_calibrate(int cpu);
/* The stored calibration file: --calibration, else see the .c file. */
const char *wl_calibration_path(char *buf, size_t size);
int wl_calibration_load(const char *path, double *units_per_ms);
int wl_calibration_store(const char *path, double units_per_ms);

/* ---- the run (workload_run.c) ------------------------------------- */

struct wl_run;

struct wl_run_opts {
	const struct workload *wl;
	double units_per_ms;
	double scale;
	uint64_t seed;
	const char *cpus;	/* --cpus list, or NULL */
};

/* Starts the threads; 0 or a negative errno (said). */
int wl_run_start(struct wl_run **out, const struct wl_run_opts *o);
/* Stops the threads (each after the activation under way) and joins them; safe on NULL. */
void wl_run_stop(struct wl_run *r);
/*
 * Calls @fn with each activation done by @upto (CLOCK_MONOTONIC ns), or
 * dropped and due by then, not handed over before: from the sampling
 * thread at each sample's time while the workload runs. With @final,
 * after wl_run_stop() at the run's end @upto: the rest, released and due
 * by then but not done by then, handed over as dropped (missed); the
 * others are not judged. -ENOMEM if a thread could not keep one: the
 * score would be wrong. Takes no lock a workload thread waits for: a
 * drain that is slow or preempted never holds a thread back.
 */
int wl_run_drain(struct wl_run *r, uint64_t upto, bool final,
		 int (*fn)(const struct wl_activation *a, void *ctx), void *ctx);
/* Every activation released before the stop: done, dropped or unfinished. */
const struct wl_activation *wl_run_activations(struct wl_run *r, size_t *nr);
int32_t wl_run_tid(const struct wl_run *r, size_t thread);
/* Threads whose policy (fifo_prio, nice) could not be set: not root. */
size_t wl_run_policy_failures(const struct wl_run *r);
/* CPU time each thread used, ns (CLOCK_THREAD_CPUTIME_ID at its end). */
uint64_t wl_run_cpu_ns(const struct wl_run *r, size_t thread);
void wl_run_free(struct wl_run *r);

/* ---- the score (workload_score.c) --------------------------------- */

struct wl_constraint_result {
	const struct wl_constraint *c;
	size_t nr, late, dropped;
	double p50_ms, p95_ms, p99_ms, max_ms;	/* response times */
	double miss_ratio;
	double observed;	/* in the constraint's unit */
	bool met;
};

struct wl_cluster_energy {
	char name[SCHEDSTAT_NAME_LEN];
	double energy_uj, eas_energy_uj;
	bool freq_assumed;
};

struct wl_score {
	const struct workload *wl;
	double duration_s;	/* the samples' intervals, summed */
	size_t nr_constraints;
	struct wl_constraint_result res[WL_MAX_CONSTRAINTS];
	bool met;
	bool have_energy;
	double avg_power_mw, eas_avg_power_mw, energy_mj;
	size_t nr_clusters;
	struct wl_cluster_energy clusters[SCHEDSTAT_MAX_CPUS / 64];
	double figure_of_merit;	/* meaningful when have_energy */
};

/* The nearest-rank percentile @p (0..100) of @v (sorted here). */
double wl_percentile(double *v, size_t n, double p);
/*
 * Judges each constraint on @acts (activations released in [@from, @to);
 * those not finished and not yet due at @to are not judged), and the
 * figure of merit from the energy already in @s.
 */
void wl_score_judge(struct wl_score *s, const struct wl_activation *acts,
		    size_t nr, uint64_t to);
void wl_score_print(FILE *f, const struct wl_score *s);

/*
 * What a run adds up, live or from a recording, the same way: each
 * sample's cluster energy and each activation drained by then. The run
 * ends at the last sample: both see the same activations.
 */
struct wl_tally {
	struct wl_score score;
	struct wl_activation *acts;
	size_t nr, cap;
	uint64_t last_ts;
	bool em;		/* an energy model was in use */
};

void wl_tally_sample(struct wl_tally *t, const struct schedstat_snapshot *snap);
int wl_tally_activation(struct wl_tally *t, const struct wl_activation *a);
/* Averages the energy and judges the constraints at the last sample. */
void wl_tally_finish(struct wl_tally *t, const struct workload *wl);
void wl_tally_free(struct wl_tally *t);
/* An activation as a recording keeps it (SCHEDSTAT_EV_ACTIVATION), and back. */
void wl_activation_event(const struct wl_activation *a, const struct workload *wl,
			 int32_t tgid, struct schedstat_event *ev);
/* false if @ev is no activation of a thread of @wl. */
bool wl_event_activation(const struct schedstat_event *ev, const struct workload *wl,
			 struct wl_activation *a);
void wl_score_json(FILE *f, const struct wl_score *s, const char *const *extra);

#endif /* SCHEDTOP_WORKLOAD_H */
