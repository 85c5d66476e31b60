// SPDX-License-Identifier: GPL-2.0
/*
 * A trace-cmd file's ring-buffer data, checked as libtraceevent's kbuffer
 * will walk it: whole pages inside the file, each event inside its page's
 * committed size; compressed data inflated chunk by chunk first.
 */
#ifdef HAVE_TRACECMD
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "trace_file_cursor.h"

/* The ring buffer's page header and event types (kernel/trace/ring_buffer.c). */
#define COMMIT_MASK		((1U << 27) - 1)
#define MISSING_EVENTS		(1ULL << 31)
#define MISSING_STORED		(1ULL << 30)
#define TYPE_DATA_MAX		28
#define TYPE_PADDING		29

/*
 * One ring-buffer page as libtraceevent's kbuffer walks it: the committed
 * size inside the page, every event's length inside the committed size
 * and moving forward (kbuffer follows them blindly).
 */
static bool check_page(const struct cursor *c, const uint8_t *page)
{
	uint32_t start = 8 + c->long_size, off = 0;
	uint64_t flags = cur_get(c, page + 8, c->long_size);
	uint32_t commit = flags & COMMIT_MASK;

	if (commit > c->page_size - start)
		return false;
	if ((flags & MISSING_EVENTS) && (flags & MISSING_STORED) &&
	    commit + c->long_size > c->page_size - start)
		return false;
	while (off < commit) {
		const uint8_t *ev = page + start + off;
		uint32_t hdr, type_len, len;

		if (commit - off < 4)
			return false;
		hdr = cur_get(c, ev, 4);
		/* type_len is the low 5 bits, or the high 5 big-endian. */
		type_len = c->swap ? hdr >> 27 : hdr & 31;
		if (type_len == 0 || type_len == TYPE_PADDING) {
			if (type_len == TYPE_PADDING && !(c->swap ? hdr & COMMIT_MASK : hdr >> 5))
				return true;	/* the rest of the page */
			if (commit - off < 8)
				return false;
			len = cur_get(c, ev + 4, 4);
			if (len < 4 || len > commit)
				return false;
			/* Header, length word, data rounded to words. */
			len = type_len ? 4 + len : 8 + ((len - 4 + 3) & ~3U);
		} else if (type_len <= TYPE_DATA_MAX) {
			len = 4 + type_len * 4;
		} else {
			len = 8;	/* time extend, time stamp */
		}
		if (len > commit - off)
			return false;
		off += len;
	}
	return true;
}

/* Compressed CPU data: a count of chunks, each sized inside the data. */
static bool check_chunks(struct cursor *c, uint64_t off, uint64_t size)
{
	/* The size trace-cmd 3.1 records leaves out the count itself. */
	uint64_t save = c->pos, end = off + size + 4;
	uint32_t count;
	bool ok = true;

	if (!size)
		return true;
	if (end > c->size)
		end = c->size;
	c->pos = off;
	count = cur_num(c, 4);
	for (uint32_t i = 0; ok && i < count; i++) {
		uint32_t csize = cur_num(c, 4), usize = cur_num(c, 4);
		uint8_t *pages;

		ok = !c->bad && usize <= MAX_UNCOMPRESSED &&
		     !(usize % c->page_size) && csize <= end - c->pos;
		/* Its pages, inflated, as check_page() says. */
		pages = ok ? tfc_inflate_at(c, c->pos, csize, usize) : NULL;
		ok = ok && pages;
		for (uint32_t p = 0; ok && p < usize; p += c->page_size)
			ok = check_page(c, pages + p);
		free(pages);
		ok = ok && cur_skip(c, csize);
	}
	ok = ok && !c->bad && c->pos <= end;
	c->pos = save;
	return ok;
}

/* A CPU's data: whole pages inside the file, each as check_page() says. */
bool tfc_check_cpu_data(struct cursor *c, uint64_t off, uint64_t size)
{
	uint8_t *page;
	bool ok = true;

	if (!cur_in_file(c, off, size))
		return false;
	/* Compressed chunks: their sizes (their pages are zstd's to check). */
	if (c->compressed)
		return check_chunks(c, off, size);
	if (!size)
		return true;
	/*
	 * libtracecmd maps it page by page from an aligned offset; the last
	 * page may be cut (trace-cmd extract stores only what it holds), and
	 * is read as a whole page all the same.
	 */
	if (off % c->page_size)
		return false;
	page = malloc(c->page_size);
	if (!page)
		return false;
	for (uint64_t p = 0; ok && p < size; p += c->page_size) {
		uint64_t n = size - p < c->page_size ? size - p : c->page_size;

		memset(page, 0, c->page_size);
		ok = pread(c->fd, page, n, off + p) == (ssize_t)n &&
		     check_page(c, page);
	}
	free(page);
	return ok;
}

/*
 * @csize bytes at @off inflated to exactly @usize (free() it), or NULL:
 * libtracecmd would inflate them too, and trust what comes out.
 */
uint8_t *tfc_inflate_at(const struct cursor *c, uint64_t off,
			uint32_t csize, uint32_t usize)
{
	uint8_t *in = malloc(csize ? csize : 1), *out = malloc(usize ? usize : 1);
	bool ok = in && out && cur_in_file(c, off, csize) &&
		  pread(c->fd, in, csize, off) == (ssize_t)csize;

	if (ok && !strcmp(c->algo, "zstd")) {
		size_t n = ZSTD_decompress(out, usize, in, csize);

		ok = !ZSTD_isError(n) && n == usize;
	} else if (ok && !strcmp(c->algo, "zlib")) {
		uLongf n = usize;

		ok = uncompress(out, &n, in, csize) == Z_OK && n == usize;
	} else {
		ok = false;	/* no other algorithm in trace-cmd 3.1 */
	}
	free(in);
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}

#endif /* HAVE_TRACECMD */
