/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU lines of /proc/stat (fs/proc/stat.c): the time each CPU spent in
 * each kind of work since boot, which the cpuidle fallback and the tracefs
 * source's lost-time budget both read.
 */
#ifndef SCHEDSTAT_PROC_STAT_H
#define SCHEDSTAT_PROC_STAT_H

#include <stdint.h>

/* A CPU line's columns, in the order the kernel prints them. */
enum proc_stat_col {
	PROC_STAT_USER,
	PROC_STAT_NICE,
	PROC_STAT_SYSTEM,
	PROC_STAT_IDLE,
	PROC_STAT_IOWAIT,
	PROC_STAT_IRQ,
	PROC_STAT_SOFTIRQ,
	PROC_STAT_STEAL,
	PROC_STAT_NR_COLS,
};

/*
 * Calls @fn for each CPU line of @path (/proc/stat, or a copy): the total
 * ("cpu ") as @cpu -1, then each "cpuN" as N, with @ns its first @nr
 * columns (at most PROC_STAT_NR_COLS) in ns; the file counts 1/USER_HZ.
 * Lines that are not CPU lines are passed over. 0, or -errno if @path
 * cannot be opened.
 */
int proc_stat_read(const char *path,
		   void (*fn)(void *ctx, int cpu, const uint64_t *ns, int nr),
		   void *ctx);

/*
 * The same, on a file kept open for reading at every sample: open once,
 * proc_stat_reread() reads it again from its start, as far as its CPU
 * lines go (the kernel prints them first).
 */
struct proc_stat;

int proc_stat_open(struct proc_stat **out, const char *path);
int proc_stat_reread(struct proc_stat *ps,
		     void (*fn)(void *ctx, int cpu, const uint64_t *ns, int nr),
		     void *ctx);
void proc_stat_close(struct proc_stat *ps);

#endif /* SCHEDSTAT_PROC_STAT_H */
