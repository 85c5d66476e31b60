/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDSTAT_RECORD_REGROUP_H
#define SCHEDSTAT_RECORD_REGROUP_H

#include "model.h"
#include "record_reader.h"
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
 * Sample @s of regrouped recording @r (r->recorded, r->topo), with the
 * events @evs recorded with it: the clusters of CPUs, tasks and groups,
 * cluster rows summed again from the CPU rows, misfits against the new
 * capacities, frequency residency by each cluster's first online CPU, and
 * the moves between the new clusters that the recorded ones give (only
 * between clusters r->moves_known says). 0 or -ENOMEM (free @s then).
 */
int rec_regroup_snapshot(struct schedstat_snapshot *s,
			 const struct schedstat_recording *r,
			 const struct schedstat_event *evs, size_t nr_evs);

#endif /* SCHEDSTAT_RECORD_REGROUP_H */
