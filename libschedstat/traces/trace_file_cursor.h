/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a trace-cmd file for trace_file_check(): a cursor over the file
 * (or over bytes inflated from it) whose reads fail, and stay failed, at
 * the first byte outside it. Shared by trace_file_check.c (the layouts),
 * trace_file_formats.c (the texts) and trace_file_pages.c (the data).
 */
#ifndef SCHEDSTAT_TRACE_FILE_CURSOR_H
#define SCHEDSTAT_TRACE_FILE_CURSOR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

struct cursor {
	int fd;
	const uint8_t *mem;	/* inflated data to read instead of the file */
	uint64_t pos, size;
	bool swap;		/* big-endian file */
	bool bad;
	uint32_t page_size;
	int long_size;
	bool compressed;	/* v7 with a compression algorithm */
	char algo[16];		/* its name */
};

/*
 * A kernel's ring-buffer page is its PAGE_SIZE: a power of two from 4 KiB
 * (libtracecmd maps data by it); the largest, with room to spare.
 */
#define MAX_PAGE_SIZE		(1U << 20)

/*
 * More than any section or chunk a recorder writes uncompressed (kallsyms
 * of a big kernel are tens of MiB): libtracecmd allocates what it says.
 */
#define MAX_UNCOMPRESSED	(256U << 20)

static inline bool cur_take(struct cursor *c, void *buf, uint64_t n)
{
	if (c->bad || n > c->size || c->pos > c->size - n ||
	    (c->mem ? !memcpy(buf, c->mem + c->pos, n) :
	     pread(c->fd, buf, n, c->pos) != (ssize_t)n)) {
		c->bad = true;
		return false;
	}
	c->pos += n;
	return true;
}

static inline bool cur_skip(struct cursor *c, uint64_t n)
{
	if (c->bad || n > c->size || c->pos > c->size - n) {
		c->bad = true;
		return false;
	}
	c->pos += n;
	return true;
}

static inline uint64_t cur_num(struct cursor *c, int bytes)
{
	uint8_t b[8] = {};
	uint64_t v = 0;

	if (!cur_take(c, b, bytes))
		return 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)b[c->swap ? bytes - 1 - i : i] << (8 * i);
	return v;
}

/* A NUL-terminated string of at most @max bytes, into @buf if given. */
static inline bool cur_cstr(struct cursor *c, char *buf, size_t max)
{
	char ch;

	for (size_t i = 0; i < max; i++) {
		if (!cur_take(c, &ch, 1))
			return false;
		if (buf)
			buf[i] = ch;
		if (!ch)
			return true;
	}
	c->bad = true;
	return false;
}

/* u@bytes length, then that many bytes. */
static inline bool cur_blob(struct cursor *c, int bytes)
{
	return cur_skip(c, cur_num(c, bytes));
}

static inline bool cur_in_file(const struct cursor *c, uint64_t off, uint64_t len)
{
	return off <= c->size && len <= c->size - off;
}

static inline uint64_t cur_get(const struct cursor *c, const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[c->swap ? bytes - 1 - i : i] << (8 * i);
	return v;
}

/* trace_file_pages.c */
/* A CPU's data: whole pages inside the file, each as kbuffer will walk it. */
bool tfc_check_cpu_data(struct cursor *c, uint64_t off, uint64_t size);
/* @csize bytes at @off inflated to exactly @usize (free() it), or NULL. */
uint8_t *tfc_inflate_at(const struct cursor *c, uint64_t off,
			uint32_t csize, uint32_t usize);

/* trace_file_formats.c */
bool tfc_header_info(struct cursor *c);
bool tfc_ftrace_formats(struct cursor *c);
bool tfc_event_formats(struct cursor *c);
bool tfc_printk_formats(struct cursor *c);

#endif /* SCHEDSTAT_TRACE_FILE_CURSOR_H */
