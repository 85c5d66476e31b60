// SPDX-License-Identifier: GPL-2.0
#include <linux/types.h>
#include "pelt.h"
#include "pelt_decay.h"
#include "sched_kernel.h"

uint64_t pelt_decay(uint64_t val, uint64_t n)
{
	/* After 63 half-lives any 64-bit value has decayed to zero. */
	if (n > PELT_HALFLIFE_PERIODS * 63)
		return 0;
	if (n >= PELT_HALFLIFE_PERIODS) {
		val >>= n / PELT_HALFLIFE_PERIODS;
		n %= PELT_HALFLIFE_PERIODS;
	}
	return (uint64_t)(((unsigned __int128)val * st_pelt_yn_inv[n]) >> 32);
}

uint64_t pelt_periods_since(uint64_t last_update_ns, uint32_t period_contrib,
			    uint64_t now_ns)
{
	return st_pelt_periods(last_update_ns, period_contrib, now_ns);
}

/*
 * Contribution of a segment spanning @periods boundaries: the rest of the
 * first period (d1) decayed by all of them, the full periods in between
 * (1024 * sum y^1..y^(p-1)), and the start of the current one (d3).
 */
static uint32_t accumulate_segments(uint64_t periods, uint32_t d1, uint32_t d3)
{
	uint32_t c1 = pelt_decay(d1, periods);
	uint32_t c2 = PELT_LOAD_AVG_MAX - pelt_decay(PELT_LOAD_AVG_MAX, periods) -
		      1024;

	return c1 + c2 + d3;
}

/*
 * accumulate_sum(): @delta in the kernel's 1024 ns "us". Before 5.0 the
 * kernel scaled the contribution here (v4.14..v4.20 kernel/sched/fair.c):
 * by arch_scale_freq_capacity() (cur/max frequency, of 1024) for every sum,
 * and util by arch_scale_cpu_capacity() too. From 5.0 the PELT clock is
 * scaled instead and both scales are 1024 here, which changes nothing.
 */
static uint64_t accumulate_sum(uint64_t delta, struct pelt_avg *sa,
			       uint64_t load, uint64_t runnable, int running,
			       uint32_t scale_freq, uint32_t scale_cpu)
{
	uint32_t contrib = (uint32_t)delta;	/* no boundary: delta < 1024 */
	uint64_t periods;

	delta += sa->period_contrib;
	periods = delta / 1024;
	if (periods) {
		sa->load_sum = pelt_decay(sa->load_sum, periods);
		sa->runnable_sum = pelt_decay(sa->runnable_sum, periods);
		sa->util_sum = pelt_decay(sa->util_sum, periods);
		delta %= 1024;
		/* Without load runnable and running are 0: contrib unused. */
		if (load)
			contrib = accumulate_segments(periods,
						      1024 - sa->period_contrib,
						      delta);
	}
	sa->period_contrib = delta;
	/* cap_scale(contrib, scale_freq) */
	contrib = (uint64_t)contrib * scale_freq >> 10;
	if (load)
		sa->load_sum += load * contrib;
	/*
	 * 4.x had no runnable_avg of today's meaning: scaled as util is, so
	 * that it stays at least util (5.0+ scales both by the clock).
	 */
	if (runnable)
		sa->runnable_sum += runnable * contrib * scale_cpu;
	if (running)
		sa->util_sum += contrib * scale_cpu;
	return periods;
}

bool pelt_update_sum_scaled(struct pelt_avg *sa, uint64_t now, uint64_t load,
			    uint64_t runnable, int running,
			    uint32_t scale_freq, uint32_t scale_cpu)
{
	uint64_t delta;

	/* Time going back: the kernel restarts from @now, and so do we. */
	if (now < sa->last_update_time) {
		sa->last_update_time = now;
		return false;
	}
	delta = (now - sa->last_update_time) >> 10;
	if (!delta)
		return false;
	sa->last_update_time += delta << 10;
	/* A dequeued entity that is still curr: nothing runs on its behalf. */
	if (!load)
		runnable = running = 0;
	return accumulate_sum(delta, sa, load, runnable, running, scale_freq,
			      scale_cpu) != 0;
}

void pelt_update_avg(struct pelt_avg *sa, uint64_t load)
{
	uint32_t divider = PELT_MIN_DIVIDER + sa->period_contrib;

	sa->load_avg = load * sa->load_sum / divider;
	sa->runnable_avg = sa->runnable_sum / divider;
	sa->util_avg = sa->util_sum / divider;
}

bool pelt_update(struct pelt_avg *sa, uint64_t now, uint64_t load,
		 uint64_t runnable, int running, uint64_t weight)
{
	return pelt_update_scaled(sa, now, load, runnable, running, weight,
				  PELT_SCALE_ONE, PELT_SCALE_ONE);
}

bool pelt_update_scaled(struct pelt_avg *sa, uint64_t now, uint64_t load,
			uint64_t runnable, int running, uint64_t weight,
			uint32_t scale_freq, uint32_t scale_cpu)
{
	if (!pelt_update_sum_scaled(sa, now, load, runnable, running,
				    scale_freq, scale_cpu))
		return false;
	pelt_update_avg(sa, weight);
	return true;
}

uint64_t pelt_prio_weight(int prio)
{
	/* kernel/sched/core.c sched_prio_to_weight[], nice -20 .. 19. */
	static const uint32_t weights[MAX_PRIO - MAX_RT_PRIO] = {
		88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949,
		11916, 9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586,
		1277, 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110,
		87, 70, 56, 45, 36, 29, 23, 18, 15,
	};

	if (prio < MAX_RT_PRIO)
		prio = MAX_RT_PRIO;
	if (prio > MAX_PRIO - 1)
		prio = MAX_PRIO - 1;
	return weights[prio - MAX_RT_PRIO];
}
