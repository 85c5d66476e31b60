/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Protocol buffers' wire format, read in place (the shape of Perfetto's
 * protozero decoders): a cursor walks the fields of one message inside a
 * buffer, handing out each field's number, wire type and value, or the
 * bytes of a length-delimited one, which proto_enter() walks in turn.
 * Nothing is allocated or copied, nothing is unpacked ahead: a reader
 * takes the fields it knows and the cursor steps over the others.
 *
 * Every length is checked against its parent's end and every varint
 * against the message's; nesting is bounded. The first fault stops the
 * cursor (and every cursor entered from it later reports its own): the
 * caller asks proto_error() what and where.
 */
#ifndef SCHEDSTAT_PROTO_READER_H
#define SCHEDSTAT_PROTO_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum proto_wire {
	PROTO_VARINT = 0,
	PROTO_FIXED64 = 1,
	PROTO_BYTES = 2,	/* length-delimited: a string, message or packed array */
	PROTO_FIXED32 = 5,
};

enum proto_err {
	PROTO_OK = 0,
	PROTO_ERR_VARINT_END,	/* a varint runs past the end of its message */
	PROTO_ERR_VARINT_LONG,	/* a varint longer than 10 bytes */
	PROTO_ERR_LENGTH,	/* a length runs past the end of its parent */
	PROTO_ERR_FIXED_END,	/* a fixed32/64 runs past the end of its message */
	PROTO_ERR_WIRE,		/* a wire type protobuf does not have (or a group) */
	PROTO_ERR_FIELD_ZERO,	/* field number 0 */
	PROTO_ERR_DEPTH,	/* nested deeper than the schema allows */
	PROTO_ERR_PACKED,	/* a packed array that does not end on a value */
};

/* How deep any schema we read nests, with room: a deeper message is damage. */
#define PROTO_MAX_DEPTH	16

struct proto_field {
	uint32_t id;
	uint8_t wire;		/* enum proto_wire */
	uint64_t value;		/* varint, fixed64 or fixed32 */
	const uint8_t *data;	/* PROTO_BYTES: the bytes */
	size_t len;
};

struct proto_cursor {
	const uint8_t *p, *end;
	const uint8_t *base;	/* the outermost buffer, for offsets */
	int depth;
	enum proto_err err;
	const uint8_t *err_at;	/* where the faulty field or value starts */
};

/* The varint's slow path: two bytes and more, or a fault. */
enum proto_err proto_varint_long(const uint8_t **p, const uint8_t *end, uint64_t *v);

/*
 * A varint at *@p, before @end: 0 and *@p moved past it, or
 * PROTO_ERR_VARINT_END / _LONG. Inline: the one-byte case (tags, flags,
 * small deltas) is most of a trace's varints.
 */
static inline enum proto_err proto_varint(const uint8_t **p, const uint8_t *end,
					  uint64_t *v)
{
	const uint8_t *q = *p;

	if (q < end && !(*q & 0x80)) {
		*v = *q;
		*p = q + 1;
		return PROTO_OK;
	}
	return proto_varint_long(p, end, v);
}

/* A cursor over the message of @len bytes at @buf (the outermost). */
void proto_cursor_init(struct proto_cursor *c, const uint8_t *buf, size_t len);
/* proto_next()'s general path: long tags and values, faults. */
bool proto_next_slow(struct proto_cursor *c, struct proto_field *f);

/*
 * The next field of the message into @f: true, or false at its end or at a
 * fault (then c->err is set). A field's value is checked, not its meaning.
 * Inline for varints and length-delimited fields that fit; fixed-size
 * values and every fault go the general way.
 */
static inline bool proto_next(struct proto_cursor *c, struct proto_field *f)
{
	const uint8_t *p = c->p;
	uint64_t tag, len;

	if (p >= c->end || proto_varint(&p, c->end, &tag) || !(tag >> 3) ||
	    (tag >> 3) > UINT32_MAX)
		return proto_next_slow(c, f);
	f->id = tag >> 3;
	f->wire = tag & 7;
	if (f->wire == PROTO_VARINT) {
		if (proto_varint(&p, c->end, &f->value))
			return proto_next_slow(c, f);
		f->data = NULL;
		f->len = 0;
		c->p = p;
		return true;
	}
	if (f->wire == PROTO_BYTES) {
		if (proto_varint(&p, c->end, &len) || len > (uint64_t)(c->end - p))
			return proto_next_slow(c, f);
		f->value = f->len = len;
		f->data = p;
		c->p = p + len;
		return true;
	}
	return proto_next_slow(c, f);
}
/*
 * @child walks @f's bytes as a message one level below @parent: false (and
 * @parent's error set) if @f is no length-delimited field or that would nest
 * deeper than PROTO_MAX_DEPTH.
 */
bool proto_enter(struct proto_cursor *parent, const struct proto_field *f,
		 struct proto_cursor *child);
/* The first fault of @c (PROTO_OK if none), its offset from @c's base. */
enum proto_err proto_error(const struct proto_cursor *c, size_t *offset);
const char *proto_strerror(enum proto_err err);


/*
 * A packed repeated varint field (packed = true), walked in place. A field
 * sent unpacked (one varint per field, as proto2 allows) is read by the
 * caller from proto_next() instead.
 */
struct proto_packed {
	const uint8_t *p, *end;
	enum proto_err err;
	const uint8_t *err_at;
};

void proto_packed_init(struct proto_packed *pk, const struct proto_field *f);
bool proto_packed_fault(struct proto_packed *pk, const uint8_t *at);

/* The next value: true, false at the end or at a fault (pk->err). */
static inline bool proto_packed_next(struct proto_packed *pk, uint64_t *v)
{
	const uint8_t *start = pk->p;

	if (pk->p >= pk->end)
		return false;
	if (proto_varint(&pk->p, pk->end, v))
		return proto_packed_fault(pk, start);
	return true;
}
static inline bool proto_packed_more(const struct proto_packed *pk)
{
	return pk->p < pk->end;
}

/* A string field copied NUL-terminated into @buf (cut to @size - 1). */
void proto_string(const struct proto_field *f, char *buf, size_t size);

#endif /* SCHEDSTAT_PROTO_READER_H */
