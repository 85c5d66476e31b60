/* SPDX-License-Identifier: GPL-2.0 */
/*
 * big.LITTLE on a symmetric machine, for the length of one command:
 * `schedtop emulate SPEC` and `--emulate SPEC` (docs/emulation.md).
 *
 * A spec is a --topology spec whose capacities are percentages, e.g.
 * "LITTLE:0@50%,big:1": it gives the clusters every view groups by
 * (capacity = N% of 1024), and each CPU of a cluster below 100% is slowed to
 * N% of itself, by one of two methods:
 *
 *  - stealer (everywhere): a SCHED_FIFO thread of this process per slowed
 *    CPU, pinned there, burns (100 - N)% of every 2 ms. Threads die with the
 *    process, so nothing outlives it, even SIGKILL (emulate_stealer.c);
 *  - cpufreq (where cpufreq exists): scaling_max_freq of the slowed CPUs
 *    capped at N% of cpuinfo_max_freq, scaling_min_freq of the others raised
 *    to cpuinfo_max_freq; put back on every exit path, and after a SIGKILL at
 *    the next start from a state file (emulate_cpufreq.c).
 */
#ifndef SCHEDTOP_EMULATE_H
#define SCHEDTOP_EMULATE_H

#include <stdbool.h>
#include <stdint.h>

#include "schedstat.h"

enum emulate_method {
	EMULATE_AUTO,		/* cpufreq where every CPU has it, else stealer */
	EMULATE_STEALER,
	EMULATE_CPUFREQ,
};

/* The burn period of a stealer: short against PELT's 1 ms segments x 32. */
#define EMULATE_PERIOD_NS	2000000ULL
/* The thread name prefix; the live view marks threads named so. */
#define EMULATE_THREAD_PREFIX	"emul-steal/"

struct emulate_stealer;
struct emulate_cpufreq;

struct emulation {
	char *spec;			/* as the user wrote it */
	char *topology_spec;		/* the same with capacities: --topology */
	struct schedstat_topology *topo;
	/* Per CPU: percent of itself it runs at; 0 when in no cluster. */
	unsigned char pct[SCHEDSTAT_MAX_CPUS];
	int nr_cpus;			/* one past the highest CPU in the spec */
	enum emulate_method method;	/* the one in use once started */
	const char *sysfs_root;		/* NULL: /sys */
	struct emulate_stealer *stealers;
	int nr_stealers;
	struct emulate_cpufreq *cpufreq;
	uint64_t start_ns;		/* CLOCK_MONOTONIC at start */
	bool started;
};

/*
 * Parses @spec into @e; on a bad spec prints one line saying what is wrong
 * and returns -EINVAL. @sysfs_root (NULL: /sys) is where CPUs and cpufreq
 * are looked up; it must outlive @e.
 */
int emulation_parse(struct emulation *e, const char *spec,
		    const char *sysfs_root);

/* "auto", "stealer", "cpufreq"; -EINVAL otherwise. */
int emulation_parse_method(const char *arg, enum emulate_method *out);
const char *emulation_method_name(enum emulate_method m);

/*
 * Slows the CPUs by @method (AUTO picks). Prints what went wrong and
 * returns a negative errno, having undone whatever it had done.
 */
int emulation_start(struct emulation *e, enum emulate_method method);

/*
 * --emulate SPEC of a command that samples: parsed (sysfs under
 * @sysfs_root), its topology given to @so, then started. EXIT_OK,
 * EXIT_USAGE for a bad SPEC, or EXIT_FAIL if it could not start (both said).
 */
int emulation_open(struct emulation *e, const char *spec, const char *sysfs_root,
		   struct schedstat_session_opts *so);

/*
 * What is emulated and how, e.g. "LITTLE:0@50%,big:1 by stealer": for
 * recordings' metadata, the CSV and the status lines.
 */
const char *emulation_describe(const struct emulation *e, char *buf, size_t size);
/*
 * The method of a recording's "emulation" metadata (emulation_describe()'s
 * "SPEC by METHOD"), as emulation_method_name() spells it; NULL for NULL or
 * a method this schedtop does not know.
 */
const char *emulation_recorded_method(const char *desc);

/* "schedtop: emulating SPEC by METHOD: cpu0 at 50%" on standard error. */
void emulation_print_start(const struct emulation *e);

/*
 * Whether task @tid of this process is one of the stealer threads (so
 * views show it as emulation, not load).
 */
bool emulation_is_stealer(const struct emulation *e, int tid);
/* Whether @e (may be NULL) has a stealer on @cpu. */
bool emulation_stealer_cpu(const struct emulation *e, int cpu);

/*
 * Measured share of its CPU each stealer took since the start, from its
 * /proc/self/task/TID/schedstat: @pct[i] for stealer i on CPU @cpu[i].
 * Returns how many were filled.
 */
int emulation_measure(const struct emulation *e, int *cpu, double *pct, int max);

/* Undoes the slowing (idempotent): threads stopped, frequencies back. */
int emulation_stop(struct emulation *e);
/* emulation_stop() and frees everything parsed. */
void emulation_free(struct emulation *e);

/* The one emulation of this process, for views that mark it; or NULL. */
extern const struct emulation *emulation_current;

/* Stealer method (emulate_stealer.c). */
int stealer_start(struct emulation *e);
void stealer_stop(struct emulation *e);
bool stealer_is(const struct emulation *e, int tid);
int stealer_measure(const struct emulation *e, int *cpu, double *pct, int max);

/* cpufreq method (emulate_cpufreq.c). */
/* Whether every CPU of @e has cpufreq scaling limits to set. */
bool cpufreq_emul_available(const struct emulation *e);
int cpufreq_emul_start(struct emulation *e);
int cpufreq_emul_stop(struct emulation *e);
/*
 * Puts back what a killed schedtop left changed (its state file). 0 when
 * there was nothing to do or it was done; prints and returns -errno when
 * the restore failed, or when another schedtop is emulating by cpufreq and
 * @busy_is_error (else that one is left alone).
 */
int cpufreq_emul_recover(bool busy_is_error);
/* Where the state file is: /run/schedtop/emulate-cpufreq.state. */
extern const char cpufreq_emul_state_path[];

#endif /* SCHEDTOP_EMULATE_H */
