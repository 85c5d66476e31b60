// SPDX-License-Identifier: GPL-2.0
/*
 * The workload's threads. Each activation is released at a planned time
 * (CLOCK_MONOTONIC, absolute: no drift), and its start and end are read
 * around the work, so response = end - release and slack = deadline - end
 * (docs/workloads.md). A thread still busy when its next release has
 * passed drops that frame, as a display pipeline does.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "workload.h"

/* Activations that judge no constraint of their own (page load helpers). */
#define WL_NO_CONSTRAINT	0xffff
/* Longest sleep between looks at the stop flag. */
#define WL_STOP_POLL_NS		50000000ULL

struct wl_thread {
	struct wl_run *run;
	size_t idx;
	const struct wl_thread_spec *spec;
	pthread_t th;
	bool started;
	_Atomic int32_t tid;
	uint64_t cpu_ns;
	bool policy_failed;
	uint64_t rng;
	struct wl_activation *acts;
	size_t nr, cap;
	size_t drained;		/* acts[0..drained) handed to wl_run_drain() */
	int err;
};

struct wl_run {
	struct wl_run_opts o;
	cpu_set_t cpus;
	bool have_cpus;
	size_t nr_threads;
	struct wl_thread threads[WL_MAX_THREADS];
	atomic_bool stop;
	uint64_t start_ns, stop_ns;
	/* browse: a page load handed to the helpers. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* Guards every thread's acts against the sampling thread's drain. */
	pthread_mutex_t acts_lock;
	unsigned int load_gen, helpers_done;
	uint64_t load_release, load_deadline, load_end;
	struct wl_activation *all;
	size_t nr_all;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Sleeps until @t, waking at least every WL_STOP_POLL_NS; false if stopped. */
static bool sleep_until(struct wl_run *r, uint64_t t)
{
	while (!atomic_load(&r->stop)) {
		uint64_t now = now_ns(), until = t;
		struct timespec ts;

		if (now >= t)
			return true;
		if (until - now > WL_STOP_POLL_NS)
			until = now + WL_STOP_POLL_NS;
		ts.tv_sec = until / 1000000000ULL;
		ts.tv_nsec = until % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return false;
}

/* xorshift64*: --seed makes every run's jitter and pauses the same. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* A number in [0, 1). */
static double rng_unit(uint64_t *s)
{
	return (rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* The units of @ms of work, scaled, with +-10% jitter (frames vary). */
static uint64_t units_for(struct wl_thread *t, double ms)
{
	double j = 0.9 + 0.2 * rng_unit(&t->rng);

	return (uint64_t)(ms * t->run->o.units_per_ms * t->run->o.scale * j + 0.5);
}

static void add_act(struct wl_thread *t, const struct wl_activation *a)
{
	pthread_mutex_lock(&t->run->acts_lock);
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct wl_activation *n = realloc(t->acts, cap * sizeof(*n));

		if (!n) {
			t->err = -ENOMEM;
			pthread_mutex_unlock(&t->run->acts_lock);
			return;
		}
		t->acts = n;
		t->cap = cap;
	}
	t->acts[t->nr++] = *a;
	pthread_mutex_unlock(&t->run->acts_lock);
}

/*
 * Settled by @upto: done by then, or dropped and due by then. Each
 * thread keeps its activations in release order and ends them in that
 * order, so the first one not settled holds back the rest.
 */
static bool settled(const struct wl_activation *a, uint64_t upto)
{
	if (a->dropped)
		return a->deadline <= upto;
	return a->end && a->end <= upto;
}

int wl_run_drain(struct wl_run *r, uint64_t upto, bool final,
		 int (*fn)(const struct wl_activation *a, void *ctx), void *ctx)
{
	int err = 0;

	pthread_mutex_lock(&r->acts_lock);
	for (size_t i = 0; i < r->nr_threads && !err; i++) {
		struct wl_thread *t = &r->threads[i];

		while (t->drained < t->nr && !err) {
			struct wl_activation a = t->acts[t->drained];

			if (!settled(&a, upto)) {
				if (!final)
					break;
				/*
				 * The end of the run: released and due by then
				 * but not done is missed, as a dropped one; not
				 * yet due, or released after it, is not judged.
				 */
				if (a.release >= upto || a.deadline > upto) {
					t->drained++;
					continue;
				}
				a.dropped = true;
				a.start = a.end = 0;
			}
			t->drained++;
			err = fn(&a, ctx);
		}
		if (!err)
			err = t->err;
	}
	pthread_mutex_unlock(&r->acts_lock);
	return err;
}

/*
 * Stopped before release @rel was done: it and the releases after it up
 * to the stop are kept unfinished (end 0), so that the run can judge
 * those due by its end rather than forget them (a thread starved at the
 * end would otherwise look as if it had kept up).
 */
static void keep_unfinished(struct wl_thread *t, uint64_t rel, uint64_t period,
			    uint64_t deadline, unsigned int left, uint16_t constraint)
{
	for (; left && rel < t->run->stop_ns; left--, rel += period) {
		struct wl_activation a = {
			.release = rel, .deadline = rel + deadline, .tid = t->tid,
			.thread = t->idx, .constraint = constraint,
		};

		add_act(t, &a);
	}
}

/*
 * Frames from @first every @period ns; @count 0: until stopped. Each is
 * due @deadline ns after its release.
 */
static void run_frames(struct wl_thread *t, uint64_t first, uint64_t period,
		       uint64_t deadline, unsigned int count, double work_ms,
		       uint16_t constraint)
{
	uint64_t rel = first;

	for (unsigned int k = 0; !count || k < count; k++) {
		struct wl_activation a = {
			.tid = t->tid, .thread = t->idx, .constraint = constraint,
		};
		uint64_t now;

		if (!sleep_until(t->run, rel)) {
			keep_unfinished(t, rel, period, deadline,
					count ? count - k : UINT_MAX, constraint);
			return;
		}
		now = now_ns();
		/* Releases that passed while the last frame ran: dropped. */
		while (now >= rel + period && (!count || k < count)) {
			a.release = rel;
			a.deadline = rel + deadline;
			a.dropped = true;
			add_act(t, &a);
			rel += period;
			k++;
		}
		if (count && k >= count)
			return;
		a.dropped = false;
		a.release = rel;
		a.deadline = rel + deadline;
		a.start = now;
		wl_work(units_for(t, work_ms), rel);
		a.end = now_ns();
		add_act(t, &a);
		rel += period;
	}
}

static void run_periodic(struct wl_thread *t)
{
	const struct wl_thread_spec *sp = t->spec;

	run_frames(t, t->run->start_ns + (uint64_t)(sp->offset_ms * 1e6),
		   (uint64_t)(sp->period_ms * 1e6), (uint64_t)(sp->deadline_ms * 1e6),
		   0, sp->work_ms, sp->constraint);
}

/*
 * browse: a tap releases a page load that this thread and the helpers
 * share; it ends when the last of them is done. Then scrolling, then
 * reading (no work at all), and the next tap.
 */
static void run_page_loads(struct wl_thread *t)
{
	struct wl_run *r = t->run;
	const struct workload *wl = r->o.wl;
	const struct wl_thread_spec *sp = t->spec;
	size_t helpers = r->nr_threads - 1;

	while (!atomic_load(&r->stop)) {
		/* The page load is constraint 0 of the browse workload. */
		struct wl_activation a = { .tid = t->tid, .thread = t->idx };
		uint64_t end, pause;

		pthread_mutex_lock(&r->lock);
		r->load_release = now_ns();
		r->load_deadline = r->load_release +
				   (uint64_t)(wl->constraints[0].limit * 1e6);
		r->load_end = 0;
		r->helpers_done = 0;
		r->load_gen++;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		a.release = r->load_release;
		a.deadline = r->load_deadline;
		a.start = now_ns();
		wl_work(units_for(t, wl->load_work_ms), a.release);
		end = now_ns();
		pthread_mutex_lock(&r->lock);
		while (r->helpers_done < helpers && !atomic_load(&r->stop))
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->helpers_done < helpers) {
			/* Stopped during the load: kept unfinished (end 0). */
			pthread_mutex_unlock(&r->lock);
			add_act(t, &a);
			return;
		}
		a.end = end > r->load_end ? end : r->load_end;
		pthread_mutex_unlock(&r->lock);
		add_act(t, &a);
		end = now_ns();
		run_frames(t, end, (uint64_t)(sp->period_ms * 1e6),
			   (uint64_t)(sp->deadline_ms * 1e6), wl->scroll_frames,
			   sp->work_ms, sp->constraint);
		pause = (uint64_t)((wl->read_min_ms + (wl->read_max_ms - wl->read_min_ms) *
				    rng_unit(&t->rng)) * 1e6);
		if (!sleep_until(r, now_ns() + pause))
			return;
	}
}

static void run_helper(struct wl_thread *t)
{
	struct wl_run *r = t->run;
	unsigned int seen = 0;

	for (;;) {
		struct wl_activation a = {
			.tid = t->tid, .thread = t->idx, .constraint = WL_NO_CONSTRAINT,
		};

		pthread_mutex_lock(&r->lock);
		while (!atomic_load(&r->stop) && r->load_gen == seen)
			pthread_cond_wait(&r->cond, &r->lock);
		seen = r->load_gen;
		a.release = r->load_release;
		a.deadline = r->load_deadline;
		pthread_mutex_unlock(&r->lock);
		if (atomic_load(&r->stop))
			return;
		a.start = now_ns();
		wl_work(units_for(t, r->o.wl->load_work_ms), a.release + t->idx);
		a.end = now_ns();
		add_act(t, &a);
		pthread_mutex_lock(&r->lock);
		if (a.end > r->load_end)
			r->load_end = a.end;
		r->helpers_done++;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
	}
}

static void *thread_main(void *arg)
{
	struct wl_thread *t = arg;

	/* The name the live view, top and /proc show: the point of it. */
	pthread_setname_np(pthread_self(), t->spec->comm);
	atomic_store(&t->tid, (int32_t)syscall(SYS_gettid));
	if (t->spec->fifo_prio) {
		struct sched_param sp = { .sched_priority = t->spec->fifo_prio };

		t->policy_failed = sched_setscheduler(0, SCHED_FIFO, &sp) != 0;
	} else if (t->spec->nice) {
		t->policy_failed = setpriority(PRIO_PROCESS, 0, t->spec->nice) != 0;
	}
	switch (t->spec->role) {
	case WL_PERIODIC:
		run_periodic(t);
		break;
	case WL_PAGE_LOAD:
		run_page_loads(t);
		break;
	case WL_HELPER:
		run_helper(t);
		break;
	}
	t->cpu_ns = thread_cpu_ns();
	return NULL;
}

/* "0-3,6" into @set; -EINVAL on anything else. */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a >= CPU_SETSIZE)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= CPU_SETSIZE)
				return -EINVAL;
			s = end;
		}
		for (long c = a; c <= b; c++)
			CPU_SET(c, set);
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return CPU_COUNT(set) ? 0 : -EINVAL;
}

int wl_run_start(struct wl_run **out, const struct wl_run_opts *o)
{
	pthread_attr_t attr;
	struct wl_run *r;
	int err;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->o = *o;
	r->nr_threads = o->wl->nr_threads;
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->acts_lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	if (o->cpus) {
		if (parse_cpus(o->cpus, &r->cpus)) {
			free(r);
			return -EINVAL;
		}
		r->have_cpus = true;
	}
	pthread_attr_init(&attr);
	if (r->have_cpus)
		pthread_attr_setaffinity_np(&attr, sizeof(r->cpus), &r->cpus);
	/* A little ahead, so that every thread is up for its first release. */
	r->start_ns = now_ns() + 20000000ULL;
	for (size_t i = 0; i < r->nr_threads; i++) {
		struct wl_thread *t = &r->threads[i];

		t->run = r;
		t->idx = i;
		t->spec = &o->wl->threads[i];
		t->rng = (o->seed + 1) * 0x9E3779B97F4A7C15ULL + i;
		/* Affinity from birth: a refused --cpus fails here, said once. */
		err = pthread_create(&t->th, r->have_cpus ? &attr : NULL, thread_main, t);
		if (err) {
			pthread_attr_destroy(&attr);
			wl_run_stop(r);
			wl_run_free(r);
			/* EINVAL from the affinity: no CPU of the list is online. */
			return err == EINVAL ? -ENXIO : -err;
		}
		t->started = true;
	}
	pthread_attr_destroy(&attr);
	*out = r;
	return 0;
}

void wl_run_stop(struct wl_run *r)
{
	if (!r || atomic_load(&r->stop))
		return;
	r->stop_ns = now_ns();
	pthread_mutex_lock(&r->lock);
	atomic_store(&r->stop, true);
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	for (size_t i = 0; i < r->nr_threads; i++)
		if (r->threads[i].started)
			pthread_join(r->threads[i].th, NULL);
}

static int act_cmp(const void *a, const void *b)
{
	const struct wl_activation *x = a, *y = b;

	return (x->release > y->release) - (x->release < y->release);
}

const struct wl_activation *wl_run_activations(struct wl_run *r, size_t *nr)
{
	size_t n = 0;

	if (!r->all) {
		for (size_t i = 0; i < r->nr_threads; i++)
			n += r->threads[i].nr;
		r->all = calloc(n ? n : 1, sizeof(*r->all));
		if (!r->all) {
			*nr = 0;
			return NULL;
		}
		for (size_t i = 0; i < r->nr_threads; i++) {
			struct wl_thread *t = &r->threads[i];

			/* Only what was released before the stop belongs to the run. */
			for (size_t k = 0; k < t->nr; k++)
				if (t->acts[k].release < r->stop_ns)
					r->all[r->nr_all++] = t->acts[k];
		}
		qsort(r->all, r->nr_all, sizeof(*r->all), act_cmp);
	}
	*nr = r->nr_all;
	return r->all;
}

int32_t wl_run_tid(const struct wl_run *r, size_t thread)
{
	return atomic_load(&((struct wl_run *)r)->threads[thread].tid);
}

size_t wl_run_policy_failures(const struct wl_run *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nr_threads; i++)
		n += r->threads[i].policy_failed;
	return n;
}

uint64_t wl_run_cpu_ns(const struct wl_run *r, size_t thread)
{
	return r->threads[thread].cpu_ns;
}

void wl_run_free(struct wl_run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr_threads; i++)
		free(r->threads[i].acts);
	free(r->all);
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->acts_lock);
	pthread_cond_destroy(&r->cond);
	free(r);
}
