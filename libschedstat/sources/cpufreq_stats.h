/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frequency residency as cpufreq keeps it (policyN/stats/time_in_state,
 * CONFIG_CPU_FREQ_STAT), read at sample time: the kernel counts every
 * frequency change itself, so nothing needs to see power:cpu_frequency
 * happen, and a clock that never changed during the run still shows.
 */
#ifndef SCHEDSTAT_CPUFREQ_STATS_H
#define SCHEDSTAT_CPUFREQ_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct schedstat_topology;
struct cpufreq_stats;

/*
 * Take each cluster's policy's time_in_state now as the zero of later
 * reads. -ENOMEM only: clusters without the file are left to the events.
 */
int cpufreq_stats_open(struct cpufreq_stats **out, const char *sysfs_root,
		       const struct schedstat_topology *topo, int nr_cpus);
void cpufreq_stats_close(struct cpufreq_stats *st);

/*
 * Replace the entries of @times (cumulative time per CPU and kHz since
 * open) for every CPU of a cluster whose policy keeps stats with the
 * kernel's own times; entries of other clusters stay. @times grows with
 * schedstat_array_reserve(). 0 or -ENOMEM.
 */
int cpufreq_stats_apply(struct cpufreq_stats *st, struct model_freq_time **times,
			size_t *nr, size_t *cap);

/*
 * Parse one time_in_state text ("KHZ TIME" a line, TIME in USER_HZ
 * units) into @out; the number of entries, or -EINVAL. Entries past @max
 * are an error (-ENOSPC): a policy has a few dozen OPPs at most.
 */
int cpufreq_stats_parse(const char *text, long user_hz,
			struct model_freq_time *out, size_t max);

#endif /* SCHEDSTAT_CPUFREQ_STATS_H */
