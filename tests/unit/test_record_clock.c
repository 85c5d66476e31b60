// SPDX-License-Identifier: GPL-2.0
/*
 * CLOCK chunks (format 1.4): where CLOCK_MONOTONIC stood against
 * CLOCK_BOOTTIME. A pair is kept at the start and when the distance moved by
 * more than a microsecond (a suspend), none for jitter; they read back in
 * order; a file without them (1.2 and before) says -ENODATA; a damaged one
 * costs its pairs, not the samples.
 */
#include <errno.h>
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

#include "record_fixture.h"

static uint8_t *record(struct fixture *fx, bool clocks, size_t *size)
{
	/* Monotonic 1000 s, boot 1000 s + 7 ms (slept 7 ms before we began),
	 * jitter of 300 ns, then a 42 s suspend after sample 20. */
	struct schedstat_topology *t = topo();
	struct schedstat_recorder *r;
	uint8_t *file;
	int fd = memfd_create("rec", 0);

	assert_int_equal(schedstat_recorder_open(&r, fd, t, NULL), 0);
	for (int i = 0; i < NR_SAMPLES; i++) {
		uint64_t mono = fx->snaps[i]->ts_ns;
		struct schedstat_clock_pair pair = {
			.monotonic_ns = mono,
			.boottime_ns = mono + 7000000 + (i % 2) * 300 +
				       (i > 20 ? 42000000000ULL : 0),
		};

		if (clocks)
			assert_int_equal(schedstat_recorder_add_clock(r, &pair), 0);
		assert_int_equal(schedstat_recorder_add_sample(r, fx->snaps[i]), 0);
	}
	assert_int_equal(schedstat_recorder_close(r), 0);
	*size = lseek(fd, 0, SEEK_END);
	file = malloc(*size);
	assert_int_equal(pread(fd, file, *size, 0), (ssize_t)*size);
	close(fd);
	schedstat_topology_free(t);
	return file;
}

static void pairs_kept_where_the_clocks_moved(void **state)
{
	struct fixture *fx = *state;
	const struct schedstat_clock_pair *pairs;
	struct schedstat_recording *rec;
	size_t size, nr;
	uint8_t *file = record(fx, true, &size);

	assert_true((file[14] | file[15] << 8) >= 4);
	assert_int_equal(open_bytes(file, size, &rec), 0);
	assert_int_equal(schedstat_recording_clocks(rec, &pairs, &nr), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(pairs[0].monotonic_ns, fx->snaps[0]->ts_ns);
	assert_int_equal(pairs[0].boottime_ns - pairs[0].monotonic_ns, 7000000);
	assert_int_equal(pairs[1].monotonic_ns, fx->snaps[21]->ts_ns);
	assert_int_equal(pairs[1].boottime_ns - pairs[1].monotonic_ns,
			 42007000000ULL + 300);
	/* Asked again: the same, from memory. */
	assert_int_equal(schedstat_recording_clocks(rec, &pairs, &nr), 0);
	assert_int_equal(nr, 2);
	schedstat_recording_close(rec);

	/* A cut file (no index) finds them by walking, too. */
	assert_int_equal(open_bytes(file, size - REC_END_CHUNK_LEN, &rec), 0);
	assert_int_equal(schedstat_recording_clocks(rec, &pairs, &nr), 0);
	assert_int_equal(nr, 2);
	schedstat_recording_close(rec);

	/* Damaged: its pairs go, the samples stay. */
	for (size_t off = REC_FILE_HDR_LEN; off + REC_CHUNK_HDR_LEN <= size;) {
		struct rec_chunk_hdr h;

		assert_int_equal(rec_chunk_hdr_decode(file + off, &h), 0);
		if (h.type == REC_CHUNK_CLOCK) {
			file[off + REC_CHUNK_HDR_LEN] ^= 0x40;
			break;
		}
		off += REC_CHUNK_HDR_LEN + h.stored_len;
	}
	assert_int_equal(open_bytes(file, size, &rec), 0);
	schedstat_recording_clocks(rec, &pairs, &nr);
	assert_true(nr < 2);
	{
		struct schedstat_recording_info info;
		struct schedstat_snapshot *snap;

		schedstat_recording_info(rec, &info);
		assert_int_equal(info.nr_samples, NR_SAMPLES);
		assert_int_equal(schedstat_recording_sample(rec, 0, &snap, NULL, NULL), 0);
		schedstat_snapshot_free(snap);
	}
	schedstat_recording_close(rec);
	free(file);
}

static void none_before_1_4(void **state)
{
	struct fixture *fx = *state;
	const struct schedstat_clock_pair *pairs;
	struct schedstat_recording *rec;
	size_t size, nr = 9;
	uint8_t *file = record(fx, false, &size);

	assert_int_equal(open_bytes(file, size, &rec), 0);
	assert_int_equal(schedstat_recording_clocks(rec, &pairs, &nr), -ENODATA);
	assert_int_equal(nr, 0);
	schedstat_recording_close(rec);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pairs_kept_where_the_clocks_moved),
		cmocka_unit_test(none_before_1_4),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
