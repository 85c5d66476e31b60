// SPDX-License-Identifier: GPL-2.0
/*
 * The readers of outside trace files, and the one place that tells a file's
 * format by its content (never by its name): every command that reads a
 * file asks here.
 */
#include <string.h>
#include <unistd.h>

#include "trace_reader.h"

/*
 * In probe order: formats with a magic number first, then those told by
 * their structure, then text.
 */
extern const struct trace_reader_ops trace_dat_reader_ops;
extern const struct trace_reader_ops perfetto_reader_ops;
extern const struct trace_reader_ops ftrace_text_reader_ops;

const struct trace_reader_ops *const trace_readers[] = {
#ifdef HAVE_TRACECMD
	&trace_dat_reader_ops,
#endif
	&perfetto_reader_ops,
	&ftrace_text_reader_ops,
	NULL,
};

const struct trace_reader_ops *trace_reader_detect(int fd)
{
	uint8_t head[4096];
	ssize_t n = pread(fd, head, sizeof(head), 0);

	if (n <= 0)
		return NULL;
	for (size_t i = 0; trace_readers[i]; i++)
		if (trace_readers[i]->probe(fd, head, n))
			return trace_readers[i];
	return NULL;
}
