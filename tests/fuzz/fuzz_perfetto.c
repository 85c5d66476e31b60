// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for Perfetto traces: any bytes, read by the Perfetto
 * reader directly (every event, twice, as the driver reads a file), then,
 * if they pass its probe, as a session through the trace driver
 * (trace_source.c: the per-CPU merge, the window, the engine, the model),
 * sampled to the end. An error or rows, never a crash, a leak, undefined
 * behaviour, a hang or unbounded memory (built with ASan and UBSan, see the
 * Makefile). The input goes to a memfd, named by /proc/self/fd.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "source.h"
#include "trace_reader.h"

extern const struct trace_reader_ops perfetto_reader_ops;

/* Every event the reader gives, then again after a rewind. */
static void read_all(int fd, const char *path, size_t size)
{
	const struct trace_reader_ops *ops = &perfetto_reader_ops;
	struct trace_reader_info *info = calloc(1, sizeof(*info));
	struct trace_ev ev;
	uint64_t first = 0, second = 0;
	void *r;

	if (!info)
		return;
	if (!ops->open(&r, fd, path, info)) {
		while (ops->next(r, &ev) > 0)
			first++;
		/* Damage is said at an offset in the file. */
		if (info->damage.set && info->damage.offset > size)
			__builtin_trap();
		if (!ops->rewind(r)) {
			info->damage.set = false;
			while (ops->next(r, &ev) > 0)
				second++;
			/* A file reads the same every time. */
			if (first != second)
				__builtin_trap();
		}
		ops->close(r);
	}
	free(info);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct schedstat_trace_info ti;
	struct schedstat_session_opts opts = {
		.sz = sizeof(opts),
		.topology = "LITTLE:0-3@160,mid:4-5@498,big:6-7@1024",
		/* A sample per trace hour: any timestamp span stays a few. */
		.trace_interval_ns = 3600ULL * 1000000000ULL,
		.pelt_scheme = SCHEDSTAT_PELT_AUTO,
		.trace_info = &ti,
	};
	const struct source_ops *ops = &trace_source_ops;
	struct schedstat_snapshot *snap;
	char path[64];
	void *src;
	int fd = memfd_create("fuzz-perfetto", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	read_all(fd, path, size);
	opts.trace_file = path;
	/* Half the inputs without a topology: the single-cluster path. */
	if (size && data[size - 1] & 1)
		opts.topology = NULL;
	if (!ops->open(&src, &opts)) {
		for (int i = 0; i < 1000; i++) {
			if (ops->sample(src, &snap))
				break;
			schedstat_snapshot_free(snap);
		}
		ops->close(src);
	}
	close(fd);
	return 0;
}
