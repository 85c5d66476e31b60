// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for trace-cmd files: any bytes, opened through
 * schedtop's trace source (trace_source.c with the trace.dat reader,
 * trace_dat_reader.c: the path of csv
 * --trace, report, replay, convert and csv --from) and sampled to the end,
 * must give an error or rows, never a crash, a leak, undefined behaviour or
 * a hang (built with ASan and UBSan, see the Makefile). libtracecmd opens
 * files by path: the input goes to a memfd, named by /proc/self/fd.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "source.h"

/*
 * libtraceevent and libtracecmd (3.1.6, Debian 12) leak a few bytes of a
 * damaged event format or header they refuse: theirs, bounded by one per
 * open, and not schedtop's to free. Leaks anywhere else still fail.
 */
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:libtracecmd.so\n";
}

/*
 * A length inside a zstd-compressed section is only seen once inflated,
 * by libtracecmd, which then asks malloc() for it: exabytes fail there and
 * it gives up (the file is refused as damaged). ASan would abort instead.
 */
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct schedstat_session_opts opts = {
		.sz = sizeof(opts),
		.topology = "LITTLE:0,3-5@446,big:1-2@1024",
		/* A sample per trace hour: any timestamp span stays a few. */
		.trace_interval_ns = 3600ULL * 1000000000ULL,
		.pelt_scheme = SCHEDSTAT_PELT_AUTO,
	};
	const struct source_ops *ops = &trace_source_ops;
	struct schedstat_snapshot *snap;
	char path[64];
	void *src;
	int fd = memfd_create("fuzz-trace", MFD_CLOEXEC), err;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	opts.trace_file = path;
	/* Half the inputs without a topology: the single-cluster path. */
	if (size && data[size - 1] & 1)
		opts.topology = NULL;
	if (!ops->open(&src, &opts)) {
		for (int i = 0; i < 100000; i++) {
			err = ops->sample(src, &snap);
			if (err)
				break;
			schedstat_snapshot_free(snap);
		}
		ops->close(src);
	}
	close(fd);
	return 0;
}
