// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

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
