// SPDX-License-Identifier: GPL-2.0
/*
 * The --topology spec: "NAME:CPULIST[@CAPACITY],...", clusters in the
 * order written, capacities from the spec, else sysfs, else 1024.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "topology.h"

/* No CPU is bigger than the biggest at its top frequency. */
#define MAX_SPEC_CAPACITY	SCHED_CAPACITY_SCALE

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

/* The length of a name followed by ':' at @s, else 0. */
static size_t spec_name_len(const char *s)
{
	size_t n = 0;

	while (is_name_char(s[n]))
		n++;
	return s[n] == ':' ? n : 0;
}

/*
 * One comma-separated element of a cluster's CPU list. Elements are parsed
 * one by one so that a CPU written twice ("0-3,2") is caught even inside a
 * cluster.
 */
static int spec_cpus(const char *s, size_t len, struct cpuset *set)
{
	char buf[32];

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (cpulist_parse(buf, set) || !cpuset_count(set))
		return -EINVAL;
	return 0;
}

static int spec_capacity(const char **sp, unsigned int *cap)
{
	const char *s = *sp;
	unsigned int v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > MAX_SPEC_CAPACITY)
			return -EINVAL;
	}
	if (!v)
		return -EINVAL;
	*sp = s;
	*cap = v;
	return 0;
}

/*
 * @foreign: the spec is another machine's; do not read this one's sysfs.
 * @recorded: that machine's topology, for the capacities the spec omits.
 */
static int parse_spec(struct schedstat_topology *topo, const char *spec,
		      const char *sysfs_root, bool foreign,
		      const struct schedstat_topology *recorded)
{
	struct cpuset all = {};
	const char *p = spec;

	if (!*p)
		return -EINVAL;
	for (;;) {
		struct cpuset set = {};
		char name[SCHEDSTAT_NAME_LEN];
		size_t len = spec_name_len(p);
		unsigned int cap = 0;
		int err;

		if (!len || len >= sizeof(name))
			return -EINVAL;
		memcpy(name, p, len);
		name[len] = '\0';
		for (int k = 0; k < topo->nr_clusters; k++)
			if (!strcmp(topo->clusters[k].name, name))
				return -EINVAL;
		p += len + 1;

		/*
		 * The list goes on past a comma unless what follows is
		 * "NAME:": "little:0,2,4,big:1,3" is two clusters.
		 */
		for (;;) {
			struct cpuset elem;
			size_t n = strcspn(p, ",@");

			if (spec_cpus(p, n, &elem))
				return -EINVAL;
			if (cpuset_intersects(&elem, &set) ||
			    cpuset_intersects(&elem, &all))
				return -EINVAL;
			cpuset_or(&set, &elem);
			p += n;
			if (*p != ',' || spec_name_len(p + 1))
				break;
			p++;
		}
		if (*p == '@') {
			p++;
			if (spec_capacity(&p, &cap))
				return -EINVAL;
		}
		if (*p == ',' && !spec_name_len(p + 1))
			return -EINVAL;
		if (*p && *p != ',')
			return -EINVAL;

		for_each_cpu(cpu, &set) {
			if (cap)
				topo->cpu_capacity[cpu] = cap;
			else if (recorded && recorded->cpu_capacity[cpu])
				topo->cpu_capacity[cpu] = recorded->cpu_capacity[cpu];
			else if (foreign || topo_read_cpu_capacity(sysfs_root, cpu,
						   &topo->cpu_capacity[cpu]))
				topo->cpu_capacity[cpu] = DEFAULT_CAPACITY;
		}
		err = topo_add_cluster(topo, &set, name);
		if (err)
			return err;
		cpuset_or(&all, &set);
		if (!*p)
			return 0;
		p++;
	}
}

static int parse_topology(struct schedstat_topology **out, const char *spec,
			  const char *sysfs_root, bool foreign,
			  const struct schedstat_topology *recorded)
{
	struct schedstat_topology *topo;
	int err;

	*out = NULL;
	if (!spec)
		return -SCHEDSTAT_ERR_TOPOLOGY_SPEC;
	topo = topo_alloc(SCHEDSTAT_TOPO_OVERRIDE);
	if (!topo)
		return -ENOMEM;
	err = parse_spec(topo, spec, sysfs_root, foreign, recorded);
	if (err) {
		schedstat_topology_free(topo);
		return err == -ENOMEM ? err : -SCHEDSTAT_ERR_TOPOLOGY_SPEC;
	}
	/* The user named the clusters: keep them in the order written. */
	topo_finish(topo);
	if (!foreign && topo_read_cluster_freqs(topo, sysfs_root) == -ENOMEM) {
		schedstat_topology_free(topo);
		return -ENOMEM;
	}
	*out = topo;
	return 0;
}

int schedstat_topology_parse(struct schedstat_topology **out, const char *spec,
			     const char *sysfs_root)
{
	return parse_topology(out, spec, sysfs_root, false, NULL);
}

int topology_parse_foreign(struct schedstat_topology **out, const char *spec)
{
	return parse_topology(out, spec, NULL, true, NULL);
}

int topology_parse_recorded(struct schedstat_topology **out, const char *spec,
			    const struct schedstat_topology *recorded)
{
	return parse_topology(out, spec, NULL, true, recorded);
}
