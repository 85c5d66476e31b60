// SPDX-License-Identifier: GPL-2.0
/*
 * cpufreq's own frequency residency: policyN/stats/time_in_state, one
 * "KHZ TIME" line per frequency, TIME in USER_HZ units since boot (the
 * kernel prints jiffies_64_to_clock_t() of its per-state counters).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpufreq_stats.h"
#include "schedstat-local.h"

/* More OPPs than any policy has; a longer file is not time_in_state. */
#define MAX_OPPS 64

struct policy_stats {
	int cluster;
	int policy;
	int fd;			/* time_in_state, kept open (sysfs_read_kept()) */
	size_t nr_base;
	struct model_freq_time base[MAX_OPPS];	/* cpu unused */
};

struct cpufreq_stats {
	char *sysfs_root;
	const struct schedstat_topology *topo;
	int nr_cpus;
	long user_hz;
	size_t nr;
	struct policy_stats *policies;
};

int cpufreq_stats_parse(const char *text, long user_hz,
			struct model_freq_time *out, size_t max)
{
	size_t n = 0;
	const char *p = text;

	while (*p) {
		unsigned long long khz, t;
		int used;

		if (sscanf(p, "%llu %llu%n", &khz, &t, &used) != 2 ||
		    khz > UINT32_MAX || t > UINT64_MAX / 1000000000ull)
			return -EINVAL;
		if (n == max)
			return -ENOSPC;
		out[n++] = (struct model_freq_time){
			.khz = khz, .ns = t * (1000000000ull / user_hz),
		};
		p += used;
		while (*p == '\n' || *p == ' ')
			p++;
	}
	return n;
}

static int read_policy(const struct cpufreq_stats *st, struct policy_stats *p,
		       struct model_freq_time *out)
{
	char rel[96], text[MAX_OPPS * 32];
	int len;

	snprintf(rel, sizeof(rel),
		 "devices/system/cpu/cpufreq/policy%d/stats/time_in_state", p->policy);
	len = sysfs_read_kept(st->sysfs_root, rel, &p->fd, text, sizeof(text));
	if (len <= 0)
		return len ? len : -ENOENT;
	return cpufreq_stats_parse(text, st->user_hz, out, MAX_OPPS);
}

int cpufreq_stats_open(struct cpufreq_stats **out, const char *sysfs_root,
		       const struct schedstat_topology *topo, int nr_cpus)
{
	int nr_clusters = schedstat_topology_nr_clusters(topo);
	struct cpufreq_stats *st = calloc(1, sizeof(*st));

	*out = NULL;
	if (!st)
		return -ENOMEM;
	st->topo = topo;
	st->nr_cpus = nr_cpus;
	st->user_hz = sysconf(_SC_CLK_TCK);
	if (st->user_hz <= 0 || st->user_hz > 1000000000)
		st->user_hz = 100;
	st->sysfs_root = sysfs_root ? strdup(sysfs_root) : NULL;
	st->policies = calloc(nr_clusters > 0 ? nr_clusters : 1,
			      sizeof(*st->policies));
	if ((sysfs_root && !st->sysfs_root) || !st->policies) {
		cpufreq_stats_close(st);
		return -ENOMEM;
	}
	for (int k = 0; k < nr_clusters; k++) {
		struct policy_stats *p = &st->policies[st->nr];
		int n;

		p->fd = -1;
		p->policy = schedstat_topology_cluster_policy(topo, k);
		if (p->policy < 0)
			continue;
		n = read_policy(st, p, p->base);
		if (n <= 0) {
			if (p->fd >= 0)
				close(p->fd);
			p->fd = -1;
			continue;	/* no CPU_FREQ_STAT: the events tell */
		}
		p->cluster = k;
		p->nr_base = n;
		st->nr++;
	}
	*out = st;
	return 0;
}

void cpufreq_stats_close(struct cpufreq_stats *st)
{
	if (!st)
		return;
	for (size_t k = 0; k < st->nr; k++)
		if (st->policies[k].fd >= 0)
			close(st->policies[k].fd);
	free(st->policies);
	free(st->sysfs_root);
	free(st);
}

static uint64_t base_of(const struct policy_stats *p, uint32_t khz)
{
	for (size_t i = 0; i < p->nr_base; i++)
		if (p->base[i].khz == khz)
			return p->base[i].ns;
	return 0;	/* a frequency that appeared since open */
}

int cpufreq_stats_apply(struct cpufreq_stats *st, struct model_freq_time **times,
			size_t *nr, size_t *cap)
{
	for (size_t k = 0; k < st->nr; k++) {
		struct policy_stats *p = &st->policies[k];
		struct model_freq_time now[MAX_OPPS];
		size_t kept = 0;
		int n = read_policy(st, p, now);

		if (n <= 0)
			continue;
		/* The kernel's counters replace what the events summed. */
		for (size_t i = 0; i < *nr; i++)
			if (schedstat_topology_cpu_cluster(st->topo, (*times)[i].cpu) !=
			    p->cluster)
				(*times)[kept++] = (*times)[i];
		*nr = kept;
		for (int cpu = 0; cpu < st->nr_cpus; cpu++) {
			if (schedstat_topology_cpu_cluster(st->topo, cpu) != p->cluster)
				continue;
			for (int i = 0; i < n; i++) {
				uint64_t base = base_of(p, now[i].khz);

				if (schedstat_array_reserve((void **)times, cap, *nr + 1,
						  sizeof(**times)))
					return -ENOMEM;
				/* stats/reset zeroes the counters: count anew. */
				(*times)[(*nr)++] = (struct model_freq_time){
					.cpu = cpu, .khz = now[i].khz,
					.ns = now[i].ns >= base ? now[i].ns - base : now[i].ns,
				};
			}
		}
	}
	return 0;
}
