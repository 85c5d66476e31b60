// SPDX-License-Identifier: GPL-2.0
/*
 * One line of ftrace text into a neutral event (ftrace_line.h).
 *
 * A kernel line (trace, trace_pipe; atrace's the same):
 *
 *            TASK-PID     TGID    CPU  FLAGS   TIMESTAMP  EVENT   FIELDS
 *     python3-12420   (  12420) [000] d..2.  3343.818160: sched_switch: prev_comm=...
 *
 * the TGID column with options/record-tgid ("(-------)" when not known),
 * FLAGS with options/irq-info (4 characters before 5.13, 5 since), the
 * time in seconds with 6 decimals for clocks in ns (rounded to the µs), or
 * counted ("%12llu") for the others (x86-tsc, counter, uptime). trace-cmd
 * report prints "TASK-PID [CPU] TIMESTAMP: EVENT: FIELDS", 9 decimals with
 * -t, and sched_switch and sched_wakeup in libtraceevent's plugin's words.
 *
 * Fields are read by name from the kernel's TP_printk() formats
 * (include/trace/events/sched.h and power.h, cpuhp.h, task.h), never by
 * position: "key=value" pairs, a value running to the next " key=" (a
 * comm may hold spaces).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "ftrace_line.h"
#include "trace_marker_counter.h"
#include "tracepoints.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}

/* Decimal digits at *p (at most 20, no sign), up to @end. */
static bool parse_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= end || !is_digit(*s))
		return false;
	for (; s < end && is_digit(*s); s++) {
		unsigned int d = *s - '0';

		if (x > UINT64_MAX / 10 || (x == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return false;
		x = x * 10 + d;
	}
	*p = s;
	*v = x;
	return true;
}

/* ---- the line's head: task, TGID, CPU, flags, time, event name ---- */

struct head {
	int32_t pid, tgid, cpu;
	uint64_t ts;
	const char *name;		/* NULL: no "NAME:" (the function tracer) */
	size_t name_len;
	const char *body;		/* NUL-terminated */
};

/*
 * "SECS.FRAC:" (1 to 9 decimals) in ns, or "COUNT:" as it is; @p is past
 * the colon after.
 */
static bool parse_time(const char **p, const char *end, uint64_t *ts)
{
	const char *s = *p, *f;
	uint64_t secs, frac = 0;
	int digits;

	if (!parse_u64(&s, end, &secs))
		return false;
	if (s < end && *s == '.') {
		f = ++s;
		if (!parse_u64(&s, end, &frac) || s - f > 9)
			return false;
		for (digits = s - f; digits < 9; digits++)
			frac *= 10;
		if (secs > (UINT64_MAX - frac) / 1000000000ull)
			return false;
		secs = secs * 1000000000ull + frac;
	}
	if (s >= end || *s != ':')
		return false;
	*p = s + 1;
	*ts = secs;
	return true;
}

/* "(  1234)" or "(-----)" ending just before @b: the TGID column, 0 unknown. */
static const char *parse_tgid(const char *s, const char *b, int32_t *tgid)
{
	const char *open = b - 1, *q;
	uint64_t v;

	while (open > s && b - open < 16 && *open != '(')
		open--;
	if (*open != '(')
		return NULL;
	q = open + 1;
	while (q < b - 1 && is_blank(*q))
		q++;
	if (*q == '-') {
		while (q < b - 1 && *q == '-')
			q++;
		v = 0;
	} else if (!parse_u64(&q, b - 1, &v) || v > INT32_MAX) {
		return NULL;
	}
	if (q != b - 1)
		return NULL;
	*tgid = v;
	return open;
}

/*
 * The task and CPU: the first "[CPU]" that follows "COMM-PID" and perhaps
 * the TGID column, within the width the kernel gives them (a comm is 15
 * characters at most, padded to 16; it may hold spaces, '-' and '[').
 */
static const char *parse_task_cpu(const char *s, const char *end, struct head *h)
{
	const char *lim = end - s > 96 ? s + 96 : end, *q;

	for (q = s; q < lim && (q = memchr(q, '[', lim - q)); q++) {
		const char *c = q + 1, *b = q, *d;
		uint64_t cpu, pid;

		/* trace-cmd report may glue a count to it: "[003]259445759309040:". */
		if (!parse_u64(&c, end, &cpu) || c >= end || *c != ']' ||
		    (c + 1 < end && !is_blank(c[1]) && !is_digit(c[1])))
			continue;
		if (b == s || !is_blank(b[-1]))
			continue;
		while (b > s && is_blank(b[-1]))
			b--;
		h->tgid = 0;
		if (b > s && b[-1] == ')') {
			b = parse_tgid(s, b, &h->tgid);
			if (!b || b == s || !is_blank(b[-1]))
				continue;
			while (b > s && is_blank(b[-1]))
				b--;
		}
		for (d = b; d > s && is_digit(d[-1]); d--)
			;
		if (d == b || d == s || d[-1] != '-' || b - d > 10)
			continue;
		if (!parse_u64(&d, b, &pid) || pid > INT32_MAX || cpu >= SCHEDSTAT_MAX_CPUS)
			continue;
		h->pid = pid;
		h->cpu = cpu;
		return c + 1;
	}
	return NULL;
}

/* The head of an event line; false if @line is none. */
static bool parse_head(const char *line, const char *end, struct head *h)
{
	const char *s = line, *p, *t;

	while (s < end && is_blank(*s))
		s++;
	p = parse_task_cpu(s, end, h);
	if (!p)
		return false;
	while (p < end && is_blank(*p))
		p++;
	/* The irq-info flags ("d..2.", "dNh2", "...."), if printed. */
	if (!parse_time(&(const char *){ p }, end, &h->ts)) {
		for (t = p; t < end && !is_blank(*t); t++)
			if (*t == ':')
				return false;
		if (t == p || t - p > 8)
			return false;
		p = t;
		while (p < end && is_blank(*p))
			p++;
	}
	if (!parse_time(&p, end, &h->ts))
		return false;
	while (p < end && is_blank(*p))
		p++;
	h->name = p;
	for (t = p; t < end && *t != ':' && !is_blank(*t); t++)
		;
	if (t == p || t >= end || *t != ':') {
		/* The function tracer: "func <-parent". */
		h->name = NULL;
		h->name_len = 0;
		h->body = t;
		return true;
	}
	h->name_len = t - p;
	for (p = t + 1; p < end && is_blank(*p); p++)
		;
	h->body = p;
	return true;
}

bool ftrace_line_is_event(const char *line, size_t len)
{
	struct head h;

	return parse_head(line, line + len, &h) && h.name;
}

/* ---- headers ---- */

static bool cpus_line(const char *line, int *nr)
{
	const char *p = line + 5;
	uint64_t v;

	if (strncmp(line, "cpus=", 5) || !parse_u64(&p, p + 8, &v) || *p ||
	    !v || v > SCHEDSTAT_MAX_CPUS)
		return false;
	*nr = v;
	return true;
}

enum ftrace_header ftrace_line_header(const char *line)
{
	const char *p = line;
	int nr;

	/* An event line: its task, padded to 16 columns, starts it. */
	while (is_blank(*p))
		p++;
	if (*p && *p != '#' && *p != 'c' && *p != 'v' && *p != 'C')
		return FTRACE_HEADER_NONE;
	if (!strncmp(line, "# tracer:", 9) || cpus_line(line, &nr))
		return FTRACE_HEADER_TRACE;
	while (is_blank(*line))
		line++;
	/* trace-cmd report's "version = 6" and "CPU 3 is empty". */
	if (!*line || *line == '#' || !strncmp(line, "version = ", 10) ||
	    (!strncmp(line, "CPU ", 4) && strstr(line, " is empty")))
		return FTRACE_HEADER_OTHER;
	return FTRACE_HEADER_NONE;
}

/*
 * "CPU:N [LOST M EVENTS]" (the kernel; "[LOST EVENTS]" when it cannot say
 * how many), "CPU:N [M EVENTS DROPPED]" (trace-cmd report).
 */
static bool lost_line(const char *line, struct trace_ev *ev)
{
	const char *p = line + 4, *end;
	uint64_t cpu, n = 0;

	if (strncmp(line, "CPU:", 4))
		return false;
	end = line + strlen(line);
	if (!parse_u64(&p, end, &cpu) || cpu >= SCHEDSTAT_MAX_CPUS ||
	    strncmp(p, " [", 2))
		return false;
	p += 2;
	if (!strncmp(p, "LOST ", 5)) {
		p += 5;
		if (parse_u64(&p, end, &n) && *p == ' ')
			p++;
		if (strcmp(p, "EVENTS]"))
			return false;
	} else {
		if (parse_u64(&p, end, &n) && *p == ' ')
			p++;
		if (strcmp(p, "EVENTS DROPPED]"))
			return false;
	}
	memset(ev, 0, sizeof(*ev));
	ev->kind = TRACE_EV_LOST;
	ev->cpu = cpu;
	ev->pid = -1;
	ev->lost.count = n;
	return true;
}

/* The kernel's "#P:2" after the entries count: its CPUs. */
static void header_cpus(struct ftrace_text_state *st, const char *line)
{
	const char *p = strstr(line, "#P:");
	uint64_t v;

	if (p && (p += 3, parse_u64(&p, p + 8, &v)) && v && v <= SCHEDSTAT_MAX_CPUS)
		st->nr_cpus = v;
}

/* ---- fields ---- */

#define MAX_FIELDS	24

struct field {
	const char *key, *val;
	size_t key_len, val_len;
};

struct fields {
	struct field f[MAX_FIELDS];
	int n;
};

/*
 * "key=value ..." into @fs: a field starts at a word made of [A-Za-z0-9_]
 * and '='; its value runs to the blank before the next field.
 */
static void split_fields(const char *s, struct fields *fs)
{
	const char *p = s;

	fs->n = 0;
	while (*p && fs->n < MAX_FIELDS) {
		const char *k = p;

		while (is_ident(*p))
			p++;
		if (p > k && *p == '=') {
			struct field *f = &fs->f[fs->n++];

			f->key = k;
			f->key_len = p - k;
			f->val = p + 1;
			if (fs->n > 1) {
				struct field *prev = f - 1;
				const char *e = k;

				while (e > prev->val && is_blank(e[-1]))
					e--;
				prev->val_len = e - prev->val;
			}
		}
		while (*p && !is_blank(*p))
			p++;
		while (is_blank(*p))
			p++;
	}
	if (fs->n) {
		struct field *last = &fs->f[fs->n - 1];
		size_t n = strlen(last->val);

		while (n && is_blank(last->val[n - 1]))
			n--;
		last->val_len = n;
	}
}

/* field(fs, "key"): a literal, its length known to the compiler. */
#define field(fs, key)	field_n(fs, key, sizeof(key) - 1)

static const struct field *field_n(const struct fields *fs, const char *key, size_t n)
{
	for (int i = 0; i < fs->n; i++)
		if (fs->f[i].key_len == n && !memcmp(fs->f[i].key, key, n))
			return &fs->f[i];
	return NULL;
}

/* A signed decimal at the start of @s, ending at @end or a blank. */
static bool parse_int(const char *s, const char *end, int64_t *v)
{
	bool neg = s < end && *s == '-';
	uint64_t u;

	if (neg)
		s++;
	if (!parse_u64(&s, end, &u) || (s < end && !is_blank(*s)))
		return false;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return true;
}

static bool num_f(const struct field *f, int64_t *v)
{
	return f && parse_int(f->val, f->val + f->val_len, v);
}

#define num(fs, key, v)	num_f(field(fs, key), v)

/* The first of @keys that the line has, as a number. */
static bool num_of(const struct fields *fs, const char *const *keys, int64_t *v)
{
	for (; *keys; keys++) {
		const struct field *f = field_n(fs, *keys, strlen(*keys));

		if (f)
			return num_f(f, v);
	}
	return false;
}

static void copy_comm(char *dst, const char *s, size_t n)
{
	if (n >= TRACE_COMM_LEN)
		n = TRACE_COMM_LEN - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static void comm_f(const struct field *f, char *dst)
{
	dst[0] = '\0';
	if (f)
		copy_comm(dst, f->val, f->val_len);
}

#define comm(fs, key, dst)	comm_f(field(fs, key), dst)

/* ---- events ---- */

enum kind {
	K_OTHER,
	K_SWITCH, K_WAKING, K_WAKEUP, K_WAKEUP_NEW, K_MIGRATE, K_EXIT, K_FREE,
	K_NEWTASK, K_RENAME, K_FREQ, K_IDLE, K_HP_ENTER, K_HP_MULTI_ENTER,
	K_HP_EXIT, K_RUNTIME, K_OVERUTILIZED, K_PELT, K_MARKER,
};

#define EVENT(n, k)	{ .name = n, .len = sizeof(n) - 1, .kind = k }

/* The commonest first. */
static const struct {
	const char *name;
	size_t len;
	enum kind kind;
} events[] = {
	EVENT("sched_switch", K_SWITCH),
	EVENT("sched_waking", K_WAKING),
	EVENT("sched_wakeup", K_WAKEUP),
	EVENT("cpu_idle", K_IDLE),
	EVENT("sched_stat_runtime", K_RUNTIME),
	EVENT("sched_migrate_task", K_MIGRATE),
	EVENT("cpu_frequency", K_FREQ),
	EVENT("sched_wakeup_new", K_WAKEUP_NEW),
	EVENT("sched_process_exit", K_EXIT),
	EVENT("sched_process_free", K_FREE),
	EVENT("task_newtask", K_NEWTASK),
	EVENT("task_rename", K_RENAME),
	EVENT("cpuhp_enter", K_HP_ENTER),
	EVENT("cpuhp_multi_enter", K_HP_MULTI_ENTER),
	EVENT("cpuhp_exit", K_HP_EXIT),
	/* trace_marker writes: the kernel names the writer, trace-cmd the event. */
	EVENT("tracing_mark_write", K_MARKER),
	EVENT("print", K_MARKER),
};

/* The kind of the event @name, and its tracepoint row for the others. */
static enum kind event_kind(const char *name, size_t len, int *tp)
{
	const struct schedstat_tracepoint *row;
	char buf[48];

	for (size_t i = 0; i < ARRAY_SIZE(events); i++)
		if (events[i].len == len && !memcmp(events[i].name, name, len))
			return events[i].kind;
	/* The kernel PELT and overutilized events of EAS kernels and LISA. */
	if (len >= sizeof(buf) || (strncmp(name, "sched_", 6) && strncmp(name, "lisa__", 6)))
		return K_OTHER;
	memcpy(buf, name, len);
	buf[len] = '\0';
	row = tp_find(buf);
	if (!row || row - tp_table >= TP_NR_EVENTS)
		return K_OTHER;
	*tp = row - tp_table;
	return *tp == TP_SCHED_OVERUTILIZED_EVENT || *tp == TP_LISA_OVERUTILIZED ?
	       K_OVERUTILIZED : K_PELT;
}

static enum ftrace_line_kind bad(struct ftrace_line *out, const char *what)
{
	snprintf(out->why, sizeof(out->why), "%s", what);
	return FTRACE_LINE_BAD;
}

/* A kernel before 4.14, and so before 5.1 (the PELT scheme). */
static void old_kernel(struct ftrace_text_state *st, const char *evidence)
{
	if (!st->old_evidence[0])
		snprintf(st->old_evidence, sizeof(st->old_evidence), "%s", evidence);
}

const char *ftrace_text_old_kernel(const struct ftrace_text_state *st)
{
	if (st->old_evidence[0])
		return st->old_evidence;
	if (st->plugin_x && !st->plugin_idle)
		return "prev_state x, no idle W";
	return NULL;
}

/*
 * prev_state as the kernel prints it: its letters ("S", "R+", "D|K"), in
 * the engine's layout. x (TASK_DEAD), K (wakekill) and W (waking) were
 * printed only before 4.14.
 */
static uint64_t kernel_state(struct ftrace_text_state *st, const char *s, size_t n)
{
	char buf[32];

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (strpbrk(buf, "xKW"))
		old_kernel(st, "prev_state letters of 4.x");
	return trace_state_from_letters(buf);
}

/*
 * prev_state as the kernel's bits (trace-cmd report -R prints the number;
 * its plugin, letters for them, below): from 4.14 on the engine's; before,
 * 0x10 was EXIT_ZOMBIE, 0x20 EXIT_DEAD, 0x40 TASK_DEAD and 0x80
 * TASK_WAKEKILL. Above them only the preempted mark (since 4.14) or, before,
 * states that leave a task runnable or say nothing of it.
 */
static uint64_t raw_state(struct ftrace_text_state *st, uint64_t raw)
{
	uint64_t low = raw & 0xff, out;

	/* Since 4.14 a state is one bit. */
	if (low & (low - 1))
		old_kernel(st, "prev_state bits of 4.x");
	if (low == 0x80)
		st->plugin_idle = true;
	if (!low)
		return raw ? TRACE_STATE_PREEMPTED : 0;
	if (!ftrace_text_old_kernel(st))
		return low;
	out = low & 0x0f;
	if (low & 0x10)
		out |= 0x20;
	if (low & 0x20)
		out |= 0x10;
	if (low & 0x40)
		out |= TRACE_STATE_DEAD;
	return out;
}

/* libtraceevent's plugin's letters (ftrace_text_state): the kernel's bits. */
static uint64_t plugin_state(struct ftrace_text_state *st, const char *s, const char *end)
{
	uint64_t raw = 0;

	for (const char *c = s; c < end; c++) {
		switch (*c) {
		case 'S': raw |= 0x01; break;
		case 'D': raw |= 0x02; break;
		case 'T': raw |= 0x04; break;
		case 't': raw |= 0x08; break;
		case 'Z': raw |= st->plugin_new_letters ? 0x20 : 0x10; break;
		case 'X': raw |= st->plugin_new_letters ? 0x10 : 0x20; break;
		case 'x': raw |= 0x40; st->plugin_x = true; break;
		case 'W': raw |= 0x80; break;
		case 'P': raw |= 0x40; st->plugin_new_letters = true; break;
		case 'I': raw |= 0x80; st->plugin_new_letters = st->plugin_idle = true; break;
		}
	}
	return raw_state(st, raw);
}

/* "COMM:PID" in [s, e): a comm may hold ':' too; the pid follows the last. */
static bool comm_pid(const char *s, const char *e, char *comm_out, int32_t *pid)
{
	const char *c = e;
	uint64_t v;

	while (c > s && is_digit(c[-1]))
		c--;
	if (c == e || e - c > 10 || !parse_u64(&(const char *){ c }, e, &v) || v > INT32_MAX)
		return false;
	*pid = v;
	if (c > s && c[-1] == ':')
		copy_comm(comm_out, s, c - 1 - s);
	else
		comm_out[0] = '\0';
	return true;
}

/* "[PRIO]" ending at @e: its start, or NULL. */
static const char *bracket_prio(const char *s, const char *e, int32_t *prio)
{
	const char *o = e - 1;
	int64_t v;

	if (e - s < 3 || e[-1] != ']')
		return NULL;
	while (o > s && *o != '[')
		o--;
	if (*o != '[' || !parse_int(o + 1, e - 1, &v) || v < INT32_MIN || v > INT32_MAX)
		return NULL;
	*prio = v;
	return o;
}

/* trace-cmd's "PREV:PID [PRIO] STATE ==> NEXT:PID [PRIO]". */
static bool plugin_switch(struct ftrace_text_state *st, const char *body, struct trace_ev *ev)
{
	const char *arrow = strstr(body, " ==> "), *e, *state, *o;

	if (!arrow)
		return false;
	/* Before: the state is the last word. */
	for (state = arrow; state > body && !is_blank(state[-1]); state--)
		;
	if (state == body)
		return false;
	ev->sw.prev_state = plugin_state(st, state, arrow);
	for (e = state; e > body && is_blank(e[-1]); e--)
		;
	o = bracket_prio(body, e, &ev->sw.prev_prio);
	if (!o || o == body || !is_blank(o[-1]))
		return false;
	if (!comm_pid(body, o - 1, ev->sw.prev_comm, &ev->sw.prev_pid))
		return false;
	/* After. */
	body = arrow + 5;
	e = body + strlen(body);
	while (e > body && is_blank(e[-1]))
		e--;
	o = bracket_prio(body, e, &ev->sw.next_prio);
	if (!o || o == body || !is_blank(o[-1]))
		return false;
	return comm_pid(body, o - 1, ev->sw.next_comm, &ev->sw.next_pid);
}

/* trace-cmd's "COMM:PID [PRIO] success=1 CPU:001". */
static bool plugin_wakeup(const char *body, struct trace_ev *ev)
{
	const char *e = body + strlen(body), *cpu = NULL, *o, *p;
	uint64_t v;

	for (p = body; (p = strstr(p, " CPU:")); p++)
		cpu = p;
	if (!cpu)
		return false;
	p = cpu + 5;
	if (!parse_u64(&p, e, &v) || v > INT32_MAX)
		return false;
	ev->wake.target_cpu = v;
	e = cpu;
	p = strstr(body, " success=");
	if (p && p < e)
		e = p;
	o = bracket_prio(body, e, &ev->wake.prio);
	if (!o || o == body || !is_blank(o[-1]))
		return false;
	return comm_pid(body, o - 1, ev->wake.comm, &ev->wake.pid);
}

static bool wake(const struct fields *fs, struct trace_ev *ev)
{
	int64_t pid, prio, cpu;

	if (!num(fs, "pid", &pid) || !num(fs, "prio", &prio) || !num(fs, "target_cpu", &cpu))
		return false;
	ev->wake.pid = pid;
	ev->wake.prio = prio;
	ev->wake.target_cpu = cpu;
	comm(fs, "comm", ev->wake.comm);
	return true;
}

/* "cpu: 0001 target: 137 step: 104 (fn)", " cpu: 0001  state: 137 step: 104 ret: 0" */
static bool colon_num(const char *body, const char *key, int64_t *v)
{
	const char *p = strstr(body, key), *end;

	if (!p)
		return false;
	p += strlen(key);
	while (is_blank(*p))
		p++;
	for (end = p; *end && !is_blank(*end); end++)
		;
	return parse_int(p, end, v);
}

static bool cpuhp(const char *body, enum kind k, struct trace_ev *ev)
{
	int64_t cpu, target, idx, ret = 0;
	const char *fn;

	if (!colon_num(body, "cpu:", &cpu) || !colon_num(body, "step:", &idx) ||
	    !colon_num(body, k == K_HP_EXIT ? "state:" : "target:", &target) ||
	    (k == K_HP_EXIT && !colon_num(body, "ret:", &ret)))
		return false;
	ev->hp.cpu = cpu;
	ev->hp.target = target;
	ev->hp.idx = idx;
	ev->hp.ret = ret;
	/* The callback: its address where no symbol names it (trace-cmd without kallsyms). */
	fn = strstr(body, "(0x");
	if (k != K_HP_EXIT && fn)
		ev->hp.fun = strtoull(fn + 1, NULL, 16);
	ev->kind = k == K_HP_ENTER ? TRACE_EV_CPUHP_ENTER :
		   k == K_HP_MULTI_ENTER ? TRACE_EV_CPUHP_MULTI_ENTER : TRACE_EV_CPUHP_EXIT;
	ev->pid = -1;
	return true;
}

/* The kernel's own PELT (sched_events.c reads the same fields by name). */
static int pelt(const struct fields *fs, int tp, struct trace_ev *ev)
{
	static const char *const util[] = { "util", "util_avg", NULL };
	static const char *const load[] = { "load", "load_avg", NULL };
	static const char *const runnable[] = { "runnable", "runnable_avg", NULL };
	bool cfs = tp == TP_SCHED_PELT_CFS || tp == TP_SCHED_LOAD_AVG_CPU ||
		   tp == TP_SCHED_LOAD_CFS_RQ || tp == TP_LISA_PELT_CFS;
	const struct field *path = field(fs, "path");
	int64_t v, id;

	if (!num_of(fs, util, &v))
		return TRACE_EV_CURRENT;
	ev->pelt.util = v;
	ev->pelt.has_load = num_of(fs, load, &v);
	ev->pelt.load = ev->pelt.has_load ? v : 0;
	ev->pelt.has_runnable = num_of(fs, runnable, &v);
	ev->pelt.runnable = ev->pelt.has_runnable ? v : 0;
	if (!cfs && num(fs, "pid", &id) && id > 0) {
		ev->pelt.pid = id;
		return TRACE_EV_PELT_TASK;
	}
	if (cfs && num(fs, "cpu", &id) &&
	    (!path || !path->val_len || (path->val_len == 1 && path->val[0] == '/'))) {
		ev->pelt.cpu = id;
		return TRACE_EV_PELT_CPU;
	}
	return TRACE_EV_CURRENT;
}

/* A trace_marker write: devlib's frequency lines; others name the writer. */
static void marker(const char *name, size_t len, const char *body, struct trace_ev *ev)
{
	const char *buf = body, *c;

	/* trace-cmd's print: "ADDRESS_OR_SYMBOL: BUF". */
	if (len == 5 && (c = strstr(body, ": ")) && !memchr(body, ' ', c - body))
		buf = c + 2;
	if (trace_marker_counter(buf, strlen(buf), ev))
		return;
	if (trace_marker_freq(buf, &ev->power.cpu, &ev->power.state)) {
		ev->kind = TRACE_EV_FREQ;
		ev->pid = -1;
	} else {
		ev->kind = TRACE_EV_CURRENT;
	}
}

static bool decode(struct ftrace_text_state *st, enum kind k, int tp, const struct head *h,
		   struct trace_ev *ev)
{
	const char *body = h->body;
	struct fields fs;
	int64_t a, b, c, d;

	/* trace-cmd's own words for the two events its plugin prints. */
	if (k == K_SWITCH && strncmp(body, "prev_comm=", 10)) {
		st->trace_cmd = true;
		ev->kind = TRACE_EV_SWITCH;
		ev->pid = -1;
		return plugin_switch(st, body, ev);
	}
	if ((k == K_WAKEUP || k == K_WAKEUP_NEW) && strncmp(body, "comm=", 5)) {
		ev->kind = k == K_WAKEUP ? TRACE_EV_WAKEUP : TRACE_EV_WAKEUP_NEW;
		return plugin_wakeup(body, ev);
	}
	if (k == K_HP_ENTER || k == K_HP_MULTI_ENTER || k == K_HP_EXIT)
		return cpuhp(body, k, ev);
	if (k == K_MARKER) {
		marker(h->name, h->name_len, body, ev);
		return true;
	}
	split_fields(body, &fs);
	switch (k) {
	case K_SWITCH: {
		const struct field *state = field(&fs, "prev_state");
		size_t n;

		if (!state || !num(&fs, "prev_pid", &a) || !num(&fs, "prev_prio", &b) ||
		    !num(&fs, "next_pid", &c) || !num(&fs, "next_prio", &d))
			return false;
		/* "R+ ==>": the state is its first word; trace-cmd report -R's a number. */
		for (n = 0; n < state->val_len && !is_blank(state->val[n]); n++)
			;
		ev->kind = TRACE_EV_SWITCH;
		ev->pid = -1;
		ev->sw.prev_pid = a;
		ev->sw.prev_prio = b;
		if (n && is_digit(state->val[0]))
			ev->sw.prev_state = raw_state(st, strtoull(state->val, NULL, 0));
		else
			ev->sw.prev_state = kernel_state(st, state->val, n);
		ev->sw.next_pid = c;
		ev->sw.next_prio = d;
		comm(&fs, "prev_comm", ev->sw.prev_comm);
		comm(&fs, "next_comm", ev->sw.next_comm);
		return true;
	}
	case K_WAKING:
		ev->kind = TRACE_EV_WAKING;
		return wake(&fs, ev);
	case K_WAKEUP:
		ev->kind = TRACE_EV_WAKEUP;
		return wake(&fs, ev);
	case K_WAKEUP_NEW:
		ev->kind = TRACE_EV_WAKEUP_NEW;
		return wake(&fs, ev);
	case K_MIGRATE:
		if (!num(&fs, "pid", &a) || !num(&fs, "prio", &b) ||
		    !num(&fs, "orig_cpu", &c) || !num(&fs, "dest_cpu", &d))
			return false;
		ev->kind = TRACE_EV_MIGRATE;
		ev->migrate.pid = a;
		ev->migrate.prio = b;
		ev->migrate.orig_cpu = c;
		ev->migrate.dest_cpu = d;
		comm(&fs, "comm", ev->migrate.comm);
		return true;
	case K_EXIT:
	case K_FREE:
	case K_NEWTASK:
		if (!num(&fs, "pid", &a))
			return false;
		ev->kind = k == K_EXIT ? TRACE_EV_EXIT : k == K_FREE ? TRACE_EV_FREE :
			   TRACE_EV_NEWTASK;
		ev->task.pid = a;
		comm(&fs, "comm", ev->task.comm);
		return true;
	case K_RENAME:
		/*
		 * Without pid (a 6.14 change dropped it, taking the renamed
		 * task for the current one; Perfetto then falls back to the
		 * writer): 0, not the writer. A thread may write a sibling's
		 * /proc/self/task/TID/comm (this 6.18 kernel: python3-14018
		 * renamed pid=14059), and the renamed task's next event names
		 * it anyway (engine_rename()).
		 */
		if (!field(&fs, "newcomm"))
			return false;
		ev->kind = TRACE_EV_RENAME;
		ev->task.pid = num(&fs, "pid", &a) ? a : 0;
		comm(&fs, "newcomm", ev->task.comm);
		return true;
	case K_FREQ:
	case K_IDLE:
		if (!num(&fs, "state", &a) || !num(&fs, "cpu_id", &b))
			return false;
		ev->kind = k == K_FREQ ? TRACE_EV_FREQ : TRACE_EV_IDLE;
		ev->power.cpu = b;
		/* PWR_EVENT_EXIT is printed as (u32)-1: as a signed state, -1. */
		ev->power.state = (int32_t)a;
		return true;
	case K_RUNTIME:
		if (!num(&fs, "pid", &a) || !num(&fs, "runtime", &b))
			return false;
		ev->kind = TRACE_EV_RUNTIME;
		ev->runtime.pid = a;
		ev->runtime.runtime_ns = b;
		return true;
	case K_OVERUTILIZED:
		if (!num(&fs, "overutilized", &a))
			return false;
		ev->kind = TRACE_EV_OVERUTILIZED;
		ev->overutilized.on = a != 0;
		return true;
	case K_PELT:
		if (tp == TP_SCHED_LOAD_AVG_TASK || tp == TP_SCHED_LOAD_AVG_CPU)
			old_kernel(st, tp_table[tp].name);
		ev->kind = pelt(&fs, tp, ev);
		return true;
	default:
		ev->kind = TRACE_EV_CURRENT;
		return true;
	}
}

enum ftrace_line_kind ftrace_line_parse(struct ftrace_text_state *st, const char *line,
					size_t len, struct ftrace_line *out)
{
	struct trace_ev *ev = &out->ev;
	struct head h;
	enum kind k;
	int tp = -1;
	char why[96];

	out->tgid = 0;
	switch (ftrace_line_header(line)) {
	case FTRACE_HEADER_TRACE:
		if (cpus_line(line, &st->nr_cpus))
			st->trace_cmd = true;
		return FTRACE_LINE_NONE;
	case FTRACE_HEADER_OTHER:
		header_cpus(st, line);
		return FTRACE_LINE_NONE;
	default:
		break;
	}
	if (lost_line(line, ev))
		return FTRACE_LINE_LOST;
	if (!parse_head(line, line + len, &h))
		return bad(out, "not an ftrace event line (TASK-PID [CPU] TIME: EVENT: ...)");
	memset(ev, 0, sizeof(*ev));
	ev->ts = h.ts;
	ev->cpu = h.cpu;
	ev->pid = h.pid;
	out->tgid = h.tgid;
	if (!h.name) {
		ev->kind = TRACE_EV_CURRENT;
		return FTRACE_LINE_EVENT;
	}
	k = event_kind(h.name, h.name_len, &tp);
	if (!decode(st, k, tp, &h, ev)) {
		int n = h.name_len < 24 ? (int)h.name_len : 24;

		snprintf(why, sizeof(why), "a %.*s event whose fields do not read as the "
			 "kernel prints them", n, h.name);
		return bad(out, why);
	}
	return FTRACE_LINE_EVENT;
}
