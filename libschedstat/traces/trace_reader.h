/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every reader of an outside trace file gives the driver they share
 * (trace_driver.c): the file's sched and power events in one neutral form,
 * each CPU's in time order. The driver merges the CPUs in time order (within
 * a bounded window, unless the reader says its events are already merged),
 * reads the file twice (a first pass finds each CPU's highest frequency and
 * first switch, the threads' processes), sets the trace's window (the head
 * before each CPU's first switch, the tail up to the last event), feeds the
 * engine and samples by interval. A reader only decodes.
 *
 * A reader is a struct trace_reader_ops in trace_readers[] (trace_readers.c):
 * the file's format is found there by content, in that order, for every
 * command that reads a file (replay, report, csv --from, convert).
 */
#ifndef SCHEDSTAT_TRACE_READER_H
#define SCHEDSTAT_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedstat.h"

#define TRACE_COMM_LEN	16	/* the kernel's TASK_COMM_LEN, NUL included */

enum trace_ev_kind {
	TRACE_EV_NONE = 0,
	/* sched:sched_switch. ev.sw; prev_pid -1: not known (CompactSched's first). */
	TRACE_EV_SWITCH,
	/* sched_waking (counted as a wakeup), sched_wakeup, sched_wakeup_new: ev.wake */
	TRACE_EV_WAKING,
	TRACE_EV_WAKEUP,
	TRACE_EV_WAKEUP_NEW,
	TRACE_EV_MIGRATE,		/* sched_migrate_task: ev.migrate */
	TRACE_EV_EXIT,			/* sched_process_exit: ev.task */
	TRACE_EV_FREE,			/* sched_process_free: ev.task */
	TRACE_EV_NEWTASK,		/* task_newtask: ev.task (the child) */
	TRACE_EV_RENAME,		/* task_rename: ev.task (its new comm) */
	TRACE_EV_FREQ,			/* cpu_frequency (or devlib's marker of it): ev.power */
	TRACE_EV_IDLE,			/* cpu_idle: ev.power, state -1 for the exit */
	TRACE_EV_CPUHP_ENTER,		/* cpuhp_enter: ev.hp (target) */
	TRACE_EV_CPUHP_MULTI_ENTER,	/* cpuhp_multi_enter: ev.hp (target) */
	TRACE_EV_CPUHP_EXIT,		/* cpuhp_exit: ev.hp (state in target) */
	TRACE_EV_RUNTIME,		/* sched_stat_runtime: ev.runtime */
	TRACE_EV_PELT_TASK,		/* the kernel's own PELT of a task: ev.pelt */
	TRACE_EV_PELT_CPU,		/* ... of a CPU's root cfs_rq: ev.pelt */
	TRACE_EV_OVERUTILIZED,		/* sched_overutilized: ev.overutilized */
	/*
	 * Events the CPU's buffer lost before this point (a Perfetto bundle's
	 * lost_events, a trace.dat page's missed events): ev.lost.count, 0
	 * when the trace says some were lost but not how many.
	 */
	TRACE_EV_LOST,
	/*
	 * Any other event of the file that names the task current on its CPU
	 * (its common pid): the driver learns from it what ran before the
	 * CPU's first switch. Nothing else.
	 */
	TRACE_EV_CURRENT,
	/*
	 * A thread's process and name, from the file's metadata (Perfetto's
	 * process_tree, a text trace's TGID column): ev.task with tgid. Taken
	 * when read, not in time order; ts may be 0.
	 */
	TRACE_EV_TASK,
	TRACE_EV_NR_KINDS,
};

/* prev_state bits in the engine's layout: today's kernel's TASK_REPORT. */
#define TRACE_STATE_PREEMPTED	0x100	/* "R+", TASK_REPORT_MAX: still runnable */
/* TASK_DEAD as 4.x kernels traced it ('x'): MODEL_STATE_DEAD. */
#define TRACE_STATE_DEAD	0x80000000u

struct trace_ev {
	uint64_t ts;			/* ns, the trace's clock */
	int32_t cpu;			/* the CPU whose buffer holds it */
	int32_t pid;			/* common_pid: current on @cpu then; -1 unknown */
	uint16_t kind;			/* enum trace_ev_kind */
	union {
		struct {
			int32_t prev_pid, prev_prio;
			/*
			 * The engine's layout: S 0x1, D 0x2, T 0x4, t 0x8,
			 * X 0x10, Z 0x20, P 0x40, I 0x80, preempted
			 * TRACE_STATE_PREEMPTED, x TRACE_STATE_DEAD; a
			 * reader maps its kernel's bits or letters to these.
			 */
			uint64_t prev_state;
			int32_t next_pid, next_prio;
			char prev_comm[TRACE_COMM_LEN];	/* "" not known */
			char next_comm[TRACE_COMM_LEN];
		} sw;
		struct {
			int32_t pid, prio, target_cpu;
			char comm[TRACE_COMM_LEN];
		} wake;
		struct {
			int32_t pid, prio, orig_cpu, dest_cpu;
			char comm[TRACE_COMM_LEN];
		} migrate;
		struct {
			int32_t pid;
			int32_t tgid;		/* TRACE_EV_TASK only; 0 unknown */
			char comm[TRACE_COMM_LEN];
		} task;
		struct {
			int32_t cpu;		/* cpu_id: the CPU it is about */
			int32_t state;		/* kHz, or the idle state (-1: exit) */
		} power;
		struct {
			int32_t cpu, target, idx, ret;
			uint64_t fun;		/* the callback's address, 0 unknown */
		} hp;
		struct {
			int32_t pid;
			uint64_t runtime_ns;
		} runtime;
		struct {
			int32_t pid;		/* PELT_TASK */
			int32_t cpu;		/* PELT_CPU */
			uint64_t util, load, runnable;
			bool has_load, has_runnable;
		} pelt;
		struct {
			bool on;
		} overutilized;
		struct {
			uint64_t count;
		} lost;
	};
};

/*
 * Where a file stopped making sense: the reader fills it and returns
 * -SCHEDSTAT_ERR_TRACE_DAMAGED from open() or next(). The driver keeps what
 * was read before, ends the trace there and the session says so (one line:
 * the file, the offset or line, @what).
 */
struct trace_damage {
	bool set;
	uint64_t offset;		/* bytes into the file (or an inflated packet's) */
	unsigned long line;		/* text readers: 1-based; 0 if by offset */
	char what[128];			/* "a varint runs past the end of its packet" */
};

/* What a reader knows about the file beyond its events (filled at open, or
 * as the first pass reads it: the driver looks after that pass). */
struct trace_reader_info {
	/* CPUs of the traced machine (highest CPU + 1); 0: from the events. */
	int nr_cpus;
	/* The kernel release the file names ("5.10.107-android13-4"), "" if none. */
	char release[65];
	/* Without a release: an EAS 4.x event whose format the file stores. */
	char pelt_evidence[32];
	/* The reader's events are merged in time order across CPUs already. */
	bool sorted;
	/*
	 * SCHEDSTAT_AVAIL_* the file's events give (tracepoints.c's rows of
	 * the events it holds); SCHEDSTAT_AVAIL_PELT_ESTIMATED is added by
	 * the driver.
	 */
	uint32_t avail;
	/* Per CPU, from the file (Perfetto's cpu_info); 0: not given. */
	uint32_t capacity[SCHEDSTAT_MAX_CPUS];
	uint32_t max_khz[SCHEDSTAT_MAX_CPUS];
	/* Events named by the reader's format, e.g. "perfetto (compact sched)". */
	char format[48];
	struct trace_damage damage;
};

struct trace_reader_ops {
	const char *name;		/* "trace-cmd", "perfetto", ... */
	/*
	 * Whether the file is of this format, by its content: @head is its
	 * first @len bytes (up to 4096); @fd may be read further with pread().
	 */
	bool (*probe)(int fd, const uint8_t *head, size_t len);
	/*
	 * @fd stays the driver's (dup() it to keep it); @path names the file
	 * for libraries that open by name. 0, -errno, or
	 * -SCHEDSTAT_ERR_TRACE_DAMAGED with @info->damage set.
	 */
	int (*open)(void **out, int fd, const char *path,
		    struct trace_reader_info *info);
	/*
	 * The next event into @ev: 1, 0 at the end of the file, or a negative
	 * error (-SCHEDSTAT_ERR_TRACE_DAMAGED with info->damage set). Events
	 * of one CPU come in time order; of different CPUs, in any order
	 * within a few seconds of each other unless info->sorted.
	 */
	int (*next)(void *r, struct trace_ev *ev);
	/* Back to the first event, for the driver's second pass. */
	int (*rewind)(void *r);
	void (*close)(void *r);
};

/*
 * trace_readers.c: every reader, in probe order, NULL-ended; and the one
 * whose probe() takes the file at @fd (read from its start), or NULL.
 */
extern const struct trace_reader_ops *const trace_readers[];
const struct trace_reader_ops *trace_reader_detect(int fd);

/*
 * devlib's trace_marker line of a CPU's frequency (LISA reads them as
 * cpu_frequency events): "cpu_frequency: state=KHZ cpu_id=CPU", later
 * "cpu_frequency_devlib: ...". True with @cpu and @khz if @line is one.
 */
bool trace_marker_freq(const char *line, int32_t *cpu, int32_t *khz);

/*
 * prev_state letters as the kernel prints them ("S", "R+", "D|K", "x"),
 * in the engine's layout above; for text readers.
 */
uint64_t trace_state_from_letters(const char *s);

#endif /* SCHEDSTAT_TRACE_READER_H */
