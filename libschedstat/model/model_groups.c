// SPDX-License-Identifier: GPL-2.0
/* Group entities (cgroups, autogroups): copied, given a cluster, sorted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_local.h"

static int cmp_group(const void *a, const void *b)
{
	const struct schedstat_group *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (x->cgroup_id != y->cgroup_id)
		return x->cgroup_id < y->cgroup_id ? -1 : 1;
	return x->cpu - y->cpu;
}

int model_fill_groups(struct model *m, const struct model_input *in,
		      struct schedstat_snapshot *s)
{
	if (!in->nr_groups)
		return 0;
	s->groups = malloc(in->nr_groups * sizeof(*s->groups));
	if (!s->groups)
		return -ENOMEM;
	memcpy(s->groups, in->groups, in->nr_groups * sizeof(*s->groups));
	s->nr_groups = in->nr_groups;
	for (size_t i = 0; i < s->nr_groups; i++) {
		int c = schedstat_topology_cpu_cluster(m->topo, s->groups[i].cpu);

		s->groups[i].cluster = c < 0 ? -1 : c;
	}
	qsort(s->groups, s->nr_groups, sizeof(*s->groups), cmp_group);
	return 0;
}
