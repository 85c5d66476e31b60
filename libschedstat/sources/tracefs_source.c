// SPDX-License-Identifier: GPL-2.0
/*
 * The source without BPF: sched events from a private tracefs instance
 * ("schedtop-PID", so the user's own tracing is never touched), parsed with
 * libtraceevent and turned into task records by the engine (engine.h).
 * Timestamps use the instance's "mono" clock: the CLOCK_MONOTONIC of
 * snapshots and of the BPF source.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <tracefs.h>

#include "model.h"
#include "engine_sink.h"
#include "sched_events.h"
#include "sched_kernel.h"
#include "source.h"
#include "tracefs_instance.h"

/* Per CPU: ~100k sched events, a second of a busy phone's switches. */
#define BUFFER_KB	4096
/* Drain this often between samples so long intervals do not overrun. */
#define DRAIN_MS	100
/*
 * Records read per drain at most: a producer as fast as the reader (a
 * tracer of the tracer) must not keep it reading forever.
 */
#define DRAIN_BUDGET	(1 << 20)

struct tracefs_source {
	struct tracefs_instance *instance;
	struct tep_handle *tep;
	struct sched_events *events;
	struct engine *engine;
	struct schedstat_topology *topo;
	struct engine_sink sink;	/* exits and migrations */
	int nr_cpus;
	int timerfd;
	int cb_err;
	struct held *held;
	size_t nr_held, cap_held;
	unsigned char *held_data;
	size_t len_held_data, cap_held_data;
	uint64_t seq;
	size_t nr_read;			/* in this drain */
	uint32_t avail;
	const char *attached[24];
};

static const char *const systems[] = { "sched", "power", "cpuhp", NULL };

/* Tgid from /proc/PID/status; 0 when the thread is gone already. */
static int32_t proc_tgid(void *ctx, int32_t pid)
{
	char path[64], line[128];
	int32_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* A record held back until every CPU's buffer has been read past it. */
struct held {
	uint64_t ts;
	uint64_t seq;		/* keeps one CPU's same-ts records in order */
	int cpu;
	int size;
	size_t off;		/* of its data in held_data */
};

static int on_record(struct tep_event *event, struct tep_record *rec, int cpu,
		     void *ctx)
{
	struct tracefs_source *s = ctx;
	struct held *h;

	if (++s->nr_read > DRAIN_BUDGET)
		tracefs_iterate_stop(s->instance);
	if (array_reserve((void **)&s->held, &s->cap_held, s->nr_held + 1,
			  sizeof(*s->held)) ||
	    array_reserve((void **)&s->held_data, &s->cap_held_data,
			  s->len_held_data + rec->size, 1)) {
		s->cb_err = -ENOMEM;
		return 1;
	}
	h = &s->held[s->nr_held++];
	h->ts = rec->ts;
	h->seq = s->seq++;
	h->cpu = rec->cpu;
	h->size = rec->size;
	h->off = s->len_held_data;
	memcpy(s->held_data + s->len_held_data, rec->data, rec->size);
	s->len_held_data += rec->size;
	return 0;
}

static int cmp_held(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Everything the kernel has written before @upto, in time order across
 * CPUs. The per-CPU buffers are read one after the other: a record written
 * on CPU 0 while CPU 1's buffer was read carries an earlier time than some
 * of CPU 1's. Records after @upto wait for the next drain, when every
 * record before them has been read.
 */
static int drain_until(struct tracefs_source *s, uint64_t upto)
{
	size_t done = 0, keep = 0, len = 0;
	int err = 0;

	s->nr_read = 0;
	if (tracefs_iterate_raw_events(s->tep, s->instance, NULL, 0, on_record, s))
		err = errno ? -errno : -EIO;
	if (!err && s->cb_err)
		err = s->cb_err;
	s->cb_err = 0;
	qsort(s->held, s->nr_held, sizeof(*s->held), cmp_held);
	for (; !err && done < s->nr_held && s->held[done].ts <= upto; done++) {
		struct held *h = &s->held[done];
		struct tep_record rec = {
			.ts = h->ts, .cpu = h->cpu, .size = h->size,
			.data = s->held_data + h->off,
		};

		err = sched_events_handle(s->events, &rec);
		if (!err)
			err = engine_sink_take_error(&s->sink);
	}
	/* Compact what waits; its data moves to the front. */
	for (size_t i = done; i < s->nr_held; i++) {
		struct held h = s->held[i];

		memmove(s->held_data + len, s->held_data + h.off, h.size);
		h.off = len;
		len += h.size;
		s->held[keep++] = h;
	}
	s->nr_held = keep;
	s->len_held_data = len;
	return err ? err : (int)done;
}

static int drain(struct tracefs_source *s)
{
	return drain_until(s, mono_ns());
}

/* Records the ring buffer overwrote before we read them, per CPU. */
static void read_overruns(struct tracefs_source *s)
{
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		char rel[64], *text, *p;
		int size;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(s->instance, rel, &size);
		if (!text)
			continue;
		p = strstr(text, "overrun:");
		if (p)
			engine_set_dropped(s->engine, cpu, strtoull(p + 8, NULL, 10));
		free(text);
	}
}

/*
 * /proc/PID/task/TID/stat fields after the comm: state, then (counting from
 * 3) priority at 18 (prio - MAX_RT_PRIO), starttime at 22, processor at 39.
 */
static int parse_stat(const char *buf, struct engine_seed *seed, char *state)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	long long prio = 0, start = 0, cpu = 0;
	const char *p;
	int field = 3;
	size_t len;

	if (!open || !close || close < open)
		return -EINVAL;
	len = close - open - 1;
	if (len >= sizeof(seed->comm))
		len = sizeof(seed->comm) - 1;
	memcpy(seed->comm, open + 1, len);
	seed->comm[len] = '\0';
	p = close + 2;
	*state = *p;
	while (*p && field < 40) {
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
		field++;
		if (field == 18)
			prio = strtoll(p, NULL, 10);
		else if (field == 22)
			start = strtoll(p, NULL, 10);
		else if (field == 39)
			cpu = strtoll(p, NULL, 10);
	}
	seed->prio = prio + MAX_RT_PRIO;
	seed->start_time = start;
	seed->cpu = cpu;
	return field >= 39 ? 0 : -EINVAL;
}

/* se.avg.* from /proc/PID/task/TID/sched (CONFIG_SCHED_DEBUG kernels). */
static void parse_sched(const char *path, struct engine_seed *seed)
{
	char line[160];
	FILE *f = fopen(path, "r");
	unsigned long long v;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "se.avg.util_avg : %llu", &v) == 1) {
			seed->avg.util_avg = v;
			seed->have_avg = true;
		} else if (sscanf(line, "se.avg.load_avg : %llu", &v) == 1) {
			seed->avg.load_avg = v;
		} else if (sscanf(line, "se.avg.runnable_avg : %llu", &v) == 1) {
			seed->avg.runnable_avg = v;
		}
	}
	fclose(f);
}

/*
 * Tasks that exist before the first event: who they are, where they are,
 * and (where /proc shows it) the PELT state the kernel has for them, so the
 * engine does not start every task from zero.
 */
static int seed_tasks(struct tracefs_source *s, uint64_t ts)
{
	DIR *proc = opendir("/proc");
	struct dirent *pd;
	int err = 0;

	if (!proc)
		return -errno;
	while (!err && (pd = readdir(proc))) {
		int tgid = atoi(pd->d_name);
		char path[96];
		struct dirent *td;
		DIR *task;

		if (tgid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", tgid);
		task = opendir(path);
		if (!task)
			continue;
		while (!err && (td = readdir(task))) {
			struct engine_seed seed = { .tgid = tgid };
			char buf[1024], state;
			int pid = atoi(td->d_name);
			ssize_t n;
			FILE *f;

			if (pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tgid, pid);
			f = fopen(path, "r");
			if (!f)
				continue;
			n = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
			if (n <= 0)
				continue;
			buf[n] = '\0';
			seed.pid = pid;
			if (parse_stat(buf, &seed, &state))
				continue;
			seed.runnable = state == 'R';
			snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", tgid, pid);
			parse_sched(path, &seed);
			err = engine_seed(s->engine, &seed, ts);
		}
		closedir(task);
	}
	closedir(proc);
	return err;
}

static int enable_events(struct tracefs_source *s)
{
	int n = 0;

	for (int k = 0; sched_event_names[k].name; k++) {
		const char *sys = sched_event_names[k].system;
		const char *name = sched_event_names[k].name;

		if (tracefs_event_enable(s->instance, sys, name))
			continue;	/* this kernel lacks it */
		if (n < (int)ARRAY_SIZE(s->attached) - 1)
			s->attached[n++] = name;
	}
	if (!n || strcmp(s->attached[0], "sched_switch"))
		return -SCHEDSTAT_ERR_TRACEFS_EVENTS;
	return 0;
}

static int tracefs_source_sample(void *src, struct schedstat_snapshot **out)
{
	struct tracefs_source *s = src;
	struct cpuset online = {};
	struct model_input in = {};
	uint64_t now = mono_ns();
	int err;

	*out = NULL;
	/* The sample is of @now: everything before it, nothing after. */
	err = drain_until(s, now);
	if (err < 0)
		return err;
	read_overruns(s);
	err = engine_fill(s->engine, now, &in);
	if (err)
		return err;
	if (topology_read_online(NULL, &online))
		topology_cpus(s->topo, &online);
	in.online = &online;
	in.avail = s->avail;
	return model_update(s->sink.model, &in, out);
}

static int tracefs_source_poll(void *src)
{
	struct tracefs_source *s = src;
	uint64_t ticks;

	/* The timer only paces draining; its count does not matter. */
	if (read(s->timerfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return -errno;
	return drain(s);
}

static int tracefs_source_event_fd(const void *src)
{
	const struct tracefs_source *s = src;

	return s->timerfd;
}

static const struct schedstat_topology *tracefs_source_topology(const void *src)
{
	const struct tracefs_source *s = src;

	return s->topo;
}

static void tracefs_source_close(void *src)
{
	struct tracefs_source *s = src;

	if (!s)
		return;
	trace_instance_close(s->instance);
	if (s->timerfd >= 0)
		close(s->timerfd);
	free(s->held);
	free(s->held_data);
	sched_events_free(s->events);
	tep_free(s->tep);
	engine_free(s->engine);
	model_free(s->sink.model);
	schedstat_topology_free(s->topo);
	free(s);
}

static int tracefs_source_open(void **out, const struct schedstat_session_opts *opts)
{
	struct itimerspec its = {
		.it_interval = { 0, DRAIN_MS * 1000000L },
		.it_value = { 0, DRAIN_MS * 1000000L },
	};
	struct engine_hooks hooks = { .tgid = proc_tgid };
	struct schedstat_snapshot *none;
	struct tracefs_source *s;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->timerfd = -1;
	s->sink.on_event = opts->on_event;
	s->sink.event_ctx = opts->event_ctx;
	engine_sink_hooks(&s->sink, &hooks);
	err = source_topology(opts, &s->topo);
	if (err)
		goto cleanup;
	s->nr_cpus = schedstat_topology_nr_cpus(s->topo);
	err = model_new(&s->sink.model, s->topo);
	if (!err)
		err = engine_new(&s->engine, s->topo, &hooks);
	if (err)
		goto cleanup;
	err = trace_instance_open(&s->instance, BUFFER_KB);
	if (err)
		goto cleanup;
	s->tep = tracefs_local_events_system(NULL, systems);
	if (!s->tep) {
		err = -SCHEDSTAT_ERR_TRACEFS_EVENTS;
		goto cleanup;
	}
	err = sched_events_new(&s->events, s->tep, s->engine);
	if (err)
		goto cleanup;
	err = seed_tasks(s, mono_ns());
	if (err)
		goto cleanup;
	err = enable_events(s);
	if (err)
		goto cleanup;
	s->avail = sched_events_avail(s->events);
	s->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->timerfd < 0 || timerfd_settime(s->timerfd, 0, &its, NULL)) {
		err = -errno;
		goto cleanup;
	}
	/* The baseline that the first snapshot's deltas are taken against. */
	err = tracefs_source_sample(s, &none);
	if (err)
		goto cleanup;
	*out = s;
	s = NULL;
cleanup:
	tracefs_source_close(s);
	return err;
}

const struct source_ops tracefs_source_ops = {
	.name = "tracefs",
	.open = tracefs_source_open,
	.close = tracefs_source_close,
	.sample = tracefs_source_sample,
	.poll = tracefs_source_poll,
	.event_fd = tracefs_source_event_fd,
	.topology = tracefs_source_topology,
};
