// SPDX-License-Identifier: GPL-2.0
/*
 * One event's format text, as a trace-cmd file stores it, checked before
 * libtracecmd hands it to libtraceevent's tep_parse_event(). That parser
 * (libtraceevent 1.7, Debian 12) trusts the text as the kernel prints it
 * (kernel/trace/trace_events.c, f_show()): a byte it cannot classify or
 * the text's end where a token must follow gives it a NULL token, which
 * it then strcmp()s. What the kernel writes is printable ASCII, one
 * "field:DECL;\toffset:N;\tsize:N;\tsigned:N;" a line, and a print fmt
 * naming only the event's own fields; anything else is damage.
 */
#ifdef HAVE_TRACECMD
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "trace_file_check.h"

static bool is_ident(char ch)
{
	return ch == '_' || (ch >= '0' && ch <= '9') ||
	       ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z');
}

/*
 * printf's isprint() and isspace() in the C locale, without the locale:
 * libtraceevent's tokenizer takes any other byte (a NUL, a control
 * character, UTF-8) for the end of its input.
 */
static bool format_byte(unsigned char ch)
{
	return (ch >= 0x20 && ch < 0x7f) || (ch >= '\t' && ch <= '\r');
}

/* "NAME:DIGITS;" at @p, advanced past it; NULL if not there. */
static const char *number_item(const char *p, const char *end, const char *name)
{
	size_t len = strlen(name);
	const char *digits;

	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	if ((size_t)(end - p) < len || memcmp(p, name, len))
		return NULL;
	p += len;
	digits = p;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p == digits || p == end || *p != ';')
		return NULL;
	return p + 1;
}

/*
 * A field's declaration: words, then the name, each '[' closed by a ']'
 * around a length the kernel writes as a number or an expression of
 * words and numbers ("char func[30+1]", "char comm[TASK_COMM_LEN]",
 * "__data_loc char[] name").
 */
static bool field_decl(const char *p, const char *end)
{
	bool name = false;

	for (; p < end; p++) {
		if (*p == '[') {
			while (++p < end && *p != ']')
				if (!is_ident(*p) && !strchr("+-*() ", *p))
					return false;
			if (p == end)
				return false;
		} else if (*p == ']') {
			return false;
		} else if (is_ident(*p)) {
			name = true;
		}
	}
	return name;
}

/* One "field:" line, from @p (just past "field:") to its end, @end. */
static bool field_line(const char *p, const char *end)
{
	const char *semi = memchr(p, ';', end - p);

	if (!semi || !field_decl(p, semi))
		return false;
	p = number_item(semi + 1, end, "offset:");
	p = p ? number_item(p, end, "size:") : NULL;
	if (!p)
		return false;
	/* "signed:" came with 2.6.32's format files; older ones lack it. */
	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	return p == end || number_item(p, end, "signed:") != NULL;
}

/* Whether the format text @fmt declares a field @name of @len bytes. */
static bool has_field(const char *fmt, const char *name, size_t len)
{
	for (const char *p = fmt; (p = strstr(p, "field:")); p++) {
		const char *end = strchr(p, ';'), *id;

		if (!end)
			return false;
		/* The name is the last word before ';' or '['. */
		id = memchr(p, '[', end - p);
		if (id)
			end = id;
		id = end;
		while (id > p && is_ident(id[-1]))
			id--;
		if ((size_t)(end - id) == len && !memcmp(id, name, len))
			return true;
	}
	return false;
}

/*
 * Every REC->FIELD the print fmt uses is one of the event's fields:
 * libtraceevent 1.7 dereferences a NULL field when a __print_symbolic()
 * (and others) names one it lacks.
 */
static bool print_fmt_fields(const char *fmt)
{
	const char *p = strstr(fmt, "print fmt:");

	while (p && (p = strstr(p, "REC->"))) {
		size_t len = 0;

		p += 5;
		while (is_ident(p[len]))
			len++;
		if (!len || !has_field(fmt, p, len))
			return false;
		p += len;
	}
	return true;
}

bool trace_event_format_ok(const char *fmt, size_t size)
{
	const char *p = fmt, *end = fmt + size;

	for (size_t i = 0; i < size; i++)
		if (!format_byte(fmt[i]))
			return false;
	/* Up to the print fmt, which may quote "field:" in its text. */
	while (p < end && (size_t)(end - p) >= 10 && memcmp(p, "print fmt:", 10)) {
		const char *eol = memchr(p, '\n', end - p), *q = p;

		if (!eol)
			eol = end;
		while (q < eol && (*q == '\t' || *q == ' '))
			q++;
		if ((size_t)(eol - q) >= 6 && !memcmp(q, "field:", 6) &&
		    !field_line(q + 6, eol))
			return false;
		p = eol < end ? eol + 1 : end;
	}
	return print_fmt_fields(fmt);
}
#endif /* HAVE_TRACECMD */
