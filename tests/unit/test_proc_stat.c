// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/stat's CPU lines as fs/proc/stat.c prints them ("cpu" or "cpuN",
 * then user nice system idle iowait irq softirq steal guest guest_nice in
 * USER_HZ ticks), read in ns.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc_stat.h"

struct line {
	int cpu;
	int nr;
	uint64_t ns[PROC_STAT_NR_COLS];
};

struct lines {
	struct line l[8];
	int n;
	uint64_t first_user;
};

static void take(void *ctx, int cpu, const uint64_t *ns, int nr)
{
	struct lines *ls = ctx;

	assert_true(ls->n < 8);
	ls->l[ls->n].cpu = cpu;
	ls->l[ls->n].nr = nr;
	memcpy(ls->l[ls->n].ns, ns, nr * sizeof(*ns));
	ls->n++;
}

/* Counts the lines, keeps the last one and the total's user time. */
static void count_lines(void *ctx, int cpu, const uint64_t *ns, int nr)
{
	struct lines *ls = ctx;

	if (cpu < 0)
		ls->first_user = ns[PROC_STAT_USER];
	ls->l[0].cpu = cpu;
	ls->l[0].nr = nr;
	memcpy(ls->l[0].ns, ns, nr * sizeof(*ns));
	ls->n++;
}

static int read_text(const char *text, struct lines *ls)
{
	char path[] = "/tmp/schedtop-proc-stat-XXXXXX";
	int fd = mkstemp(path), err;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	memset(ls, 0, sizeof(*ls));
	err = proc_stat_read(path, take, ls);
	unlink(path);
	return err;
}

static void kernel_text_in_ns(void **state)
{
	/* The file counts USER_HZ ticks, whatever the kernel's HZ. */
	uint64_t tick = 1000000000ULL / sysconf(_SC_CLK_TCK);
	struct lines ls;

	/* This machine's (kernel 6.18), cut after cpu1. */
	assert_int_equal(read_text(
		"cpu  1830996 400618 397136 3475258 5656 0 4947 1227 0 0\n"
		"cpu0 882678 209849 259512 1759157 4303 0 3812 629 0 0\n"
		"cpu1 948317 190768 137623 1716100 1353 0 1135 597 0 0\n"
		"intr 123 4 5\n"
		"ctxt 98765\n", &ls), 0);
	assert_int_equal(ls.n, 3);
	assert_int_equal(ls.l[0].cpu, -1);
	assert_int_equal(ls.l[0].nr, PROC_STAT_NR_COLS);
	assert_int_equal(ls.l[0].ns[PROC_STAT_USER], 1830996 * tick);
	assert_int_equal(ls.l[0].ns[PROC_STAT_IRQ], 0);
	assert_int_equal(ls.l[0].ns[PROC_STAT_STEAL], 1227 * tick);
	assert_int_equal(ls.l[1].cpu, 0);
	assert_int_equal(ls.l[1].ns[PROC_STAT_IDLE], 1759157 * tick);
	assert_int_equal(ls.l[1].ns[PROC_STAT_IOWAIT], 4303 * tick);
	assert_int_equal(ls.l[1].ns[PROC_STAT_SOFTIRQ], 3812 * tick);
	assert_int_equal(ls.l[2].cpu, 1);
	assert_int_equal(ls.l[2].ns[PROC_STAT_STEAL], 597 * tick);
}

static void total_is_not_a_cpu(void **state)
{
	uint64_t tick = 1000000000ULL / sysconf(_SC_CLK_TCK);
	struct lines ls;

	/*
	 * A total whose user time is 1 tick: read as "cpu%d" it would be
	 * cpu1's line. A line cut short gives the columns it has.
	 */
	assert_int_equal(read_text("cpu  1 2 3 4 5 6 7 8 0 0\n"
				   "cpu3 10 20 30 40 50\n"
				   "cpu4\n"
				   "cpufreq 1 2\n", &ls), 0);
	assert_int_equal(ls.n, 2);
	assert_int_equal(ls.l[0].cpu, -1);
	assert_int_equal(ls.l[0].ns[PROC_STAT_USER], 1 * tick);
	assert_int_equal(ls.l[0].ns[PROC_STAT_STEAL], 8 * tick);
	assert_int_equal(ls.l[1].cpu, 3);
	assert_int_equal(ls.l[1].nr, 5);
	assert_int_equal(ls.l[1].ns[PROC_STAT_IOWAIT], 50 * tick);
}

/*
 * Kept open and read again from the start: the file's text of the moment
 * (a seq_file makes it anew at each read from 0; here the file is
 * rewritten in place), and CPU lines past the first 4 KB read are read.
 */
static void reread_kept_open(void **state)
{
	char path[] = "/tmp/schedtop-proc-stat-XXXXXX";
	int fd = mkstemp(path);
	struct proc_stat *ps;
	struct lines ls;
	char *text = malloc(64 * 1024);
	size_t len = 0;

	assert_true(fd >= 0 && text);
	len += sprintf(text, "cpu  1 2 3 4 5 6 7 8 0 0\n");
	for (int cpu = 0; cpu < 300; cpu++)
		len += sprintf(text + len, "cpu%d 1 2 3 %d 5 6 7 8 0 0\n", cpu, cpu);
	len += sprintf(text + len, "intr 1 2 3\n");
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(proc_stat_open(&ps, path), 0);
	memset(&ls, 0, sizeof(ls));
	assert_int_equal(proc_stat_reread(ps, count_lines, &ls), 0);
	/* The total and 300 CPUs, the last one's idle its number. */
	assert_int_equal(ls.n, 301);
	assert_int_equal(ls.l[0].cpu, 299);
	assert_int_equal(ls.l[0].ns[PROC_STAT_IDLE],
			 299 * (1000000000ULL / sysconf(_SC_CLK_TCK)));
	assert_int_equal(pwrite(fd, "cpu  9", 6, 0), 6);
	memset(&ls, 0, sizeof(ls));
	assert_int_equal(proc_stat_reread(ps, count_lines, &ls), 0);
	assert_int_equal(ls.n, 301);
	assert_int_equal(ls.first_user, 9 * (1000000000ULL / sysconf(_SC_CLK_TCK)));
	proc_stat_close(ps);
	close(fd);
	unlink(path);
	free(text);
}

static void missing_file_is_an_error(void **state)
{
	struct lines ls = {};

	assert_int_equal(proc_stat_read("/nonexistent/stat", take, &ls), -ENOENT);
	assert_int_equal(ls.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kernel_text_in_ns),
		cmocka_unit_test(total_is_not_a_cpu),
		cmocka_unit_test(reread_kept_open),
		cmocka_unit_test(missing_file_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
