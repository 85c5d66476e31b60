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

/* More than any event declares (the kernel's largest have a few dozen). */
#define MAX_FIELDS	256

struct name {
	const char *p;
	size_t len;
};

/*
 * One "field:" line, from @p (just past "field:") to its end, @end; @name
 * is set to its field's name: the last word before ';' or '['.
 */
static bool field_line(const char *p, const char *end, struct name *name)
{
	const char *semi = memchr(p, ';', end - p), *id;

	if (!semi || !field_decl(p, semi))
		return false;
	id = memchr(p, '[', semi - p);
	name->p = id ? id : semi;
	while (name->p > p && is_ident(name->p[-1]))
		name->p--;
	name->len = (id ? id : semi) - name->p;
	p = number_item(semi + 1, end, "offset:");
	p = p ? number_item(p, end, "size:") : NULL;
	if (!p)
		return false;
	/* "signed:" came with 2.6.32's format files; older ones lack it. */
	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	return p == end || number_item(p, end, "signed:") != NULL;
}

/*
 * Every REC->FIELD the print fmt (@p to @end) uses is one of the event's
 * fields: libtraceevent 1.7 dereferences a NULL field when a
 * __print_symbolic() (and others) names one it lacks. A plain scan: the
 * text is the fuzzer's, and strstr() from the start for each name would
 * be quadratic in it.
 */
static bool print_fmt_fields(const char *p, const char *end,
			     const struct name *names, size_t nr)
{
	while ((size_t)(end - p) > 5) {
		size_t len = 0;
		bool found = false;

		if (memcmp(p, "REC->", 5)) {
			p++;
			continue;
		}
		p += 5;
		while (p + len < end && is_ident(p[len]))
			len++;
		for (size_t i = 0; i < nr && !found; i++)
			found = names[i].len == len && !memcmp(names[i].p, p, len);
		if (!found)
			return false;
		p += len;
	}
	return true;
}

bool trace_event_format_ok(const char *fmt, size_t size)
{
	const char *p = fmt, *end = fmt + size;
	struct name names[MAX_FIELDS];
	size_t nr = 0;

	for (size_t i = 0; i < size; i++)
		if (!format_byte(fmt[i]))
			return false;
	/* The field lines, up to the print fmt (which may quote "field:"). */
	while (p < end && ((size_t)(end - p) < 10 || memcmp(p, "print fmt:", 10))) {
		const char *eol = memchr(p, '\n', end - p), *q = p;

		if (!eol)
			eol = end;
		while (q < eol && (*q == '\t' || *q == ' '))
			q++;
		if ((size_t)(eol - q) >= 6 && !memcmp(q, "field:", 6) &&
		    (nr == MAX_FIELDS || !field_line(q + 6, eol, &names[nr++])))
			return false;
		p = eol < end ? eol + 1 : end;
	}
	return print_fmt_fields(p, end, names, nr);
}
/*
 * "[SYSTEM:]EVENT,MATCH[,PID]" with every part present: libtracecmd's
 * tracecmd_create_event_hook() splits it with strtok_r(), which skips
 * empty parts, and uses what it gets without checking it got it.
 */
static bool hook_half(const char *p, const char *end, int max_parts)
{
	const char *colon = memchr(p, ':', end - p);
	int parts = 0;

	if (colon) {
		if (colon == p)
			return false;
		p = colon + 1;
	}
	for (;;) {
		const char *comma = memchr(p, ',', end - p), *stop = comma ? comma : end;

		if (stop == p || memchr(p, ':', stop - p) || ++parts > max_parts)
			return false;
		if (!comma)
			return parts >= 2;
		p = comma + 1;
	}
}

bool trace_hook_option_ok(const char *text)
{
	size_t len = strlen(text);
	const char *slash = memchr(text, '/', len);

	for (size_t i = 0; i < len; i++)
		if (!format_byte(text[i]) || text[i] == '\n')
			return false;
	return slash && !memchr(slash + 1, '/', text + len - slash - 1) &&
	       hook_half(text, slash, 3) && hook_half(slash + 1, text + len, 3);
}
#endif /* HAVE_TRACECMD */
