// SPDX-License-Identifier: GPL-2.0
/* Small helpers every part of the library uses: growable arrays, the clock. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "schedstat-local.h"

int array_reserve(void **items, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*items, n * size);
	if (!p)
		return -ENOMEM;
	*items = p;
	*cap = n;
	return 0;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}
