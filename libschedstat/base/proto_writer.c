// SPDX-License-Identifier: GPL-2.0
/*
 * Protocol buffers' wire encoding (see proto_writer.h). The format:
 * https://protobuf.dev/programming-guides/encoding/ ("Message Structure").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto_writer.h"

/* Room for @n more bytes; false (and err set) if there is none to be had. */
static bool room(struct proto_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->err)
		return false;
	if (b->cap - b->len >= n)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2) {
			b->err = -ENOMEM;
			return false;
		}
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

size_t proto_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static size_t varint_to(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

void proto_put_varint(struct proto_buf *b, uint64_t v)
{
	if (room(b, PROTO_VARINT_MAX))
		b->len += varint_to(b->p + b->len, v);
}

void proto_put_tag(struct proto_buf *b, uint32_t field, enum proto_wire wire)
{
	proto_put_varint(b, (uint64_t)field << 3 | wire);
}

void proto_put_uint(struct proto_buf *b, uint32_t field, uint64_t v)
{
	proto_put_tag(b, field, PROTO_VARINT);
	proto_put_varint(b, v);
}

/* int32 and int64 are sign-extended to 64 bits on the wire. */
void proto_put_int(struct proto_buf *b, uint32_t field, int64_t v)
{
	proto_put_uint(b, field, (uint64_t)v);
}

void proto_put_bool(struct proto_buf *b, uint32_t field, bool v)
{
	proto_put_uint(b, field, v);
}

void proto_put_double(struct proto_buf *b, uint32_t field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	proto_put_tag(b, field, PROTO_FIXED64);
	if (!room(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->len++] = (uint8_t)(bits >> (8 * i));
}

void proto_put_bytes(struct proto_buf *b, uint32_t field, const void *p, size_t len)
{
	proto_put_tag(b, field, PROTO_LEN);
	proto_put_varint(b, len);
	if (len && room(b, len)) {
		memcpy(b->p + b->len, p, len);
		b->len += len;
	}
}

void proto_put_string(struct proto_buf *b, uint32_t field, const char *s)
{
	proto_put_bytes(b, field, s, strlen(s));
}

void proto_begin(struct proto_buf *b, uint32_t field)
{
	if (b->depth >= PROTO_MAX_DEPTH) {
		if (!b->err)
			b->err = -E2BIG;
		return;
	}
	proto_put_tag(b, field, PROTO_LEN);
	if (!room(b, 1))
		return;
	b->open[b->depth++] = b->len;
	b->p[b->len++] = 0;
}

void proto_end(struct proto_buf *b)
{
	size_t at, body, extra;

	if (b->err || !b->depth)
		return;
	at = b->open[--b->depth];
	body = b->len - at - 1;
	extra = proto_varint_len(body) - 1;
	if (extra) {
		if (!room(b, extra))
			return;
		memmove(b->p + at + 1 + extra, b->p + at + 1, body);
		b->len += extra;
	}
	varint_to(b->p + at, body);
}

void proto_reset(struct proto_buf *b)
{
	b->len = 0;
	b->depth = 0;
}

void proto_free(struct proto_buf *b)
{
	free(b->p);
	*b = (struct proto_buf){};
}
