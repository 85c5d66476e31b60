/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's own layout, shared by its files; sources see model.h only.
 * model.c runs an update, and each part fills its rows (model_*.c).
 */
#ifndef SCHEDSTAT_MODEL_LOCAL_H
#define SCHEDSTAT_MODEL_LOCAL_H

#include "model.h"

/* What a task's counters moved by in one interval. */
struct model_deltas {
	uint64_t run_ns;
	uint64_t wait_ns;
	uint64_t wakeups;
	uint64_t migrations;
	uint64_t nvcsw;
	uint64_t nivcsw;
};

/*
 * One task, kept from sample to sample (model_tasks.c): its latest record,
 * and the row that record gives before the sample's time is applied (no
 * deltas, PELT not decayed). Only a record that differs is turned into a row
 * again; a task whose record did not change since the last sample has no
 * deltas.
 */
struct model_task {
	struct st_task_rec rec;
	struct schedstat_task row;
	struct model_deltas deltas;	/* of sample delta_gen */
	uint32_t delta_gen;
	uint32_t seen_gen;		/* sample of its latest record */
	bool live;
	bool kernel_pelt;		/* model_input.task_kernel_pelt */
	/*
	 * A sleeper of this record whose util, runnable and load came out 0
	 * decayed by this many periods (0: none such): with more periods they
	 * stay 0 (task_row()).
	 */
	bool zero_sums;			/* decayed from the sums (row_pelt()) */
	uint64_t zero_periods;
};

struct model {
	const struct schedstat_topology *topo;
	int nr_cpus;
	bool have_baseline;
	uint64_t prev_ts;
	/*
	 * The tasks: entries never move (indices are kept) and are reused once
	 * free; by_pid finds a task's entry, order[] lists the live ones by
	 * pid. gen counts samples.
	 */
	struct model_task *tasks;
	size_t nr_tasks, cap_tasks;
	struct schedstat_hash *by_pid;
	uint32_t *order, *order_next;
	size_t nr_order, cap_order, cap_order_next;
	uint32_t *born;			/* new this sample, not yet in order */
	size_t nr_born, cap_born;
	uint32_t *freed;		/* free, reused from the next sample on */
	size_t nr_freed, cap_freed;
	size_t nr_reuse;		/* freed[0..nr_reuse) may be reused now */
	/* Rows of tasks gone this sample other than by the sweep, by pid. */
	struct schedstat_task *gone_rows;
	size_t nr_gone_rows, cap_gone_rows;
	uint64_t *now_pelt;		/* each CPU's PELT clock at the sample */
	uint32_t gen;
	struct st_cpu_state *prev_cpus;
	struct st_hotplug *prev_hotplug;
	struct st_global_state prev_global;
	struct model_freq_time *prev_freq;	/* cumulative, at prev_ts */
	size_t nr_prev_freq;
	struct st_task_rec *exits;
	size_t nr_exits;
	size_t cap_exits;
	/* Cross-cluster migrations since the last sample, by pid. */
	struct cluster_move *moves;
	size_t nr_moves;
	size_t cap_moves;
};

static inline uint64_t model_delta(uint64_t now, uint64_t then)
{
	/* Counters never go back; a smaller value means a different task. */
	return now >= then ? now - then : now;
}

/* A CPU's PELT clock at @ts, extrapolated from its last root cfs_rq update. */
static inline uint64_t model_pelt_now(const struct st_cpu_state *c, uint64_t ts)
{
	if (!(c->seen & ST_SEEN_CFS))
		return 0;
	return c->cfs_lut + (ts > c->cfs_ts ? ts - c->cfs_ts : 0);
}

static inline const struct st_cpu_state *
model_cpu_of(const struct model_input *in, uint32_t cpu)
{
	static const struct st_cpu_state none;

	return cpu < in->nr_cpus ? &in->cpus[cpu] : &none;
}

/* model_tasks.c */
int model_tasks_new(struct model *m);
void model_tasks_free(struct model *m);
/*
 * This sample's records into the task table: changed and new tasks, and
 * those gone (named by model_input.gone, or missing from a full list). The
 * first call only sets the baseline.
 */
int model_apply_tasks(struct model *m, const struct model_input *in);
/* Upper bound of the rows model_fill_tasks() writes. */
size_t model_nr_task_rows(const struct model *m);
/*
 * Every task row of @s: this sample's tasks, the tasks gone since the last
 * one (their final stretch, once) and those born and gone within the
 * interval, sorted by pid. Marks the CPUs that run a task in @cpu_running
 * and counts their runnable tasks, util_est and blocked load.
 */
int model_fill_tasks(struct model *m, const struct model_input *in,
		     struct schedstat_snapshot *s, bool *cpu_running);
/* After a sample: the table as the next one's baseline. */
int model_tasks_done(struct model *m);


/* model_cpus.c */
void model_fill_cpus(struct model *m, const struct model_input *in,
		     struct schedstat_snapshot *s, const bool *cpu_running);
void model_fill_clusters(struct model *m, const struct model_input *in,
			 struct schedstat_snapshot *s);
void model_mark_misfits(struct model *m, struct schedstat_snapshot *s);

/* model_freq.c */
/* Time at each (CPU, frequency) up to @in->ts_ns: completed stays plus current. */
int model_freq_cumulative(const struct model_input *in,
			  struct model_freq_time **out, size_t *nr);
int model_fill_freq_residency(struct model *m, const struct model_input *in,
			      struct schedstat_snapshot *s);

/* model_groups.c */
int model_fill_groups(struct model *m, const struct model_input *in,
		      struct schedstat_snapshot *s);

/* model_derived.c: model_fill_derived(), in model.h (the reader uses it too) */

#endif /* SCHEDSTAT_MODEL_LOCAL_H */
