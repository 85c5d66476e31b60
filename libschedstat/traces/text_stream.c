// SPDX-License-Identifier: GPL-2.0
/*
 * The lines of an ftrace text trace, whatever holds them (text_stream.h):
 * the file is read in chunks, compressed data inflated a chunk at a time,
 * and a line handed out is at most TEXT_LINE_MAX bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ftrace_line.h"
#include "text_stream.h"

#define ZIN_SIZE	(16u << 10)
#define ZOUT_SIZE	(64u << 10)

static const char atrace_marker[] = "TRACE:";

/* ---- the file's bytes ---- */

/*
 * At least @want bytes at buf + pos (fewer only at the end of the file), or
 * -errno. @want is at most TEXT_READ_CHUNK.
 */
static ssize_t fill(struct text_stream *ts, size_t want)
{
	size_t avail = ts->len - ts->pos;

	if (avail >= want || ts->eof)
		return avail;
	if (ts->pos) {
		memmove(ts->buf, ts->buf + ts->pos, avail);
		ts->buf_off += ts->pos;
		ts->pos = 0;
		ts->len = avail;
	}
	while (ts->len < want && !ts->eof) {
		ssize_t n = pread(ts->fd, ts->buf + ts->len, TEXT_READ_CHUNK - ts->len,
				  ts->buf_off + ts->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			ts->eof = true;
		ts->len += n;
	}
	return ts->len - ts->pos;
}

static uint64_t file_offset(const struct text_stream *ts)
{
	return ts->buf_off + ts->pos;
}

/* Past @n bytes of the file, counting its lines. */
static void skip_bytes(struct text_stream *ts, size_t n)
{
	const uint8_t *p = ts->buf + ts->pos, *end = p + n;

	while ((p = memchr(p, '\n', end - p))) {
		ts->file_line++;
		p++;
	}
	ts->pos += n;
}

/* ---- damage ---- */

/* Compressed data that does not make sense: where in the file. */
static int damage_at_offset(struct text_stream *ts, const char *what)
{
	struct trace_damage *d = ts->damage;

	d->set = true;
	d->line = 0;
	d->offset = file_offset(ts);
	snprintf(d->what, sizeof(d->what), "%s", what);
	return -SCHEDSTAT_ERR_TRACE_DAMAGED;
}

/* A line that does not: which line (of the inflated text, if it was compressed). */
static int damage(struct text_stream *ts, const char *what)
{
	struct trace_damage *d = ts->damage;

	d->set = true;
	d->line = ts->lineno;
	d->offset = ts->in_inflated ? ts->line_off : file_offset(ts);
	if (ts->in_inflated)
		snprintf(d->what, sizeof(d->what), "%.80s (of the text inflated from byte %" PRIu64 ")",
			 what, ts->line_off);
	else
		snprintf(d->what, sizeof(d->what), "%s", what);
	return -SCHEDSTAT_ERR_TRACE_DAMAGED;
}

/* ---- compressed data: base64 (HTML) or raw (atrace -z), then inflate ---- */

static int b64_value(uint8_t c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* A zlib header: deflate, a window of at most 32 KB, its check bits right. */
static bool zlib_header(const uint8_t *p, size_t len)
{
	return len >= 2 && (p[0] & 0x0f) == 8 && p[0] >> 4 <= 7 && (p[0] << 8 | p[1]) % 31 == 0;
}

static bool is_space(uint8_t c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/*
 * Compressed bytes into @in (at most @cap): the file's own after atrace's
 * marker, or decoded from a block's base64 up to the "<" of its
 * "</script>". 0 at their end, or damage.
 */
static ssize_t compressed_bytes(struct text_stream *ts, uint8_t *in, size_t cap)
{
	size_t n = 0;
	ssize_t avail;

	if (ts->container == TEXT_ZLIB) {
		avail = fill(ts, 1);
		if (avail <= 0)
			return avail;
		n = (size_t)avail < cap ? (size_t)avail : cap;
		memcpy(in, ts->buf + ts->pos, n);
		ts->pos += n;
		return n;
	}
	while (n + 3 <= cap) {
		const uint8_t *p;

		avail = fill(ts, 1);
		if (avail < 0)
			return avail;
		if (!avail)
			return ts->b64_bits ? damage_at_offset(ts, "base64 trace data cut short") :
					      (ssize_t)n;
		p = ts->buf + ts->pos;
		if (*p == '<' || *p == '=')
			break;		/* the end, or its padding */
		if (is_space(*p)) {
			skip_bytes(ts, 1);
			continue;
		}
		if (b64_value(*p) < 0) {
			char what[64];

			snprintf(what, sizeof(what), "byte 0x%02x in base64 trace data", *p);
			return damage_at_offset(ts, what);
		}
		ts->b64_acc = ts->b64_acc << 6 | b64_value(*p);
		ts->b64_bits += 6;
		ts->pos++;
		if (ts->b64_bits >= 8) {
			ts->b64_bits -= 8;
			in[n++] = ts->b64_acc >> ts->b64_bits;
		}
	}
	return n;
}

static int inflate_more(struct text_stream *ts)
{
	uint8_t *in = ts->out + ZOUT_SIZE;	/* the staging area after out[] */

	ts->opos = ts->olen = 0;
	ts->z.next_out = ts->out;
	ts->z.avail_out = ZOUT_SIZE;
	while (ts->z.avail_out == ZOUT_SIZE && !ts->z_end) {
		int ret;

		if (!ts->z.avail_in) {
			ssize_t n = compressed_bytes(ts, in, ZIN_SIZE);

			if (n < 0)
				return n;
			if (!n)
				return damage_at_offset(ts, "compressed trace data cut short");
			ts->z.next_in = in;
			ts->z.avail_in = n;
			ts->z_in += n;
		}
		ret = inflate(&ts->z, Z_NO_FLUSH);
		if (ret == Z_STREAM_END) {
			ts->z_end = true;
		} else if (ret != Z_OK && (ret != Z_BUF_ERROR || ts->z.avail_in)) {
			char what[128];

			snprintf(what, sizeof(what), "compressed trace data that does not "
				 "inflate (zlib: %.32s)%s", ts->z.msg ? ts->z.msg : "error",
				 ts->container == TEXT_ZLIB ? "; adb shell's \\r\\n? use exec-out" :
				 "");
			return damage_at_offset(ts, what);
		}
	}
	ts->olen = ZOUT_SIZE - ts->z.avail_out;
	ts->z_out += ts->olen;
	if (ts->z_out > TEXT_INFLATE_SLACK + (uint64_t)TEXT_INFLATE_RATIO * ts->z_in)
		return damage_at_offset(ts, "compressed trace data that inflates past 256 "
					"times its size (a deflate bomb)");
	return 0;
}

static int inflate_start(struct text_stream *ts)
{
	memset(&ts->z, 0, sizeof(ts->z));
	/* 15 + 32: a zlib or a gzip header, whichever it has. */
	if (inflateInit2(&ts->z, 15 + 32) != Z_OK)
		return -ENOMEM;
	ts->z_on = true;
	ts->z_end = false;
	ts->opos = ts->olen = 0;
	ts->b64_acc = 0;
	ts->b64_bits = 0;
	ts->z_in = ts->z_out = 0;
	ts->text_line = 1;
	ts->line_off = file_offset(ts);
	return 0;
}

static void inflate_stop(struct text_stream *ts)
{
	if (ts->z_on)
		inflateEnd(&ts->z);
	ts->z_on = false;
	ts->opos = ts->olen = 0;
}

/* ---- text bytes and lines ---- */

/* The next bytes of text at *p: their number, 0 at the end of the text, or damage. */
static ssize_t text_avail(struct text_stream *ts, const uint8_t **p)
{
	if (!ts->z_on) {
		ssize_t n = fill(ts, 1);

		*p = ts->buf + ts->pos;
		return n;
	}
	while (ts->opos == ts->olen) {
		int err;

		if (ts->z_end)
			return 0;
		err = inflate_more(ts);
		if (err)
			return err;
	}
	*p = ts->out + ts->opos;
	return ts->olen - ts->opos;
}

static void text_take(struct text_stream *ts, size_t n, bool newline)
{
	if (ts->z_on) {
		ts->opos += n;
		ts->text_line += newline;
	} else {
		ts->pos += n;
		ts->file_line += newline;
	}
}

/* One line into ts->line: 1, 0 at the end of the text, or damage. */
static int read_line(struct text_stream *ts)
{
	size_t n = 0;

	ts->in_inflated = ts->z_on;
	ts->lineno = ts->z_on ? ts->text_line : ts->file_line;
	for (;;) {
		const uint8_t *p, *nl;
		ssize_t avail = text_avail(ts, &p);
		size_t take;

		if (avail < 0)
			return avail;
		if (!avail) {
			if (!n)
				return 0;
			return damage(ts, "the last line is cut short (no newline at its end)");
		}
		nl = memchr(p, '\n', avail);
		take = nl ? (size_t)(nl - p) : (size_t)avail;
		if (n + take > TEXT_LINE_MAX)
			return damage(ts, "a line longer than 4096 bytes");
		memcpy(ts->line + n, p, take);
		n += take;
		text_take(ts, take + (nl != NULL), nl != NULL);
		if (nl)
			break;
	}
	/* adb shell's "\r\n" (on Windows "\r\r\n"). */
	while (n && ts->line[n - 1] == '\r')
		n--;
	ts->line[n] = '\0';
	ts->line_len = n;
	if (memchr(ts->line, '\0', n))
		return damage(ts, "a NUL byte: binary data, not text");
	return 1;
}

/* ---- HTML ---- */

/*
 * To the file's next '<' with at least @want bytes from it in the buffer
 * (fewer at the end of the file): their number, 0 at the end, or -errno.
 */
static ssize_t next_lt(struct text_stream *ts, size_t want)
{
	for (;;) {
		ssize_t avail = fill(ts, 1);
		const uint8_t *lt;

		if (avail <= 0)
			return avail;
		lt = memchr(ts->buf + ts->pos, '<', avail);
		if (lt) {
			skip_bytes(ts, lt - (ts->buf + ts->pos));
			return fill(ts, want);
		}
		skip_bytes(ts, avail);
	}
}

/* Past the next "</script>" (case aside), or to the end of the file. */
static int skip_block(struct text_stream *ts)
{
	inflate_stop(ts);
	ts->block = BLOCK_NONE;
	for (;;) {
		ssize_t avail = next_lt(ts, 9);

		if (avail <= 0)
			return avail;
		if (avail >= 9 && !strncasecmp((const char *)ts->buf + ts->pos, "</script>", 9)) {
			skip_bytes(ts, 9);
			return 0;
		}
		skip_bytes(ts, 1);
	}
}

/* Whether a block's first line is ftrace text (a header, or an event line). */
static bool ftrace_first_line(const char *line, size_t len)
{
	return line[0] == '#' || ftrace_line_is_event(line, len);
}

/*
 * The block whose data starts here: compressed or plain, and ftrace text
 * or not (JSON, a process or cgroup dump: skipped). 1 with its first line
 * in ts->line, 0 if skipped, or damage.
 */
static int start_block(struct text_stream *ts)
{
	const uint8_t *p;
	char *end;
	ssize_t avail;
	int err;

	for (;;) {
		avail = fill(ts, 4);
		if (avail <= 0)
			return avail;
		if (!is_space(ts->buf[ts->pos]))
			break;
		skip_bytes(ts, 1);
	}
	p = ts->buf + ts->pos;
	ts->block_off = file_offset(ts);
	ts->block = BLOCK_PLAIN;
	if (avail >= 4 && b64_value(p[0]) >= 0 && b64_value(p[1]) >= 0 &&
	    b64_value(p[2]) >= 0) {
		uint8_t b0 = b64_value(p[0]) << 2 | b64_value(p[1]) >> 4;
		uint8_t b1 = (b64_value(p[1]) & 15) << 4 | b64_value(p[2]) >> 2;

		/* gzip's magic, or a zlib header (deflate, its check bits right). */
		if ((b0 == 0x1f && b1 == 0x8b) || zlib_header((const uint8_t[]){ b0, b1 }, 2)) {
			ts->block = BLOCK_BASE64;
			err = inflate_start(ts);
			if (err)
				return err;
		}
	}
	/* The text's first bytes: JSON is not ftrace text. */
	for (;;) {
		avail = text_avail(ts, &p);
		if (avail < 0)
			return avail;
		if (!avail || !is_space(*p))
			break;
		text_take(ts, 1, *p == '\n');
	}
	if (!avail || *p == '{' || *p == '[' || *p == '<')
		return skip_block(ts);
	err = read_line(ts);
	if (err == -SCHEDSTAT_ERR_TRACE_DAMAGED && !ts->z_on) {
		/* A long line of something else (a script): not ours. */
		ts->damage->set = false;
		return skip_block(ts);
	}
	if (err <= 0)
		return err;
	/* A block that ends in its first line (a script's string that looked like one). */
	end = strcasestr(ts->line, "</script>");
	if (end) {
		*end = '\0';
		ts->line_len = end - ts->line;
		ts->block = BLOCK_NONE;
		inflate_stop(ts);
	}
	/* Legacy systrace wrote each line as a JavaScript string's: "...\n\". */
	ts->legacy_eol = ts->line_len >= 3 && !strcmp(ts->line + ts->line_len - 3, "\\n\\");
	if (ts->legacy_eol)
		ts->line[ts->line_len -= 3] = '\0';
	if (!ftrace_first_line(ts->line, ts->line_len))
		return end ? 0 : skip_block(ts);
	return 1;
}

/* The next trace block's first line: 1, 0 when the file has no more, or damage. */
static int next_block(struct text_stream *ts)
{
	for (;;) {
		ssize_t avail = next_lt(ts, TEXT_TAG_MAX);
		const uint8_t *gt, *tag;
		bool ours;
		int ret;

		if (avail <= 0)
			return avail;
		tag = ts->buf + ts->pos;
		if (avail < 8 || strncasecmp((const char *)tag, "<script", 7) ||
		    !(gt = memchr(tag, '>', avail))) {
			skip_bytes(ts, 1);
			continue;
		}
		ours = memmem(tag, gt - tag, "trace-data", 10) ||
		       memmem(tag, gt - tag, "viewer-data", 11);
		skip_bytes(ts, gt + 1 - tag);
		if (!ours)
			continue;
		ret = start_block(ts);
		if (ret)
			return ret;
	}
}

/* ---- the stream ---- */

/* A systrace HTML: it opens as HTML (after a byte-order mark and blanks). */
static bool html_head(const uint8_t *head, size_t len)
{
	size_t i = 0;

	if (len >= 3 && !memcmp(head, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && is_space(head[i]))
		i++;
	return (len - i >= 14 && !strncasecmp((const char *)head + i, "<!doctype html", 14)) ||
	       (len - i >= 5 && !strncasecmp((const char *)head + i, "<html", 5));
}

/* After atrace's "TRACE:" line in @head, or 0 if it has none. */
static size_t after_atrace_marker(const uint8_t *head, size_t len)
{
	const uint8_t *p = head, *end = head + len;

	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;

		while (n && p[n - 1] == '\r')
			n--;
		if (nl && n == sizeof(atrace_marker) - 1 && !memcmp(p, atrace_marker, n))
			return nl + 1 - head;
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

/* Whether a systrace HTML holds a trace block: searched up to 256 MB in. */
static bool html_has_block(int fd)
{
	static const char *const marks[] = { "class=\"trace-data\"", "id=\"viewer-data\"" };
	uint8_t buf[64 << 10];
	uint64_t off = 0;
	ssize_t n;
	size_t keep = 0;

	while (off < (256ull << 20) &&
	       (n = pread(fd, buf + keep, sizeof(buf) - keep, off)) > 0) {
		size_t len = keep + n;

		for (size_t i = 0; i < 2; i++)
			if (memmem(buf, len, marks[i], strlen(marks[i])))
				return true;
		off += n;
		/* A mark across two reads. */
		keep = len < 32 ? len : 32;
		memmove(buf, buf + len - keep, keep);
	}
	return false;
}

bool text_stream_probe(int fd, const uint8_t *head, size_t len)
{
	size_t start, i = 0;
	int lines = 0;

	if (html_head(head, len))
		return html_has_block(fd);
	start = after_atrace_marker(head, len);
	if (start && zlib_header(head + start, len - start))
		return true;
	/* The first lines of text that lie whole in the head. */
	for (i = start; i < len && lines < 32; lines++) {
		const uint8_t *nl = memchr(head + i, '\n', len - i);
		char line[TEXT_LINE_MAX + 1];
		size_t n;

		if (!nl)
			break;
		n = nl - (head + i);
		while (n && head[i + n - 1] == '\r')
			n--;
		if (n > TEXT_LINE_MAX || memchr(head + i, '\0', n))
			return false;
		memcpy(line, head + i, n);
		line[n] = '\0';
		i = nl + 1 - head;
		switch (ftrace_line_header(line)) {
		case FTRACE_HEADER_TRACE:
			return true;
		case FTRACE_HEADER_OTHER:
			continue;
		default:
			return ftrace_line_is_event(line, n);
		}
	}
	return false;
}

int text_stream_open(struct text_stream *ts, int fd, struct trace_damage *damage)
{
	uint8_t head[4096];
	ssize_t n = pread(fd, head, sizeof(head), 0);

	memset(ts, 0, sizeof(*ts));
	ts->fd = fd;
	ts->damage = damage;
	if (n < 0)
		return -errno;
	if (html_head(head, n)) {
		ts->container = TEXT_HTML;
	} else {
		ts->start = after_atrace_marker(head, n);
		ts->container = ts->start && zlib_header(head + ts->start, n - ts->start) ?
				TEXT_ZLIB : TEXT_PLAIN;
	}
	ts->buf = malloc(TEXT_READ_CHUNK);
	ts->out = malloc(ZOUT_SIZE + ZIN_SIZE);
	if (!ts->buf || !ts->out) {
		text_stream_close(ts);
		return -ENOMEM;
	}
	return text_stream_rewind(ts);
}

int text_stream_rewind(struct text_stream *ts)
{
	ssize_t n;

	inflate_stop(ts);
	ts->pos = ts->len = 0;
	ts->buf_off = 0;
	ts->eof = false;
	ts->file_line = 1;
	ts->block = BLOCK_NONE;
	ts->lineno = 0;
	/* Past atrace's preamble, its lines counted. */
	n = fill(ts, ts->start);
	if (n < 0)
		return n;
	skip_bytes(ts, ts->start < (uint64_t)n ? ts->start : (uint64_t)n);
	if (ts->container == TEXT_ZLIB)
		return inflate_start(ts);
	return 0;
}

void text_stream_close(struct text_stream *ts)
{
	inflate_stop(ts);
	free(ts->buf);
	free(ts->out);
	ts->buf = NULL;
	ts->out = NULL;
}

int text_stream_line(struct text_stream *ts)
{
	for (;;) {
		char *end;
		int ret;

		if (ts->container != TEXT_HTML)
			return read_line(ts);
		if (ts->block == BLOCK_NONE) {
			ret = next_block(ts);
			if (ret <= 0)
				return ret;
		} else {
			ret = read_line(ts);
			if (ret < 0)
				return ret;
			if (!ret && ts->block == BLOCK_PLAIN)
				return damage(ts, "the file ends inside a trace-data block "
					      "(no </script>): cut short");
			if (!ret) {
				/* The end of a compressed block's text: on to its </script>. */
				ret = skip_block(ts);
				if (ret < 0)
					return ret;
				continue;
			}
			if (ts->legacy_eol && ts->line_len >= 3 &&
			    !strcmp(ts->line + ts->line_len - 3, "\\n\\"))
				ts->line[ts->line_len -= 3] = '\0';
		}
		if (ts->block == BLOCK_PLAIN && (end = strcasestr(ts->line, "</script>"))) {
			ts->block = BLOCK_NONE;
			*end = '\0';
			ts->line_len = end - ts->line;
			/* What the line had before it, if anything. */
			while (ts->line_len && is_space(ts->line[ts->line_len - 1]))
				ts->line[--ts->line_len] = '\0';
			if (!ts->line_len)
				continue;
		}
		return 1;
	}
}

const char *text_stream_kind(const struct text_stream *ts)
{
	switch (ts->container) {
	case TEXT_HTML:
		return "systrace html";
	case TEXT_ZLIB:
		return "atrace -z";
	default:
		return "ftrace text";
	}
}
