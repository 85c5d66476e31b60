/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sched or power event of a trace, whatever the trace's format, in the
 * engine's terms: what every trace reader (traces/trace_reader.h) and the
 * tracefs source (sources/sched_events.c) decode the kernel's events into,
 * and what trace_apply() hands the engine. Below both on the floors, so
 * that both can use it.
 */
#ifndef SCHEDSTAT_TRACE_EVENT_H
#define SCHEDSTAT_TRACE_EVENT_H

#include <stdbool.h>
#include <stdint.h>

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
	/*
	 * One of schedtop's own --atrace counter lines in the file (a print
	 * event, export/atrace.h): a row's value as schedtop sampled it at
	 * ts. ev.counter; the driver takes it as the value, not the engine's.
	 */
	TRACE_EV_COUNTER,
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
		struct {
			uint8_t row;		/* enum schedstat_row_kind */
			uint8_t type;		/* enum schedstat_field_type */
			uint16_t offset;	/* of the field in the row */
			int32_t tid;		/* row TASK */
			int32_t cpu;		/* row CPU */
			char cluster[TRACE_COMM_LEN];	/* row CLUSTER: its name */
			double value;
		} counter;
	};
};

/*
 * devlib's trace_marker line of a CPU's frequency (LISA reads them as
 * cpu_frequency events): "cpu_frequency: state=KHZ cpu_id=CPU", later
 * "cpu_frequency_devlib: ...". True with @cpu and @khz if @line is one.
 */
bool trace_marker_freq(const char *line, int32_t *cpu, int32_t *khz);

/* @ev as TRACE_EV_TASK: thread @pid of process @tgid (0: not said), named @comm. */
void trace_ev_task(struct trace_ev *ev, int32_t pid, int32_t tgid, const char *comm);

/*
 * prev_state letters as the kernel prints them ("S", "R+", "D|K", "x"),
 * in the engine's layout above; for text readers.
 */
uint64_t trace_state_from_letters(const char *s);

#endif /* SCHEDSTAT_TRACE_EVENT_H */
