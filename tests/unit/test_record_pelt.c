// SPDX-License-Identifier: GPL-2.0
/*
 * PELT chunks in recordings (format 1.1): every update out as it went in,
 * across chunks, in time order beside the samples.
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
		cmocka_unit_test(pelt_updates_round_trip),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
