// SPDX-License-Identifier: GPL-2.0
/*
 * CPUHP chunks (format 1.2): cpuhp steps recorded, read back as hotplug
 * operations timed per state. The steps are made up here, with the times
 * each state must get worked out by hand below.
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

#include "array_size.h"
#include "model.h"
#include "record_format.h"

#define US	1000ULL
#define T0	(5000000000ULL)

enum { E = SCHEDSTAT_CPUHP_ENTER, M = SCHEDSTAT_CPUHP_MULTI_ENTER,
       X = SCHEDSTAT_CPUHP_EXIT };

/*
 * cpu1 goes down, then up, controlled from cpu0. Going down the control
 * CPU kicks cpu1's hotplug thread (which runs 199 and the multi-instance
 * 180), then tears down 150 itself; coming up it runs 1 and 140, then
 * kicks cpu1 for 199. Between them, and after, a tracefs instance adds a
 * ring buffer on every online CPU: a multi step that leaves the CPU where
 * it was, no operation. The first two steps come out of time order, as
 * two CPUs' steps can from one ring buffer.
 */
static const struct step {
	uint64_t us;
	int on_cpu, cpu, kind, target, idx;
	int kick;
} steps[] = {
	{ 110, 1, 1, E, 150, 199, 0 },
	{ 100, 0, 1, E, 150, 200, 1 },
	{ 130, 1, 1, X, 198, 199, 0 },
	{ 140, 1, 1, M, 150, 180, 0 },
	{ 150, 1, 1, X, 179, 180, 0 },
	{ 160, 0, 1, X, 151, 200, 0 },
	{ 170, 0, 1, E, 0, 150, 0 },
	{ 200, 0, 1, X, 149, 150, 0 },
	{ 300, 0, 0, M, 230, 40, 0 },
	{ 305, 0, 0, X, 230, 40, 0 },
	{ 1000, 0, 1, E, 140, 1, 0 },
	{ 1010, 0, 1, X, 1, 1, 0 },
	{ 1020, 0, 1, E, 140, 140, 0 },
	{ 1050, 0, 1, X, 140, 140, 0 },
	{ 1060, 0, 1, E, 200, 140, 1 },
	{ 1070, 1, 1, E, 200, 199, 0 },
	{ 1080, 1, 1, X, 199, 199, 0 },
	{ 1090, 0, 1, X, 200, 140, 0 },
	{ 1200, 1, 1, M, 200, 40, 0 },
	{ 1205, 1, 1, X, 200, 40, 0 },
};

/* What each operation's states must get, in µs (first entered first). */
struct want_step {
	int state;		/* -1: kick or between */
	const char *name;	/* for state -1 */
	uint64_t us;
};

static const struct want_step down[] = {
	/* 100-110, 130-140, 150-160: waiting for cpu1's thread */
	{ -1, "cpuhp_kick_ap_work", 30 },
	{ 199, NULL, 20 },
	{ 180, NULL, 10 },
	{ -1, SCHEDSTAT_STEP_BETWEEN, 10 },	/* 160-170 */
	{ 150, NULL, 30 },
};

static const struct want_step up[] = {
	{ 1, NULL, 10 },
	{ -1, SCHEDSTAT_STEP_BETWEEN, 20 },	/* 1010-1020, 1050-1060 */
	{ 140, NULL, 30 },
	{ -1, "cpuhp_kick_ap_work", 20 },	/* 1060-1070, 1080-1090 */
	{ 199, NULL, 10 },
};

/* The truth for a name: this machine's states file, read here on its own. */
static void sysfs_name(int state, char *buf, size_t size)
{
	FILE *f = fopen("/sys/devices/system/cpu/hotplug/states", "re");
	char line[128], name[96];
	int n;

	snprintf(buf, size, "state %d", state);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %d: %95s", &n, name) == 2 && n == state)
			snprintf(buf, size, "%s", name);
	fclose(f);
}

static void assert_op(const struct schedstat_recorded_hotplug *h, bool back,
		      uint64_t first_us, uint64_t total_us,
		      const struct want_step *want, size_t nr)
{
	char name[96];

	assert_int_equal(h->cpu, 1);
	assert_int_equal(h->op.back, back);
	assert_false(h->failed);
	assert_int_equal(h->ts_ns, T0 + first_us * US);
	assert_int_equal(h->op.total_ns, total_us * US);
	assert_int_equal(h->op.nr_steps, nr);
	for (size_t i = 0; i < nr; i++) {
		const struct schedstat_exit_step *st = &h->op.steps[i];

		if (want[i].state >= 0)
			sysfs_name(want[i].state, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "%s", want[i].name);
		assert_string_equal(st->name, name);
		assert_int_equal(st->ns, want[i].us * US);
	}
}

static void record_steps(int fd, size_t nr)
{
	struct schedstat_topology *t;
	struct schedstat_recorder *r;

	assert_int_equal(schedstat_topology_parse(&t, "LITTLE:0@446,big:1@1024",
						  "/nonexistent"), 0);
	struct schedstat_snapshot *snap = calloc(1, sizeof(*snap));

	assert_non_null(snap);
	assert_int_equal(schedstat_recorder_open(&r, fd, t, NULL), 0);
	for (size_t i = 0; i < nr; i++) {
		struct schedstat_event ev = {
			.type = SCHEDSTAT_EV_CPUHP,
			.ts_ns = T0 + steps[i].us * US,
			.cpu = steps[i].on_cpu,
			.hp_cpu = steps[i].cpu,
			.hp_kind = steps[i].kind,
			.hp_target = steps[i].target,
			.hp_idx = steps[i].idx,
			.hp_kick = steps[i].kick,
		};

		assert_int_equal(schedstat_recorder_add_event(r, &ev), 0);
	}
	/* A recording holds at least one sample: one after the steps. */
	snap->ts_ns = T0 + 2000 * US;
	snap->interval_ns = 100000000;
	assert_int_equal(schedstat_recorder_add_sample(r, snap), 0);
	schedstat_snapshot_free(snap);
	assert_int_equal(schedstat_recorder_close(r), 0);
	schedstat_topology_free(t);
}

static void operations_are_timed_per_state(void **state)
{
	struct schedstat_recorded_hotplug *ops;
	struct schedstat_recording *rec;
	size_t nr, damaged;
	int fd = memfd_create("rec", 0);

	record_steps(fd, ARRAY_SIZE(steps));
	assert_int_equal(schedstat_recording_open(&rec, fd), 0);
	assert_int_equal(schedstat_recording_hotplug(rec, &ops, &nr, &damaged), 0);
	assert_int_equal(damaged, 0);
	/* Two operations: the instance's steps on cpu0 and cpu1 are none. */
	assert_int_equal(nr, 2);
	assert_op(&ops[0], false, 100, 100, down, ARRAY_SIZE(down));
	assert_op(&ops[1], true, 1000, 90, up, ARRAY_SIZE(up));
	schedstat_recording_hotplug_free(ops, nr);
	schedstat_recording_close(rec);
	close(fd);
}

/* No steps: -ENODATA, as for a file made before 1.2. */
static void no_steps_is_enodata(void **state)
{
	struct schedstat_recorded_hotplug *ops;
	struct schedstat_recording *rec;
	size_t nr, damaged;
	int fd = memfd_create("rec", 0);

	record_steps(fd, 0);
	assert_int_equal(schedstat_recording_open(&rec, fd), 0);
	assert_int_equal(schedstat_recording_hotplug(rec, &ops, &nr, &damaged),
			 -ENODATA);
	assert_int_equal(nr, 0);
	schedstat_recording_close(rec);
	close(fd);
}

/* A flipped byte in the CPUHP chunk: reported damaged, nothing made up. */
static void damaged_chunk_is_counted(void **state)
{
	struct schedstat_recorded_hotplug *ops;
	struct schedstat_recording *rec;
	size_t nr, damaged, size;
	uint8_t *file;
	int fd = memfd_create("rec", 0), in;

	record_steps(fd, ARRAY_SIZE(steps));
	size = lseek(fd, 0, SEEK_END);
	file = malloc(size);
	assert_int_equal(pread(fd, file, size, 0), (ssize_t)size);
	close(fd);
	for (size_t off = REC_FILE_HDR_LEN; off + REC_CHUNK_HDR_LEN <= size;) {
		struct rec_chunk_hdr h;

		assert_int_equal(rec_chunk_hdr_decode(file + off, &h), 0);
		if (h.type == REC_CHUNK_CPUHP) {
			file[off + REC_CHUNK_HDR_LEN + h.stored_len / 2] ^= 0x40;
			break;
		}
		off += REC_CHUNK_HDR_LEN + h.stored_len;
	}
	in = memfd_create("in", 0);
	assert_int_equal(write(in, file, size), (ssize_t)size);
	assert_int_equal(schedstat_recording_open(&rec, in), 0);
	assert_int_equal(schedstat_recording_hotplug(rec, &ops, &nr, &damaged), 0);
	assert_int_equal(damaged, 1);
	assert_int_equal(nr, 0);
	schedstat_recording_hotplug_free(ops, nr);
	schedstat_recording_close(rec);
	close(in);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(operations_are_timed_per_state),
		cmocka_unit_test(no_steps_is_enodata),
		cmocka_unit_test(damaged_chunk_is_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
