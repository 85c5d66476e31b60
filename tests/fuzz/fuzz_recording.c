// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the recording reader: any bytes, opened as a file,
 * read sample by sample, must give an error or data, never a crash, a leak
 * or undefined behaviour (built with ASan and UBSan, see the Makefile).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "schedstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct schedstat_recording *rec;
	struct schedstat_recording_info info;
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size || schedstat_recording_open(&rec, fd)) {
		close(fd);
		return 0;
	}
	close(fd);
	/*
	 * Half the inputs read by other clusters (--topology on a recording):
	 * the rows regrouped from whatever CPUs the damaged file claims.
	 */
	if (size && data[size - 1] & 1)
		schedstat_recording_regroup(rec, (data[size - 1] & 2) ? "one:0-1" :
					    "a:1,b:0@512");
	schedstat_recording_info(rec, &info);
	schedstat_recording_meta(rec, "kernel");
	for (size_t i = 0; i < info.nr_samples; i++) {
		const struct schedstat_event *evs;
		struct schedstat_snapshot *snap;
		size_t nr_evs, n;

		if (schedstat_recording_sample(rec, i, &snap, &evs, &nr_evs))
			continue;
		schedstat_snapshot_tasks(snap, &n);
		schedstat_snapshot_free(snap);
	}
	schedstat_recording_find(rec, info.last_ts_ns / 2);
	/* PELT chunks (1.1): every update, damaged chunks skipped. */
	{
		struct schedstat_pelt_update u;
		int err;

		while ((err = schedstat_recording_pelt_next(rec, &u)) != -ENODATA)
			if (err && err != -EBADMSG)
				break;
		schedstat_recording_pelt_dropped(rec);
	}
	/* CPUHP chunks (1.2): steps grouped into operations and timed. */
	{
		struct schedstat_recorded_hotplug *ops;
		size_t nr, damaged;

		if (!schedstat_recording_hotplug(rec, &ops, &nr, &damaged))
			schedstat_recording_hotplug_free(ops, nr);
	}
	/* CLOCK chunks (1.4): the pairs, in order on both clocks. */
	{
		const struct schedstat_clock_pair *pairs;
		size_t nr;

		if (!schedstat_recording_clocks(rec, &pairs, &nr))
			for (size_t i = 1; i < nr; i++)
				if (pairs[i].monotonic_ns <= pairs[i - 1].monotonic_ns)
					__builtin_trap();
	}
	schedstat_recording_close(rec);
	return 0;
}
