// SPDX-License-Identifier: GPL-2.0
/*
 * Recordings: what goes in comes out bit for bit, a file cut at any byte or
 * with any byte flipped opens with its loss counted or fails with a clear
 * error, and foreign, mangled and future files are told apart.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>

#include "model.h"
#include "record_format.h"

#define NR_SAMPLES	40	/* four chunks at 100 ms */
#define INTERVAL_NS	100000000ULL

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct schedstat_topology *topo(void)
{
	struct schedstat_topology *t;

	assert_int_equal(schedstat_topology_parse(&t, "LITTLE:0-1@446,big:2-3@1024",
						  "/nonexistent"), 0);
	return t;
}

/* A sample of a machine whose tasks come and go; sample @i of a series. */
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

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	for (int i = 0; i < NR_SAMPLES; i++)
		fx->snaps[i] = make_snapshot(i);
	record_all(fx);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	for (int i = 0; i < NR_SAMPLES; i++)
		schedstat_snapshot_free(fx->snaps[i]);
	free(fx->file);
	free(fx);
	return 0;
}

static int open_bytes(const uint8_t *p, size_t len, struct schedstat_recording **rec)
{
	int fd = memfd_create("in", 0), err;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, len), (ssize_t)len);
	err = schedstat_recording_open(rec, fd);
	close(fd);	/* the mapping outlives the descriptor */
	return err;
}

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

static void round_trip_is_exact(void **state)
{
	struct fixture *fx = *state;
	struct schedstat_recording *rec;
	struct schedstat_recording_info info;
	const struct schedstat_topology *t;

	assert_int_equal(open_bytes(fx->file, fx->size, &rec), 0);
	schedstat_recording_info(rec, &info);
	assert_true(info.finished);
	assert_int_equal(info.nr_samples, NR_SAMPLES);
	assert_int_equal(info.lost_bytes, 0);
	assert_int_equal(info.first_ts_ns, fx->snaps[0]->ts_ns);
	assert_int_equal(info.last_ts_ns, fx->snaps[NR_SAMPLES - 1]->ts_ns);
	assert_string_equal(schedstat_recording_meta(rec, "host"), "unit-test");
	assert_null(schedstat_recording_meta(rec, "nothing"));
	t = schedstat_recording_topology(rec);
	assert_int_equal(schedstat_topology_nr_clusters(t), 2);
	assert_string_equal(schedstat_topology_cluster_name(t, 1), "big");
	assert_int_equal(schedstat_topology_cpu_capacity(t, 1), 446);
	assert_int_equal(schedstat_topology_cpu_cluster(t, 3), 1);
	/* Backwards too: every chunk decodes on its own. */
	for (int i = NR_SAMPLES - 1; i >= 0; i--) {
		const struct schedstat_event *evs;
		struct schedstat_snapshot *s;
		size_t nr;

		assert_int_equal(schedstat_recording_sample(rec, i, &s, &evs, &nr), 0);
		assert_same(s, fx->snaps[i]);
		assert_int_equal(nr, i % 3);
		for (size_t k = 0; k < nr; k++) {
			struct schedstat_event want;

			make_event(&want, fx->snaps[i]->ts_ns, k);
			assert_memory_equal(&evs[k], &want, sizeof(want));
		}
		schedstat_snapshot_free(s);
	}
	assert_int_equal(schedstat_recording_find(rec, fx->snaps[17]->ts_ns + 1), 17);
	assert_int_equal(schedstat_recording_find(rec, 0), 0);
	assert_int_equal(schedstat_recording_find(rec, UINT64_MAX), NR_SAMPLES - 1);
	schedstat_recording_close(rec);
}

/* Each sample coded against the last costs far less than the first. */
static void delta_coding_is_compact(void **state)
{
	struct fixture *fx = *state;

	/* About 55 tasks, 4 CPUs, 3 groups per sample, random counters. */
	assert_true(fx->size / NR_SAMPLES < 2500);
}

static bool near_chunk_end(const struct fixture *fx, size_t len)
{
	size_t off = REC_FILE_HDR_LEN;

	while (off + REC_CHUNK_HDR_LEN <= fx->size) {
		off += REC_CHUNK_HDR_LEN + (fx->file[off + 8] | fx->file[off + 9] << 8 |
					    fx->file[off + 10] << 16);
		if (len + 40 >= off && len <= off + 40)
			return true;
	}
	return false;
}

/*
 * Cut after every byte: either a clear error (nothing whole to read) or
 * the samples of the whole chunks, exactly, with the rest counted as lost.
 */
/* Opens the first @len bytes; returns the samples read back, or -1. */
static long open_cut(const struct fixture *fx, size_t len, bool check_rows)
{
	struct schedstat_recording *rec;
	struct schedstat_recording_info info;
	int err = open_bytes(fx->file, len, &rec);

	if (err) {
		assert_true(err == -SCHEDSTAT_ERR_REC_EMPTY ||
			    err == -SCHEDSTAT_ERR_REC_CORRUPT ||
			    err == -SCHEDSTAT_ERR_REC_FOREIGN);
		return -1;
	}
	schedstat_recording_info(rec, &info);
	assert_false(info.finished);
	assert_int_equal(info.nr_samples % 10, 0);	/* whole chunks */
	assert_int_equal(info.bad_chunks, 0);
	for (size_t i = 0; check_rows && i < info.nr_samples; i++) {
		struct schedstat_snapshot *s;

		assert_int_equal(schedstat_recording_sample(rec, i, &s, NULL, NULL), 0);
		assert_same(s, fx->snaps[i]);
		schedstat_snapshot_free(s);
	}
	schedstat_recording_close(rec);
	return info.nr_samples;
}

static void truncation_keeps_whole_chunks(void **state)
{
	struct fixture *fx = *state;
	long last_nr = 0;

	for (size_t len = 0; len < fx->size; len++) {
		long nr;

		/* Every byte of the head and near chunk ends; a stride elsewhere. */
		if (len >= 512 && !near_chunk_end(fx, len) && len % 31)
			continue;
		nr = open_cut(fx, len, len % 97 == 0);
		if (nr < 0) {
			assert_int_equal(last_nr, 0);
			continue;
		}
		assert_true(nr >= last_nr);
		last_nr = nr;
	}
	assert_int_equal(last_nr, NR_SAMPLES);
}

/*
 * Flip each byte: the CRC catches it. The file fails to open, or it opens
 * and every sample either reads back exactly or is reported damaged.
 */
static void flipped_bytes_are_caught(void **state)
{
	struct fixture *fx = *state;
	uint8_t *copy = malloc(fx->size);

	for (size_t at = 0; at < fx->size; at += 1 + at / 64) {
		struct schedstat_recording *rec;
		struct schedstat_recording_info info;
		bool matched;

		memcpy(copy, fx->file, fx->size);
		copy[at] ^= 1u << (at % 8);
		if (open_bytes(copy, fx->size, &rec))
			continue;
		schedstat_recording_info(rec, &info);
		for (size_t i = 0; i < info.nr_samples; i++) {
			struct schedstat_snapshot *s;
			int err = schedstat_recording_sample(rec, i, &s, NULL, NULL);

			if (err) {
				assert_int_equal(err, -EBADMSG);
				continue;
			}
			/*
			 * Whatever reads back is exactly a sample that was
			 * recorded: a flip the CRCs missed would show here.
			 */
			matched = false;
			for (int k = 0; k < NR_SAMPLES && !matched; k++) {
				if (fx->snaps[k]->ts_ns != s->ts_ns)
					continue;
				assert_same(s, fx->snaps[k]);
				matched = true;
			}
			assert_true(matched);
			schedstat_snapshot_free(s);
		}
		schedstat_recording_close(rec);
	}
	free(copy);
}

/*
 * An unfinished file whose second chunk has a length pointing past the end:
 * that chunk is lost, the chunks after it are not.
 */
static void damaged_length_loses_one_chunk(void **state)
{
	struct fixture *fx = *state;
	struct schedstat_recording *rec;
	struct schedstat_recording_info info;
	size_t off = REC_FILE_HDR_LEN, chunk = 0, len = fx->size - REC_END_CHUNK_LEN;
	uint8_t *copy = malloc(fx->size);

	memcpy(copy, fx->file, fx->size);
	/* Walk to the second SAMPLES chunk (after META and TOPOLOGY). */
	while (chunk++ < 3)
		off += REC_CHUNK_HDR_LEN + (copy[off + 8] | copy[off + 9] << 8 |
					    copy[off + 10] << 16);
	copy[off + 11] = 0x7f;
	assert_int_equal(open_bytes(copy, len, &rec), 0);
	schedstat_recording_info(rec, &info);
	assert_false(info.finished);
	assert_int_equal(info.bad_chunks, 1);
	assert_int_equal(info.nr_samples, NR_SAMPLES - 10);
	for (size_t i = 0; i < info.nr_samples; i++) {
		struct schedstat_snapshot *s;

		assert_int_equal(schedstat_recording_sample(rec, i, &s, NULL, NULL), 0);
		assert_same(s, fx->snaps[i < 10 ? i : i + 10]);
		schedstat_snapshot_free(s);
	}
	schedstat_recording_close(rec);
	free(copy);
}

static void foreign_mangled_and_future_files(void **state)
{
	struct fixture *fx = *state;
	struct schedstat_recording *rec;
	uint8_t *copy = malloc(fx->size + 1);
	const char csv[] = "ts_ns,pid,comm\r\n1,2,x\r\n";

	assert_int_equal(open_bytes((const uint8_t *)csv, sizeof(csv) - 1, &rec),
			 -SCHEDSTAT_ERR_REC_FOREIGN);
	assert_int_equal(open_bytes(fx->file, 0, &rec), -SCHEDSTAT_ERR_REC_EMPTY);
	/* "\r\n" became "\n", as through "adb shell". */
	memcpy(copy, fx->file, 9);
	memcpy(copy + 9, fx->file + 10, fx->size - 10);
	assert_int_equal(open_bytes(copy, fx->size - 1, &rec), -SCHEDSTAT_ERR_REC_MANGLED);
	/* A major version from the future. */
	memcpy(copy, fx->file, fx->size);
	copy[12] = 2;
	assert_int_equal(open_bytes(copy, fx->size, &rec), -SCHEDSTAT_ERR_REC_CORRUPT);
	{
		/* With its header CRC right it is a version problem, said so. */
		uLong crc = crc32(crc32(0L, Z_NULL, 0), copy, 16);

		for (int i = 0; i < 4; i++)
			copy[16 + i] = crc >> (8 * i);
	}
	assert_int_equal(open_bytes(copy, fx->size, &rec), -SCHEDSTAT_ERR_REC_VERSION);
	free(copy);
}

/* The format is little-endian byte by byte, whatever the host. */
static void varints_and_header_bytes(void **state)
{
	struct rec_buf b = {};
	struct rec_cur c;
	uint8_t hdr[REC_CHUNK_HDR_LEN];
	struct rec_chunk_hdr h = { .type = REC_CHUNK_SAMPLES, .stored_len = 0,
				   .raw_len = 0, .first_ts = 0x0102030405060708ULL,
				   .count = 10 };
	struct rec_chunk_hdr back;

	rec_put_uvar(&b, 300);
	rec_put_svar(&b, -1);
	rec_put_svar(&b, INT64_MIN);
	rec_put_uvar(&b, UINT64_MAX);
	assert_int_equal(b.p[0], 0xac);
	assert_int_equal(b.p[1], 0x02);
	assert_int_equal(b.p[2], 0x01);
	c = (struct rec_cur){ b.p, b.p + b.len, 0 };
	assert_int_equal(rec_get_uvar(&c), 300);
	assert_int_equal(rec_get_svar(&c), -1);
	assert_true(rec_get_svar(&c) == INT64_MIN);
	assert_true(rec_get_uvar(&c) == UINT64_MAX);
	assert_int_equal(c.err, 0);
	rec_get_uvar(&c);
	assert_int_equal(c.err, -EBADMSG);
	free(b.p);

	rec_chunk_hdr_encode(hdr, &h, NULL);
	assert_memory_equal(hdr, "STCK\x03\x00\x00\x00", 8);
	assert_memory_equal(hdr + 16, "\x08\x07\x06\x05\x04\x03\x02\x01\x0a\x00\x00\x00", 12);
	assert_int_equal(rec_chunk_hdr_decode(hdr, &back), 0);
	assert_int_equal(back.first_ts, h.first_ts);
	assert_int_equal(back.crc, rec_chunk_crc(hdr, NULL, 0));
}

/* Update @i of a series: a task's, or one of CPU 3's four classes. */
/*
 * Read by other clusters (--topology on a recording): the cluster rows
 * are the recorded CPU rows summed by the new spec, capacities the spec
 * gives replacing the recorded ones; a spec leaving out a recorded CPU,
 * or naming one the recording lacks, is refused and changes nothing.
 */
static void regroup_sums_the_recorded_cpus(void **state)
{
	static const int cluster_of[4] = { 0, 1, 0, 1 };
	static const unsigned int cap[4] = { 446, 512, 1024, 512 };
	struct fixture *fx = *state;
	struct schedstat_recording *rec;

	assert_int_equal(open_bytes(fx->file, fx->size, &rec), 0);
	assert_int_equal(schedstat_recording_regroup(rec, "x:0-2"),
			 -SCHEDSTAT_ERR_TOPOLOGY_TRACE);
	assert_int_equal(schedstat_recording_regroup(rec, "x:0,2,y:1,3-4"),
			 -SCHEDSTAT_ERR_TOPOLOGY_SPEC);
	assert_string_equal(schedstat_topology_cluster_name(
				    schedstat_recording_topology(rec), 0), "LITTLE");
	assert_int_equal(schedstat_recording_regroup(rec, "x:0,2,y:1,3@512"), 0);
	for (int i = 0; i < NR_SAMPLES; i++) {
		const struct schedstat_snapshot *want = fx->snaps[i];
		struct schedstat_snapshot *s;

		assert_int_equal(schedstat_recording_sample(rec, i, &s, NULL, NULL), 0);
		assert_int_equal(s->nr_clusters, 2);
		assert_string_equal(s->clusters[0].name, "x");
		assert_string_equal(s->clusters[1].cpus, "1,3");
		assert_int_equal(s->nr_migrations, 0);
		for (int k = 0; k < 2; k++) {
			unsigned int capacity = 0, online = 0, all_cfs = 1;
			uint64_t util = 0;

			for (int c = 0; c < 4; c++) {
				const struct schedstat_cpu *cpu = &want->cpus[c];

				if (cluster_of[c] != k || !cpu->online)
					continue;
				online++;
				capacity += cap[c];
				util += cpu->util_avg + cpu->rt_util + cpu->dl_util +
					cpu->irq_util;
				all_cfs &= !!(cpu->avail & SCHEDSTAT_AVAIL_CFS);
				assert_int_equal(s->cpus[c].cluster, k);
			}
			assert_int_equal(s->clusters[k].nr_online, online);
			assert_int_equal(s->clusters[k].capacity, capacity);
			if (all_cfs)
				assert_true(fabs(s->clusters[k].util_pct -
						 100.0 * util / capacity) < 1e-9);
		}
		for (size_t k = 0; k < s->nr_tasks; k++)
			assert_int_equal(s->tasks[k].cluster, cluster_of[s->tasks[k].cpu]);
		schedstat_snapshot_free(s);
	}
	schedstat_recording_close(rec);
}

static void make_pelt(struct schedstat_pelt_update *u, int i)
{
	static const char *const entity[] = { "task", "cfs", "rt", "dl", "irq" };
	int e = i % 5;

	memset(u, 0, sizeof(*u));
	u->ts_ns = 1000000000ULL + i * 997ULL;
	u->cpu = e ? 3 : i % 4;
	u->pid = e ? -1 : 1000 + i % 7;
	u->tgid = e ? -1 : 1000;
	if (!e) {
		snprintf(u->comm, sizeof(u->comm), "ui-%d", i % 7);
		u->avail |= SCHEDSTAT_AVAIL_PELT_TASK;
	}
	snprintf(u->entity, sizeof(u->entity), "%s", entity[e]);
	u->util_avg = (i * 37) % 1025;
	u->runnable_avg = (i * 41) % 1100;
	u->load_avg = (uint64_t)i * 1048576;
	if (e < 2) {
		u->util_est = (i * 13) % 1024;
		u->avail |= SCHEDSTAT_AVAIL_UTIL_EST;
	}
	u->last_update_ns = 900000000ULL + i * 1024ULL;
}

#define NR_PELT	70000	/* more than one PELT chunk holds */

/*
 * PELT updates (format 1.1) read back exactly, in order, with the lost
 * count; the samples around them read as before, through the index and
 * through the chunk walk; a damaged PELT chunk costs its updates only.
 */
static void pelt_updates_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct schedstat_topology *t = topo();
	struct schedstat_recorder *r;
	struct schedstat_recording *rec;
	struct schedstat_recording_info info;
	struct schedstat_pelt_update u, want;
	struct schedstat_snapshot *snap;
	uint8_t *file;
	size_t size, n = 0, pelt_chunk = 0;
	int fd = memfd_create("rec", 0), err;

	assert_int_equal(schedstat_recorder_open(&r, fd, t, NULL), 0);
	for (int i = 0; i < NR_PELT; i++) {
		make_pelt(&u, i);
		assert_int_equal(schedstat_recorder_add_pelt(r, &u), 0);
		if (i % (NR_PELT / NR_SAMPLES) == 0 && n < NR_SAMPLES)
			assert_int_equal(schedstat_recorder_add_sample(r, fx->snaps[n++]), 0);
	}
	schedstat_recorder_pelt_dropped(r, 7);
	assert_int_equal(schedstat_recorder_close(r), 0);
	size = lseek(fd, 0, SEEK_END);
	file = malloc(size);
	assert_int_equal(pread(fd, file, size, 0), (ssize_t)size);
	close(fd);
	assert_int_equal(file[12] | file[13] << 8, 1);
	assert_int_equal(file[14] | file[15] << 8, SCHEDSTAT_RECORDING_VERSION_MINOR);

	assert_int_equal(open_bytes(file, size, &rec), 0);
	schedstat_recording_info(rec, &info);
	assert_true(info.finished);
	assert_int_equal(info.nr_samples, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(schedstat_recording_sample(rec, i, &snap, NULL, NULL), 0);
		assert_same(fx->snaps[i], snap);
		schedstat_snapshot_free(snap);
	}
	for (int i = 0; i < NR_PELT; i++) {
		make_pelt(&want, i);
		assert_int_equal(schedstat_recording_pelt_next(rec, &u), 0);
		assert_memory_equal(&u, &want, sizeof(u));
	}
	assert_int_equal(schedstat_recording_pelt_next(rec, &u), -ENODATA);
	assert_int_equal(schedstat_recording_pelt_dropped(rec), 7);
	schedstat_recording_pelt_rewind(rec);
	assert_int_equal(schedstat_recording_pelt_next(rec, &u), 0);
	make_pelt(&want, 0);
	assert_memory_equal(&u, &want, sizeof(u));
	schedstat_recording_close(rec);

	/* Without the END chunk the reader walks the chunks: same samples. */
	assert_int_equal(open_bytes(file, size - REC_END_CHUNK_LEN, &rec), 0);
	schedstat_recording_info(rec, &info);
	assert_false(info.finished);
	assert_int_equal(info.nr_samples, n);
	assert_int_equal(info.bad_chunks, 0);
	schedstat_recording_close(rec);

	/* Damage the first PELT chunk's payload: its updates go, no others. */
	for (size_t off = REC_FILE_HDR_LEN; off + REC_CHUNK_HDR_LEN <= size;) {
		struct rec_chunk_hdr h;

		assert_int_equal(rec_chunk_hdr_decode(file + off, &h), 0);
		if (h.type == REC_CHUNK_PELT) {
			pelt_chunk = off;
			break;
		}
		off += REC_CHUNK_HDR_LEN + h.stored_len;
	}
	assert_true(pelt_chunk);
	{
		struct rec_chunk_hdr h;
		size_t got = 0, bad = 0;

		rec_chunk_hdr_decode(file + pelt_chunk, &h);
		file[pelt_chunk + REC_CHUNK_HDR_LEN + h.stored_len / 2] ^= 0x40;
		assert_int_equal(open_bytes(file, size, &rec), 0);
		while ((err = schedstat_recording_pelt_next(rec, &u)) != -ENODATA) {
			if (err == -EBADMSG) {
				bad++;
				continue;
			}
			assert_int_equal(err, 0);
			make_pelt(&want, h.count + got++);
			assert_memory_equal(&u, &want, sizeof(u));
		}
		assert_int_equal(bad, 1);
		assert_int_equal(got, NR_PELT - h.count);
		schedstat_recording_close(rec);
	}
	free(file);
	schedstat_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip_is_exact),
		cmocka_unit_test(delta_coding_is_compact),
		cmocka_unit_test(truncation_keeps_whole_chunks),
		cmocka_unit_test(flipped_bytes_are_caught),
		cmocka_unit_test(damaged_length_loses_one_chunk),
		cmocka_unit_test(foreign_mangled_and_future_files),
		cmocka_unit_test(varints_and_header_bytes),
		cmocka_unit_test(pelt_updates_round_trip),
		cmocka_unit_test(regroup_sums_the_recorded_cpus),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
