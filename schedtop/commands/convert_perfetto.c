// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop convert --perfetto: a recording as a native Perfetto trace
 * (docs/perfetto.md). Samples, PELT updates and hotplug operations are
 * handed to the library's writer merged in time order, a sample at a time:
 * memory does not grow with the recording's length.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "convert_perfetto.h"
#include "recording.h"
#include "trace_counters.h"

/* A metadata value as a number; false if absent or not one. */
static bool meta_u64(struct schedstat_recording *rec, const char *key, uint64_t *v)
{
	const char *s = schedstat_recording_meta(rec, key);
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

struct merge {
	struct schedstat_perfetto *p;
	struct schedstat_recording *rec;
	/* The next PELT update not yet written (have_pelt), and damage met. */
	struct schedstat_pelt_update pelt;
	bool have_pelt;
	size_t bad_pelt;
	struct schedstat_recorded_hotplug *ops;
	size_t nr_ops, next_op;
};

static void next_pelt(struct merge *m)
{
	int err;

	while ((err = schedstat_recording_pelt_next(m->rec, &m->pelt)) == -EBADMSG)
		m->bad_pelt++;
	m->have_pelt = !err;
	if (err && err != -ENODATA)
		m->bad_pelt++;
}

/* Everything between samples up to @ts (UINT64_MAX: the rest). */
static int until(struct merge *m, uint64_t ts)
{
	int err = 0;

	while (!err && m->have_pelt && m->pelt.ts_ns <= ts) {
		err = schedstat_perfetto_add_pelt(m->p, &m->pelt);
		next_pelt(m);
	}
	while (!err && m->next_op < m->nr_ops && m->ops[m->next_op].ts_ns <= ts)
		err = schedstat_perfetto_add_hotplug(m->p, &m->ops[m->next_op++]);
	return err;
}

int convert_perfetto(struct schedstat_recording *rec, int fd, const char *path,
		     bool task_stats)
{
	struct schedstat_recording_info info;
	struct schedstat_perfetto_opts opts = { .sz = sizeof(opts) };
	struct schedstat_trace_counter *ctrs = NULL;
	struct merge m = { .rec = rec };
	size_t bad = 0, damaged_hp = 0;
	uint64_t mono, real;
	bool chunks_bad = false;
	int err;

	schedstat_recording_info(rec, &info);
	err = trace_counters(&ctrs, &opts.nr_counters, task_stats);
	if (err)
		goto cleanup;
	opts.counters = ctrs;
	opts.topo = schedstat_recording_topology(rec);
	err = schedstat_recording_clocks(rec, &opts.clocks, &opts.nr_clocks);
	if (err && err != -ENODATA)
		goto cleanup;
	if (!opts.nr_clocks)
		fprintf(stderr, "schedtop: note: %s: the recording does not say where "
			"its clock (CLOCK_MONOTONIC) stood against CLOCK_BOOTTIME "
			"(format 1.2 or older, or made from a trace file): the trace "
			"keeps its own time and cannot be lined up with a Perfetto "
			"capture of the same moments (at best by the wall-clock time "
			"of its start)\n", path);
	if (meta_u64(rec, "start_monotonic_ns", &mono) &&
	    meta_u64(rec, "start_realtime_ns", &real)) {
		opts.have_realtime = true;
		opts.realtime_offset_ns = (int64_t)(real - mono);
	}
	err = schedstat_recording_hotplug(rec, &m.ops, &m.nr_ops, &damaged_hp);
	if (err == -ENODATA)
		err = 0;
	if (err)
		goto cleanup;
	err = schedstat_perfetto_open(&m.p, fd, &opts);
	if (err)
		goto cleanup;
	schedstat_recording_pelt_rewind(rec);
	next_pelt(&m);
	for (size_t i = 0; !err; i++) {
		const struct schedstat_event *evs;
		struct schedstat_snapshot *snap;
		size_t nr_evs;

		err = recording_read_sample(rec, &i, info.nr_samples, &snap, &evs, &nr_evs,
					    &bad);
		if (err == -ENODATA) {
			err = 0;
			break;
		}
		if (err)
			break;
		err = until(&m, schedstat_snapshot_ts_ns(snap));
		if (!err)
			err = schedstat_perfetto_add_sample(m.p, snap, evs, nr_evs);
		schedstat_snapshot_free(snap);
	}
	if (!err)
		err = until(&m, UINT64_MAX);
	if (m.bad_pelt) {
		cli_error("%s: damaged PELT chunks skipped", path);
		chunks_bad = true;
	}
	if (damaged_hp) {
		cli_error("%s: %zu damaged CPUHP chunks skipped", path, damaged_hp);
		chunks_bad = true;
	}
cleanup:
	{
		int close_err = schedstat_perfetto_close(m.p);

		if (!err)
			err = close_err;
	}
	schedstat_recording_hotplug_free(m.ops, m.nr_ops);
	free(ctrs);
	if (err) {
		cli_error("%s: %s", path, schedstat_strerror(err));
		return EXIT_FAIL;
	}
	if (recording_check_damage(path, rec, bad) != EXIT_OK || chunks_bad)
		return EXIT_FAIL;
	return EXIT_OK;
}
