/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The topology's layout, private to libschedstat/topology/: topology.c owns
 * the object, cpu_sysfs.c reads what sysfs says about CPUs, detect.c turns
 * that into clusters, cluster_names.c names them and spec.c parses
 * --topology. Nothing outside this folder sees struct cluster.
 */
#ifndef SCHEDSTAT_TOPOLOGY_H
#define SCHEDSTAT_TOPOLOGY_H

#include <stdbool.h>

#include "schedstat-local.h"
#include "sched_kernel.h"

/* What the kernel assumes for a CPU that has no cpu_capacity file. */
#define DEFAULT_CAPACITY	SCHED_CAPACITY_SCALE

struct cluster {
	char name[SCHEDSTAT_NAME_LEN];
	struct cpuset cpus;
	unsigned int capacity;	/* largest of its CPUs */
	int nr_cpus;
	int first;		/* lowest CPU: breaks capacity ties */
	int policy;		/* cpufreq policyN, -1 if none */
	unsigned int freq_min_khz, freq_max_khz;
};

struct schedstat_topology {
	enum schedstat_topology_origin origin;
	int nr_cpus;		/* highest CPU in a cluster + 1 */
	int nr_clusters;
	size_t max_clusters;	/* allocated */
	struct cluster *clusters;
	int16_t cpu_cluster[SCHEDSTAT_MAX_CPUS];	/* -1: in no cluster */
	unsigned int cpu_capacity[SCHEDSTAT_MAX_CPUS];	/* 0: in no cluster */
};

#define for_each_cpu(cpu, set)						\
	for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)		\
		if (cpuset_test(set, cpu))

/* An empty topology of @origin, every CPU in no cluster. */
struct schedstat_topology *topo_alloc(enum schedstat_topology_origin origin);
/* Capacities of the CPUs in @set must be filled in before. */
int topo_add_cluster(struct schedstat_topology *topo,
		     const struct cpuset *set, const char *name);
/* Index CPUs by cluster once the clusters are in their final order. */
void topo_finish(struct schedstat_topology *topo);

/* cpu_sysfs.c: @root is "/sys" when NULL, a fixture tree in tests. */
int topo_read_cpulist(const char *root, const char *rel, struct cpuset *set);
int topo_read_cpu_words(const char *root, const char *rel, struct cpuset *set);
/* 0 with @cap set, or -errno when the CPU has no cpu_capacity file. */
int topo_read_cpu_capacity(const char *root, int cpu, unsigned int *cap);
/*
 * Possible CPUs, offline ones included: a CPU hotplugged in later must
 * already have a cluster. A file that exists but does not parse is an
 * error rather than a reason to guess from the next source.
 */
int topo_read_possible(const char *root, struct cpuset *set);
/* policyN numbers below devices/system/cpu/cpufreq, ascending. */
int topo_list_policies(const char *root, int **out, int *nr);
/* Each cluster's cpufreq policy and frequency range, where cpufreq exists. */
int topo_read_cluster_freqs(struct schedstat_topology *topo, const char *root);

/* cluster_names.c: names by capacity rank, clusters sorted by capacity. */
void topo_name_clusters(struct schedstat_topology *topo);

#endif /* SCHEDSTAT_TOPOLOGY_H */
