/* SPDX-License-Identifier: GPL-2.0 */
/* PELT arithmetic exactly as kernel/sched/pelt.c does it. */
#ifndef SCHEDSTAT_PELT_H
#define SCHEDSTAT_PELT_H

#include <stdint.h>

/* 32 periods of 1024 us halve a signal: y^32 = 1/2. */
#define PELT_HALFLIFE_PERIODS	32
/* The kernel's "us" is 1024 ns: it shifts nanoseconds right by 10. */
#define PELT_PERIOD_NS		(1024ULL * 1024ULL)
/* Largest sum a always-running entity reaches: 1024 * sum(y^n). */
#define PELT_LOAD_AVG_MAX	47742

/* val * y^n with the kernel's fixed-point table and rounding. */
uint64_t pelt_decay(uint64_t val, uint64_t n);

/*
 * Whole periods the kernel would decay an entity by when it next updates it
 * at @now_ns, given its last_update_time and period_contrib (in kernel "us").
 */
uint64_t pelt_periods_since(uint64_t last_update_ns, uint32_t period_contrib,
			    uint64_t now_ns);

#endif /* SCHEDSTAT_PELT_H */
