/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lines of an ftrace text trace, streamed from the file whatever holds
 * them (ftrace_text_reader.c reads the lines):
 *
 *  - plain text: the kernel's trace or trace_pipe, trace-cmd report's
 *    output, atrace's (after its "TRACE:" line);
 *  - atrace -z: "TRACE:" then one zlib stream (what systrace --from-file
 *    reads);
 *  - a systrace HTML: the text in its <script class="trace-data"> blocks
 *    (catapult's systrace, Android Studio; legacy systrace ended each line
 *    with a JavaScript "\n\"), or in the <script id="viewer-data"> blocks
 *    trace2html writes (base64 of gzip: systrace with more than four
 *    agents). Blocks of other data (Chrome JSON, process and cgroup dumps)
 *    are skipped.
 *
 * Every length is bounded: a line at TEXT_LINE_MAX, a tag at
 * TEXT_TAG_MAX, compressed data at TEXT_INFLATE_RATIO times its size (a
 * deflate bomb stops there); memory does not grow with the file.
 */
#ifndef SCHEDSTAT_TEXT_STREAM_H
#define SCHEDSTAT_TEXT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "trace_reader.h"

#define TEXT_LINE_MAX		4096
#define TEXT_TAG_MAX		512
#define TEXT_READ_CHUNK		(64u << 10)
/* Compressed trace data may inflate to this many times its size, plus 64 MB. */
#define TEXT_INFLATE_RATIO	256
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define TEXT_INFLATE_SLACK	(1ull << 20)	/* a run stays within libFuzzer's timeout */
#else
#define TEXT_INFLATE_SLACK	(64ull << 20)
#endif

enum text_container {
	TEXT_PLAIN,		/* text from @start on */
	TEXT_ZLIB,		/* atrace -z: a zlib stream from @start on */
	TEXT_HTML,		/* the trace blocks of a systrace HTML */
};

enum text_block {
	BLOCK_NONE,		/* HTML: between blocks */
	BLOCK_PLAIN,		/* text up to "</script>" */
	BLOCK_BASE64,		/* base64 of gzip or zlib up to "<" */
};

struct text_stream {
	int fd;
	enum text_container container;
	uint64_t start;			/* where the text (or zlib) begins */
	/* The file's bytes: buf[pos, len) is at file offset buf_off + pos. */
	uint8_t *buf;
	size_t pos, len;
	uint64_t buf_off;
	bool eof;
	unsigned long file_line;	/* newlines of the file before buf + pos, + 1 */
	/* HTML */
	enum text_block block;
	uint64_t block_off;		/* where the block's data starts */
	bool legacy_eol;		/* legacy systrace's "\n\" line ends */
	/* Compressed data: inflated into out[opos, olen). */
	z_stream z;
	bool z_on, z_end;
	uint8_t *out;
	size_t opos, olen;
	uint8_t b64[3];			/* decoded, not yet inflated */
	uint32_t b64_acc;
	int b64_bits;
	uint64_t z_in, z_out;		/* compressed bytes taken, text made */
	unsigned long text_line;	/* of the inflated text, 1-based */
	/* The line handed out: NUL-terminated, without its newline. */
	char line[TEXT_LINE_MAX + 1];
	size_t line_len;
	unsigned long lineno;		/* the file's line, or the inflated text's */
	bool in_inflated;		/* lineno counts inflated text */
	uint64_t line_off;		/* where that text began in the file */
	struct trace_damage *damage;
};

/* Which container the file is, from its first @len bytes (and @fd): false if none. */
bool text_stream_probe(int fd, const uint8_t *head, size_t len);
/*
 * @damage gets the place and reason when the file stops making sense.
 * 0, -ENOMEM, or -SCHEDSTAT_ERR_TRACE_FORMAT when it is no text trace.
 */
int text_stream_open(struct text_stream *ts, int fd, struct trace_damage *damage);
int text_stream_rewind(struct text_stream *ts);
void text_stream_close(struct text_stream *ts);
/*
 * The next line of trace text into ts->line (ts->line_len, ts->lineno):
 * 1, 0 at the end, or -SCHEDSTAT_ERR_TRACE_DAMAGED with the damage said
 * (a line longer than TEXT_LINE_MAX, one cut short at the end of the file,
 * a NUL byte, compressed data that does not inflate or inflates too far).
 */
int text_stream_line(struct text_stream *ts);
/* Whether the text came from a systrace HTML, compressed data, or plainly. */
const char *text_stream_kind(const struct text_stream *ts);

#endif /* SCHEDSTAT_TEXT_STREAM_H */
