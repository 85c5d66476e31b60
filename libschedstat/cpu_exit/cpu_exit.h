/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Taking one CPU out of service and back (schedstat_cpu_exit_*): the shared
 * state of the hotplug timer (cpuhp_timing.c) and the evacuation
 * (evacuate.c), and the events both read from one tracefs instance
 * (exit_events.c). Each file calls only those below it: cpu_exit.c (the
 * object) > cpuhp_timing.c, evacuate.c > exit_state.c, exit_events.c,
 * cpuhp_split.c > cpuhp_names.c.
 */
#ifndef SCHEDSTAT_CPU_EXIT_H
#define SCHEDSTAT_CPU_EXIT_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "cpuhp_names.h"
#include "schedstat-local.h"

/* A line of the state file, and the longest path in it. */
#define PATH_MAX_LINE	1024

struct tracefs_instance;
struct tep_handle;
struct tep_event;

enum exit_event_kind { XEV_ENTER, XEV_EXIT, XEV_SWITCH };

/* One record of the instance, with the fields the timing needs. */
struct exit_event {
	uint64_t ts;		/* CLOCK_MONOTONIC ("mono" trace clock) */
	uint64_t seq;		/* read order, for equal timestamps */
	uint64_t fun;		/* cpuhp_enter: the callback's address */
	enum exit_event_kind kind;
	int cpu;		/* cpuhp: the CPU operated on; switch: where */
	int idx;		/* cpuhp: the state */
	int ret;		/* cpuhp_exit: the callback's result */
	int prev_pid, next_pid;	/* sched_switch */
};

/*
 * cpuhp_attribute - one operation's time split among its cpuhp states
 * @evs: events in time order; those of other CPUs than @cpu and switches
 *       are skipped
 * @kick_fn: cpuhp_enter's fun of cpuhp_kick_ap_work (0: none known)
 *
 * Each moment of [@t0, @t1] goes to the innermost state open then; the time
 * outside every state to SCHEDSTAT_STEP_BEFORE, _BETWEEN and _AFTER. Sets
 * op->total_ns. -SCHEDSTAT_ERR_HOTPLUG_FAILED if a callback returned an
 * error, -ENOMEM.
 */
int cpuhp_attribute(const struct exit_event *evs, size_t nr_evs, int cpu,
		    uint64_t kick_fn, struct cpuhp_names *names,
		    struct schedstat_exit_op *op, uint64_t t0, uint64_t t1);

struct saved_task {
	int tid;
	unsigned long long start;	/* /proc starttime: pid reuse guard */
	cpu_set_t mask;
};

/* A cpuset.cpus file (cgroup v1 or v2) and what it held. */
struct saved_cpuset {
	char path[PATH_MAX_LINE];
	char list[256];
};

struct saved_irq {
	int irq;
	char list[256];		/* smp_affinity_list as it was */
};

struct schedstat_cpu_exit {
	int cpu;
	char online_path[64];
	bool found_offline;		/* and so to be left */
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct tep_event *ev_enter, *ev_multi, *ev_exit, *ev_switch;
	uint64_t kick_fn;		/* cpuhp_kick_ap_work, 0 if unknown */
	struct cpuhp_names names;
	struct exit_event *evs;
	size_t nr_evs, cap_evs;
	uint64_t seq;
	int cb_err;
	/* The evacuation in force, if any. */
	bool evacuated;
	struct saved_task *tasks;
	size_t nr_tasks, cap_tasks;
	struct saved_irq *irqs;
	size_t nr_irqs, cap_irqs;
	struct saved_cpuset *cpusets;	/* in the order changed */
	size_t nr_cpusets, cap_cpusets;
	int state_fd;			/* exit_state.c, -1 if none */
};

/*
 * exit_events.c: the private instance with the cpuhp events and
 * sched_switch; everything it holds now, in time order, into x->evs (which
 * it replaces), 0 or -errno; and its close (x->evs freed too).
 */
int exit_events_open(struct schedstat_cpu_exit *x);
int cpu_exit_read_events(struct schedstat_cpu_exit *x);
void exit_events_close(struct schedstat_cpu_exit *x);
/* @op's step named @name (added with @state if new); NULL on -ENOMEM. */
struct schedstat_exit_step *exit_op_step(struct schedstat_exit_op *op,
					 const char *name, int state);
/* Reads the CPU's sysfs online file. */
int cpu_exit_is_online(const struct schedstat_cpu_exit *x, bool *online);
/* Evacuate's restore, also run by close. */
int evacuate_restore(struct schedstat_cpu_exit *x, struct schedstat_exit_op *op);

/* exit_state.c: flags and starttime of /proc/TID/stat; -errno if gone. */
int exit_task_stat(int tid, unsigned int *flags, unsigned long long *start);

/*
 * The state file (exit_state.c): begin creates and locks it (-EBUSY if a
 * live session holds it) with the CPU as found; add appends a line before
 * the change it describes; reset drops them once restored; end closes it,
 * and removes it if everything was put back.
 */
int exit_state_begin(struct schedstat_cpu_exit *x);
int exit_state_add(struct schedstat_cpu_exit *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int exit_state_reset(struct schedstat_cpu_exit *x);
void exit_state_end(struct schedstat_cpu_exit *x, bool restored);

#endif /* SCHEDSTAT_CPU_EXIT_H */
