/* SPDX-License-Identifier: GPL-2.0 */
/* The columns that become counters in traces (convert --perfetto, --atrace). */
#ifndef SCHEDTOP_TRACE_COUNTERS_H
#define SCHEDTOP_TRACE_COUNTERS_H

#include <stddef.h>

#include "schedstat.h"

#include <stdbool.h>

/*
 * Every traced counter, task then CPU then cluster ones (free the array);
 * with @stats, also the tasks' activity (cpu_pct, wait_ns, cpu, misfit).
 */
int trace_counters(struct schedstat_trace_counter **out, size_t *nr, bool stats);
/* The counter's column description. */
const char *trace_counter_desc(const struct schedstat_trace_counter *c);

#endif /* SCHEDTOP_TRACE_COUNTERS_H */
