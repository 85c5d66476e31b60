/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's own layout, shared by its files; sources see model.h only.
 * model.c runs an update, and each part fills its rows (model_*.c).
 */
#ifndef SCHEDSTAT_MODEL_LOCAL_H
#define SCHEDSTAT_MODEL_LOCAL_H

#include "model.h"

struct model {
	const struct schedstat_topology *topo;
	int nr_cpus;
	bool have_baseline;
	uint64_t prev_ts;
	struct st_task_rec *prev;
	bool *prev_matched;
	size_t nr_prev;
	/* pid -> index into prev; this sample's, swapped in by save_prev(). */
	struct schedstat_hash *prev_index, *cur_index;
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
/* pid -> index into @recs; a pid listed twice maps to its first record. */
int model_pid_index_build(struct schedstat_hash *ix,
			  const struct st_task_rec *recs, size_t nr);
void model_fill_tasks(struct model *m, const struct model_input *in,
		      struct schedstat_snapshot *s, bool *cpu_running);


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
