// SPDX-License-Identifier: GPL-2.0
/*
 * A traced counter's value in its row, as the CSV would show it or leave it
 * empty: the one reading both exports (Perfetto, atrace) share.
 */
#include <math.h>
#include <string.h>

#include "trace_counter.h"

int64_t trace_counter_int(const struct schedstat_trace_counter *c, const void *row)
{
	const char *p = (const char *)row + c->offset;

	switch (c->type) {
	case SCHEDSTAT_FIELD_BOOL:
		return *(const bool *)p;
	case SCHEDSTAT_FIELD_S32: {
		int32_t x;

		memcpy(&x, p, sizeof(x));
		return x;
	}
	case SCHEDSTAT_FIELD_U32: {
		uint32_t x;

		memcpy(&x, p, sizeof(x));
		return x;
	}
	default: {
		uint64_t x;

		memcpy(&x, p, sizeof(x));
		return x > INT64_MAX ? INT64_MAX : (int64_t)x;
	}
	}
}

bool schedstat_trace_counter_value(const struct schedstat_trace_counter *c,
				   const void *row, uint32_t avail, double *v)
{
	int64_t x;

	/* Every bit it needs, as the CSV's columns. */
	if ((avail & c->avail) != c->avail)
		return false;
	switch (c->type) {
	case SCHEDSTAT_FIELD_F64:
		memcpy(v, (const char *)row + c->offset, sizeof(*v));
		return isfinite(*v);
	case SCHEDSTAT_FIELD_BOOL:
	case SCHEDSTAT_FIELD_S32:
	case SCHEDSTAT_FIELD_U32:
	case SCHEDSTAT_FIELD_U64:
		x = trace_counter_int(c, row);
		/* An optional signed value is negative when not known. */
		if (c->type == SCHEDSTAT_FIELD_S32 && c->avail && x < 0)
			return false;
		*v = (double)x;
		return true;
	default:
		return false;
	}
}
