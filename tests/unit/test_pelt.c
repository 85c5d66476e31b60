// SPDX-License-Identifier: GPL-2.0
/* PELT arithmetic against closed forms and the kernel's constants. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pelt.h"

static void half_life_is_32_periods(void **state)
{
	/* The kernel loses one unit in the fixed-point multiply, as we do. */
	assert_int_equal(pelt_decay(1024, 32), 511);
	assert_int_equal(pelt_decay(1 << 20, 32), (1 << 19) - 1);
	assert_int_equal(pelt_decay(1 << 20, 64), (1 << 18) - 1);
}

static void decay_matches_closed_form(void **state)
{
	const double y = pow(0.5, 1.0 / 32);

	for (int n = 1; n < 32 * 5; n++) {
		double want = (double)(1 << 20) * pow(y, n);
		double got = pelt_decay(1 << 20, n);

		assert_true(fabs(got - want) <= 2.0 + want * 1e-6);
	}
}

static void everything_decays_to_zero(void **state)
{
	assert_int_equal(pelt_decay(UINT64_MAX, 32 * 63 + 1), 0);
	assert_int_equal(pelt_decay(47742, 32 * 20), 0);
}

/*
 * LOAD_AVG_MAX: the kernel's generator folds sum = sum * y + 1024 until it
 * stops changing. With our table the same fold must land on 47742.
 */
static void load_avg_max_is_47742(void **state)
{
	uint64_t sum = 0, last = 1;

	for (int i = 0; i < 10000 && sum != last; i++) {
		last = sum;
		sum = pelt_decay(sum, 1) + 1024;
	}
	assert_int_equal(sum, PELT_LOAD_AVG_MAX);
}

/* A task running all the time: util after n periods is 1024 (1 - y^n). */
static void running_task_converges(void **state)
{
	const double y = pow(0.5, 1.0 / 32);
	uint64_t sum = 0;

	for (int n = 1; n <= 200; n++) {
		double want;
		uint64_t util;

		sum = pelt_decay(sum, 1) + 1024;
		util = sum * 1024 / PELT_LOAD_AVG_MAX;
		want = 1024.0 * (1 - pow(y, n));
		assert_true(fabs((double)util - want) <= 1024 * 0.01);
	}
}

/*
 * Before 5.1, contributions were scaled: a task running flat out on a CPU
 * of capacity C at frequency ratio F/1024 tends to C * F / 1024 (the
 * v4.x util cap), as 1024 (1 - y^n) * C/1024 * F/1024 after n periods,
 * and its load (not scaled by capacity) to weight * F / 1024. Updated
 * once a period as the tick does, on the task clock.
 */
static void scaled_contributions_cap_util(void **state)
{
	const double y = pow(0.5, 1.0 / 32);
	struct pelt_avg sa = {};
	const uint32_t cap = 446, freq = 700 * 1024 / 850;

	for (int n = 1; n <= 400; n++) {
		double want = 1024.0 * (1 - pow(y, n)) * cap / 1024 * freq / 1024;

		pelt_update_scaled(&sa, (uint64_t)n * PELT_PERIOD_NS, 1, 1, 1,
				   1024, freq, cap);
		assert_true(fabs((double)sa.util_avg - want) <= 1024 * 0.01);
		assert_true(sa.util_avg <= sa.runnable_avg + 1);
	}
	assert_in_range(sa.util_avg, cap * freq / 1024 - 2, cap * freq / 1024);
	assert_in_range(sa.load_avg, freq - 2, freq);
}

/* At full scale the 4.x arithmetic is today's, bit for bit. */
static void full_scale_is_the_scaled_clock(void **state)
{
	struct pelt_avg a = {}, b = {};
	uint64_t now = 0;

	for (int i = 0; i < 300; i++) {
		now += 137777 + (uint64_t)i * 9173;
		pelt_update(&a, now, i % 3 != 0, i % 3 != 0, i % 2, 1024);
		pelt_update_scaled(&b, now, i % 3 != 0, i % 3 != 0, i % 2, 1024,
				   PELT_SCALE_ONE, PELT_SCALE_ONE);
		assert_memory_equal(&a, &b, sizeof(a));
	}
}

static void periods_since_counts_kernel_us(void **state)
{
	/* The kernel's "us" is 1024 ns and a period 1024 of them. */
	assert_int_equal(pelt_periods_since(0, 0, PELT_PERIOD_NS - 1), 0);
	assert_int_equal(pelt_periods_since(0, 0, PELT_PERIOD_NS), 1);
	assert_int_equal(pelt_periods_since(0, 1000, 30 * 1024), 1);
	assert_int_equal(pelt_periods_since(5000, 0, 4000), 0);
	assert_int_equal(pelt_periods_since(1000, 0, 1000 + 32 * PELT_PERIOD_NS), 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(half_life_is_32_periods),
		cmocka_unit_test(decay_matches_closed_form),
		cmocka_unit_test(everything_decays_to_zero),
		cmocka_unit_test(load_avg_max_is_47742),
		cmocka_unit_test(running_task_converges),
		cmocka_unit_test(periods_since_counts_kernel_us),
		cmocka_unit_test(scaled_contributions_cap_util),
		cmocka_unit_test(full_scale_is_the_scaled_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
