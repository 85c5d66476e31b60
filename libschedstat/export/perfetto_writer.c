// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop's numbers as a native Perfetto trace (docs/perfetto.md): the
 * file, its clocks, its packet sequences and its tree of tracks. The wire
 * format is written by hand (proto_writer.h) with the field numbers of
 * perfetto_fields.h; no Perfetto code is involved.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfetto_fields.h"
#include "perfetto_writer.h"
#include "schedstat-local.h"


/*
 * Every pair the recording kept, at the start: the trace processor maps a
 * time by the latest snapshot at or before it (the first for earlier
 * times), so a suspend between two pairs moves BOOTTIME's offset where it
 * happened. Without pairs the trace's clock is MONOTONIC itself.
 */
static void clocks(struct schedstat_perfetto *p, const struct schedstat_perfetto_opts *o)
{
	uint32_t ids[3];
	uint64_t ts[3];
	int n = 0;

	p->aligned = o->nr_clocks > 0;
	ids[n] = PF_CLOCK_MONOTONIC;
	ts[n++] = p->aligned ? o->clocks[0].monotonic_ns : 0;
	if (p->aligned) {
		ids[n] = PF_CLOCK_BOOTTIME;
		ts[n++] = o->clocks[0].boottime_ns;
	}
	/* Realtime only once: NTP may step it, and snapshots must not go back. */
	if (o->have_realtime && (int64_t)ts[0] + o->realtime_offset_ns > 0) {
		ids[n] = PF_CLOCK_REALTIME;
		ts[n++] = ts[0] + o->realtime_offset_ns;
	}
	pfw_clock_snapshot(p, ids, ts, n, p->aligned ? PF_CLOCK_BOOTTIME : PF_CLOCK_MONOTONIC);
	for (size_t i = 1; i < o->nr_clocks; i++) {
		ids[0] = PF_CLOCK_MONOTONIC;
		ts[0] = o->clocks[i].monotonic_ns;
		ids[1] = PF_CLOCK_BOOTTIME;
		ts[1] = o->clocks[i].boottime_ns;
		if (ts[0] > o->clocks[i - 1].monotonic_ns &&
		    ts[1] > o->clocks[i - 1].boottime_ns)
			pfw_clock_snapshot(p, ids, ts, 2, 0);
	}
}

/* The machine's tracks: CPUs and clusters (their counters come with their first values). */
static int machine_tracks(struct schedstat_perfetto *p)
{
	char name[64];

	p->cpu_uuid = calloc(p->nr_cpus, sizeof(*p->cpu_uuid));
	p->cluster_uuid = calloc(p->nr_clusters, sizeof(*p->cluster_uuid));
	p->cpu_groups = calloc((size_t)p->nr_cpus * (p->nr_cpu_kinds + 1),
			       sizeof(*p->cpu_groups));
	p->cluster_groups = calloc((size_t)p->nr_clusters * (p->nr_cluster_kinds + 1),
				   sizeof(*p->cluster_groups));
	p->cpu_pelt = calloc((size_t)p->nr_cpus * PFW_PELT_ENTITIES, sizeof(*p->cpu_pelt));
	p->hotplug_uuid = calloc(p->nr_cpus, sizeof(*p->hotplug_uuid));
	p->hotplug_seq = calloc(p->nr_cpus, sizeof(*p->hotplug_seq));
	if (!p->cpu_uuid || !p->cluster_uuid || !p->cpu_groups || !p->cluster_groups ||
	    !p->cpu_pelt || !p->hotplug_uuid || !p->hotplug_seq)
		return -ENOMEM;
	p->cpus_uuid = pfw_uuid(p);
	pfw_track(p, p->cpus_uuid, 0, "schedtop CPUs", NULL, 0);
	p->clusters_uuid = pfw_uuid(p);
	pfw_track(p, p->clusters_uuid, 0, "schedtop clusters", NULL, 1);
	for (int c = 0; c < p->nr_cpus; c++) {
		if (schedstat_topology_cpu_cluster(p->topo, c) < 0)
			continue;
		p->cpu_uuid[c] = pfw_uuid(p);
		snprintf(name, sizeof(name), "cpu%d", c);
		pfw_track(p, p->cpu_uuid[c], p->cpus_uuid, name, NULL, c);
	}
	for (int k = 0; k < p->nr_clusters; k++) {
		const char *cl = schedstat_topology_cluster_name(p->topo, k);
		char cpus[SCHEDSTAT_MAX_CPUS * 2], desc[sizeof(cpus) + 32];

		/* Its CPUs and capacity: a reader of the export knows the clusters. */
		if (schedstat_topology_cluster_cpulist(p->topo, k, cpus, sizeof(cpus)))
			cpus[0] = '\0';
		snprintf(desc, sizeof(desc), "cpus %s capacity %u", cpus,
			 schedstat_topology_cluster_capacity(p->topo, k));
		p->cluster_uuid[k] = pfw_uuid(p);
		pfw_track_desc(p, p->cluster_uuid[k], p->clusters_uuid, cl,
			       cpus[0] ? desc : NULL, k);
	}
	return p->err;
}

int schedstat_perfetto_open(struct schedstat_perfetto **out, int fd,
			    const struct schedstat_perfetto_opts *opts)
{
	struct schedstat_perfetto *p;
	int err;

	*out = NULL;
	if (!opts || opts->sz < sizeof(*opts) || !opts->topo)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = fd;
	p->topo = opts->topo;
	p->nr_cpus = schedstat_topology_nr_cpus(opts->topo);
	p->nr_clusters = schedstat_topology_nr_clusters(opts->topo);
	p->next_uuid = 1;
	p->next_seq = PFW_SEQ_TRACKS + 1;
	err = schedstat_hash_new(&p->task_index);
	if (!err)
		err = schedstat_hash_new(&p->procs);
	if (!err)
		err = pfw_counter_kinds(p, opts->counters, opts->nr_counters);
	if (err)
		goto fail;
	/* The tracks' sequence: first, with nothing to carry but descriptors. */
	pfw_packet_begin(p, PFW_SEQ_TRACKS, 0);
	proto_put_uint(&p->out, PF_PKT_SEQUENCE_FLAGS, PF_SEQ_INCREMENTAL_STATE_CLEARED);
	proto_put_bool(&p->out, PF_PKT_FIRST_ON_SEQUENCE, true);
	pfw_packet_end(p);
	clocks(p, opts);
	err = machine_tracks(p);
	if (err)
		goto fail;
	*out = p;
	return 0;
fail:
	schedstat_perfetto_close(p);
	return err;
}

int schedstat_perfetto_add_sample(struct schedstat_perfetto *p,
				  const struct schedstat_snapshot *snap,
				  const struct schedstat_event *evs, size_t nr_evs)
{
	int err;

	if (p->err)
		return p->err;
	p->nr_samples++;
	err = pfw_events(p, evs, nr_evs);
	if (!err)
		err = pfw_samples_counters(p, snap);
	if (!err)
		pfw_tasks_sweep(p);
	if (err && !p->err)
		p->err = err;
	return p->err;
}

int schedstat_perfetto_close(struct schedstat_perfetto *p)
{
	int err;

	if (!p)
		return 0;
	err = pfw_flush(p);
	for (size_t i = 0; i < p->nr_tasks; i++)
		free(p->tasks[i].groups);
	free(p->tasks);
	free(p->free_slots);
	schedstat_hash_free(p->task_index);
	schedstat_hash_free(p->procs);
	free(p->kinds);
	free(p->cpu_uuid);
	free(p->cluster_uuid);
	free(p->cpu_groups);
	free(p->cluster_groups);
	free(p->cpu_pelt);
	free(p->hotplug_uuid);
	free(p->hotplug_seq);
	proto_free(&p->out);
	free(p);
	return err;
}
