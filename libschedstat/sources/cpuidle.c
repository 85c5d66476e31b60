// SPDX-License-Identifier: GPL-2.0
/*
 * cpuidle residency per CPU and state, from
 * /sys/devices/system/cpu/cpuN/cpuidle/stateK/time: microseconds spent in
 * the state since boot, kept by the cpuidle core (cpuidle_enter_state()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuidle.h"
#include "proc_stat.h"
#include "schedstat-local.h"

/* cpuidle's CPUIDLE_STATE_MAX */
#define CPUIDLE_MAX_STATES	10

struct cpuidle {
	char *root;
	int nr_cpus;
	unsigned char *nr_states;	/* per CPU, found at open */
	/*
	 * The time files, kept open (-1: not open): opening each one at every
	 * sample walked its path, 8 CPUs x 3 states on a phone.
	 */
	int *fds;			/* [cpu * CPUIDLE_MAX_STATES + k] */
};

static int state_open(const struct cpuidle *ci, int cpu, int k)
{
	char rel[96];

	snprintf(rel, sizeof(rel),
		 "devices/system/cpu/cpu%d/cpuidle/state%d/time", cpu, k);
	return sysfs_open(ci->root, rel);
}

/*
 * An offline CPU's cpuidle directory is removed and made anew when it
 * comes back: a kept file that fails is opened again once by its path.
 */
static int state_time(struct cpuidle *ci, int cpu, int k, uint64_t *us)
{
	int *fd = &ci->fds[cpu * CPUIDLE_MAX_STATES + k];

	for (int tries = 0; tries < 2; tries++) {
		if (*fd < 0)
			*fd = state_open(ci, cpu, k);
		if (*fd < 0)
			return *fd;
		if (!sysfs_pread_u64(*fd, us))
			return 0;
		close(*fd);
		*fd = -1;
	}
	return -ENODEV;
}

int cpuidle_open(struct cpuidle **out, const char *sysfs_root, int nr_cpus)
{
	struct cpuidle *ci = calloc(1, sizeof(*ci));
	uint64_t us;

	*out = NULL;
	if (!ci)
		return -ENOMEM;
	ci->nr_cpus = nr_cpus;
	ci->nr_states = calloc(nr_cpus ? nr_cpus : 1, sizeof(*ci->nr_states));
	ci->fds = malloc((nr_cpus ? nr_cpus : 1) * CPUIDLE_MAX_STATES *
			 sizeof(*ci->fds));
	ci->root = sysfs_root ? strdup(sysfs_root) : NULL;
	if (!ci->nr_states || !ci->fds || (sysfs_root && !ci->root)) {
		cpuidle_close(ci);
		return -ENOMEM;
	}
	for (int i = 0; i < nr_cpus * CPUIDLE_MAX_STATES; i++)
		ci->fds[i] = -1;
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		while (ci->nr_states[cpu] < CPUIDLE_MAX_STATES &&
		       !state_time(ci, cpu, ci->nr_states[cpu], &us))
			ci->nr_states[cpu]++;
	*out = ci;
	return 0;
}

void cpuidle_close(struct cpuidle *ci)
{
	if (!ci)
		return;
	for (int i = 0; ci->fds && i < ci->nr_cpus * CPUIDLE_MAX_STATES; i++)
		if (ci->fds[i] >= 0)
			close(ci->fds[i]);
	free(ci->fds);
	free(ci->root);
	free(ci->nr_states);
	free(ci);
}

bool cpuidle_present(const struct cpuidle *ci)
{
	for (int cpu = 0; ci && cpu < ci->nr_cpus; cpu++)
		if (ci->nr_states[cpu])
			return true;
	return false;
}

void cpuidle_read(struct cpuidle *ci, struct st_cpu_state *cpus, int nr)
{
	for (int cpu = 0; cpu < nr && cpu < ci->nr_cpus; cpu++) {
		struct st_cpu_state *c = &cpus[cpu];
		uint64_t ns[ST_IDLE_STATES] = {};
		bool ok = ci->nr_states[cpu] > 0;

		/* An offline CPU has no cpuidle directory: it stays unseen. */
		for (int k = 0; ok && k < ci->nr_states[cpu]; k++) {
			int slot = k < ST_IDLE_STATES ? k : ST_IDLE_STATES - 1;
			uint64_t us;

			ok = !state_time(ci, cpu, k, &us);
			if (ok)
				ns[slot] += us * 1000;
		}
		c->seen &= ~ST_SEEN_IDLE;
		if (!ok)
			continue;
		for (int k = 0; k < ST_IDLE_STATES; k++)
			c->cstate_ns[k] = ns[k];
		c->cstate = -1;
		c->cstate_ts = 0;
		c->seen |= ST_SEEN_IDLE;
	}
}

struct proc_idle {
	struct st_cpu_state *cpus;
	int nr;
};

static void proc_idle_line(void *ctx, int cpu, const uint64_t *ns, int nr)
{
	struct proc_idle *pi = ctx;

	if (cpu < 0 || cpu >= pi->nr || nr <= PROC_STAT_IOWAIT)
		return;
	pi->cpus[cpu].idle_ns = ns[PROC_STAT_IDLE] + ns[PROC_STAT_IOWAIT];
	pi->cpus[cpu].idle_start = 0;
	pi->cpus[cpu].seen |= ST_SEEN_IDLE_TIME;
}

void cpuidle_read_proc_stat(struct proc_stat *ps, struct st_cpu_state *cpus,
			    int nr)
{
	struct proc_idle pi = { cpus, nr };

	proc_stat_reread(ps, proc_idle_line, &pi);
}
