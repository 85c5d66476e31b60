// SPDX-License-Identifier: GPL-2.0
/*
 * pelt_pair: schedtop's PELT engine (a tracefs session) beside the
 * kernel's own PELT state of the same tasks, read from /proc just before
 * and just after each of the engine's samples, so that
 * tests/integration/test_tracefs.py can hold the engine to the kernel
 * (tests/integration/pelt_truth.py decays the kernel's raw values to the
 * sample's instant; nothing of schedtop's computes the truth).
 *
 *   pelt_pair INTERVAL_MS SAMPLES TOPOLOGY COMM...
 *
 * SAMPLES 0: until SIGINT or SIGTERM.
 * Prints, after "ready" on stderr once the session is open, one CSV row
 * per sample and task whose comm is listed (and that was seen before):
 *   trace_ts,pid,comm,cpu,trace_state,trace_running,trace_util,trace_run_ns,
 * then twice, for the kernel's read before and after the sample:
 *   start_ns,end_ns,state,cpu,util_avg,util_sum,last_update_time,
 *   nr_switches,sum_exec_ns
 * (/proc/PID/stat's state and CPU, /proc/PID/sched's se.avg.util_avg,
 * se.avg.util_sum, se.avg.last_update_time, nr_switches and
 * se.sum_exec_runtime in ns: the kernel's task clock, which skips time
 * the hypervisor stole, as PELT's clock does; the trace's run_ns is wall
 * time; start_ns and end_ns bracket the read on CLOCK_MONOTONIC, the
 * clock of trace_ts), and at the end, on stderr, one line per CPU the
 * session saw:
 *   dropped CPU RECORDS
 * the records its instance lost there (overwritten or refused), which the
 * engine never saw: a round with some cannot judge the engine.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <stdint.h>

#include "schedstat.h"

#define MAX_CPUS	64
#define MAX_TASKS	64

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static bool wanted(const char *comm, char **comms, int nr)
{
	for (int i = 0; i < nr; i++)
		if (!strcmp(comm, comms[i]))
			return true;
	return false;
}

/* One read of the kernel's own state of a task (see the head comment). */
struct kread {
	uint64_t start, end;
	char state;
	int cpu;
	long long util_avg, util_sum, lut, nr_switches, exec_ns;
	bool ok;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* "name : 123" or "name : 12.345678" (ms, as ns) of /proc/PID/sched. */
static bool field(const char *line, const char *name, long long *v)
{
	size_t n = strlen(name);
	const char *p;
	char *end;

	if (strncmp(line, name, n) || (line[n] != ' ' && line[n] != ':'))
		return false;
	p = strchr(line, ':');
	if (!p)
		return false;
	*v = strtoll(p + 1, &end, 10);
	if (*end == '.') {
		long long frac = 0;
		int digits = 0;

		for (end++; *end >= '0' && *end <= '9' && digits < 6; end++, digits++)
			frac = frac * 10 + (*end - '0');
		for (; digits < 6; digits++)
			frac *= 10;
		*v = *v * 1000000 + frac;
	}
	return true;
}

static void read_kernel(int32_t pid, struct kread *k)
{
	char path[64], line[256], stat[1024];
	FILE *f;
	char *rp;
	int n = 0;

	memset(k, 0, sizeof(*k));
	k->start = mono_ns();
	snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		n += field(line, "se.avg.util_avg", &k->util_avg) +
		     field(line, "se.avg.util_sum", &k->util_sum) +
		     field(line, "se.avg.last_update_time", &k->lut) +
		     field(line, "nr_switches", &k->nr_switches) +
		     field(line, "se.sum_exec_runtime", &k->exec_ns);
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(stat, sizeof(stat), f) && (rp = strrchr(stat, ')'))) {
		/* state is field 3, the CPU field 39: 36 fields after it. */
		char *tok = strtok(rp + 2, " ");

		k->state = tok ? tok[0] : '?';
		for (int i = 0; tok && i < 36; i++)
			tok = strtok(NULL, " ");
		k->cpu = tok ? atoi(tok) : -1;
		k->ok = n == 5 && tok;
	}
	fclose(f);
	k->end = mono_ns();
}

static void print_kread(const struct kread *k)
{
	printf(",%llu,%llu,%c,%d,%lld,%lld,%lld,%lld,%lld",
	       (unsigned long long)k->start, (unsigned long long)k->end,
	       k->state, k->cpu, k->util_avg, k->util_sum, k->lut,
	       k->nr_switches, k->exec_ns);
}

int main(int argc, char **argv)
{
	struct schedstat_session_opts o = { .sz = sizeof(o), .exact_wakeups = false };
	struct schedstat_session *tr = NULL;
	uint64_t dropped[MAX_CPUS] = { 0 };
	static struct kread before[MAX_TASKS], after;
	int32_t pids[MAX_TASKS];
	size_t nr_pids = 0;
	struct timespec ts;
	long interval_ms, samples;
	size_t nr_cpus = 0;
	int ret = 1, err;

	if (argc < 5) {
		fprintf(stderr, "usage: pelt_pair INTERVAL_MS SAMPLES TOPOLOGY COMM...\n");
		return 2;
	}
	interval_ms = atol(argv[1]);
	samples = atol(argv[2]);
	o.topology = argv[3];
	o.source = SCHEDSTAT_SOURCE_TRACEFS;
	err = schedstat_session_open(&tr, &o);
	if (err) {
		fprintf(stderr, "pelt_pair: tracefs: %s\n", schedstat_strerror(err));
		goto cleanup;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "ready\n");
	ts.tv_sec = interval_ms / 1000;
	ts.tv_nsec = (interval_ms % 1000) * 1000000L;
	for (long i = 0; !stop && (!samples || i < samples); i++) {
		struct schedstat_snapshot *a = NULL;
		const struct schedstat_task *ta;
		const struct schedstat_cpu *ca;
		size_t na, nc, seen = 0;
		int32_t now_pids[MAX_TASKS];

		if (nanosleep(&ts, NULL) && stop)
			break;
		/* The kernel's read before, of the tasks the last sample had. */
		for (size_t j = 0; j < nr_pids; j++)
			read_kernel(pids[j], &before[j]);
		err = schedstat_session_poll(tr);
		if (err >= 0)
			err = schedstat_session_sample(tr, &a);
		if (err) {
			fprintf(stderr, "pelt_pair: sample: %s\n", schedstat_strerror(err));
			goto cleanup;
		}
		ta = schedstat_snapshot_tasks(a, &na);
		ca = schedstat_snapshot_cpus(a, &nc);
		for (size_t j = 0; j < nc; j++) {
			size_t c = (size_t)ca[j].cpu;

			if (ca[j].cpu < 0 || c >= MAX_CPUS)
				continue;
			dropped[c] += ca[j].dropped;
			if (c + 1 > nr_cpus)
				nr_cpus = c + 1;
		}
		for (size_t j = 0; j < na; j++) {
			const struct schedstat_task *y = &ta[j];
			size_t b;

			if (!wanted(y->comm, argv + 4, argc - 4) || y->exited)
				continue;
			if (seen < MAX_TASKS)
				now_pids[seen++] = y->pid;
			for (b = 0; b < nr_pids && pids[b] != y->pid; b++)
				;
			if (b == nr_pids || !before[b].ok)
				continue;
			read_kernel(y->pid, &after);
			if (!after.ok)
				continue;
			printf("%llu,%d,%s,%d,%c,%d,%u,%llu",
			       (unsigned long long)schedstat_snapshot_ts_ns(a),
			       y->pid, y->comm, y->cpu, y->state, y->running,
			       y->util_avg, (unsigned long long)y->run_ns);
			print_kread(&before[b]);
			print_kread(&after);
			printf("\n");
		}
		memcpy(pids, now_pids, seen * sizeof(pids[0]));
		nr_pids = seen;
		fflush(stdout);
		schedstat_snapshot_free(a);
	}
	for (size_t c = 0; c < nr_cpus; c++)
		fprintf(stderr, "dropped %zu %llu\n", c,
			(unsigned long long)dropped[c]);
	ret = 0;
cleanup:
	schedstat_session_close(tr);
	return ret;
}
