// SPDX-License-Identifier: GPL-2.0
/*
 * The values of a snapshot that follow from its other fields and the
 * interval: %CPU of each task, migrations per second. Recordings do not
 * store them; whoever rebuilds a snapshot calls this again.
 */
#include "model_local.h"

void model_fill_derived(struct schedstat_snapshot *s)
{
	for (size_t i = 0; i < s->nr_tasks && s->interval_ns; i++)
		s->tasks[i].cpu_pct = 100.0 * s->tasks[i].run_ns / s->interval_ns;
	for (size_t i = 0; i < s->nr_migrations && s->interval_ns; i++)
		s->migrations[i].per_sec = s->migrations[i].count * 1e9 / s->interval_ns;
}
