// SPDX-License-Identifier: GPL-2.0
/*
 * The rt-app use-case parser (libschedstat/workload/): the dialect as
 * rt-app's users write it (the truth: what workgen turns it into, which
 * rt-app reads), and every refusal as one line naming the file, the line,
 * the task and the key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "schedstat.h"
#include "workload_local.h"

static struct schedstat_workload *parse(const char *text)
{
	struct schedstat_workload *wl;
	char err[SCHEDSTAT_WORKLOAD_ERR_LEN];

	if (schedstat_workload_parse(&wl, text, strlen(text), "t.json", err, sizeof(err))) {
		print_message("# refused: %s\n", err);
		return NULL;
	}
	return wl;
}

/* Refused with exactly @want. */
static void refused(const char *text, const char *want)
{
	struct schedstat_workload *wl = NULL;
	char err[SCHEDSTAT_WORKLOAD_ERR_LEN];
	int ret = schedstat_workload_parse(&wl, text, strlen(text), "t.json", err, sizeof(err));

	if (!ret || strcmp(err, want))
		print_message("# got %d: [%s]\n# want: [%s]\n", ret, err, want);
	assert_int_equal(ret, -22);
	assert_null(wl);
	assert_string_equal(err, want);
	assert_null(strchr(err, '\n'));
}

static const struct wl_event *ev(const struct schedstat_workload *wl, size_t task,
				 size_t phase, size_t i)
{
	assert_true(task < wl->nr_tasks);
	assert_true(phase < wl->tasks[task].nr_phases);
	assert_true(i < wl->tasks[task].phases[phase].nr_ev);
	return &wl->tasks[task].phases[phase].ev[i];
}

/*
 * video-short's DispSync, as Debian ships it: a bare "suspend", keys
 * repeated, trailing commas, a comment. workgen makes it
 * "suspend": "DispSync", "run": 35, "resume": "EventThread", "run1": 40.
 */
static void dialect_as_debian_writes_it(void **state)
{
	static const char text[] =
		"{\n"
		"	/* a comment, as json-c takes it */\n"
		"	\"tasks\" : {\n"
		"		\"DispSync\" : {\n"
		"			\"priority\" : -7,\n"
		"			\"loop\" : -1,\n"
		"			\"phases\" : {\n"
		"				\"p1\" : {\n"
		"					\"suspend\",\n"
		"					\"run\" : 35,\n"
		"					\"resume\" : \"EventThread\",\n"
		"					\"run\" : 40,\n"
		"				},\n"
		"				\"p2\" : {\n"
		"					\"loop\" : 2,\n"
		"					\"suspend\",\n"
		"					\"run\" : 30\n"
		"				}\n"
		"			},\n"
		"		},\n"
		"		\"EventThread1\" : { \"loop\" : -1, \"suspend\" : \"EventThread\",\n"
		"			\"run\" : 25, \"resume\" : \"DispSync\" },\n"
		"	},\n"
		"	// and a line comment\n"
		"	\"global\" : { \"duration\" : 6, \"calibration\" : \"CPU0\", \"frag\" : 1, }\n"
		"}\n";
	struct schedstat_workload *wl = parse(text);

	(void)state;
	assert_non_null(wl);
	assert_int_equal(wl->nr_tasks, 2);
	assert_int_equal(wl->tasks[0].nr_phases, 2);
	assert_int_equal(wl->tasks[0].loop, -1);
	assert_int_equal(wl->tasks[0].sched.prio, -7);
	/* p1: suspend (on its own name), run 35, resume, run 40: file order. */
	assert_int_equal(wl->tasks[0].phases[0].nr_ev, 4);
	assert_int_equal(ev(wl, 0, 0, 0)->type, WL_EV_SUSPEND);
	assert_string_equal(wl->res[ev(wl, 0, 0, 0)->res].name, "DispSync");
	assert_int_equal(ev(wl, 0, 0, 1)->type, WL_EV_RUN);
	assert_int_equal(ev(wl, 0, 0, 1)->value, 35);
	assert_int_equal(ev(wl, 0, 0, 2)->type, WL_EV_RESUME);
	assert_string_equal(wl->res[ev(wl, 0, 0, 2)->res].name, "EventThread");
	assert_int_equal(ev(wl, 0, 0, 3)->value, 40);
	assert_int_equal(ev(wl, 0, 0, 3)->line, 12);
	assert_int_equal(wl->tasks[0].phases[1].loop, 2);
	/* The phase's own loop 1 when it names none; the task's passes for ever. */
	assert_int_equal(wl->tasks[0].phases[0].loop, 1);
	assert_int_equal(wl->tasks[1].loop, 1);
	assert_int_equal(wl->tasks[1].phases[0].loop, -1);
	assert_string_equal(schedstat_workload_thread_comm(wl, 1), "EventThread1");
	assert_true(schedstat_workload_duration(wl) == 6);
	/* No timer: no constraint of its own. */
	assert_int_equal(schedstat_workload_nr_constraints(wl), 0);
	schedstat_workload_free(wl);
}

/* An event is any key that starts with one's name, as rt-app reads them. */
static void events_by_prefix_and_defaults(void **state)
{
	static const char text[] =
		"{ \"tasks\": { \"t\": { \"instance\": 3, \"runtime1\": 1000, \"sleep2\": 5,\n"
		"  \"timer0\": { \"ref\": \"unique\", \"period\": 20000, \"mode\": \"absolute\" },\n"
		"  \"broadcast\": \"q\", \"lock\": \"m\", \"wait\": { \"ref\": \"q\", \"mutex\": \"m\" },\n"
		"  \"unlock\": \"m\", \"barrier\": \"b\", \"yield\", \"mem\": 100 } } }";
	struct schedstat_workload *wl = parse(text);
	const struct wl_event *e;

	(void)state;
	assert_non_null(wl);
	assert_int_equal(schedstat_workload_nr_threads(wl), 3);
	assert_int_equal(wl->tasks[0].phases[0].nr_ev, 10);
	assert_int_equal(ev(wl, 0, 0, 0)->type, WL_EV_RUNTIME);
	assert_int_equal(ev(wl, 0, 0, 1)->type, WL_EV_SLEEP);
	e = ev(wl, 0, 0, 2);
	assert_int_equal(e->type, WL_EV_TIMER);
	assert_true(e->absolute);
	assert_true(wl->res[e->res].unique);
	assert_int_equal(ev(wl, 0, 0, 3)->type, WL_EV_BROADCAST);
	assert_int_equal(ev(wl, 0, 0, 8)->type, WL_EV_YIELD);
	/* A barrier's users: its references times the instances. */
	assert_int_equal(wl->res[ev(wl, 0, 0, 7)->res].users, 3);
	/* Each instance judged on its own: "t [0] deadline" ... */
	assert_int_equal(schedstat_workload_nr_constraints(wl), 3);
	assert_string_equal(schedstat_workload_constraint(wl, 2)->name, "t [2] deadline");
	assert_true(schedstat_workload_constraint(wl, 2)->limit == 0.01);
	/* rt-app's defaults: CPU0's calibration, logs named rt-app-. */
	assert_string_equal(schedstat_workload_log_basename(wl), "rt-app");
	schedstat_workload_free(wl);
}

/* schedtop's own member: constraints by task, phase and resume. */
static void schedtop_member(void **state)
{
	static const char text[] =
		"{ \"tasks\": {\n"
		"  \"a\": { \"phases\": { \"load\": { \"run\": 10, \"resume\": \"b\" },\n"
		"                        \"go\": { \"loop\": 5, \"run\": 1, \"timer\": { \"ref\": \"t\", \"period\": 1000 } } } },\n"
		"  \"b\": { \"suspend\", \"run\": 5 },\n"
		"  \"c\": { \"run\": 5, \"timer\": { \"ref\": \"u\", \"period\": 2000 } } },\n"
		"  \"schedtop\": { \"description\": \"d\", \"miss_ratio\": 0.02,\n"
		"    \"constraints\": [\n"
		"      { \"name\": \"load\", \"task\": \"a\", \"phase\": \"load\", \"max_response_us\": 500000 },\n"
		"      { \"resume\": \"b\", \"deadline_us\": 2000, \"max_miss_ratio\": 0.1 } ] } }";
	struct schedstat_workload *wl = parse(text);
	const struct schedstat_workload_constraint *k;

	(void)state;
	assert_non_null(wl);
	assert_string_equal(schedstat_workload_description(wl), "d");
	/* load, resume b response, and c's default at the file's own 2%. */
	assert_int_equal(schedstat_workload_nr_constraints(wl), 3);
	k = schedstat_workload_constraint(wl, 0);
	assert_string_equal(k->name, "load");
	assert_int_equal(k->kind, SCHEDSTAT_WORKLOAD_MAX_RESPONSE);
	assert_true(k->limit == 500);
	assert_string_equal(schedstat_workload_constraint(wl, 1)->name, "resume b response");
	k = schedstat_workload_constraint(wl, 2);
	assert_string_equal(k->name, "c deadline");
	assert_true(k->limit == 0.02);
	/* a's timer phase is not judged: the file named a, and not "go". */
	assert_int_equal(wl->judge[wl->thread_phase[0] + 0].constraint, 0);
	assert_true(wl->judge[wl->thread_phase[0] + 0].pass);
	assert_int_equal(wl->judge[wl->thread_phase[0] + 1].constraint, WL_NONE);
	schedstat_workload_free(wl);
}

static void format_and_parse_constraints(void **state)
{
	static const char text[] =
		"{ \"tasks\": { \"a\": { \"run\": 1, \"timer\": { \"ref\": \"t\", \"period\": 1000 } } },\n"
		"  \"schedtop\": { \"constraints\": [ { \"name\": \"page load\", \"task\": \"a\",\n"
		"     \"max_response_us\": 500000 }, { \"task\": \"a\", \"max_miss_ratio\": 0.001 } ] } }";
	struct schedstat_workload *wl = parse(text);
	struct schedstat_workload_constraint *c;
	char buf[256];
	size_t n;

	(void)state;
	assert_non_null(wl);
	assert_int_equal(schedstat_workload_constraints_format(wl, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "max_response_ms 500 page load;miss_ratio 0.001 a deadline;");
	assert_int_equal(schedstat_workload_constraints_parse(buf, &c, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(c[0].name, "page load");
	assert_int_equal(c[0].kind, SCHEDSTAT_WORKLOAD_MAX_RESPONSE);
	assert_true(c[1].limit == 0.001);
	free(c);
	assert_int_equal(schedstat_workload_constraints_format(wl, buf, 10), -28);
	assert_int_equal(schedstat_workload_constraints_parse("bogus;", &c, &n), -22);
	assert_int_equal(schedstat_workload_constraints_parse("miss_ratio 0.1 a\\;b\\\\c;", &c, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(c[0].name, "a;b\\c");
	free(c);
	schedstat_workload_free(wl);
}

/* Each refusal: one line, the file, the line, the task, the key. */
static void bad_input_one_line_each(void **state)
{
	char *big, want[256];
	size_t len = 0;

	(void)state;
	refused("{ \"tasks\": { \"a\": { \"run\": 1 }\n",
		"t.json:2: the file ends inside an object (a missing })");
	refused("[1, 2]", "t.json:1: not JSON: an rt-app use case starts with '{', found '['");
	refused("{ \"tasks\": {\n \"a\": { \"run\": 1, \"spin\": 3 } } }",
		"t.json:2: task 'a': key 'spin': schedtop does not support this key in a task");
	refused("{ \"tasks\": { \"a\": { \"phases\": { \"p\": {\n \"loop\": 1, \"memrun\": 3 } } } } }",
		"t.json:2: task 'a': phase 'p': key 'memrun': an event of an rt-app after 1.0 (fork, memrun, sem_post, sem_wait): schedtop runs 1.0's run, runtime, sleep, timer, suspend, resume, lock, unlock, wait, signal, broad, sync, barrier, yield, mem and iorun");
	refused("{ \"tasks\": {\n \"a\": { \"run\": 1, \"resume\": \"nobody\" } } }",
		"t.json:2: task 'a': key 'resume': no task suspends on 'nobody' (a bare \"suspend\" waits on its own task's name)");
	refused("{ \"tasks\": { \"a\": { \"phases\": { \"p\": {\n \"loop\": 0, \"run\": 1 } } } } }",
		"t.json:2: task 'a': phase 'p': key 'loop': a loop of 0 would never end its phase (rt-app counts up to it): give -1 or a number of passes");
	refused("{ \"tasks\": { \"a\": {\n \"loop\": 0, \"run\": 1 } } }",
		"t.json:2: task 'a': key 'loop': a loop of 0 would never end its phase (rt-app counts up to it): give -1 or a number of passes");
	refused("{ \"tasks\": { \"a\": { \"run\": 1,\n \"sleep\": -5 } } }",
		"t.json:2: task 'a': key 'sleep': a negative value (-5): a duration in µs");
	refused("{ \"tasks\": { \"a\": { \"run\": 1, \"timer\": {\n \"ref\": \"t\", \"period\": -100 } } } }",
		"t.json:2: task 'a': key 'timer': a negative value (-100): a period in µs");
	refused("{ \"tasks\": { \"a\": { \"run\": \"100\" } } }",
		"t.json:1: task 'a': key 'run': a duration in µs, not a string");
	refused("{ \"tasks\": { \"a\": {\n \"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 5000, \"dl-period\": 1000, \"run\": 1 } } }",
		"t.json:1: task 'a': key 'dl-deadline': SCHED_DEADLINE needs dl-runtime <= dl-deadline <= dl-period (5000, 1000, 1000 µs)");
	snprintf(want, sizeof(want), "t.json:2: task 'a': key 'cpus': CPU 4096 does not exist: this machine has CPUs 0-%ld",
		 sysconf(_SC_NPROCESSORS_CONF) - 1);
	refused("{ \"tasks\": { \"a\": { \"run\": 1, \"cpus\":\n [0, 4096] } } }", want);
	refused("{ \"tasks\": { \"a\": {\n \"wait\": { \"ref\": \"q\", \"mutex\": \"m\" } } } }",
		"t.json:2: task 'a': key 'wait': waits with mutex 'm', which is not held here (lock it first)");
	refused("{ \"tasks\": { \"a\": { \"lock\": \"m\", \"run\": 1 } } }",
		"t.json:1: task 'a': key 'lock': 'm' is still held at the end of the phase: unlock it in the same phase");
	refused("{ \"tasks\": { \"a\": {\n \"exec\": 5000, \"period\": 10000 } } }",
		"t.json:2: task 'a': key 'exec': rt-app's old grammar (exec, period, lock_order, resources) is not supported: write its events (run, timer, lock, ...)");
	refused("{ \"tasks\": { \"a\": { \"run\": 1 } },\n \"global\": { \"duration\": 5, \"calibrate\": 3 } }",
		"t.json:2: key 'calibrate': schedtop does not support this key in \"global\"");
	refused("{ \"tasks\": { \"a\": { \"run\": 1,\n \"cpus\": [0],\n \"cpus\": [1] } } }",
		"t.json:3: task 'a': key 'cpus': given twice (first on line 2): rt-app would read one of them only");
	refused("{ \"tasks\": { \"a\": { \"run\": 1 } },\n \"schedtop\": { \"constraints\": [ { \"task\": \"b\" } ] } }",
		"t.json:2: key 'schedtop': 'task': no task 'b' in \"tasks\"");
	refused("{ \"tasks\": { \"a\": { \"run\": 1 } },\n \"schedtop\": { \"constraints\": [ { \"task\": \"a\" } ] } }",
		"t.json:2: key 'schedtop': 'deadline_us': task 'a' has no timer to be due by: give deadline_us (or max_response_us)");
	refused("{ \"tasks\": { \"a\\n\": { \"run\": 1 } } }",
		"t.json:1: task 'a?': a task name with a control character or '/'");

	/* 10,000 tasks: refused at the 1025th thread, before any is read. */
	big = malloc(10000 * 40 + 64);
	assert_non_null(big);
	len += sprintf(big + len, "{ \"tasks\": {\n");
	for (int i = 0; i < 10000; i++)
		len += sprintf(big + len, "%s\"t%d\": { \"run\": 1 }\n", i ? "," : "", i);
	sprintf(big + len, "} }");
	refused(big, "t.json:1026: task 't1024': more than 1024 threads (10000 tasks): schedtop runs at most 1024");
	free(big);
}

/* A gzip file is read as it is: Debian compresses its larger docs. */
static void gzip_compressed(void **state)
{
	/* gzip -9 -n of: { "tasks": { "a": { "run": 5 } } } */
	static const unsigned char gz[] = {
		0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0xab, 0x56,
		0x50, 0x2a, 0x49, 0x2c, 0xce, 0x2e, 0x56, 0xb2, 0x52, 0xa8, 0x56, 0x50,
		0x4a, 0x84, 0x50, 0x45, 0xa5, 0x79, 0x40, 0x86, 0xa9, 0x42, 0x2d, 0x08,
		0x02, 0x00, 0xc3, 0xc5, 0x51, 0x66, 0x22, 0x00, 0x00, 0x00,
	};
	struct schedstat_workload *wl;
	char err[SCHEDSTAT_WORKLOAD_ERR_LEN];

	(void)state;
	assert_int_equal(schedstat_workload_parse(&wl, gz, sizeof(gz), "a.json.gz", err,
						  sizeof(err)), 0);
	assert_string_equal(schedstat_workload_name(wl), "a");
	assert_int_equal(wl->tasks[0].phases[0].ev[0].value, 5);
	schedstat_workload_free(wl);
	assert_int_equal(schedstat_workload_parse(&wl, gz, 20, "a.json.gz", err, sizeof(err)), -22);
	assert_string_equal(err, "a.json.gz: a damaged gzip file, or one above 8 MiB inflated");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dialect_as_debian_writes_it),
		cmocka_unit_test(events_by_prefix_and_defaults),
		cmocka_unit_test(schedtop_member),
		cmocka_unit_test(format_and_parse_constraints),
		cmocka_unit_test(bad_input_one_line_each),
		cmocka_unit_test(gzip_compressed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
