// SPDX-License-Identifier: GPL-2.0
/*
 * JSON in rt-app's dialect, into a tree that keeps every member in order
 * (rtapp_json.h). rt-app reads its files with json-c, which takes C and
 * C++ comments and a comma before a closing bracket; workgen, the wrapper
 * Debian's files are run through, makes repeated keys unique by adding a
 * number (rt-app then reads an event by its key's prefix) and gives a bare
 * "suspend" the name of its task. Here repeated keys simply stay, in
 * order, and a bare string member is a node of its own (RJ_BARE) for the
 * grammar to accept or refuse.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtapp_json.h"
#include "schedstat-local.h"

struct rj_parser {
	struct rj_doc *doc;
	const char *p, *end;
	uint32_t line;
	int depth;
	char *err;
	size_t errlen;
};

static int fail(struct rj_parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ps->err, ps->errlen, "%u: ", ps->line);
	if (n < 0 || (size_t)n >= ps->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A byte as an error message shows it: printable, or its code. */
static const char *shown(int c, char *buf, size_t size)
{
	if (c >= 0x21 && c < 0x7f)
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", c & 0xff);
	return buf;
}

/* Blanks and comments; a comment left open is an error. */
static int skip_blank(struct rj_parser *ps)
{
	while (ps->p < ps->end) {
		char c = *ps->p;

		if (c == '\n') {
			ps->line++;
			ps->p++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			ps->p++;
		} else if (c == '/' && ps->end - ps->p >= 2 && ps->p[1] == '/') {
			while (ps->p < ps->end && *ps->p != '\n')
				ps->p++;
		} else if (c == '/' && ps->end - ps->p >= 2 && ps->p[1] == '*') {
			uint32_t from = ps->line;

			ps->p += 2;
			while (ps->p < ps->end &&
			       !(*ps->p == '*' && ps->end - ps->p >= 2 && ps->p[1] == '/')) {
				if (*ps->p == '\n')
					ps->line++;
				ps->p++;
			}
			if (ps->p >= ps->end) {
				ps->line = from;
				return fail(ps, "a comment opened here is never closed (*/)");
			}
			ps->p += 2;
		} else {
			break;
		}
	}
	return 0;
}

static int new_node(struct rj_parser *ps, uint8_t type, uint32_t *idx)
{
	struct rj_doc *d = ps->doc;
	struct rj_node *n;

	if (d->nr_nodes >= RJ_MAX_NODES)
		return fail(ps, "more than %u values: not a use case schedtop reads",
			    RJ_MAX_NODES);
	if (schedstat_array_reserve((void **)&d->nodes, &d->cap_nodes, d->nr_nodes + 1,
				    sizeof(*d->nodes)))
		return -ENOMEM;
	n = &d->nodes[d->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->line = ps->line;
	n->key = n->next = n->child = n->str = RJ_NONE;
	*idx = d->nr_nodes++;
	return 0;
}

static int pool_add(struct rj_parser *ps, const char *s, size_t len, uint32_t *off)
{
	struct rj_doc *d = ps->doc;

	if (d->pool_len + len + 1 > UINT32_MAX - 1)
		return fail(ps, "too much text");
	if (schedstat_array_reserve((void **)&d->pool, &d->pool_cap, d->pool_len + len + 1, 1))
		return -ENOMEM;
	memcpy(d->pool + d->pool_len, s, len);
	d->pool[d->pool_len + len] = '\0';
	*off = d->pool_len;
	d->pool_len += len + 1;
	return 0;
}

static int hex4(const char *p, unsigned int *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return -1;
	}
	return 0;
}

/* UTF-8 of @cp into @out (room for 4); the length. */
static size_t utf8(unsigned int cp, char *out)
{
	if (cp < 0x80) {
		out[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = 0xc0 | cp >> 6;
		out[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = 0xe0 | cp >> 12;
		out[1] = 0x80 | ((cp >> 6) & 0x3f);
		out[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	out[0] = 0xf0 | cp >> 18;
	out[1] = 0x80 | ((cp >> 12) & 0x3f);
	out[2] = 0x80 | ((cp >> 6) & 0x3f);
	out[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* A string at ps->p (its opening quote) into the pool. */
static int parse_string(struct rj_parser *ps, uint32_t *off)
{
	char buf[RJ_MAX_STRING + 4];
	size_t len = 0;
	uint32_t from = ps->line;

	ps->p++;
	for (;;) {
		unsigned char c;

		if (ps->p >= ps->end) {
			ps->line = from;
			return fail(ps, "a string opened here is never closed (\")");
		}
		c = *ps->p++;
		if (c == '"')
			break;
		if (c == '\n') {
			ps->line = from;
			return fail(ps, "a string runs past the end of its line (a missing \")");
		}
		if (c < 0x20)
			return fail(ps, "control byte 0x%02x in a string", c);
		if (c == '\\') {
			unsigned int cp, lo;

			if (ps->p >= ps->end)
				continue;	/* "never closed" above */
			c = *ps->p++;
			switch (c) {
			case '"': case '\\': case '/':
				break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				if (ps->end - ps->p < 4 || hex4(ps->p, &cp))
					return fail(ps, "\\u needs 4 hex digits");
				ps->p += 4;
				if (cp >= 0xd800 && cp < 0xdc00) {
					if (ps->end - ps->p < 6 || ps->p[0] != '\\' ||
					    ps->p[1] != 'u' || hex4(ps->p + 2, &lo) ||
					    lo < 0xdc00 || lo >= 0xe000)
						return fail(ps, "\\u%04x: a surrogate without its pair", cp);
					ps->p += 6;
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				} else if (cp >= 0xdc00 && cp < 0xe000) {
					return fail(ps, "\\u%04x: a surrogate without its pair", cp);
				}
				if (!cp)
					return fail(ps, "\\u0000 in a string");
				if (len + 4 > RJ_MAX_STRING)
					return fail(ps, "a string longer than %d bytes", RJ_MAX_STRING);
				len += utf8(cp, buf + len);
				continue;
			default:
				return fail(ps, "unknown escape \\%c in a string", c);
			}
		}
		if (len + 1 > RJ_MAX_STRING)
			return fail(ps, "a string longer than %d bytes", RJ_MAX_STRING);
		buf[len++] = c;
	}
	return pool_add(ps, buf, len, off);
}

static int parse_number(struct rj_parser *ps, struct rj_node *n)
{
	const char *s = ps->p;
	char buf[64], *end;
	bool frac = false;
	size_t len;

	if (*s == '-')
		s++;
	if (s >= ps->end || *s < '0' || *s > '9')
		return fail(ps, "not a number");
	while (s < ps->end && ((*s >= '0' && *s <= '9') || *s == '.' || *s == 'e' ||
			       *s == 'E' || *s == '+' || *s == '-')) {
		frac |= *s == '.' || *s == 'e' || *s == 'E';
		s++;
	}
	len = s - ps->p;
	if (len >= sizeof(buf))
		return fail(ps, "a number of more than %zu characters", sizeof(buf) - 1);
	memcpy(buf, ps->p, len);
	buf[len] = '\0';
	errno = 0;
	if (frac) {
		n->type = RJ_DOUBLE;
		n->d = strtod(buf, &end);
		if (*end || !isfinite(n->d))
			return fail(ps, "'%s' is not a number", buf);
	} else {
		n->type = RJ_INT;
		n->i = strtoll(buf, &end, 10);
		if (*end)
			return fail(ps, "'%s' is not a number", buf);
		if (errno == ERANGE)
			return fail(ps, "%s is out of range", buf);
	}
	ps->p = s;
	return 0;
}

static int parse_value(struct rj_parser *ps, uint32_t *idx);

/* Appends @child after @last (RJ_NONE: first) of @parent. */
static void link_child(struct rj_parser *ps, uint32_t parent, uint32_t *last,
		       uint32_t child)
{
	struct rj_node *nodes = ps->doc->nodes;

	if (*last == RJ_NONE)
		nodes[parent].child = child;
	else
		nodes[*last].next = child;
	nodes[parent].nr++;
	*last = child;
}

static int parse_array(struct rj_parser *ps, uint32_t idx)
{
	uint32_t last = RJ_NONE;
	char b[16];
	int err;

	ps->p++;
	for (;;) {
		uint32_t child;

		if ((err = skip_blank(ps)))
			return err;
		if (ps->p >= ps->end)
			return fail(ps, "the file ends inside an array (a missing ])");
		if (*ps->p == ']') {
			ps->p++;
			return 0;
		}
		if ((err = parse_value(ps, &child)))
			return err;
		link_child(ps, idx, &last, child);
		if ((err = skip_blank(ps)))
			return err;
		if (ps->p >= ps->end)
			return fail(ps, "the file ends inside an array (a missing ])");
		if (*ps->p == ',') {
			ps->p++;	/* a comma before ']' is json-c's too */
			continue;
		}
		if (*ps->p != ']')
			return fail(ps, "expected ',' or ']' in an array, found %s",
				    shown(*ps->p, b, sizeof(b)));
	}
}

static int parse_object(struct rj_parser *ps, uint32_t idx)
{
	uint32_t last = RJ_NONE;
	char b[16];
	int err;

	ps->p++;
	for (;;) {
		uint32_t key, child, line;

		if ((err = skip_blank(ps)))
			return err;
		if (ps->p >= ps->end)
			return fail(ps, "the file ends inside an object (a missing })");
		if (*ps->p == '}') {
			ps->p++;
			return 0;
		}
		if (*ps->p != '"')
			return fail(ps, "expected a key in quotes or '}', found %s",
				    shown(*ps->p, b, sizeof(b)));
		line = ps->line;
		if ((err = parse_string(ps, &key)))
			return err;
		if ((err = skip_blank(ps)))
			return err;
		if (ps->p < ps->end && *ps->p == ':') {
			ps->p++;
			if ((err = parse_value(ps, &child)))
				return err;
		} else if (ps->p < ps->end && (*ps->p == ',' || *ps->p == '}')) {
			/* "suspend", as workgen takes it: the grammar decides. */
			if ((err = new_node(ps, RJ_BARE, &child)))
				return err;
		} else if (ps->p >= ps->end) {
			return fail(ps, "the file ends inside an object (a missing })");
		} else {
			return fail(ps, "expected ':' after the key \"%s\", found %s",
				    rj_str(ps->doc, key), shown(*ps->p, b, sizeof(b)));
		}
		ps->doc->nodes[child].key = key;
		ps->doc->nodes[child].line = line;
		link_child(ps, idx, &last, child);
		if ((err = skip_blank(ps)))
			return err;
		if (ps->p >= ps->end)
			return fail(ps, "the file ends inside an object (a missing })");
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p != '}')
			return fail(ps, "expected ',' or '}' after the member \"%s\", found %s",
				    rj_str(ps->doc, key), shown(*ps->p, b, sizeof(b)));
	}
}

static bool word(struct rj_parser *ps, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n))
		return false;
	ps->p += n;
	return true;
}

static int parse_value(struct rj_parser *ps, uint32_t *idx)
{
	struct rj_node *n;
	char b[16];
	int err;

	if ((err = skip_blank(ps)))
		return err;
	if (ps->p >= ps->end)
		return fail(ps, "the file ends where a value should be");
	if ((err = new_node(ps, RJ_NULL, idx)))
		return err;
	n = &ps->doc->nodes[*idx];
	switch (*ps->p) {
	case '{':
	case '[':
		if (++ps->depth > RJ_MAX_DEPTH)
			return fail(ps, "nested more than %d deep", RJ_MAX_DEPTH);
		n->type = *ps->p == '{' ? RJ_OBJECT : RJ_ARRAY;
		err = n->type == RJ_OBJECT ? parse_object(ps, *idx) : parse_array(ps, *idx);
		ps->depth--;
		return err;
	case '"':
		n->type = RJ_STRING;
		return parse_string(ps, &ps->doc->nodes[*idx].str);
	case 't':
	case 'f':
		n->type = RJ_BOOL;
		n->b = *ps->p == 't';
		if (word(ps, n->b ? "true" : "false"))
			return 0;
		break;
	case 'n':
		if (word(ps, "null"))
			return 0;
		break;
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return parse_number(ps, n);
	}
	return fail(ps, "expected a value, found %s", shown(*ps->p, b, sizeof(b)));
}

int rj_parse(struct rj_doc *doc, const char *text, size_t len, char *err,
	     size_t errlen)
{
	struct rj_parser ps = {
		.doc = doc, .p = text, .end = text + len, .line = 1,
		.err = err, .errlen = errlen,
	};
	uint32_t root;
	char b[16];
	int ret;

	memset(doc, 0, sizeof(*doc));
	if (len > RJ_MAX_TEXT) {
		snprintf(err, errlen, "1: more than %u bytes: not a use case schedtop reads",
			 RJ_MAX_TEXT);
		return -EINVAL;
	}
	/* A UTF-8 byte order mark, as some editors write. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		ps.p += 3;
	if ((ret = skip_blank(&ps)))
		goto out;
	if (ps.p >= ps.end) {
		ret = fail(&ps, "empty: an rt-app use case is a JSON object");
		goto out;
	}
	if (*ps.p != '{') {
		ret = fail(&ps, "not JSON: an rt-app use case starts with '{', found %s",
			   shown(*ps.p, b, sizeof(b)));
		goto out;
	}
	if ((ret = parse_value(&ps, &root)))
		goto out;
	if ((ret = skip_blank(&ps)))
		goto out;
	if (ps.p < ps.end)
		ret = fail(&ps, "%s after the end of the use case's object",
			   shown(*ps.p, b, sizeof(b)));
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%u: out of memory", ps.line);
	if (ret)
		rj_free(doc);
	return ret;
}

void rj_free(struct rj_doc *doc)
{
	free(doc->nodes);
	free(doc->pool);
	memset(doc, 0, sizeof(*doc));
}

const struct rj_node *rj_get(const struct rj_doc *d, const struct rj_node *obj,
			     const char *key)
{
	if (!obj || obj->type != RJ_OBJECT)
		return NULL;
	for (const struct rj_node *n = rj_at(d, obj->child); n; n = rj_at(d, n->next))
		if (!strcmp(rj_str(d, n->key), key))
			return n;
	return NULL;
}

const struct rj_node *rj_earlier(const struct rj_doc *d, const struct rj_node *obj,
				 const struct rj_node *m)
{
	const char *key = rj_str(d, m->key);

	for (const struct rj_node *n = rj_at(d, obj->child); n && n != m; n = rj_at(d, n->next))
		if (!strcmp(rj_str(d, n->key), key))
			return n;
	return NULL;
}

const char *rj_type_name(const struct rj_node *n)
{
	static const char *const names[] = {
		[RJ_NULL] = "null", [RJ_BOOL] = "true or false",
		[RJ_INT] = "a whole number", [RJ_DOUBLE] = "a number with a fraction",
		[RJ_STRING] = "a string", [RJ_ARRAY] = "an array",
		[RJ_OBJECT] = "an object", [RJ_BARE] = "no value",
	};

	return n && n->type < ARRAY_SIZE(names) ? names[n->type] : "nothing";
}
