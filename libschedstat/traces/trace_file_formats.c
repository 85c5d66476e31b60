// SPDX-License-Identifier: GPL-2.0
/*
 * The texts of a trace-cmd file that libtraceevent parses, checked as it
 * will read them: the header page, event formats, printk formats.
 */
#ifdef HAVE_TRACECMD
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "trace_file_check.h"
#include "trace_file_cursor.h"

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

bool tfc_printk_formats(struct cursor *c)
{
	uint32_t size = cur_num(c, 4);
	bool ok = !c->bad && size <= c->size - c->pos;
	char *buf = ok ? malloc(size + 1) : NULL;
	size_t start = 0;

	ok = ok && buf && cur_take(c, buf, size);
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

/* The parts both versions share (v7 puts each in a section). */
/*
 * The header_page format, parsed as libtracecmd will: a failure there
 * makes tracecmd_open() fail, and 3.1 crashes on that error path.
 */
static bool header_page(struct cursor *c)
{
	uint64_t size = cur_num(c, 8);
	struct tep_handle *tep;
	char *buf;
	bool ok;

	if (c->bad || size > c->size - c->pos || size > MAX_PAGE_SIZE)
		return false;
	buf = malloc(size + 1);
	tep = tep_alloc();
	ok = buf && tep && cur_take(c, buf, size);
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

bool tfc_header_info(struct cursor *c)
{
	char name[16];

	return cur_cstr(c, name, sizeof(name)) && !strcmp(name, "header_page") &&
	       header_page(c) && cur_cstr(c, name, sizeof(name)) &&
	       !strcmp(name, "header_event") && cur_blob(c, 8);
}

/* One event's format: trace_format_check.c says whether libtraceevent may parse it. */
static bool event_format(struct cursor *c)
{
	uint64_t size = cur_num(c, 8);
	char *buf;
	bool ok;

	if (c->bad || size > c->size - c->pos || size > MAX_UNCOMPRESSED)
		return false;
	buf = malloc(size + 1);
	if (!buf || !cur_take(c, buf, size)) {
		free(buf);
		return false;
	}
	buf[size] = '\0';
	ok = trace_event_format_ok(buf, size);
	free(buf);
	return ok;
}

bool tfc_ftrace_formats(struct cursor *c)
{
	for (uint32_t n = cur_num(c, 4); n && !c->bad; n--)
		if (!event_format(c))
			return false;
	return !c->bad;
}

bool tfc_event_formats(struct cursor *c)
{
	for (uint32_t sys = cur_num(c, 4); sys && !c->bad; sys--) {
		cur_cstr(c, NULL, 4096);
		for (uint32_t n = cur_num(c, 4); n && !c->bad; n--)
			if (!event_format(c))
				return false;
	}
	return !c->bad;
}

#endif /* HAVE_TRACECMD */
