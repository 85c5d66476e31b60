// SPDX-License-Identifier: GPL-2.0
/*
 * The protobuf wire reader (base/proto_reader.c) on bytes written out by
 * hand from the encoding's definition (protobuf.dev, "Encoding"): varints
 * of every length up to 10 bytes, each wire type, nested and packed fields;
 * and every fault at the byte where it starts: a varint or a length past
 * its message's end, a fixed value cut short, a group, field 0, nesting
 * past PROTO_MAX_DEPTH, a packed array ending inside a value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "proto_reader.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void varints_of_every_length(void **state)
{
	static const struct { uint8_t b[10]; size_t len; uint64_t v; } cases[] = {
		{ { 0x00 }, 1, 0 },
		{ { 0x01 }, 1, 1 },
		{ { 0x7f }, 1, 127 },
		{ { 0x80, 0x01 }, 2, 128 },
		{ { 0xac, 0x02 }, 2, 300 },	/* the encoding guide's example */
		{ { 0xff, 0xff, 0xff, 0xff, 0x0f }, 5, 0xffffffffu },
		/* int32 -1 is sign-extended to ten bytes on the wire */
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10,
		  UINT64_MAX },
	};

	for (size_t i = 0; i < N(cases); i++) {
		const uint8_t *p = cases[i].b;
		uint64_t v = 42;

		assert_int_equal(proto_varint(&p, cases[i].b + cases[i].len, &v), PROTO_OK);
		assert_int_equal(v, cases[i].v);
		assert_ptr_equal(p, cases[i].b + cases[i].len);
	}
	assert_int_equal((int32_t)UINT64_MAX, -1);
}

static void varint_faults(void **state)
{
	static const uint8_t cut[] = { 0x80, 0x80 };
	static const uint8_t eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					  0x80, 0x80, 0x80, 0x80, 0x01 };
	const uint8_t *p = cut;
	uint64_t v;

	assert_int_equal(proto_varint(&p, cut + sizeof(cut), &v), PROTO_ERR_VARINT_END);
	assert_ptr_equal(p, cut);	/* not moved */
	p = eleven;
	assert_int_equal(proto_varint(&p, eleven + sizeof(eleven), &v),
			 PROTO_ERR_VARINT_LONG);
	p = cut;
	assert_int_equal(proto_varint(&p, cut, &v), PROTO_ERR_VARINT_END);
}

/* Field 1 varint 150, field 2 string "hi", field 3 fixed64, field 4 fixed32, 5 message. */
static const uint8_t msg[] = {
	0x08, 0x96, 0x01,
	0x12, 0x02, 'h', 'i',
	0x19, 1, 2, 3, 4, 5, 6, 7, 8,
	0x25, 0xef, 0xbe, 0xad, 0xde,
	0x2a, 0x02, 0x08, 0x07,
};

static void every_wire_type(void **state)
{
	struct proto_cursor c, sub;
	struct proto_field f;
	char s[8];

	proto_cursor_init(&c, msg, sizeof(msg));
	assert_true(proto_next(&c, &f));
	assert_int_equal(f.id, 1);
	assert_int_equal(f.wire, PROTO_VARINT);
	assert_int_equal(f.value, 150);
	assert_true(proto_next(&c, &f));
	assert_int_equal(f.id, 2);
	assert_int_equal(f.wire, PROTO_BYTES);
	proto_string(&f, s, sizeof(s));
	assert_string_equal(s, "hi");
	proto_string(&f, s, 2);		/* cut to fit, terminated */
	assert_string_equal(s, "h");
	assert_true(proto_next(&c, &f));
	assert_int_equal(f.wire, PROTO_FIXED64);
	assert_int_equal(f.value, 0x0807060504030201ULL);
	assert_true(proto_next(&c, &f));
	assert_int_equal(f.wire, PROTO_FIXED32);
	assert_int_equal(f.value, 0xdeadbeef);
	assert_true(proto_next(&c, &f));
	assert_int_equal(f.id, 5);
	assert_true(proto_enter(&c, &f, &sub));
	assert_int_equal(sub.depth, 1);
	assert_true(proto_next(&sub, &f));
	assert_int_equal(f.id, 1);
	assert_int_equal(f.value, 7);
	assert_false(proto_next(&sub, &f));
	assert_false(proto_next(&c, &f));
	assert_int_equal(proto_error(&c, NULL), PROTO_OK);
	assert_int_equal(proto_error(&sub, NULL), PROTO_OK);
}

/* Each message's one fault, and the offset where its field starts. */
static void faults_say_where(void **state)
{
	static const struct { uint8_t b[12]; size_t len; enum proto_err err; size_t at; } cases[] = {
		/* a length past its parent's end */
		{ { 0x08, 0x01, 0x12, 0x05, 'a', 'b' }, 6, PROTO_ERR_LENGTH, 2 },
		/* a varint value cut by the end */
		{ { 0x08, 0x01, 0x10, 0x80 }, 4, PROTO_ERR_VARINT_END, 2 },
		/* a tag cut by the end */
		{ { 0x08, 0x01, 0x80 }, 3, PROTO_ERR_VARINT_END, 2 },
		/* fixed64 and fixed32 short */
		{ { 0x19, 1, 2, 3 }, 4, PROTO_ERR_FIXED_END, 0 },
		{ { 0x08, 0x00, 0x25, 1 }, 4, PROTO_ERR_FIXED_END, 2 },
		/* groups (3, 4) and the unused wire types 6, 7 */
		{ { 0x0b }, 1, PROTO_ERR_WIRE, 0 },
		{ { 0x08, 0x00, 0x0e }, 3, PROTO_ERR_WIRE, 2 },
		/* field number 0 */
		{ { 0x02, 0x00 }, 2, PROTO_ERR_FIELD_ZERO, 0 },
	};

	for (size_t i = 0; i < N(cases); i++) {
		struct proto_cursor c;
		struct proto_field f;
		size_t off = 99;
		int n = 0;

		proto_cursor_init(&c, cases[i].b, cases[i].len);
		while (proto_next(&c, &f))
			n++;
		assert_int_equal(proto_error(&c, &off), cases[i].err);
		assert_int_equal(off, cases[i].at);
		/* Stopped for good: no field after a fault. */
		assert_false(proto_next(&c, &f));
		assert_true(n <= 1);
	}
}

/* A message nested one level deeper than PROTO_MAX_DEPTH allows. */
static void nesting_is_bounded(void **state)
{
	uint8_t b[2 * (PROTO_MAX_DEPTH + 2) + 2];
	struct proto_cursor c[PROTO_MAX_DEPTH + 3];
	struct proto_field f;
	size_t n = sizeof(b), off;
	int depth = 0;

	/* Each level: field 1, length of the rest. */
	for (size_t i = 0; i < n - 2; i += 2) {
		b[i] = 0x0a;
		b[i + 1] = n - i - 2;
	}
	b[n - 2] = 0x08;
	b[n - 1] = 0x01;
	proto_cursor_init(&c[0], b, n);
	while (proto_next(&c[depth], &f) && f.wire == PROTO_BYTES) {
		if (!proto_enter(&c[depth], &f, &c[depth + 1]))
			break;
		depth++;
	}
	assert_int_equal(depth, PROTO_MAX_DEPTH);
	assert_int_equal(proto_error(&c[depth], &off), PROTO_ERR_DEPTH);
	assert_int_equal(off, 2 * PROTO_MAX_DEPTH + 2);
}

static void packed_arrays(void **state)
{
	/* field 4, packed: 3, 270, 86942 (the guide's example) */
	static const uint8_t ok[] = { 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05 };
	static const uint8_t cut[] = { 0x22, 0x02, 0x03, 0x8e };
	static const uint64_t want[] = { 3, 270, 86942 };
	struct proto_cursor c;
	struct proto_field f;
	struct proto_packed pk;
	uint64_t v;
	size_t n = 0;

	proto_cursor_init(&c, ok, sizeof(ok));
	assert_true(proto_next(&c, &f));
	proto_packed_init(&pk, &f);
	while (proto_packed_next(&pk, &v))
		assert_int_equal(v, want[n++]);
	assert_int_equal(n, 3);
	assert_int_equal(pk.err, PROTO_OK);
	assert_false(proto_packed_more(&pk));

	proto_cursor_init(&c, cut, sizeof(cut));
	assert_true(proto_next(&c, &f));
	proto_packed_init(&pk, &f);
	assert_true(proto_packed_next(&pk, &v));
	assert_int_equal(v, 3);
	assert_false(proto_packed_next(&pk, &v));
	assert_int_equal(pk.err, PROTO_ERR_PACKED);
	assert_ptr_equal(pk.err_at, cut + 3);
}

static void every_error_has_words(void **state)
{
	for (int e = PROTO_ERR_VARINT_END; e <= PROTO_ERR_PACKED; e++)
		assert_true(strlen(proto_strerror(e)) > 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(varints_of_every_length),
		cmocka_unit_test(varint_faults),
		cmocka_unit_test(every_wire_type),
		cmocka_unit_test(faults_say_where),
		cmocka_unit_test(nesting_is_bounded),
		cmocka_unit_test(packed_arrays),
		cmocka_unit_test(every_error_has_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
