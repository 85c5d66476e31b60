// SPDX-License-Identifier: GPL-2.0
/*
 * What the recording tests share: NR_SAMPLES pseudo-random snapshots and
 * events recorded once per test group, and opening and comparing them.
 */
#ifndef RECORD_FIXTURE_H
#define RECORD_FIXTURE_H

#include "model.h"
#include "record_format.h"

#define NR_SAMPLES	40	/* four chunks at 100 ms */
#define INTERVAL_NS	100000000ULL

__attribute__((unused))
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

__attribute__((unused))
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

__attribute__((unused))
static struct schedstat_topology *topo(void)
{
	struct schedstat_topology *t;

	assert_int_equal(schedstat_topology_parse(&t, "LITTLE:0-1@446,big:2-3@1024",
						  "/nonexistent"), 0);
	return t;
}

/* A sample of a machine whose tasks come and go; sample @i of a series. */
__attribute__((unused))
static struct schedstat_snapshot *make_snapshot(int i)
{
	struct schedstat_snapshot *s = calloc(1, sizeof(*s));
	size_t nt = 50 + i % 7;

	/* Exact intervals: ten samples fill each one-second chunk. */
	s->ts_ns = 1000000000000ULL + i * INTERVAL_NS;
	s->interval_ns = INTERVAL_NS;
	s->avail = 0xfff & next();
	s->dropped = i * 3;
	s->tasks = calloc(nt + 1, sizeof(*s->tasks));
	for (size_t k = 0; k < nt; k++) {
		struct schedstat_task *t = &s->tasks[s->nr_tasks++];

		/* Mostly the same pids sample to sample, some new each time. */
		t->pid = k < 40 ? (int)k * 3 + 1 : 1000 + i * 10 + (int)k;
		t->tgid = t->pid - t->pid % 2;
		snprintf(t->comm, sizeof(t->comm), k % 9 ? "task-%zu" : "we\"ird\\%zu", k);
		t->cpu = next() % 4;
		t->cluster = t->cpu / 2;
		t->state = "RSDI"[next() % 4];
		t->running = t->state == 'R';
		t->util_avg = k * 20 + i % 3;
		t->runnable_avg = t->util_avg + next() % 5;
		t->load_avg = 1024 * (next() % 3);
		t->util_est = next() % 1024;
		t->pelt_age_ns = next() % 100000000;
		t->run_ns = next() % INTERVAL_NS;
		t->wakeups = next() % 10;
		t->nvcsw = next() % 100;
		t->misfit = k == 7;
		t->prio = 120 - (int)(next() % 20);
		t->up_migrations = next() % 2;
	}
	/* A pid reused within the interval: the exited task and the new one. */
	s->tasks[s->nr_tasks] = s->tasks[0];
	s->tasks[0].exited = true;
	s->tasks[0].state = 'X';
	s->nr_tasks++;
	for (size_t k = 1; k < s->nr_tasks; k++) {
		if (s->tasks[k].pid < s->tasks[k - 1].pid) {
			struct schedstat_task tmp = s->tasks[k];

			memmove(&s->tasks[1], &s->tasks[0], k * sizeof(tmp));
			s->tasks[0] = tmp;
		}
	}
	s->nr_cpus = 4;
	s->cpus = calloc(4, sizeof(*s->cpus));
	for (int c = 0; c < 4; c++) {
		s->cpus[c].cpu = c;
		s->cpus[c].cluster = c / 2;
		s->cpus[c].online = c != 3 || i % 10 < 5;
		s->cpus[c].capacity = c < 2 ? 446 : 1024;
		s->cpus[c].util_avg = next() % 1024;
		s->cpus[c].busy_ns = next() % INTERVAL_NS;
		s->cpus[c].idle_state_ns[c] = next();
		s->cpus[c].hotplug_ops = c == 3 && i % 10 == 5;
		s->cpus[c].avail = s->avail;
	}
	s->nr_clusters = 2;
	s->clusters = calloc(2, sizeof(*s->clusters));
	for (int k = 0; k < 2; k++) {
		s->clusters[k].id = k;
		strcpy(s->clusters[k].name, k ? "big" : "LITTLE");
		strcpy(s->clusters[k].cpus, k ? "2-3" : "0-1");
		s->clusters[k].util_pct = (next() % 100000) / 997.0;
		s->clusters[k].busy_pct = (next() % 100000) / 1009.0;
		s->clusters[k].overutilized = -1;
	}
	s->nr_groups = 3;
	s->groups = calloc(3, sizeof(*s->groups));
	for (int g = 0; g < 3; g++) {
		s->groups[g].cgroup_id = 100 + g;
		snprintf(s->groups[g].path, sizeof(s->groups[g].path),
			 "/user.slice/user-%d.slice/session-%d.scope", g, i);
		s->groups[g].util_avg = next() % 1024;
	}
	s->nr_migrations = 2;
	s->migrations = calloc(2, sizeof(*s->migrations));
	s->migrations[0] = (struct schedstat_migration){ 0, 1, next() % 9, 0 };
	s->migrations[1] = (struct schedstat_migration){ 1, 0, next() % 9, 0 };
	s->nr_freqs = 1;
	s->freqs = calloc(1, sizeof(*s->freqs));
	s->freqs[0] = (struct schedstat_freq_residency){ 1, 2400000, next() % INTERVAL_NS };
	/* What the model derives, the reader must derive alike. */
	for (size_t k = 0; k < s->nr_tasks; k++)
		s->tasks[k].cpu_pct = 100.0 * s->tasks[k].run_ns / s->interval_ns;
	for (size_t k = 0; k < s->nr_migrations; k++)
		s->migrations[k].per_sec = s->migrations[k].count * 1e9 / s->interval_ns;
	return s;
}

__attribute__((unused))
static void make_event(struct schedstat_event *ev, uint64_t ts, int k)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = k % 2 ? SCHEDSTAT_EV_MIGRATE : SCHEDSTAT_EV_OVERUTILIZED;
	ev->ts_ns = ts - k * 1000;
	ev->cpu = k % 4;
	ev->pid = 4 + k;
	ev->tgid = 4;
	strcpy(ev->comm, "mover");
	ev->orig_cpu = 0;
	ev->dest_cpu = 3;
	ev->overutilized = k % 3 == 0;
}

struct fixture {
	struct schedstat_snapshot *snaps[NR_SAMPLES];
	uint8_t *file;
	size_t size;
};

__attribute__((unused))
static void record_all(struct fixture *fx)
{
	struct schedstat_topology *t = topo();
	const char *meta[] = { "host", "unit-test", "interval_ms", "100", NULL };
	struct schedstat_recorder *r;
	int fd = memfd_create("rec", 0);

	assert_true(fd >= 0);
	assert_int_equal(schedstat_recorder_open(&r, fd, t, meta), 0);
	for (int i = 0; i < NR_SAMPLES; i++) {
		for (int k = 0; k < i % 3; k++) {
			struct schedstat_event ev;

			make_event(&ev, fx->snaps[i]->ts_ns, k);
			assert_int_equal(schedstat_recorder_add_event(r, &ev), 0);
		}
		assert_int_equal(schedstat_recorder_add_sample(r, fx->snaps[i]), 0);
	}
	assert_int_equal(schedstat_recorder_close(r), 0);
	fx->size = lseek(fd, 0, SEEK_END);
	fx->file = malloc(fx->size);
	assert_int_equal(pread(fd, fx->file, fx->size, 0), (ssize_t)fx->size);
	close(fd);
	schedstat_topology_free(t);
}

__attribute__((unused))
static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	for (int i = 0; i < NR_SAMPLES; i++)
		fx->snaps[i] = make_snapshot(i);
	record_all(fx);
	*state = fx;
	return 0;
}

__attribute__((unused))
static int teardown(void **state)
{
	struct fixture *fx = *state;

	for (int i = 0; i < NR_SAMPLES; i++)
		schedstat_snapshot_free(fx->snaps[i]);
	free(fx->file);
	free(fx);
	return 0;
}

__attribute__((unused))
static int open_bytes(const uint8_t *p, size_t len, struct schedstat_recording **rec)
{
	int fd = memfd_create("in", 0), err;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, len), (ssize_t)len);
	err = schedstat_recording_open(rec, fd);
	close(fd);	/* the mapping outlives the descriptor */
	return err;
}

__attribute__((unused))
static void assert_same(const struct schedstat_snapshot *a,
			const struct schedstat_snapshot *b)
{
	assert_int_equal(a->ts_ns, b->ts_ns);
	assert_int_equal(a->interval_ns, b->interval_ns);
	assert_int_equal(a->avail, b->avail);
	assert_int_equal(a->dropped, b->dropped);
	assert_int_equal(a->nr_tasks, b->nr_tasks);
	assert_memory_equal(a->tasks, b->tasks, a->nr_tasks * sizeof(*a->tasks));
	assert_int_equal(a->nr_cpus, b->nr_cpus);
	assert_memory_equal(a->cpus, b->cpus, a->nr_cpus * sizeof(*a->cpus));
	assert_int_equal(a->nr_clusters, b->nr_clusters);
	assert_memory_equal(a->clusters, b->clusters, a->nr_clusters * sizeof(*a->clusters));
	assert_int_equal(a->nr_groups, b->nr_groups);
	assert_memory_equal(a->groups, b->groups, a->nr_groups * sizeof(*a->groups));
	assert_int_equal(a->nr_migrations, b->nr_migrations);
	assert_memory_equal(a->migrations, b->migrations,
			    a->nr_migrations * sizeof(*a->migrations));
	assert_int_equal(a->nr_freqs, b->nr_freqs);
	assert_memory_equal(a->freqs, b->freqs, a->nr_freqs * sizeof(*a->freqs));
}


#endif /* RECORD_FIXTURE_H */
