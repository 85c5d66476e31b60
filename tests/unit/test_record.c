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
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
