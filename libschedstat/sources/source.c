// SPDX-License-Identifier: GPL-2.0
/* What every live source does alike (source.h). */
#include "source.h"

int source_topology(const struct schedstat_session_opts *opts,
		    struct schedstat_topology **topo)
{
	if (opts->topology)
		return schedstat_topology_parse(topo, opts->topology, opts->sysfs_root);
	return schedstat_topology_detect(topo, opts->sysfs_root);
}
