/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDSTAT_RECORD_REGROUP_H
#define SCHEDSTAT_RECORD_REGROUP_H

#include "model.h"
#include "schedstat-local.h"

/*
 * The topology @spec names for a recording made with @recorded: capacities
 * the spec omits are the recorded ones. It must cover exactly the recorded
 * CPUs: -SCHEDSTAT_ERR_TOPOLOGY_TRACE if it leaves one out,
 * -SCHEDSTAT_ERR_TOPOLOGY_SPEC if it names one the recording lacks.
 */
int rec_regroup_topology(struct schedstat_topology **out, const char *spec,
			 const struct schedstat_topology *recorded);

/*
 * Sample @s, recorded with @recorded, regrouped by @topo: the clusters of
 * CPUs, tasks and groups, cluster rows summed again from the CPU rows,
 * misfits against the new capacities, frequency residency by each
 * cluster's first online CPU. Cluster moves are dropped: only those
 * between recorded clusters were kept. 0 or -ENOMEM (free @s then).
 */
int rec_regroup_snapshot(struct schedstat_snapshot *s,
			 const struct schedstat_topology *recorded,
			 const struct schedstat_topology *topo);

#endif /* SCHEDSTAT_RECORD_REGROUP_H */
