// SPDX-License-Identifier: GPL-2.0
/*
 * RFC 4180 output and generated column documentation. Everything here is
 * driven by the column tables: no column is named in this file.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "csv_format.h"
#include "schedstat.h"

/*
 * errno is only meaningful right after a failure, so clear it first and
 * read it once ferror() says something failed. A stream already in error
 * state from an earlier call fails again with -EIO if errno is not set anew.
 */
static void stream_begin(void)
{
	errno = 0;
}

static int stream_status(FILE *f)
{
	if (!ferror(f))
		return 0;
	return errno ? -errno : -EIO;
}

/* At most @len bytes of @s: row strings are fixed arrays, maybe unterminated. */
static void csv_field_n(FILE *f, const char *s, size_t len)
{
	bool quote;

	if (!s)
		return;
	len = strnlen(s, len);
	if (!len)
		return;
	/*
	 * Control characters, '\r' and '\n' included, become '?' below, so
	 * only these can still need quoting. Spaces at either end are quoted
	 * because many readers trim them from unquoted fields.
	 */
	quote = memchr(s, ',', len) || memchr(s, '"', len) ||
		s[0] == ' ' || s[len - 1] == ' ';
	if (quote)
		putc('"', f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];

		/* UTF-8 stays: a CSV reader decodes it, a terminal is not driven. */
		if (schedstat_text_unsafe(c, false))
			c = '?';
		else if (c == '"')
			putc('"', f);
		putc(c, f);
	}
	if (quote)
		putc('"', f);
}

void csv_field(FILE *f, const char *s)
{
	csv_field_n(f, s, SIZE_MAX);
}

int csv_write_header(FILE *f, const struct column_table *t)
{
	stream_begin();
	for (size_t i = 0; i < t->nr_cols; i++) {
		if (i)
			putc(',', f);
		csv_field(f, t->cols[i].name);
	}
	fputs("\r\n", f);
	return stream_status(f);
}

static void write_value(FILE *f, const struct column *c,
			const struct csv_ctx *ctx, const unsigned char *row)
{
	const unsigned char *p = row + c->offset;

	/* memcpy: the row is only known as bytes here. */
	switch (c->type) {
	case COL_U32: {
		uint32_t v;

		memcpy(&v, p, sizeof(v));
		fprintf(f, "%" PRIu32, v);
		break;
	}
	case COL_U64:
	case COL_NS: {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		fprintf(f, "%" PRIu64, v);
		break;
	}
	case COL_I32: {
		int32_t v;

		memcpy(&v, p, sizeof(v));
		/* The library's convention for an optional signed value. */
		if (c->avail && !c->negative_valid && v < 0)
			break;
		fprintf(f, "%" PRId32, v);
		break;
	}
	case COL_BOOL:
		/* Byte-wise: a stray value other than 0 or 1 still reads true. */
		putc(*p ? '1' : '0', f);
		break;
	case COL_CHAR: {
		char v[2] = { (char)*p, '\0' };

		csv_field(f, v);
		break;
	}
	case COL_STR:
		csv_field_n(f, (const char *)p, c->size);
		break;
	case COL_PCT: {
		double v;

		memcpy(&v, p, sizeof(v));
		/* A cluster with no capacity online has no percentage. */
		if (isfinite(v))
			fprintf(f, "%.2f", v);
		break;
	}
	case COL_CLUSTER: {
		int32_t v;

		memcpy(&v, p, sizeof(v));
		if (v >= 0 && ctx->topo)
			csv_field(f, schedstat_topology_cluster_name(ctx->topo, v));
		break;
	}
	case COL_TS:
		fprintf(f, "%" PRIu64, ctx->ts_ns);
		break;
	case COL_EMULATION:
		if (ctx->emulation)
			csv_field(f, ctx->emulation);
		break;
	}
}

int csv_write_row(FILE *f, const struct column_table *t,
		  const struct csv_ctx *ctx, const void *row)
{
	stream_begin();
	for (size_t i = 0; i < t->nr_cols; i++) {
		const struct column *c = &t->cols[i];

		if (i)
			putc(',', f);
		if (!column_shown(c, ctx->avail))
			continue;
		write_value(f, c, ctx, row);
	}
	fputs("\r\n", f);
	return stream_status(f);
}

/* A '|' would end the Markdown table cell. */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			putc('\\', f);
		putc(*s, f);
	}
}

int columns_write_markdown(FILE *f, const struct column_table *t)
{
	stream_begin();
	fprintf(f, "## %s table\n\n| column | description |\n|---|---|\n", t->name);
	for (size_t i = 0; i < t->nr_cols; i++) {
		const struct column *c = &t->cols[i];

		fprintf(f, "| `%s` | ", c->name);
		md_text(f, c->desc);
		column_avail_notes(f, c->avail, md_text);
		fputs(" |\n", f);
	}
	return stream_status(f);
}

/*
 * troff: a backslash starts an escape, a line starting with '.' or '\'' is a
 * request, and '-' is a hyphen that does not copy-paste as a minus sign.
 */
void man_text(FILE *f, const char *s, bool line_start)
{
	for (; *s; s++) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		line_start = false;
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			putc(*s, f);
	}
}

/* A note inside a paragraph: no request to escape. */
static void man_note(FILE *f, const char *s)
{
	man_text(f, s, false);
}

int columns_write_man(FILE *f, const struct column_table *t)
{
	stream_begin();
	for (size_t i = 0; i < t->nr_cols; i++) {
		const struct column *c = &t->cols[i];

		fputs(".TP\n.B ", f);
		man_text(f, c->name, false);
		putc('\n', f);
		man_text(f, c->desc, true);
		column_avail_notes(f, c->avail, man_note);
		putc('\n', f);
	}
	return stream_status(f);
}
