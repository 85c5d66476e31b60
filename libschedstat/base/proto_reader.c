// SPDX-License-Identifier: GPL-2.0
/*
 * Protocol buffers' wire format read in place (proto_reader.h): tags,
 * varints, fixed 32/64-bit values and length-delimited bytes, each checked
 * against the end of the message that holds it.
 */
#include <string.h>

#include "proto_reader.h"

void proto_cursor_init(struct proto_cursor *c, const uint8_t *buf, size_t len)
{
	*c = (struct proto_cursor){ .p = buf, .end = buf + len, .base = buf };
}

enum proto_err proto_varint_long(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;

	/* Ten bytes readable: no bounds check per byte (timestamps are 7). */
	if (end - q >= 10) {
		for (unsigned int i = 0; i < 10; i++) {
			x |= (uint64_t)(q[i] & 0x7f) << (7 * i);
			if (!(q[i] & 0x80)) {
				*v = x;
				*p = q + i + 1;
				return PROTO_OK;
			}
		}
		return PROTO_ERR_VARINT_LONG;
	}
	for (unsigned int shift = 0; shift < 70; shift += 7) {
		if (q >= end)
			return PROTO_ERR_VARINT_END;
		x |= (uint64_t)(*q & 0x7f) << shift;
		if (!(*q++ & 0x80)) {
			*v = x;
			*p = q;
			return PROTO_OK;
		}
	}
	return PROTO_ERR_VARINT_LONG;
}

static bool fail(struct proto_cursor *c, enum proto_err err, const uint8_t *at)
{
	c->err = err;
	c->err_at = at;
	c->p = c->end;
	return false;
}

bool proto_next_slow(struct proto_cursor *c, struct proto_field *f)
{
	const uint8_t *start = c->p;
	uint64_t tag, len;
	enum proto_err err;

	if (c->err || c->p >= c->end)
		return false;
	err = proto_varint(&c->p, c->end, &tag);
	if (err)
		return fail(c, err, start);
	if (tag >> 3 == 0 || tag >> 3 > UINT32_MAX)
		return fail(c, PROTO_ERR_FIELD_ZERO, start);
	f->id = tag >> 3;
	f->wire = tag & 7;
	f->data = NULL;
	f->len = 0;
	switch (f->wire) {
	case PROTO_VARINT:
		err = proto_varint(&c->p, c->end, &f->value);
		if (err)
			return fail(c, err, start);
		return true;
	case PROTO_FIXED64:
		if (c->end - c->p < 8)
			return fail(c, PROTO_ERR_FIXED_END, start);
		memcpy(&f->value, c->p, 8);	/* little-endian on the wire and here */
		c->p += 8;
		return true;
	case PROTO_FIXED32: {
		uint32_t v;

		if (c->end - c->p < 4)
			return fail(c, PROTO_ERR_FIXED_END, start);
		memcpy(&v, c->p, 4);
		f->value = v;
		c->p += 4;
		return true;
	}
	case PROTO_BYTES:
		err = proto_varint(&c->p, c->end, &len);
		if (err)
			return fail(c, err, start);
		if (len > (uint64_t)(c->end - c->p))
			return fail(c, PROTO_ERR_LENGTH, start);
		f->data = c->p;
		f->len = len;
		f->value = len;
		c->p += len;
		return true;
	default:
		/* 3 and 4 are proto2's groups, which no schema we read uses. */
		return fail(c, PROTO_ERR_WIRE, start);
	}
}

bool proto_enter(struct proto_cursor *parent, const struct proto_field *f,
		 struct proto_cursor *child)
{
	if (f->wire != PROTO_BYTES)
		return fail(parent, PROTO_ERR_WIRE, f->data ? f->data : parent->p);
	if (parent->depth + 1 > PROTO_MAX_DEPTH)
		return fail(parent, PROTO_ERR_DEPTH, f->data);
	*child = (struct proto_cursor){ .p = f->data, .end = f->data + f->len,
					.base = parent->base,
					.depth = parent->depth + 1 };
	return true;
}

enum proto_err proto_error(const struct proto_cursor *c, size_t *offset)
{
	if (offset)
		*offset = c->err ? (size_t)(c->err_at - c->base) : 0;
	return c->err;
}

const char *proto_strerror(enum proto_err err)
{
	switch (err) {
	case PROTO_OK:
		return "no error";
	case PROTO_ERR_VARINT_END:
		return "a varint runs past the end of its message";
	case PROTO_ERR_VARINT_LONG:
		return "a varint longer than 10 bytes";
	case PROTO_ERR_LENGTH:
		return "a length runs past the end of its parent";
	case PROTO_ERR_FIXED_END:
		return "a fixed-size value runs past the end of its message";
	case PROTO_ERR_WIRE:
		return "a field of a wire type the schema does not have";
	case PROTO_ERR_FIELD_ZERO:
		return "a field number out of range (0, or above 2^32)";
	case PROTO_ERR_DEPTH:
		return "messages nested deeper than the schema allows";
	case PROTO_ERR_PACKED:
		return "a packed array that ends inside a value";
	}
	return "unknown protobuf error";
}

void proto_packed_init(struct proto_packed *pk, const struct proto_field *f)
{
	*pk = (struct proto_packed){ .p = f->data, .end = f->data + f->len };
}

bool proto_packed_fault(struct proto_packed *pk, const uint8_t *at)
{
	pk->err = PROTO_ERR_PACKED;
	pk->err_at = at;
	pk->p = pk->end;
	return false;
}

void proto_string(const struct proto_field *f, char *buf, size_t size)
{
	size_t n = f->wire == PROTO_BYTES ? f->len : 0;

	if (!size)
		return;
	if (n >= size)
		n = size - 1;
	if (n)
		memcpy(buf, f->data, n);
	buf[n] = '\0';
}
