// SPDX-License-Identifier: GPL-2.0
/*
 * The state file of a session that takes a CPU out of service: what it
 * found and what it changed, each line written before the change it
 * describes, so that after a SIGKILL the next start (or hotplug --restore)
 * puts back the CPU's online state, every cpuset, task and IRQ affinity.
 * The file is locked (flock) while its session lives; an unlocked file is
 * a dead session's. /run is a tmpfs: a reboot restores everything anyway.
 *
 *   pid 1234
 *   cpu 1 online 1                 the CPU as found
 *   cpuset PATH LIST               a cpuset.cpus file as it was
 *   task TID STARTTIME LIST        an affinity as it was
 *   irq N LIST                     an IRQ's smp_affinity_list as it was
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_exit.h"

#define STATE_DIR	"/run/schedtop"
#define STATE_PATH	STATE_DIR "/cpu-exit.state"

/* The file, locked; -EBUSY when a live session holds it. */
static int state_open(bool create, int *fdp)
{
	int fd;

	if (create && mkdir(STATE_DIR, 0755) && errno != EEXIST)
		return -errno;
	fd = open(STATE_PATH, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

/* Appends one line; the change it describes comes after. */
int exit_state_add(struct schedstat_cpu_exit *x, const char *fmt, ...)
{
	char line[PATH_MAX_LINE];
	va_list ap;
	int n;

	if (x->state_fd < 0)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line))
		return -ENAMETOOLONG;
	if (write(x->state_fd, line, n) != n)
		return errno ? -errno : -EIO;
	return 0;
}

/* Back to the header: nothing is changed any more. */
int exit_state_reset(struct schedstat_cpu_exit *x)
{
	if (x->state_fd < 0)
		return 0;
	if (ftruncate(x->state_fd, 0))
		return -errno;
	return exit_state_add(x, "pid %d\ncpu %d online %d\n", (int)getpid(),
			      x->cpu, !x->found_offline);
}

int exit_state_begin(struct schedstat_cpu_exit *x)
{
	int err = state_open(true, &x->state_fd);

	if (err) {
		x->state_fd = -1;
		return err;
	}
	/* O_APPEND after truncation: every line lands at the end. */
	if (fcntl(x->state_fd, F_SETFL, O_APPEND))
		return -errno;
	return exit_state_reset(x);
}

void exit_state_end(struct schedstat_cpu_exit *x, bool restored)
{
	if (x->state_fd < 0)
		return;
	/* Unlinked while locked, so no one recovers a file half gone. */
	if (restored)
		unlink(STATE_PATH);
	close(x->state_fd);
	x->state_fd = -1;
}

/* flags (field 9) and starttime (22) of /proc/TID/stat; -errno if gone. */
int exit_task_stat(int tid, unsigned int *flags, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	err = util_read_small_file(path, buf, sizeof(buf));
	if (err)
		return err;
	/* A task that exits while read leaves an empty file. */
	if (!buf[0])
		return -ESRCH;
	/* comm may hold spaces and parentheses: fields follow the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %u %*u %*u %*u %*u "
			 "%*u %*u %*d %*d %*d %*d %*d %*d %llu", flags, start) != 2)
		return -EINVAL;
	return 0;
}

static unsigned long long starttime(int tid)
{
	unsigned long long start = 0;
	unsigned int flags;

	return exit_task_stat(tid, &flags, &start) ? 0 : start;
}

struct line {
	char kind[8];
	char a[PATH_MAX_LINE];	/* cpuset path, tid, irq or cpu */
	char b[PATH_MAX_LINE];	/* list, or starttime */
	char c[PATH_MAX_LINE];	/* task: list */
};

/*
 * A file back to @want unless it holds that already: a line is written
 * before its change, which may then have been refused (a managed IRQ, a
 * cpuset the kernel would not shrink). Gone: nothing to put back.
 */
static int restore_file(const char *path, const char *want, unsigned int *n)
{
	char now[256];
	int err = util_read_small_file(path, now, sizeof(now));

	if (err == -ENOENT)
		return 0;
	if (!err && !strcmp(now, want))
		return 0;
	err = util_write_small_file(path, want);
	if (!err)
		(*n)++;
	return err == -ENOENT ? 0 : err;
}

static int restore_task(const struct line *l, unsigned int *n)
{
	cpu_set_t mask, now;
	struct cpuset set;
	int tid = atoi(l->a);

	/* Gone, or its tid now another task's. */
	if (!tid || starttime(tid) != strtoull(l->b, NULL, 10))
		return 0;
	if (cpulist_parse(l->c, &set))
		return -EINVAL;
	CPU_ZERO(&mask);
	for (int c = 0; c < cpuset_end(&set) && c < CPU_SETSIZE; c++)
		if (cpuset_test(&set, c))
			CPU_SET(c, &mask);
	if (!sched_getaffinity(tid, sizeof(now), &now) && CPU_EQUAL(&now, &mask))
		return 0;
	if (sched_setaffinity(tid, sizeof(mask), &mask))
		return errno == ESRCH ? 0 : -errno;
	(*n)++;
	return 0;
}

/*
 * Puts back one line. Cpusets come first, in reverse order of change
 * (parents before children, as cgroup v1 needs); the kernel recomputes
 * their tasks' affinities then, so the tasks' own come after; the CPU's
 * online state last.
 */
static int restore_line(const struct line *l, int pass, unsigned int *n)
{
	char path[PATH_MAX_LINE + 48];

	if (pass == 0 && !strcmp(l->kind, "cpuset"))
		return restore_file(l->a, l->b, n);
	if (pass == 1 && !strcmp(l->kind, "task"))
		return restore_task(l, n);
	if (pass == 1 && !strcmp(l->kind, "irq")) {
		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", atoi(l->a));
		return restore_file(path, l->b, n);
	}
	if (pass == 2 && !strcmp(l->kind, "cpu")) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
			 atoi(l->a));
		return restore_file(path, atoi(l->c) ? "1" : "0", n);
	}
	return 0;
}

int schedstat_cpu_exit_recover(unsigned int *restored)
{
	struct line *lines = NULL;
	size_t nr = 0, cap = 0;
	char buf[3 * PATH_MAX_LINE];
	int fd, err, e;
	FILE *f;

	*restored = 0;
	err = state_open(false, &fd);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	f = fdopen(dup(fd), "re");
	if (!f) {
		err = -errno;
		goto cleanup;
	}
	while (fgets(buf, sizeof(buf), f)) {
		struct line l = {};

		if (sscanf(buf, "%7s %1023s %1023s %1023s", l.kind, l.a, l.b, l.c) < 2)
			continue;
		if (schedstat_array_reserve((void **)&lines, &cap, nr + 1, sizeof(*lines))) {
			err = -ENOMEM;
			break;
		}
		lines[nr++] = l;
	}
	fclose(f);
	for (int pass = 0; !err && pass < 3; pass++) {
		/* Reverse order: the first line of a thing holds it as found. */
		for (size_t i = nr; i-- > 0;) {
			e = restore_line(&lines[i], pass, restored);
			if (e && !err)
				err = e;
		}
	}
	/* Kept if anything failed: the user fixes it and tries again. */
	if (!err)
		unlink(STATE_PATH);
cleanup:
	free(lines);
	close(fd);
	return err;
}

const char *schedstat_cpu_exit_state_path(void)
{
	return STATE_PATH;
}
