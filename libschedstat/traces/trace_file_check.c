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
 *
 * This file walks the two versions' layouts, their options and v7's
 * sections; trace_file_formats.c checks the header and format texts,
 * trace_file_pages.c the ring-buffer data; trace_file_cursor.h reads.
 */
#ifdef HAVE_TRACECMD
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace_file_check.h"
#include "trace_file_cursor.h"

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
	cur_take(c, &last, 1);
	if (id == OPT_HOOK && !c->bad && !last) {
		char *text = len <= MAX_HOOK ? malloc(len) : NULL;

		c->pos = start;
		if (!text || !cur_take(c, text, len) || !trace_hook_option_ok(text))
			c->bad = true;
		free(text);
	}
	c->pos = save;
	return !c->bad && !last;
}

/* An option's text checked (option_text()), then the cursor past it. */
static bool option_end(struct cursor *c, uint16_t id, uint64_t start,
		       uint32_t len)
{
	if (!option_text(c, id, start, len))
		return false;
	c->pos = start;
	return cur_skip(c, len);
}

/* Version 6: headers, formats, kallsyms, printk, cmdlines, options, data. */
static bool check_v6(struct cursor *c)
{
	char name[16];
	uint32_t cpus;
	uint16_t id;

	if (!tfc_header_info(c) || !tfc_ftrace_formats(c) || !tfc_event_formats(c))
		return false;
	cur_blob(c, 4);		/* kallsyms */
	if (!tfc_printk_formats(c))
		return false;
	cur_blob(c, 8);		/* saved cmdlines */
	cpus = cur_num(c, 4);
	if (!cur_cstr(c, name, 10) || c->bad)
		return false;
	if (!strcmp(name, "options  ")) {
		for (int i = 0; i < MAX_SECTIONS; i++) {
			uint64_t len, start;

			id = cur_num(c, 2);
			if (id == OPT_DONE || c->bad)
				break;
			len = cur_num(c, 4);
			start = c->pos;
			/* A buffer instance: its data's offset first. */
			if (id == OPT_BUFFER && len >= 8 && !cur_in_file(c, cur_num(c, 8), 0))
				return false;
			if (!option_end(c, id, start, len))
				return false;
		}
		if (!cur_cstr(c, name, 10))
			return false;
	}
	if (!strcmp(name, "latency  "))
		return true;
	if (strcmp(name, "flyrecord"))
		return false;
	for (uint32_t cpu = 0; cpu < cpus && !c->bad; cpu++) {
		uint64_t off = cur_num(c, 8), size = cur_num(c, 8);

		if (c->bad || !tfc_check_cpu_data(c, off, size))
			return false;
	}
	return !c->bad;
}

/* A section's content: its own lengths, within it. */
static bool section_content(struct cursor *c, uint16_t id)
{
	switch (id) {
	case OPT_HEADER_INFO:
		return tfc_header_info(c);
	case OPT_FTRACE_EVENTS:
		return tfc_ftrace_formats(c);
	case OPT_EVENT_FORMATS:
		return tfc_event_formats(c);
	case OPT_KALLSYMS:
		return cur_blob(c, 4);
	case OPT_PRINTK:
		return tfc_printk_formats(c);
	case OPT_CMDLINES:
		return cur_blob(c, 8);
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
	id = cur_num(c, 2);
	flags = cur_num(c, 2);
	cur_num(c, 4);		/* description */
	size = cur_num(c, 8);
	ok = !c->bad && cur_in_file(c, c->pos, size);
	/* Trace data: compressed in chunks, checked CPU by CPU. */
	if (id == OPT_BUFFER || id == OPT_BUFFER_TEXT) {
		c->pos = save;
		return ok;
	}
	if (ok && (flags & SEC_FL_COMPRESS)) {
		uint32_t csize = cur_num(c, 4), usize = cur_num(c, 4);
		struct cursor m = *c;

		ok = !c->bad && size >= 8 && csize <= size - 8 &&
		     usize <= MAX_UNCOMPRESSED;
		m.mem = ok ? tfc_inflate_at(c, c->pos, csize, usize) : NULL;
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

/* A BUFFER option of v7: its section and every CPU's data in the file. */
static bool check_v7_buffer(struct cursor *c, uint64_t end)
{
	uint32_t cpus;

	if (!check_section(c, cur_num(c, 8)))
		return false;
	cur_cstr(c, NULL, 4096);	/* name */
	cur_cstr(c, NULL, 4096);	/* trace clock */
	cur_num(c, 4);		/* page size */
	cpus = cur_num(c, 4);
	for (uint32_t i = 0; i < cpus && !c->bad && c->pos < end; i++) {
		uint64_t off, size;

		cur_num(c, 4);	/* cpu */
		off = cur_num(c, 8);
		size = cur_num(c, 8);
		if (c->bad || !tfc_check_cpu_data(c, off, size))
			return false;
	}
	return !c->bad && c->pos <= end;
}

/* Version 7: a chain of option sections naming the other sections. */
static bool check_v7(struct cursor *c)
{
	uint64_t next;

	cur_cstr(c, c->algo, sizeof(c->algo));	/* compression algorithm */
	cur_cstr(c, NULL, 64);			/* and its version */
	c->compressed = strcmp(c->algo, "none") != 0;
	next = cur_num(c, 8);
	for (int i = 0; next && i < MAX_SECTIONS && !c->bad; i++) {
		bool done;
		uint16_t flags;
		uint64_t size, end;

		if (!check_section(c, next))
			return false;
		c->pos = next;
		next = 0;
		cur_num(c, 2);	/* id */
		flags = cur_num(c, 2);
		cur_num(c, 4);	/* description */
		size = cur_num(c, 8);
		if (c->bad || !cur_in_file(c, c->pos, size))
			return false;
		/* Compressed options cannot be read here: their size is. */
		if (flags & SEC_FL_COMPRESS)
			return true;
		end = c->pos + size;
		/* libtracecmd reads options until DONE, whatever the size says. */
		done = false;
		while (c->pos < end && !c->bad) {
			uint16_t id = cur_num(c, 2);
			uint32_t len = cur_num(c, 4);
			uint64_t start = c->pos;

			if (c->bad || !cur_in_file(c, start, len) || start + len > end)
				return false;
			if (id == OPT_DONE) {
				/* libtracecmd reads its 8 bytes, whatever len says. */
				if (len != 8)
					return false;
				done = true;
				next = cur_num(c, 8);
				if (next && !cur_in_file(c, next, 16))
					return false;
				break;
			}
			if (id >= OPT_HEADER_INFO && id <= OPT_CMDLINES && len >= 8 &&
			    !check_section(c, cur_num(c, 8)))
				return false;
			if ((id == OPT_BUFFER || id == OPT_BUFFER_TEXT) &&
			    !check_v7_buffer(c, start + len))
				return false;
			if (!option_end(c, id, start, len))
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
	if (!cur_take(&c, buf, sizeof(buf)) || memcmp(buf, magic, sizeof(buf)))
		return -SCHEDSTAT_ERR_TRACE_FILE;
	if (!cur_cstr(&c, version, sizeof(version)))
		return -SCHEDSTAT_ERR_TRACE_DAMAGED;
	cur_take(&c, &endian, 1);
	cur_take(&c, &long_size, 1);
	c.swap = endian != 0;
	c.page_size = cur_num(&c, 4);
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
