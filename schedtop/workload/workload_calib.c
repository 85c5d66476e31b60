// SPDX-License-Identifier: GPL-2.0
/*
 * Work units and their calibration. The calibration is measured once and
 * stored, so that later runs ask for the same instructions: on a slower CPU
 * or clock the same work then takes longer, which is what a mobile
 * workload must show (a fresh calibration there would hide it).
 */
#include <errno.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

/* Dependent xorshift steps per unit: about a microsecond on a 2 GHz core. */
#define WL_STEPS_PER_UNIT	1000

uint64_t wl_work(uint64_t units, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (uint64_t u = 0; u < units; u++) {
		for (int i = 0; i < WL_STEPS_PER_UNIT; i++) {
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
 * make the CPU look slower. The best of five 50 ms rounds.
 */
double wl_calibrate(int cpu)
{
	cpu_set_t old, one;
	double best = 0;
	bool pinned = false;

	if (cpu >= 0 && !sched_getaffinity(0, sizeof(old), &old)) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pinned = !sched_setaffinity(0, sizeof(one), &one);
	}
	wl_work(2000, 1);	/* let the clock ramp up */
	for (int round = 0; round < 5; round++) {
		uint64_t units = 0, t0 = thread_cpu_ns(), dt;

		do {
			wl_work(100, round + 2);
			units += 100;
			dt = thread_cpu_ns() - t0;
		} while (dt < 50000000ULL);
		if (units * 1e6 / dt > best)
			best = units * 1e6 / dt;
	}
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	return best;
}

/*
 * Root: /var/lib/schedtop/calibration (one per machine, as a phone's
 * /data would hold it); others: $XDG_CACHE_HOME/schedtop/calibration,
 * else ~/.cache/schedtop/calibration.
 */
const char *wl_calibration_path(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (!geteuid())
		snprintf(buf, size, "/var/lib/schedtop/calibration");
	else if (xdg && *xdg)
		snprintf(buf, size, "%s/schedtop/calibration", xdg);
	else if (home && *home)
		snprintf(buf, size, "%s/.cache/schedtop/calibration", home);
	else
		return NULL;
	return buf;
}

int wl_calibration_load(const char *path, double *units_per_ms)
{
	char line[128];
	FILE *f = fopen(path, "re");
	int err = -EINVAL;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "units_per_ms %lf", units_per_ms) == 1 &&
		    *units_per_ms > 0 && *units_per_ms < 1e9)
			err = 0;
	fclose(f);
	return err;
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

int wl_calibration_store(const char *path, double units_per_ms)
{
	char tmp[560];
	FILE *f;

	make_dirs(path);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "# schedtop workload: work units per ms of CPU time, measured\n"
		   "# once on this machine (schedtop workload --recalibrate redoes it)\n"
		   "units_per_ms %.3f\n", units_per_ms);
	if (fclose(f) || rename(tmp, path)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	return 0;
}
