// SPDX-License-Identifier: GPL-2.0
/*
 * pelt_pair: one process, two sessions on the same live kernel — BPF (the
 * kernel's own PELT values) and tracefs (schedtop's engine) — sampled back
 * to back, so tests/integration/test_tracefs.py can compare per-task
 * util_avg at (nearly) the same instant.
 *
 *   pelt_pair INTERVAL_MS SAMPLES TOPOLOGY COMM...
 *
 * SAMPLES 0: until SIGINT or SIGTERM.
 * Prints, after "ready" on stderr once both sessions are open, one CSV row
 * per sample and task whose comm is listed:
 *   trace_ts,bpf_ts,pid,comm,bpf_state,bpf_running,bpf_util,bpf_age_ns,
 *   trace_state,trace_running,trace_util,trace_run_ns,bpf_run_ns
 * (the run_ns: each session's time on a CPU since its last sample; the
 * BPF one is the kernel's task clock, which skips time the hypervisor
 * stole, as PELT's clock does; the trace's is wall time)
 * and at the end, on stderr, one line per CPU the tracefs session saw:
 *   dropped CPU RECORDS
 * the records its instance lost there (overwritten or refused), which the
 * engine never saw: a round with some cannot judge the engine.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schedstat.h"

#define MAX_CPUS	64

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static const struct schedstat_task *find(const struct schedstat_task *t,
					 size_t n, int32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].pid == pid)
			return &t[i];
	return NULL;
}

static bool wanted(const char *comm, char **comms, int nr)
{
	for (int i = 0; i < nr; i++)
		if (!strcmp(comm, comms[i]))
			return true;
	return false;
}

static int open_one(struct schedstat_session **s, enum schedstat_source src,
		    const char *topo)
{
	struct schedstat_session_opts o = {
		.sz = sizeof(o), .topology = topo, .source = src,
		.exact_wakeups = false,
	};
	int err = schedstat_session_open(s, &o);

	if (err)
		fprintf(stderr, "pelt_pair: %s: %s\n",
			src == SCHEDSTAT_SOURCE_BPF ? "bpf" : "tracefs",
			schedstat_strerror(err));
	return err;
}

int main(int argc, char **argv)
{
	struct schedstat_session *bpf = NULL, *tr = NULL;
	uint64_t dropped[MAX_CPUS] = { 0 };
	struct timespec ts;
	long interval_ms, samples;
	size_t nr_cpus = 0;
	int ret = 1;

	if (argc < 5) {
		fprintf(stderr, "usage: pelt_pair INTERVAL_MS SAMPLES TOPOLOGY COMM...\n");
		return 2;
	}
	interval_ms = atol(argv[1]);
	samples = atol(argv[2]);
	if (open_one(&tr, SCHEDSTAT_SOURCE_TRACEFS, argv[3]) ||
	    open_one(&bpf, SCHEDSTAT_SOURCE_BPF, argv[3]))
		goto cleanup;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "ready\n");
	ts.tv_sec = interval_ms / 1000;
	ts.tv_nsec = (interval_ms % 1000) * 1000000L;
	for (long i = 0; !stop && (!samples || i < samples); i++) {
		struct schedstat_snapshot *a = NULL, *b = NULL;
		const struct schedstat_task *ta, *tb;
		const struct schedstat_cpu *ca;
		size_t na, nb, nc;
		int err;

		if (nanosleep(&ts, NULL) && stop)
			break;
		/*
		 * tracefs first: its engine cannot be asked about the past.
		 * Drained just before, its sample reads little, so the BPF
		 * one follows closely.
		 */
		err = schedstat_session_poll(tr);
		if (err >= 0)
			err = schedstat_session_sample(tr, &a);
		if (!err)
			err = schedstat_session_sample(bpf, &b);
		if (err) {
			fprintf(stderr, "pelt_pair: sample: %s\n", schedstat_strerror(err));
			schedstat_snapshot_free(a);
			goto cleanup;
		}
		ta = schedstat_snapshot_tasks(a, &na);
		tb = schedstat_snapshot_tasks(b, &nb);
		ca = schedstat_snapshot_cpus(a, &nc);
		for (size_t j = 0; j < nc; j++) {
			size_t c = (size_t)ca[j].cpu;

			if (ca[j].cpu < 0 || c >= MAX_CPUS)
				continue;
			dropped[c] += ca[j].dropped;
			if (c + 1 > nr_cpus)
				nr_cpus = c + 1;
		}
		for (size_t j = 0; j < nb; j++) {
			const struct schedstat_task *x = &tb[j], *y;

			if (!wanted(x->comm, argv + 4, argc - 4) || x->exited)
				continue;
			y = find(ta, na, x->pid);
			if (!y)
				continue;
			printf("%llu,%llu,%d,%s,%c,%d,%u,%llu,%c,%d,%u,%llu,%llu\n",
			       (unsigned long long)schedstat_snapshot_ts_ns(a),
			       (unsigned long long)schedstat_snapshot_ts_ns(b),
			       x->pid, x->comm, x->state, x->running, x->util_avg,
			       (unsigned long long)x->pelt_age_ns, y->state,
			       y->running, y->util_avg,
			       (unsigned long long)y->run_ns,
			       (unsigned long long)x->run_ns);
		}
		fflush(stdout);
		schedstat_snapshot_free(a);
		schedstat_snapshot_free(b);
	}
	for (size_t c = 0; c < nr_cpus; c++)
		fprintf(stderr, "dropped %zu %llu\n", c,
			(unsigned long long)dropped[c]);
	ret = 0;
cleanup:
	schedstat_session_close(bpf);
	schedstat_session_close(tr);
	return ret;
}
