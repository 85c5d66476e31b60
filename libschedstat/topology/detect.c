// SPDX-License-Identifier: GPL-2.0
/*
 * Clusters detected from sysfs, by the first strategy that tells them apart:
 * cpu_capacity, else cpufreq policies, else topology/cluster_cpus_list,
 * else one cluster of every CPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

/* One cluster per distinct cpu_capacity, in the order CPUs first show it. */
static int group_by_capacity(struct schedstat_topology *topo,
			     const struct cpuset *possible)
{
	struct cpuset left = *possible;

	while (cpuset_count(&left)) {
		struct cpuset group = {};
		unsigned int cap = 0;
		bool first = true;
		int err;

		for_each_cpu(cpu, &left) {
			if (first) {
				cap = topo->cpu_capacity[cpu];
				first = false;
			}
			if (topo->cpu_capacity[cpu] == cap)
				cpuset_set(&group, cpu);
		}
		err = topo_add_cluster(topo, &group, NULL);
		if (err)
			return err;
		cpuset_andnot(&left, &group);
	}
	return 0;
}

/* The possible CPUs not @placed yet, as one more cluster. */
static int add_rest(struct schedstat_topology *topo,
		    const struct cpuset *possible,
		    const struct cpuset *placed)
{
	struct cpuset rest = *possible;

	cpuset_andnot(&rest, placed);
	return cpuset_count(&rest) ? topo_add_cluster(topo, &rest, NULL) : 0;
}

/*
 * One cluster per cpufreq policy, if any policy spans more than one CPU:
 * per-CPU policies (intel_pstate, acpi-cpufreq) say nothing about clusters.
 * Returns 1 if clusters were added, 0 if cpufreq tells nothing, or -errno.
 */
static int group_by_cpufreq(struct schedstat_topology *topo, const char *root,
			    const struct cpuset *possible)
{
	struct cpuset *sets, placed = {};
	int *ids, nr_ids, nr_sets = 0, err;
	bool multi = false;

	err = topo_list_policies(root, &ids, &nr_ids);
	if (err == -ENOMEM)
		return err;
	if (err || !nr_ids) {
		free(ids);
		return 0;
	}
	sets = calloc(nr_ids, sizeof(*sets));
	if (!sets) {
		free(ids);
		return -ENOMEM;
	}
	for (int i = 0; i < nr_ids; i++) {
		struct cpuset *set = &sets[nr_sets];
		char rel[96];

		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpufreq/policy%d/related_cpus", ids[i]);
		err = topo_read_cpu_words(root, rel, set);
		if (err == -ENOMEM)
			goto out;
		/* An unreadable policy leaves its CPUs to the extra cluster. */
		if (err)
			continue;
		cpuset_and(set, possible);
		cpuset_andnot(set, &placed);
		if (!cpuset_count(set))
			continue;
		if (cpuset_count(set) > 1)
			multi = true;
		cpuset_or(&placed, set);
		nr_sets++;
	}
	err = 0;
	if (!multi)
		goto out;
	for (int i = 0; i < nr_sets; i++) {
		err = topo_add_cluster(topo, &sets[i], NULL);
		if (err)
			goto out;
	}
	/* CPUs in no policy (no cpufreq driver for them) still need a home. */
	err = add_rest(topo, possible, &placed);
	if (err)
		goto out;
	err = 1;
out:
	free(sets);
	free(ids);
	return err;
}

/*
 * topology/cluster_cpus_list: CPUs sharing a cluster (L2 or SoC cluster).
 * Where it only repeats core_cpus_list (SMT siblings, x86) it says nothing.
 * Returns 1 when it made clusters, 0 when it had nothing to say.
 */
static int group_by_cluster_cpus(struct schedstat_topology *topo, const char *root,
				 const struct cpuset *possible)
{
	struct cpuset placed = {};
	bool informative = false;
	int groups = 0, err;

	for_each_cpu(cpu, possible) {
		struct cpuset cl, core;
		char rel[96];

		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%d/topology/cluster_cpus_list", cpu);
		if (topo_read_cpulist(root, rel, &cl))
			continue;
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%d/topology/core_cpus_list", cpu);
		if (topo_read_cpulist(root, rel, &core) || memcmp(&cl, &core, sizeof(cl)))
			informative = true;
		if (!cpuset_test(&placed, cpu))
			groups++;
		cpuset_or(&placed, &cl);
	}
	if (!informative || groups < 2)
		return 0;
	placed = (struct cpuset){};
	for_each_cpu(cpu, possible) {
		struct cpuset cl;
		char rel[96];

		if (cpuset_test(&placed, cpu))
			continue;
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%d/topology/cluster_cpus_list", cpu);
		if (topo_read_cpulist(root, rel, &cl))
			continue;
		cpuset_and(&cl, possible);
		cpuset_andnot(&cl, &placed);
		cpuset_or(&placed, &cl);
		err = topo_add_cluster(topo, &cl, NULL);
		if (err)
			return err;
	}
	/* Offline CPUs have no topology directory: they share one cluster. */
	err = add_rest(topo, possible, &placed);
	return err ? err : 1;
}

static int cmp_cluster(const void *a, const void *b)
{
	const struct cluster *x = a, *y = b;

	if (x->capacity != y->capacity)
		return x->capacity < y->capacity ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/* The clusters in capacity order, named by rank, the CPUs indexed. */
static void order_and_name(struct schedstat_topology *topo)
{
	qsort(topo->clusters, topo->nr_clusters, sizeof(*topo->clusters),
	      cmp_cluster);
	topo_name_clusters(topo);
	topo_finish(topo);
}

int schedstat_topology_detect(struct schedstat_topology **out,
			      const char *sysfs_root)
{
	struct schedstat_topology *topo;
	struct cpuset possible;
	unsigned int first_cap = 0;
	bool differ = false, seen = false;
	int err;

	*out = NULL;
	err = topo_read_possible(sysfs_root, &possible);
	if (err)
		return err;
	topo = topo_alloc(SCHEDSTAT_TOPO_CPU_CAPACITY);
	if (!topo)
		return -ENOMEM;
	/* cpu_capacity exists for offline CPUs too, so every CPU gets one. */
	for_each_cpu(cpu, &possible) {
		unsigned int cap;

		if (topo_read_cpu_capacity(sysfs_root, cpu, &cap))
			cap = DEFAULT_CAPACITY;
		topo->cpu_capacity[cpu] = cap;
		if (!seen) {
			first_cap = cap;
			seen = true;
		} else if (cap != first_cap) {
			differ = true;
		}
	}
	/*
	 * Equal capacities say nothing about clusters: a symmetric machine may
	 * still clock its clusters separately, so ask cpufreq next.
	 */
	if (differ) {
		err = group_by_capacity(topo, &possible);
	} else {
		topo->origin = SCHEDSTAT_TOPO_CPUFREQ;
		err = group_by_cpufreq(topo, sysfs_root, &possible);
		if (!err) {
			topo->origin = SCHEDSTAT_TOPO_CLUSTER_CPUS;
			err = group_by_cluster_cpus(topo, sysfs_root, &possible);
		}
		if (!err) {
			topo->origin = SCHEDSTAT_TOPO_SINGLE;
			err = topo_add_cluster(topo, &possible, NULL);
		} else if (err > 0) {
			err = 0;
		}
	}
	if (err) {
		schedstat_topology_free(topo);
		return err;
	}
	order_and_name(topo);
	err = topo_read_cluster_freqs(topo, sysfs_root);
	if (err) {
		schedstat_topology_free(topo);
		return err;
	}
	*out = topo;
	return 0;
}

int topology_from_capacities(struct schedstat_topology **out, int nr_cpus,
			     const unsigned int *capacity,
			     const unsigned int *max_khz)
{
	struct schedstat_topology *topo;
	struct cpuset all = {};
	int err;

	*out = NULL;
	if (nr_cpus <= 0 || nr_cpus > SCHEDSTAT_MAX_CPUS)
		return -EINVAL;
	topo = topo_alloc(SCHEDSTAT_TOPO_CPU_CAPACITY);
	if (!topo)
		return -ENOMEM;
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		cpuset_set(&all, cpu);
		topo->cpu_capacity[cpu] = capacity[cpu] ? capacity[cpu] : DEFAULT_CAPACITY;
	}
	err = group_by_capacity(topo, &all);
	if (err) {
		schedstat_topology_free(topo);
		return err;
	}
	order_and_name(topo);
	/* A cluster's clock: the highest any of its CPUs reaches. */
	for (int k = 0; max_khz && k < topo->nr_clusters; k++) {
		struct cluster *c = &topo->clusters[k];

		for_each_cpu(cpu, &c->cpus)
			if (max_khz[cpu] > c->freq_max_khz)
				c->freq_max_khz = max_khz[cpu];
	}
	*out = topo;
	return 0;
}
