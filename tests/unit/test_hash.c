// SPDX-License-Identifier: GPL-2.0
/*
 * The hash table against a plain array that knows every key's value: random
 * puts, overwrites and removals (removal is where open addressing breaks),
 * and the corner keys 0 and UINT64_MAX.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "schedstat.h"

#define NR_KEYS 5000

struct ref {
	bool in[NR_KEYS];
	uint64_t value[NR_KEYS];
	size_t count;
};

/* xorshift64: the same sequence on every run and machine. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Keys as pids look: dense from 0, plus a stride that shares low bits. */
static uint64_t key_of(size_t i)
{
	return i < NR_KEYS / 2 ? i : (uint64_t)(i - NR_KEYS / 2 + 1) << 20;
}

static void check_all(const struct schedstat_hash *h, const struct ref *r)
{
	assert_int_equal(schedstat_hash_count(h), r->count);
	for (size_t i = 0; i < NR_KEYS; i++) {
		uint64_t v = ~0ULL;
		int err = schedstat_hash_get(h, key_of(i), &v);

		if (r->in[i]) {
			assert_int_equal(err, 0);
			assert_true(v == r->value[i]);
		} else {
			assert_int_equal(err, -ENOENT);
		}
	}
}

static void matches_reference_under_churn(void **state)
{
	struct schedstat_hash *h;
	struct ref *r = calloc(1, sizeof(*r));
	uint64_t seed = 0x5eed;

	assert_non_null(r);
	assert_int_equal(schedstat_hash_new(&h), 0);
	for (int round = 0; round < 200000; round++) {
		size_t i = rnd(&seed) % NR_KEYS;
		/* Mostly puts early, mostly removals late: the table grows
		 * past several doublings, then drains through long runs. */
		bool put = rnd(&seed) % 100 < (round < 100000 ? 70 : 30);

		if (put) {
			uint64_t v = rnd(&seed);

			assert_int_equal(schedstat_hash_put(h, key_of(i), v), 0);
			r->count += !r->in[i];
			r->in[i] = true;
			r->value[i] = v;
		} else {
			assert_int_equal(schedstat_hash_remove(h, key_of(i)),
					 r->in[i] ? 0 : -ENOENT);
			r->count -= r->in[i];
			r->in[i] = false;
		}
		if (round % 20000 == 0)
			check_all(h, r);
	}
	check_all(h, r);
	schedstat_hash_free(h);
	free(r);
}

static void zero_and_max_keys_are_keys(void **state)
{
	struct schedstat_hash *h;
	uint64_t v;

	assert_int_equal(schedstat_hash_new(&h), 0);
	assert_int_equal(schedstat_hash_get(h, 0, &v), -ENOENT);
	assert_int_equal(schedstat_hash_put(h, 0, 7), 0);
	assert_int_equal(schedstat_hash_put(h, UINT64_MAX, 0), 0);
	assert_int_equal(schedstat_hash_get(h, 0, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(schedstat_hash_get(h, UINT64_MAX, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(schedstat_hash_get(h, 1, NULL), -ENOENT);
	/* A put of a present key replaces, it does not add. */
	assert_int_equal(schedstat_hash_put(h, 0, 8), 0);
	assert_int_equal(schedstat_hash_count(h), 2);
	assert_int_equal(schedstat_hash_get(h, 0, &v), 0);
	assert_int_equal(v, 8);
	schedstat_hash_free(h);
}

static void clear_empties_and_refills(void **state)
{
	struct schedstat_hash *h;
	uint64_t v;

	assert_int_equal(schedstat_hash_new(&h), 0);
	for (uint64_t k = 0; k < 10000; k++)
		assert_int_equal(schedstat_hash_put(h, k, k * 3), 0);
	schedstat_hash_clear(h);
	assert_int_equal(schedstat_hash_count(h), 0);
	for (uint64_t k = 0; k < 10000; k++)
		assert_int_equal(schedstat_hash_get(h, k, NULL), -ENOENT);
	assert_int_equal(schedstat_hash_put(h, 42, 1), 0);
	assert_int_equal(schedstat_hash_get(h, 42, &v), 0);
	assert_int_equal(v, 1);
	schedstat_hash_free(h);
	schedstat_hash_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matches_reference_under_churn),
		cmocka_unit_test(zero_and_max_keys_are_keys),
		cmocka_unit_test(clear_empties_and_refills),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
