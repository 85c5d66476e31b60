// SPDX-License-Identifier: GPL-2.0
/*
 * A trace-cmd file's layout checked before libtracecmd opens it: every
 * length and offset the file declares must lie inside it. libtracecmd
 * 3.1 trusts them: a file cut short crashes it on its own error path
 * (tracecmd_close() of a half-read handle), a damaged length has it
 * allocate exabytes, damaged ring-buffer pages send libtraceevent's kbuffer
 * past them. Compressed sections and data are inflated to be checked
 * (with libzstd and zlib, as libtracecmd does). Layouts: trace-cmd's
 * Documentation, trace-cmd.dat.v6.5.txt and trace-cmd.dat.v7.5.txt.
 */
#ifdef HAVE_TRACECMD
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <zlib.h>
#include <zstd.h>

#include "trace_file_check.h"

/* enum tracecmd_file_options and the v7 section ids, as trace-cmd has them. */
#define OPT_DONE		0
#define OPT_DATE		1
#define OPT_CPUSTAT		2
#define OPT_BUFFER		3
#define OPT_TRACECLOCK		4
#define OPT_UNAME		5
#define OPT_HOOK		6
#define OPT_VERSION		9
#define OPT_PROCMAPS		10
#define OPT_STRINGS		15
#define OPT_HEADER_INFO		16
#define OPT_FTRACE_EVENTS	17
#define OPT_EVENT_FORMATS	18
#define OPT_KALLSYMS		19
#define OPT_PRINTK		20
#define OPT_CMDLINES		21
#define OPT_BUFFER_TEXT		22
#define SEC_FL_COMPRESS		1
/* A hook (trace-cmd record -H) is one line of event names and filters. */
#define MAX_HOOK		4096
/* More sections than any recorder writes: a loop in the chain. */
#define MAX_SECTIONS		4096

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

/* The ring buffer's page header and event types (kernel/trace/ring_buffer.c). */
#define COMMIT_MASK		((1U << 27) - 1)
#define MISSING_EVENTS		(1ULL << 31)
#define MISSING_STORED		(1ULL << 30)
#define TYPE_DATA_MAX		28
#define TYPE_PADDING		29
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

static bool take(struct cursor *c, void *buf, uint64_t n)
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

static bool skip(struct cursor *c, uint64_t n)
{
	if (c->bad || n > c->size || c->pos > c->size - n) {
		c->bad = true;
		return false;
	}
	c->pos += n;
	return true;
}

static uint64_t num(struct cursor *c, int bytes)
{
	uint8_t b[8] = {};
	uint64_t v = 0;

	if (!take(c, b, bytes))
		return 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)b[c->swap ? bytes - 1 - i : i] << (8 * i);
	return v;
}

/* A NUL-terminated string of at most @max bytes, into @buf if given. */
static bool cstr(struct cursor *c, char *buf, size_t max)
{
	char ch;

	for (size_t i = 0; i < max; i++) {
		if (!take(c, &ch, 1))
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
static bool blob(struct cursor *c, int bytes)
{
	return skip(c, num(c, bytes));
}

static bool in_file(const struct cursor *c, uint64_t off, uint64_t len)
{
	return off <= c->size && len <= c->size - off;
}

static uint64_t get(const struct cursor *c, const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[c->swap ? bytes - 1 - i : i] << (8 * i);
	return v;
}

/*
 * One ring-buffer page as libtraceevent's kbuffer walks it: the committed
 * size inside the page, every event's length inside the committed size
 * and moving forward (kbuffer follows them blindly).
 */
static bool check_page(const struct cursor *c, const uint8_t *page)
{
	uint32_t start = 8 + c->long_size, off = 0;
	uint64_t flags = get(c, page + 8, c->long_size);
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
		hdr = get(c, ev, 4);
		/* type_len is the low 5 bits, or the high 5 big-endian. */
		type_len = c->swap ? hdr >> 27 : hdr & 31;
		if (type_len == 0 || type_len == TYPE_PADDING) {
			if (type_len == TYPE_PADDING && !(c->swap ? hdr & COMMIT_MASK : hdr >> 5))
				return true;	/* the rest of the page */
			if (commit - off < 8)
				return false;
			len = get(c, ev + 4, 4);
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

static bool check_chunks(struct cursor *c, uint64_t off, uint64_t size);

/* A CPU's data: whole pages inside the file, each as check_page() says. */
static bool check_cpu_data(struct cursor *c, uint64_t off, uint64_t size)
{
	uint8_t *page;
	bool ok = true;

	if (!in_file(c, off, size))
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
 * printk formats: one `ADDR : "FORMAT"` a line, as the kernel's
 * printk_formats file prints them. libtraceevent copies from just past the
 * ':' and strips the quotes in place (tep_parse_printk_formats(),
 * tep_register_print_string()): a line of another shape sends it past its
 * buffer.
 */
static bool printk_line(const char *line, size_t len)
{
	const char *sep = memmem(line, len, " : \"", 4);
	size_t rest;

	if (!len)
		return true;
	if (!sep)
		return false;
	rest = len - (sep + 3 - line);
	/* The opening quote, at least one byte, the closing quote. */
	return rest >= 3 && line[len - 1] == '"' &&
	       !memchr(line, ':', sep - line);
}

static bool printk_formats(struct cursor *c)
{
	uint32_t size = num(c, 4);
	bool ok = !c->bad && size <= c->size - c->pos;
	char *buf = ok ? malloc(size + 1) : NULL;
	size_t start = 0;

	ok = ok && buf && take(c, buf, size);
	for (uint32_t i = 0; ok && i <= size; i++) {
		if (i < size && buf[i] != '\n' && buf[i])
			continue;
		ok = printk_line(buf + start, i - start);
		start = i + 1;
		if (i < size && !buf[i])
			break;
	}
	free(buf);
	return ok;
}

/*
 * Options libtracecmd strdup()s: DATE, CPUSTAT, TRACECLOCK, UNAME, HOOK,
 * VERSION, PROCMAPS and the STRINGS table must end in a NUL.
 */
static bool option_text(struct cursor *c, uint16_t id, uint64_t start,
			uint32_t len)
{
	uint64_t save = c->pos;
	char last = 0;

	switch (id) {
	case OPT_TRACECLOCK:	/* empty in v6 (the clock is elsewhere) */
		if (!len)
			return true;
		break;
	case OPT_DATE:
	case OPT_CPUSTAT:
	case OPT_UNAME:
	case OPT_HOOK:
	case OPT_VERSION:
	case OPT_PROCMAPS:
	case OPT_STRINGS:
		if (!len)
			return false;
		break;
	default:
		return true;
	}
	c->pos = start + len - 1;
	take(c, &last, 1);
	if (id == OPT_HOOK && !c->bad && !last) {
		char *text = len <= MAX_HOOK ? malloc(len) : NULL;

		c->pos = start;
		if (!text || !take(c, text, len) || !trace_hook_option_ok(text))
			c->bad = true;
		free(text);
	}
	c->pos = save;
	return !c->bad && !last;
}

/* The parts both versions share (v7 puts each in a section). */
/*
 * The header_page format, parsed as libtracecmd will: a failure there
 * makes tracecmd_open() fail, and 3.1 crashes on that error path.
 */
static bool header_page(struct cursor *c)
{
	uint64_t size = num(c, 8);
	struct tep_handle *tep;
	char *buf;
	bool ok;

	if (c->bad || size > c->size - c->pos || size > MAX_PAGE_SIZE)
		return false;
	buf = malloc(size + 1);
	tep = tep_alloc();
	ok = buf && tep && take(c, buf, size);
	if (ok) {
		buf[size] = '\0';
		/* libtracecmd also wants the 8-byte timestamp it reads. */
		ok = !tep_parse_header_page(tep, buf, size, c->long_size) &&
		     tep_get_header_timestamp_size(tep) == 8;
	}
	tep_free(tep);
	free(buf);
	return ok;
}

static bool header_info(struct cursor *c)
{
	char name[16];

	return cstr(c, name, sizeof(name)) && !strcmp(name, "header_page") &&
	       header_page(c) && cstr(c, name, sizeof(name)) &&
	       !strcmp(name, "header_event") && blob(c, 8);
}

/* One event's format: trace_format_check.c says whether libtraceevent may parse it. */
static bool event_format(struct cursor *c)
{
	uint64_t size = num(c, 8);
	char *buf;
	bool ok;

	if (c->bad || size > c->size - c->pos || size > MAX_UNCOMPRESSED)
		return false;
	buf = malloc(size + 1);
	if (!buf || !take(c, buf, size)) {
		free(buf);
		return false;
	}
	buf[size] = '\0';
	ok = trace_event_format_ok(buf, size);
	free(buf);
	return ok;
}

static bool ftrace_formats(struct cursor *c)
{
	for (uint32_t n = num(c, 4); n && !c->bad; n--)
		if (!event_format(c))
			return false;
	return !c->bad;
}

static bool event_formats(struct cursor *c)
{
	for (uint32_t sys = num(c, 4); sys && !c->bad; sys--) {
		cstr(c, NULL, 4096);
		for (uint32_t n = num(c, 4); n && !c->bad; n--)
			if (!event_format(c))
				return false;
	}
	return !c->bad;
}

/* Version 6: headers, formats, kallsyms, printk, cmdlines, options, data. */
static bool check_v6(struct cursor *c)
{
	char name[16];
	uint32_t cpus;
	uint16_t id;

	if (!header_info(c) || !ftrace_formats(c) || !event_formats(c))
		return false;
	blob(c, 4);		/* kallsyms */
	if (!printk_formats(c))
		return false;
	blob(c, 8);		/* saved cmdlines */
	cpus = num(c, 4);
	if (!cstr(c, name, 10) || c->bad)
		return false;
	if (!strcmp(name, "options  ")) {
		for (int i = 0; i < MAX_SECTIONS; i++) {
			uint64_t len, start;

			id = num(c, 2);
			if (id == OPT_DONE || c->bad)
				break;
			len = num(c, 4);
			start = c->pos;
			/* A buffer instance: its data's offset first. */
			if (id == OPT_BUFFER && len >= 8 && !in_file(c, num(c, 8), 0))
				return false;
			if (!option_text(c, id, start, len))
				return false;
			c->pos = start;
			if (!skip(c, len))
				return false;
		}
		if (!cstr(c, name, 10))
			return false;
	}
	if (!strcmp(name, "latency  "))
		return true;
	if (strcmp(name, "flyrecord"))
		return false;
	for (uint32_t cpu = 0; cpu < cpus && !c->bad; cpu++) {
		uint64_t off = num(c, 8), size = num(c, 8);

		if (c->bad || !check_cpu_data(c, off, size))
			return false;
	}
	return !c->bad;
}


/*
 * @csize bytes at @off inflated to exactly @usize (free() it), or NULL:
 * libtracecmd would inflate them too, and trust what comes out.
 */
static uint8_t *inflate_at(const struct cursor *c, uint64_t off,
			   uint32_t csize, uint32_t usize)
{
	uint8_t *in = malloc(csize ? csize : 1), *out = malloc(usize ? usize : 1);
	bool ok = in && out && in_file(c, off, csize) &&
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

/* A section's content: its own lengths, within it. */
static bool section_content(struct cursor *c, uint16_t id)
{
	switch (id) {
	case OPT_HEADER_INFO:
		return header_info(c);
	case OPT_FTRACE_EVENTS:
		return ftrace_formats(c);
	case OPT_EVENT_FORMATS:
		return event_formats(c);
	case OPT_KALLSYMS:
		return blob(c, 4);
	case OPT_PRINTK:
		return printk_formats(c);
	case OPT_CMDLINES:
		return blob(c, 8);
	}
	return true;
}

/*
 * A v7 section header at @off: its size inside the file and its content,
 * inflated first when compressed.
 */
static bool check_section(struct cursor *c, uint64_t off)
{
	uint64_t save = c->pos, file_size = c->size, size;
	uint16_t id, flags;
	bool ok;

	c->pos = off;
	id = num(c, 2);
	flags = num(c, 2);
	num(c, 4);		/* description */
	size = num(c, 8);
	ok = !c->bad && in_file(c, c->pos, size);
	/* Trace data: compressed in chunks, checked CPU by CPU. */
	if (id == OPT_BUFFER || id == OPT_BUFFER_TEXT) {
		c->pos = save;
		return ok;
	}
	if (ok && (flags & SEC_FL_COMPRESS)) {
		uint32_t csize = num(c, 4), usize = num(c, 4);
		struct cursor m = *c;

		ok = !c->bad && size >= 8 && csize <= size - 8 &&
		     usize <= MAX_UNCOMPRESSED;
		m.mem = ok ? inflate_at(c, c->pos, csize, usize) : NULL;
		ok = ok && m.mem;
		m.pos = 0;
		m.size = usize;
		ok = ok && section_content(&m, id) && !m.bad;
		free((void *)m.mem);
	} else if (ok) {
		c->size = c->pos + size;
		ok = section_content(c, id) && !c->bad;
		c->size = file_size;
		c->bad = false;
	}
	c->pos = save;
	return ok;
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
	count = num(c, 4);
	for (uint32_t i = 0; ok && i < count; i++) {
		uint32_t csize = num(c, 4), usize = num(c, 4);
		uint8_t *pages;

		ok = !c->bad && usize <= MAX_UNCOMPRESSED &&
		     !(usize % c->page_size) && csize <= end - c->pos;
		/* Its pages, inflated, as check_page() says. */
		pages = ok ? inflate_at(c, c->pos, csize, usize) : NULL;
		ok = ok && pages;
		for (uint32_t p = 0; ok && p < usize; p += c->page_size)
			ok = check_page(c, pages + p);
		free(pages);
		ok = ok && skip(c, csize);
	}
	ok = ok && !c->bad && c->pos <= end;
	c->pos = save;
	return ok;
}

/* A BUFFER option of v7: its section and every CPU's data in the file. */
static bool check_v7_buffer(struct cursor *c, uint64_t end)
{
	uint32_t cpus;

	if (!check_section(c, num(c, 8)))
		return false;
	cstr(c, NULL, 4096);	/* name */
	cstr(c, NULL, 4096);	/* trace clock */
	num(c, 4);		/* page size */
	cpus = num(c, 4);
	for (uint32_t i = 0; i < cpus && !c->bad && c->pos < end; i++) {
		uint64_t off, size;

		num(c, 4);	/* cpu */
		off = num(c, 8);
		size = num(c, 8);
		if (c->bad || !check_cpu_data(c, off, size))
			return false;
	}
	return !c->bad && c->pos <= end;
}

/* Version 7: a chain of option sections naming the other sections. */
static bool check_v7(struct cursor *c)
{
	uint64_t next;

	cstr(c, c->algo, sizeof(c->algo));	/* compression algorithm */
	cstr(c, NULL, 64);			/* and its version */
	c->compressed = strcmp(c->algo, "none") != 0;
	next = num(c, 8);
	for (int i = 0; next && i < MAX_SECTIONS && !c->bad; i++) {
		bool done;
		uint16_t flags;
		uint64_t size, end;

		if (!check_section(c, next))
			return false;
		c->pos = next;
		next = 0;
		num(c, 2);	/* id */
		flags = num(c, 2);
		num(c, 4);	/* description */
		size = num(c, 8);
		if (c->bad || !in_file(c, c->pos, size))
			return false;
		/* Compressed options cannot be read here: their size is. */
		if (flags & SEC_FL_COMPRESS)
			return true;
		end = c->pos + size;
		/* libtracecmd reads options until DONE, whatever the size says. */
		done = false;
		while (c->pos < end && !c->bad) {
			uint16_t id = num(c, 2);
			uint32_t len = num(c, 4);
			uint64_t start = c->pos;

			if (c->bad || !in_file(c, start, len) || start + len > end)
				return false;
			if (id == OPT_DONE) {
				/* libtracecmd reads its 8 bytes, whatever len says. */
				if (len != 8)
					return false;
				done = true;
				next = num(c, 8);
				if (next && !in_file(c, next, 16))
					return false;
				break;
			}
			if (id >= OPT_HEADER_INFO && id <= OPT_CMDLINES && len >= 8 &&
			    !check_section(c, num(c, 8)))
				return false;
			if ((id == OPT_BUFFER || id == OPT_BUFFER_TEXT) &&
			    !check_v7_buffer(c, start + len))
				return false;
			if (!option_text(c, id, start, len))
				return false;
			c->pos = start;
			if (!skip(c, len))
				return false;
		}
		if (!done)
			return false;
	}
	return !c->bad && !next;
}

int trace_file_check(int fd)
{
	static const char magic[] = "\x17\x08\x44tracing";
	struct cursor c = { .fd = fd };
	char buf[sizeof(magic) - 1], version[8];
	uint8_t endian, long_size;
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	c.size = st.st_size;
	if (!take(&c, buf, sizeof(buf)) || memcmp(buf, magic, sizeof(buf)))
		return -SCHEDSTAT_ERR_TRACE_FILE;
	if (!cstr(&c, version, sizeof(version)))
		return -SCHEDSTAT_ERR_TRACE_DAMAGED;
	take(&c, &endian, 1);
	take(&c, &long_size, 1);
	c.swap = endian != 0;
	c.page_size = num(&c, 4);
	c.long_size = long_size;
	if (c.bad || (long_size != 4 && long_size != 8) ||
	    c.page_size < 4096 || c.page_size > MAX_PAGE_SIZE ||
	    (c.page_size & (c.page_size - 1)))
		return -SCHEDSTAT_ERR_TRACE_DAMAGED;
	if (!strcmp(version, "6"))
		return check_v6(&c) ? 0 : -SCHEDSTAT_ERR_TRACE_DAMAGED;
	if (!strcmp(version, "7"))
		return check_v7(&c) ? 0 : -SCHEDSTAT_ERR_TRACE_DAMAGED;
	/* Versions before 6 (trace-cmd 1.x) or after 7: not read. */
	return -SCHEDSTAT_ERR_TRACE_FILE;
}
#endif /* HAVE_TRACECMD */
