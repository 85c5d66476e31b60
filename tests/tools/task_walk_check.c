// SPDX-License-Identifier: GPL-2.0
/*
 * task_walk_check: the task table's records held to the iterator's walk,
 * the way every task was read before the table (and still is on kernels
 * before 6.4), in one BPF source at the same moments.
 *
 *   task_walk_check SAMPLES INTERVAL_MS
 *
 * Every interval: walk every task, take a sample (the table's scan: only
 * the changed records reach the model, which keeps each task's latest),
 * walk again. A task whose record is the same in both walks did not change
 * while the sample was taken, so the record the model holds for it must be
 * that one, byte for byte; a task in neither walk must not be held. Prints
 *   compared=N changed_asleep=N moved=N mismatched=N missing=N extra=N
 * (changed_asleep: compared tasks whose record changed since the last
 * check while their run time did not, a renice or a rename of a sleeping
 * thread) and each failure on stderr. Exit 77 where the source walks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpf_source.h"
#include "model_local.h"
#include "source.h"

struct walk {
	struct st_task_rec *recs;
	size_t nr, cap;
};

static int by_pid(const void *a, const void *b)
{
	const struct st_task_rec *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static const struct st_task_rec *find(const struct walk *w, int32_t pid)
{
	struct st_task_rec key = { .pid = pid };

	return w->nr ? bsearch(&key, w->recs, w->nr, sizeof(key), by_pid) : NULL;
}

/* Every task's record now, by pid. */
static int walk(struct bpfsrc *s, struct walk *w)
{
	size_t nr;
	int err = bpfsrc_tasks_walk(s, &nr);

	if (err)
		return err;
	if (schedstat_array_reserve((void **)&w->recs, &w->cap, nr ? nr : 1,
				    sizeof(*w->recs)))
		return -ENOMEM;
	memcpy(w->recs, s->recs, nr * sizeof(*w->recs));
	w->nr = nr;
	qsort(w->recs, nr, sizeof(*w->recs), by_pid);
	return 0;
}

static const struct model_task *held(const struct model *m, int32_t pid)
{
	uint64_t idx;

	if (schedstat_hash_get(m->by_pid, (uint32_t)pid, &idx) ||
	    idx >= m->nr_tasks || !m->tasks[idx].live)
		return NULL;
	return &m->tasks[idx];
}

static void say(const char *what, const struct st_task_rec *want,
		const struct st_task_rec *got)
{
	fprintf(stderr, "%s: pid %d '%.16s'", what, want->pid, want->comm);
	if (got)
		fprintf(stderr, " held '%.16s' prio %d/%d state %u/%u "
			"sum_exec %llu/%llu lut %llu/%llu load %llu/%llu "
			"util %u/%u cpus %u/%u run_delay %llu/%llu nvcsw %lu/%lu",
			got->comm, got->prio, want->prio, got->state, want->state,
			(unsigned long long)got->sum_exec_runtime,
			(unsigned long long)want->sum_exec_runtime,
			(unsigned long long)got->last_update_time,
			(unsigned long long)want->last_update_time,
			(unsigned long long)got->load_avg,
			(unsigned long long)want->load_avg,
			got->util_avg, want->util_avg,
			got->nr_cpus_allowed, want->nr_cpus_allowed,
			(unsigned long long)got->run_delay,
			(unsigned long long)want->run_delay,
			(unsigned long)got->nvcsw, (unsigned long)want->nvcsw);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	struct schedstat_session_opts o = { .sz = sizeof(o) };
	struct walk w1 = { 0 }, w2 = { 0 }, last = { 0 }, tmp;
	unsigned long compared = 0, changed_asleep = 0, moved = 0;
	unsigned long mismatched = 0, missing = 0, extra = 0;
	struct timespec pause;
	struct bpfsrc *s = NULL;
	void *src = NULL;
	long samples;
	int err, ret = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: task_walk_check SAMPLES INTERVAL_MS\n");
		return 2;
	}
	samples = atol(argv[1]);
	pause.tv_sec = atol(argv[2]) / 1000;
	pause.tv_nsec = atol(argv[2]) % 1000 * 1000000L;
	o.source = SCHEDSTAT_SOURCE_BPF;
	err = bpfsrc_ops.open(&src, &o);
	if (err) {
		fprintf(stderr, "task_walk_check: %s\n", schedstat_strerror(err));
		return 1;
	}
	s = src;
	if (!s->task_table) {
		printf("the source walks: no task table on this kernel\n");
		ret = 77;
		goto cleanup;
	}
	for (long i = 0; i < samples; i++) {
		struct schedstat_snapshot *snap = NULL;

		nanosleep(&pause, NULL);
		err = walk(s, &w1);
		if (!err)
			err = bpfsrc_ops.sample(s, &snap);
		schedstat_snapshot_free(snap);
		if (!err)
			err = walk(s, &w2);
		if (err) {
			fprintf(stderr, "task_walk_check: %s\n",
				schedstat_strerror(err));
			goto cleanup;
		}
		for (size_t j = 0; j < w2.nr; j++) {
			const struct st_task_rec *r = &w2.recs[j], *r1, *prev;
			const struct model_task *t;

			r1 = find(&w1, r->pid);
			if (!r1 || memcmp(r1, r, sizeof(*r))) {
				moved++;
				continue;
			}
			t = held(s->model, r->pid);
			if (!t) {
				missing++;
				say("not held", r, NULL);
				continue;
			}
			compared++;
			if (memcmp(&t->rec, r, sizeof(*r))) {
				mismatched++;
				say("held record differs", r, &t->rec);
				continue;
			}
			prev = find(&last, r->pid);
			if (prev && memcmp(prev, r, sizeof(*r)) &&
			    prev->sum_exec_runtime == r->sum_exec_runtime)
				changed_asleep++;
		}
		/* Held, yet in neither walk: released before the sample. */
		for (size_t k = 0; k < s->model->nr_tasks; k++) {
			const struct model_task *t = &s->model->tasks[k];

			if (t->live && !find(&w1, t->rec.pid) &&
			    !find(&w2, t->rec.pid)) {
				extra++;
				say("held, in no walk", &t->rec, NULL);
			}
		}
		tmp = last;
		last = w2;
		w2 = tmp;
	}
	printf("compared=%lu changed_asleep=%lu moved=%lu mismatched=%lu "
	       "missing=%lu extra=%lu samples=%ld\n", compared, changed_asleep,
	       moved, mismatched, missing, extra, samples);
	ret = mismatched || missing || extra;
cleanup:
	free(w1.recs);
	free(w2.recs);
	free(last.recs);
	bpfsrc_ops.close(src);
	return ret;
}
