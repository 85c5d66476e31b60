/* SPDX-License-Identifier: GPL-2.0 */
/* The energy model's layout, shared by its reader and the estimate. */
#ifndef SCHEDSTAT_ENERGY_MODEL_H
#define SCHEDSTAT_ENERGY_MODEL_H

#include "schedstat-local.h"

/* A phone has at most a handful of domains; the kernel caps nothing. */
#define EM_MAX_DOMAINS	16
#define EM_MAX_STATES	64

struct em_domain {
	char name[SCHEDSTAT_NAME_LEN];
	char cpus[SCHEDSTAT_CPULIST_LEN];	/* debugfs only */
	struct cpuset cpuset;
	int cluster;				/* -ENOENT until bound */
	char cluster_name[SCHEDSTAT_NAME_LEN];
	double idle_mw;
	int nr_states;
	struct schedstat_em_state states[EM_MAX_STATES];
	bool perf_given;			/* debugfs "performance" */
};

struct schedstat_energy_model {
	char origin[SCHEDSTAT_PATH_LEN];
	bool from_debugfs;
	int nr_domains;
	struct em_domain domains[EM_MAX_DOMAINS];
	/* Cluster index -> domain index, -1 if none (after bind). */
	int cluster_dom[SCHEDSTAT_MAX_CPUS];
	bool bound;
};

/*
 * A recording keeps the model in its metadata (docs/record-format.md): one
 * key per domain, "energy_model.CLUSTER", valued "KHZ MW;...;idle MW", and
 * "energy_model_origin". Rebuilds a model from those pairs; -ENOENT if none.
 */
#define EM_META_PREFIX		"energy_model."
#define EM_META_ORIGIN		"energy_model_origin"
int energy_model_from_meta(struct schedstat_energy_model **out,
			   const char *const *keys, const char *const *values,
			   size_t n, const char *origin);

#endif /* SCHEDSTAT_ENERGY_MODEL_H */
