// SPDX-License-Identifier: GPL-2.0
/*
 * A topology: clusters of CPUs with their capacities and cpufreq policy,
 * built by detect.c (sysfs), spec.c (--topology) or a recording's reader,
 * then read through the schedstat_topology_*() accessors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

struct schedstat_topology *topo_alloc(enum schedstat_topology_origin origin)
{
	struct schedstat_topology *topo = calloc(1, sizeof(*topo));

	if (!topo)
		return NULL;
	topo->origin = origin;
	for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)
		topo->cpu_cluster[cpu] = -1;
	return topo;
}

void schedstat_topology_free(struct schedstat_topology *topo)
{
	if (!topo)
		return;
	free(topo->clusters);
	free(topo);
}

/* Capacities of the CPUs in @set must be filled in before. */
int topo_add_cluster(struct schedstat_topology *topo,
			    const struct cpuset *set, const char *name)
{
	struct cluster *c;

	/* Each cluster holds a CPU: SCHEDSTAT_MAX_CPUS bounds the growth. */
	if (schedstat_array_reserve((void **)&topo->clusters, &topo->max_clusters,
				    (size_t)topo->nr_clusters + 1, sizeof(*c)))
		return -ENOMEM;
	c = &topo->clusters[topo->nr_clusters++];
	memset(c, 0, sizeof(*c));
	if (name)
		snprintf(c->name, sizeof(c->name), "%s", name);
	c->cpus = *set;
	c->nr_cpus = cpuset_count(set);
	c->first = -1;
	c->policy = -1;
	for_each_cpu(cpu, set) {
		if (c->first < 0)
			c->first = cpu;
		if (topo->cpu_capacity[cpu] > c->capacity)
			c->capacity = topo->cpu_capacity[cpu];
	}
	return 0;
}

/* Index CPUs by cluster once the clusters are in their final order. */
void topo_finish(struct schedstat_topology *topo)
{
	struct cpuset all = {};

	for (int k = 0; k < topo->nr_clusters; k++) {
		for_each_cpu(cpu, &topo->clusters[k].cpus)
			topo->cpu_cluster[cpu] = k;
		cpuset_or(&all, &topo->clusters[k].cpus);
	}
	/* A CPU outside every cluster has no capacity schedtop knows of. */
	for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)
		if (!cpuset_test(&all, cpu))
			topo->cpu_capacity[cpu] = 0;
	topo->nr_cpus = cpuset_end(&all);
}
struct schedstat_topology *topology_new(enum schedstat_topology_origin origin)
{
	return topo_alloc(origin);
}

int topology_add_cluster(struct schedstat_topology *topo, const char *name,
			 const struct cpuset *cpus,
			 const unsigned int *capacity, int policy,
			 unsigned int freq_min_khz, unsigned int freq_max_khz)
{
	struct cluster *c;
	size_t i = 0;
	int err;

	for_each_cpu(cpu, cpus) {
		if (topo->cpu_cluster[cpu] >= 0)
			return -EINVAL;
		topo->cpu_capacity[cpu] = capacity[i++];
		/* Marks the CPU taken until topology_seal() indexes it. */
		topo->cpu_cluster[cpu] = topo->nr_clusters;
	}
	if (!i)
		return -EINVAL;
	err = topo_add_cluster(topo, cpus, name);
	if (err)
		return err;
	c = &topo->clusters[topo->nr_clusters - 1];
	c->policy = policy;
	c->freq_min_khz = freq_min_khz;
	c->freq_max_khz = freq_max_khz;
	return 0;
}

void topology_seal(struct schedstat_topology *topo)
{
	topo_finish(topo);
}

enum schedstat_topology_origin
schedstat_topology_origin(const struct schedstat_topology *topo)
{
	return topo->origin;
}

int schedstat_topology_nr_cpus(const struct schedstat_topology *topo)
{
	return topo->nr_cpus;
}

int schedstat_topology_nr_clusters(const struct schedstat_topology *topo)
{
	return topo->nr_clusters;
}

static const struct cluster *cluster_of(const struct schedstat_topology *topo,
					int cluster)
{
	if (cluster < 0 || cluster >= topo->nr_clusters)
		return NULL;
	return &topo->clusters[cluster];
}

const char *schedstat_topology_cluster_name(const struct schedstat_topology *topo,
					    int cluster)
{
	const struct cluster *c = cluster_of(topo, cluster);

	return c ? c->name : NULL;
}

unsigned int schedstat_topology_cluster_capacity(const struct schedstat_topology *topo,
						 int cluster)
{
	const struct cluster *c = cluster_of(topo, cluster);

	return c ? c->capacity : 0;
}

int schedstat_topology_cluster_nr_cpus(const struct schedstat_topology *topo,
				       int cluster)
{
	const struct cluster *c = cluster_of(topo, cluster);

	return c ? c->nr_cpus : -ENOENT;
}

int schedstat_topology_cluster_cpulist(const struct schedstat_topology *topo,
				       int cluster, char *buf, size_t size)
{
	const struct cluster *c = cluster_of(topo, cluster);

	if (!c)
		return -ENOENT;
	return cpulist_format(&c->cpus, buf, size);
}

int schedstat_topology_cluster_policy(const struct schedstat_topology *topo,
				      int cluster)
{
	const struct cluster *c = cluster_of(topo, cluster);

	return c && c->policy >= 0 ? c->policy : -ENOENT;
}

int schedstat_topology_cluster_freq(const struct schedstat_topology *topo,
				    int cluster, unsigned int *min_khz,
				    unsigned int *max_khz)
{
	const struct cluster *c = cluster_of(topo, cluster);

	if (!c)
		return -ENOENT;
	*min_khz = c->freq_min_khz;
	*max_khz = c->freq_max_khz;
	return 0;
}

int schedstat_topology_cpu_cluster(const struct schedstat_topology *topo, int cpu)
{
	if (cpu < 0 || cpu >= SCHEDSTAT_MAX_CPUS || topo->cpu_cluster[cpu] < 0)
		return -ENOENT;
	return topo->cpu_cluster[cpu];
}

unsigned int schedstat_topology_cpu_capacity(const struct schedstat_topology *topo,
					     int cpu)
{
	if (cpu < 0 || cpu >= SCHEDSTAT_MAX_CPUS)
		return 0;
	return topo->cpu_capacity[cpu];
}

void topology_cpus(const struct schedstat_topology *topo,
		   struct cpuset *set)
{
	memset(set, 0, sizeof(*set));
	for (int k = 0; k < topo->nr_clusters; k++)
		cpuset_or(set, &topo->clusters[k].cpus);
}
