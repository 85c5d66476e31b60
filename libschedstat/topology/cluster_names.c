// SPDX-License-Identifier: GPL-2.0
/* Detected clusters' names: LITTLE, mid, big, prime by capacity rank. */
#include <stdio.h>
#include <string.h>

#include "topology.h"

/*
 * Levels and clusters number fewer than SCHEDSTAT_MAX_CPUS; saying so lets
 * -Wformat-truncation see that the names fit.
 */
static unsigned int short_number(int v)
{
	return (unsigned int)v % SCHEDSTAT_MAX_CPUS;
}

/* Name of capacity level @level of @nr_levels (>= 2), smallest first. */
static void level_name(int level, int nr_levels, char *buf, size_t size)
{
	if (level == 0)
		snprintf(buf, size, "LITTLE");
	else if (level == nr_levels - 1)
		snprintf(buf, size, nr_levels == 2 ? "big" : "prime");
	else if (level == nr_levels - 2)
		snprintf(buf, size, "big");
	else if (nr_levels == 4)
		snprintf(buf, size, "mid");
	else
		snprintf(buf, size, "mid%u", short_number(level - 1));
}

/*
 * Names by capacity rank. Clusters that share a capacity (several cpufreq
 * policies of one core type) share a base name and get a digit each.
 */
void topo_name_clusters(struct schedstat_topology *topo)
{
	int n = topo->nr_clusters, nr_levels = 1;

	if (n == 1) {
		snprintf(topo->clusters[0].name, SCHEDSTAT_NAME_LEN, "all");
		return;
	}
	for (int k = 1; k < n; k++)
		if (topo->clusters[k].capacity != topo->clusters[k - 1].capacity)
			nr_levels++;
	if (nr_levels == 1) {
		for (int k = 0; k < n; k++)
			snprintf(topo->clusters[k].name, SCHEDSTAT_NAME_LEN,
				 "cluster%u", short_number(k));
		return;
	}
	for (int k = 0, level = 0; k < n; level++) {
		unsigned int cap = topo->clusters[k].capacity;
		int end = k, len;
		char base[8];	/* "mid1022" at most */

		while (end < n && topo->clusters[end].capacity == cap)
			end++;
		level_name(level, nr_levels, base, sizeof(base));
		len = strlen(base);
		for (int i = k; i < end; i++) {
			struct cluster *c = &topo->clusters[i];
			unsigned int nth = short_number(i - k);

			if (end - k == 1)
				snprintf(c->name, sizeof(c->name), "%s", base);
			/* "mid1" + "0" would read as level ten: separate it. */
			else if (base[len - 1] >= '0' && base[len - 1] <= '9')
				snprintf(c->name, sizeof(c->name), "%s.%u", base, nth);
			else
				snprintf(c->name, sizeof(c->name), "%s%u", base, nth);
		}
		k = end;
	}
}
