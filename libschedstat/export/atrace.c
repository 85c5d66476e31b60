// SPDX-License-Identifier: GPL-2.0
/*
 * atrace's trace_marker lines (see atrace.h). The parser follows what
 * Perfetto's systrace parser accepts (src/trace_processor/importers/
 * systrace/systrace_parser.h, ParseSystraceTracePoint): fields split at '|',
 * a PID that is no unsigned integer is "none", a counter needs a name and
 * an int64 value and may carry a category after it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "atrace.h"

static bool name_byte_ok(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '|';
}

void atrace_name_clean(char *dst, size_t size, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < size && i < len && src[i]; i++)
		dst[i] = name_byte_ok((unsigned char)src[i]) ? src[i] : '?';
	dst[i] = '\0';
}

int atrace_format_counter(char *buf, size_t size, int32_t pid, const char *name,
			  int64_t value)
{
	char clean[ATRACE_LINE_MAX];
	int n;

	atrace_name_clean(clean, sizeof(clean), name, strlen(name));
	n = snprintf(buf, size, "C|%" PRId32 "|%s|%" PRId64 "\n", pid,
		     clean[0] ? clean : "?", value);
	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

int atrace_task_name(char *buf, size_t size, const char *comm, int32_t tid,
		     const char *signal)
{
	char clean[64];
	int n;

	atrace_name_clean(clean, sizeof(clean), comm, strlen(comm));
	n = snprintf(buf, size, "%s %" PRId32 " %s", clean[0] ? clean : "?",
		     tid, signal);
	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

int atrace_format_name(char *buf, size_t size, const char *subject,
		       const char *signal)
{
	char clean[128];
	int n;

	atrace_name_clean(clean, sizeof(clean), subject, strlen(subject));
	n = snprintf(buf, size, "%s %s", clean[0] ? clean : "?", signal);
	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

/* A whole field of decimal digits (and a leading '-' if @sign) as int64. */
static bool parse_int(const char *s, size_t len, bool sign, int64_t *out)
{
	uint64_t v = 0, limit = INT64_MAX;
	bool neg = false;
	size_t i = 0;

	if (sign && len && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		limit += neg;
		i++;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (limit - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

struct fields {
	const char *s;
	size_t len, off;
};

/* The next field up to '|' or the end; eats the separator. */
static const char *next_field(struct fields *f, size_t *len)
{
	size_t start = f->off;

	while (f->off < f->len && f->s[f->off] != '|')
		f->off++;
	*len = f->off - start;
	if (f->off < f->len)
		f->off++;
	else
		f->off = f->len + 1;	/* past the end: later fields empty */
	return f->s + (start < f->len ? start : f->len);
}

int atrace_parse(const char *line, size_t len, struct atrace_point *out)
{
	struct fields f = { line, len, 0 };
	const char *a, *b, *c;
	size_t al, bl, cl, pl;
	const char *pidf;
	int64_t pid;
	bool has_pid;

	*out = (struct atrace_point){ .pid = -1 };
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\0'))
		len--;
	if (!len || len > ATRACE_LINE_MAX)
		return -EINVAL;
	f.len = len;
	a = next_field(&f, &al);
	if (!al)
		return -EINVAL;
	out->phase = a[0];
	pidf = next_field(&f, &pl);
	has_pid = parse_int(pidf, pl, false, &pid) && pid <= UINT32_MAX;
	if (has_pid)
		out->pid = pid;
	switch (out->phase) {
	case 'B':
		if (!has_pid)
			return -EINVAL;
		/* The rest of the line, '|' included, is the name. */
		out->name = f.off <= len ? line + f.off : line + len;
		out->name_len = f.off <= len ? len - f.off : 0;
		return 0;
	case 'E':
		return 0;
	case 'S':
	case 'F':
	case 'C':
		b = next_field(&f, &bl);
		c = next_field(&f, &cl);
		if (!has_pid || !bl || !parse_int(c, cl, true, &out->value))
			return -EINVAL;
		out->name = b;
		out->name_len = bl;
		return 0;
	case 'I':
		b = next_field(&f, &bl);
		if (!has_pid || !bl)
			return -EINVAL;
		out->name = b;
		out->name_len = bl;
		return 0;
	case 'N':
	case 'G':
		b = next_field(&f, &bl);
		c = next_field(&f, &cl);
		if (!has_pid || !bl || !cl)
			return -EINVAL;
		out->track = b;
		out->track_len = bl;
		out->name = c;
		out->name_len = cl;
		if (out->phase == 'N')
			return 0;
		a = next_field(&f, &al);
		return parse_int(a, al, true, &out->value) ? 0 : -EINVAL;
	case 'H': {
		const char *d;
		size_t dl;

		b = next_field(&f, &bl);
		c = next_field(&f, &cl);
		d = next_field(&f, &dl);
		if (!has_pid || !bl)
			return -EINVAL;
		out->track = b;
		out->track_len = bl;
		if (!dl) {
			d = c;
			dl = cl;
		}
		return parse_int(d, dl, true, &out->value) ? 0 : -EINVAL;
	}
	default:
		if (len >= 23 && !memcmp(line, "trace_event_clock_sync:", 23))
			return -ENOTSUP;
		return -EINVAL;
	}
}

int atrace_name_split(const char *name, size_t len, struct atrace_name *out)
{
	size_t sig, sp;
	int64_t v;

	*out = (struct atrace_name){ .tid = -1, .cpu = -1 };
	for (sig = len; sig && name[sig - 1] != ' '; sig--)
		;
	if (!sig || sig == len || sig == 1)
		return -EINVAL;
	out->signal = name + sig;
	out->signal_len = len - sig;
	if (out->signal_len > strlen(ATRACE_X100_SUFFIX) &&
	    !memcmp(out->signal + out->signal_len - strlen(ATRACE_X100_SUFFIX),
		    ATRACE_X100_SUFFIX, strlen(ATRACE_X100_SUFFIX))) {
		out->signal_len -= strlen(ATRACE_X100_SUFFIX);
		out->x100 = true;
	}
	out->subject = name;
	out->subject_len = sig - 1;
	/* "COMM TID": the word before the signal is a tid if a subject precedes. */
	for (sp = out->subject_len; sp && name[sp - 1] != ' '; sp--)
		;
	if (sp > 1 && parse_int(name + sp, out->subject_len - sp, false, &v)) {
		out->tid = v;
		out->subject_len = sp - 1;
		return 0;
	}
	if (out->subject_len > 3 && !memcmp(name, "cpu", 3) &&
	    parse_int(name + 3, out->subject_len - 3, false, &v) && v < 1 << 20)
		out->cpu = (int)v;
	return 0;
}

/* Every field of the three rows by name, from their schemas. */
struct named_field {
	const char *name;
	enum schedstat_field_type type;
	size_t offset;
};

#define NF(st, name, member, type) \
	{ #name, SCHEDSTAT_FIELD_##type, offsetof(st, member) },
#define NF_TASK(n, m, t)	NF(struct schedstat_task, n, m, t)
#define NF_CPU(n, m, t)		NF(struct schedstat_cpu, n, m, t)
#define NF_CLUSTER(n, m, t)	NF(struct schedstat_cluster, n, m, t)

static const struct named_field task_fields[] = {
	SCHEDSTAT_TASK_FIELDS(NF_TASK, NF_TASK) {}
};
static const struct named_field cpu_fields[] = {
	SCHEDSTAT_CPU_FIELDS(NF_CPU, NF_CPU) {}
};
static const struct named_field cluster_fields[] = {
	SCHEDSTAT_CLUSTER_FIELDS(NF_CLUSTER, NF_CLUSTER) {}
};

int atrace_field_find(enum schedstat_row_kind row, const char *name, size_t len,
		      enum schedstat_field_type *type, size_t *offset)
{
	const struct named_field *f = row == SCHEDSTAT_ROW_TASK ? task_fields :
				      row == SCHEDSTAT_ROW_CPU ? cpu_fields : cluster_fields;

	for (; f->name; f++) {
		if (strlen(f->name) != len || memcmp(f->name, name, len))
			continue;
		if (f->type == SCHEDSTAT_FIELD_STR || f->type == SCHEDSTAT_FIELD_CHAR)
			return -EINVAL;
		*type = f->type;
		*offset = f->offset;
		return 0;
	}
	return -EINVAL;
}

int atrace_counter_read(const struct atrace_point *pt, struct atrace_counter *out)
{
	struct atrace_name n;

	memset(out, 0, sizeof(*out));
	if (pt->phase != 'C' || atrace_name_split(pt->name, pt->name_len, &n))
		return -EINVAL;
	out->tgid = pt->pid;
	out->tid = n.tid;
	out->cpu = n.cpu;
	if (n.tid >= 0) {
		out->row = SCHEDSTAT_ROW_TASK;
	} else if (n.cpu >= 0) {
		out->row = SCHEDSTAT_ROW_CPU;
	} else {
		if (n.subject_len >= sizeof(out->cluster))
			return -EINVAL;
		memcpy(out->cluster, n.subject, n.subject_len);
		out->row = SCHEDSTAT_ROW_CLUSTER;
	}
	if (atrace_field_find(out->row, n.signal, n.signal_len, &out->type, &out->offset) ||
	    n.x100 != (out->type == SCHEDSTAT_FIELD_F64))
		return -EINVAL;
	out->value = n.x100 ? pt->value / 100.0 : (double)pt->value;
	return 0;
}
