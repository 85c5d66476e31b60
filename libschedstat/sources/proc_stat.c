// SPDX-License-Identifier: GPL-2.0
/* /proc/stat's CPU lines in ns (proc_stat.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc_stat.h"

/*
 * The columns of one line, or -1 if it is not a CPU line. The total line
 * is told apart first: "cpu%d" would take its first column for a CPU.
 */
static int parse_line(const char *line, uint64_t tick_ns, int *cpu, uint64_t *ns)
{
	unsigned long long v[PROC_STAT_NR_COLS];
	int off = 0, n;

	if (strncmp(line, "cpu", 3))
		return -1;
	if (line[3] == ' ') {
		*cpu = -1;
		off = 3;
	} else if (sscanf(line, "cpu%d%n", cpu, &off) != 1 || *cpu < 0) {
		return -1;
	}
	n = sscanf(line + off, "%llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n <= 0)
		return -1;
	for (int i = 0; i < n; i++)
		ns[i] = v[i] * tick_ns;
	return n;
}

int proc_stat_read(const char *path,
		   void (*fn)(void *ctx, int cpu, const uint64_t *ns, int nr),
		   void *ctx)
{
	FILE *f = fopen(path, "re");
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t ns[PROC_STAT_NR_COLS];
	char line[512];
	int cpu, n;

	if (!f)
		return -errno;
	if (hz <= 0)
		hz = 100;
	while (fgets(line, sizeof(line), f)) {
		n = parse_line(line, 1000000000ULL / hz, &cpu, ns);
		if (n > 0)
			fn(ctx, cpu, ns, n);
	}
	fclose(f);
	return 0;
}
