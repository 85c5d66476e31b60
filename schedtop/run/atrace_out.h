/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --atrace on the live view, csv and record: each sample's counters into
 * trace_marker (docs/perfetto.md, "Live counters"). The tasks of -p and -c,
 * every CPU and cluster.
 */
#ifndef SCHEDTOP_ATRACE_OUT_H
#define SCHEDTOP_ATRACE_OUT_H

#include <stdbool.h>

#include "cli.h"
#include "schedstat.h"

struct atrace_out {
	struct schedstat_atrace *a;
	struct schedstat_trace_counter *counters;
	const struct cli_pelt_args *sel;
	int err;		/* the first failed write, said at the end */
};

/*
 * Opens trace_marker if @sel->atrace; 0, or -1 after one line saying why
 * it cannot be written (missing tracefs, no permission).
 */
int atrace_out_open(struct atrace_out *o, const struct cli_pelt_args *sel);
/* One sample's lines; a failed write is remembered, not fatal. */
void atrace_out_sample(struct atrace_out *o, const struct schedstat_snapshot *snap);
/* Says once if writes failed; safe when never opened. */
void atrace_out_close(struct atrace_out *o);

#endif /* SCHEDTOP_ATRACE_OUT_H */
