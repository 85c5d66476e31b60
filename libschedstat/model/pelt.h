/* SPDX-License-Identifier: GPL-2.0 */
/* PELT arithmetic exactly as kernel/sched/pelt.c does it. */
#ifndef SCHEDSTAT_PELT_H
#define SCHEDSTAT_PELT_H

#include <stdbool.h>
#include <stdint.h>

/* 32 periods of 1024 us halve a signal: y^32 = 1/2. */
#define PELT_HALFLIFE_PERIODS	32
/* The kernel's "us" is 1024 ns: it shifts nanoseconds right by 10. */
#define PELT_PERIOD_NS		(1024ULL * 1024ULL)
/* Largest sum a always-running entity reaches: 1024 * sum(y^n). */
#define PELT_LOAD_AVG_MAX	47742

/* SCHED_CAPACITY_SCALE: full frequency, the biggest CPU. */
#define PELT_SCALE_ONE		1024

/* get_pelt_divider() of an entity whose current period is empty. */
#define PELT_MIN_DIVIDER	(PELT_LOAD_AVG_MAX - 1024)

/*
 * struct sched_avg: the sums and averages of one entity (a task or a CPU's
 * root cfs_rq), in the kernel's units. last_update_time is in the PELT
 * clock of the CPU the entity is attached to, in ns.
 */
struct pelt_avg {
	uint64_t last_update_time;
	uint64_t load_sum;
	uint64_t runnable_sum;
	uint32_t util_sum;
	uint32_t period_contrib;
	uint64_t load_avg;
	uint64_t runnable_avg;
	uint64_t util_avg;
};

/*
 * ___update_load_sum(): accrue what the entity did since its last update
 * (@load: weight while queued, 0 when not; @runnable: queued entities;
 * @running: on the CPU) until @now. True when a period boundary was
 * crossed: only then does the kernel recompute the averages. From 5.0 the
 * clock is scaled and both scales are PELT_SCALE_ONE; before 5.0 the
 * contributions were scaled (@now is then the task clock): @scale_freq is
 * cur/max frequency and @scale_cpu the CPU's capacity, both of
 * PELT_SCALE_ONE (docs/signals.md).
 */
bool pelt_update_sum_scaled(struct pelt_avg *sa, uint64_t now, uint64_t load,
			    uint64_t runnable, int running,
			    uint32_t scale_freq, uint32_t scale_cpu);
/* ___update_load_avg(): averages from sums; @load is the entity's weight. */
void pelt_update_avg(struct pelt_avg *sa, uint64_t load);
/* Both, as __update_load_avg_se() and update_cfs_rq_load_avg() do. */
bool pelt_update(struct pelt_avg *sa, uint64_t now, uint64_t load,
		 uint64_t runnable, int running, uint64_t weight);
bool pelt_update_scaled(struct pelt_avg *sa, uint64_t now, uint64_t load,
			uint64_t runnable, int running, uint64_t weight,
			uint32_t scale_freq, uint32_t scale_cpu);
/* sched_prio_to_weight[] for a fair task's prio (100..139; nice 0 = 1024). */
uint64_t pelt_prio_weight(int prio);

/* val * y^n with the kernel's fixed-point table and rounding. */
uint64_t pelt_decay(uint64_t val, uint64_t n);

/*
 * Whole periods the kernel would decay an entity by when it next updates it
 * at @now_ns, given its last_update_time and period_contrib (in kernel "us").
 */
uint64_t pelt_periods_since(uint64_t last_update_ns, uint32_t period_contrib,
			    uint64_t now_ns);

#endif /* SCHEDSTAT_PELT_H */
