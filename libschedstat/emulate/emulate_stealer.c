// SPDX-License-Identifier: GPL-2.0
/*
 * The stealer method: one SCHED_FIFO thread per slowed CPU, pinned there,
 * burning (100 - N)% of every 2 ms period. CFS sees a CPU with N% left; the
 * kernel's own answer to RT pressure (rq->avg_rt, hence scale_rt_capacity()
 * and rq->cpu_capacity) says so too. The threads are this process's, so
 * they end with it whatever ends it, SIGKILL included.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "emulate.h"

/* Above every CFS task, below every RT task that matters (they use 50+). */
#define STEALER_PRIO	1

struct emulate_stealer {
	pthread_t thread;
	int cpu;
	uint64_t burn_ns;
	atomic_bool stop;
	sem_t ready;
	pid_t tid;
	int err;		/* set by the thread before it posts ready */
	bool running;
	uint64_t run0_ns, mono0_ns;	/* schedstat run time, clock at start */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct timespec ns_ts(uint64_t ns)
{
	return (struct timespec){ ns / 1000000000ULL, ns % 1000000000ULL };
}

static void *steal(void *arg)
{
	struct emulate_stealer *st = arg;
	char name[16];
	uint64_t next;

	snprintf(name, sizeof(name), SCHEDSTAT_EMULATE_THREAD_PREFIX "%d", st->cpu);
	pthread_setname_np(pthread_self(), name);
	st->tid = syscall(SYS_gettid);
	/* Placed by the attributes; say so if the kernel put us elsewhere. */
	if (sched_getcpu() != st->cpu)
		st->err = -EINVAL;
	sem_post(&st->ready);
	if (st->err)
		return NULL;

	next = mono_ns();
	while (!atomic_load_explicit(&st->stop, memory_order_relaxed)) {
		/*
		 * The burn is timed from when we really woke: a late wakeup
		 * shifts it, never shortens it.
		 */
		uint64_t now = mono_ns(), end = now + st->burn_ns;
		struct timespec ts;

		while (now < end)
			now = mono_ns();
		next += SCHEDSTAT_EMULATE_PERIOD_NS;
		/* Held off for a whole period (a stop-class task): start over. */
		if (next < now)
			next = now + SCHEDSTAT_EMULATE_PERIOD_NS - st->burn_ns;
		ts = ns_ts(next);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	return NULL;
}

/* Run time of thread @tid of this process, from its schedstat. */
static int thread_run_ns(pid_t tid, uint64_t *run)
{
	char path[64];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fscanf(f, "%" SCNu64, run);
	fclose(f);
	return n == 1 ? 0 : -EIO;
}

static long read_long(const char *path, long dflt)
{
	FILE *f = fopen(path, "r");
	long v;

	if (!f)
		return dflt;
	if (fscanf(f, "%ld", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/*
 * RT throttling gives RT tasks sched_rt_runtime_us of every
 * sched_rt_period_us on each CPU; a stealer needing more would be cut off
 * at the end of each RT period and give CFS a burst it should not have.
 */
static int check_rt_throttling(struct schedstat_emulation *e)
{
	long runtime = read_long("/proc/sys/kernel/sched_rt_runtime_us", -1);
	long period = read_long("/proc/sys/kernel/sched_rt_period_us", 1000000);

	if (runtime < 0 || period <= 0)
		return 0;
	for (int cpu = 0; cpu < e->nr_cpus; cpu++) {
		if (!e->pct[cpu] || e->pct[cpu] >= 100)
			continue;
		if ((100 - e->pct[cpu]) * period > 100 * runtime) {
			emul_error(e, "cpu%d at %u%% needs RT tasks to run %u%% of the time, but sched_rt_runtime_us allows %ld of %ld us: give it a higher percentage",
				  cpu, e->pct[cpu], 100 - e->pct[cpu], runtime, period);
			return -EINVAL;
		}
	}
	return 0;
}

static int start_one(struct schedstat_emulation *e, struct emulate_stealer *st)
{
	struct sched_param sp = { .sched_priority = STEALER_PRIO };
	pthread_attr_t attr;
	sigset_t all, old;
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(st->cpu, &set);
	sem_init(&st->ready, 0, 0);
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	/*
	 * Every signal blocked in the thread (it inherits our mask): they
	 * belong to the main thread's signalfd, and a stealer must not take
	 * a SIGINT meant to end the run cleanly.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&st->thread, &attr, steal, st);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err == -EPERM) {
		emul_error(e, "a SCHED_FIFO stealer thread needs root (or CAP_SYS_NICE): run as root, or use --method cpufreq");
		return err;
	}
	if (err == -EINVAL) {
		emul_error(e, "cannot pin a stealer to cpu%d: is it online and allowed to this process (taskset, cpuset)?",
			  st->cpu);
		return err;
	}
	if (err) {
		emul_error(e, "cannot start a stealer thread for cpu%d: %s", st->cpu, strerror(-err));
		return err;
	}
	st->running = true;
	while (sem_wait(&st->ready) && errno == EINTR)
		;
	if (st->err) {
		emul_error(e, "the stealer for cpu%d did not run there: is it online?", st->cpu);
		return st->err;
	}
	st->mono0_ns = mono_ns();
	if (thread_run_ns(st->tid, &st->run0_ns))
		st->run0_ns = 0;
	return 0;
}

int stealer_start(struct schedstat_emulation *e)
{
	int n = 0, err;

	err = check_rt_throttling(e);
	if (err)
		return err;
	for (int cpu = 0; cpu < e->nr_cpus; cpu++)
		n += e->pct[cpu] && e->pct[cpu] < 100;
	e->stealers = calloc(n, sizeof(*e->stealers));
	if (!e->stealers) {
		emul_error(e, "out of memory");
		return -ENOMEM;
	}
	e->nr_stealers = 0;
	for (int cpu = 0; cpu < e->nr_cpus; cpu++) {
		struct emulate_stealer *st;

		if (!e->pct[cpu] || e->pct[cpu] >= 100)
			continue;
		st = &e->stealers[e->nr_stealers++];
		st->cpu = cpu;
		st->burn_ns = SCHEDSTAT_EMULATE_PERIOD_NS * (100 - e->pct[cpu]) / 100;
		err = start_one(e, st);
		if (err) {
			stealer_stop(e);
			return err;
		}
	}
	return 0;
}

void stealer_stop(struct schedstat_emulation *e)
{
	for (int i = 0; i < e->nr_stealers; i++)
		atomic_store(&e->stealers[i].stop, true);
	for (int i = 0; i < e->nr_stealers; i++) {
		struct emulate_stealer *st = &e->stealers[i];

		if (st->running)
			pthread_join(st->thread, NULL);
		st->running = false;
		sem_destroy(&st->ready);
	}
	free(e->stealers);
	e->stealers = NULL;
	e->nr_stealers = 0;
}

bool stealer_is(const struct schedstat_emulation *e, int tid)
{
	for (int i = 0; i < e->nr_stealers; i++)
		if (e->stealers[i].tid == tid)
			return true;
	return false;
}

int stealer_measure(const struct schedstat_emulation *e, int *cpu, double *pct, int max)
{
	int n = 0;

	for (int i = 0; i < e->nr_stealers && n < max; i++) {
		const struct emulate_stealer *st = &e->stealers[i];
		uint64_t run, wall = mono_ns() - st->mono0_ns;

		if (!st->running || thread_run_ns(st->tid, &run) || !wall)
			continue;
		cpu[n] = st->cpu;
		pct[n] = 100.0 * (run - st->run0_ns) / wall;
		n++;
	}
	return n;
}
