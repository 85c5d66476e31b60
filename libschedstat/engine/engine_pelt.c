// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's PELT accumulation, as kernel/sched/fair.c and pelt.c do it:
 * a task's se.avg is updated at each event that changes its state, with
 * the flags of the state it was in (queued: load and runnable; curr:
 * running); a CPU's root cfs_rq is updated at each event on that CPU with
 * the weight and number of queued fair tasks. Migrating tasks leave with
 * their sums (detach) and bring them to the new CPU, aligned to its period
 * (attach). Values from the kernel's own PELT events (engine_events.c)
 * replace the engine's.
 */
#include <string.h>

#include "engine_local.h"
#include "sched_kernel.h"

/*
 * arch_scale_freq_capacity(): cur/max of 1024, full when either is
 * unknown (the kernel's default without a cpufreq driver that sets it).
 */
static uint32_t freq_scale(const struct ecpu *c)
{
	if (!c->st.freq_khz || !c->max_khz || c->st.freq_khz >= c->max_khz)
		return PELT_SCALE_ONE;
	return (uint64_t)c->st.freq_khz * PELT_SCALE_ONE / c->max_khz;
}

/* pelt_update() as the CPU's kernel did it: scaled clock or contributions. */
bool engine_cpu_pelt_update(const struct ecpu *c, struct pelt_avg *sa,
			    uint64_t now, uint64_t load, uint64_t runnable,
			    int running, uint64_t weight)
{
	if (!c->scaled_contrib)
		return pelt_update(sa, now, load, runnable, running, weight);
	return pelt_update_scaled(sa, now, load, runnable, running, weight,
				  freq_scale(c), c->capacity);
}

/*
 * rq_clock_pelt(): while the CPU works, time counts at its capacity and
 * clock (a LITTLE core at half speed accrues half as much); once idle,
 * the kernel resyncs it with the task clock (update_idle_rq_clock_pelt()).
 */
static void advance_clock(struct ecpu *c, uint64_t ts)
{
	uint64_t d;

	if (!c->started) {
		c->started = true;
		c->clock = c->pelt = ts;
		c->avg.last_update_time = ts;
		return;
	}
	if (ts <= c->clock)
		return;
	d = ts - c->clock;
	c->clock = ts;
	/* Before 5.0, rq_clock_task(): scaling happens in pelt.c. */
	if (c->curr == 0 || c->scaled_contrib) {
		/* The task clock, which lags trace time by what was lost. */
		if (ts - c->lag > c->pelt)
			c->pelt = ts - c->lag;
		c->lag_pending = 0;
		return;
	}
	if (c->lag_pending) {
		uint64_t skip = d < c->lag_pending ? d : c->lag_pending;

		d -= skip;
		c->lag_pending -= skip;
	}
	if (c->st.freq_khz && c->max_khz && c->st.freq_khz < c->max_khz)
		d = d * c->st.freq_khz / c->max_khz;
	c->pelt += d * c->capacity >> 10;
}

/* update_cfs_rq_load_avg() up to @ts with the CPU's current flags. */
void engine_update_cpu(struct ecpu *c, uint64_t ts)
{
	advance_clock(c, ts);
	engine_cpu_pelt_update(c, &c->avg, c->pelt, c->load, c->nr_queued,
			       c->curr_fair, 1);
}

/*
 * __update_load_avg_se() of @t up to @ts, in the flags it had until then.
 * A switch the trace lacks is made up late, dated back (engine_current()):
 * the CPU's clock may be past @ts already, the task's is not.
 */
void engine_update_task(struct engine *e, struct etask *t, uint64_t ts)
{
	struct ecpu *c = engine_cpu_at(e, t->attached);
	bool queued = t->rec.on_rq;
	uint64_t now;

	if (!c || !t->fair)
		return;
	engine_update_cpu(c, ts);
	now = c->pelt;
	if (ts < c->clock)
		now = c->pelt > c->clock - ts ? c->pelt - (c->clock - ts) : 0;
	if (now < t->avg.last_update_time)
		now = t->avg.last_update_time;
	engine_cpu_pelt_update(c, &t->avg, now, queued, queued, t->rec.on_cpu,
			       pelt_prio_weight(t->rec.prio));
}

/* detach_entity_load_avg(): the CPU's sums lose the task's. */
void engine_detach(struct engine *e, struct etask *t)
{
	struct ecpu *c = engine_cpu_at(e, t->attached);
	uint64_t util_sum;

	if (!c)
		return;
	engine_sub_clamped(&c->avg.util_avg, t->avg.util_avg);
	util_sum = c->avg.util_sum;
	engine_sub_clamped(&util_sum, t->avg.util_sum);
	/* Rounding must not leave a sum below what its average implies. */
	if (util_sum < c->avg.util_avg * PELT_MIN_DIVIDER)
		util_sum = c->avg.util_avg * PELT_MIN_DIVIDER;
	c->avg.util_sum = util_sum;
	engine_sub_clamped(&c->avg.runnable_avg, t->avg.runnable_avg);
	engine_sub_clamped(&c->avg.runnable_sum, t->avg.runnable_sum);
	if (c->avg.runnable_sum < c->avg.runnable_avg * PELT_MIN_DIVIDER)
		c->avg.runnable_sum = c->avg.runnable_avg * PELT_MIN_DIVIDER;
	engine_sub_clamped(&c->avg.load_avg, t->avg.load_avg);
	engine_sub_clamped(&c->avg.load_sum, t->avg.load_sum);
	if (c->avg.load_sum < c->avg.load_avg * PELT_MIN_DIVIDER)
		c->avg.load_sum = c->avg.load_avg * PELT_MIN_DIVIDER;
	t->attached = -1;
}

/*
 * attach_entity_load_avg(): the task takes the CPU's period alignment, its
 * sums are rebuilt from its averages, and the CPU's sums gain them.
 */
void engine_attach(struct engine *e, struct etask *t, int cpu, uint64_t ts)
{
	struct ecpu *c = engine_cpu_at(e, cpu);
	uint32_t divider;
	uint64_t weight = pelt_prio_weight(t->rec.prio);

	if (!c)
		return;
	engine_update_cpu(c, ts);
	divider = PELT_MIN_DIVIDER + c->avg.period_contrib;
	t->avg.last_update_time = c->avg.last_update_time;
	t->avg.period_contrib = c->avg.period_contrib;
	t->avg.util_sum = t->avg.util_avg * divider;
	t->avg.runnable_sum = t->avg.runnable_avg * divider;
	t->avg.load_sum = t->avg.load_avg * divider;
	t->avg.load_sum = weight < t->avg.load_sum ? t->avg.load_sum / weight : 1;
	c->avg.util_avg += t->avg.util_avg;
	c->avg.util_sum += t->avg.util_sum;
	c->avg.runnable_avg += t->avg.runnable_avg;
	c->avg.runnable_sum += t->avg.runnable_sum;
	c->avg.load_avg += t->avg.load_avg;
	c->avg.load_sum += t->avg.load_sum;
	t->attached = cpu;
}

/*
 * init_entity_runnable_average() and post_init_entity_util_avg(): a new
 * task starts with its full weight as load and a share of its CPU's util,
 * at most half the spare capacity.
 */
void engine_init_new(struct engine *e, struct etask *t, int cpu, uint64_t ts)
{
	struct ecpu *c = engine_cpu_at(e, cpu);
	uint64_t weight = pelt_prio_weight(t->rec.prio);
	int64_t cap;

	memset(&t->avg, 0, sizeof(t->avg));
	if (!c || !t->fair)
		return;
	engine_update_cpu(c, ts);
	t->avg.load_avg = weight;
	/* Before 5.0 the share was of SCHED_CAPACITY_SCALE, on every CPU. */
	cap = ((int64_t)(c->scaled_contrib ? PELT_SCALE_ONE : c->capacity) -
	       (int64_t)c->avg.util_avg) / 2;
	if (cap > 0) {
		if (c->avg.util_avg) {
			t->avg.util_avg = c->avg.util_avg * weight /
					  (c->avg.load_avg + 1);
			if (t->avg.util_avg > (uint64_t)cap)
				t->avg.util_avg = cap;
		} else {
			t->avg.util_avg = cap;
		}
	}
	t->avg.runnable_avg = t->avg.util_avg;
	engine_attach(e, t, cpu, ts);
}

void engine_set_pelt_scheme(struct engine *e, bool scaled_contrib)
{
	for (int i = 0; i < e->nr_cpus; i++)
		e->cpus[i].scaled_contrib = scaled_contrib;
}

void engine_set_max_freq(struct engine *e, int cpu, uint32_t khz)
{
	struct ecpu *c = engine_cpu_at(e, cpu);

	if (c && khz)
		c->max_khz = khz;
}

uint32_t engine_max_freq(const struct engine *e, int cpu)
{
	return cpu >= 0 && cpu < e->nr_cpus ? e->cpus[cpu].max_khz : 0;
}
