/* SPDX-License-Identifier: GPL-2.0 */
/* A traced counter's value in its row (schedstat_trace_counter_value()'s file). */
#ifndef SCHEDSTAT_TRACE_COUNTER_H
#define SCHEDSTAT_TRACE_COUNTER_H

#include <stdint.h>

#include "schedstat.h"

/* The integer an integer counter holds, exactly (not through a double). */
int64_t trace_counter_int(const struct schedstat_trace_counter *c, const void *row);

#endif /* SCHEDSTAT_TRACE_COUNTER_H */
