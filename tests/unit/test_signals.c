// SPDX-License-Identifier: GPL-2.0
/*
 * The signal table (libschedstat/base/signals.c): one row per avail bit, in
 * bit order; every field it names is the CPU row schema's field of that
 * name, at that place; every slot it copies from holds an integer the field
 * can take; and the availability its loops give is the one the hand-kept
 * maps gave before them (bpf_cpus.c, model_cpus.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <linux/types.h>

#include "array_size.h"
#include "schedtop.h"
#include "signals.h"

struct schema_field {
	const char *name;
	size_t offset, size;
};

#define CPU_FIELD(f, m, t) \
	{ #f, offsetof(struct schedstat_cpu, m), sizeof(((struct schedstat_cpu *)0)->m) },
static const struct schema_field cpu_schema[] = {
	SCHEDSTAT_CPU_FIELDS(CPU_FIELD, CPU_FIELD)
};

static void rows_in_bit_order(void **state)
{
	size_t nr;
	const struct schedstat_signal *sig = schedstat_signals(&nr);

	assert_true(nr >= 18);
	for (size_t i = 0; i < nr; i++) {
		assert_int_equal(sig[i].avail, 1u << i);
		assert_non_null(sig[i].name);
		assert_non_null(sig[i].kernel);
		assert_non_null(sig[i].versions);
		/* Given by the events alone, a signal has no seen bit to miss. */
		if (sig[i].flags & SCHEDSTAT_SIGNAL_EVENTS)
			assert_true(sig[i].flags & SCHEDSTAT_SIGNAL_RUNQUEUE);
		if (sig[i].flags & SCHEDSTAT_SIGNAL_RUNQUEUE)
			assert_int_not_equal(sig[i].seen, 0);
	}
}

static void fields_are_the_schemas(void **state)
{
	size_t nr, named = 0;
	const struct schedstat_signal *sig = schedstat_signals(&nr);

	for (size_t i = 0; i < nr; i++) {
		for (int k = 0; k < SCHEDSTAT_SIGNAL_FIELDS; k++) {
			const struct schedstat_signal_field *f = &sig[i].cpu_fields[k];
			const struct schema_field *s = NULL;

			if (!f->name)
				continue;
			named++;
			for (size_t j = 0; j < ARRAY_SIZE(cpu_schema); j++)
				if (!strcmp(cpu_schema[j].name, f->name))
					s = &cpu_schema[j];
			assert_non_null(s);
			assert_int_equal(f->offset, s->offset);
			assert_int_equal(f->size, s->size);
			assert_true(f->size == 4 || f->size == 8);
			assert_true(f->slot_size == 0 || f->slot_size == 4 ||
				    f->slot_size == 8);
			assert_true(f->slot_offset + f->slot_size <=
				    sizeof(struct st_cpu_state));
		}
	}
	/* cfs 3, rt, dl, irq, hw, capacity_cfs, freq 2, busy, preempt */
	assert_true(named >= 12);
}

/* What the maps of bpf_cpus.c and model_cpus.c gave, written out. */
static uint32_t old_read(uint32_t seen)
{
	static const struct { uint32_t seen, bit; } map[] = {
		{ ST_SEEN_CFS, SCHEDSTAT_AVAIL_CFS },
		{ ST_SEEN_RT, SCHEDSTAT_AVAIL_RT },
		{ ST_SEEN_DL, SCHEDSTAT_AVAIL_DL },
		{ ST_SEEN_IRQ, SCHEDSTAT_AVAIL_IRQ },
		{ ST_SEEN_HW, SCHEDSTAT_AVAIL_HW },
		{ ST_SEEN_CAPACITY, SCHEDSTAT_AVAIL_CAPACITY_CFS },
		{ ST_SEEN_OVERUTILIZED, SCHEDSTAT_AVAIL_OVERUTILIZED },
		{ ST_SEEN_IDLE_TIME, SCHEDSTAT_AVAIL_BUSY },
	};
	uint32_t avail = 0;

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (seen & map[i].seen)
			avail |= map[i].bit;
	return avail;
}

static uint32_t old_cpu(uint32_t avail, uint32_t seen)
{
	static const struct { uint32_t avail, seen; } map[] = {
		{ SCHEDSTAT_AVAIL_CFS, ST_SEEN_CFS },
		{ SCHEDSTAT_AVAIL_RT, ST_SEEN_RT },
		{ SCHEDSTAT_AVAIL_DL, ST_SEEN_DL },
		{ SCHEDSTAT_AVAIL_IRQ, ST_SEEN_IRQ },
		{ SCHEDSTAT_AVAIL_HW, ST_SEEN_HW },
		{ SCHEDSTAT_AVAIL_CAPACITY_CFS, ST_SEEN_CAPACITY },
		{ SCHEDSTAT_AVAIL_FREQ, ST_SEEN_FREQ },
		{ SCHEDSTAT_AVAIL_IDLE, ST_SEEN_IDLE },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!(seen & map[i].seen))
			avail &= ~map[i].avail;
	if ((seen & ST_SEEN_RQ) && !(seen & ST_SEEN_IDLE_TIME))
		avail &= ~SCHEDSTAT_AVAIL_BUSY;
	if ((seen & ST_SEEN_RQ) && !(seen & ST_SEEN_OVERUTILIZED))
		avail &= ~SCHEDSTAT_AVAIL_OVERUTILIZED;
	return avail;
}

/* Every combination of the seen bits, with every avail bit asked for. */
static void availability_as_before(void **state)
{
	for (uint32_t seen = 0; seen < (ST_SEEN_RQ << 1); seen++) {
		assert_int_equal(signal_avail_read(seen), old_read(seen));
		assert_int_equal(signal_cpu_avail(0x3ffff, seen), old_cpu(0x3ffff, seen));
	}
}

/* The copy and the zeroing: every guarded field, and nothing else. */
static void copy_and_clear(void **state)
{
	struct st_cpu_state c = {
		.cfs_util = 100, .cfs_runnable = 200, .cfs_load = 5000000000ull,
		.rt_util = 3, .dl_util = 4, .irq_util = 5, .hw_pressure = 6,
		.capacity = 900,
	};
	struct schedstat_cpu o = {}, want;

	signal_copy_slot(&o, &c);
	assert_int_equal(o.util_avg, 100);
	assert_int_equal(o.runnable_avg, 200);
	assert_int_equal(o.load_avg, 5000000000ull);
	assert_int_equal(o.rt_util, 3);
	assert_int_equal(o.dl_util, 4);
	assert_int_equal(o.irq_util, 5);
	assert_int_equal(o.hw_pressure, 6);
	assert_int_equal(o.capacity_cfs, 900);

	/* Every bit but those of the fields zeroed below. */
	memset(&o, 0x5a, sizeof(o));
	o.avail = ~(uint32_t)(SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_DL |
			      SCHEDSTAT_AVAIL_IRQ | SCHEDSTAT_AVAIL_HW |
			      SCHEDSTAT_AVAIL_CAPACITY_CFS | SCHEDSTAT_AVAIL_BUSY |
			      SCHEDSTAT_AVAIL_PREEMPT);
	want = o;
	signal_clear_missing(&o);
	want.util_avg = want.runnable_avg = 0;
	want.load_avg = 0;
	want.dl_util = want.irq_util = want.hw_pressure = 0;
	want.capacity_cfs = 0;
	want.busy_ns = want.nr_preempt = 0;
	assert_memory_equal(&o, &want, sizeof(o));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_in_bit_order),
		cmocka_unit_test(fields_are_the_schemas),
		cmocka_unit_test(availability_as_before),
		cmocka_unit_test(copy_and_clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
