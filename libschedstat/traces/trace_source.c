// SPDX-License-Identifier: GPL-2.0
/*
 * A trace file as a session (source.h), whatever its format: the reader
 * that takes the file (trace_readers.c) decodes its events into the neutral
 * form (trace_reader.h); this driver does everything else, the same for
 * every format:
 *
 *  - a first pass over the file finds the trace's window (its first and
 *    last event), each CPU's first switch and what ran before it, each
 *    CPU's highest frequency and first cpu_frequency event, the threads'
 *    processes, and how many events each CPU has;
 *  - the second pass merges the CPUs' events in time order
 *    (trace_merge.c) and hands them to the engine (trace_apply.c), one
 *    sample per interval of trace time.
 *
 * The window (docs/signals.md, "A trace's window"):
 *
 *   first event                                              last event
 *   |--head--|sw1   ...   sw2 ...            swN|--tail---------|
 *   prev of sw1 ran here                   next of swN runs to the end
 *
 * The head of a CPU is charged to the task its first switch names as
 * previous (or, where the switch names none, to the task its events before
 * it name as current); the tail to the task its last switch brought in, up
 * to the trace's last event and no further: the last sample is taken there,
 * its interval as short as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atrace_values.h"
#include "engine_sink.h"
#include "model.h"
#include "sched_kernel.h"
#include "source.h"
#include "trace_apply.h"
#include "trace_merge.h"
#include "trace_reader.h"
#include "tracepoints.h"

enum head_from { HEAD_NONE, HEAD_SWITCH, HEAD_EVENT };

/* A day of 100 ms samples, with room: a trace longer is refused. */
#define TRACE_MAX_SAMPLES	1000000

/* What the first pass learns of a CPU. */
struct cpu_scan {
	uint64_t nr_events;		/* those the merge will see */
	uint64_t first_switch_ts;
	uint64_t first_freq_ts;		/* of events about it (cpu_id) */
	uint32_t max_khz;
	bool any, switched, freq_seen;
	int32_t last_pid;		/* current before its first switch, -1 */
	struct {
		int32_t pid, prio;
		char comm[TRACE_COMM_LEN];
		enum head_from from;
	} head;
	uint64_t lost;			/* second pass: dropped so far */
};

/* A thread as the file describes it (TRACE_EV_TASK, and its events). */
struct task_info {
	int32_t pid, tgid, prio;
	char comm[TRACE_COMM_LEN];
	int32_t last_cpu;		/* second pass: where it last ran, -1 */
	int32_t on_cpu;			/* ... where it runs now, -1 */
	bool valued;			/* an export: a counter of its has come */
	/*
	 * ... and its end (TRACE_EV_EXIT: "exit", the sample of its exited
	 * row; TRACE_EV_FREE: "gone", a sample without it), 0 none.
	 */
	uint16_t end;
	uint64_t end_ts;
};

struct trace_source {
	int fd;
	const struct trace_reader_ops *ops;
	void *r;
	struct trace_reader_info info;
	struct schedstat_trace_info ti;
	struct schedstat_trace_info *ti_out;	/* the caller's, or NULL */
	struct cpu_scan *cpu;
	int nr_cpus;			/* the trace's (its buffers') */
	int cap_cpu;
	uint32_t kinds;			/* 1 << TRACE_EV_*, seen */
	struct schedstat_hash *task_idx;
	struct task_info *tasks;
	size_t nr_tasks, cap_tasks;
	struct schedstat_topology *topo;
	struct engine *engine;
	struct engine_sink sink;
	struct trace_apply apply;
	struct trace_merge merge;
	bool seen_any;			/* first pass: an event with a CPU */
	uint64_t pulled;		/* second pass */
	/* The task each CPU runs, by its switches (second pass). */
	int32_t *curr;
	/* No sched_migrate_task in the file: moves are seen at switches. */
	bool infer_moves;
	/* Exits held until the task's last switch (see hold_exit()). */
	struct trace_ev exits[16];
	int nr_exits;
	uint64_t now, interval;
	uint32_t avail;
	bool all_in, done;
	struct schedstat_pelt_info pelt;
	/* schedtop's own --atrace counters in the file: the rows' values. */
	struct atrace_values counters;
	/*
	 * schedtop's own native export: no sched events, only its counters.
	 * Sampled at its own instants (the source recording's samples that
	 * changed a value); its tasks' rows are its threads that have values.
	 */
	bool export;
	struct st_task_rec *recs;
	size_t cap_recs;
};

/* ---- the threads ---- */

static struct task_info *task_find(struct trace_source *s, int32_t pid)
{
	uint64_t i;

	if (schedstat_hash_get(s->task_idx, (uint32_t)pid, &i))
		return NULL;
	return &s->tasks[i];
}

/* What the file says of @pid: its process (0, -1: not said), prio, comm. */
static int task_note(struct trace_source *s, int32_t pid, int32_t tgid,
		     int32_t prio, const char *comm)
{
	struct task_info *t;

	if (pid <= 0)
		return 0;
	t = task_find(s, pid);
	if (!t) {
		if (util_array_reserve((void **)&s->tasks, &s->cap_tasks,
				       s->nr_tasks + 1, sizeof(*s->tasks)))
			return -ENOMEM;
		t = &s->tasks[s->nr_tasks];
		*t = (struct task_info){ .pid = pid, .prio = -1, .last_cpu = -1,
					 .on_cpu = -1 };
		if (schedstat_hash_put(s->task_idx, (uint32_t)pid, s->nr_tasks))
			return -ENOMEM;
		s->nr_tasks++;
	}
	if (tgid > 0)
		t->tgid = tgid;
	if (prio >= 0 && t->prio < 0)
		t->prio = prio;
	if (comm && comm[0] && !t->comm[0])
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	return 0;
}

/* The engine's hook: a thread's process, as the file says (else its own). */
static int32_t task_tgid(void *ctx, int32_t pid)
{
	struct engine_sink *sink = ctx;
	struct trace_source *s = (struct trace_source *)((char *)sink -
						offsetof(struct trace_source, sink));
	struct task_info *t = task_find(s, pid);

	return t && t->tgid > 0 ? t->tgid : pid;
}

/* ---- the first pass ---- */

static struct cpu_scan *cpu_at(struct trace_source *s, int cpu)
{
	if (cpu < 0 || cpu >= SCHEDSTAT_MAX_CPUS)
		return NULL;
	if (cpu >= s->cap_cpu) {
		int n = cpu + 1 > 2 * s->cap_cpu ? cpu + 1 : 2 * s->cap_cpu;
		struct cpu_scan *c = realloc(s->cpu, n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + s->cap_cpu, 0, (n - s->cap_cpu) * sizeof(*c));
		for (int i = s->cap_cpu; i < n; i++)
			c[i].last_pid = -1;
		s->cpu = c;
		s->cap_cpu = n;
	}
	return &s->cpu[cpu];
}

/* Whether the second pass hands @ev to the merge. */
static bool merged(const struct trace_ev *ev)
{
	return ev->kind != TRACE_EV_TASK && ev->kind != TRACE_EV_CURRENT &&
	       ev->kind < TRACE_EV_NR_KINDS && ev->cpu >= 0 &&
	       ev->cpu < SCHEDSTAT_MAX_CPUS;
}

static int scan_event(struct trace_source *s, const struct trace_ev *ev)
{
	struct cpu_scan *c, *f;
	int err = 0;

	if (ev->kind == TRACE_EV_TASK)
		return task_note(s, ev->task.pid, ev->task.tgid, -1, ev->task.comm);
	c = cpu_at(s, ev->cpu);
	if (!c)
		return ev->cpu < 0 || ev->cpu >= SCHEDSTAT_MAX_CPUS ? 0 : -ENOMEM;
	if (ev->cpu >= s->nr_cpus)
		s->nr_cpus = ev->cpu + 1;
	if (!s->seen_any || ev->ts < s->ti.first_ns)
		s->ti.first_ns = ev->ts;
	if (!s->seen_any || ev->ts > s->ti.last_ns)
		s->ti.last_ns = ev->ts;
	s->seen_any = true;
	c->any = true;
	if (merged(ev))
		c->nr_events++;
	if (ev->kind < 32)
		s->kinds |= 1u << ev->kind;
	switch (ev->kind) {
	case TRACE_EV_SWITCH:
		if (!c->switched) {
			c->switched = true;
			c->first_switch_ts = ev->ts;
			if (ev->sw.prev_pid >= 0) {
				c->head.from = HEAD_SWITCH;
				c->head.pid = ev->sw.prev_pid;
				c->head.prio = ev->sw.prev_prio;
				memcpy(c->head.comm, ev->sw.prev_comm, sizeof(c->head.comm));
			} else if (c->last_pid >= 0) {
				c->head.from = HEAD_EVENT;
				c->head.pid = c->last_pid;
			}
		}
		err = task_note(s, ev->sw.next_pid, 0, ev->sw.next_prio, ev->sw.next_comm);
		if (!err && ev->sw.prev_pid > 0)
			err = task_note(s, ev->sw.prev_pid, 0, ev->sw.prev_prio,
					ev->sw.prev_comm);
		return err;
	case TRACE_EV_WAKING:
	case TRACE_EV_WAKEUP:
	case TRACE_EV_WAKEUP_NEW:
		err = task_note(s, ev->wake.pid, 0, ev->wake.prio, ev->wake.comm);
		break;
	case TRACE_EV_FREQ:
		f = cpu_at(s, ev->power.cpu);
		if (f && !f->freq_seen) {
			f->freq_seen = true;
			f->first_freq_ts = ev->ts;
		}
		if (f && ev->power.state > 0 && (uint32_t)ev->power.state > f->max_khz)
			f->max_khz = ev->power.state;
		/* cpu_id and the buffer's CPU may differ: c may have moved. */
		c = &s->cpu[ev->cpu];
		break;
	case TRACE_EV_LOST:
		/* Said at open (the front end's note); the rows' dropped in the second pass. */
		if (ev->cpu < 64)
			s->ti.lost_cpus |= 1ULL << ev->cpu;
		if (ev->lost.count)
			s->ti.lost_events += ev->lost.count;
		else
			s->ti.lost_uncounted++;
		break;
	}
	if (!c->switched && ev->pid >= 0)
		c->last_pid = ev->pid;
	return err;
}

/*
 * Each CPU's head as the first pass left it: a pid from events before the
 * switch gets the prio and comm the file gives that thread elsewhere.
 */
static void finish_heads(struct trace_source *s)
{
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct cpu_scan *c = &s->cpu[cpu];
		struct task_info *t;

		if (!c->switched && c->last_pid >= 0) {
			c->head.from = HEAD_EVENT;
			c->head.pid = c->last_pid;
			c->first_switch_ts = s->ti.last_ns;
		}
		if (c->head.from != HEAD_EVENT)
			continue;
		t = task_find(s, c->head.pid);
		c->head.prio = t && t->prio >= 0 ? t->prio : DEFAULT_PRIO;
		if (t)
			memcpy(c->head.comm, t->comm, sizeof(c->head.comm));
	}
}

static int scan(struct trace_source *s)
{
	struct trace_ev ev;
	int ret;

	while ((ret = s->ops->next(s->r, &ev)) > 0) {
		s->ti.nr_events++;
		ret = scan_event(s, &ev);
		if (ret)
			return ret;
	}
	if (ret == -SCHEDSTAT_ERR_TRACE_DAMAGED && s->info.damage.set) {
		s->ti.damage_offset = s->info.damage.offset;
		s->ti.damage_line = s->info.damage.line;
		snprintf(s->ti.damage, sizeof(s->ti.damage), "%s", s->info.damage.what);
		/* What came before the damage is read; nothing at all is an error. */
		ret = s->kinds & (1u << TRACE_EV_SWITCH | 1u << TRACE_EV_COUNTER) ? 0 : ret;
	}
	if (ret)
		return ret;
	/* schedtop's export: its counters are the rows (one sample is enough). */
	if (!(s->kinds & 1u << TRACE_EV_SWITCH) && s->info.schedtop_export) {
		if (!(s->kinds & 1u << TRACE_EV_COUNTER))
			return -SCHEDSTAT_ERR_TRACE_EXPORT;
		s->export = true;
		s->ti.schedtop_export = true;
	} else if (!(s->kinds & 1u << TRACE_EV_SWITCH) || s->ti.last_ns <= s->ti.first_ns) {
		return -SCHEDSTAT_ERR_TRACE_FILE;
	}
	/* Samples cost rows whether or not events fill them: bounded. */
	if ((s->ti.last_ns - s->ti.first_ns) / s->interval > TRACE_MAX_SAMPLES)
		return -SCHEDSTAT_ERR_TRACE_SPAN;
	if (s->info.nr_cpus > s->nr_cpus && s->info.nr_cpus <= SCHEDSTAT_MAX_CPUS &&
	    !cpu_at(s, s->info.nr_cpus - 1))
		return -ENOMEM;
	if (s->info.nr_cpus > s->nr_cpus)
		s->nr_cpus = s->info.nr_cpus;
	finish_heads(s);
	return 0;
}

/* ---- what the trace's machine was ---- */

/*
 * The trace's CPUs, whatever this machine has; its clusters from
 * --topology, a copy of that machine's sysfs (--sysfs-root), the file's
 * own capacities (Perfetto's cpu_info), else one cluster and a note from
 * the front end saying how to give them.
 */
static int trace_topology(struct trace_source *s,
			  const struct schedstat_session_opts *opts)
{
	unsigned int caps[SCHEDSTAT_MAX_CPUS], khz[SCHEDSTAT_MAX_CPUS];
	struct schedstat_topology *topo = NULL;
	bool from_file = true;
	int nr = s->nr_cpus, err;

	for (int cpu = 0; cpu < nr; cpu++) {
		caps[cpu] = s->info.capacity[cpu];
		khz[cpu] = s->info.max_khz[cpu];
		if (!caps[cpu])
			from_file = false;
	}
	if (opts->topology) {
		err = topology_parse_foreign(&topo, opts->topology);
	} else if (opts->sysfs_root) {
		err = schedstat_topology_detect(&topo, opts->sysfs_root);
	} else if (s->info.topology[0] &&
		   !topology_parse_foreign(&topo, s->info.topology)) {
		/* schedtop's export names its clusters (their tracks' descriptions). */
		err = 0;
	} else if (from_file) {
		err = topology_from_capacities(&topo, nr, caps, khz);
		s->ti.capacity_from_trace = !err;
	} else {
		struct cpuset all = {};

		for (int cpu = 0; cpu < nr; cpu++) {
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
	for (int cpu = 0; cpu < nr; cpu++) {
		if (schedstat_topology_cpu_cluster(topo, cpu) < 0) {
			schedstat_topology_free(topo);
			return -SCHEDSTAT_ERR_TOPOLOGY_TRACE;
		}
	}
	s->topo = topo;
	return 0;
}

/*
 * The scheme the trace's kernel computed PELT with: contributions scaled
 * until the scaled PELT clock came (v5.1, commit 23127296889f "sched/fair:
 * Update scale invariance of PELT"). Without a release, an event only older
 * kernels had decides (trace.dat); failing that, today's is assumed.
 */
static void pick_pelt_scheme(struct trace_source *s, enum schedstat_pelt_scheme want)
{
	unsigned int major = 0, minor = 0;

	s->pelt.scheme = SCHEDSTAT_PELT_SCALED_CLOCK;
	snprintf(s->pelt.release, sizeof(s->pelt.release), "%s", s->info.release);
	if (sscanf(s->pelt.release, "%u.%u", &major, &minor) == 2) {
		if (major < 5 || (major == 5 && minor < 1))
			s->pelt.scheme = SCHEDSTAT_PELT_SCALED_CONTRIB;
	} else {
		s->pelt.release[0] = '\0';
		if (s->info.pelt_evidence[0]) {
			s->pelt.scheme = SCHEDSTAT_PELT_SCALED_CONTRIB;
			snprintf(s->pelt.evidence, sizeof(s->pelt.evidence), "%s",
				 s->info.pelt_evidence);
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
 * gives one, else the file's own (cpu_info), else the highest the trace
 * shows.
 */
static void set_max_freqs(struct trace_source *s)
{
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct cpu_scan *c = &s->cpu[cpu];

		if (engine_max_freq(s->engine, cpu))
			continue;
		if (s->info.max_khz[cpu]) {
			engine_set_max_freq(s->engine, cpu, s->info.max_khz[cpu]);
		} else if (c->max_khz) {
			engine_set_max_freq(s->engine, cpu, c->max_khz);
			if (cpu < 64)
				s->pelt.max_freq_from_trace |= 1ULL << cpu;
		}
	}
}

/* SCHEDSTAT_AVAIL_* of the events seen, as the tracepoint table gives them. */
static uint32_t avail_of(uint32_t kinds)
{
	static const int row[TRACE_EV_NR_KINDS] = {
		[TRACE_EV_SWITCH] = TP_SCHED_SWITCH + 1,
		[TRACE_EV_WAKING] = TP_SCHED_WAKING + 1,
		[TRACE_EV_WAKEUP] = TP_SCHED_WAKEUP + 1,
		[TRACE_EV_WAKEUP_NEW] = TP_SCHED_WAKEUP_NEW + 1,
		[TRACE_EV_MIGRATE] = TP_SCHED_MIGRATE_TASK + 1,
		[TRACE_EV_EXIT] = TP_SCHED_PROCESS_EXIT + 1,
		[TRACE_EV_FREQ] = TP_CPU_FREQUENCY + 1,
		[TRACE_EV_IDLE] = TP_CPU_IDLE + 1,
		[TRACE_EV_CPUHP_ENTER] = TP_CPUHP_ENTER + 1,
		[TRACE_EV_CPUHP_MULTI_ENTER] = TP_CPUHP_MULTI_ENTER + 1,
		[TRACE_EV_CPUHP_EXIT] = TP_CPUHP_EXIT + 1,
		[TRACE_EV_RUNTIME] = TP_SCHED_STAT_RUNTIME + 1,
		[TRACE_EV_OVERUTILIZED] = TP_SCHED_OVERUTILIZED_EVENT + 1,
	};
	uint32_t avail = 0;

	for (int k = 0; k < TRACE_EV_NR_KINDS; k++)
		if ((kinds & 1u << k) && row[k])
			avail |= tp_table[row[k] - 1].events_avail;
	return avail;
}

/* The notes the front end prints: heads, clocks, losses. */
static void fill_info(struct trace_source *s)
{
	struct schedstat_trace_info *ti = &s->ti;

	snprintf(ti->format, sizeof(ti->format), "%s", s->info.format);
	snprintf(ti->kernel, sizeof(ti->kernel), "%s", s->info.release);
	snprintf(ti->machine, sizeof(ti->machine), "%s", s->info.machine);
	ti->nr_cpus = s->nr_cpus;
	for (int cpu = 0; cpu < s->nr_cpus && cpu < 64; cpu++) {
		struct cpu_scan *c = &s->cpu[cpu];
		uint64_t bit = 1ULL << cpu, head = c->first_switch_ts - ti->first_ns;

		if (c->head.from == HEAD_SWITCH)
			ti->head_switch |= bit;
		else if (c->head.from == HEAD_EVENT)
			ti->head_event |= bit;
		else if ((c->any || c->switched) && head)
			ti->head_unknown |= bit;
		if (c->head.from != HEAD_NONE && head > ti->head_max_ns)
			ti->head_max_ns = head;
		if (!c->freq_seen) {
			ti->freq_never |= bit;
		} else if (c->first_freq_ts > ti->first_ns) {
			ti->freq_unknown |= bit;
			if (c->first_freq_ts - ti->first_ns > ti->freq_unknown_max_ns)
				ti->freq_unknown_max_ns = c->first_freq_ts - ti->first_ns;
		}
	}
}

static void publish(struct trace_source *s)
{
	s->ti.late_events = s->merge.late;
	s->ti.atrace_counters = s->counters.taken;
	s->ti.atrace_ignored = s->counters.ignored;
	s->ti.atrace_values = s->counters.set;
	s->ti.export_unread = s->info.export_unread;
	if (s->ti_out)
		*s->ti_out = s->ti;
}

/* ---- the second pass ---- */

static int pull(struct trace_source *s)
{
	struct trace_ev ev;
	struct cpu_scan *c;
	int ret;

	/* Not more than the first pass read: the file may not grow. */
	if (s->pulled >= s->ti.nr_events) {
		s->all_in = true;
		return 0;
	}
	ret = s->ops->next(s->r, &ev);
	if (ret <= 0) {
		s->all_in = true;
		return ret == -SCHEDSTAT_ERR_TRACE_DAMAGED ? 0 : ret;
	}
	s->pulled++;
	if (!merged(&ev) || ev.cpu >= s->nr_cpus)
		return 0;
	c = &s->cpu[ev.cpu];
	/* A switch whose previous task the file does not give: the head's. */
	if (ev.kind == TRACE_EV_SWITCH && ev.sw.prev_pid < 0) {
		ev.sw.prev_pid = c->head.from != HEAD_NONE ? c->head.pid : 0;
		ev.sw.prev_prio = c->head.from != HEAD_NONE ? c->head.prio : DEFAULT_PRIO;
		memcpy(ev.sw.prev_comm, c->head.comm, sizeof(ev.sw.prev_comm));
	}
	return trace_merge_push(&s->merge, &ev);
}

static void forget_cpu(struct trace_source *s, int32_t pid);

static int engine_apply(struct trace_source *s, const struct trace_ev *ev)
{
	int err = trace_apply(&s->apply, ev);

	if (ev->kind == TRACE_EV_EXIT && s->infer_moves)
		forget_cpu(s, ev->task.pid);
	return err ? err : engine_sink_take_error(&s->sink);
}

/*
 * sched_process_exit comes from do_exit(), and the task runs on after it
 * (releasing its memory and files, maybe blocking or preempted there) until
 * its last switch, in state X or Z: its run time is all of its switches'.
 * The exit is held until that switch and applied just before it. An exit
 * whose task is still on its CPU at the trace's end stays held: it ran to
 * the end. The task is on its CPU when the switches say so, or when the
 * exit is its own event (its common pid) though they do not: a switch to
 * it went unrecorded (a tracefs capture here misses tokio-rt-worker's
 * switches away; a dying python3 ran 1 ms past its exit after one).
 */
static int hold_exit(struct trace_source *s, const struct trace_ev *ev)
{
	int err;

	if (ev->task.pid <= 0 || (s->curr[ev->cpu] != ev->task.pid &&
				  ev->pid != ev->task.pid))
		return engine_apply(s, ev);
	if (s->nr_exits == (int)(sizeof(s->exits) / sizeof(s->exits[0]))) {
		err = engine_apply(s, &s->exits[0]);
		if (err)
			return err;
		memmove(s->exits, s->exits + 1, --s->nr_exits * sizeof(s->exits[0]));
	}
	s->exits[s->nr_exits++] = *ev;
	return 0;
}

/*
 * A task switched in on one CPU while its switches still have it on another:
 * its switch out there is not in the trace (lost, or cut off by an excerpt).
 * It left that CPU then, which is idle from then until its next switch
 * (what engine_current() assumes of a task that left unseen).
 */
static int lost_switch_out(struct trace_source *s, const struct trace_ev *sw)
{
	struct task_info *t = sw->sw.next_pid > 0 ? task_find(s, sw->sw.next_pid) : NULL;
	int from;

	if (!t)
		return 0;
	from = t->on_cpu;
	t->on_cpu = sw->cpu;
	if (from < 0 || from == sw->cpu || s->curr[from] != t->pid)
		return 0;
	s->curr[from] = 0;
	s->ti.lost_switches++;
	return engine_left_unseen(s->engine, sw->ts, from);
}

/* Before @sw: the held exit of its previous task, if it leaves for good. */
static int release_exit(struct trace_source *s, const struct trace_ev *sw)
{
	const uint64_t gone = 0x10 | 0x20 | TRACE_STATE_DEAD;	/* X, Z, x */
	struct trace_ev ev;

	for (int i = 0; i < s->nr_exits; i++) {
		if (s->exits[i].task.pid != sw->sw.prev_pid)
			continue;
		if (!(sw->sw.prev_state & gone))
			return 0;
		ev = s->exits[i];
		memmove(s->exits + i, s->exits + i + 1,
			(--s->nr_exits - i) * sizeof(s->exits[0]));
		ev.ts = sw->ts;
		ev.pid = -1;
		return engine_apply(s, &ev);
	}
	return 0;
}

/*
 * Without sched_migrate_task (Perfetto's usual configs record none), a task
 * switched in on another CPU than the one it last ran on moved there: the
 * move is dated at that switch, from that CPU (docs/signals.md).
 */
static int infer_move(struct trace_source *s, const struct trace_ev *sw)
{
	struct task_info *t = sw->sw.next_pid > 0 ? task_find(s, sw->sw.next_pid) : NULL;
	struct trace_ev mv;
	int32_t from;

	if (!t)
		return 0;
	from = t->last_cpu;
	t->last_cpu = sw->cpu;
	if (from < 0 || from == sw->cpu)
		return 0;
	memset(&mv, 0, sizeof(mv));
	mv.ts = sw->ts;
	mv.cpu = sw->cpu;
	mv.pid = -1;
	mv.kind = TRACE_EV_MIGRATE;
	mv.migrate.pid = t->pid;
	mv.migrate.prio = sw->sw.next_prio;
	mv.migrate.orig_cpu = from;
	mv.migrate.dest_cpu = sw->cpu;
	memcpy(mv.migrate.comm, sw->sw.next_comm, sizeof(mv.migrate.comm));
	return engine_apply(s, &mv);
}

/* A pid that exits or starts anew has run nowhere yet. */
static void forget_cpu(struct trace_source *s, int32_t pid)
{
	struct task_info *t = pid > 0 ? task_find(s, pid) : NULL;

	if (t)
		t->last_cpu = -1;
}

/* An export's task as a record: who it is; its values come from its counters. */
static void export_rec(const struct task_info *t, struct st_task_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->pid = t->pid;
	r->tgid = t->tgid > 0 ? t->tgid : t->pid;
	r->prio = DEFAULT_PRIO;
	snprintf(r->comm, sizeof(r->comm), "%s", t->comm);
}

/*
 * An export's "exit" or "gone": the task is listed no more. Its exit goes
 * to the model, which makes its exited row at this sample, as it did for
 * the recording (one born and gone within the interval too).
 */
static int export_end(struct trace_source *s, const struct trace_ev *ev)
{
	struct task_info *t = ev->task.pid > 0 ? task_find(s, ev->task.pid) : NULL;
	struct st_task_rec rec;

	if (!t || !t->valued || t->end)
		return 0;
	t->end = ev->kind;
	t->end_ts = ev->ts;
	if (ev->kind != TRACE_EV_EXIT)
		return 0;
	export_rec(t, &rec);
	return model_add_exit(s->sink.model, &rec);
}

static int apply(struct trace_source *s, const struct trace_ev *ev)
{
	int err;

	switch (ev->kind) {
	case TRACE_EV_LOST: {
		struct cpu_scan *c = &s->cpu[ev->cpu];

		c->lost += ev->lost.count ? ev->lost.count : 1;
		engine_set_dropped(s->engine, ev->cpu, c->lost);
		return 0;
	}
	case TRACE_EV_COUNTER:
		if (s->export && ev->counter.row == SCHEDSTAT_ROW_TASK) {
			struct task_info *t = task_find(s, ev->counter.tid);

			if (!t) {
				err = task_note(s, ev->counter.tid, 0, -1, NULL);
				t = err ? NULL : task_find(s, ev->counter.tid);
				if (!t)
					return err ? err : -ENOMEM;
			}
			t->valued = true;
			t->end = 0;
		}
		err = atrace_values_take(&s->counters, ev);
		return err ? err : engine_apply(s, ev);
	case TRACE_EV_EXIT:
		if (s->export)
			return export_end(s, ev);
		return hold_exit(s, ev);
	case TRACE_EV_FREE:
		if (s->export)
			return export_end(s, ev);
		break;
	case TRACE_EV_RENAME:
		/* An export's rows take their names from here (export_rec()). */
		if (s->export) {
			struct task_info *t = task_find(s, ev->task.pid);

			if (t)
				snprintf(t->comm, sizeof(t->comm), "%s", ev->task.comm);
			return 0;
		}
		break;
	case TRACE_EV_SWITCH:
		err = s->nr_exits ? release_exit(s, ev) : 0;
		if (!err)
			err = lost_switch_out(s, ev);
		s->curr[ev->cpu] = ev->sw.next_pid;
		if (!err)
			err = engine_apply(s, ev);
		return err || !s->infer_moves ? err : infer_move(s, ev);
	case TRACE_EV_WAKEUP_NEW:
		if (s->infer_moves)
			forget_cpu(s, ev->wake.pid);
		break;
	}
	return engine_apply(s, ev);
}

/* Every event up to @until, in time order across CPUs. */
/* @ev, the merge's next, taken out of it and applied. */
static int apply_next(struct trace_source *s, const struct trace_ev *ev)
{
	struct trace_ev e = *ev;

	trace_merge_pop(&s->merge, ev);
	return apply(s, &e);
}

static int feed_until(struct trace_source *s, uint64_t until)
{
	const struct trace_ev *ev;
	int err;

	for (;;) {
		ev = trace_merge_peek(&s->merge, s->all_in);
		if (ev) {
			if (ev->ts > until)
				return 0;
			err = apply_next(s, ev);
			if (err)
				return err;
			continue;
		}
		if (s->all_in)
			return 0;
		/* A few at a time: the merge holds nothing back for long. */
		for (int i = 0; i < 32 && !s->all_in; i++) {
			err = pull(s);
			if (err)
				return err;
		}
	}
}

/*
 * An export's tasks at a sample: each thread with a value so far (its
 * values fill the row). What the export does not carry stays empty: its
 * CPU (unless --task-stats wrote it), state, prio, run time; their
 * availability bits (ACTIVITY, TASK_TIME) are off, no switch gave them.
 */
static int export_tasks(struct trace_source *s, uint64_t ts, struct model_input *in)
{
	size_t n = 0;

	if (schedstat_array_reserve((void **)&s->recs, &s->cap_recs, s->nr_tasks + 1,
				    sizeof(*s->recs)))
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task_info *t = &s->tasks[i];
		struct st_task_rec *r = &s->recs[n];

		/* Not listed from its end on: the model makes its exited row then. */
		if (!t->valued || (t->end && ts >= t->end_ts))
			continue;
		export_rec(t, r);
		n++;
	}
	in->tasks = s->recs;
	in->nr_tasks = n;
	in->task_kernel_pelt = NULL;
	return 0;
}

static int take(struct trace_source *s, uint64_t ts, struct schedstat_snapshot **out)
{
	struct cpuset online = {};
	struct model_input in = {};
	int err = engine_fill(s->engine, ts, &in);

	if (!err && s->export)
		err = export_tasks(s, ts, &in);
	if (err)
		return err;
	/* A trace does not say which CPUs were online: all of them. */
	topology_cpus(s->topo, &online);
	in.online = &online;
	in.avail = s->avail;
	err = model_update(s->sink.model, &in, out);
	/* What schedtop itself sampled, where the file has it: not estimates. */
	if (!err && *out)
		atrace_values_apply(&s->counters, *out, ts, s->interval);
	return err;
}


/*
 * An export's next instant: that of its next counter event. A thread's
 * new name is no instant of its own (a sample that changed no value has
 * none): taken on the way.
 */
static int export_next(struct trace_source *s, uint64_t *until)
{
	const struct trace_ev *ev;
	int err;

	for (;;) {
		ev = trace_merge_peek(&s->merge, s->all_in);
		if (ev && ev->kind == TRACE_EV_RENAME) {
			err = apply_next(s, ev);
			if (err)
				return err;
			continue;
		}
		if (ev) {
			*until = ev->ts;
			return 1;
		}
		if (s->all_in)
			return 0;
		err = pull(s);
		if (err)
			return err;
	}
}

static int trace_sample(void *src, struct schedstat_snapshot **out)
{
	struct trace_source *s = src;
	uint64_t until = s->now + s->interval;
	int err;

	*out = NULL;
	if (s->done)
		return -ENODATA;
	if (s->export) {
		err = export_next(s, &until);
		if (err <= 0) {
			s->done = true;
			return err ? err : -ENODATA;
		}
		if (until < s->now)
			until = s->now;
	} else if (until >= s->ti.last_ns || until < s->now) {
		/* Nothing past the last event: the last interval is what is left. */
		until = s->ti.last_ns;
		s->done = true;
	}
	err = feed_until(s, until);
	if (!err)
		err = take(s, until, out);
	s->now = until;
	publish(s);
	return err;
}

static int trace_poll(void *src)
{
	return 0;
}

static int trace_event_fd(const void *src)
{
	return -1;
}

static int trace_pelt_info(const void *src, struct schedstat_pelt_info *info)
{
	const struct trace_source *s = src;

	*info = s->pelt;
	return 0;
}

static const struct schedstat_topology *trace_topology_of(const void *src)
{
	const struct trace_source *s = src;

	return s->topo;
}

static void trace_close(void *src)
{
	struct trace_source *s = src;

	if (!s)
		return;
	if (s->r)
		s->ops->close(s->r);
	if (s->fd >= 0)
		close(s->fd);
	trace_merge_free(&s->merge);
	atrace_values_free(&s->counters);
	engine_free(s->engine);
	model_free(s->sink.model);
	schedstat_topology_free(s->topo);
	schedstat_hash_free(s->task_idx);
	free(s->tasks);
	free(s->recs);
	free(s->cpu);
	free(s->curr);
	free(s);
}

/* Each CPU's head: the task on it from the trace's first event. */
static int start_heads(struct trace_source *s)
{
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct cpu_scan *c = &s->cpu[cpu];
		int err;

		/* Nothing names it: idle until its first switch says otherwise. */
		if (c->head.from == HEAD_NONE && !c->switched)
			continue;
		s->curr[cpu] = c->head.from != HEAD_NONE ? c->head.pid : 0;
		if (s->curr[cpu] > 0 && task_find(s, s->curr[cpu])) {
			task_find(s, s->curr[cpu])->last_cpu = cpu;
			task_find(s, s->curr[cpu])->on_cpu = cpu;
		}
		err = engine_set_running(s->engine, s->ti.first_ns, cpu, s->curr[cpu],
					 c->head.prio, c->head.comm);
		if (err)
			return err;
	}
	return 0;
}

static int open_reader(struct trace_source *s, const char *path)
{
	static const char dat_magic[] = "\x17\x08\x44tracing";
	char head[sizeof(dat_magic) - 1];

	s->ops = trace_reader_detect(s->fd);
	if (s->ops)
		return s->ops->open(&s->r, s->fd, path, &s->info);
	/* A trace.dat, in a schedtop built without libtracecmd. */
	if (pread(s->fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
	    !memcmp(head, dat_magic, sizeof(head)))
		return -SCHEDSTAT_ERR_NO_TRACECMD;
	return -SCHEDSTAT_ERR_TRACE_FORMAT;
}

static int trace_open(void **out, const struct schedstat_session_opts *opts)
{
	struct engine_hooks hooks = {};
	struct schedstat_snapshot *none = NULL;
	struct trace_source *s;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = -1;
	s->ti_out = opts->trace_info;
	s->interval = opts->trace_interval_ns ? opts->trace_interval_ns : 1000000000ULL;
	s->sink.on_event = opts->on_event;
	s->sink.event_ctx = opts->event_ctx;
	/* Exits and migrations reach the model and the caller, as live. */
	engine_sink_hooks(&s->sink, &hooks);
	hooks.tgid = task_tgid;
	s->fd = open(opts->trace_file, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		err = -errno;
		goto cleanup;
	}
	err = schedstat_hash_new(&s->task_idx);
	if (!err)
		err = open_reader(s, opts->trace_file);
	if (!err)
		err = scan(s);
	fill_info(s);
	if (err)
		goto cleanup;
	err = trace_topology(s, opts);
	if (!err)
		err = model_new(&s->sink.model, s->topo);
	if (!err)
		err = engine_new(&s->engine, s->topo, &hooks);
	if (!err)
		err = atrace_values_init(&s->counters, s->topo);
	s->counters.hold_all = s->export;
	if (!err)
		err = trace_merge_init(&s->merge, s->nr_cpus, s->info.sorted, NULL);
	if (!err) {
		s->curr = calloc(s->nr_cpus, sizeof(*s->curr));
		err = s->curr ? 0 : -ENOMEM;
	}
	if (err)
		goto cleanup;
	/* Each CPU's total: the merge waits for no CPU that has no more. */
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		s->merge.q[cpu].total = s->cpu[cpu].nr_events;
		s->merge.totals_known = true;
	}
	s->apply = (struct trace_apply){
		.engine = s->engine,
		.have_waking = s->kinds & 1u << TRACE_EV_WAKING,
		.waking_enqueues = !(s->kinds & 1u << TRACE_EV_WAKEUP),
	};
	s->avail = s->info.avail | avail_of(s->kinds);
	s->infer_moves = !(s->kinds & 1u << TRACE_EV_MIGRATE);
	pick_pelt_scheme(s, opts->pelt_scheme);
	set_max_freqs(s);
	/* The second pass meets the same damage, and stops there again. */
	s->info.damage.set = false;
	err = s->ops->rewind(s->r);
	/* The baseline, at the first event: the first sample is one interval on. */
	s->now = s->ti.first_ns;
	if (!err)
		err = start_heads(s);
	/*
	 * Events at the first instant (a clock set, the idle task named) are
	 * the state the first interval starts from, as a sample at T holds
	 * every event up to T.
	 */
	if (!err && !s->export)
		err = feed_until(s, s->now);
	/* An export's first instant is a sample of its own: the baseline is before it. */
	if (!err)
		err = take(s, s->export && s->now ? s->now - 1 : s->now, &none);
	schedstat_snapshot_free(none);
	if (err)
		goto cleanup;
	*out = s;
	s = NULL;
cleanup:
	publish(*out ? *out : s);
	trace_close(s);
	return err;
}

const struct source_ops trace_source_ops = {
	.name = "trace-file",
	.open = trace_open,
	.close = trace_close,
	.sample = trace_sample,
	.poll = trace_poll,
	.event_fd = trace_event_fd,
	.topology = trace_topology_of,
	.pelt_info = trace_pelt_info,
};

const char *schedstat_trace_format(int fd)
{
	const struct trace_reader_ops *ops = trace_reader_detect(fd);

	return ops ? ops->name : NULL;
}
