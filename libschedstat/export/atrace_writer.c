// SPDX-License-Identifier: GPL-2.0
/*
 * --atrace: each sample's counters written into trace_marker as atrace
 * counter lines (atrace.h), so that a Perfetto, systrace or trace-cmd
 * capture taken meanwhile shows schedtop's numbers as counter tracks at the
 * kernel's own timestamps, no conversion. Every value is written at every
 * sample: a capture that starts later has them all from its first sample.
 *
 * trace_marker has a write() but no write_iter(), so writev() calls it once
 * per segment (fs/read_write.c): one system call a sample gives one print
 * event per line.
 *
 * A line is the same text as the last sample's line at its place but for
 * its value, nearly always: its prefix ("C|PID|NAME|") is kept and only the
 * value is written again. snprintf() and the name's cleaning, three a line,
 * were most of --atrace's cost (docs/performance.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "atrace.h"
#include "schedstat-local.h"
#include "trace_counter.h"

#define LINE_MAX_OURS	160
/* Segments per writev(): the kernel's UIO_MAXIOV. */
#define SEGMENTS	1024
/* The longest value and its newline: "-9223372036854775808\n". */
#define VALUE_MAX	21

struct line_key {
	const struct schedstat_trace_counter *c;
	int32_t pid, tid;
	char subject[32];	/* "" when it did not fit: never matched */
	unsigned pre_len;	/* 0: no prefix kept */
};

struct schedstat_atrace {
	int fd;
	char path[PATH_MAX];
	int32_t pid;
	const struct schedstat_trace_counter *counters;
	size_t nr_counters;
	bool (*want_task)(const struct schedstat_task *t, void *ctx);
	void *ctx;
	/* One sample's lines: text, and a segment per line. */
	char (*lines)[LINE_MAX_OURS];
	/* What each line was last written for: its prefix stands while equal. */
	struct line_key *keys;
	struct iovec *iov;
	size_t nr, cap;
	struct schedstat_atrace_stats st;
};

static const char *const marker_paths[] = {
	"/sys/kernel/tracing/trace_marker",
	"/sys/kernel/debug/tracing/trace_marker",
};

int schedstat_atrace_open(struct schedstat_atrace **out,
			  const struct schedstat_atrace_opts *opts)
{
	struct schedstat_atrace *a;
	int err = -ENOENT;

	*out = NULL;
	if (!opts || opts->sz < sizeof(*opts))
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->fd = -1;
	for (size_t i = 0; i < ARRAY_SIZE(marker_paths) && a->fd < 0; i++) {
		const char *path = opts->marker ? opts->marker : marker_paths[i];

		snprintf(a->path, sizeof(a->path), "%s", path);
		a->fd = open(path, O_WRONLY | O_CLOEXEC);
		/* A missing file: try the next place; anything else is the answer. */
		if (a->fd < 0 && (err = -errno) != -ENOENT)
			break;
		if (opts->marker)
			break;
	}
	if (a->fd < 0) {
		/* Say where we looked first: where a user would look too. */
		if (err == -ENOENT && !opts->marker)
			snprintf(a->path, sizeof(a->path), "%s", marker_paths[0]);
		*out = a;	/* for the path in the message */
		return err;
	}
	a->pid = opts->pid ? opts->pid : (int32_t)getpid();
	a->counters = opts->counters;
	a->nr_counters = opts->nr_counters;
	a->want_task = opts->want_task;
	a->ctx = opts->ctx;
	*out = a;
	return 0;
}

const char *schedstat_atrace_path(const struct schedstat_atrace *a)
{
	return a ? a->path : "";
}

static char *next_line(struct schedstat_atrace *a)
{
	if (a->nr == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 256;
		void *l = realloc(a->lines, cap * sizeof(*a->lines));

		if (!l)
			return NULL;
		a->lines = l;
		l = realloc(a->iov, cap * sizeof(*a->iov));
		if (!l)
			return NULL;
		a->iov = l;
		l = realloc(a->keys, cap * sizeof(*a->keys));
		if (!l)
			return NULL;
		a->keys = l;
		/* New places hold no line yet. */
		memset(a->keys + a->cap, 0, (cap - a->cap) * sizeof(*a->keys));
		a->cap = cap;
	}
	return a->lines[a->nr];
}

/* @v in decimal at @p; returns the bytes written (at most VALUE_MAX - 1). */
static int put_int(char *p, int64_t v)
{
	char tmp[24];
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	int n = 0, len = 0;

	do {
		tmp[n++] = '0' + u % 10;
		u /= 10;
	} while (u);
	if (v < 0)
		p[len++] = '-';
	while (n)
		p[len++] = tmp[--n];
	return len;
}

static bool same_key(const struct line_key *k, const struct schedstat_trace_counter *c,
		     int32_t pid, int32_t tid, const char *subject)
{
	return k->pre_len && k->c == c && k->pid == pid && k->tid == tid &&
	       !strcmp(k->subject, subject);
}

/* @subject's line for counter @c of @row, if the CSV would show it. */
static int add(struct schedstat_atrace *a, int32_t pid, const char *subject,
	       int32_t tid, const struct schedstat_trace_counter *c,
	       const void *row, uint32_t avail)
{
	char name[128], signal[64], *line;
	struct line_key *k;
	int64_t v;
	double d;
	int n;

	if (!schedstat_trace_counter_value(c, row, avail, &d))
		return 0;
	line = next_line(a);
	if (!line)
		return -ENOMEM;
	k = &a->keys[a->nr];
	if (c->type == SCHEDSTAT_FIELD_F64) {
		/* The CSV's "%.2f" digits, without the dot: exact, no rounding of ours. */
		char text[64], *dot;

		snprintf(text, sizeof(text), "%.2f", d);
		dot = strchr(text, '.');
		if (dot)
			memmove(dot, dot + 1, strlen(dot));
		v = strtoll(text, NULL, 10);
	} else {
		v = trace_counter_int(c, row);
	}
	if (same_key(k, c, pid, tid, subject)) {
		n = k->pre_len + put_int(line + k->pre_len, v);
		line[n++] = '\n';
		a->iov[a->nr++] = (struct iovec){ line, (size_t)n };
		return 0;
	}
	/* The line is written anew: its old prefix is gone, whatever follows. */
	k->pre_len = 0;
	snprintf(signal, sizeof(signal), c->type == SCHEDSTAT_FIELD_F64 ?
		 "%s" ATRACE_X100_SUFFIX : "%s", c->name);
	if (tid >= 0)
		n = atrace_task_name(name, sizeof(name), subject, tid, signal);
	else
		n = atrace_format_name(name, sizeof(name), subject, signal);
	if (n < 0)
		return n;
	n = atrace_format_counter(line, LINE_MAX_OURS, pid, name, v);
	if (n < 0)
		return n;
	a->iov[a->nr++] = (struct iovec){ line, (size_t)n };
	/*
	 * Keep the prefix up to the value's '|' (a cleaned name holds none)
	 * where any value of the next sample fits after it.
	 */
	*k = (struct line_key){ .c = c, .pid = pid, .tid = tid };
	if (strlen(subject) < sizeof(k->subject)) {
		const char *bar = memrchr(line, '|', n);
		unsigned pre = bar ? (unsigned)(bar - line) + 1 : 0;

		strcpy(k->subject, subject);
		if (pre && pre + VALUE_MAX <= LINE_MAX_OURS)
			k->pre_len = pre;
	}
	return 0;
}

static int add_row(struct schedstat_atrace *a, enum schedstat_row_kind kind,
		   int32_t pid, const char *subject, int32_t tid, const void *row,
		   uint32_t avail)
{
	int err = 0;

	for (size_t i = 0; i < a->nr_counters && !err; i++)
		if (a->counters[i].row == kind)
			err = add(a, pid, subject, tid, &a->counters[i], row, avail);
	return err;
}

static int flush(struct schedstat_atrace *a)
{
	int err = 0;

	for (size_t at = 0; at < a->nr;) {
		int n = a->nr - at > SEGMENTS ? SEGMENTS : (int)(a->nr - at);
		ssize_t done = writev(a->fd, a->iov + at, n);
		int took = 0;

		if (done < 0) {
			if (errno == EINTR)
				continue;
			/*
			 * The line at @at failed; the next may not. With the
			 * top-level buffer off (tracing_on 0), 6.17+ copies each
			 * line into the instances of options/copy_trace_marker
			 * and then fails the write (EBADF): a capture there has
			 * every line only if each is written.
			 */
			err = -errno;
			a->st.nr_failed++;
			at++;
			continue;
		}
		/* Whole segments taken; a short one is where the kernel stopped. */
		while (took < n && (size_t)done >= a->iov[at + took].iov_len) {
			done -= a->iov[at + took].iov_len;
			a->st.nr_bytes += a->iov[at + took].iov_len;
			took++;
		}
		a->st.nr_lines += took;
		if (took < n) {
			/* The rest of a cut line is lost: count it, go on after it. */
			a->st.nr_failed++;
			took++;
		}
		at += took;
	}
	a->nr = 0;
	return err;
}

int schedstat_atrace_sample(struct schedstat_atrace *a,
			    const struct schedstat_snapshot *snap)
{
	const struct schedstat_cluster *cl;
	const struct schedstat_cpu *c;
	const struct schedstat_task *t;
	size_t n;
	int err = 0;

	a->nr = 0;
	c = schedstat_snapshot_cpus(snap, &n);
	for (size_t i = 0; i < n && !err; i++) {
		char subject[16] = "cpu";

		if (c[i].cluster < 0)
			continue;
		subject[3 + put_int(subject + 3, c[i].cpu)] = '\0';
		err = add_row(a, SCHEDSTAT_ROW_CPU, a->pid, subject, -1, &c[i], c[i].avail);
	}
	cl = schedstat_snapshot_clusters(snap, &n);
	for (size_t i = 0; i < n && !err; i++)
		err = add_row(a, SCHEDSTAT_ROW_CLUSTER, a->pid, cl[i].name, -1, &cl[i],
			      cl[i].avail);
	t = schedstat_snapshot_tasks(snap, &n);
	for (size_t i = 0; i < n && !err && a->want_task; i++)
		if (a->want_task(&t[i], a->ctx))
			err = add_row(a, SCHEDSTAT_ROW_TASK, t[i].tgid, t[i].comm, t[i].pid,
				      &t[i], schedstat_snapshot_avail(snap));
	if (!err)
		err = flush(a);
	a->nr = 0;
	a->st.nr_samples++;
	return err;
}

void schedstat_atrace_stats(const struct schedstat_atrace *a,
			    struct schedstat_atrace_stats *st)
{
	*st = a->st;
}

void schedstat_atrace_close(struct schedstat_atrace *a)
{
	if (!a)
		return;
	if (a->fd >= 0)
		close(a->fd);
	free(a->lines);
	free(a->keys);
	free(a->iov);
	free(a);
}
