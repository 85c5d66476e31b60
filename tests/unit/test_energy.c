// SPDX-License-Identifier: GPL-2.0
/*
 * The energy model readers and both estimates against values computed by
 * hand (each test shows its arithmetic), on synthetic residency and on the
 * debugfs fixtures (tests/fixtures/energy/README.md); and the workload
 * score's percentiles, miss ratios and figure of merit.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "energy_model.h"
#include "model.h"

static const char *fixture(const char *name)
{
	static char path[PATH_MAX];
	const char *dir = getenv("SCHEDTOP_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/fixtures/energy/%s",
		 dir && *dir ? dir : ".", name);
	return path;
}

static struct schedstat_energy_model *two_cluster(struct schedstat_topology **topo)
{
	struct schedstat_energy_model *em;
	int line = -1;

	assert_int_equal(schedstat_energy_model_load(&em, fixture("two-cluster.em"), &line), 0);
	assert_int_equal(topology_parse_foreign(topo, "LITTLE:0@1024,big:1@1024"), 0);
	assert_int_equal(schedstat_energy_model_bind(em, *topo), 0);
	return em;
}

static void test_text_model(void **state)
{
	struct schedstat_topology *topo;
	struct schedstat_energy_model *em = two_cluster(&topo);
	const struct schedstat_em_state *st;

	assert_int_equal(schedstat_energy_model_nr_domains(em), 2);
	assert_string_equal(schedstat_energy_model_domain_name(em, 1), "big");
	assert_int_equal(schedstat_energy_model_nr_states(em, 1), 4);
	st = schedstat_energy_model_state(em, 1, 3);
	assert_int_equal(st->khz, 2304000);
	assert_true(st->power_mw == 2304);
	/* em_init_performance(): 1024 * 1000000 / 2304000 = 444.4 -> 444. */
	assert_int_equal(schedstat_energy_model_state(em, 1, 1)->performance, 444);
	assert_true(schedstat_energy_model_idle_mw(em, 1) == 4);
	schedstat_energy_model_free(em);
	schedstat_topology_free(topo);
}

static void test_text_errors(void **state)
{
	struct schedstat_energy_model *em;
	int line;

	assert_int_equal(schedstat_energy_model_parse(&em, "# c\nbig 1000 5\nbig x 3\n", &line), -EINVAL);
	assert_int_equal(line, 3);
	assert_null(em);
	assert_int_equal(schedstat_energy_model_parse(&em, "big 1000 5 7\n", &line), -EINVAL);
	assert_int_equal(line, 1);
	/* The same OPP twice. */
	assert_int_equal(schedstat_energy_model_parse(&em, "big 1000 5\nbig 1000 6\n", &line), -EINVAL);
	assert_int_equal(line, 2);
	/* An idle power alone names no OPP. */
	assert_int_equal(schedstat_energy_model_parse(&em, "big idle 5\n", &line), -EINVAL);
	assert_int_equal(schedstat_energy_model_parse(&em, "", &line), -EINVAL);
	/* Comments and blank lines are fine; states are sorted by clock. */
	assert_int_equal(schedstat_energy_model_parse(&em, "\n x 2000 9 # top\n\nx 1000 3\n", &line), 0);
	assert_int_equal(schedstat_energy_model_state(em, 0, 0)->khz, 1000);
	schedstat_energy_model_free(em);
}

/*
 * big, 2 s, its CPU busy 0.5 s, clock unknown: (a) takes the top OPP,
 * 0.5 s x 2304 mW + 1.5 s x 4 mW idle = 1158 mJ over 2 s = 579 mW.
 * (b) util 256 x 1.25 = 320: the lowest performance >= 320 is 444
 * (1000000 kHz, 280 mW), and 280 x 256 / 444 = 161.4414 mW.
 */
static void test_residency_unknown_clock(void **state)
{
	struct schedstat_topology *topo;
	struct schedstat_energy_model *em = two_cluster(&topo);
	struct schedstat_energy_cpu_input in = { .busy_ns = 500000000, .util = 256 };
	struct schedstat_energy_result r;

	assert_int_equal(schedstat_energy_estimate(em, 1, 2000000000, &in, 1, NULL, 0, &r), 0);
	assert_true(fabs(r.power_mw - 579.0) < 1e-9);
	assert_true(fabs(r.energy_uj - 1158000.0) < 1e-6);
	assert_true(r.freq_assumed);
	assert_int_equal(r.eas_state, 1);
	assert_true(fabs(r.eas_power_mw - 280.0 * 256 / 444) < 1e-9);
	assert_true(fabs(r.eas_power_mw - 161.4414) < 1e-4);

	/* A known clock of 900 MHz runs at the 1 GHz OPP: 0.5 x 280 + 1.5 x 4 = 146 mJ. */
	in.freq_khz = 900000;
	assert_int_equal(schedstat_energy_estimate(em, 1, 2000000000, &in, 1, NULL, 0, &r), 0);
	assert_true(fabs(r.power_mw - 73.0) < 1e-9);
	assert_false(r.freq_assumed);
	/* Busy the whole time at the top OPP: exactly its power. */
	in = (struct schedstat_energy_cpu_input){ .busy_ns = 3000000000, .freq_khz = 2304000,
						   .util = 1024 };
	assert_int_equal(schedstat_energy_estimate(em, 1, 1000000000, &in, 1, NULL, 0, &r), 0);
	assert_true(fabs(r.power_mw - 2304.0) < 1e-9);
	assert_true(fabs(r.eas_power_mw - 2304.0) < 1e-9);
	schedstat_energy_model_free(em);
	schedstat_topology_free(topo);
}

static struct schedstat_energy_model *gs101(struct schedstat_topology **topo)
{
	struct schedstat_energy_model *em;

	assert_int_equal(schedstat_energy_model_read(&em, fixture("gs101-debugfs/energy_model")), 0);
	assert_int_equal(topology_parse_foreign(topo, "little:0-3@250,mid:4-5@620,big:6-7@1024"), 0);
	assert_int_equal(schedstat_energy_model_bind(em, *topo), 0);
	return em;
}

static void test_debugfs_fixture(void **state)
{
	struct schedstat_topology *topo;
	struct schedstat_energy_model *em = gs101(&topo);
	const struct schedstat_em_state *st;

	assert_int_equal(schedstat_energy_model_nr_domains(em), 3);
	assert_string_equal(schedstat_energy_model_domain_name(em, 2), "pd6");
	assert_string_equal(schedstat_energy_model_domain_cpus(em, 2), "6-7");
	assert_int_equal(schedstat_energy_model_domain_cluster(em, 2), 2);
	assert_string_equal(schedstat_energy_model_domain_key(em, 2), "big");
	/* flags 0x1: 600000 uW is 600 mW; performance as the file says. */
	st = schedstat_energy_model_state(em, 2, 1);
	assert_int_equal(st->khz, 1426000);
	assert_true(st->power_mw == 600);
	assert_int_equal(st->performance, 521);
	assert_int_equal(st->cost, 6000000 / 521);
	schedstat_energy_model_free(em);
	schedstat_topology_free(topo);
}

/*
 * big (pd6), 1 s: clock at 2252000 kHz 0.6 s and 1426000 kHz 0.4 s, so a
 * busy ns costs 0.6 x 1500 + 0.4 x 600 = 1140 mW; CPU6 busy 0.5 s, CPU7
 * 0.25 s, no idle power: 0.75 s x 1140 mW = 855 mJ, 855 mW.
 * (b) utils 400 and 300: 400 x 1.25 = 500 -> performance 521 (600 mW);
 * 600 x 700 / 521 = 806.1420 mW; the kernel's own integer form,
 * cost x sum_util = 11516 x 700 = 8061200 (uW x 10), agrees to 0.01%.
 */
static void test_debugfs_estimate(void **state)
{
	struct schedstat_topology *topo;
	struct schedstat_energy_model *em = gs101(&topo);
	struct schedstat_energy_cpu_input in[] = {
		{ .busy_ns = 500000000, .util = 400 },
		{ .busy_ns = 250000000, .util = 300 },
	};
	struct schedstat_freq_residency fr[] = {
		{ .cluster = 2, .khz = 1426000, .ns = 400000000 },
		{ .cluster = 2, .khz = 2252000, .ns = 600000000 },
	};
	struct schedstat_energy_result r;

	assert_int_equal(schedstat_energy_estimate(em, 2, 1000000000, in, 2, fr, 2, &r), 0);
	assert_true(fabs(r.power_mw - 855.0) < 1e-9);
	assert_true(fabs(r.energy_uj - 855000.0) < 1e-6);
	assert_false(r.freq_assumed);
	assert_int_equal(r.eas_state, 1);
	assert_true(fabs(r.eas_power_mw - 806.1420) < 1e-4);
	assert_true(fabs(r.eas_power_mw - 11516.0 * 700 / 10 / 1000) / r.eas_power_mw < 1e-4);

	/* Per CPU in a snapshot: 0.5 x 1140 = 570 and 0.25 x 1140 = 285 mW;
	 * 600 x 400 / 521 and 600 x 300 / 521; the sums are the cluster's. */
	{
		struct schedstat_cpu c[2] = {
			{ .cpu = 6, .cluster = 2, .online = true, .capacity = 1024,
			  .busy_ns = 500000000, .util_avg = 400, .avail = SCHEDSTAT_AVAIL_BUSY },
			{ .cpu = 7, .cluster = 2, .online = true, .capacity = 1024,
			  .busy_ns = 250000000, .util_avg = 300, .avail = SCHEDSTAT_AVAIL_BUSY },
		};
		struct schedstat_cluster cl[3] = { { .id = 0 }, { .id = 1 }, { .id = 2 } };
		struct schedstat_snapshot snap = {
			.interval_ns = 1000000000, .cpus = c, .nr_cpus = 2,
			.clusters = cl, .nr_clusters = 3, .freqs = fr, .nr_freqs = 2,
		};

		schedstat_snapshot_apply_energy(&snap, em);
		assert_true(fabs(c[0].power_mw - 570) < 1e-9);
		assert_true(fabs(c[1].power_mw - 285) < 1e-9);
		assert_true(fabs(c[0].eas_power_mw - 600.0 * 400 / 521) < 1e-9);
		assert_true(fabs(c[1].eas_power_mw - 600.0 * 300 / 521) < 1e-9);
		assert_true(fabs(cl[2].power_mw - 855) < 1e-9);
		assert_true(fabs(cl[2].eas_power_mw - (c[0].eas_power_mw + c[1].eas_power_mw)) < 1e-9);
		/* Clusters 0 and 1 have no online CPU here: nothing to spend. */
		assert_true(cl[0].power_mw == 0);
	}
	schedstat_energy_model_free(em);
	schedstat_topology_free(topo);
}

static void test_cs_layout(void **state)
{
	struct schedstat_topology *topo;
	struct schedstat_energy_model *em;

	assert_int_equal(schedstat_energy_model_read(&em, fixture("cs-debugfs/energy_model")), 0);
	assert_int_equal(topology_parse_foreign(&topo, "LITTLE:0@512,big:1@1024"), 0);
	assert_int_equal(schedstat_energy_model_bind(em, topo), 0);
	/* No flags file: mW as written; performance from the clock. */
	assert_true(schedstat_energy_model_state(em, 1, 1)->power_mw == 2304);
	assert_int_equal(schedstat_energy_model_state(em, 0, 0)->performance,
			 512 * 576000 / 1612000);
	schedstat_energy_model_free(em);
	schedstat_topology_free(topo);
	assert_int_equal(schedstat_energy_model_read(&em, fixture("no-such-dir")), -ENOENT);
}

/* A model that names a cluster the topology lacks is refused at bind. */
static void test_bind_mismatch(void **state)
{
	struct schedstat_topology *topo;
	struct schedstat_energy_model *em;

	assert_int_equal(schedstat_energy_model_parse(&em, "prime 1000 5\n", NULL), 0);
	assert_int_equal(topology_parse_foreign(&topo, "LITTLE:0,big:1"), 0);
	assert_int_equal(schedstat_energy_model_bind(em, topo), -SCHEDSTAT_ERR_EM_TOPOLOGY);
	schedstat_energy_model_free(em);
	schedstat_topology_free(topo);
}

/* What a recording stores rebuilds the same model. */
static void test_meta_round_trip(void **state)
{
	struct schedstat_topology *topo;
	struct schedstat_energy_model *em = gs101(&topo), *back;
	char vals[3][512], keys[3][64];
	const char *k[3], *v[3];

	for (int d = 0; d < 3; d++) {
		assert_int_equal(schedstat_energy_model_domain_text(em, d, vals[d], 512), 0);
		snprintf(keys[d], sizeof(keys[d]), "energy_model.%s",
			 schedstat_energy_model_domain_key(em, d));
		k[d] = keys[d];
		v[d] = vals[d];
	}
	assert_string_equal(vals[2], "500000 150.000;1426000 600.000;2252000 1500.000;2802000 2600.000");
	assert_int_equal(energy_model_from_meta(&back, k, v, 3, "x"), 0);
	assert_int_equal(schedstat_energy_model_bind(back, topo), 0);
	assert_int_equal(schedstat_energy_model_nr_domains(back), 3);
	for (int d = 0; d < 3; d++)
		for (int s = 0; s < 4; s++) {
			assert_int_equal(schedstat_energy_model_state(back, d, s)->khz,
					 schedstat_energy_model_state(em, d, s)->khz);
			assert_true(schedstat_energy_model_state(back, d, s)->power_mw ==
				    schedstat_energy_model_state(em, d, s)->power_mw);
		}
	schedstat_energy_model_free(back);
	schedstat_energy_model_free(em);
	schedstat_topology_free(topo);
}

/* A snapshot's cluster rows get the estimate from its CPU rows. */
static void test_snapshot_apply(void **state)
{
	struct schedstat_topology *topo;
	struct schedstat_energy_model *em = two_cluster(&topo);
	struct schedstat_cpu cpus[2] = {
		{ .cpu = 0, .cluster = 0, .online = true, .capacity = 1024,
		  .busy_ns = 250000000, .util_avg = 100, .avail = SCHEDSTAT_AVAIL_BUSY },
		{ .cpu = 1, .cluster = 1, .online = true, .capacity = 1024,
		  .busy_ns = 1000000000, .util_avg = 1000, .util_est = 1024,
		  .avail = SCHEDSTAT_AVAIL_BUSY | SCHEDSTAT_AVAIL_UTIL_EST },
	};
	struct schedstat_cluster cl[2] = { { .id = 0 }, { .id = 1 } };
	struct schedstat_snapshot snap = {
		.interval_ns = 1000000000, .cpus = cpus, .nr_cpus = 2,
		.clusters = cl, .nr_clusters = 2,
	};

	schedstat_snapshot_apply_energy(&snap, em);
	/* LITTLE: 0.25 x 112 + 0.75 x 2 = 29.5 mW; big: busy all along, 2304. */
	assert_true(cl[0].avail & SCHEDSTAT_AVAIL_ENERGY);
	assert_true(fabs(cl[0].power_mw - 29.5) < 1e-9);
	assert_true(fabs(cl[0].energy_uj - 29500) < 1e-6);
	assert_true(fabs(cl[1].power_mw - 2304) < 1e-9);
	/* util_est 1024 wins over util_avg: top OPP, 2304 x 1024 / 1024. */
	assert_true(fabs(cl[1].eas_power_mw - 2304) < 1e-9);
	assert_true(cl[1].power_freq_assumed);
	/* One CPU per cluster: its part is the whole. */
	assert_true(cpus[0].avail & SCHEDSTAT_AVAIL_ENERGY);
	assert_true(fabs(cpus[0].power_mw - 29.5) < 1e-9);
	assert_true(fabs(cpus[0].eas_power_mw - cl[0].eas_power_mw) < 1e-9);
	assert_true(fabs(cpus[1].power_mw - 2304) < 1e-9);
	schedstat_energy_model_free(em);
	schedstat_topology_free(topo);
}

static const struct schedstat_workload_constraint browse_cons[] = {
	{ .name = "page load", .kind = SCHEDSTAT_WORKLOAD_MAX_RESPONSE, .limit = 500 },
	{ .name = "scroll frames", .kind = SCHEDSTAT_WORKLOAD_MISS_RATIO, .limit = 0.05 },
};

/* The score of @a judged at @to by a tally of browse's constraints. */
static const struct schedstat_workload_score *
judged(struct schedstat_workload_tally **t, const struct schedstat_workload_activation *a,
       size_t nr, uint64_t to)
{
	struct {
		uint64_t ts;
	} last = { to };

	schedstat_workload_tally_free(*t);
	assert_int_equal(schedstat_workload_tally_new(t, browse_cons, 2, false), 0);
	for (size_t i = 0; i < nr; i++)
		assert_int_equal(schedstat_workload_tally_activation(*t, &a[i]), 0);
	return schedstat_workload_tally_finish_at(*t, last.ts);
}

static void test_percentile(void **state)
{
	struct schedstat_workload_activation a[10] = {};
	struct schedstat_workload_tally *t = NULL;
	const struct schedstat_workload_score *s;
	const int order[] = { 5, 1, 4, 2, 3, 10, 9, 8, 7, 6 };

	/* Responses of 1..10 ms, in no order; all on time. */
	for (int i = 0; i < 10; i++)
		a[i] = (struct schedstat_workload_activation){
			.release = 0, .start = 1, .end = order[i] * 1000000ULL,
			.deadline = 100000000, .constraint = 1,
		};
	s = judged(&t, a, 10, 200000000);
	/* Nearest rank on 1..10: p50 is the 5th value, p95 and p99 the 10th. */
	assert_true(s->results[1].p50_ms == 5);
	assert_true(s->results[1].p95_ms == 10);
	assert_true(s->results[1].p99_ms == 10);
	assert_true(s->results[1].max_ms == 10);
	schedstat_workload_tally_free(t);
}

static void test_judge(void **state)
{
	struct schedstat_workload_activation a[13] = {};
	struct schedstat_workload_tally *t = NULL;
	const struct schedstat_workload_score *s;

	/* Page loads (constraint 0): 200 ms and 450 ms; frames: 10, one late. */
	a[0] = (struct schedstat_workload_activation){ .release = 0, .start = 1,
		.end = 200000000, .deadline = 500000000, .constraint = 0 };
	a[1] = (struct schedstat_workload_activation){ .release = 1000000000,
		.start = 1000000001, .end = 1450000000, .deadline = 1500000000 };
	for (int i = 0; i < 10; i++)
		a[2 + i] = (struct schedstat_workload_activation){
			.release = 100 + i * 16666667ULL, .start = 200 + i * 16666667ULL,
			.end = 4000000 + i * 16666667ULL + (i == 3 ? 20000000 : 0),
			.deadline = 100 + (i + 1) * 16666667ULL, .constraint = 1,
		};
	/* Judged by nothing: left out. */
	a[12] = (struct schedstat_workload_activation){ .release = 5, .start = 6, .end = 7,
		.constraint = SCHEDSTAT_WORKLOAD_UNJUDGED };
	s = judged(&t, a, 13, 2000000000);
	assert_true(s->results[0].met);
	assert_int_equal(s->results[0].nr, 2);
	assert_true(fabs(s->results[0].max_ms - 450) < 1e-9);
	/* 1 of 10 late = 10% > 5%. */
	assert_int_equal(s->results[1].nr, 10);
	assert_int_equal(s->results[1].late, 1);
	assert_true(fabs(s->results[1].miss_ratio - 0.1) < 1e-12);
	assert_false(s->results[1].met);
	assert_false(s->met);
	/* No energy model: 1e6 per missed constraint, no power. */
	assert_false(s->have_energy);
	assert_true(s->figure_of_merit == 1e6);

	/* Everything on time. */
	a[5].end -= 20000000;
	s = judged(&t, a, 13, 2000000000);
	assert_true(s->met);
	assert_true(s->figure_of_merit == 0);

	/* A page load that never ended, due before the stop: infinitely late. */
	a[1].end = 0;
	s = judged(&t, a, 13, 2000000000);
	assert_false(s->results[0].met);
	assert_true(isinf(s->results[0].observed));
	/* ... but one not due yet at the stop is not judged. */
	s = judged(&t, a, 13, 1400000000);
	assert_true(s->results[0].met);
	assert_int_equal(s->results[0].nr, 1);
	schedstat_workload_tally_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_model),
		cmocka_unit_test(test_text_errors),
		cmocka_unit_test(test_residency_unknown_clock),
		cmocka_unit_test(test_debugfs_fixture),
		cmocka_unit_test(test_debugfs_estimate),
		cmocka_unit_test(test_cs_layout),
		cmocka_unit_test(test_bind_mismatch),
		cmocka_unit_test(test_meta_round_trip),
		cmocka_unit_test(test_snapshot_apply),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_judge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
