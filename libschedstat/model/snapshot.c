// SPDX-License-Identifier: GPL-2.0
/* Read-only accessors of a snapshot; the rows belong to the snapshot. */
#include <stdlib.h>

#include "model.h"

void schedstat_snapshot_free(struct schedstat_snapshot *snap)
{
	if (!snap)
		return;
	free(snap->tasks);
	free(snap->cpus);
	free(snap->clusters);
	free(snap->groups);
	free(snap->migrations);
	free(snap->freqs);
	free(snap);
}

uint64_t schedstat_snapshot_ts_ns(const struct schedstat_snapshot *snap)
{
	return snap->ts_ns;
}

uint64_t schedstat_snapshot_interval_ns(const struct schedstat_snapshot *snap)
{
	return snap->interval_ns;
}

uint32_t schedstat_snapshot_avail(const struct schedstat_snapshot *snap)
{
	return snap->avail;
}

uint64_t schedstat_snapshot_dropped(const struct schedstat_snapshot *snap)
{
	return snap->dropped;
}

const struct schedstat_task *
schedstat_snapshot_tasks(const struct schedstat_snapshot *snap, size_t *nr)
{
	*nr = snap->nr_tasks;
	return snap->tasks;
}

const struct schedstat_cpu *
schedstat_snapshot_cpus(const struct schedstat_snapshot *snap, size_t *nr)
{
	*nr = snap->nr_cpus;
	return snap->cpus;
}

const struct schedstat_cluster *
schedstat_snapshot_clusters(const struct schedstat_snapshot *snap, size_t *nr)
{
	*nr = snap->nr_clusters;
	return snap->clusters;
}

const struct schedstat_group *
schedstat_snapshot_groups(const struct schedstat_snapshot *snap, size_t *nr)
{
	*nr = snap->nr_groups;
	return snap->groups;
}

const struct schedstat_migration *
schedstat_snapshot_migrations(const struct schedstat_snapshot *snap, size_t *nr)
{
	*nr = snap->nr_migrations;
	return snap->migrations;
}

const struct schedstat_freq_residency *
schedstat_snapshot_freq_residency(const struct schedstat_snapshot *snap, size_t *nr)
{
	*nr = snap->nr_freqs;
	return snap->freqs;
}
