// SPDX-License-Identifier: GPL-2.0
/*
 * Work loops and their calibration. A "run" of N µs is N µs of loops at
 * the speed measured on the CPU the use case names ("calibration":
 * "CPU0", rt-app's default), so that the same file asks the same
 * instructions on every later run: on a slower CPU or clock the work then
 * takes longer, which is what a mobile use case must show. The speed is
 * measured once per CPU and kept (docs/workloads.md, "Calibration").
 *
 * A loop is a few dependent xorshift steps, about as long as rt-app's own
 * loop on x86 (it measures 10-11 ns there, this one 13-15): no memory, no
 * vector unit, no library call, the same instructions on every CPU.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "workload_local.h"

#define WL_STEPS_PER_LOOP	8
#define WL_CALIB_ROUNDS		5
#define WL_CALIB_ROUND_NS	50000000ULL
/* Lines a calibration file may hold: one per CPU. */
#define WL_CALIB_MAX_LINES	SCHEDSTAT_MAX_CPUS

uint64_t schedstat_workload_work(uint64_t loops, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (uint64_t l = 0; l < loops; l++) {
		for (int i = 0; i < WL_STEPS_PER_LOOP; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		/* Keep the compiler from folding the loop away. */
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * CPU time, not wall time: a preemption during the measurement must not
 * make the CPU look slower, nor must the emulation's stealer (which takes
 * wall time from a CPU, not instructions). The best of five 50 ms rounds.
 */
int schedstat_workload_calibrate(int cpu, double *ns_per_loop)
{
	cpu_set_t old, one;
	double best = 0;
	bool pinned = false;

	if (cpu >= 0) {
		if (cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(old), &old))
			return -EINVAL;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			return -errno;
		pinned = true;
	}
	schedstat_workload_work(200000, 1);	/* let the clock ramp up */
	for (int round = 0; round < WL_CALIB_ROUNDS; round++) {
		uint64_t loops = 0, t0 = thread_cpu_ns(), dt;

		do {
			schedstat_workload_work(10000, round + 2);
			loops += 10000;
			dt = thread_cpu_ns() - t0;
		} while (dt < WL_CALIB_ROUND_NS);
		if (!best || (double)dt / loops < best)
			best = (double)dt / loops;
	}
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	*ns_per_loop = best;
	return 0;
}

/*
 * "cpu0 ns_per_loop 13.870": one line per CPU measured. Lines of another
 * kind (older schedtops kept "units_per_ms") are not this file's.
 * -ENOENT: no line for @cpu; -EINVAL: no line of this kind at all.
 */
int schedstat_workload_calibration_load(const char *path, int cpu, double *ns_per_loop)
{
	char line[128];
	FILE *f = fopen(path, "re");
	bool any = false, found = false;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		int c, n = 0;
		double v;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "cpu%d ns_per_loop %lf%n", &c, &v, &n) == 2 && n &&
		    v > 0 && v < 1e7) {
			any = true;
			if (c == cpu) {
				*ns_per_loop = v;
				found = true;
			}
		} else if (!strncmp(line, "units_per_ms ", 13)) {
			any = true;
		}
	}
	fclose(f);
	return found ? 0 : any ? -ENOENT : -EINVAL;
}

/* mkdir -p of @path's directory. */
static void make_dirs(const char *path)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
}

int schedstat_workload_calibration_store(const char *path, int cpu, double ns_per_loop)
{
	char tmp[560], line[128];
	FILE *in, *f;
	int lines = 0;

	make_dirs(path);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "# schedtop workload: ns of CPU time per work loop, measured once\n"
		   "# per CPU (schedtop workload --recalibrate measures again)\n");
	in = fopen(path, "re");
	while (in && fgets(line, sizeof(line), in) && lines < WL_CALIB_MAX_LINES) {
		int c;
		double v;

		/* The other CPUs' lines stay; older kinds of line go. */
		if (sscanf(line, "cpu%d ns_per_loop %lf", &c, &v) == 2 && c != cpu && v > 0) {
			fprintf(f, "cpu%d ns_per_loop %.4f\n", c, v);
			lines++;
		}
	}
	if (in)
		fclose(in);
	fprintf(f, "cpu%d ns_per_loop %.4f\n", cpu, ns_per_loop);
	if (fclose(f) || rename(tmp, path)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	return 0;
}
