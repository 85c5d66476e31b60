// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atrace_out.h"
#include "trace_counters.h"

/* The tasks -p (pid or tgid) and -c select, both when both are given. */
static bool want_task(const struct schedstat_task *t, void *ctx)
{
	const struct cli_pelt_args *sel = ctx;

	if (!sel->pids && !sel->comm)
		return false;
	if (sel->comm && strcmp(sel->comm, t->comm))
		return false;
	return !sel->pids || pid_list_has(sel->pids, sel->nr_pids, t->pid) ||
	       pid_list_has(sel->pids, sel->nr_pids, t->tgid);
}

int atrace_out_open(struct atrace_out *o, const struct cli_pelt_args *sel)
{
	struct schedstat_atrace_opts opts = {
		.sz = sizeof(opts), .want_task = want_task,
		.ctx = (void *)sel,
	};
	int err;

	memset(o, 0, sizeof(*o));
	if (!sel->atrace)
		return 0;
	o->sel = sel;
	err = trace_counters(&o->counters, &opts.nr_counters, true);
	opts.counters = o->counters;
	if (!err)
		err = schedstat_atrace_open(&o->a, &opts);
	if (!err)
		return 0;
	if (err == -ENOENT)
		cli_error("--atrace: %s is missing: mount tracefs there "
			  "(mount -t tracefs nodev /sys/kernel/tracing)",
			  schedstat_atrace_path(o->a));
	else if (err == -EACCES || err == -EPERM || err == -EROFS)
		cli_error("--atrace: cannot write %s: %s (run as root, or as a user "
			  "tracefs lets write it)", schedstat_atrace_path(o->a),
			  strerror(-err));
	else
		cli_error("--atrace: %s: %s", schedstat_atrace_path(o->a),
			  schedstat_strerror(err));
	atrace_out_close(o);
	return -1;
}

void atrace_out_sample(struct atrace_out *o, const struct schedstat_snapshot *snap)
{
	int err;

	if (!o->a)
		return;
	err = schedstat_atrace_sample(o->a, snap);
	if (err && !o->err)
		o->err = err;
}

void atrace_out_close(struct atrace_out *o)
{
	if (o->a && o->err) {
		struct schedstat_atrace_stats st;

		schedstat_atrace_stats(o->a, &st);
		cli_error("--atrace: writing %s: %s; %" PRIu64 " of %" PRIu64
			  " counter lines lost", schedstat_atrace_path(o->a),
			  schedstat_strerror(o->err), st.nr_failed,
			  st.nr_failed + st.nr_lines);
	}
	schedstat_atrace_close(o->a);
	free(o->counters);
	o->a = NULL;
	o->counters = NULL;
}
