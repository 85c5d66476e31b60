// SPDX-License-Identifier: GPL-2.0
/*
 * Ftrace text (libschedstat/traces/ftrace_line.c, text_stream.c): lines as
 * the kernel (4.x to 6.18), trace-cmd report and atrace print them, each
 * read into the event the kernel recorded; and the containers they come
 * in (plain, atrace -z, systrace HTML plain or compressed), with every
 * damage said at its line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "ftrace_line.h"
#include "text_stream.h"

static enum ftrace_line_kind parse(struct ftrace_text_state *st, const char *line,
				   struct ftrace_line *out)
{
	return ftrace_line_parse(st, line, strlen(line), out);
}

static void kernel_lines(void **state)
{
	struct ftrace_text_state st = {};
	struct ftrace_line l;

	/* 6.x: five flags, a TGID column not known. */
	assert_int_equal(parse(&st, "         python3-12420   (-------) [001] d..2.  3343.818160: "
			       "sched_switch: prev_comm=python3 prev_pid=12420 prev_prio=120 "
			       "prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120", &l),
			 FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_SWITCH);
	assert_int_equal(l.ev.cpu, 1);
	assert_int_equal(l.ev.ts, 3343818160000ull);
	assert_int_equal(l.ev.pid, -1);
	assert_int_equal(l.tgid, 0);
	assert_int_equal(l.ev.sw.prev_pid, 12420);
	assert_int_equal(l.ev.sw.prev_prio, 120);
	assert_int_equal(l.ev.sw.prev_state, 0x2);
	assert_string_equal(l.ev.sw.prev_comm, "python3");
	assert_int_equal(l.ev.sw.next_pid, 0);
	assert_string_equal(l.ev.sw.next_comm, "swapper/1");
	assert_null(ftrace_text_old_kernel(&st));

	/* A comm with spaces, '-' and ':'; the TGID column; preempted. */
	assert_int_equal(parse(&st, "  Signal Cat-ch:r-731     (  702) [003] dN.3.   12.000001: "
			       "sched_switch: prev_comm=Signal Cat-ch:r prev_pid=731 prev_prio=97 "
			       "prev_state=R+ ==> next_comm=Binder:702_2 x next_pid=744 next_prio=120",
			       &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.tgid, 702);
	assert_int_equal(l.ev.cpu, 3);
	assert_string_equal(l.ev.sw.prev_comm, "Signal Cat-ch:r");
	assert_int_equal(l.ev.sw.prev_state, TRACE_STATE_PREEMPTED);
	assert_string_equal(l.ev.sw.next_comm, "Binder:702_2 x");
	assert_int_equal(l.ev.sw.next_pid, 744);

	/* 4.x: four flags, no TGID column, letters of the time. */
	assert_int_equal(parse(&st, "             cat-6978  [003] d..3 259445.763986: sched_switch: "
			       "prev_comm=cat prev_pid=6978 prev_prio=120 prev_state=x ==> "
			       "next_comm=swapper/3 next_pid=0 next_prio=120", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.sw.prev_state, TRACE_STATE_DEAD);
	assert_non_null(ftrace_text_old_kernel(&st));

	/* No irq-info column; a clock that is not in ns prints its count. */
	assert_int_equal(parse(&st, "          <idle>-0     [000] 309792804106023: cpu_idle: "
			       "state=4294967295 cpu_id=0", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_IDLE);
	assert_int_equal(l.ev.ts, 309792804106023ull);
	assert_int_equal(l.ev.power.state, -1);
	assert_int_equal(l.ev.power.cpu, 0);
	assert_int_equal(l.ev.pid, 0);

	assert_int_equal(parse(&st, "  kworker/u8:2-91  [000] d..4. 1.500000: sched_waking: "
			       "comm=rcu_preempt pid=15 prio=120 target_cpu=001", &l),
			 FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_WAKING);
	assert_int_equal(l.ev.pid, 91);
	assert_int_equal(l.ev.wake.pid, 15);
	assert_int_equal(l.ev.wake.target_cpu, 1);
	assert_string_equal(l.ev.wake.comm, "rcu_preempt");
	/* 3.x's success field, between. */
	assert_int_equal(parse(&st, "  a-1  [000] d..4 1.5: sched_wakeup_new: comm=a b pid=16 "
			       "prio=100 success=1 target_cpu=002", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_WAKEUP_NEW);
	assert_string_equal(l.ev.wake.comm, "a b");
	assert_int_equal(l.ev.wake.prio, 100);
	assert_int_equal(l.ev.wake.target_cpu, 2);

	assert_int_equal(parse(&st, "  a-1  [000] d..4. 1.5: sched_migrate_task: comm=x pid=15 "
			       "prio=120 orig_cpu=1 dest_cpu=0", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_MIGRATE);
	assert_int_equal(l.ev.migrate.orig_cpu, 1);
	assert_int_equal(l.ev.migrate.dest_cpu, 0);
	/* 6.16 added group_dead. */
	assert_int_equal(parse(&st, "  a-1  [000] ..... 1.5: sched_process_exit: comm=sleep "
			       "pid=77 prio=120 group_dead=true", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_EXIT);
	assert_int_equal(l.ev.task.pid, 77);
	assert_string_equal(l.ev.task.comm, "sleep");
	assert_int_equal(parse(&st, "  a-1  [000] ..... 1.5: task_newtask: pid=78 comm=sh "
			       "clone_flags=4100 oom_score_adj=0", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_NEWTASK);
	assert_int_equal(l.ev.task.pid, 78);
	/*
	 * task_rename names the task renamed, not the writer: a thread that
	 * writes its sibling's /proc/self/task/TID/comm (this 6.18 kernel,
	 * the sibling 14059).
	 */
	assert_int_equal(parse(&st, "  python3-14018   [001] .....  1263.180825: task_rename: "
			       "pid=14059 oldcomm=python3 newcomm=renamed-sib oom_score_adj=0", &l),
			 FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_RENAME);
	assert_int_equal(l.ev.task.pid, 14059);
	assert_string_equal(l.ev.task.comm, "renamed-sib");
	/* A task_rename without pid (a 6.14 change): no task named (0), not the writer. */
	assert_int_equal(parse(&st, "  a-79  [000] ..... 1.5: task_rename: oldcomm=sh "
			       "newcomm=sleep oom_score_adj=0", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_RENAME);
	assert_int_equal(l.ev.task.pid, 0);
	assert_string_equal(l.ev.task.comm, "sleep");
	assert_int_equal(parse(&st, "  a-1  [000] d.h1. 1.5: sched_stat_runtime: comm=a pid=1 "
			       "runtime=2104989 [ns] vruntime=5 [ns]", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_RUNTIME);
	assert_int_equal(l.ev.runtime.runtime_ns, 2104989);
	assert_int_equal(parse(&st, "  a-1  [002] ..... 1.5: cpu_frequency: state=1800000 "
			       "cpu_id=3", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_FREQ);
	assert_int_equal(l.ev.power.cpu, 3);
	assert_int_equal(l.ev.power.state, 1800000);
	assert_int_equal(parse(&st, "  cpuhp/1-22  [001] ..... 1.5: cpuhp_enter: cpu: 0001 "
			       "target: 137 step: 104 (sched_cpu_deactivate)", &l),
			 FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_CPUHP_ENTER);
	assert_int_equal(l.ev.hp.cpu, 1);
	assert_int_equal(l.ev.hp.target, 137);
	assert_int_equal(l.ev.hp.idx, 104);
	assert_int_equal(l.ev.pid, -1);
	assert_int_equal(parse(&st, "  cpuhp/1-22  [001] ..... 1.5: cpuhp_exit:  cpu: 0001  "
			       "state: 103 step: 104 ret: -16", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_CPUHP_EXIT);
	assert_int_equal(l.ev.hp.target, 103);
	assert_int_equal(l.ev.hp.ret, -16);
	/* devlib's frequency markers; other markers name their writer. */
	assert_int_equal(parse(&st, "  sh-5  [000] ..... 1.5: tracing_mark_write: cpu_frequency: "
			       "state=450000 cpu_id=2", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_FREQ);
	assert_int_equal(l.ev.pid, -1);
	assert_int_equal(l.ev.power.cpu, 2);
	assert_int_equal(parse(&st, "  sh-5  [000] ..... 1.5: tracing_mark_write: B|5|draw", &l),
			 FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_CURRENT);
	assert_int_equal(l.ev.pid, 5);
	/* Events not read, and the function tracer: the task current then. */
	assert_int_equal(parse(&st, "  sh-5  [001] d.h1. 1.5: irq_handler_entry: irq=1 name=x",
			       &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_CURRENT);
	assert_int_equal(l.ev.cpu, 1);
	assert_int_equal(parse(&st, "  sh-5  [001] ..... 1.5: do_sys_open <-__x64_sys_openat",
			       &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_CURRENT);
}

static void trace_cmd_lines(void **state)
{
	struct ftrace_text_state st = {};
	struct ftrace_line l;

	assert_int_equal(parse(&st, "cpus=8", &l), FTRACE_LINE_NONE);
	assert_int_equal(st.nr_cpus, 8);
	assert_true(st.trace_cmd);
	assert_int_equal(parse(&st, "CPU 3 is empty", &l), FTRACE_LINE_NONE);
	assert_int_equal(parse(&st, "           <...>-12420 [000]  3343.818160: sched_switch:"
			       "         python3:12420 [120] D ==> swapper/0:0 [120]", &l),
			 FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_SWITCH);
	assert_int_equal(l.ev.sw.prev_pid, 12420);
	assert_int_equal(l.ev.sw.prev_state, 0x2);
	assert_string_equal(l.ev.sw.next_comm, "swapper/0");
	/* -t: ns; a comm with ':' and spaces; 'W' is bit 7, TASK_IDLE since 4.14. */
	assert_int_equal(parse(&st, "  kworker/0:1-784   [000]  259446.961388123: sched_switch:  "
			       "kworker/0:1 x:784 [120] W ==> Binder:1_2:785 [98]", &l),
			 FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.ts, 259446961388123ull);
	assert_string_equal(l.ev.sw.prev_comm, "kworker/0:1 x");
	assert_int_equal(l.ev.sw.prev_state, 0x80);
	assert_string_equal(l.ev.sw.next_comm, "Binder:1_2");
	assert_int_equal(l.ev.sw.next_pid, 785);
	assert_int_equal(l.ev.sw.next_prio, 98);
	/* A count glued to the CPU, when it does not take the clock for ns. */
	assert_int_equal(parse(&st, "  a-1 [003]259445759309040: sched_switch: a:1 [120] R ==> "
			       "b:2 [120]", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.ts, 259445759309040ull);
	assert_int_equal(l.ev.cpu, 3);
	/* Before 1.7, libtraceevent's Z is bit 4: EXIT_DEAD since 4.14. */
	assert_int_equal(parse(&st, "  a-1 [000]  1.000000: sched_switch: a:1 [120] Z ==> b:2 [120]",
			       &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.sw.prev_state, 0x10);
	assert_int_equal(parse(&st, "  a-1 [000]  1.000000: sched_wakeup:         python3:12461 "
			       "[120] CPU:001", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_WAKEUP);
	assert_int_equal(l.ev.wake.pid, 12461);
	assert_int_equal(l.ev.wake.prio, 120);
	assert_int_equal(l.ev.wake.target_cpu, 1);
	assert_int_equal(parse(&st, "  a-1 [000]  1.000000: sched_wakeup_new: a b:9 [120] "
			       "success=1 CPU:003", &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_WAKEUP_NEW);
	assert_string_equal(l.ev.wake.comm, "a b");
	assert_int_equal(l.ev.wake.target_cpu, 3);
	/* trace-cmd's print: the writer's address (no kallsyms) first. */
	assert_int_equal(parse(&st, "  sh-5 [002]  1.000000: print:                "
			       "0xffffffc000175aa4: cpu_frequency: state=850000 cpu_id=1", &l),
			 FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.kind, TRACE_EV_FREQ);
	assert_int_equal(l.ev.power.state, 850000);
	/* 'W' alone is TASK_IDLE: 4.14 or later, whose 'x' is TASK_PARKED. */
	assert_int_equal(parse(&st, "  a-1 [000]  1.000000: sched_switch: a:1 [120] x ==> b:2 [120]",
			       &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.sw.prev_state, 0x40);
	assert_null(ftrace_text_old_kernel(&st));
	/* A state joined by '|' is a kernel before 4.14: x is TASK_DEAD then. */
	assert_int_equal(parse(&st, "  a-1 [000]  1.000000: sched_switch: a:1 [120] D|W ==> b:2 [120]",
			       &l), FTRACE_LINE_EVENT);
	assert_non_null(ftrace_text_old_kernel(&st));
	assert_int_equal(l.ev.sw.prev_state, 0x2);
	assert_int_equal(parse(&st, "  a-1 [000]  1.000000: sched_switch: a:1 [120] x ==> b:2 [120]",
			       &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.sw.prev_state, TRACE_STATE_DEAD);
	/* trace-cmd report -R: the number; 256 (TASK_REPORT_MAX) is preempted. */
	memset(&st, 0, sizeof(st));
	assert_int_equal(parse(&st, "  a-1 [000]  1.000000: sched_switch: prev_comm=a prev_pid=1 "
			       "prev_prio=120 prev_state=128 ==> next_comm=b next_pid=2 next_prio=120",
			       &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.sw.prev_state, 0x80);
	assert_int_equal(parse(&st, "  a-1 [000]  1.000000: sched_switch: prev_comm=a prev_pid=1 "
			       "prev_prio=120 prev_state=256 ==> next_comm=b next_pid=2 next_prio=120",
			       &l), FTRACE_LINE_EVENT);
	assert_int_equal(l.ev.sw.prev_state, TRACE_STATE_PREEMPTED);
	assert_null(ftrace_text_old_kernel(&st));
	/* Without an idle 'W', a dying task's 'x' says 4.x too. */
	memset(&st, 0, sizeof(st));
	assert_int_equal(parse(&st, "  a-1 [000]  1.000000: sched_switch: a:1 [120] x ==> b:2 [120]",
			       &l), FTRACE_LINE_EVENT);
	assert_non_null(ftrace_text_old_kernel(&st));
}

static void headers_and_losses(void **state)
{
	struct ftrace_text_state st = {};
	struct ftrace_line l;

	assert_int_equal(parse(&st, "# tracer: nop", &l), FTRACE_LINE_NONE);
	assert_int_equal(parse(&st, "# entries-in-buffer/entries-written: 574/574   #P:6", &l),
			 FTRACE_LINE_NONE);
	assert_int_equal(st.nr_cpus, 6);
	assert_int_equal(parse(&st, "##### CPU 1 buffer started ####", &l), FTRACE_LINE_NONE);
	assert_int_equal(parse(&st, "", &l), FTRACE_LINE_NONE);
	assert_int_equal(parse(&st, "CPU:2 [LOST 1234 EVENTS]", &l), FTRACE_LINE_LOST);
	assert_int_equal(l.ev.kind, TRACE_EV_LOST);
	assert_int_equal(l.ev.cpu, 2);
	assert_int_equal(l.ev.lost.count, 1234);
	assert_int_equal(parse(&st, "CPU:1 [LOST EVENTS]", &l), FTRACE_LINE_LOST);
	assert_int_equal(l.ev.lost.count, 0);
	assert_int_equal(parse(&st, "CPU:3 [17 EVENTS DROPPED]", &l), FTRACE_LINE_LOST);
	assert_int_equal(l.ev.lost.count, 17);
	assert_int_equal(ftrace_line_header("# tracer: nop"), FTRACE_HEADER_TRACE);
	assert_int_equal(ftrace_line_header("cpus=2"), FTRACE_HEADER_TRACE);
	assert_int_equal(ftrace_line_header("#!/bin/sh"), FTRACE_HEADER_OTHER);
	assert_int_equal(ftrace_line_header("ts_ns,cpu,cluster"), FTRACE_HEADER_NONE);
}

static void bad_lines(void **state)
{
	static const char *const bad[] = {
		"hello world",
		"ts_ns,pid,tid",
		/* Cut anywhere. */
		"  a-1  [000] d..2. 1.5: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 "
		"prev_state=S ==> next_comm=b next_pid=",
		"  a-1  [000] d..2. 1.5: sched_switch: prev_comm=a prev_pid=1 prev_pr",
		"  a-1  [000] d..2. 1.5: sched_waking: comm=a pid=",
		"  a-1  [000] d..2. 1.",
		"  a-1  [00",
		"  a-1  [000] d..2. 1.5: cpu_idle: state=1 cpu_",
		"  a-1  [000] 1.5: sched_switch: a:1 [120] S ==> b:2 [1",
		"  a-1  [000] 1.5: sched_wakeup: a:1 [120] CPU:",
		"  a-1  [000] 1.5: cpuhp_exit:  cpu: 0001  state: 103 step: 104 ret:",
		/* Ten decimals, a CPU past the table, a pid past int32. */
		"  a-1  [000] 1.1234567890: cpu_idle: state=1 cpu_id=0",
		"  a-1  [4096] 1.5: cpu_idle: state=1 cpu_id=0",
		"  a-99999999999  [000] 1.5: cpu_idle: state=1 cpu_id=0",
		"  a-1  [000] 99999999999999999999.5: cpu_idle: state=1 cpu_id=0",
	};
	struct ftrace_text_state st = {};
	struct ftrace_line l;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("%s\n", bad[i]);
		assert_int_equal(parse(&st, bad[i], &l), FTRACE_LINE_BAD);
		assert_string_not_equal(l.why, "");
	}
}

/* ---- containers ---- */

static int memfd_of(const void *data, size_t len)
{
	int fd = memfd_create("ftrace-text", 0);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	return fd;
}

static const char text[] =
	"# tracer: nop\n"
	"#\n"
	"# entries-in-buffer/entries-written: 3/3   #P:2\n"
	"          <idle>-0       [000] d..2.  10.000001: sched_switch: prev_comm=swapper/0 "
	"prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=5 next_prio=120\n"
	"               a-5       [000] d..2.  10.000501: sched_switch: prev_comm=a "
	"prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
	"          <idle>-0       [001] d..1.  10.000502: cpu_idle: state=1 cpu_id=1\n";

/* The event lines a stream gives, each checked to read. */
static int event_lines(struct text_stream *ts, int *err)
{
	struct ftrace_text_state st = {};
	struct ftrace_line l;
	int n = 0;

	while ((*err = text_stream_line(ts)) > 0)
		if (ftrace_line_parse(&st, ts->line, ts->line_len, &l) == FTRACE_LINE_EVENT)
			n++;
	return n;
}

static void stream_of(const void *data, size_t len, int want_events, int want_err,
		      unsigned long want_line)
{
	struct trace_damage d = {};
	struct text_stream ts;
	int fd = memfd_of(data, len), err, events;
	uint8_t head[4096];
	ssize_t n = pread(fd, head, sizeof(head), 0);

	assert_true(text_stream_probe(fd, head, n));
	assert_int_equal(text_stream_open(&ts, fd, &d), 0);
	events = event_lines(&ts, &err);
	if (want_events >= 0)
		assert_int_equal(events, want_events);
	assert_int_equal(err, want_err);
	if (want_err) {
		print_message("line %lu: %s\n", d.line, d.what);
		assert_true(d.set);
		if (want_line)
			assert_int_equal(d.line, want_line);
	}
	/* The second pass reads the same. */
	assert_int_equal(text_stream_rewind(&ts), 0);
	memset(&d, 0, sizeof(d));
	assert_int_equal(event_lines(&ts, &err), events);
	assert_int_equal(err, want_err);
	text_stream_close(&ts);
	close(fd);
}

static size_t deflate_to(uint8_t *out, size_t cap, const void *in, size_t len, bool gzip)
{
	z_stream z = {};

	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, gzip ? 31 : 15, 9, Z_DEFAULT_STRATEGY),
			 Z_OK);
	z.next_in = (uint8_t *)in;
	z.avail_in = len;
	z.next_out = out;
	z.avail_out = cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	deflateEnd(&z);
	return cap - z.avail_out;
}

static size_t base64(char *out, const uint8_t *in, size_t len)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = in[i] << 16 | (i + 1 < len ? in[i + 1] << 8 : 0) |
			     (i + 2 < len ? in[i + 2] : 0);

		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		out[o++] = i + 1 < len ? a[v >> 6 & 63] : '=';
		out[o++] = i + 2 < len ? a[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

static const char html_head[] =
	"<!DOCTYPE html>\n<html>\n<head><script>var x = '<script class=\"trace-data\">';</script>\n"
	"<script class=\"trace-data\" type=\"application/json\">{\"traceEvents\": []}</script>\n";

static void containers(void **state)
{
	static char buf[1 << 16], b64[1 << 16];
	uint8_t z[1 << 14];
	size_t n, zn;

	stream_of(text, strlen(text), 3, 0, 0);
	/* atrace's output, plain and -z. */
	n = snprintf(buf, sizeof(buf), "capturing trace... done\nTRACE:\n%s", text);
	stream_of(buf, n, 3, 0, 0);
	/* Through adb shell on Windows: "\r\r\n". */
	n = snprintf(buf, sizeof(buf), "capturing trace... done\r\r\nTRACE:\r\r\n");
	for (const char *p = text; *p; p++)
		n += *p == '\n' ? snprintf(buf + n, sizeof(buf) - n, "\r\r\n") :
		     snprintf(buf + n, sizeof(buf) - n, "%c", *p);
	stream_of(buf, n, 3, 0, 0);
	n = snprintf(buf, sizeof(buf), "capturing trace... done\nTRACE:\n");
	n += deflate_to((uint8_t *)buf + n, sizeof(buf) - n, text, strlen(text), false);
	stream_of(buf, n, 3, 0, 0);
	/* systrace: the text in a trace-data block, after a JSON one. */
	n = snprintf(buf, sizeof(buf), "%s  <script class=\"trace-data\" type=\"application/text\">\n"
		     "%s  </script>\n<!-- END TRACE -->\n</html>\n", html_head, text);
	stream_of(buf, n, 3, 0, 0);
	/* A script whose string looks like a block's start, right before the block. */
	n = snprintf(buf, sizeof(buf), "<html><script>var s = '<script class=\"trace-data\">';"
		     "</script>\n<script class=\"trace-data\" type=\"application/text\">\n"
		     "%s</script>\n", text);
	stream_of(buf, n, 3, 0, 0);
	/* Legacy systrace: each line a JavaScript string's, "...\n\". */
	{
		char legacy[4096];
		size_t o = 0;

		for (const char *p = text; *p; p++) {
			if (*p == '\n')
				o += snprintf(legacy + o, sizeof(legacy) - o, "\\n\\");
			legacy[o++] = *p;
		}
		legacy[o] = '\0';
		n = snprintf(buf, sizeof(buf), "<html>\n<script class=\"trace-data\" "
			     "type=\"application/text\">\n%s  </script>\n", legacy);
		stream_of(buf, n, 3, 0, 0);
	}
	/* trace2html: base64 of gzip in a viewer-data block; zlib too. */
	for (int gzip = 0; gzip < 2; gzip++) {
		zn = deflate_to(z, sizeof(z), text, strlen(text), gzip);
		base64(b64, z, zn);
		n = snprintf(buf, sizeof(buf), "%s<script id=\"viewer-data\" type=\"text/plain\">\n"
			     "%s\n</script>\n", html_head, b64);
		stream_of(buf, n, 3, 0, 0);
	}
}

static void stream_damage(void **state)
{
	static char buf[1 << 16], b64[1 << 16];
	static uint8_t z[1 << 16];
	size_t n, zn;

	/* Cut in its last line: what came before is read, the line named. */
	stream_of(text, strlen(text) - 10, 2, -SCHEDSTAT_ERR_TRACE_DAMAGED, 6);
	/* A line past the bound. */
	n = snprintf(buf, sizeof(buf), "%s", text);
	memset(buf + n, 'a', 5000);
	n += 5000;
	buf[n++] = '\n';
	stream_of(buf, n, 3, -SCHEDSTAT_ERR_TRACE_DAMAGED, 7);
	/* Binary. */
	memcpy(buf, text, strlen(text));
	buf[strlen(text) - 20] = '\0';
	stream_of(buf, strlen(text), 2, -SCHEDSTAT_ERR_TRACE_DAMAGED, 6);
	/* A block the file ends inside. */
	n = snprintf(buf, sizeof(buf), "<html>\n<script class=\"trace-data\" "
		     "type=\"application/text\">\n%s", text);
	stream_of(buf, n, 3, -SCHEDSTAT_ERR_TRACE_DAMAGED, 9);
	/* Compressed data cut short, and changed. */
	zn = deflate_to(z, sizeof(z), text, strlen(text), true);
	base64(b64, z, zn / 2);
	n = snprintf(buf, sizeof(buf), "<html>\n<script id=\"viewer-data\" type=\"text/plain\">\n"
		     "%s\n</script>\n", b64);
	stream_of(buf, n, -1, -SCHEDSTAT_ERR_TRACE_DAMAGED, 0);
	n = snprintf(buf, sizeof(buf), "capturing trace... done\nTRACE:\n");
	zn = deflate_to((uint8_t *)buf + n, sizeof(buf) - n, text, strlen(text), false);
	buf[n + zn / 2] ^= 0x55;
	stream_of(buf, n + zn, -1, -SCHEDSTAT_ERR_TRACE_DAMAGED, 0);
}

static void deflate_bomb(void **state)
{
	struct trace_damage d = {};
	struct text_stream ts;
	z_stream z = {};
	static uint8_t in[1 << 16], out[1 << 20];
	char *buf;
	size_t n;
	int fd, err;

	/* 320 MB of "#\n" from 320 KB: past 64 MB of slack and 256 times its size. */
	for (size_t i = 0; i < sizeof(in); i += 2)
		memcpy(in + i, "#\n", 2);
	assert_int_equal(deflateInit(&z, 9), Z_OK);
	z.next_out = out;
	z.avail_out = sizeof(out);
	for (int i = 0; i < 5120; i++) {
		z.next_in = in;
		z.avail_in = sizeof(in);
		assert_int_equal(deflate(&z, Z_NO_FLUSH), Z_OK);
	}
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	n = sizeof(out) - z.avail_out;
	deflateEnd(&z);
	buf = malloc(n + 64);
	memcpy(buf, "TRACE:\n", 7);
	memcpy(buf + 7, out, n);
	fd = memfd_of(buf, n + 7);
	assert_int_equal(text_stream_open(&ts, fd, &d), 0);
	while ((err = text_stream_line(&ts)) > 0)
		;
	print_message("%zu compressed bytes: %s\n", n, d.what);
	assert_int_equal(err, -SCHEDSTAT_ERR_TRACE_DAMAGED);
	assert_non_null(strstr(d.what, "256 times"));
	text_stream_close(&ts);
	close(fd);
	free(buf);
}

extern const struct trace_reader_ops ftrace_text_reader_ops;

/* The reader's events of @data, and its damage's line (0: none). */
static int reader_events(const char *data, unsigned long *damage_line)
{
	const struct trace_reader_ops *ops = &ftrace_text_reader_ops;
	struct trace_reader_info info = {};
	struct trace_ev ev;
	int fd = memfd_of(data, strlen(data)), n = 0, ret;
	void *r;

	assert_int_equal(ops->open(&r, fd, "mem", &info), 0);
	while ((ret = ops->next(r, &ev)) > 0)
		n++;
	*damage_line = ret ? info.damage.line : 0;
	if (ret)
		print_message("line %lu: %s\n", info.damage.line, info.damage.what);
	assert_int_equal(ret, ret ? -SCHEDSTAT_ERR_TRACE_DAMAGED : 0);
	ops->close(r);
	close(fd);
	return n;
}

/*
 * The kernel's text is in time order: a line whose time leaps ahead and
 * the next comes back is damaged (the window never reaches it); a line
 * further back than the one before (two traces end to end) is damaged.
 */
static void time_order(void **state)
{
	static const char ok[] =
		"  a-1 [000] d..2. 10.000001: cpu_idle: state=1 cpu_id=0\n"
		"  a-1 [001] d..2. 10.000002: cpu_idle: state=1 cpu_id=1\n"
		"  a-1 [000] d..2. 10.000003: cpu_idle: state=1 cpu_id=0\n"
		"  a-1 [001] d..2. 9.500000: cpu_idle: state=1 cpu_id=1\n"
		"  a-1 [000] d..2. 10.000005: cpu_idle: state=1 cpu_id=0\n";
	static const char leap[] =
		"  a-1 [000] d..2. 10.000001: cpu_idle: state=1 cpu_id=0\n"
		"  a-1 [001] d..2. 10.000002: cpu_idle: state=1 cpu_id=1\n"
		"  a-1 [000] d..2. 19999.000003: cpu_idle: state=1 cpu_id=0\n"
		"  a-1 [001] d..2. 10.000004: cpu_idle: state=1 cpu_id=1\n";
	static const char back[] =
		"  a-1 [000] d..2. 10.000001: cpu_idle: state=1 cpu_id=0\n"
		"  a-1 [001] d..2. 10.000002: cpu_idle: state=1 cpu_id=1\n"
		"  a-1 [000] d..2. 10.000003: cpu_idle: state=1 cpu_id=0\n"
		"  a-1 [001] d..2. 1.000004: cpu_idle: state=1 cpu_id=1\n";
	unsigned long line;

	/* Half a second back (trace_pipe's late commits) is the kernel's own. */
	assert_int_equal(reader_events(ok, &line), 5);
	assert_int_equal(line, 0);
	assert_int_equal(reader_events(leap, &line), 2);
	assert_int_equal(line, 3);
	assert_int_equal(reader_events(back, &line), 3);
	assert_int_equal(line, 4);
}

static void not_text(void **state)
{
	static const char *const others[] = {
		"ts_ns,pid,tid,comm\n1,2,3,a\n",
		"#!/bin/sh\necho hi\n",
		"<!DOCTYPE html>\n<html><body>hello</body></html>\n",
		"\x17\x08\x44tracing6\n",
	};

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		int fd = memfd_of(others[i], strlen(others[i]));

		assert_false(text_stream_probe(fd, (const uint8_t *)others[i], strlen(others[i])));
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kernel_lines),
		cmocka_unit_test(trace_cmd_lines),
		cmocka_unit_test(headers_and_losses),
		cmocka_unit_test(bad_lines),
		cmocka_unit_test(containers),
		cmocka_unit_test(stream_damage),
		cmocka_unit_test(deflate_bomb),
		cmocka_unit_test(time_order),
		cmocka_unit_test(not_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
