// SPDX-License-Identifier: GPL-2.0
/*
 * atrace counter lines: what schedtop writes parses back to the same pid,
 * name and value, whatever bytes a task calls itself (every byte value in
 * every position of a comm: none can end a field, add a line or reach a
 * terminal); and the parser reads the lines other writers make as
 * Perfetto's systrace parser does (its own examples: systrace_parser.h).
 * A trace reader's side: a print event's text as the driver's counter
 * event, and the rows the held values are written into.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "atrace.h"
#include "atrace_values.h"
#include "model.h"
#include "trace_marker_counter.h"

static int parse_str(const char *s, struct atrace_point *p)
{
	return atrace_parse(s, strlen(s), p);
}

static bool field_is(const char *p, size_t len, const char *want)
{
	return p && len == strlen(want) && !memcmp(p, want, len);
}

static void round_trip_of_every_byte(void **state)
{
	int checked = 0;

	for (int c = 1; c < 256; c++) {
		for (int at = 0; at < 15; at++) {
			char comm[16], name[128], line[ATRACE_LINE_MAX];
			struct atrace_point p;
			struct atrace_name n;
			int len;

			memset(comm, 'a', 15);
			comm[15] = '\0';
			comm[at] = (char)c;
			assert_true(atrace_task_name(name, sizeof(name), comm, 4242,
						     "util_avg") > 0);
			len = atrace_format_counter(line, sizeof(line), 4240, name, -17);
			assert_true(len > 0);
			/* One line: the only newline is the last byte. */
			assert_ptr_equal(strchr(line, '\n'), line + len - 1);
			for (int i = 0; i < len - 1; i++)
				assert_true((unsigned char)line[i] >= 0x20 &&
					    (unsigned char)line[i] < 0x7f);
			/* Four fields: '|' only as the separators. */
			assert_int_equal(0, parse_str(line, &p));
			assert_int_equal('C', p.phase);
			assert_int_equal(4240, p.pid);
			assert_int_equal(-17, p.value);
			assert_null(memchr(p.name, '|', p.name_len));
			assert_int_equal(0, atrace_name_split(p.name, p.name_len, &n));
			assert_int_equal(4242, n.tid);
			assert_true(field_is(n.signal, n.signal_len, "util_avg"));
			/* The comm back, each unsafe byte as '?'. */
			assert_int_equal(15, n.subject_len);
			for (int i = 0; i < 15; i++) {
				char want = i != at ? 'a' :
					    (c >= 0x20 && c < 0x7f && c != '|') ? c : '?';

				assert_int_equal(want, n.subject[i]);
			}
			checked++;
		}
	}
	print_message("# %d comms with one byte of each value round-tripped\n", checked);
	assert_int_equal(255 * 15, checked);
}

static void forged_lines_stay_one_counter(void **state)
{
	static const char *const hostile[] = {
		"x|1|y\nC|1|forged|9", "\n", "|", "a\rb", "\x1b[2J", "", "||||",
		"C|0|z|1", "\xe2\x82\xac", "a b 12",
	};
	char name[128], line[ATRACE_LINE_MAX];

	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		struct atrace_point p;
		struct atrace_name n;
		int len;

		atrace_task_name(name, sizeof(name), hostile[i], 7, "runnable_avg");
		len = atrace_format_counter(line, sizeof(line), 7, name, 5);
		assert_true(len > 0);
		assert_ptr_equal(strchr(line, '\n'), line + len - 1);
		assert_int_equal(0, parse_str(line, &p));
		assert_int_equal(5, p.value);
		assert_int_equal(0, atrace_name_split(p.name, p.name_len, &n));
		assert_int_equal(7, n.tid);
		assert_true(field_is(n.signal, n.signal_len, "runnable_avg"));
	}
}

static void other_writers_lines(void **state)
{
	struct atrace_point p;

	assert_int_equal(0, parse_str("B|1636|pokeUserActivity", &p));
	assert_int_equal('B', p.phase);
	assert_int_equal(1636, p.pid);
	assert_true(field_is(p.name, p.name_len, "pokeUserActivity"));
	assert_int_equal(0, parse_str("B|1636|a|b\n", &p));
	assert_true(field_is(p.name, p.name_len, "a|b"));
	assert_int_equal(0, parse_str("E|1636", &p));
	assert_int_equal(0, parse_str("E", &p));
	assert_int_equal(-1, p.pid);
	assert_int_equal(0, parse_str("C|1636|wq:monitor|0", &p));
	assert_int_equal(0, p.value);
	assert_int_equal(0, parse_str("C|3209|TransfersBytesPendingOnDisk-value|0|Blob", &p));
	assert_true(field_is(p.name, p.name_len, "TransfersBytesPendingOnDisk-value"));
	assert_int_equal(0, parse_str("C|1|neg|-9223372036854775808\n\n", &p));
	assert_int_equal(INT64_MIN, p.value);
	assert_int_equal(-EINVAL, parse_str("C|1|big|9223372036854775808", &p));
	assert_int_equal(-EINVAL, parse_str("C|1|frac|1.5", &p));
	assert_int_equal(-EINVAL, parse_str("C|1||1", &p));
	assert_int_equal(-EINVAL, parse_str("C|x|n|1", &p));
	assert_int_equal(-EINVAL, parse_str("C|1|n", &p));
	assert_int_equal(0, parse_str("S|1636|frame_capture|123", &p));
	assert_int_equal(123, p.value);
	assert_int_equal(0, parse_str("I|4820|instant", &p));
	assert_int_equal(0, parse_str("N|1938|track_name|instant_name", &p));
	assert_true(field_is(p.track, p.track_len, "track_name"));
	assert_true(field_is(p.name, p.name_len, "instant_name"));
	assert_int_equal(0, parse_str("G|1339|track_name|slice_name|789", &p));
	assert_int_equal(789, p.value);
	assert_int_equal(0, parse_str("H|6890|track_name|slice_name|135", &p));
	assert_int_equal(135, p.value);
	assert_int_equal(0, parse_str("H|6890|track_name|135", &p));
	assert_int_equal(135, p.value);
	assert_int_equal(-ENOTSUP, parse_str("trace_event_clock_sync: parent_ts=1.0", &p));
	assert_int_equal(-EINVAL, parse_str("some random text", &p));
	assert_int_equal(-EINVAL, parse_str("", &p));
}

static void schedtop_names(void **state)
{
	struct atrace_name n;
	char buf[64];

	atrace_format_name(buf, sizeof(buf), "cpu3", "util_avg");
	assert_int_equal(0, atrace_name_split(buf, strlen(buf), &n));
	assert_int_equal(3, n.cpu);
	assert_int_equal(-1, n.tid);
	assert_true(field_is(n.subject, n.subject_len, "cpu3"));
	atrace_format_name(buf, sizeof(buf), "LITTLE", "util_pct" ATRACE_X100_SUFFIX);
	assert_int_equal(0, atrace_name_split(buf, strlen(buf), &n));
	assert_true(n.x100);
	assert_true(field_is(n.signal, n.signal_len, "util_pct"));
	assert_int_equal(-1, n.cpu);
	/* A comm with spaces and digits: split from the right. */
	atrace_task_name(buf, sizeof(buf), "kworker 1 2", 99, "util_est");
	assert_int_equal(0, atrace_name_split(buf, strlen(buf), &n));
	assert_int_equal(99, n.tid);
	assert_true(field_is(n.subject, n.subject_len, "kworker 1 2"));
	assert_int_equal(-EINVAL, atrace_name_split("nospace", 7, &n));
	assert_int_equal(-EINVAL, atrace_name_split("trailing ", 9, &n));
}

/* What a reader gets back: the row, the schema's field, the value. */
static void read_back_into_fields(void **state)
{
	struct atrace_counter c;
	struct atrace_point p;

	assert_int_equal(0, parse_str("C|100|x?1?y 104 util_avg|517\n", &p));
	assert_int_equal(0, atrace_counter_read(&p, &c));
	assert_int_equal(SCHEDSTAT_ROW_TASK, c.row);
	assert_int_equal(104, c.tid);
	assert_int_equal(100, c.tgid);
	assert_int_equal(offsetof(struct schedstat_task, util_avg), c.offset);
	assert_int_equal(SCHEDSTAT_FIELD_U32, c.type);
	assert_true(c.value == 517);
	assert_int_equal(0, parse_str("C|9|cpu3 blocked_util|12", &p));
	assert_int_equal(0, atrace_counter_read(&p, &c));
	assert_int_equal(SCHEDSTAT_ROW_CPU, c.row);
	assert_int_equal(3, c.cpu);
	assert_int_equal(offsetof(struct schedstat_cpu, blocked_util), c.offset);
	assert_int_equal(0, parse_str("C|9|big util_pct_x100|-4213", &p));
	assert_int_equal(0, atrace_counter_read(&p, &c));
	assert_int_equal(SCHEDSTAT_ROW_CLUSTER, c.row);
	assert_string_equal("big", c.cluster);
	assert_int_equal(offsetof(struct schedstat_cluster, util_pct), c.offset);
	assert_true(c.value == -42.13);
	/* A fraction without its scale, a string field, an unknown signal. */
	assert_int_equal(0, parse_str("C|9|big util_pct|42", &p));
	assert_int_equal(-EINVAL, atrace_counter_read(&p, &c));
	assert_int_equal(0, parse_str("C|9|big cpus|42", &p));
	assert_int_equal(-EINVAL, atrace_counter_read(&p, &c));
	assert_int_equal(0, parse_str("C|9|wq:monitor|0", &p));
	assert_int_equal(-EINVAL, atrace_counter_read(&p, &c));
	assert_int_equal(0, parse_str("B|9|cpu3 util_avg", &p));
	assert_int_equal(-EINVAL, atrace_counter_read(&p, &c));
}

static void counter_event(const char *line, uint64_t ts, struct trace_ev *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts = ts;
	ev->kind = TRACE_EV_CURRENT;
	assert_true(trace_marker_counter(line, strlen(line), ev));
	assert_int_equal(TRACE_EV_COUNTER, ev->kind);
}

/* Print events: schedtop's counters only, the rest left to the reader. */
static void print_events_as_counters(void **state)
{
	struct trace_ev ev = { .kind = TRACE_EV_CURRENT };
	static const char *const not_ours[] = {
		"B|12|doFrame", "C|12|aq:pending|3", "C|9|cpu0 util_avg|x",
		"cpu_frequency: state=100 cpu_id=0", "C|9|big util_pct|42", "C|", "",
		"C|9|sh 0 util_avg|5",
	};

	for (size_t i = 0; i < sizeof(not_ours) / sizeof(not_ours[0]); i++) {
		assert_false(trace_marker_counter(not_ours[i], strlen(not_ours[i]), &ev));
		assert_int_equal(TRACE_EV_CURRENT, ev.kind);
	}
	counter_event("C|77|cb spin 104 util_est|300\n", 5, &ev);
	assert_int_equal(SCHEDSTAT_ROW_TASK, ev.counter.row);
	assert_int_equal(104, ev.counter.tid);
	assert_int_equal(offsetof(struct schedstat_task, util_est), ev.counter.offset);
	assert_true(ev.counter.value == 300);
	counter_event("C|9|LITTLE util_pct_x100|4213", 5, &ev);
	assert_int_equal(SCHEDSTAT_ROW_CLUSTER, ev.counter.row);
	assert_string_equal("LITTLE", ev.counter.cluster);
	assert_true(ev.counter.value == 42.13);
}

/* Held values written into a sample's rows, each until it is stale. */
static void held_values_into_rows(void **state)
{
	struct schedstat_topology *topo;
	struct atrace_values v;
	struct trace_ev ev;
	struct schedstat_task task = { .pid = 104, .util_avg = 7, .pelt_estimated = true };
	struct schedstat_cpu cpus[2] = {
		{ .cpu = 0, .util_avg = 1, .pelt_estimated = true },
		{ .cpu = 1, .util_avg = 2, .pelt_estimated = true },
	};
	struct schedstat_cluster cl = { .id = 1, .name = "big" };
	struct schedstat_snapshot snap = {
		.tasks = &task, .nr_tasks = 1, .cpus = cpus, .nr_cpus = 2,
		.clusters = &cl, .nr_clusters = 1,
	};

	assert_int_equal(0, schedstat_topology_parse(&topo, "LITTLE:0@446,big:1@1024", NULL));
	assert_int_equal(0, atrace_values_init(&v, topo));
	counter_event("C|77|cb 104 util_avg|300", 1000, &ev);
	assert_int_equal(0, atrace_values_take(&v, &ev));
	counter_event("C|77|cb 104 cpu|1", 1000, &ev);
	assert_int_equal(0, atrace_values_take(&v, &ev));
	counter_event("C|9|cpu1 rt_util|40", 1000, &ev);
	assert_int_equal(0, atrace_values_take(&v, &ev));
	counter_event("C|9|big util_pct_x100|5000", 1000, &ev);
	assert_int_equal(0, atrace_values_take(&v, &ev));
	/* Not this trace's: a CPU past its last, a cluster it has not. */
	counter_event("C|9|cpu7 util_avg|40", 1000, &ev);
	assert_int_equal(0, atrace_values_take(&v, &ev));
	counter_event("C|9|huge util_pct_x100|5000", 1000, &ev);
	assert_int_equal(0, atrace_values_take(&v, &ev));
	assert_int_equal(4, v.taken);
	assert_int_equal(2, v.ignored);
	/* A first value holds the hold given (one reader interval). */
	atrace_values_apply(&v, &snap, 1500, 1000);
	assert_int_equal(300, task.util_avg);
	assert_false(task.pelt_estimated);
	assert_int_equal(1, task.cpu);
	assert_int_equal(1, task.cluster);	/* big, with the CPU */
	assert_int_equal(40, cpus[1].rt_util);
	assert_true(cpus[1].avail & SCHEDSTAT_AVAIL_RT);
	assert_true(cpus[1].pelt_estimated);	/* its util_avg is the engine's */
	assert_int_equal(1, cpus[0].util_avg);
	assert_true(cl.util_pct == 50.0);
	assert_int_equal(4, v.set);
	/* The next value 100 on: it holds 150 past itself, no more. */
	counter_event("C|77|cb 104 util_avg|310", 1100, &ev);
	assert_int_equal(0, atrace_values_take(&v, &ev));
	task.util_avg = 7;
	atrace_values_apply(&v, &snap, 1250, 1000);
	assert_int_equal(310, task.util_avg);
	task.util_avg = 7;
	task.pelt_estimated = true;
	atrace_values_apply(&v, &snap, 1251, 1000);
	assert_int_equal(7, task.util_avg);
	assert_true(task.pelt_estimated);
	atrace_values_free(&v);
	schedstat_topology_free(topo);
}

static bool every_task(const struct schedstat_task *t, void *ctx)
{
	(void)ctx;
	return !t->exited;
}

/* One sample of @snap written by @a: exactly @want, after what @f held at @from. */
static void sample_writes(struct schedstat_atrace *a, const struct schedstat_snapshot *snap,
			  FILE *f, long *from, const char *want)
{
	char buf[1024];
	size_t n;

	assert_int_equal(0, schedstat_atrace_sample(a, snap));
	assert_int_equal(0, fseek(f, *from, SEEK_SET));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	*from += n;
	assert_string_equal(buf, want);
}

/*
 * A sample's line whose place, counter and subject are the last sample's
 * keeps its prefix and gets only its value anew: the text is still whole
 * where the value's length changes, a comm is renamed, a task goes and the
 * lines after it move up, a CPU number grows a digit.
 */
static void writer_lines_sample_after_sample(void **state)
{
	struct schedstat_trace_counter ctrs[] = {
		{ .row = SCHEDSTAT_ROW_CPU, .name = "util_avg", .type = SCHEDSTAT_FIELD_U32,
		  .offset = offsetof(struct schedstat_cpu, util_avg) },
		{ .row = SCHEDSTAT_ROW_CLUSTER, .name = "util_pct", .type = SCHEDSTAT_FIELD_F64,
		  .offset = offsetof(struct schedstat_cluster, util_pct) },
		{ .row = SCHEDSTAT_ROW_TASK, .name = "util_avg", .type = SCHEDSTAT_FIELD_U32,
		  .offset = offsetof(struct schedstat_task, util_avg) },
	};
	struct schedstat_task tasks[2] = {
		{ .pid = 10, .tgid = 10, .comm = "a", .util_avg = 100 },
		{ .pid = 11, .tgid = 9, .comm = "b|x", .util_avg = 7 },
	};
	struct schedstat_cpu cpu = { .cpu = 9, .cluster = 0, .util_avg = 5 };
	struct schedstat_cluster cl = { .id = 0, .name = "big", .util_pct = 12.5 };
	struct schedstat_snapshot snap = {
		.tasks = tasks, .nr_tasks = 2, .cpus = &cpu, .nr_cpus = 1,
		.clusters = &cl, .nr_clusters = 1,
	};
	char path[] = "/tmp/schedtop-atrace-XXXXXX";
	struct schedstat_atrace_opts opts = {
		.sz = sizeof(opts), .counters = ctrs, .nr_counters = 3,
		.want_task = every_task, .marker = path, .pid = 77,
	};
	struct schedstat_atrace *a;
	struct schedstat_atrace_stats st;
	long at = 0;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(0, schedstat_atrace_open(&a, &opts));
	sample_writes(a, &snap, f, &at,
		      "C|77|cpu9 util_avg|5\n"
		      "C|77|big util_pct_x100|1250\n"
		      "C|10|a 10 util_avg|100\n"
		      "C|9|b?x 11 util_avg|7\n");
	/* Values longer and shorter; one task renamed. */
	cpu.util_avg = 1024;
	cl.util_pct = 0.07;
	tasks[0].util_avg = 0;
	snprintf(tasks[1].comm, sizeof(tasks[1].comm), "c");
	sample_writes(a, &snap, f, &at,
		      "C|77|cpu9 util_avg|1024\n"
		      "C|77|big util_pct_x100|7\n"
		      "C|10|a 10 util_avg|0\n"
		      "C|9|c 11 util_avg|7\n");
	/* The first task gone: the second's line takes its place; CPU 10. */
	tasks[0] = tasks[1];
	tasks[0].util_avg = 4000000000u;
	snap.nr_tasks = 1;
	cpu.cpu = 10;
	sample_writes(a, &snap, f, &at,
		      "C|77|cpu10 util_avg|1024\n"
		      "C|77|big util_pct_x100|7\n"
		      "C|9|c 11 util_avg|4000000000\n");
	schedstat_atrace_stats(a, &st);
	assert_int_equal(3, st.nr_samples);
	assert_int_equal(11, st.nr_lines);
	assert_int_equal(at, st.nr_bytes);
	schedstat_atrace_close(a);
	fclose(f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip_of_every_byte),
		cmocka_unit_test(forged_lines_stay_one_counter),
		cmocka_unit_test(other_writers_lines),
		cmocka_unit_test(schedtop_names),
		cmocka_unit_test(read_back_into_fields),
		cmocka_unit_test(print_events_as_counters),
		cmocka_unit_test(held_values_into_rows),
		cmocka_unit_test(writer_lines_sample_after_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
