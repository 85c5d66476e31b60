// SPDX-License-Identifier: GPL-2.0
/*
 * rt-app's per-thread log files, as Debian's rt-app 1.0 writes them (its
 * src/rt-app.c and rt-app_utils.c), so that what reads rt-app's logs
 * (LISA's rt-app analysis, its gnuplot scripts) reads schedtop's:
 *
 *   LOGDIR/LOG_BASENAME-TASK-INDEX.log
 *   # Policy : SCHED_OTHER priority : 0
 *   #idx     perf      run   period           start             end          rel_st      slack c_duration   c_period     wu_lat
 *      0   100000     1076     1090      3233597933      3233599023            1479          0       1000          0          0
 *
 * One line per pass over a phase: the work loops of its runs, the µs
 * spent in them, the pass's µs, its start and end (CLOCK_MONOTONIC µs),
 * its start from the use case's, the slack before its last timer, the
 * µs of runs and of timer periods the file asks, and the µs its timers
 * woke it late. rt-app writes a pass's line from the thread itself; here
 * the sampler writes them as it takes the passes (a workload thread never
 * waits for a file).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "workload_run.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif

int wl_log_open(struct schedstat_workload_run *r, char *err, size_t errlen)
{
	const struct schedstat_workload *wl = r->wl;

	for (size_t i = 0; i < r->nr_threads; i++) {
		struct wl_thread *t = &r->threads[i];
		const struct wl_task *task = &wl->tasks[wl->thread_task[i]];
		int policy = task->sched.policy != WL_UNSET ? task->sched.policy :
			     wl->default_policy;
		char path[PATH_MAX];
		int n;

		n = snprintf(path, sizeof(path), "%s/%s-%s-%zu.log", r->o.log_dir,
			     wl->log_basename, task->name, i);
		if (n < 0 || (size_t)n >= sizeof(path)) {
			snprintf(err, errlen, "--rt-app-log %s: a path too long for %s",
				 r->o.log_dir, task->name);
			return -ENAMETOOLONG;
		}
		t->log = fopen(path, "we");
		if (!t->log) {
			int ret = -errno;

			snprintf(err, errlen, "--rt-app-log: cannot write %s: %s", path,
				 strerror(-ret));
			return ret;
		}
		if (policy == SCHED_DEADLINE)
			fprintf(t->log, "# Policy : SCHED_DEADLINE\n");
		else
			fprintf(t->log, "# Policy : %s priority : %d\n", wl_policy_name(policy),
				task->sched.prio != WL_UNSET ? task->sched.prio :
				policy == SCHED_FIFO || policy == SCHED_RR ? WL_DEFAULT_RT_PRIO : 0);
		fprintf(t->log, "%s %8s %8s %8s %15s %15s %15s %10s %10s %10s %10s\n",
			"#idx", "perf", "run", "period", "start", "end", "rel_st", "slack",
			"c_duration", "c_period", "wu_lat");
	}
	return 0;
}

void wl_log_pass(struct wl_thread *t, const struct schedstat_workload_activation *a)
{
	uint64_t start = atomic_load(&t->run->start_ns);
	/* µs rounded down, as rt-app's timespec arithmetic does for a negative one. */
	int64_t slack = a->slack_ns >= 0 ? a->slack_ns / 1000 : -((-a->slack_ns + 999) / 1000);

	if (!t->log || !a->pass_end)
		return;
	fprintf(t->log, "%4u %8llu %8llu %8llu %15llu %15llu %15llu %10lld %10llu %10llu %10llu\n",
		t->idx, (unsigned long long)a->perf,
		(unsigned long long)(a->run_ns / 1000),
		(unsigned long long)((a->pass_end - a->pass_start) / 1000),
		(unsigned long long)(a->pass_start / 1000),
		(unsigned long long)(a->pass_end / 1000),
		(unsigned long long)(a->pass_start > start ? (a->pass_start - start) / 1000 : 0),
		(long long)slack, (unsigned long long)a->c_duration_us,
		(unsigned long long)a->c_period_us,
		(unsigned long long)(a->wu_lat_ns / 1000));
}

int wl_log_close(struct schedstat_workload_run *r)
{
	int ret = 0;

	for (size_t i = 0; r->threads && i < r->nr_threads; i++)
		if (r->threads[i].log) {
			if ((ferror(r->threads[i].log) | fclose(r->threads[i].log)) && !ret)
				ret = errno ? -errno : -EIO;
			r->threads[i].log = NULL;
		}
	return ret;
}

int schedstat_workload_close_logs(struct schedstat_workload_run *r)
{
	return wl_log_close(r);
}
