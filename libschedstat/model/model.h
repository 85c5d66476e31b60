/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model: turns raw kernel records (bpf/schedtop.h) into snapshots with
 * per-interval deltas. Pure computation: no BPF, no I/O, so unit tests can
 * feed it synthetic records.
 */
#ifndef SCHEDSTAT_MODEL_H
#define SCHEDSTAT_MODEL_H

#include <linux/types.h>

#include "schedstat-local.h"
#include "schedtop.h"

struct schedstat_snapshot {
	uint64_t ts_ns;
	uint64_t interval_ns;
	uint32_t avail;
	uint64_t dropped;
	struct schedstat_task *tasks;
	size_t nr_tasks;
	struct schedstat_cpu *cpus;
	size_t nr_cpus;
	struct schedstat_cluster *clusters;
	size_t nr_clusters;
	struct schedstat_group *groups;
	size_t nr_groups;
	struct schedstat_migration *migrations;
	size_t nr_migrations;
	struct schedstat_freq_residency *freqs;
	size_t nr_freqs;
};

/*
 * The fields a row computes from its own (the D() fields of the row schemas
 * in schedstat.h): a task's cpu_pct, a migration's per_sec (model_derived.c).
 * The model calls it on every snapshot it makes and the recording reader on
 * every one it decodes, so the two agree to the bit. The energy fields are
 * the energy estimate's (energy_estimate.c).
 */
void model_fill_derived(struct schedstat_snapshot *s);

/*
 * Each task's misfit flag and each cluster's misfit_tasks (left at 0 by the
 * caller) by @topo's capacities, as fits_capacity() of kernel/sched/fair.c
 * says: the model on every snapshot, a regrouped recording with its new
 * clusters (model_derived.c, which the recording fuzzer links too).
 */
void snapshot_mark_misfits(struct schedstat_snapshot *s,
			   const struct schedstat_topology *topo);

/*
 * A cluster's sums over its online CPUs of @s (by @cl->id): CPUs, capacity,
 * runnable tasks, the fastest CPU's frequency, %util and %busy, and which
 * of these are known (from @avail and every summed CPU's). The model on
 * every snapshot and a regrouped recording with its new clusters.
 */
void snapshot_sum_cluster(const struct schedstat_snapshot *s,
			  struct schedstat_cluster *cl, uint32_t avail);

/* Cumulative time at one frequency, as the BPF map holds it. */
struct model_freq_time {
	uint32_t cpu;
	uint32_t khz;
	uint64_t ns;
};

struct model;

/* What the kernel handed over for one sample. */
struct model_input {
	uint64_t ts_ns;				/* CLOCK_MONOTONIC */
	/*
	 * Every task listed now: one missing since the last sample is gone. Or,
	 * with @tasks_changed, only the tasks whose record changed since the
	 * last sample and the new ones, @gone the pids of those that left (a
	 * pid gone and listed again is a new task).
	 */
	const struct st_task_rec *tasks;
	size_t nr_tasks;
	bool tasks_changed;
	const int32_t *gone;
	size_t nr_gone;
	const struct st_cpu_state *cpus;	/* indexed by CPU number */
	const struct st_hotplug *hotplug;	/* the same, may be NULL */
	/* scaling_cur_freq by CPU (0: unknown), for CPUs without events. */
	const uint32_t *polled_khz;
	/* Completed stays at each frequency, any order. */
	const struct model_freq_time *freq_times;
	size_t nr_freq_times;
	size_t nr_cpus;
	const struct cpuset *online;
	const struct st_global_state *global;
	uint32_t avail;				/* signals whose programs attached */
	/*
	 * With SCHEDSTAT_AVAIL_PELT_ESTIMATED: which tasks (by index into
	 * @tasks) and CPUs have the kernel's own PELT values from its trace
	 * events instead of the estimate (non-zero); NULL: none has.
	 */
	const uint8_t *task_kernel_pelt;
	const uint8_t *cpu_kernel_pelt;
	/* Group entities, cpu/depth/values/age filled; cluster is ours. */
	const struct schedstat_group *groups;
	size_t nr_groups;
};

int model_new(struct model **out, const struct schedstat_topology *topo);
void model_free(struct model *m);
/* A task's final record, from its exit event; used at the next sample. */
int model_add_exit(struct model *m, const struct st_task_rec *rec);
/*
 * The first call only sets the baseline and returns no snapshot (*out is
 * NULL); later calls return deltas against the previous call.
 */
int model_update(struct model *m, const struct model_input *in,
		 struct schedstat_snapshot **out);

/* A sched_migrate_task event; counted per task as up or down at the next sample. */
int model_add_migration(struct model *m, int32_t pid, int32_t orig_cpu,
			int32_t dest_cpu);

/* A task's move from one cluster to another (model_migrations.c). */
struct cluster_move {
	int32_t pid;
	int16_t dir;		/* 1 up, -1 down, 0 same capacity */
	int16_t dest;		/* cluster moved to */
	int16_t from;
};

/*
 * @pid's move from @orig_cpu to @dest_cpu by @topo's clusters, in *@mv:
 * false if the two CPUs are in one cluster (or in none).
 */
bool cluster_move_of(struct cluster_move *mv, const struct schedstat_topology *topo,
		     int32_t pid, int32_t orig_cpu, int32_t dest_cpu);
/*
 * @s's migration table from @moves: a row per ordered pair of different
 * clusters, or only per pair (from, to) with @known[from * nr_clusters + to]
 * if @known is given. 0 or -ENOMEM.
 */
int migrations_fill_table(struct schedstat_snapshot *s, const struct cluster_move *moves,
			  size_t nr_moves, const bool *known);
/* Up and down migrations per task and cluster of @s; sorts @moves by pid. */
void migrations_count_moves(struct schedstat_snapshot *s, struct cluster_move *moves,
			    size_t nr_moves);

/*
 * A task switched out for the last time (TASK_DEAD, which kernels before
 * 4.14 had trace as 'x'): a bit of schedtop's own, beyond every kernel's
 * task state bits, that the event sources set from the trace's format.
 */
#define MODEL_STATE_DEAD	0x80000000u
/* ps-style state letter from task_struct.__state and exit_state. */
char model_state_letter(unsigned int state, unsigned int exit_state);

#endif /* SCHEDSTAT_MODEL_H */
