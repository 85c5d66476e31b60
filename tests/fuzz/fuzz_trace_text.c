// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for ftrace text (the kernel's trace, atrace, trace-cmd
 * report, systrace HTML plain or compressed): any bytes, read by the text
 * reader alone (ftrace_text_reader.c, whether or not its probe takes them:
 * both passes, every event), then, when its probe does take them, opened
 * as csv --from, report, replay and convert open a file (trace_source.c,
 * the driver every trace reader feeds) and sampled to the end. An error or
 * rows, never a crash, a leak, undefined behaviour or a hang (ASan and
 * UBSan, see the Makefile). No libtracecmd: text needs none.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "source.h"
#include "trace_reader.h"

extern const struct trace_reader_ops ftrace_text_reader_ops;

static void reader_alone(int fd, const char *path)
{
	const struct trace_reader_ops *ops = &ftrace_text_reader_ops;
	struct trace_reader_info info = {};
	struct trace_ev ev;
	void *r;

	if (ops->open(&r, fd, path, &info))
		return;
	for (int pass = 0; pass < 2; pass++) {
		for (long n = 0; n < 10000000 && ops->next(r, &ev) > 0; n++)
			;
		if (ops->rewind(r))
			break;
	}
	ops->close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct schedstat_session_opts opts = {
		.sz = sizeof(opts),
		.topology = "LITTLE:0,3-5@446,big:1-2@1024",
		/* A sample per trace hour, at most 200: any timestamp span stays a few. */
		.trace_interval_ns = 3600ULL * 1000000000ULL,
		.pelt_scheme = SCHEDSTAT_PELT_AUTO,
	};
	const struct source_ops *ops = &trace_source_ops;
	struct schedstat_trace_info ti = {};
	struct schedstat_snapshot *snap;
	char path[64];
	void *src;
	int fd = memfd_create("fuzz-text", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	reader_alone(fd, path);
	if (!ftrace_text_reader_ops.probe(fd, data, size < 4096 ? size : 4096)) {
		close(fd);
		return 0;
	}
	opts.trace_file = path;
	opts.trace_info = &ti;
	/* Half the inputs without a topology: the single-cluster path. */
	if (size && data[size - 1] & 1)
		opts.topology = NULL;
	if (!ops->open(&src, &opts)) {
		for (int i = 0; i < 200; i++) {
			if (ops->sample(src, &snap))
				break;
			schedstat_snapshot_free(snap);
		}
		ops->close(src);
	}
	close(fd);
	return 0;
}
