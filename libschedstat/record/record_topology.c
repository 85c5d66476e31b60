// SPDX-License-Identifier: GPL-2.0
/*
 * The TOPOLOGY chunk: the clusters of the recording machine, with each CPU's
 * capacity, so that a recording reads back on any machine as it was taken
 * (docs/record-format.md, "TOPOLOGY").
 */
#include <errno.h>

#include "record_format.h"

int rec_encode_topology(struct rec_buf *b, const struct schedstat_topology *topo)
{
	int nr = schedstat_topology_nr_clusters(topo);

	rec_put_uvar(b, schedstat_topology_origin(topo));
	rec_put_uvar(b, nr);
	for (int k = 0; k < nr; k++) {
		char list[SCHEDSTAT_CPULIST_LEN * 8];
		struct cpuset set = {};
		unsigned int fmin = 0, fmax = 0;
		int err;

		err = schedstat_topology_cluster_cpulist(topo, k, list, sizeof(list));
		if (!err)
			err = cpulist_parse(list, &set);
		if (err)
			return err;
		schedstat_topology_cluster_freq(topo, k, &fmin, &fmax);
		rec_put_str(b, schedstat_topology_cluster_name(topo, k));
		rec_put_str(b, list);
		rec_put_svar(b, schedstat_topology_cluster_policy(topo, k));
		rec_put_uvar(b, fmin);
		rec_put_uvar(b, fmax);
		for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)
			if (cpuset_test(&set, cpu))
				rec_put_uvar(b, schedstat_topology_cpu_capacity(topo, cpu));
	}
	return b->err;
}

int rec_decode_topology(struct rec_cur *c, struct schedstat_topology **out)
{
	unsigned int caps[SCHEDSTAT_MAX_CPUS];
	enum schedstat_topology_origin origin = rec_get_uvar(c);
	struct schedstat_topology *topo;
	size_t nr;
	int err = 0;

	*out = NULL;
	/* A cluster takes at least six bytes. */
	nr = rec_get_count(c, 6);
	if (c->err || !nr || nr > SCHEDSTAT_MAX_CPUS)
		return -EBADMSG;
	topo = topology_new(origin);
	if (!topo)
		return -ENOMEM;
	for (size_t k = 0; k < nr && !err; k++) {
		char name[SCHEDSTAT_NAME_LEN], list[SCHEDSTAT_CPULIST_LEN * 8];
		struct cpuset set = {};
		unsigned int fmin, fmax;
		int policy, n = 0;

		rec_get_str(c, name, sizeof(name));
		rec_get_str(c, list, sizeof(list));
		policy = rec_get_svar(c);
		fmin = rec_get_uvar(c);
		fmax = rec_get_uvar(c);
		if (c->err || cpulist_parse(list, &set)) {
			err = -EBADMSG;
			break;
		}
		for (int cpu = 0; cpu < SCHEDSTAT_MAX_CPUS; cpu++)
			if (cpuset_test(&set, cpu))
				caps[n++] = rec_get_uvar(c);
		err = c->err ? c->err : topology_add_cluster(topo, name, &set, caps,
							     policy, fmin, fmax);
	}
	if (err) {
		schedstat_topology_free(topo);
		return err == -ENOMEM ? err : -EBADMSG;
	}
	topology_seal(topo);
	*out = topo;
	return 0;
}
