// SPDX-License-Identifier: GPL-2.0
/*
 * pelt_age: the BPF source sampled by a reader that has been busy for a
 * while since it woke, as a front end that drains events or draws before
 * it samples is (pelt_pair drains a tracefs session first).
 *
 *   pelt_age TOPOLOGY PID SAMPLES BUSY_MS
 *
 * Every 20 ms: wake, spin BUSY_MS of CLOCK_MONOTONIC in user space (the
 * reading CPU's rq clock is then as old as its last tick), sample, and
 * print for task PID:
 *   ts_ns,state,pelt_age_ns
 * The test knows when PID went to sleep: its age must be the time since.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "schedstat.h"

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct schedstat_session_opts o = { .sz = sizeof(o) };
	const struct timespec pause = { 0, 20000000L };
	struct schedstat_session *s = NULL;
	long pid, samples, busy_ns;
	int err, ret = 1;

	if (argc != 5) {
		fprintf(stderr, "usage: pelt_age TOPOLOGY PID SAMPLES BUSY_MS\n");
		return 2;
	}
	o.topology = argv[1];
	o.source = SCHEDSTAT_SOURCE_BPF;
	pid = atol(argv[2]);
	samples = atol(argv[3]);
	busy_ns = atol(argv[4]) * 1000000L;
	err = schedstat_session_open(&s, &o);
	if (err) {
		fprintf(stderr, "pelt_age: %s\n", schedstat_strerror(err));
		return 1;
	}
	for (long i = 0; i < samples; i++) {
		struct schedstat_snapshot *snap = NULL;
		const struct schedstat_task *t;
		uint64_t until;
		size_t n;

		nanosleep(&pause, NULL);
		until = mono() + busy_ns;
		while (mono() < until)
			;
		err = schedstat_session_sample(s, &snap);
		if (err) {
			fprintf(stderr, "pelt_age: sample: %s\n", schedstat_strerror(err));
			goto cleanup;
		}
		t = schedstat_snapshot_tasks(snap, &n);
		for (size_t j = 0; j < n; j++)
			if (t[j].pid == pid)
				printf("%llu,%c,%llu\n",
				       (unsigned long long)schedstat_snapshot_ts_ns(snap),
				       t[j].state,
				       (unsigned long long)t[j].pelt_age_ns);
		fflush(stdout);
		schedstat_snapshot_free(snap);
	}
	ret = 0;
cleanup:
	schedstat_session_close(s);
	return ret;
}
