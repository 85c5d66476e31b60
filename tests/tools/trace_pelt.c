// SPDX-License-Identifier: GPL-2.0
/*
 * trace_pelt: schedtop's PELT for every task of a trace-cmd file, sampled
 * finely in trace time, so that tests/integration/test_trace_pelt.py can
 * set it beside the util_avg that the trace's own kernel printed.
 *
 *   trace_pelt TRACE.dat TOPOLOGY SCHEME INTERVAL_US
 *
 * SCHEME: auto, 4.x or 5.0. Prints one line per sample and task:
 *   ts_ns,pid,util_avg,pelt_estimated
 * and on stderr "scheme=N release=R" (N as enum schedstat_pelt_scheme).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedstat.h"

int main(int argc, char **argv)
{
	struct schedstat_session_opts o = { .sz = sizeof(o) };
	struct schedstat_session *s = NULL;
	struct schedstat_pelt_info info;
	int err;

	if (argc != 5) {
		fprintf(stderr, "usage: trace_pelt TRACE TOPOLOGY auto|4.x|5.0 INTERVAL_US\n");
		return 2;
	}
	o.trace_file = argv[1];
	o.topology = argv[2];
	if (!strcmp(argv[3], "4.x"))
		o.pelt_scheme = SCHEDSTAT_PELT_SCALED_CONTRIB;
	else if (!strcmp(argv[3], "5.0"))
		o.pelt_scheme = SCHEDSTAT_PELT_SCALED_CLOCK;
	o.trace_interval_ns = strtoull(argv[4], NULL, 10) * 1000ULL;
	err = schedstat_session_open(&s, &o);
	if (err) {
		fprintf(stderr, "trace_pelt: %s\n", schedstat_strerror(err));
		return 1;
	}
	if (!schedstat_session_pelt_info(s, &info))
		fprintf(stderr, "scheme=%d release=%s\n", info.scheme, info.release);
	for (;;) {
		struct schedstat_snapshot *snap;
		const struct schedstat_task *t;
		size_t n;

		err = schedstat_session_sample(s, &snap);
		if (err)
			break;
		t = schedstat_snapshot_tasks(snap, &n);
		for (size_t i = 0; i < n; i++)
			printf("%llu,%d,%u,%d\n",
			       (unsigned long long)schedstat_snapshot_ts_ns(snap),
			       t[i].pid, (unsigned int)t[i].util_avg,
			       t[i].pelt_estimated);
		schedstat_snapshot_free(snap);
	}
	schedstat_session_close(s);
	if (err != -ENODATA) {
		fprintf(stderr, "trace_pelt: %s\n", schedstat_strerror(err));
		return 1;
	}
	return 0;
}
