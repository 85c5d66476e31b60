// SPDX-License-Identifier: GPL-2.0
/*
 * The bytes of a recording: little-endian integers written byte by byte,
 * LEB128 varints, strings, and the CRC-checked chunk header
 * (docs/record-format.md, "Conventions" and "Chunks"). Output grows a
 * buffer whose first failure sticks; input is a cursor that refuses to read
 * past its end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "record_format.h"

/* ---- primitives --------------------------------------------------- */

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = v >> (8 * i);
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint8_t *buf_room(struct rec_buf *b, size_t len)
{
	if (b->err)
		return NULL;
	if (schedstat_array_reserve((void **)&b->p, &b->cap, b->len + len, 1)) {
		b->err = -ENOMEM;
		return NULL;
	}
	b->len += len;
	return b->p + b->len - len;
}

void rec_put_bytes(struct rec_buf *b, const void *p, size_t len)
{
	uint8_t *dst = buf_room(b, len);

	if (dst && len)
		memcpy(dst, p, len);
}

void rec_put_uvar(struct rec_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	rec_put_bytes(b, tmp, n);
}

void rec_put_svar(struct rec_buf *b, int64_t v)
{
	rec_put_uvar(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void rec_put_str(struct rec_buf *b, const char *s)
{
	size_t len = strlen(s);

	rec_put_uvar(b, len);
	rec_put_bytes(b, s, len);
}

void rec_put_u64le(struct rec_buf *b, uint64_t v)
{
	uint8_t *p = buf_room(b, 8);

	if (p)
		put_le(p, v, 8);
}

static bool cur_take(struct rec_cur *c, size_t len)
{
	if (c->err || (size_t)(c->end - c->p) < len) {
		c->err = -EBADMSG;
		return false;
	}
	return true;
}

uint64_t rec_get_uvar(struct rec_cur *c)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t byte;

		if (!cur_take(c, 1))
			return 0;
		byte = *c->p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	c->err = -EBADMSG;	/* more than ten bytes: not a varint of ours */
	return 0;
}

int64_t rec_get_svar(struct rec_cur *c)
{
	uint64_t v = rec_get_uvar(c);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

void rec_get_str(struct rec_cur *c, char *dst, size_t size)
{
	uint64_t len = rec_get_uvar(c);

	dst[0] = '\0';
	if (c->err)
		return;
	if (len >= size || !cur_take(c, len)) {
		c->err = -EBADMSG;
		return;
	}
	/*
	 * Names go to terminals: a file must not smuggle escape sequences in
	 * (live names are sanitized alike, so a round trip stays exact).
	 */
	schedstat_comm_sanitize(dst, (const char *)c->p, len + 1);
	/* All of the rest: a row decoded over an older one keeps no tail of it. */
	len = strlen(dst);
	memset(dst + len, 0, size - len);
	c->p += len;
}

uint64_t rec_get_u64le(struct rec_cur *c)
{
	uint64_t v;

	if (!cur_take(c, 8))
		return 0;
	v = get_le(c->p, 8);
	c->p += 8;
	return v;
}

size_t rec_get_count(struct rec_cur *c, size_t min_item_len)
{
	uint64_t n = rec_get_uvar(c);

	if (c->err)
		return 0;
	if (min_item_len && n > (uint64_t)(c->end - c->p) / min_item_len) {
		c->err = -EBADMSG;
		return 0;
	}
	return n;
}

/* ---- chunk header ------------------------------------------------- */

uint32_t rec_chunk_crc(const uint8_t hdr[REC_CHUNK_HDR_LEN], const void *stored,
		       size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	crc = crc32(crc, hdr, REC_CHUNK_HDR_LEN - 4);
	if (len)
		crc = crc32(crc, stored, len);
	return crc;
}

void rec_chunk_hdr_encode(uint8_t out[REC_CHUNK_HDR_LEN],
			  const struct rec_chunk_hdr *h, const void *stored)
{
	put_le(out, REC_CHUNK_MAGIC, 4);
	put_le(out + 4, h->type, 2);
	put_le(out + 6, h->flags, 2);
	put_le(out + 8, h->stored_len, 4);
	put_le(out + 12, h->raw_len, 4);
	put_le(out + 16, h->first_ts, 8);
	put_le(out + 24, h->count, 4);
	put_le(out + 28, rec_chunk_crc(out, stored, h->stored_len), 4);
}

int rec_chunk_hdr_decode(const uint8_t in[REC_CHUNK_HDR_LEN],
			 struct rec_chunk_hdr *h)
{
	if (get_le(in, 4) != REC_CHUNK_MAGIC)
		return -EBADMSG;
	h->type = get_le(in + 4, 2);
	h->flags = get_le(in + 6, 2);
	h->stored_len = get_le(in + 8, 4);
	h->raw_len = get_le(in + 12, 4);
	h->first_ts = get_le(in + 16, 8);
	h->count = get_le(in + 24, 4);
	h->crc = get_le(in + 28, 4);
	if (h->stored_len > REC_CHUNK_MAX || h->raw_len > REC_CHUNK_MAX)
		return -EBADMSG;
	if (!(h->flags & REC_CHUNK_DEFLATE) && h->raw_len != h->stored_len)
		return -EBADMSG;
	return 0;
}
