/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libschedstat: what the Linux scheduler thinks of every task and CPU.
 *
 * The library turns kernel-side aggregates (BPF maps, ring buffer events)
 * into consistent snapshots of tasks, CPUs and clusters. It never prints,
 * never exits and never touches a terminal: front ends do that.
 *
 * Conventions: handles are opaque; functions return 0 or a negative errno
 * (or a negative SCHEDSTAT_ERR_* code, see schedstat_strerror()). Row structs
 * (schedstat_task, schedstat_cpu, schedstat_cluster) are plain values owned by
 * the snapshot they came from. The meaning of every signal is in
 * docs/signals.md.
 */
#ifndef SCHEDSTAT_H
#define SCHEDSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCHEDSTAT_MAX_CPUS	1024
#define SCHEDSTAT_COMM_LEN	16
#define SCHEDSTAT_NAME_LEN	16
#define SCHEDSTAT_CPULIST_LEN	128
#define SCHEDSTAT_PATH_LEN	192
/* Idle states a CPU row tells apart (idle_state_ns[]); deeper ones add to the last. */
#define SCHEDSTAT_IDLE_STATES	4
/*
 * The kernel's SCHED_CAPACITY_SCALE, the scale of every util, load and
 * capacity here: the biggest CPU at its top frequency is 1024.
 */
#define SCHEDSTAT_CAPACITY_SCALE	1024
/* Tasks --pelt-trace selects by pid at most. */
#define SCHEDSTAT_PELT_MAX_PIDS	64

/* Library-specific error codes, far above the errno range. */
enum schedstat_error {
	SCHEDSTAT_ERR_START = 4000,
	SCHEDSTAT_ERR_NO_BTF = SCHEDSTAT_ERR_START,
	SCHEDSTAT_ERR_KERNEL_TOO_OLD,
	SCHEDSTAT_ERR_NO_PRIV,
	SCHEDSTAT_ERR_TOPOLOGY_SPEC,
	SCHEDSTAT_ERR_NO_SCHED_TP,
	SCHEDSTAT_ERR_BPF_LOAD,
	SCHEDSTAT_ERR_REC_FOREIGN,	/* not a recording */
	SCHEDSTAT_ERR_REC_MANGLED,	/* newlines translated in transit */
	SCHEDSTAT_ERR_REC_VERSION,	/* a newer, incompatible format */
	SCHEDSTAT_ERR_REC_CORRUPT,	/* damaged beyond the first chunks */
	SCHEDSTAT_ERR_REC_EMPTY,	/* not one whole sample */
	SCHEDSTAT_ERR_NO_TRACEFS,
	SCHEDSTAT_ERR_TRACEFS_EVENTS,
	SCHEDSTAT_ERR_NO_TRACECMD,
	SCHEDSTAT_ERR_TRACE_FILE,
	SCHEDSTAT_ERR_TRACEFS_PRIV,
	SCHEDSTAT_ERR_NO_HOTPLUG,	/* the CPU has no online file */
	SCHEDSTAT_ERR_HOTPLUG_FAILED,	/* a cpuhp callback refused */
	SCHEDSTAT_ERR_TOPOLOGY_TRACE,	/* --topology leaves out a trace's CPUs */
	SCHEDSTAT_ERR_TRACE_DAMAGED,	/* a trace-cmd file cut short or damaged */
	SCHEDSTAT_ERR_NO_PELT_TP,	/* no pelt_*_tp BTF tracepoints (5.10) */
	SCHEDSTAT_ERR_PELT_SOURCE,	/* --pelt-trace without the BPF source */
	SCHEDSTAT_ERR_EM_TOPOLOGY,	/* an energy model domain matches no cluster */
	SCHEDSTAT_ERR_NO_CPUHP_TP,	/* tracefs has no cpuhp events */
	SCHEDSTAT_ERR_PELT_CGROUP,	/* --pelt-cgroup names no cgroup */
	SCHEDSTAT_ERR_TRACE_FORMAT,	/* a file no trace reader takes */
	SCHEDSTAT_ERR_TRACE_SPAN,	/* more samples than a trace may give */
	SCHEDSTAT_ERR_TRACE_EXPORT,	/* schedtop's own Perfetto export as a trace */
	SCHEDSTAT_ERR_END,
};

/*
 * schedstat_strerror - describe an error returned by this library
 * @err: a negative (or positive) errno or SCHEDSTAT_ERR_* code
 *
 * Returns a static string that says what is wrong and, where the user can do
 * something about it, what to do.
 */
const char *schedstat_strerror(int err);

/* ------------------------------------------------------------------ */
/* Growing arrays: the one helper (library and front ends alike).      */

/*
 * Make room for @need items of @size bytes in the growable array *@items of
 * capacity *@cap (in items), doubling from 16. 0 or -ENOMEM; *@items and
 * *@cap are kept on error.
 */
int schedstat_array_reserve(void **items, size_t *cap, size_t need, size_t size);

/* ------------------------------------------------------------------ */
/* Hash: one integer-keyed table for every pid index.                 */

/*
 * Keys and values are 64-bit integers: a pid and the index of its entry in
 * the caller's own array, typically (an index, not a pointer, survives the
 * array's realloc). Every key is valid, 0 included (the idle task is pid 0).
 * Lookups cost O(1) on average at any size: the table doubles as it fills.
 */
struct schedstat_hash;

int schedstat_hash_new(struct schedstat_hash **out);
void schedstat_hash_free(struct schedstat_hash *h);
/* 0 with *@value set if @key is in the table (@value may be NULL), else -ENOENT. */
int schedstat_hash_get(const struct schedstat_hash *h, uint64_t key,
		       uint64_t *value);
/* Sets @key to @value, replacing any old value. 0 or -ENOMEM (table unchanged). */
int schedstat_hash_put(struct schedstat_hash *h, uint64_t key, uint64_t value);
/* 0, or -ENOENT if @key was not in the table. */
int schedstat_hash_remove(struct schedstat_hash *h, uint64_t key);
/* Empties the table, keeping its memory for the next fill. */
void schedstat_hash_clear(struct schedstat_hash *h);
size_t schedstat_hash_count(const struct schedstat_hash *h);

/* ------------------------------------------------------------------ */
/* Topology: CPUs grouped into clusters of equal capacity.            */

struct schedstat_topology;

enum schedstat_topology_origin {
	SCHEDSTAT_TOPO_OVERRIDE,	/* --topology spec */
	SCHEDSTAT_TOPO_CPU_CAPACITY,	/* cpuN/cpu_capacity groups */
	SCHEDSTAT_TOPO_CPUFREQ,		/* cpufreq policy related_cpus */
	SCHEDSTAT_TOPO_SINGLE,		/* nothing known: one cluster */
	SCHEDSTAT_TOPO_CLUSTER_CPUS,	/* topology/cluster_cpus_list */
};

/*
 * schedstat_topology_detect - read clusters from sysfs
 * @out: the new topology, free with schedstat_topology_free()
 * @sysfs_root: a sysfs tree to read ("/sys" when NULL); fixture trees work
 *
 * Clusters come from cpu_capacity groups, else from cpufreq policies that
 * span more than one CPU, else all possible CPUs form one cluster. Clusters
 * are ordered and named by ascending capacity.
 */
int schedstat_topology_detect(struct schedstat_topology **out,
			      const char *sysfs_root);

/*
 * schedstat_topology_parse - build a topology from a user's override
 * @spec: "NAME:CPULIST[@CAPACITY],..." e.g. "LITTLE:0-3,big:4-7@1024"
 * @sysfs_root: where to read capacities not given in @spec (NULL: "/sys")
 *
 * Returns -SCHEDSTAT_ERR_TOPOLOGY_SPEC for a malformed spec, a CPU listed
 * twice, or a CPU number out of range.
 */
int schedstat_topology_parse(struct schedstat_topology **out, const char *spec,
			     const char *sysfs_root);
void schedstat_topology_free(struct schedstat_topology *topo);

enum schedstat_topology_origin
schedstat_topology_origin(const struct schedstat_topology *topo);
/* One more than the highest CPU number that belongs to a cluster. */
int schedstat_topology_nr_cpus(const struct schedstat_topology *topo);
int schedstat_topology_nr_clusters(const struct schedstat_topology *topo);
const char *schedstat_topology_cluster_name(const struct schedstat_topology *topo,
					    int cluster);
/* Capacity of one CPU of the cluster (the largest, if they differ). */
unsigned int schedstat_topology_cluster_capacity(const struct schedstat_topology *topo,
						 int cluster);
int schedstat_topology_cluster_nr_cpus(const struct schedstat_topology *topo,
				       int cluster);
/* Kernel CPU-list form, e.g. "0-3,6". Returns -ENOSPC if @size is short. */
int schedstat_topology_cluster_cpulist(const struct schedstat_topology *topo,
				       int cluster, char *buf, size_t size);
/*
 * The cpufreq policy whose CPUs the cluster's first CPU shares a clock with
 * (N of policyN), or -ENOENT; and its cpuinfo_{min,max}_freq in kHz (0 when
 * unknown).
 */
int schedstat_topology_cluster_policy(const struct schedstat_topology *topo,
				      int cluster);
int schedstat_topology_cluster_freq(const struct schedstat_topology *topo,
				    int cluster, unsigned int *min_khz,
				    unsigned int *max_khz);
/* Cluster index of @cpu, or -ENOENT. */
int schedstat_topology_cpu_cluster(const struct schedstat_topology *topo, int cpu);
unsigned int schedstat_topology_cpu_capacity(const struct schedstat_topology *topo,
					     int cpu);

/* ------------------------------------------------------------------ */
/* Snapshot rows                                                      */

/*
 * Which optional signals a snapshot holds; a missing one is "not available".
 * Where the kernel keeps each, and why it can be missing: schedstat_signals().
 * Which tracepoint gives which bit, for each source: schedstat_tracepoints().
 */
enum schedstat_avail {
	SCHEDSTAT_AVAIL_CFS		= 1u << 0,	/* rq->cfs.avg */
	SCHEDSTAT_AVAIL_RT		= 1u << 1,	/* rq->avg_rt */
	SCHEDSTAT_AVAIL_DL		= 1u << 2,	/* rq->avg_dl */
	SCHEDSTAT_AVAIL_IRQ		= 1u << 3,	/* rq->avg_irq */
	SCHEDSTAT_AVAIL_HW		= 1u << 4,	/* rq->avg_hw / avg_thermal */
	SCHEDSTAT_AVAIL_CAPACITY_CFS	= 1u << 5,	/* rq->cpu_capacity */
	SCHEDSTAT_AVAIL_OVERUTILIZED	= 1u << 6,	/* root_domain.overutilized */
	SCHEDSTAT_AVAIL_WAKEUPS		= 1u << 7,	/* every wakeup counted */
	SCHEDSTAT_AVAIL_UTIL_EST	= 1u << 8,	/* util_est of tasks and CPUs */
	SCHEDSTAT_AVAIL_HOTPLUG		= 1u << 9,	/* CPU hotplug operations */
	SCHEDSTAT_AVAIL_FREQ		= 1u << 10,	/* the CPU's clock */
	SCHEDSTAT_AVAIL_IDLE		= 1u << 11,	/* idle-state residency */
	/*
	 * util/load/runnable of tasks and CPUs computed by schedtop's own
	 * PELT engine from sched events (tracefs source, trace files), not
	 * read from the kernel. docs/signals.md says how close they are.
	 */
	SCHEDSTAT_AVAIL_PELT_ESTIMATED	= 1u << 12,
	/* CPU busy time: tick_sched's idle accounting, or the switches. */
	SCHEDSTAT_AVAIL_BUSY		= 1u << 13,
	/* Preempting switches per CPU. */
	SCHEDSTAT_AVAIL_PREEMPT		= 1u << 14,
	/* Time overutilized, from the flips of the root domain's flag. */
	SCHEDSTAT_AVAIL_OVERUTILIZED_NS	= 1u << 15,
	/* A PELT update (--pelt-trace) of a task: pid, tgid and comm are set. */
	SCHEDSTAT_AVAIL_PELT_TASK	= 1u << 16,
	/* An energy model was given: power_mw, eas_power_mw, energy_uj. */
	SCHEDSTAT_AVAIL_ENERGY		= 1u << 17,
	/* The runqueue's misfit_task_load, read at the sample. */
	SCHEDSTAT_AVAIL_MISFIT_LOAD	= 1u << 18,
	/*
	 * A task's run and wait time over the interval, its CPU and misfit:
	 * every live source and trace with switches; schedtop's own Perfetto
	 * export only when made with --task-stats.
	 */
	SCHEDSTAT_AVAIL_TASK_TIME	= 1u << 19,
	/*
	 * What only a source that follows the tasks tells: a task's state,
	 * priority, switches, wakeups, moves and PELT age; a CPU's switches,
	 * lost events, blocked load and mean clock; a cluster's moves. Every
	 * live source and trace with switches; not schedtop's own Perfetto
	 * export, which carries its counters alone.
	 */
	SCHEDSTAT_AVAIL_ACTIVITY	= 1u << 20,
};

/* Who reads a tracepoint (struct schedstat_tracepoint.flags). */
enum schedstat_tp_flags {
	/* The BPF source attaches a program to it (tp_btf). */
	SCHEDSTAT_TP_BPF		= 1u << 0,
	/* BPF: only with exact_wakeups; it fires on every switch or wakeup. */
	SCHEDSTAT_TP_EXACT_WAKEUPS	= 1u << 1,
	/* BPF: only with pelt_trace. */
	SCHEDSTAT_TP_PELT_TRACE		= 1u << 2,
	/* The event sources (tracefs, trace-cmd files) read it. */
	SCHEDSTAT_TP_EVENTS		= 1u << 3,
	/* Events: trace files only; the live tracefs source leaves it off. */
	SCHEDSTAT_TP_FILES_ONLY		= 1u << 4,
	/* BPF: only where the kernel allows the task table (6.4+). */
	SCHEDSTAT_TP_TASK_TABLE		= 1u << 5,
};

/*
 * One tracepoint a source reads, and the signals it gives: the one table
 * that the sources, the column notes and docs/signals.md follow.
 */
struct schedstat_tracepoint {
	const char *system;	/* its tracefs system: "sched", "power", ... */
	const char *name;	/* tracefs event, or BTF-only tracepoint (*_tp) */
	uint32_t flags;		/* SCHEDSTAT_TP_* */
	uint32_t bpf_avail;	/* SCHEDSTAT_AVAIL_* it gives the BPF source */
	uint32_t events_avail;	/* ... and the event sources */
	const char *gives;	/* what it gives, one phrase */
};

/**
 * schedstat_tracepoints - every tracepoint a source reads
 * @nr: set to the number of rows
 *
 * Returns the table, in a fixed order (the event sources' first).
 */
const struct schedstat_tracepoint *schedstat_tracepoints(size_t *nr);

/* How a signal's bit is found (struct schedstat_signal.flags). */
enum schedstat_signal_flags {
	/*
	 * The BPF source reads it from the runqueue at the sample; the read
	 * sets its seen bit where this kernel keeps it, and the sample has
	 * the bit when the first CPU read has it.
	 */
	SCHEDSTAT_SIGNAL_RUNQUEUE	= 1u << 0,
	/*
	 * The event sources give it from their events, with no seen bit: a
	 * CPU lacks it only where its runqueue was read without the bit.
	 */
	SCHEDSTAT_SIGNAL_EVENTS		= 1u << 1,
};

/* Fields of struct schedstat_cpu a signal guards. */
#define SCHEDSTAT_SIGNAL_FIELDS	3

/* One field of a CPU row that holds a signal. */
struct schedstat_signal_field {
	const char *name;	/* its schema name (SCHEDSTAT_CPU_FIELDS), NULL: none */
	uint16_t offset;	/* in struct schedstat_cpu */
	uint16_t size;
	/*
	 * Where the BPF source's per-CPU slot (struct st_cpu_state of
	 * bpf/schedtop.h, the event sources fill the same) holds it, copied
	 * as it is at every sample; size 0: the model computes the field.
	 */
	uint16_t slot_offset;
	uint16_t slot_size;
};

/*
 * One signal the kernel may or may not keep, and the bit that says whether
 * a snapshot holds it: the one table that the sources' availability, the
 * model's clearing of what is missing, the columns' notes and the table of
 * docs/signals.md ("What each kernel keeps") follow.
 */
struct schedstat_signal {
	const char *name;	/* short: "cfs", "irq", "misfit", ... */
	uint32_t avail;		/* its SCHEDSTAT_AVAIL_* bit */
	/* The bit of st_cpu_state.seen (bpf/schedtop.h) that gives it, or 0. */
	uint32_t seen;
	uint32_t flags;		/* SCHEDSTAT_SIGNAL_* */
	/* The CPU row's fields it guards: 0 there whenever it is missing. */
	struct schedstat_signal_field cpu_fields[SCHEDSTAT_SIGNAL_FIELDS];
	const char *kernel;	/* where the kernel keeps it */
	const char *config;	/* the kernel configuration it needs, or NULL */
	const char *versions;	/* which kernels keep it, and how it changed */
	const char *missing;	/* why a column of it is empty, or NULL */
};

/**
 * schedstat_signals - every signal a snapshot may hold or lack
 * @nr: set to the number of rows
 *
 * Returns the table, one row per SCHEDSTAT_AVAIL_* bit, in bit order.
 */
const struct schedstat_signal *schedstat_signals(size_t *nr);

struct schedstat_task {
	int32_t pid;
	int32_t tgid;
	/* Control characters already replaced by '?': safe to print. */
	char comm[SCHEDSTAT_COMM_LEN];
	int32_t cpu;		/* CPU it runs on, or last ran on */
	int32_t cluster;	/* index into the topology, -1 if unknown */
	char state;		/* ps letters: R S D T t X Z P I; x: died (traces) */
	bool running;		/* on a CPU at the instant of the snapshot */
	bool exited;		/* exited during this interval */
	int32_t prio;
	/* Kernel PELT values as of the entity's last update (exact). */
	uint32_t util_avg;
	uint32_t runnable_avg;
	uint64_t load_avg;
	uint32_t util_est;
	uint64_t pelt_age_ns;	/* time since that last PELT update */
	/* Deltas over the interval. */
	uint64_t run_ns;
	uint64_t wait_ns;
	uint64_t wakeups;
	uint64_t migrations;
	uint64_t nvcsw;
	uint64_t nivcsw;
	double cpu_pct;		/* run_ns over the interval, percent of a CPU */
	/* Migrations to a cluster of more (up) or less (down) capacity. */
	uint32_t up_migrations;
	uint32_t down_migrations;
	/*
	 * Queued fair task whose util (max of util_avg and util_est, as
	 * task_fits_cpu() takes it) does not fit its CPU with the kernel's
	 * 20% margin, while a cluster of more capacity exists; and, as
	 * update_misfit_status() reads the affinity, allowed on more than
	 * one CPU and (6.10+) on a CPU of more capacity than its own.
	 */
	bool misfit;
	/*
	 * The affinity as the kernel keeps it: p->nr_cpus_allowed and (6.10+)
	 * p->max_allowed_capacity. 0: not known (a recording, a trace file)
	 * or, for the latter, a kernel without it. Not stored in recordings.
	 */
	uint32_t nr_cpus_allowed;
	uint32_t max_allowed_capacity;
	/* util/runnable/load from schedtop's engine: AVAIL_PELT_ESTIMATED. */
	bool pelt_estimated;
};

struct schedstat_cpu {
	int32_t cpu;
	int32_t cluster;
	bool online;
	uint32_t capacity;	/* original capacity (topology) */
	uint32_t capacity_cfs;	/* left for CFS now, see AVAIL_CAPACITY_CFS */
	/* Root cfs_rq as of its last PELT update. */
	uint32_t util_avg;
	uint32_t runnable_avg;
	uint64_t load_avg;
	uint32_t util_est;
	/* Contribution of sleeping entities, decayed to the snapshot. */
	uint32_t blocked_util;
	uint64_t blocked_load;
	uint32_t rt_util;
	uint32_t dl_util;
	uint32_t irq_util;
	uint32_t hw_pressure;
	uint32_t nr_running;
	/* Deltas over the interval. */
	uint64_t busy_ns;
	uint64_t nr_switches;
	uint64_t nr_preempt;
	uint64_t dropped;
	/* CPU hotplug operations on this CPU started during the interval, and
	 * how long the latest one took (first step to last), 0 if none. */
	uint32_t hotplug_ops;
	uint64_t hotplug_ns;
	/*
	 * Where the latest operation that ran during the interval took the
	 * CPU: "online" or "offline", told by its cpuhp steps (not by the
	 * online state read at the sample, which an operation under way has
	 * not changed yet); "" if none ran.
	 */
	char hotplug_to[8];
	/*
	 * Clock: the latest frequency event's value (schedstat_tracepoints())
	 * and its time-weighted mean over the interval; where that event never
	 * fired, the policy's scaling_cur_freq read at the sample for both. kHz.
	 */
	uint32_t freq_khz;
	uint32_t freq_avg_khz;
	/* Residency in idle states 0..3 (3: and deeper) during the interval:
	 * cpuidle's sysfs, or the idle events (schedstat_tracepoints()). */
	uint64_t idle_state_ns[SCHEDSTAT_IDLE_STATES];
	/* SCHEDSTAT_AVAIL_* bits valid for this CPU (a tracepoint that exists
	 * but has not fired for this CPU yet leaves its signal unavailable). */
	uint32_t avail;
	/* util/runnable/load from schedtop's engine: AVAIL_PELT_ESTIMATED. */
	bool pelt_estimated;
	/*
	 * This CPU's part of its cluster's energy estimate (AVAIL_ENERGY): its
	 * own busy and idle time (a), and its util at the OPP EAS chose for the
	 * cluster (b), mW. The cluster's are their sums. Not stored.
	 */
	double power_mw;
	double eas_power_mw;
	/*
	 * rq->misfit_task_load: the load balancer's word that the fair task
	 * running here does not fit this CPU while a bigger one could take it
	 * (its h_load, at least 1), 0 if it fits; set at each tick and pick.
	 */
	uint64_t misfit_task_load;
};

/*
 * A task group's (cgroup's) sched_entity on one CPU: the entity that stands
 * for all of the group's tasks in its parent's cfs_rq on that CPU.
 */
struct schedstat_group {
	uint64_t cgroup_id;	/* kernfs id: the inode of its cgroupfs directory */
	/*
	 * Path below its cgroup mount, "" when it could not be found; for a
	 * session autogroup (cgroup_id 0) "autogroup-N", as /proc/PID/autogroup.
	 */
	char path[SCHEDSTAT_PATH_LEN];
	int32_t cpu;
	int32_t cluster;
	uint32_t depth;		/* 0: a child of the root task group */
	uint32_t util_avg;
	uint32_t runnable_avg;
	uint64_t load_avg;
	uint64_t age_ns;	/* since the kernel last updated these values */
};

struct schedstat_cluster {
	int32_t id;
	char name[SCHEDSTAT_NAME_LEN];
	char cpus[SCHEDSTAT_CPULIST_LEN];
	uint32_t nr_online;
	uint32_t capacity;	/* sum over online CPUs */
	double util_pct;	/* sum(cfs+rt+dl+irq util) / capacity * 100 */
	uint32_t nr_running;
	int32_t overutilized;	/* 1, 0, or -1 when not available */
	/* Root domain overutilized during the interval (all clusters alike). */
	uint64_t overutilized_ns;
	double busy_pct;	/* online CPUs' busy_ns over the interval */
	uint32_t misfit_tasks;
	/* Migrations into this cluster from one of less / more capacity. */
	uint32_t up_migrations;
	uint32_t down_migrations;
	/* The clock of its online CPUs (the highest, should they differ). */
	uint32_t freq_khz;
	uint32_t freq_avg_khz;
	/* SCHEDSTAT_AVAIL_* bits valid for this cluster. */
	uint32_t avail;
	/*
	 * The energy estimate over the interval (SCHEDSTAT_AVAIL_ENERGY), see
	 * schedstat_energy_estimate() and docs/signals.md: (a) from busy time
	 * at each OPP plus idle power, (b) as EAS's em_cpu_energy(), mW; and
	 * (a) as energy, uJ. Derived from other fields and the model, never
	 * stored in recordings.
	 */
	double power_mw;
	double eas_power_mw;
	double energy_uj;
	/* (a) took the highest OPP: the clock was not known. */
	bool power_freq_assumed;
};

/* Time a cluster's clock spent at one frequency during the interval. */
struct schedstat_freq_residency {
	int32_t cluster;
	uint32_t khz;
	uint64_t ns;
};

/* Task migrations from one cluster to another during the interval. */
struct schedstat_migration {
	int32_t from;		/* cluster index */
	int32_t to;
	uint32_t count;
	double per_sec;
};

/* ------------------------------------------------------------------ */
/* Row schemas                                                        */

/*
 * The one description of each row struct's fields. Recordings store the
 * first list of each, in this order (field i is bit i of a row's mask,
 * docs/record-format.md: append only, never reorder); the second list is
 * computed from the stored fields on reading, never stored. schedtop's
 * column tables take each column's name, type, offset and size from here.
 *
 * SCHEDSTAT_<ROW>_FIELDS(X, D) expands X(name, member, type) for every
 * stored field and D(name, member, type) for every derived one: @name is
 * the field's name (its CSV column's), @member the struct member and @type
 * its C type as a SCHEDSTAT_FIELD_* suffix (the library refuses to build
 * when they disagree).
 */
enum schedstat_field_type {
	SCHEDSTAT_FIELD_BOOL,	/* bool */
	SCHEDSTAT_FIELD_CHAR,	/* char */
	SCHEDSTAT_FIELD_S32,	/* int32_t */
	SCHEDSTAT_FIELD_U32,	/* uint32_t */
	SCHEDSTAT_FIELD_U64,	/* uint64_t */
	SCHEDSTAT_FIELD_F64,	/* double */
	SCHEDSTAT_FIELD_STR,	/* char[], NUL-terminated */
};

#define SCHEDSTAT_TASK_FIELDS(X, D)					\
	X(pid, pid, S32) X(tgid, tgid, S32) X(comm, comm, STR)		\
	X(cpu, cpu, S32) X(cluster, cluster, S32) X(state, state, CHAR)	\
	X(running, running, BOOL) X(exited, exited, BOOL)		\
	X(prio, prio, S32) X(util_avg, util_avg, U32)			\
	X(runnable_avg, runnable_avg, U32) X(load_avg, load_avg, U64)	\
	X(util_est, util_est, U32) X(pelt_age_ns, pelt_age_ns, U64)	\
	X(run_ns, run_ns, U64) X(wait_ns, wait_ns, U64)			\
	X(wakeups, wakeups, U64) X(migrations, migrations, U64)		\
	X(nvcsw, nvcsw, U64) X(nivcsw, nivcsw, U64)			\
	X(up_migrations, up_migrations, U32)				\
	X(down_migrations, down_migrations, U32)			\
	X(misfit, misfit, BOOL) X(pelt_estimated, pelt_estimated, BOOL)	\
	D(cpu_pct, cpu_pct, F64)

#define SCHEDSTAT_CPU_FIELDS(X, D)					\
	X(cpu, cpu, S32) X(cluster, cluster, S32) X(online, online, BOOL) \
	X(capacity, capacity, U32) X(capacity_cfs, capacity_cfs, U32)	\
	X(util_avg, util_avg, U32) X(runnable_avg, runnable_avg, U32)	\
	X(load_avg, load_avg, U64) X(util_est, util_est, U32)		\
	X(blocked_util, blocked_util, U32)				\
	X(blocked_load, blocked_load, U64) X(rt_util, rt_util, U32)	\
	X(dl_util, dl_util, U32) X(irq_util, irq_util, U32)		\
	X(hw_pressure, hw_pressure, U32) X(nr_running, nr_running, U32) \
	X(busy_ns, busy_ns, U64) X(nr_switches, nr_switches, U64)	\
	X(nr_preempt, nr_preempt, U64) X(dropped, dropped, U64)		\
	X(hotplug_ops, hotplug_ops, U32) X(hotplug_ns, hotplug_ns, U64)	\
	X(freq_khz, freq_khz, U32) X(freq_avg_khz, freq_avg_khz, U32)	\
	X(idle0_ns, idle_state_ns[0], U64)				\
	X(idle1_ns, idle_state_ns[1], U64)				\
	X(idle2_ns, idle_state_ns[2], U64)				\
	X(idle3_ns, idle_state_ns[SCHEDSTAT_IDLE_STATES - 1], U64)	\
	X(avail, avail, U32) X(pelt_estimated, pelt_estimated, BOOL)	\
	X(hotplug_to, hotplug_to, STR)					\
	X(misfit_task_load, misfit_task_load, U64)			\
	D(power_mw, power_mw, F64) D(eas_power_mw, eas_power_mw, F64)

#define SCHEDSTAT_CLUSTER_FIELDS(X, D)					\
	X(id, id, S32) X(cluster, name, STR) X(cpus, cpus, STR)		\
	X(nr_online, nr_online, U32) X(capacity, capacity, U32)		\
	X(util_pct, util_pct, F64) X(nr_running, nr_running, U32)	\
	X(overutilized, overutilized, S32)				\
	X(overutilized_ns, overutilized_ns, U64)			\
	X(busy_pct, busy_pct, F64) X(misfit_tasks, misfit_tasks, U32)	\
	X(up_migrations, up_migrations, U32)				\
	X(down_migrations, down_migrations, U32)			\
	X(freq_khz, freq_khz, U32) X(freq_avg_khz, freq_avg_khz, U32)	\
	X(avail, avail, U32)						\
	D(power_mw, power_mw, F64) D(eas_power_mw, eas_power_mw, F64)	\
	D(energy_uj, energy_uj, F64)					\
	D(power_freq_assumed, power_freq_assumed, BOOL)

#define SCHEDSTAT_GROUP_FIELDS(X, D)					\
	X(cgroup_id, cgroup_id, U64) X(cgroup, path, STR)		\
	X(cpu, cpu, S32) X(cluster, cluster, S32) X(depth, depth, U32)	\
	X(util_avg, util_avg, U32) X(runnable_avg, runnable_avg, U32)	\
	X(load_avg, load_avg, U64) X(age_ns, age_ns, U64)

#define SCHEDSTAT_MIGRATION_FIELDS(X, D)				\
	X(from_cluster, from, S32) X(to_cluster, to, S32)		\
	X(count, count, U32)						\
	D(per_sec, per_sec, F64)

#define SCHEDSTAT_FREQ_FIELDS(X, D)					\
	X(cluster, cluster, S32) X(freq_khz, khz, U32) X(time_ns, ns, U64)

/* ------------------------------------------------------------------ */
/* Discrete events, delivered while polling                           */

enum schedstat_event_type {
	SCHEDSTAT_EV_EXIT = 1,
	SCHEDSTAT_EV_MIGRATE,
	SCHEDSTAT_EV_OVERUTILIZED,
	/*
	 * One activation of a workload (schedtop workload --record): never
	 * from a session, added by the front end so that a recording keeps
	 * them. ts_ns is its release.
	 */
	SCHEDSTAT_EV_ACTIVATION,
	/*
	 * One step of a CPU hotplug operation, from the cpuhp tracepoints
	 * (BPF and tracefs sources): cpu is where it ran, the hp_* fields below say what.
	 * Recordings keep them (format 1.2) for
	 * schedstat_recording_hotplug().
	 */
	SCHEDSTAT_EV_CPUHP,
};

enum schedstat_cpuhp_kind {
	SCHEDSTAT_CPUHP_ENTER = 1,	/* cpuhp_enter: a state's callback */
	SCHEDSTAT_CPUHP_MULTI_ENTER,	/* cpuhp_multi_enter: one instance's */
	SCHEDSTAT_CPUHP_EXIT,		/* cpuhp_exit: the callback returned */
};

struct schedstat_event {
	enum schedstat_event_type type;
	uint64_t ts_ns;		/* CLOCK_MONOTONIC */
	int32_t cpu;		/* where it was observed */
	int32_t pid;
	int32_t tgid;
	char comm[SCHEDSTAT_COMM_LEN];
	int32_t orig_cpu;	/* MIGRATE */
	int32_t dest_cpu;	/* MIGRATE */
	int32_t overutilized;	/* OVERUTILIZED */
	/* ACTIVATION: pid its thread, comm the thread's name, and: */
	uint64_t start_ns;	/* 0 for a dropped one (never started) */
	uint64_t end_ns;	/* 0 for a dropped one */
	uint64_t deadline_ns;
	int32_t constraint;	/* index in the workload's constraints, -1 none */
	/* CPUHP: */
	int32_t hp_cpu;		/* the CPU taken down or brought up */
	int32_t hp_kind;	/* enum schedstat_cpuhp_kind */
	int32_t hp_target;	/* enter: the state aimed at; exit: the
				 * CPU's state after the step */
	int32_t hp_idx;		/* the state the step runs */
	int32_t hp_ret;		/* exit: the callback's result */
	bool hp_kick;		/* enter: cpuhp_kick_ap_work(), the CPU's
				 * own thread runs the states inside it */
};

typedef void (*schedstat_event_fn)(const struct schedstat_event *ev, void *ctx);

/* ------------------------------------------------------------------ */
/* PELT at every update (--pelt-trace, docs/signals.md)              */

enum schedstat_pelt_entity {
	SCHEDSTAT_PELT_TASK = 1,	/* a task's sched_entity (pelt_se_tp) */
	SCHEDSTAT_PELT_CFS,		/* a CPU's root cfs_rq (pelt_cfs_tp) */
	SCHEDSTAT_PELT_RT,		/* rq->avg_rt (pelt_rt_tp) */
	SCHEDSTAT_PELT_DL,		/* rq->avg_dl (pelt_dl_tp) */
	SCHEDSTAT_PELT_IRQ,		/* rq->avg_irq (pelt_irq_tp) */
	SCHEDSTAT_PELT_GROUP,		/* a task group's sched_entity (pelt_se_tp) */
};

/*
 * One PELT update of one entity, the kernel's values right after it
 * updated them. Delivered in timestamp order across CPUs (see
 * schedstat_session_opts.on_pelt).
 */
struct schedstat_pelt_update {
	uint64_t ts_ns;		/* CLOCK_MONOTONIC of the update */
	int32_t cpu;
	int32_t pid;		/* -1 for a CPU's entity */
	int32_t tgid;
	/* Control characters replaced by '?'; "" for a CPU's entity. */
	char comm[SCHEDSTAT_COMM_LEN];
	char entity[8];		/* "task", "cfs", "rt", "dl", "irq", "group" */
	uint32_t util_avg;
	uint32_t runnable_avg;
	uint64_t load_avg;
	uint32_t util_est;	/* valid with SCHEDSTAT_AVAIL_UTIL_EST in avail */
	/* sched_avg.last_update_time: the CPU's PELT clock, not monotonic. */
	uint64_t last_update_ns;
	/* SCHEDSTAT_AVAIL_PELT_TASK, SCHEDSTAT_AVAIL_UTIL_EST as they apply. */
	uint32_t avail;
	/*
	 * A group's entity: its cgroup (kernfs id, the inode of its cgroupfs
	 * directory) and its path below the cgroup mount; else 0 and "".
	 */
	uint64_t cgroup_id;
	char cgroup[SCHEDSTAT_PATH_LEN];
};

typedef void (*schedstat_pelt_fn)(const struct schedstat_pelt_update *u,
				  void *ctx);

/* "task", "cfs", ... or NULL for a value outside the enum. */
const char *schedstat_pelt_entity_name(enum schedstat_pelt_entity e);
typedef void (*schedstat_log_fn)(int level, const char *msg, void *ctx);

/* ------------------------------------------------------------------ */
/* Session: one live source                                           */

struct schedstat_session;
struct schedstat_snapshot;

enum schedstat_source {
	/* BPF; tracefs when BPF cannot be used (no BTF, no privilege, refused). */
	SCHEDSTAT_SOURCE_AUTO = 0,
	SCHEDSTAT_SOURCE_BPF,
	/* A private tracefs instance and schedtop's own PELT engine. */
	SCHEDSTAT_SOURCE_TRACEFS,
};

/*
 * How schedtop's engine computes PELT from a trace (docs/signals.md,
 * "Invariance before and after 5.0").
 */
enum schedstat_pelt_scheme {
	/*
	 * By the kernel release the trace names; when it names none, 4.x's
	 * if it stores an EAS 4.x event's format, else 5.0's.
	 */
	SCHEDSTAT_PELT_AUTO = 0,
	/* From 5.0: the PELT clock runs at capacity x cur/max frequency. */
	SCHEDSTAT_PELT_SCALED_CLOCK,
	/* Before 5.0: each contribution scaled, on the task clock. */
	SCHEDSTAT_PELT_SCALED_CONTRIB,
};

struct schedstat_session_opts {
	size_t sz;			/* sizeof(struct schedstat_session_opts) */
	const char *topology;		/* override spec, or NULL to detect */
	const char *sysfs_root;		/* NULL: "/sys" */
	schedstat_log_fn log;		/* libbpf messages; NULL drops them */
	void *log_ctx;
	bool log_debug;			/* pass libbpf debug messages too */
	/*
	 * Count every wakeup as it happens (every successful try_to_wake_up(),
	 * also of tasks not yet asleep; SCHEDSTAT_TP_EXACT_WAKEUPS) instead of
	 * deriving them from voluntary switches. Costs a task storage lookup per wakeup: a few
	 * percent on wakeup-heavy loads (docs/performance.md).
	 */
	bool exact_wakeups;
	schedstat_event_fn on_event;	/* optional */
	void *event_ctx;
	/* Where the data comes from; AUTO is BPF, else tracefs (see below). */
	enum schedstat_source source;
	/*
	 * A trace-cmd recording (trace.dat) to read instead of the live
	 * kernel; each sample advances by @trace_interval_ns of trace time.
	 */
	const char *trace_file;
	uint64_t trace_interval_ns;
	/* A trace file's PELT scheme; AUTO: by the kernel it names. */
	enum schedstat_pelt_scheme pelt_scheme;
	/*
	 * PELT at every update (BPF source only): tasks whose pid or tgid is
	 * in @pelt_pids (at most 64) and whose comm is @pelt_comm (either may
	 * be left out, not both unless @pelt_cpus is given), and the CPUs of
	 * @pelt_cpus (a CPU list, "0-3,6"). Selection happens in the kernel.
	 * Updates go to @on_pelt from poll() and sample(), in timestamp order;
	 * schedstat_session_flush() delivers what is held back at the end.
	 * -SCHEDSTAT_ERR_NO_PELT_TP where the kernel has no pelt_*_tp.
	 */
	bool pelt_trace;
	const int32_t *pelt_pids;
	size_t nr_pelt_pids;
	const char *pelt_comm;
	const char *pelt_cpus;
	schedstat_pelt_fn on_pelt;
	void *pelt_ctx;
	/*
	 * Optional: every snapshot's clusters get the energy estimate. Bound
	 * to the session's topology at open (schedstat_energy_model_bind());
	 * the caller keeps it until the session is closed.
	 */
	struct schedstat_energy_model *energy_model;
	/*
	 * --pelt-trace of the group entities (one per CPU) of the cgroup whose
	 * directory is @pelt_cgroup, with the cpu controller enabled; alone or
	 * beside the selections above. -SCHEDSTAT_ERR_PELT_CGROUP if it is no
	 * cgroup directory.
	 */
	const char *pelt_cgroup;
	/*
	 * Optional, with @trace_file: what was read of the file and what had
	 * to be assumed, filled at open (also when open fails: the format,
	 * the damage) and kept up to date until the session closes.
	 */
	struct schedstat_trace_info *trace_info;
};

/*
 * What a session read of a trace file (schedstat_session_opts.trace_info).
 * CPU sets are one bit per CPU, the first 64.
 */
struct schedstat_trace_info {
	char format[48];		/* "trace-cmd", "perfetto (compact sched)" */
	/*
	 * The traced machine as the file names it (its uname's release and
	 * machine), "" where it does not: never this machine's.
	 */
	char kernel[65], machine[65];
	int nr_cpus;
	uint64_t nr_events;		/* events read (one pass) */
	/* The trace's window: its first and last event; nothing is past it. */
	uint64_t first_ns, last_ns;
	/*
	 * The head: before each CPU's first switch, the task it had from
	 * first_ns on, named by that switch as its previous task
	 * (@head_switch), or, where the switch does not name one (Perfetto's
	 * compact form), by the common pid of the CPU's events before it
	 * (@head_event); @head_unknown: nothing names it, taken as idle.
	 * @head_max_ns: the longest head.
	 */
	uint64_t head_switch, head_event, head_unknown;
	uint64_t head_max_ns;
	/*
	 * CPUs whose clock is not known from first_ns to their first
	 * cpu_frequency event (the longest such span @freq_unknown_max_ns), and
	 * CPUs that have none: PELT takes them at their maximum there, and
	 * their frequency residency starts at that event.
	 */
	uint64_t freq_unknown, freq_never;
	uint64_t freq_unknown_max_ns;
	/* Capacities and maximum frequencies came from the file (cpu_info). */
	bool capacity_from_trace;
	/*
	 * CPUs whose buffer lost events (the rows' dropped): those the file
	 * counted, and the times it only said some were lost (each counted 1).
	 */
	uint64_t lost_cpus;
	uint64_t lost_events, lost_uncounted;
	/* Events that came out of the per-CPU merge late (time travel). */
	uint64_t late_events;
	/*
	 * Switches out the trace lacks: a task switched in on one CPU while
	 * its switches still had it on another, which is idle from then.
	 */
	uint64_t lost_switches;
	/*
	 * schedtop's own --atrace counter lines in the file (docs/perfetto.md,
	 * "Live counters"), taken as the values of the rows they name in
	 * place of the engine's (@atrace_values row values written from
	 * them); @atrace_ignored named no CPU or cluster of the trace.
	 */
	uint64_t atrace_counters, atrace_ignored, atrace_values;
	/*
	 * The file is schedtop's own native export (convert --perfetto): its
	 * counter tracks were the values above, sampled at the export's own
	 * instants; @export_unread counter values had no row (--pelt-trace's
	 * "pelt" counters, overutilized), and its slices are not read.
	 */
	bool schedtop_export;
	uint64_t export_unread;
	/* Where the file stopped making sense ("" if it did not): read up to there. */
	uint64_t damage_offset;
	unsigned long damage_line;	/* text formats: the line, else 0 */
	char damage[128];
};

/*
 * schedstat_trace_format - the trace format of the file open at @fd
 *
 * By its content: "trace-cmd", "perfetto", ... (the reader that takes it),
 * or NULL when no trace reader does (a schedtop recording, say).
 */
const char *schedstat_trace_format(int fd);

/*
 * schedstat_session_open - load and attach the BPF programs
 *
 * Probes which scheduler tracepoints this kernel has and attaches only those;
 * the snapshot's avail mask says which optional signals exist. Errors:
 * -SCHEDSTAT_ERR_NO_PRIV, -SCHEDSTAT_ERR_NO_BTF, -SCHEDSTAT_ERR_KERNEL_TOO_OLD,
 * -SCHEDSTAT_ERR_TOPOLOGY_SPEC, or an errno.
 *
 * With opts->source TRACEFS (or AUTO when BPF fails for one of the first
 * three reasons, or is refused at load) it reads sched events from a private
 * tracefs instance instead, and PELT values come from schedtop's engine
 * (SCHEDSTAT_AVAIL_PELT_ESTIMATED); errors then include
 * -SCHEDSTAT_ERR_NO_TRACEFS and -SCHEDSTAT_ERR_TRACEFS_EVENTS. With
 * opts->trace_file it reads a trace-cmd recording, and sample() returns
 * -ENODATA at its end. A trace's CPUs are the trace's, never this machine's:
 * its clusters come from opts->topology (capacities as given, else 1024;
 * -SCHEDSTAT_ERR_TOPOLOGY_TRACE if it leaves out a CPU of the trace), or
 * from opts->sysfs_root when that names a copy of the recording machine's
 * sysfs, else all CPUs form one cluster (origin SCHEDSTAT_TOPO_SINGLE).
 */
int schedstat_session_open(struct schedstat_session **out,
			   const struct schedstat_session_opts *opts);
/* Detaches everything; safe on NULL. */
void schedstat_session_close(struct schedstat_session *s);
/* The backend in use: "bpf", "tracefs" or "trace-file". */
const char *schedstat_session_source(const struct schedstat_session *s);

const struct schedstat_topology *
schedstat_session_topology(const struct schedstat_session *s);

/* What a trace file's session computed PELT with, and why. */
struct schedstat_pelt_info {
	enum schedstat_pelt_scheme scheme;	/* never AUTO */
	/* The kernel release the trace names ("" if none: assumed). */
	char release[65];
	bool chosen;		/* given by opts->pelt_scheme */
	/*
	 * With no release: the event whose format only kernels before 5.1
	 * had, which chose SCALED_CONTRIB ("" if none: 5.1's assumed).
	 */
	char evidence[32];
	/* CPUs whose maximum frequency is the highest the trace shows. */
	uint64_t max_freq_from_trace;	/* bit per CPU, first 64 */
};

/*
 * schedstat_session_pelt_info - how a trace file's PELT was computed
 *
 * 0, or -EOPNOTSUPP for sessions that do not read a trace file.
 */
int schedstat_session_pelt_info(const struct schedstat_session *s,
				struct schedstat_pelt_info *info);
/* A file descriptor that becomes readable when events are pending. */
int schedstat_session_event_fd(const struct schedstat_session *s);
/*
 * Consume pending events; returns how many, or a negative error. PELT
 * updates (pelt_trace) are taken at most a few thousand per call, so that
 * a flood never starves the caller's keyboard or screen: the event fd stays
 * readable while more wait.
 */
int schedstat_session_poll(struct schedstat_session *s);
/*
 * Drain everything pending and deliver the PELT updates still held back for
 * ordering; call once before closing. 0 or a negative error.
 */
int schedstat_session_flush(struct schedstat_session *s);
/* PELT updates lost to a full ring buffer since open (pelt_trace). */
uint64_t schedstat_session_pelt_dropped(const struct schedstat_session *s);

/*
 * schedstat_session_sample - take one consistent snapshot
 *
 * Counters in the snapshot are deltas since the previous sample (or since
 * open, for the first one). Tasks that exited since then appear once more
 * with exited set.
 */
int schedstat_session_sample(struct schedstat_session *s,
			     struct schedstat_snapshot **out);

void schedstat_snapshot_free(struct schedstat_snapshot *snap);
uint64_t schedstat_snapshot_ts_ns(const struct schedstat_snapshot *snap);
uint64_t schedstat_snapshot_interval_ns(const struct schedstat_snapshot *snap);
uint32_t schedstat_snapshot_avail(const struct schedstat_snapshot *snap);
/* Events and reads lost (the cpu rows' dropped), all CPUs, since open. */
uint64_t schedstat_snapshot_dropped(const struct schedstat_snapshot *snap);
const struct schedstat_task *
schedstat_snapshot_tasks(const struct schedstat_snapshot *snap, size_t *nr);
const struct schedstat_cpu *
schedstat_snapshot_cpus(const struct schedstat_snapshot *snap, size_t *nr);
const struct schedstat_cluster *
schedstat_snapshot_clusters(const struct schedstat_snapshot *snap, size_t *nr);
/*
 * Per cluster (its first online CPU: they share a clock), every frequency
 * seen since open with the time spent there in the interval; by cluster,
 * then kHz: cpufreq's stats/time_in_state where the policy keeps it, else
 * the frequency events. Empty where neither tells.
 */
const struct schedstat_freq_residency *
schedstat_snapshot_freq_residency(const struct schedstat_snapshot *snap, size_t *nr);
/* Every ordered pair of different clusters, from-major, counts included. */
const struct schedstat_migration *
schedstat_snapshot_migrations(const struct schedstat_snapshot *snap, size_t *nr);
/* Group entities seen since open, by cgroup path then CPU. */
const struct schedstat_group *
schedstat_snapshot_groups(const struct schedstat_snapshot *snap, size_t *nr);

/* ------------------------------------------------------------------ */
/* Emulation: big.LITTLE on a symmetric machine (docs/emulation.md)    */

/*
 * A spec is a --topology spec whose capacities are percentages, e.g.
 * "LITTLE:0@50%,big:1": it gives the clusters (capacity N% of 1024), and
 * each CPU of a cluster below 100% is slowed to N% of itself until stopped:
 * by SCHED_FIFO "stealer" threads of this process that burn (100 - N)% of
 * every 2 ms, or by capping the slowed CPUs' cpufreq limits (and flooring
 * the others'), put back on stop and, after a SIGKILL, at the next start.
 */
struct schedstat_emulation;

enum schedstat_emulate_method {
	SCHEDSTAT_EMULATE_AUTO,		/* cpufreq where every CPU has it, else stealer */
	SCHEDSTAT_EMULATE_STEALER,
	SCHEDSTAT_EMULATE_CPUFREQ,
};

/* The burn period of a stealer: short against PELT's 1 ms segments x 32. */
#define SCHEDSTAT_EMULATE_PERIOD_NS	2000000ULL
/* The stealer threads' name prefix (views mark threads named so). */
#define SCHEDSTAT_EMULATE_THREAD_PREFIX	"emul-steal/"

/* cpufreq limits a killed schedtop had changed and a start put back. */
struct schedstat_emulation_recovery {
	unsigned int restored;	/* how many limits */
	char owner[64];		/* "pid N" of the schedtop that changed them, or "" */
};

/**
 * schedstat_emulation_new - an emulation of @spec, not started
 * @out: set to the emulation (free with schedstat_emulation_free())
 * @spec: e.g. "LITTLE:0@50%,big:1"
 * @sysfs_root: where CPUs and cpufreq are looked up, NULL for /sys; it must
 *		outlive the emulation
 * @why: on -EINVAL, the one line saying what is wrong with @spec
 *
 * Returns 0, -EINVAL (a bad spec) or -ENOMEM.
 */
int schedstat_emulation_new(struct schedstat_emulation **out, const char *spec,
			    const char *sysfs_root, char *why, size_t why_size);
/*
 * Slows the CPUs by @method (AUTO picks), having put back what a killed
 * schedtop left (schedstat_emulation_recovered()). 0, or a negative errno
 * with schedstat_emulation_error() saying why, having undone what it did.
 * Signals this process means to handle must be blocked before: the
 * stealer threads inherit the mask.
 */
int schedstat_emulation_start(struct schedstat_emulation *e,
			      enum schedstat_emulate_method method);
/* Undoes the slowing (idempotent); 0 or -errno (schedstat_emulation_error()). */
int schedstat_emulation_stop(struct schedstat_emulation *e);
/* schedstat_emulation_stop() and frees it; NULL is fine. */
void schedstat_emulation_free(struct schedstat_emulation *e);
/* The one line saying why the last call on @e failed. */
const char *schedstat_emulation_error(const struct schedstat_emulation *e);
/* What the last start put back of a killed schedtop's cpufreq limits. */
const struct schedstat_emulation_recovery *
schedstat_emulation_recovered(const struct schedstat_emulation *e);

/* The spec as given, and as a --topology spec (capacities out of 1024). */
const char *schedstat_emulation_spec(const struct schedstat_emulation *e);
const char *schedstat_emulation_topology_spec(const struct schedstat_emulation *e);
/* The method in use once started. */
enum schedstat_emulate_method
schedstat_emulation_method(const struct schedstat_emulation *e);
/* One past the highest CPU of the spec; the percentage @cpu runs at (0: none). */
int schedstat_emulation_nr_cpus(const struct schedstat_emulation *e);
unsigned int schedstat_emulation_cpu_pct(const struct schedstat_emulation *e, int cpu);
/* "SPEC by METHOD": for recordings' metadata, the CSV and status lines. */
const char *schedstat_emulation_describe(const struct schedstat_emulation *e,
					 char *buf, size_t size);
/* Whether task @tid of this process is a stealer thread (@e may be NULL). */
bool schedstat_emulation_is_stealer(const struct schedstat_emulation *e, int tid);
/* Whether @e (may be NULL) has a stealer on @cpu. */
bool schedstat_emulation_stealer_cpu(const struct schedstat_emulation *e, int cpu);
/*
 * The share of its CPU each stealer took since the start, from its
 * schedstat: @pct[i] for stealer i on CPU @cpu[i]. Returns how many.
 */
int schedstat_emulation_measure(const struct schedstat_emulation *e, int *cpu,
				double *pct, int max);

/* "auto", "stealer", "cpufreq" to a method; -EINVAL for anything else. */
int schedstat_emulate_method_parse(const char *arg, enum schedstat_emulate_method *out);
const char *schedstat_emulate_method_name(enum schedstat_emulate_method m);
/*
 * The method of a recording's "emulation" metadata ("SPEC by METHOD"), as
 * schedstat_emulate_method_name() spells it; NULL for NULL or unknown.
 */
const char *schedstat_emulation_recorded_method(const char *desc);
/*
 * schedstat_emulation_recover - put back the cpufreq limits a killed
 * schedtop left changed (its state file, schedstat_emulation_state_path())
 * @busy_is_error: fail with -EWOULDBLOCK when another schedtop is
 *		   emulating by cpufreq (else leave it alone, 0)
 * @r: what was put back
 * @why: on failure, the one line saying what went wrong
 */
int schedstat_emulation_recover(bool busy_is_error,
				struct schedstat_emulation_recovery *r,
				char *why, size_t why_size);
const char *schedstat_emulation_state_path(void);

/* ------------------------------------------------------------------ */
/* Energy model and estimate (docs/signals.md, "Energy")               */

struct schedstat_energy_model;

/* One operating performance point of a domain, as the kernel's em_perf_state. */
struct schedstat_em_state {
	uint32_t khz;
	double power_mw;	/* one CPU busy at this OPP */
	uint64_t cost;		/* the kernel's, 0 if not given */
	uint32_t performance;	/* capacity at this OPP, 0 until bound */
};

/*
 * schedstat_energy_model_read - the kernel's energy model from debugfs
 * @dir: the energy_model directory (NULL: /sys/kernel/debug/energy_model)
 *
 * Reads pd* / ps:* (and the cs:* layout of kernels before 5.11) with
 * frequency, power, cost and performance. Power in uW (the microwatts flag)
 * is converted to mW. -ENOENT when the kernel has no model there.
 */
int schedstat_energy_model_read(struct schedstat_energy_model **out,
				const char *dir);
/*
 * schedstat_energy_model_parse - a model from text: "CLUSTER KHZ MW" per
 * line, "CLUSTER idle MW" for one idle CPU, '#' comments. -EINVAL with
 * *@bad_line set to the first bad line (1-based).
 */
int schedstat_energy_model_parse(struct schedstat_energy_model **out,
				 const char *text, int *bad_line);
/* The same from a file; -errno if it cannot be read. */
int schedstat_energy_model_load(struct schedstat_energy_model **out,
				const char *path, int *bad_line);
void schedstat_energy_model_free(struct schedstat_energy_model *em);
/* Where it came from: the debugfs directory or the file's path. */
const char *schedstat_energy_model_origin(const struct schedstat_energy_model *em);
/*
 * Maps each domain to a cluster of @topo: by name (text), by first CPU
 * (debugfs); fills each state's performance where the model gave none
 * (capacity x khz / highest khz). -SCHEDSTAT_ERR_EM_TOPOLOGY if a domain
 * matches no cluster.
 * A cluster without a domain has no estimate.
 */
int schedstat_energy_model_bind(struct schedstat_energy_model *em,
				const struct schedstat_topology *topo);
int schedstat_energy_model_nr_domains(const struct schedstat_energy_model *em);
/* The domain's name: its cluster's in a text model, "pdN" from debugfs. */
const char *schedstat_energy_model_domain_name(const struct schedstat_energy_model *em,
					       int dom);
/* Its CPUs as debugfs gives them ("" for a text model). */
const char *schedstat_energy_model_domain_cpus(const struct schedstat_energy_model *em,
					       int dom);
/* The cluster bound to @dom, or -ENOENT. */
int schedstat_energy_model_domain_cluster(const struct schedstat_energy_model *em,
					  int dom);
int schedstat_energy_model_nr_states(const struct schedstat_energy_model *em, int dom);
/* States by ascending frequency. */
const struct schedstat_em_state *
schedstat_energy_model_state(const struct schedstat_energy_model *em, int dom, int i);
/* Power of one idle CPU of the domain, mW (0 unless the model says). */
double schedstat_energy_model_idle_mw(const struct schedstat_energy_model *em, int dom);
/*
 * The model as text in the parse() format, one line per OPP: what
 * recordings store, so a reader derives the same power. -ENOSPC if short.
 */
int schedstat_energy_model_format(const struct schedstat_energy_model *em,
				  char *buf, size_t size);

/*
 * For recordings: the domain's OPPs as "KHZ MW;KHZ MW;idle MW" and the
 * metadata key to store it under ("energy_model.CLUSTER"); readers derive
 * the same power from it. -ENOSPC if @size is short.
 */
int schedstat_energy_model_domain_text(const struct schedstat_energy_model *em,
				       int dom, char *buf, size_t size);
const char *schedstat_energy_model_domain_key(const struct schedstat_energy_model *em,
					      int dom);

/* What one CPU or one cluster did over an interval, the estimate's input. */
struct schedstat_energy_cpu_input {
	uint64_t busy_ns;	/* at most the interval */
	/* The CPU's time-weighted clock over the interval, 0 if unknown. */
	uint32_t freq_khz;
	/* Utilization as EAS sees it: cfs (max of util_avg and util_est) +
	 * rt + dl + irq, not more than the CPU's capacity. */
	uint32_t util;
};

struct schedstat_energy_result {
	double power_mw;	/* (a) */
	double eas_power_mw;	/* (b) */
	double energy_uj;	/* (a) over the interval */
	bool freq_assumed;	/* (a) used the highest OPP */
	int eas_state;		/* the OPP (b) chose */
};

/*
 * schedstat_energy_estimate - one domain over one interval, both ways
 * @cpus, @nr: its online CPUs
 * @freqs, @nr_freqs: time the domain's clock spent at each frequency during
 *	the interval (may be empty); it wins over each CPU's freq_khz
 *
 * (a) sum over CPUs of busy x power(OPP at the clock) + idle x idle power,
 * over the interval; the highest OPP where no clock is known.
 * (b) em_cpu_energy(): the lowest OPP whose performance covers the highest
 * CPU util x 1.25, and power(OPP) x sum of util / performance(OPP).
 */
int schedstat_energy_estimate(const struct schedstat_energy_model *em, int dom,
			      uint64_t interval_ns,
			      const struct schedstat_energy_cpu_input *cpus, size_t nr,
			      const struct schedstat_freq_residency *freqs,
			      size_t nr_freqs,
			      struct schedstat_energy_result *out);
/*
 * Fills every cluster row's power_mw, eas_power_mw, energy_uj of @snap
 * (and SCHEDSTAT_AVAIL_ENERGY) from its CPU rows; @em must be bound to the
 * snapshot's topology. Clusters without busy time known are left alone.
 */
void schedstat_snapshot_apply_energy(struct schedstat_snapshot *snap,
				     const struct schedstat_energy_model *em);

/* ------------------------------------------------------------------ */
/* Recordings (docs/record-format.md)                                 */

struct schedstat_recorder;

/*
 * schedstat_recorder_open - start a recording on @fd
 * @fd: written in order and never seeked, so a pipe works; the caller
 *      closes it after schedstat_recorder_close()
 * @meta: NULL, or "key", "value" pairs ending with NULL (kernel, host, ...)
 *
 * Samples are buffered for about a second, then written as one chunk with
 * its CRC and synced: a recorder killed at any moment leaves a file whose
 * whole chunks all read back.
 */
int schedstat_recorder_open(struct schedstat_recorder **out, int fd,
			    const struct schedstat_topology *topo,
			    const char *const *meta);
/* An event from the session, stored with the next sample. */
int schedstat_recorder_add_event(struct schedstat_recorder *r,
				 const struct schedstat_event *ev);
/*
 * Errors from writing (-ENOSPC, -EIO, ...) stick: later calls return them.
 * On a regular file, what was written before the error stays readable.
 */
int schedstat_recorder_add_sample(struct schedstat_recorder *r,
				  const struct schedstat_snapshot *snap);
/*
 * A PELT update (--pelt-trace), and the count of those lost so far: kept in
 * PELT chunks of their own, in the order given (format 1.1).
 */
int schedstat_recorder_add_pelt(struct schedstat_recorder *r,
				const struct schedstat_pelt_update *u);
void schedstat_recorder_pelt_dropped(struct schedstat_recorder *r,
				     uint64_t dropped);
/* CLOCK_MONOTONIC and CLOCK_BOOTTIME read at one instant. */
struct schedstat_clock_pair {
	uint64_t monotonic_ns;
	uint64_t boottime_ns;
};
/*
 * Where CLOCK_MONOTONIC (every timestamp here) stands against
 * CLOCK_BOOTTIME (Perfetto's and ftrace's "boot" clock), read together by
 * the caller: at the start and at each sample, say. Kept (format 1.4) when
 * the distance moved, i.e. the machine slept; see
 * schedstat_recording_clocks().
 */
int schedstat_recorder_add_clock(struct schedstat_recorder *r,
				 const struct schedstat_clock_pair *pair);
/* Writes what is buffered, the index and the end marker; frees @r. */
int schedstat_recorder_close(struct schedstat_recorder *r);

struct schedstat_recording;

/*
 * The newest recording format this library writes and reads in full. A file
 * of a higher minor version opens (minor versions only add), but what they
 * added is skipped: say so.
 */
#define SCHEDSTAT_RECORDING_VERSION_MAJOR	1
#define SCHEDSTAT_RECORDING_VERSION_MINOR	5

struct schedstat_recording_info {
	unsigned int version_major, version_minor;
	size_t nr_samples;
	uint64_t first_ts_ns, last_ts_ns;	/* CLOCK_MONOTONIC of the recorder */
	uint64_t file_bytes;
	/* The recorder finished the file (index and end marker present). */
	bool finished;
	/* Bytes after the last whole chunk: a write cut short. */
	uint64_t lost_bytes;
	/* Chunks that failed their CRC and were skipped, and their samples. */
	unsigned int bad_chunks;
	size_t bad_samples;
};

/*
 * schedstat_recording_open - read a recording made by schedstat_recorder_*
 * @fd: a regular file, kept open by the caller until closing
 *
 * Errors: -SCHEDSTAT_ERR_REC_FOREIGN, _MANGLED, _VERSION, _CORRUPT (no
 * topology), _EMPTY, or an errno. A file cut short or with damaged chunks
 * opens: schedstat_recording_info() tells how much was lost.
 */
int schedstat_recording_open(struct schedstat_recording **out, int fd);
void schedstat_recording_close(struct schedstat_recording *rec);
void schedstat_recording_info(const struct schedstat_recording *rec,
			      struct schedstat_recording_info *info);
const struct schedstat_topology *
schedstat_recording_topology(const struct schedstat_recording *rec);
/*
 * schedstat_recording_regroup - read @rec by other clusters than recorded
 * @spec: "NAME:CPULIST[@CAPACITY],..." over exactly the recorded CPUs;
 *	  capacities it omits are the recorded ones
 *
 * From then on schedstat_recording_topology() is the new topology and every
 * sample's cluster rows are summed from its CPU rows by it (as the model
 * sums them live); task, CPU and group rows name the new clusters. Moves
 * between clusters are counted again from the recorded moves, which name
 * their CPUs; but the recording kept no move within one of its own
 * clusters, so the moves between two new clusters that share CPUs of a
 * recorded one are not known: the migration table leaves those pairs out
 * (schedstat_recording_moves_known() says which are in), and unless every
 * pair is known the up/down migration counts are 0. The energy model is
 * bound to the new clusters, or dropped if it does not fit them.
 *
 * Returns -SCHEDSTAT_ERR_TOPOLOGY_SPEC (a malformed spec, or a CPU the
 * recording lacks), -SCHEDSTAT_ERR_TOPOLOGY_TRACE (a recorded CPU left
 * out) or -ENOMEM; @rec is unchanged then.
 */
int schedstat_recording_regroup(struct schedstat_recording *rec, const char *spec);
/*
 * Whether @rec kept every move from cluster @from to cluster @to (indexes
 * of schedstat_recording_topology()): always, between different clusters,
 * unless regrouped; see schedstat_recording_regroup().
 */
bool schedstat_recording_moves_known(const struct schedstat_recording *rec,
				     int from, int to);
/*
 * The energy model stored with the recording (bound to its topology), or
 * NULL: every sample's clusters then carry the estimate, as live.
 */
const struct schedstat_energy_model *
schedstat_recording_energy_model(const struct schedstat_recording *rec);
/* A value the recorder stored ("kernel", "host", ...) or NULL. */
const char *schedstat_recording_meta(const struct schedstat_recording *rec,
				     const char *key);
/*
 * Sample @idx (0 .. nr_samples - 1) as a snapshot of its own, and the
 * events that arrived in its interval (owned by @rec, valid until the next
 * call; @evs may be NULL). -EBADMSG if its chunk turns out damaged.
 */
int schedstat_recording_sample(struct schedstat_recording *rec, size_t idx,
			       struct schedstat_snapshot **out,
			       const struct schedstat_event **evs, size_t *nr_evs);
/* When sample @idx was taken; 0 if its chunk is damaged. */
uint64_t schedstat_recording_ts(struct schedstat_recording *rec, size_t idx);
/*
 * After sample @idx failed with -EBADMSG: the first sample after its damaged
 * chunk (nr_samples if none), so that readers skip a chunk at once.
 */
size_t schedstat_recording_skip(const struct schedstat_recording *rec, size_t idx);
/* The last sample taken at or before @ts_ns (0 if none is). */
size_t schedstat_recording_find(struct schedstat_recording *rec, uint64_t ts_ns);
/*
 * The recording's PELT updates (--pelt-trace), in the order recorded, one
 * per call: 0 with *@u set, -ENODATA after the last, -EBADMSG once per
 * damaged PELT chunk (its updates are skipped; call again to go on).
 */
int schedstat_recording_pelt_next(struct schedstat_recording *rec,
				  struct schedstat_pelt_update *u);
/* Start the PELT updates over from the first. */
void schedstat_recording_pelt_rewind(struct schedstat_recording *rec);
/* Updates the recorder lost, as of the last PELT chunk read so far. */
uint64_t schedstat_recording_pelt_dropped(const struct schedstat_recording *rec);
/*
 * schedstat_recording_clocks - where the recorder's clock stood against
 * CLOCK_BOOTTIME (format 1.4)
 * @pairs: set to the pairs kept, in time order, owned by @rec
 *
 * 0 (*@nr at least 1), -ENODATA when the file kept none (an older format, a
 * trace file's recording), -ENOMEM. Damaged CLOCK chunks are skipped.
 */
int schedstat_recording_clocks(struct schedstat_recording *rec,
			       const struct schedstat_clock_pair **pairs, size_t *nr);

/* ------------------------------------------------------------------ */
/* Taking a CPU out of service and back, timed (docs/hotplug.md)      */

struct schedstat_cpu_exit;

/*
 * Steps of a hotplug operation outside every cpuhp state: before the first
 * (the hotplug locks; cpus_write_lock() waits for an RCU grace period),
 * between two, after the last.
 */
#define SCHEDSTAT_STEP_BEFORE	"(before first state)"
#define SCHEDSTAT_STEP_BETWEEN	"(between states)"
#define SCHEDSTAT_STEP_AFTER	"(after last state)"

struct schedstat_exit_step {
	/*
	 * A cpuhp state's name from /sys/devices/system/cpu/hotplug/states
	 * ("sched:active"), the kernel function that runs a CPU's states
	 * from another ("cpuhp_kick_ap_work"), SCHEDSTAT_STEP_BEFORE, _BETWEEN
	 * or _AFTER, or a stage of an evacuation ("tasks", "irqs", "drain").
	 */
	const char *name;
	int state;		/* cpuhp state number, -1 for the others */
	uint64_t ns;		/* time with this step innermost */
	unsigned int calls;	/* callbacks run (one per instance) */
};

struct schedstat_exit_op {
	bool back;		/* online / restore, not offline / evacuate */
	uint64_t total_ns;	/* start to return; the steps' ns sum to it */
	size_t nr_steps;
	struct schedstat_exit_step *steps;	/* in the order first entered */
	/* Evacuation only: what moved, what could not, what still ran. */
	unsigned int tasks_moved, tasks_pinned, irqs_moved, irqs_pinned;
	unsigned int tasks_left;	/* movable tasks seen running after */
	/* cpuset.cpus files that listed the CPU: rewritten, or refused. */
	unsigned int cpusets_moved, cpusets_pinned;
};

/*
 * schedstat_cpu_exit_open - take @cpu out of service and back, timed
 *
 * Sets up a private tracefs instance with the cpuhp and sched_switch
 * events. Errors: -SCHEDSTAT_ERR_NO_HOTPLUG (@cpu cannot be taken
 * offline), the tracefs errors, or an errno.
 */
int schedstat_cpu_exit_open(struct schedstat_cpu_exit **out, int cpu);
/*
 * schedstat_cpu_exit_recover - put back what a killed session changed
 * @restored: set to the things put back (cpusets, affinities, IRQs, the
 *            CPU's online state), 0 if there was nothing to do
 *
 * A session writes what it changes to a state file first
 * (schedstat_cpu_exit_state_path()); open calls this too. -EBUSY if a live
 * session holds the file; on an error the file stays, to try again.
 */
int schedstat_cpu_exit_recover(unsigned int *restored);
const char *schedstat_cpu_exit_state_path(void);
/*
 * Writes @cpu's sysfs online file: @online false takes it down, true brings
 * it up. @op gets the time of the write and, from the cpuhp tracepoints,
 * the time of every state that ran (innermost state counts, across CPUs),
 * with the time outside any state as SCHEDSTAT_STEP_BEFORE, _BETWEEN and
 * _AFTER. Step names are valid until schedstat_cpu_exit_close().
 * A callback that failed: -SCHEDSTAT_ERR_HOTPLUG_FAILED.
 */
int schedstat_cpu_exit_hotplug(struct schedstat_cpu_exit *x, bool online,
			       struct schedstat_exit_op *op);
/*
 * Evacuation without hotplug: every task that may run elsewhere gets @cpu
 * taken out of its affinity (every other online CPU if it allowed only
 * @cpu); every cpuset (cgroup v1 or v2, not the root, not a v2 partition)
 * whose cpuset.cpus lists @cpu loses it, which moves the tasks it held
 * there; every IRQ too; then waits until no such task runs on @cpu
 * (sched_switch). Steps "tasks", "cpusets", "irqs", "drain".
 */
int schedstat_cpu_exit_evacuate(struct schedstat_cpu_exit *x,
				struct schedstat_exit_op *op);
/* Every cpuset and affinity back as it was before the evacuation:
 * "cpusets", "tasks", "irqs". */
int schedstat_cpu_exit_restore(struct schedstat_cpu_exit *x,
			       struct schedstat_exit_op *op);
void schedstat_exit_op_clear(struct schedstat_exit_op *op);
/*
 * Restores affinities if still changed and leaves the CPU as open found it
 * (open brings a CPU found offline online first). 0 or the first error.
 */
int schedstat_cpu_exit_close(struct schedstat_cpu_exit *x);

/* One CPU hotplug operation of a recording (format 1.2, CPUHP chunks). */
struct schedstat_recorded_hotplug {
	int32_t cpu;			/* the CPU taken down or brought up */
	uint64_t ts_ns;			/* its first cpuhp step */
	bool failed;			/* a callback returned an error */
	/*
	 * op.back: brought up. op.total_ns: first step to last (the sysfs
	 * write around them was not recorded, so no SCHEDSTAT_STEP_BEFORE or
	 * _AFTER); op.steps: as schedstat_cpu_exit_hotplug() gives them.
	 */
	struct schedstat_exit_op op;
};

/*
 * schedstat_recording_hotplug - every hotplug operation, timed per cpuhp state
 * @ops: set to an array in time order (schedstat_recording_hotplug_free())
 * @damaged: set to the CPUHP chunks that could not be read
 *
 * From the recorded cpuhp steps, as the live hotplug timer splits them: each
 * moment to the innermost state open then. Multi-instance callbacks that are
 * no operation (a tracefs instance created on a CPU that stays online) are
 * left out. Step names are valid until schedstat_recording_close().
 * 0 (*@nr may be 0), -ENODATA if the file holds no cpuhp steps (before 1.2,
 * or a source that gives none), -ENOMEM.
 */
int schedstat_recording_hotplug(struct schedstat_recording *rec,
				struct schedstat_recorded_hotplug **ops,
				size_t *nr, size_t *damaged);
void schedstat_recording_hotplug_free(struct schedstat_recorded_hotplug *ops,
				      size_t nr);

/* ------------------------------------------------------------------ */
/* Exports: Perfetto's native trace, atrace counters (docs/perfetto.md) */

enum schedstat_row_kind {
	SCHEDSTAT_ROW_TASK = 1,		/* struct schedstat_task */
	SCHEDSTAT_ROW_CPU,		/* struct schedstat_cpu */
	SCHEDSTAT_ROW_CLUSTER,		/* struct schedstat_cluster */
};

/*
 * One signal of a row that becomes a counter track in a trace: a field of
 * the row struct, named as its CSV column. The front end lists them (from
 * its column tables); the exports write what the CSV would.
 */
struct schedstat_trace_counter {
	enum schedstat_row_kind row;
	const char *name;		/* the CSV column's name */
	enum schedstat_field_type type;	/* BOOL, S32, U32, U64 or F64 */
	size_t offset;			/* of the field in the row struct */
	uint32_t avail;			/* SCHEDSTAT_AVAIL_* it needs, 0: always */
	/*
	 * Counters of one row with the same group go out together in one
	 * event (at most 9 a group): those that change together.
	 */
	unsigned int group;
	const char *unit;		/* "ns", "kHz", "%", "mW", "uJ" or NULL */
};

/*
 * The value of @c in @row as a double, or false where the CSV leaves it
 * empty: @avail (the row's, or a task's snapshot's) lacks c->avail, an
 * optional S32 is negative, a double is not finite.
 */
bool schedstat_trace_counter_value(const struct schedstat_trace_counter *c,
				   const void *row, uint32_t avail, double *v);

struct schedstat_perfetto;

struct schedstat_perfetto_opts {
	size_t sz;			/* sizeof(struct schedstat_perfetto_opts) */
	const struct schedstat_topology *topo;
	const struct schedstat_trace_counter *counters;
	size_t nr_counters;
	/*
	 * Where CLOCK_MONOTONIC (schedtop's clock) stood against CLOCK_BOOTTIME
	 * (Perfetto's), in time order (schedstat_recording_clocks()): the trace
	 * then carries them as clock snapshots and opens in BOOTTIME beside a
	 * capture of the same moments. None: its time is CLOCK_MONOTONIC's.
	 */
	const struct schedstat_clock_pair *clocks;
	size_t nr_clocks;
	/* CLOCK_REALTIME - CLOCK_MONOTONIC when known (wall-clock in the UI). */
	bool have_realtime;
	int64_t realtime_offset_ns;
};

/*
 * schedstat_perfetto_open - start a native Perfetto trace on @fd
 *
 * Streams: every call writes its packets (buffered, at most about 256 KiB
 * held), and memory grows with the tasks alive, not with the length.
 * Tasks, CPUs and clusters become counter tracks named as docs/perfetto.md
 * lists; errors of writing stick and come back from every later call.
 */
int schedstat_perfetto_open(struct schedstat_perfetto **out, int fd,
			    const struct schedstat_perfetto_opts *opts);
/* One sample and the events of its interval, in time order of samples. */
int schedstat_perfetto_add_sample(struct schedstat_perfetto *p,
				  const struct schedstat_snapshot *snap,
				  const struct schedstat_event *evs, size_t nr_evs);
/* One --pelt-trace update: counters at the update's own time. */
int schedstat_perfetto_add_pelt(struct schedstat_perfetto *p,
				const struct schedstat_pelt_update *u);
struct schedstat_recorded_hotplug;
/* One hotplug operation: a slice, its cpuhp states nested slices. */
int schedstat_perfetto_add_hotplug(struct schedstat_perfetto *p,
				   const struct schedstat_recorded_hotplug *h);
/* Writes what is buffered and frees @p; 0 or the first error. */
int schedstat_perfetto_close(struct schedstat_perfetto *p);

struct schedstat_atrace;

struct schedstat_atrace_opts {
	size_t sz;			/* sizeof(struct schedstat_atrace_opts) */
	const struct schedstat_trace_counter *counters;
	size_t nr_counters;
	/* The tasks whose counters are written; NULL: none (CPUs and clusters). */
	bool (*want_task)(const struct schedstat_task *t, void *ctx);
	void *ctx;
	/* NULL: tracefs's trace_marker (/sys/kernel/tracing, else debugfs's). */
	const char *marker;
	/* The process CPU and cluster counters go under; 0: this one. */
	int32_t pid;
};

/*
 * schedstat_atrace_open - write samples into trace_marker as atrace counters
 *
 * Every sample's counters (docs/perfetto.md, "Live counters") become
 * "C|PID|NAME|VALUE" lines in trace_marker, one print event each, which a
 * Perfetto, systrace or trace-cmd capture running meanwhile shows as counter
 * tracks at the kernel's own time. -ENOENT when there is no trace_marker
 * (no tracefs), -EACCES/-EPERM when it cannot be written; *@out is then a
 * handle good for schedstat_atrace_path() (the file tried) and close only.
 */
int schedstat_atrace_open(struct schedstat_atrace **out,
			  const struct schedstat_atrace_opts *opts);
/* The trace_marker written to. */
const char *schedstat_atrace_path(const struct schedstat_atrace *a);
/* One sample's counters; 0 or the write's error (the next sample tries again). */
int schedstat_atrace_sample(struct schedstat_atrace *a,
			    const struct schedstat_snapshot *snap);
struct schedstat_atrace_stats {
	/* (not "lines": <term.h> makes that a macro) */
	uint64_t nr_samples, nr_lines, nr_bytes;
	uint64_t nr_failed;		/* lines the kernel did not take */
};
void schedstat_atrace_stats(const struct schedstat_atrace *a,
			    struct schedstat_atrace_stats *st);
void schedstat_atrace_close(struct schedstat_atrace *a);

/* ------------------------------------------------------------------ */
/* Workloads: rt-app use cases run as threads, scored (docs/workloads.md) */

/*
 * A use case as rt-app's JSON states it (tasks, phases, events, global),
 * with schedtop's own "schedtop" member (description, constraints): read
 * with schedstat_workload_parse(), run with schedstat_workload_start().
 */
struct schedstat_workload;
/* Its threads running. */
struct schedstat_workload_run;

/* Bounds of a use case schedtop runs; a file beyond them is refused. */
#define SCHEDSTAT_WORKLOAD_MAX_THREADS		1024
#define SCHEDSTAT_WORKLOAD_MAX_CONSTRAINTS	4096
/* The message of a refused file: "FILE:LINE: task 'T': key 'K': what". */
#define SCHEDSTAT_WORKLOAD_ERR_LEN		512
/* An activation no constraint judges. */
#define SCHEDSTAT_WORKLOAD_UNJUDGED		UINT32_MAX
/*
 * A missed constraint scores this much each in the figure of merit, plus
 * the average power: never below 1e6, and more misses score worse.
 */
#define SCHEDSTAT_WORKLOAD_FOM_MISSED		1e6

/*
 * schedstat_workload_parse - read an rt-app use case
 * @text, @len: the file's bytes (gzip-compressed ones too)
 * @origin: the file's name, for messages and the workload's name
 * @err: @errlen bytes for the one line that says why a file is refused
 *
 * Everything is checked here, before a thread exists: a key schedtop does
 * not support, a resume of a name no task suspends on, a loop of 0, a
 * negative duration, a CPU the machine does not have, more than
 * SCHEDSTAT_WORKLOAD_MAX_THREADS threads. 0, -ENOMEM, or -EINVAL with
 * @err set.
 */
int schedstat_workload_parse(struct schedstat_workload **out, const void *text,
			     size_t len, const char *origin, char *err,
			     size_t errlen);
/* The same from a file (at most 8 MiB, gzip or not); -errno said in @err too. */
int schedstat_workload_load(struct schedstat_workload **out, const char *path,
			    char *err, size_t errlen);
void schedstat_workload_free(struct schedstat_workload *wl);

/* The file's name without its directory and .json (or as parsed). */
const char *schedstat_workload_name(const struct schedstat_workload *wl);
/* "schedtop": { "description": ... }, or "" */
const char *schedstat_workload_description(const struct schedstat_workload *wl);
/* Global "duration" in seconds; 0 when the use case runs until its threads end. */
double schedstat_workload_duration(const struct schedstat_workload *wl);
/* rt-app's global "log_basename" ("rt-app" when not given). */
const char *schedstat_workload_log_basename(const struct schedstat_workload *wl);
/*
 * Global "calibration": the CPU whose speed a "run" is in (*@ns_per_loop
 * 0), or -1 with *@ns_per_loop the number the file gives.
 */
int schedstat_workload_calibration(const struct schedstat_workload *wl,
				   double *ns_per_loop);
/* Threads: every instance of every task, in file order (rt-app's index). */
size_t schedstat_workload_nr_threads(const struct schedstat_workload *wl);
/* The name its thread takes (comm: the task's, cut to 15 bytes). */
const char *schedstat_workload_thread_comm(const struct schedstat_workload *wl,
					   size_t thread);
/* The task it is an instance of, as the file names it. */
const char *schedstat_workload_thread_task(const struct schedstat_workload *wl,
					   size_t thread);

enum schedstat_workload_kind {
	SCHEDSTAT_WORKLOAD_MISS_RATIO,		/* share of activations late or dropped */
	SCHEDSTAT_WORKLOAD_MAX_RESPONSE,	/* every activation's response, ms */
};

struct schedstat_workload_constraint {
	char name[96];
	char why[160];			/* what a user would notice; may be "" */
	enum schedstat_workload_kind kind;
	double limit;			/* a ratio (0..1) or ms */
};

/*
 * Its constraints: the file's own, and for every thread woken by a
 * timer that none of them names, "THREAD deadline": at most 1% of its
 * activations late (past the next timer release) or dropped.
 */
size_t schedstat_workload_nr_constraints(const struct schedstat_workload *wl);
const struct schedstat_workload_constraint *
schedstat_workload_constraint(const struct schedstat_workload *wl, size_t i);

/*
 * One activation: one pass of a phase (one line of rt-app's log), or a
 * release a thread dropped. Times are CLOCK_MONOTONIC ns.
 *
 * release: when what woke it was due (a timer's expiry, a resume, a
 * signal), else when it began; start, end: its work (start 0: dropped or
 * not begun; end 0: dropped or not done when the run stopped); deadline:
 * when it is due (0 if no constraint judges it). The rest are rt-app's
 * log columns for this pass.
 */
struct schedstat_workload_activation {
	uint64_t release, start, end, deadline;
	int32_t tid;
	uint32_t thread;		/* index in the workload's threads */
	uint32_t constraint;		/* or SCHEDSTAT_WORKLOAD_UNJUDGED */
	uint16_t phase;			/* index in its task's phases */
	bool dropped;			/* a release that passed while it worked */
	/* rt-app's log: */
	uint64_t pass_start, pass_end;	/* the phase pass, start to end */
	uint64_t perf;			/* work loops done by run and runtime */
	uint64_t run_ns;		/* time spent in run and runtime */
	uint64_t c_duration_us;		/* run and runtime as the file asks */
	uint64_t c_period_us;		/* its timers' periods */
	int64_t slack_ns;		/* before its (last) timer; < 0 late */
	uint64_t wu_lat_ns;		/* woken after its timers' expiry */
};

/*
 * Calibration: how much work a "run" of a microsecond is. A work loop is
 * a fixed chain of dependent integer steps (no memory, no vector unit):
 * on a slower CPU, or at a lower clock, the same loops take longer.
 */
/* Loops @loops of work; returns a value the compiler cannot fold away. */
uint64_t schedstat_workload_work(uint64_t loops, uint64_t seed);
/*
 * ns per loop measured now on @cpu (-1: where the caller runs): CPU time,
 * not wall time, the best of five 50 ms rounds. Pins the caller to @cpu
 * meanwhile and puts its affinity back. 0 or -errno (@cpu offline).
 */
int schedstat_workload_calibrate(int cpu, double *ns_per_loop);
/* The stored calibration of @cpu in @path; -ENOENT if it has none. */
int schedstat_workload_calibration_load(const char *path, int cpu,
					double *ns_per_loop);
/* Stores @cpu's, keeping the other CPUs' lines of @path. */
int schedstat_workload_calibration_store(const char *path, int cpu,
					 double ns_per_loop);

struct schedstat_workload_opts {
	double ns_per_loop;		/* the calibration, > 0 */
	double scale;			/* times every run (0: 1) */
	uint64_t seed;			/* the file's jitter, if it has any */
	const char *cpus;		/* CPUs of threads whose file names none */
	/*
	 * rt-app's per-thread logs go here (LOG_BASENAME-TASK-INDEX.log,
	 * rt-app's columns), or nowhere when NULL.
	 */
	const char *log_dir;
};

/*
 * schedstat_workload_start - create the threads, each at its policy,
 *	priority, affinity and uclamp, and start them together
 * @err: the one line for a failure (a policy the kernel refuses, a CPU
 *	 list with no CPU online, a log file that cannot be written)
 *
 * Nothing of the use case runs before every thread is set up: on a
 * failure they are stopped and joined before they began. The caller
 * should block SIGINT and the like first: the threads inherit its mask.
 * 0, or a negative errno with @err set: -ERANGE, @opts->cpus is no CPU
 * list; -ENXIO, no CPU of it is online.
 */
int schedstat_workload_start(struct schedstat_workload_run **out,
			     const struct schedstat_workload *wl,
			     const struct schedstat_workload_opts *opts,
			     char *err, size_t errlen);
/*
 * Stops the threads (a sleep, a wait or a run ends early; a lock held is
 * let go) and joins them; safe on NULL and twice. What the threads
 * changed dies with them; pages locked for lock_pages are unlocked.
 */
void schedstat_workload_stop(struct schedstat_workload_run *run);
/* True once every thread has finished its loops (a use case that ends). */
bool schedstat_workload_done(const struct schedstat_workload_run *run);
/*
 * What stopped a run that failed after its start (a phase's CPUs all
 * offline, its policy refused, an iorun that cannot write): one line,
 * or NULL. The drain returns -ECANCELED then.
 */
const char *schedstat_workload_error(const struct schedstat_workload_run *run);
/*
 * Calls @fn with each activation settled by @upto (done by then, or
 * dropped and due by then) and not handed over before: from one thread
 * (the sampler) while the workload runs. With @final, after
 * schedstat_workload_stop() at the run's end @upto, the rest: released
 * and due by then but not done is handed over as dropped (missed), the
 * others unjudged. Writes rt-app's log lines of the passes handed over.
 * Takes no lock a workload thread waits for. -ENOMEM if a thread could
 * not keep one (the score would be wrong), else @fn's error.
 */
int schedstat_workload_drain(struct schedstat_workload_run *run, uint64_t upto,
			     bool final,
			     int (*fn)(const struct schedstat_workload_activation *a,
				       void *ctx),
			     void *ctx);
/*
 * Every activation released before the stop (done, dropped or not
 * done), by release; after schedstat_workload_stop(). NULL if no memory.
 */
const struct schedstat_workload_activation *
schedstat_workload_activations(struct schedstat_workload_run *run, size_t *nr);
int32_t schedstat_workload_tid(const struct schedstat_workload_run *run, size_t thread);
/* CPU time the thread used, ns (its own clock at its end). */
uint64_t schedstat_workload_cpu_ns(const struct schedstat_workload_run *run,
				   size_t thread);
/*
 * What could not be applied and did not stop the run, as counts of
 * threads: a policy or priority (not root), uclamp (a kernel without
 * CONFIG_UCLAMP_TASK), lock_pages (mlockall refused).
 */
struct schedstat_workload_notes {
	size_t policy_refused;
	size_t uclamp_unsupported;
	bool lock_pages_refused;
};
void schedstat_workload_notes(const struct schedstat_workload_run *run,
			      struct schedstat_workload_notes *notes);
/* Closes rt-app's logs after the last drain: 0, or -errno if one was not all written. */
int schedstat_workload_close_logs(struct schedstat_workload_run *run);
void schedstat_workload_run_free(struct schedstat_workload_run *run);

/*
 * The score: each constraint judged on the activations handed over, and
 * the figure of merit from the samples' energy (docs/workloads.md).
 */
struct schedstat_workload_result {
	const struct schedstat_workload_constraint *c;
	size_t nr, late, dropped;
	double p50_ms, p95_ms, p99_ms, max_ms;	/* responses: end - release */
	double miss_ratio;
	double observed;		/* in the constraint's unit; INFINITY: never done */
	bool met;
};

struct schedstat_workload_cluster {
	char name[SCHEDSTAT_NAME_LEN];
	double energy_uj, eas_energy_uj;
	bool freq_assumed;
};

struct schedstat_workload_score {
	double duration_s;		/* the samples' intervals, summed */
	uint64_t end_ns;		/* the last sample: where judging stopped */
	size_t nr_results;
	const struct schedstat_workload_result *results;
	bool met;
	bool have_energy;
	double avg_power_mw, eas_avg_power_mw, energy_mj;
	size_t nr_clusters;
	struct schedstat_workload_cluster clusters[16];
	double figure_of_merit;		/* meaningful when have_energy */
};

/*
 * What a run adds up, live or from a recording, the same way: each
 * sample's cluster energy and each activation handed over by then.
 * @cons: the constraints (a workload's, or a recording's), kept by the
 * caller until the tally is freed. @energy: an energy model was in use.
 */
struct schedstat_workload_tally;
int schedstat_workload_tally_new(struct schedstat_workload_tally **out,
				 const struct schedstat_workload_constraint *cons,
				 size_t nr, bool energy);
void schedstat_workload_tally_sample(struct schedstat_workload_tally *t,
				     const struct schedstat_snapshot *snap);
int schedstat_workload_tally_activation(struct schedstat_workload_tally *t,
					const struct schedstat_workload_activation *a);
/* Judges the constraints at the last sample; valid until the tally is freed. */
const struct schedstat_workload_score *
schedstat_workload_tally_finish(struct schedstat_workload_tally *t);
/* The same at @end_ns (CLOCK_MONOTONIC; 0: the last sample), for a run without samples. */
const struct schedstat_workload_score *
schedstat_workload_tally_finish_at(struct schedstat_workload_tally *t, uint64_t end_ns);
void schedstat_workload_tally_free(struct schedstat_workload_tally *t);

/*
 * The constraints as a recording's metadata keeps them (kind, limit and
 * name, each ended by ';'), and back: report judges a recording as the run
 * did. Format: 0 or -ENOSPC. Parse: *@cons allocated (free()), -EINVAL.
 */
int schedstat_workload_constraints_format(const struct schedstat_workload *wl,
					  char *buf, size_t size);
int schedstat_workload_constraints_parse(const char *text,
					 struct schedstat_workload_constraint **cons,
					 size_t *nr);
/* An activation as a recording keeps it (SCHEDSTAT_EV_ACTIVATION), and back. */
void schedstat_workload_activation_event(const struct schedstat_workload_activation *a,
					 const char *comm, int32_t tgid,
					 struct schedstat_event *ev);
/* false if @ev is no activation. */
bool schedstat_workload_event_activation(const struct schedstat_event *ev,
					 struct schedstat_workload_activation *a);

/* ------------------------------------------------------------------ */
/* Text helpers shared by every front end                             */

/*
 * schedstat_text_unsafe - the one test of what may not be written as it is
 * @c: a byte of a task name, cgroup path or other text from the kernel
 * @ascii: also refuse bytes >= 0x80 (a comm cut inside a UTF-8 sequence,
 *	   JSON that must stay valid UTF-8)
 *
 * True for C0 control characters and DEL: a process can name itself with an
 * escape sequence that would drive the user's terminal. Every front end
 * replaces or escapes what this refuses.
 */
bool schedstat_text_unsafe(unsigned char c, bool ascii);
/* Replace unsafe bytes (@ascii true) with '?', stop at NUL or @len. */
void schedstat_comm_sanitize(char *dst, const char *src, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* SCHEDSTAT_H */
