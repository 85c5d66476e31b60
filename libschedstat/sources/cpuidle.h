/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Idle-state residency as the cpuidle core keeps it, read at sample time
 * from sysfs (cpuN/cpuidle/stateK/time) instead of tracing every idle
 * entry and exit.
 */
#ifndef SCHEDSTAT_CPUIDLE_H
#define SCHEDSTAT_CPUIDLE_H

#include <stdbool.h>
#include <linux/types.h>

#include "schedtop.h"

struct cpuidle;

/* -ENOMEM only: a system without cpuidle has no states, not an error. */
int cpuidle_open(struct cpuidle **out, const char *sysfs_root, int nr_cpus);
void cpuidle_close(struct cpuidle *ci);
/* True if some CPU has cpuidle states. */
bool cpuidle_present(const struct cpuidle *ci);
/*
 * Fill cstate_ns[] of each CPU whose states could be read (states past
 * the last slot add to it), mark it ST_SEEN_IDLE; leave the others unseen.
 */
void cpuidle_read(struct cpuidle *ci, struct st_cpu_state *cpus, int nr);
/*
 * Idle time of each CPU listed in /proc/stat (idle + iowait, which the
 * kernel takes from tick_sched with NO_HZ) into idle_ns, with
 * ST_SEEN_IDLE_TIME; resolution 1/USER_HZ.
 */
struct proc_stat;
void cpuidle_read_proc_stat(struct proc_stat *ps, struct st_cpu_state *cpus,
			    int nr);

#endif /* SCHEDSTAT_CPUIDLE_H */
