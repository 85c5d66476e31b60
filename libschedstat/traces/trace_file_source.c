// SPDX-License-Identifier: GPL-2.0
/*
 * A trace-cmd recording (trace.dat) as a session: its sched events go
 * through the same parser and engine as the tracefs source, and each
 * sample advances by the interval in trace time, so a recording gives the
 * rows a live run would have given. Timestamps are the recording's clock.
 */
#ifdef HAVE_TRACECMD
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trace-cmd.h>

/*
 * The UNAME option of the file ("sysname nodename release version
 * machine", as trace-cmd record writes it), NULL if it has none: exported
 * by libtracecmd but declared only in its private header.
 */
const char *tracecmd_get_uname(struct tracecmd_input *handle);

#include "array_size.h"
#include "model.h"
#include "engine_sink.h"
#include "sched_events.h"
#include "sched_kernel.h"
#include "source.h"
#include "trace_file_check.h"

struct trace_file_source {
	struct tracecmd_input *handle;
	struct tracecmd_input *buffer;	/* handle or one of its instances */
	struct tep_handle *tep;		/* owned by the handle */
	struct sched_events *events;
	struct engine *engine;
	struct schedstat_topology *topo;
	struct engine_sink sink;	/* exits and migrations */
	int nr_trace_cpus;
	struct tep_record **next;	/* per trace CPU, NULL at its end */
	uint64_t now;			/* trace time sampled up to */
	uint64_t interval;
	uint32_t avail;
	bool done;
	struct schedstat_pelt_info pelt;
};

/* The trace CPU whose next record is the earliest, or -1 at the end. */
static int earliest(const struct trace_file_source *s)
{
	int best = -1;

	for (int cpu = 0; cpu < s->nr_trace_cpus; cpu++)
		if (s->next[cpu] &&
		    (best < 0 || s->next[cpu]->ts < s->next[best]->ts))
			best = cpu;
	return best;
}

/* Feed every record up to @until, in time order across CPUs. */
static int feed_until(struct trace_file_source *s, uint64_t until)
{
	int cpu, err;

	while ((cpu = earliest(s)) >= 0 && s->next[cpu]->ts <= until) {
		struct tep_record *rec = s->next[cpu];

		err = sched_events_handle(s->events, rec);
		tracecmd_free_record(rec);
		s->next[cpu] = tracecmd_read_data(s->buffer, cpu);
		if (!err)
			err = engine_sink_take_error(&s->sink);
		if (err)
			return err;
	}
	return 0;
}

static int trace_file_sample(void *src, struct schedstat_snapshot **out)
{
	struct trace_file_source *s = src;
	struct cpuset online = {};
	struct model_input in = {};
	int err;

	*out = NULL;
	if (s->done)
		return -ENODATA;
	/* The last sample covers the trace's tail, then the end. */
	if (earliest(s) < 0)
		s->done = true;
	s->now += s->interval;
	err = feed_until(s, s->now);
	if (err)
		return err;
	err = engine_fill(s->engine, s->now, &in);
	if (err)
		return err;
	/* A recording does not say which CPUs were online: all of them. */
	topology_cpus(s->topo, &online);
	in.online = &online;
	in.avail = s->avail;
	return model_update(s->sink.model, &in, out);
}

/* Events are consumed at each sample: nothing to poll. */
static int trace_file_poll(void *src)
{
	return 0;
}

static int trace_file_event_fd(const void *src)
{
	return -1;
}

static int trace_file_pelt_info(const void *src, struct schedstat_pelt_info *info)
{
	const struct trace_file_source *s = src;

	*info = s->pelt;
	return 0;
}

static const struct schedstat_topology *trace_file_topology(const void *src)
{
	const struct trace_file_source *s = src;

	return s->topo;
}

static void trace_file_close(void *src)
{
	struct trace_file_source *s = src;

	if (!s)
		return;
	for (int cpu = 0; s->next && cpu < s->nr_trace_cpus; cpu++)
		tracecmd_free_record(s->next[cpu]);
	free(s->next);
	sched_events_free(s->events);
	if (s->buffer && s->buffer != s->handle)
		tracecmd_close(s->buffer);
	if (s->handle)
		tracecmd_close(s->handle);
	engine_free(s->engine);
	model_free(s->sink.model);
	schedstat_topology_free(s->topo);
	free(s);
}

/* Read the first record of every CPU of @buffer; false if it has none. */
static bool load_buffer(struct trace_file_source *s, struct tracecmd_input *buffer)
{
	s->buffer = buffer;
	for (int cpu = 0; cpu < s->nr_trace_cpus; cpu++)
		s->next[cpu] = tracecmd_read_data(buffer, cpu);
	return earliest(s) >= 0;
}

/*
 * The top-level buffer, or else the first instance buffer that holds
 * events: "trace-cmd record -B NAME" and "trace-cmd extract -B NAME" (a
 * recording made with a private instance, as schedtop itself traces) put
 * them there.
 */
static int pick_buffer(struct trace_file_source *s)
{
	int n = tracecmd_buffer_instances(s->handle);

	if (load_buffer(s, s->handle))
		return 0;
	s->buffer = NULL;
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(s->handle, i);

		if (!b)
			continue;
		if (load_buffer(s, b))
			return 0;
		tracecmd_close(b);
		s->buffer = NULL;
	}
	return -SCHEDSTAT_ERR_TRACE_FILE;
}

/*
 * The recording machine's CPUs are the trace's, whatever this machine has;
 * its clusters are not in the file: --topology says them (a copy of that
 * machine's sysfs, --sysfs-root, would too), else all CPUs are one cluster
 * and the front end says how to give them.
 */
static int trace_topology(const struct schedstat_session_opts *opts,
			  int nr_cpus, struct schedstat_topology **out)
{
	struct schedstat_topology *topo = NULL;
	int err;

	*out = NULL;
	if (nr_cpus <= 0 || nr_cpus > SCHEDSTAT_MAX_CPUS)
		return -SCHEDSTAT_ERR_TRACE_FILE;
	if (opts->topology) {
		err = topology_parse_foreign(&topo, opts->topology);
	} else if (opts->sysfs_root) {
		err = schedstat_topology_detect(&topo, opts->sysfs_root);
	} else {
		struct cpuset all = {};
		unsigned int caps[SCHEDSTAT_MAX_CPUS];

		for (int cpu = 0; cpu < nr_cpus; cpu++) {
			cpuset_set(&all, cpu);
			caps[cpu] = SCHED_CAPACITY_SCALE;
		}
		topo = topology_new(SCHEDSTAT_TOPO_SINGLE);
		if (!topo)
			return -ENOMEM;
		err = topology_add_cluster(topo, "all", &all, caps, -1, 0, 0);
		if (!err)
			topology_seal(topo);
	}
	if (err) {
		schedstat_topology_free(topo);
		return err;
	}
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		if (schedstat_topology_cpu_cluster(topo, cpu) < 0) {
			schedstat_topology_free(topo);
			return -SCHEDSTAT_ERR_TOPOLOGY_TRACE;
		}
	}
	*out = topo;
	return 0;
}

/*
 * Events that only the EAS-era Android 4.x kernels declared (EAS r1.x,
 * include/trace/events/sched.h there; mainline never had them, and Android
 * replaced them with sched_load_se/sched_load_cfs_rq on 4.14 and 4.19):
 * a trace that stores their format was written by a kernel before 5.1,
 * even when trace-cmd was too old to store uname(2).
 */
static const char *const pre_5_1_events[] = {
	"sched_load_avg_task",
	"sched_load_avg_cpu",
};

static const char *pre_5_1_event_in(struct tep_handle *tep)
{
	for (size_t i = 0; i < ARRAY_SIZE(pre_5_1_events); i++)
		if (tep_find_event_by_name(tep, "sched", pre_5_1_events[i]))
			return pre_5_1_events[i];
	return NULL;
}

/*
 * The release the trace names, and the scheme its kernel used: contributions
 * scaled until the scaled PELT clock came (v5.1, commit 23127296889f
 * "sched/fair: Update scale invariance of PELT"). Without a release, or
 * one that does not parse, the formats of events only older kernels had
 * decide; failing those, today's scheme is assumed.
 */
static void pick_pelt_scheme(struct trace_file_source *s,
			     enum schedstat_pelt_scheme want)
{
	const char *uname = tracecmd_get_uname(s->handle);
	unsigned int major = 0, minor = 0;
	const char *old_event;

	s->pelt.scheme = SCHEDSTAT_PELT_SCALED_CLOCK;
	/* The third word: the release. */
	if (uname && sscanf(uname, "%*s %*s %64s", s->pelt.release) == 1 &&
	    sscanf(s->pelt.release, "%u.%u", &major, &minor) == 2 &&
	    (major < 5 || (major == 5 && minor < 1)))
		s->pelt.scheme = SCHEDSTAT_PELT_SCALED_CONTRIB;
	if (!major) {
		s->pelt.release[0] = '\0';
		old_event = pre_5_1_event_in(s->tep);
		if (old_event) {
			s->pelt.scheme = SCHEDSTAT_PELT_SCALED_CONTRIB;
			snprintf(s->pelt.evidence, sizeof(s->pelt.evidence),
				 "%s", old_event);
		}
	}
	if (want != SCHEDSTAT_PELT_AUTO) {
		s->pelt.scheme = want;
		s->pelt.chosen = true;
	}
	engine_set_pelt_scheme(s->engine,
			       s->pelt.scheme == SCHEDSTAT_PELT_SCALED_CONTRIB);
}

/*
 * Frequency invariance needs each CPU's maximum: the topology's when it
 * gives one, else the highest the trace shows (cpufreq's own events, or
 * devlib's markers), read in a first pass over the buffer, which then
 * starts again from each CPU's first record.
 */
static void scan_max_freq(struct trace_file_source *s)
{
	uint32_t seen[SCHEDSTAT_MAX_CPUS] = {};
	struct tep_record *rec;
	uint32_t khz;
	int cpu;

	for (int c = 0; c < s->nr_trace_cpus; c++) {
		tracecmd_free_record(s->next[c]);
		for (rec = tracecmd_read_cpu_first(s->buffer, c); rec;
		     rec = tracecmd_read_data(s->buffer, c)) {
			if (sched_events_freq(s->events, rec, &cpu, &khz) &&
			    cpu >= 0 && cpu < SCHEDSTAT_MAX_CPUS && khz > seen[cpu])
				seen[cpu] = khz;
			tracecmd_free_record(rec);
		}
		s->next[c] = tracecmd_read_cpu_first(s->buffer, c);
	}
	for (cpu = 0; cpu < s->nr_trace_cpus; cpu++) {
		if (engine_max_freq(s->engine, cpu) || !seen[cpu])
			continue;
		engine_set_max_freq(s->engine, cpu, seen[cpu]);
		if (cpu < 64)
			s->pelt.max_freq_from_trace |= 1ULL << cpu;
	}
}

static int trace_file_open(void **out, const struct schedstat_session_opts *opts)
{
	struct engine_hooks hooks = {};
	struct schedstat_snapshot *none;
	struct trace_file_source *s;
	int first, fd, err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->sink.on_event = opts->on_event;
	s->sink.event_ctx = opts->event_ctx;
	s->interval = opts->trace_interval_ns ? opts->trace_interval_ns :
		      1000000000ULL;
	/* Exits and migrations reach the model and the caller, as live. */
	engine_sink_hooks(&s->sink, &hooks);
	fd = open(opts->trace_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	/* libtracecmd trusts the lengths in the file: check them first. */
	err = trace_file_check(fd);
	close(fd);
	if (err)
		goto cleanup;
	s->handle = tracecmd_open(opts->trace_file, 0);
	if (!s->handle) {
		err = -SCHEDSTAT_ERR_TRACE_DAMAGED;
		goto cleanup;
	}
	s->tep = tracecmd_get_tep(s->handle);
	s->nr_trace_cpus = tep_get_cpus(s->tep);
	err = trace_topology(opts, s->nr_trace_cpus, &s->topo);
	if (!err)
		err = model_new(&s->sink.model, s->topo);
	if (!err)
		err = engine_new(&s->engine, s->topo, &hooks);
	if (!err)
		err = sched_events_new(&s->events, s->tep, s->engine);
	if (err)
		goto cleanup;
	if (!sched_events_have(s->events, "sched_switch")) {
		err = -SCHEDSTAT_ERR_TRACE_FILE;
		goto cleanup;
	}
	s->avail = sched_events_avail(s->events);
	s->next = calloc(s->nr_trace_cpus ? s->nr_trace_cpus : 1, sizeof(*s->next));
	if (!s->next) {
		err = -ENOMEM;
		goto cleanup;
	}
	pick_pelt_scheme(s, opts->pelt_scheme);
	err = pick_buffer(s);
	if (err)
		goto cleanup;
	scan_max_freq(s);
	first = earliest(s);
	/* Baseline at the first event: the first sample is one interval on. */
	s->now = s->next[first]->ts - s->interval;
	err = trace_file_sample(s, &none);
	if (err)
		goto cleanup;
	*out = s;
	s = NULL;
cleanup:
	trace_file_close(s);
	return err;
}

const struct source_ops trace_file_source_ops = {
	.name = "trace-file",
	.open = trace_file_open,
	.close = trace_file_close,
	.sample = trace_file_sample,
	.poll = trace_file_poll,
	.event_fd = trace_file_event_fd,
	.topology = trace_file_topology,
	.pelt_info = trace_file_pelt_info,
};
#endif /* HAVE_TRACECMD */
