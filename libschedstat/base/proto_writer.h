/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Protocol buffers' wire format, written by hand: varints, fixed64, bytes
 * and nested messages into one growable buffer. No schema, no allocation
 * per field; the caller names each field by its number (the numbers of
 * the messages schedtop writes are in perfetto_fields.h).
 *
 * A nested message is opened with proto_begin() and closed with
 * proto_end(): its length, unknown until then, gets one byte up front and
 * the body is moved right in the rare case it needs more (a message of 128
 * bytes or longer), so that small messages, most of a trace, cost no
 * padding. The first failure (no memory, nesting deeper than
 * PROTO_MAX_DEPTH) sticks in @err and makes every later call a no-op.
 */
#ifndef SCHEDSTAT_PROTO_WRITER_H
#define SCHEDSTAT_PROTO_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_MAX_DEPTH	8

/* Wire types (the low 3 bits of a tag). */
enum proto_wire {
	PROTO_VARINT = 0,
	PROTO_FIXED64 = 1,
	PROTO_LEN = 2,
	PROTO_FIXED32 = 5,
};

struct proto_buf {
	uint8_t *p;
	size_t len, cap;
	int err;
	/* Where each open message's length byte is. */
	size_t open[PROTO_MAX_DEPTH];
	int depth;
};

/* The most bytes a varint takes (a 64-bit value). */
#define PROTO_VARINT_MAX	10

void proto_put_varint(struct proto_buf *b, uint64_t v);
void proto_put_tag(struct proto_buf *b, uint32_t field, enum proto_wire wire);
/* uint32/uint64/enum fields, and int32/int64 (negative: ten bytes, as protoc). */
void proto_put_uint(struct proto_buf *b, uint32_t field, uint64_t v);
void proto_put_int(struct proto_buf *b, uint32_t field, int64_t v);
void proto_put_bool(struct proto_buf *b, uint32_t field, bool v);
/* double (fixed64, IEEE 754, little-endian) */
void proto_put_double(struct proto_buf *b, uint32_t field, double v);
void proto_put_bytes(struct proto_buf *b, uint32_t field, const void *p, size_t len);
void proto_put_string(struct proto_buf *b, uint32_t field, const char *s);
/* A nested message as field @field; every begin needs its end. */
void proto_begin(struct proto_buf *b, uint32_t field);
void proto_end(struct proto_buf *b);
/* Empties the buffer, keeping its memory (and any error). */
void proto_reset(struct proto_buf *b);
void proto_free(struct proto_buf *b);
/* The number of bytes proto_put_varint() writes for @v. */
size_t proto_varint_len(uint64_t v);

#endif /* SCHEDSTAT_PROTO_WRITER_H */
