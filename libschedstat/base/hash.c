// SPDX-License-Identifier: GPL-2.0
/*
 * The integer-keyed hash table (include/schedstat.h): open addressing with
 * linear probing in a power-of-two array at most half full, Fibonacci
 * hashing (consecutive pids land far apart), and backward-shift removal so
 * that no tombstones pile up between rebuilds.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "schedstat-local.h"

#define HASH_MIN_BITS 6

struct hash_slot {
	uint64_t key;
	uint64_t value;
	bool used;
};

struct schedstat_hash {
	struct hash_slot *slots;
	unsigned int bits;	/* 1 << bits slots */
	size_t count;
};

static size_t hash_index(const struct schedstat_hash *h, uint64_t key)
{
	/* 2^64 / golden ratio: the top bits of the product are well mixed. */
	return (key * 0x9e3779b97f4a7c15ULL) >> (64 - h->bits);
}

static size_t hash_mask(const struct schedstat_hash *h)
{
	return ((size_t)1 << h->bits) - 1;
}

/* The slot holding @key, or the empty slot where it would go. */
static size_t hash_find(const struct schedstat_hash *h, uint64_t key)
{
	size_t i = hash_index(h, key);

	while (h->slots[i].used && h->slots[i].key != key)
		i = (i + 1) & hash_mask(h);
	return i;
}

static int hash_resize(struct schedstat_hash *h, unsigned int bits)
{
	struct hash_slot *old = h->slots;
	size_t old_n = old ? hash_mask(h) + 1 : 0;

	h->slots = calloc((size_t)1 << bits, sizeof(*h->slots));
	if (!h->slots) {
		h->slots = old;
		return -ENOMEM;
	}
	h->bits = bits;
	for (size_t i = 0; i < old_n; i++)
		if (old[i].used)
			h->slots[hash_find(h, old[i].key)] = old[i];
	free(old);
	return 0;
}

int schedstat_hash_new(struct schedstat_hash **out)
{
	struct schedstat_hash *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	if (hash_resize(h, HASH_MIN_BITS)) {
		free(h);
		return -ENOMEM;
	}
	*out = h;
	return 0;
}

void schedstat_hash_free(struct schedstat_hash *h)
{
	if (!h)
		return;
	free(h->slots);
	free(h);
}

int schedstat_hash_get(const struct schedstat_hash *h, uint64_t key,
		       uint64_t *value)
{
	size_t i = hash_find(h, key);

	if (!h->slots[i].used)
		return -ENOENT;
	if (value)
		*value = h->slots[i].value;
	return 0;
}

int schedstat_hash_put(struct schedstat_hash *h, uint64_t key, uint64_t value)
{
	size_t i = hash_find(h, key);

	if (!h->slots[i].used) {
		/* At most half full: probes stay short, one always ends. */
		if ((h->count + 1) * 2 > hash_mask(h) + 1) {
			if (hash_resize(h, h->bits + 1))
				return -ENOMEM;
			i = hash_find(h, key);
		}
		h->slots[i].used = true;
		h->slots[i].key = key;
		h->count++;
	}
	h->slots[i].value = value;
	return 0;
}

int schedstat_hash_remove(struct schedstat_hash *h, uint64_t key)
{
	size_t mask = hash_mask(h), i = hash_find(h, key), j = i;

	if (!h->slots[i].used)
		return -ENOENT;
	/*
	 * Move each later entry of the probe run back into the hole unless
	 * its home slot lies cyclically in (hole, entry]: from there a probe
	 * would stop at the hole before reaching it. The run ends at an empty
	 * slot.
	 */
	for (;;) {
		size_t home;

		h->slots[i].used = false;
		do {
			j = (j + 1) & mask;
			if (!h->slots[j].used)
				goto done;
			home = hash_index(h, h->slots[j].key);
		} while (((j - home) & mask) < ((j - i) & mask));
		h->slots[i] = h->slots[j];
		i = j;
	}
done:
	h->count--;
	return 0;
}

void schedstat_hash_clear(struct schedstat_hash *h)
{
	memset(h->slots, 0, (hash_mask(h) + 1) * sizeof(*h->slots));
	h->count = 0;
}

size_t schedstat_hash_count(const struct schedstat_hash *h)
{
	return h->count;
}
