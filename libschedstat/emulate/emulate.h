/* SPDX-License-Identifier: GPL-2.0 */
/*
 * big.LITTLE on a symmetric machine (schedstat_emulation_*, docs/
 * emulation.md): the object's layout and the two methods, shared by
 * emulate.c, emulate_stealer.c and emulate_cpufreq.c.
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
#ifndef SCHEDSTAT_EMULATE_H
#define SCHEDSTAT_EMULATE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "schedstat-local.h"

struct emulate_stealer;
struct emulate_cpufreq;

struct schedstat_emulation {
	char *spec;			/* as the user wrote it */
	char *topology_spec;		/* the same with capacities: --topology */
	struct schedstat_topology *topo;
	/* Per CPU: percent of itself it runs at; 0 when in no cluster. */
	unsigned char pct[SCHEDSTAT_MAX_CPUS];
	int nr_cpus;			/* one past the highest CPU in the spec */
	enum schedstat_emulate_method method;	/* the one in use once started */
	const char *sysfs_root;		/* NULL: /sys */
	struct emulate_stealer *stealers;
	int nr_stealers;
	struct emulate_cpufreq *cpufreq;
	uint64_t start_ns;		/* CLOCK_MONOTONIC at start */
	bool started;
	/* What start put back of a killed schedtop's cpufreq limits. */
	struct schedstat_emulation_recovery recovered;
	/* The one line saying why the last call failed. */
	char error[320];
};

/* The failure's one line, into @e->error (inline: every file says one). */
static inline __attribute__((format(printf, 2, 3)))
void emul_error(struct schedstat_emulation *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->error, sizeof(e->error), fmt, ap);
	va_end(ap);
}

/* Stealer method (emulate_stealer.c). */
int stealer_start(struct schedstat_emulation *e);
void stealer_stop(struct schedstat_emulation *e);
bool stealer_is(const struct schedstat_emulation *e, int tid);
int stealer_measure(const struct schedstat_emulation *e, int *cpu, double *pct, int max);

/* cpufreq method (emulate_cpufreq.c). */
/* Whether every CPU of @e has cpufreq scaling limits to set. */
bool cpufreq_emul_available(const struct schedstat_emulation *e);
int cpufreq_emul_start(struct schedstat_emulation *e);
/* 0, or -errno with @e->error saying what could not be put back. */
int cpufreq_emul_stop(struct schedstat_emulation *e);
/*
 * Puts back what a killed schedtop left changed (its state file), into @r.
 * 0 when there was nothing to do or it was done; -errno with @why saying
 * what went wrong when the restore failed, or when another schedtop is
 * emulating by cpufreq and @busy_is_error (else that one is left alone).
 */
int cpufreq_emul_recover(bool busy_is_error, struct schedstat_emulation_recovery *r,
			 char *why, size_t why_size);
/* Where the state file is: /run/schedtop/emulate-cpufreq.state. */
extern const char cpufreq_emul_state_path[];

#endif /* SCHEDSTAT_EMULATE_H */
