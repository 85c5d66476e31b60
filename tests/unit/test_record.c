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

#include "record_fixture.h"

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

/*
 * Moves by other clusters: a recording keeps each move between two of its
 * clusters with the CPUs it was between, never one within a cluster. Read
 * by clusters that only merge recorded ones (or rename them), every move
 * between the new clusters is known, and the table and the up/down counts
 * are the recorded moves summed over their CPU pairs; a new cluster pair
 * that shares a recorded cluster is left out of the table, and up/down
 * counts, no longer whole, stay 0.
 */
static const int moved[][3] = {	/* pid, from CPU, to CPU */
	{ 10, 0, 2 }, { 10, 2, 4 }, { 11, 1, 3 }, { 11, 3, 0 },
	{ 12, 4, 1 }, { 12, 5, 2 }, { 10, 1, 5 },
};

static void record_moves(uint8_t **file, size_t *size)
{
	struct schedstat_snapshot *s = calloc(1, sizeof(*s));
	struct schedstat_topology *t;
	struct schedstat_recorder *r;
	int fd = memfd_create("moves", 0);

	assert_int_equal(schedstat_topology_parse(&t, "a:0-1@446,b:2-3@446,c:4-5@1024",
						  "/nonexistent"), 0);
	s->ts_ns = 5 * INTERVAL_NS;
	s->interval_ns = INTERVAL_NS;
	s->nr_cpus = 6;
	s->cpus = calloc(6, sizeof(*s->cpus));
	for (int c = 0; c < 6; c++) {
		s->cpus[c].cpu = c;
		s->cpus[c].cluster = c / 2;
		s->cpus[c].online = 1;
	}
	s->nr_tasks = 3;
	s->tasks = calloc(3, sizeof(*s->tasks));
	for (int k = 0; k < 3; k++) {
		s->tasks[k].pid = s->tasks[k].tgid = 10 + k;
		s->tasks[k].cpu = 2 * k;
		s->tasks[k].state = 'S';
	}
	assert_true(fd >= 0);
	assert_int_equal(schedstat_recorder_open(&r, fd, t, NULL), 0);
	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		struct schedstat_event ev = { .type = SCHEDSTAT_EV_MIGRATE };

		ev.ts_ns = s->ts_ns - 1000 * (i + 1);
		ev.pid = ev.tgid = moved[i][0];
		ev.orig_cpu = moved[i][1];
		ev.dest_cpu = moved[i][2];
		assert_int_equal(schedstat_recorder_add_event(r, &ev), 0);
	}
	assert_int_equal(schedstat_recorder_add_sample(r, s), 0);
	assert_int_equal(schedstat_recorder_close(r), 0);
	*size = lseek(fd, 0, SEEK_END);
	*file = malloc(*size);
	assert_int_equal(pread(fd, *file, *size, 0), (ssize_t)*size);
	close(fd);
	schedstat_snapshot_free(s);
	schedstat_topology_free(t);
}

/* The moves of pid (0: all) from cluster @f to @t of @cl, by CPU pairs. */
static int moves_between(const int *cl, int f, int t, int pid)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++)
		n += cl[moved[i][1]] == f && cl[moved[i][2]] == t &&
		     (!pid || moved[i][0] == pid);
	return n;
}

static void regroup_counts_the_recorded_moves(void **state)
{
	static const struct {
		const char *spec;
		int cl[6];		/* new cluster of each CPU */
		unsigned int cap[3];
		int nr;			/* clusters */
		bool all_known;
	} by[] = {
		{ "a:0-1,b:2-3,c:4-5", { 0, 0, 1, 1, 2, 2 }, { 446, 446, 1024 }, 3, true },
		{ "p:0-3@446,q:4-5@1024", { 0, 0, 0, 0, 1, 1 }, { 446, 1024 }, 2, true },
		{ "q:4-5@446,p:0-3@1024", { 1, 1, 1, 1, 0, 0 }, { 446, 1024 }, 2, true },
		/* CPUs 0 and 1 (2 and 3) were one cluster: p-q moves unknown. */
		{ "p:0,2,q:1,3,r:4-5", { 0, 1, 0, 1, 2, 2 }, { 446, 446, 1024 }, 3, false },
	};
	struct schedstat_recording *rec;
	uint8_t *file;
	size_t size;

	(void)state;
	record_moves(&file, &size);
	assert_int_equal(open_bytes(file, size, &rec), 0);
	for (size_t b = 0; b < sizeof(by) / sizeof(by[0]); b++) {
		struct schedstat_snapshot *s;
		size_t row = 0;

		assert_int_equal(schedstat_recording_regroup(rec, by[b].spec), 0);
		assert_int_equal(schedstat_recording_sample(rec, 0, &s, NULL, NULL), 0);
		assert_int_equal(s->nr_clusters, by[b].nr);
		for (int f = 0; f < by[b].nr; f++) {
			for (int t = 0; t < by[b].nr; t++) {
				bool known = f != t && (by[b].all_known || f == 2 || t == 2);

				assert_int_equal(schedstat_recording_moves_known(rec, f, t), known);
				if (!known)
					continue;
				assert_true(row < s->nr_migrations);
				assert_int_equal(s->migrations[row].from, f);
				assert_int_equal(s->migrations[row].to, t);
				assert_int_equal(s->migrations[row++].count,
						 moves_between(by[b].cl, f, t, 0));
			}
		}
		assert_int_equal(s->nr_migrations, row);
		for (int t = 0; t < by[b].nr; t++) {
			unsigned int up = 0, down = 0;

			for (int f = 0; f < by[b].nr && by[b].all_known; f++) {
				if (by[b].cap[t] > by[b].cap[f])
					up += moves_between(by[b].cl, f, t, 0);
				else if (by[b].cap[t] < by[b].cap[f])
					down += moves_between(by[b].cl, f, t, 0);
			}
			assert_int_equal(s->clusters[t].up_migrations, up);
			assert_int_equal(s->clusters[t].down_migrations, down);
		}
		for (size_t k = 0; k < s->nr_tasks; k++) {
			const struct schedstat_task *task = &s->tasks[k];
			unsigned int up = 0, down = 0;

			for (int f = 0; f < by[b].nr && by[b].all_known; f++) {
				for (int t = 0; t < by[b].nr; t++) {
					int n = moves_between(by[b].cl, f, t, task->pid);

					up += by[b].cap[t] > by[b].cap[f] ? n : 0;
					down += by[b].cap[t] < by[b].cap[f] ? n : 0;
				}
			}
			assert_int_equal(task->up_migrations, up);
			assert_int_equal(task->down_migrations, down);
		}
		schedstat_snapshot_free(s);
	}
	schedstat_recording_close(rec);
	free(file);
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
		cmocka_unit_test(regroup_sums_the_recorded_cpus),
		cmocka_unit_test(regroup_counts_the_recorded_moves),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
