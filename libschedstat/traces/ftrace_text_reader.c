// SPDX-License-Identifier: GPL-2.0
/*
 * Ftrace text as a trace file (trace_reader.h): the kernel's trace and
 * trace_pipe, atrace's output (plain or -z), trace-cmd report's, and the
 * text a systrace HTML holds (plain or compressed): the lines come from
 * text_stream.c, each is read by ftrace_line.c. The kernel prints its
 * buffers merged in time order, as trace-cmd report does: the events come
 * sorted (info->sorted), in the file's order.
 *
 * What text cannot say: which events were recorded but never fired (a
 * trace.dat stores their formats), so a table's column whose event never
 * shows stays empty rather than 0; and, where the clock counts ns, the
 * kernel prints µs (rounded): times are read to the µs (trace-cmd report -t
 * prints ns).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftrace_line.h"
#include "text_stream.h"
#include "trace_reader.h"

/*
 * The kernel prints its buffers merged in time order; trace_pipe may print
 * an event committed late after later ones. A line further back than this
 * from the one before is not the kernel's order: damage.
 */
#define TEXT_BACK_NS	1000000000ull

/* One event line's events: a loss said before it, its thread's process, its event. */
struct line_evs {
	struct trace_ev ev[3];
	int n;
	uint64_t ts;
	unsigned long lineno;
};

struct ft_reader {
	struct text_stream ts;
	struct ftrace_text_state st;
	struct trace_reader_info *info;
	/* The TGID column's threads already told (TRACE_EV_TASK), this pass. */
	struct schedstat_hash *told;
	/*
	 * The last event line is held until the next one's time agrees with
	 * it: a time changed in one line (a leap ahead, then back) is that
	 * line's damage, and the window never reaches it.
	 */
	struct line_evs held;
	bool have_held, have_out;
	uint64_t out_ts;		/* the time of the last line handed out */
	int pending;			/* said once what came before is out */
	struct trace_ev queue[4];	/* handed out by ft_next() */
	int nq, qi;
	bool lost_held;			/* a "LOST" line waiting for its event's time */
	struct trace_ev lost;
	uint64_t last_ts;
	/* What tell_info() said last. */
	const char *told_old;
	bool told_trace_cmd;
};

/* The line that did not read, in a few words of its own. */
static int line_damage(struct ft_reader *r, const char *why)
{
	struct trace_damage *d = &r->info->damage;
	char excerpt[41];
	size_t n = r->ts.line_len < sizeof(excerpt) - 1 ? r->ts.line_len : sizeof(excerpt) - 1;

	for (size_t i = 0; i < n; i++) {
		char c = r->ts.line[i];

		excerpt[i] = c >= 0x20 && c < 0x7f ? c : '?';
	}
	excerpt[n] = '\0';
	d->set = true;
	d->line = r->ts.lineno;
	d->offset = r->ts.line_off;
	if (r->ts.in_inflated)
		snprintf(d->what, sizeof(d->what), "%.48s, in the text inflated from byte %llu: \"%.20s%s\"",
			 why, (unsigned long long)r->ts.line_off, excerpt,
			 r->ts.line_len > n ? "..." : "");
	else
		snprintf(d->what, sizeof(d->what), "%.80s: \"%.40s%s\"", why, excerpt,
			 r->ts.line_len > n ? "..." : "");
	return -SCHEDSTAT_ERR_TRACE_DAMAGED;
}

static void push(struct ft_reader *r, const struct trace_ev *ev)
{
	r->queue[r->nq++] = *ev;
}

static void add(struct line_evs *g, const struct trace_ev *ev)
{
	g->ev[g->n++] = *ev;
}

/* The held line, out to the driver. */
static void release(struct ft_reader *r)
{
	if (!r->have_held)
		return;
	for (int i = 0; i < r->held.n; i++)
		push(r, &r->held.ev[i]);
	r->have_held = false;
	r->have_out = true;
	r->out_ts = r->held.ts;
}

/* A time that leaps ahead in one line and back in the next: that line's damage. */
static int leap_damage(struct ft_reader *r, uint64_t back_to)
{
	struct trace_damage *d = &r->info->damage;

	d->set = true;
	d->line = r->held.lineno;
	d->offset = r->ts.line_off;
	snprintf(d->what, sizeof(d->what), "a time (%llu.%09llu s) ahead of the lines "
		 "around it (%llu.%09llu s after it)",
		 (unsigned long long)(r->held.ts / 1000000000ull),
		 (unsigned long long)(r->held.ts % 1000000000ull),
		 (unsigned long long)(back_to / 1000000000ull),
		 (unsigned long long)(back_to % 1000000000ull));
	return -SCHEDSTAT_ERR_TRACE_DAMAGED;
}

/* What the lines so far say of the whole trace, for the driver. */
static void tell_info(struct ft_reader *r)
{
	struct trace_reader_info *info = r->info;
	const char *old = ftrace_text_old_kernel(&r->st);

	/* The first pass's last word on it is what the driver reads. */
	if (old != r->told_old) {
		snprintf(info->pelt_evidence, sizeof(info->pelt_evidence), "%s", old ? old : "");
		r->told_old = old;
	}
	if (r->st.nr_cpus)
		info->nr_cpus = r->st.nr_cpus;
	if (r->st.trace_cmd && !r->told_trace_cmd && r->ts.container == TEXT_PLAIN) {
		snprintf(info->format, sizeof(info->format), "trace-cmd report");
		r->told_trace_cmd = true;
	}
}

/*
 * The next line: the line before it out into the queue if its time agrees;
 * 1, 0 at the end, or damage (r->pending when the queue has what came
 * before it).
 */
static int read_line(struct ft_reader *r)
{
	struct line_evs g = { .n = 0 };
	struct ftrace_line fl;
	uint64_t v;
	int ret;

	if (r->pending)
		return r->pending;
	ret = text_stream_line(&r->ts);
	if (ret <= 0) {
		release(r);
		/* A loss said last, with no event after it. */
		if (!ret && r->lost_held) {
			r->lost_held = false;
			r->lost.ts = r->last_ts;
			push(r, &r->lost);
		}
		r->pending = ret;
		return r->nq ? 1 : ret;
	}
	switch (ftrace_line_parse(&r->st, r->ts.line, r->ts.line_len, &fl)) {
	case FTRACE_LINE_NONE:
		tell_info(r);
		return 1;
	case FTRACE_LINE_BAD:
		release(r);
		r->pending = line_damage(r, fl.why);
		return r->nq ? 1 : r->pending;
	case FTRACE_LINE_LOST:
		/* Said before the CPU's next event: it takes that event's time. */
		if (r->lost_held) {
			r->lost.ts = r->last_ts;
			release(r);
			push(r, &r->lost);
		}
		r->lost = fl.ev;
		r->lost_held = true;
		return 1;
	case FTRACE_LINE_EVENT:
		break;
	}
	tell_info(r);
	r->last_ts = fl.ev.ts;
	g.ts = fl.ev.ts;
	g.lineno = r->ts.lineno;
	if (r->lost_held) {
		r->lost_held = false;
		r->lost.ts = fl.ev.ts;
		add(&g, &r->lost);
	}
	if (fl.tgid > 0 && fl.ev.pid > 0 &&
	    (schedstat_hash_get(r->told, fl.ev.pid, &v) || v != (uint64_t)fl.tgid)) {
		struct trace_ev task = {
			.ts = fl.ev.ts, .cpu = fl.ev.cpu, .pid = -1, .kind = TRACE_EV_TASK,
		};

		task.task.pid = fl.ev.pid;
		task.task.tgid = fl.tgid;
		if (schedstat_hash_put(r->told, fl.ev.pid, fl.tgid))
			return -ENOMEM;
		add(&g, &task);
	}
	add(&g, &fl.ev);
	if (r->have_held && g.ts + TEXT_BACK_NS < r->held.ts) {
		/* Back from the line before: which of the two is out of place? */
		if (!r->have_out || g.ts + TEXT_BACK_NS >= r->out_ts)
			return r->pending = leap_damage(r, g.ts);
		release(r);
		r->pending = line_damage(r, "a time further back than the line before's "
					 "(two traces one after the other?)");
		return 1;
	}
	release(r);
	r->held = g;
	r->have_held = true;
	return 1;
}

static int ft_next(void *p, struct trace_ev *ev)
{
	struct ft_reader *r = p;

	while (r->qi == r->nq) {
		int ret;

		r->qi = r->nq = 0;
		ret = read_line(r);
		if (ret <= 0)
			return ret;
	}
	*ev = r->queue[r->qi++];
	return 1;
}

static int ft_rewind(void *p)
{
	struct ft_reader *r = p;

	r->qi = r->nq = 0;
	r->lost_held = false;
	r->have_held = r->have_out = false;
	r->pending = 0;
	r->last_ts = 0;
	schedstat_hash_free(r->told);
	r->told = NULL;
	if (schedstat_hash_new(&r->told))
		return -ENOMEM;
	return text_stream_rewind(&r->ts);
}

static void ft_close(void *p)
{
	struct ft_reader *r = p;

	if (!r)
		return;
	text_stream_close(&r->ts);
	schedstat_hash_free(r->told);
	free(r);
}

static int ft_open(void **out, int fd, const char *path, struct trace_reader_info *info)
{
	struct ft_reader *r = calloc(1, sizeof(*r));
	int err;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->info = info;
	err = text_stream_open(&r->ts, fd, &info->damage);
	if (!err)
		err = schedstat_hash_new(&r->told);
	if (err) {
		ft_close(r);
		return err;
	}
	info->sorted = true;
	snprintf(info->format, sizeof(info->format), "%s", text_stream_kind(&r->ts));
	*out = r;
	return 0;
}

const struct trace_reader_ops ftrace_text_reader_ops = {
	.name = "ftrace-text",
	.probe = text_stream_probe,
	.open = ft_open,
	.next = ft_next,
	.rewind = ft_rewind,
	.close = ft_close,
};
