// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/stat's CPU lines in ns (proc_stat.h). The BPF source reads them at
 * every sample on kernels without per-CPU ksyms: the file stays open and is
 * read again from its start (a seq_file makes its text anew then), only as
 * far as its CPU lines go, which the kernel prints first; they are parsed
 * by hand (sscanf() per line was most of the user time of a sample here).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_stat.h"

#define READ_CHUNK	4096

struct proc_stat {
	int fd;
	uint64_t tick_ns;
	char *buf;
	size_t cap;
};

/* A decimal number at *@p, moved past it; false if there is none. */
static bool parse_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t n = 0;

	while (s < end && *s == ' ')
		s++;
	if (s == end || *s < '0' || *s > '9')
		return false;
	while (s < end && *s >= '0' && *s <= '9')
		n = n * 10 + (*s++ - '0');
	*p = s;
	*v = n;
	return true;
}

/*
 * The columns of one line [@s, @end), or -1 if it is not a CPU line. The
 * total line ("cpu ") is told apart first: "cpu%d" would take its first
 * column for a CPU.
 */
static int parse_line(const char *s, const char *end, uint64_t tick_ns,
		      int *cpu, uint64_t *ns)
{
	uint64_t v;
	int n = 0;

	if (end - s < 4 || memcmp(s, "cpu", 3))
		return -1;
	s += 3;
	if (*s == ' ') {
		*cpu = -1;
	} else {
		if (!parse_u64(&s, end, &v) || v > 1u << 20 ||
		    (s < end && *s != ' '))
			return -1;
		*cpu = v;
	}
	while (n < PROC_STAT_NR_COLS && parse_u64(&s, end, &v))
		ns[n++] = v * tick_ns;
	return n ? n : -1;
}

/* Enough of the file, from its start, to hold its CPU lines: its length. */
static ssize_t read_cpu_lines(struct proc_stat *ps)
{
	size_t len = 0;

	for (;;) {
		const char *last;
		ssize_t got;

		if (ps->cap - len < READ_CHUNK + 1) {
			char *b = realloc(ps->buf, ps->cap + 4 * READ_CHUNK);

			if (!b)
				return -ENOMEM;
			ps->buf = b;
			ps->cap += 4 * READ_CHUNK;
		}
		got = pread(ps->fd, ps->buf + len, READ_CHUNK, len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		len += got;
		ps->buf[len] = '\0';
		if (!got)
			return len;
		/* A whole line past the CPU lines: the rest is not needed. */
		last = strrchr(ps->buf, '\n');
		for (const char *l = ps->buf; last && l <= last;) {
			const char *nl = strchr(l, '\n');

			if (strncmp(l, "cpu", 3))
				return len;
			l = nl + 1;
		}
	}
}

int proc_stat_open(struct proc_stat **out, const char *path)
{
	struct proc_stat *ps = calloc(1, sizeof(*ps));
	long hz = sysconf(_SC_CLK_TCK);

	*out = NULL;
	if (!ps)
		return -ENOMEM;
	ps->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ps->fd < 0) {
		int err = -errno;

		free(ps);
		return err;
	}
	ps->tick_ns = 1000000000ULL / (hz > 0 ? hz : 100);
	*out = ps;
	return 0;
}

void proc_stat_close(struct proc_stat *ps)
{
	if (!ps)
		return;
	close(ps->fd);
	free(ps->buf);
	free(ps);
}

int proc_stat_reread(struct proc_stat *ps,
		     void (*fn)(void *ctx, int cpu, const uint64_t *ns, int nr),
		     void *ctx)
{
	uint64_t ns[PROC_STAT_NR_COLS];
	ssize_t len = read_cpu_lines(ps);
	const char *l, *end;
	int cpu, n;

	if (len < 0)
		return len;
	for (l = ps->buf, end = ps->buf + len; l < end;) {
		const char *nl = memchr(l, '\n', end - l);

		if (!nl)
			nl = end;
		/* The CPU lines come first; whatever follows is not one. */
		if (strncmp(l, "cpu", 3))
			break;
		n = parse_line(l, nl, ps->tick_ns, &cpu, ns);
		if (n > 0)
			fn(ctx, cpu, ns, n);
		l = nl + 1;
	}
	return 0;
}

int proc_stat_read(const char *path,
		   void (*fn)(void *ctx, int cpu, const uint64_t *ns, int nr),
		   void *ctx)
{
	struct proc_stat *ps;
	int err = proc_stat_open(&ps, path);

	if (err)
		return err;
	err = proc_stat_reread(ps, fn, ctx);
	proc_stat_close(ps);
	return err;
}
