// SPDX-License-Identifier: GPL-2.0
/*
 * The source without BPF: sched events from a private tracefs instance
 * ("schedtop-PID", so the user's own tracing is never touched), read from
 * the per-CPU ring buffers in whole pages (tracefs_reader.h), parsed with
 * libtraceevent and turned into task records by the engine (engine.h).
 * Timestamps use the instance's "mono" clock: the CLOCK_MONOTONIC of
 * snapshots and of the BPF source.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs.h>

#include "model.h"
#include "proc_stat.h"
#include "cpuhp_names.h"
#include "engine_sink.h"
#include "sched_events.h"
#include "sched_kernel.h"
#include "source.h"
#include "tracefs_instance.h"
#include "tracefs_reader.h"
#include "tracepoints.h"

/* Per CPU: ~100k sched events, a second of a busy phone's switches. */
#define BUFFER_KB	4096
/* Drain this often between samples so long intervals do not overrun. */
#define DRAIN_MS	100

struct ftsrc {
	struct tracefs_instance *instance;
	struct tep_handle *tep;
	struct trace_reader *reader;
	struct sched_events *events;
	struct engine *engine;
	struct schedstat_topology *topo;
	struct engine_sink sink;	/* exits and migrations */
	int nr_cpus;
	int timerfd;
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

/*
 * The kernel's run time of a thread (/proc/PID/schedstat, first field): on
 * the task clock, which skips what steal and irq took.
 */
static int proc_task_clock(void *ctx, int32_t pid, uint64_t *ns)
{
	char path[64], buf[96];
	int err;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	err = util_read_small_file(path, buf, sizeof(buf));
	if (err < 0)
		return err;
	if (!buf[0])
		return -EIO;
	*ns = strtoull(buf, NULL, 10);
	return 0;
}

/* The first line of /proc/PID/@file that starts with @prefix; -ENOENT. */
static int proc_line(int32_t pid, const char *file, const char *prefix,
		     char *line, size_t size)
{
	char path[64];
	int err = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, size, f))
		if (!strncmp(line, prefix, strlen(prefix))) {
			err = 0;
			break;
		}
	fclose(f);
	return err;
}

/*
 * The task clock of @pid's CPU when it last stopped running: se.exec_start
 * in /proc/PID/sched, "ms.ns" (proc_sched_show_task()'s PN()).
 */
static int proc_exec_start(void *ctx, int32_t pid, uint64_t *ns)
{
	char line[256];
	unsigned long long ms, frac;
	char *colon;
	int err = proc_line(pid, "sched", "se.exec_start ", line, sizeof(line));

	if (err)
		return err;
	colon = strchr(line, ':');
	if (!colon || sscanf(colon + 1, " %llu.%6llu", &ms, &frac) != 2)
		return -EINVAL;
	*ns = ms * 1000000ULL + frac;
	return 0;
}

/* The CPUs @pid may run on (p->cpus_mask, Cpus_allowed_list). */
static int proc_affinity(void *ctx, int32_t pid, struct cpuset *allowed)
{
	static const char key[] = "Cpus_allowed_list:";
	char line[4096];
	int err = proc_line(pid, "status", key, line, sizeof(line));

	return err ? err : cpulist_parse(line + sizeof(key) - 1, allowed);
}

/*
 * p->max_allowed_capacity and its rule in update_misfit_status() came with
 * 6.10 ("sched/fair: Check a task has a fitting cpu when updating misfit").
 */
static bool kernel_has_max_allowed_capacity(void)
{
	unsigned int major = 0, minor = 0;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 10);
}

static int on_record(void *ctx, struct tep_record *rec)
{
	struct ftsrc *s = ctx;
	int err = sched_events_handle(s->events, rec);

	return err ? err : engine_sink_take_error(&s->sink);
}

struct lost_budget {
	struct ftsrc *s;
	bool irqtime;
};

/*
 * Each CPU's time lost to the task clock so far (/proc/stat, in 1/USER_HZ):
 * steal, and irq + softirq where the kernel accounts irq time
 * (CONFIG_IRQ_TIME_ACCOUNTING), which is when the task clock skips it. The
 * hardirq column is 0 otherwise: a tick never finds itself nested in an
 * interrupt. (On the test VM it is 0, and softirq time sampled by the tick
 * let ms of spurious loss through.)
 */
static void lost_budget_line(void *ctx, int cpu, const uint64_t *ns, int nr)
{
	struct lost_budget *lb = ctx;

	/* The total line comes first. */
	if (cpu < 0) {
		lb->irqtime = nr > PROC_STAT_IRQ && ns[PROC_STAT_IRQ] > 0;
		return;
	}
	if (nr <= PROC_STAT_STEAL)
		return;
	engine_lost_budget(lb->s->engine, cpu, ns[PROC_STAT_STEAL] +
			   (lb->irqtime ? ns[PROC_STAT_IRQ] + ns[PROC_STAT_SOFTIRQ] : 0));
}

static void read_lost_budget(struct ftsrc *s)
{
	struct lost_budget lb = { s, false };

	proc_stat_read("/proc/stat", lost_budget_line, &lb);
}

/*
 * Everything the kernel has written before @upto, in time order across
 * CPUs; later records wait for the next drain (tracefs_reader.h). Then the
 * tasks that ran are asked the kernel's run time, which says what steal
 * and irq took from them, within what /proc/stat says they took.
 */
static int drain_until(struct ftsrc *s, uint64_t upto)
{
	int n = trace_reader_drain(s->reader, upto, on_record, s);

	if (n >= 0) {
		read_lost_budget(s);
		engine_task_clocks(s->engine);
	}
	return n;
}

static int drain(struct ftsrc *s)
{
	return drain_until(s, util_mono_ns());
}

/*
 * Records lost per CPU: overwritten before they were read (the stats'
 * "overrun", which the pages read also say) or refused when the buffer was
 * full ("dropped events"), cumulative.
 */
static void read_overruns(struct ftsrc *s)
{
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		uint64_t lost = trace_reader_missed(s->reader, cpu), v = 0;
		char rel[64], *text, *p;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(s->instance, rel, NULL);
		if (text) {
			p = strstr(text, "overrun:");
			if (p)
				v = strtoull(p + 8, NULL, 10);
			p = strstr(text, "dropped events:");
			if (p)
				v += strtoull(p + 15, NULL, 10);
			free(text);
		}
		engine_set_dropped(s->engine, cpu, v > lost ? v : lost);
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
static int seed_tasks(struct ftsrc *s, uint64_t ts)
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

static int enable_events(struct ftsrc *s)
{
	int n = 0;

	for (int k = 0; k < TP_NR_EVENTS; k++) {
		const char *sys = tp_table[k].system;
		const char *name = tp_table[k].name;

		/*
		 * Events a trace may carry that the live source leaves off:
		 * each fires about as often as sched_switch (per 100,000
		 * pinned pipe loops: 111,396 sched_waking, 229,162
		 * sched_stat_runtime, 200,182 sched_switch), and what they
		 * give comes from elsewhere: the wakeup count from
		 * sched_wakeup, the task clock from /proc/PID/schedstat
		 * (engine_task_clocks()). And task_rename, rare but a file's
		 * matter: live, a task's switches name it.
		 */
		if (tp_table[k].flags & SCHEDSTAT_TP_FILES_ONLY) {
			sched_events_ignore(s->events, name);
			continue;
		}
		if (tracefs_event_enable(s->instance, sys, name))
			continue;	/* this kernel lacks it */
		if (n < (int)ARRAY_SIZE(s->attached) - 1)
			s->attached[n++] = name;
	}
	if (!n || strcmp(s->attached[0], "sched_switch"))
		return -SCHEDSTAT_ERR_TRACEFS_EVENTS;
	return 0;
}

static int ftsrc_sample(void *src, struct schedstat_snapshot **out)
{
	struct ftsrc *s = src;
	struct cpuset online = {};
	struct model_input in = {};
	uint64_t now = util_mono_ns();
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

static int ftsrc_poll(void *src)
{
	struct ftsrc *s = src;
	uint64_t ticks;

	/* The timer only paces draining; its count does not matter. */
	if (read(s->timerfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return -errno;
	return drain(s);
}

static int ftsrc_event_fd(const void *src)
{
	const struct ftsrc *s = src;

	return s->timerfd;
}

static const struct schedstat_topology *ftsrc_topology(const void *src)
{
	const struct ftsrc *s = src;

	return s->topo;
}

static void ftsrc_close(void *src)
{
	struct ftsrc *s = src;

	if (!s)
		return;
	/* Its trace_pipe_raw files open would keep the instance (EBUSY). */
	trace_reader_free(s->reader);
	trace_instance_close(s->instance);
	if (s->timerfd >= 0)
		close(s->timerfd);
	sched_events_free(s->events);
	tep_free(s->tep);
	engine_free(s->engine);
	model_free(s->sink.model);
	schedstat_topology_free(s->topo);
	free(s);
}

static int ftsrc_open(void **out, const struct schedstat_session_opts *opts)
{
	struct itimerspec its = {
		.it_interval = { 0, DRAIN_MS * 1000000L },
		.it_value = { 0, DRAIN_MS * 1000000L },
	};
	struct engine_hooks hooks = {
		.tgid = proc_tgid, .task_clock = proc_task_clock,
		.exec_start = proc_exec_start,
		.affinity = proc_affinity,
		.max_allowed_capacity = kernel_has_max_allowed_capacity(),
	};
	struct schedstat_snapshot *none;
	struct ftsrc *s;
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
	err = trace_reader_open(&s->reader, s->instance, s->tep, s->nr_cpus);
	if (err)
		goto cleanup;
	err = sched_events_new(&s->events, s->tep, s->engine);
	if (err)
		goto cleanup;
	/* The instance's clock is mono: steps are on the samples' clock. */
	if (opts->on_event)
		sched_events_on_cpuhp(s->events, opts->on_event, opts->event_ctx,
				      cpuhp_kick_address());
	err = seed_tasks(s, util_mono_ns());
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
	err = ftsrc_sample(s, &none);
	if (err)
		goto cleanup;
	*out = s;
	s = NULL;
cleanup:
	ftsrc_close(s);
	return err;
}

const struct source_ops ftsrc_ops = {
	.name = "tracefs",
	.open = ftsrc_open,
	.close = ftsrc_close,
	.sample = ftsrc_sample,
	.poll = ftsrc_poll,
	.event_fd = ftsrc_event_fd,
	.topology = ftsrc_topology,
};
