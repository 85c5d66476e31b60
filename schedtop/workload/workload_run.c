// SPDX-License-Identifier: GPL-2.0
/*
 * The workload's threads. Each activation is released at a planned time
 * (CLOCK_MONOTONIC, absolute: no drift), and its start and end are read
 * around the work, so response = end - release and slack = deadline - end
 * (docs/workloads.md). A thread still busy when its next release has
 * passed drops that frame, as a display pipeline does.
 *
 * A thread hands each activation to the sampling thread without a lock:
 * the sampling thread runs at the caller's policy (SCHED_OTHER), and a
 * lock it held while preempted by other work kept a SCHED_FIFO thread
 * waiting behind it, past its next release (an inversion of priority
 * that Android's audio avoids with lock-free FIFOs for the same reason).
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
/*
 * The start: its threads look for it every ms; it is planned 20 ms ahead
 * once they are all up, or after a second if one is not (starved: it
 * drops what passed before it came).
 */
#define WL_START_POLL_NS	1000000ULL
#define WL_START_WAIT_POLLS	1000
#define WL_START_LEAD_NS	20000000ULL
/* Activations per chunk: 4 s of audio's 4 ms periods, 48 KiB. */
#define WL_CHUNK_ACTS		1024

/*
 * A thread's activations, in chunks: the thread (the one writer) fills
 * its last chunk and links the next; readers follow the links up to the
 * count it published. Nothing is moved once written, so no reader ever
 * waits for the writer nor the writer for a reader.
 */
struct wl_chunk {
	struct wl_chunk *_Atomic next;
	struct wl_activation acts[WL_CHUNK_ACTS];
};

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
	/* Written by the thread alone; nr published with release order. */
	struct wl_chunk *first, *last;
	_Atomic size_t nr;
	/*
	 * A chunk the sampling thread allocated ahead (each drain puts one
	 * back), so that the thread need not call malloc(), which may wait
	 * on a lock too; it does only if a drain came too late.
	 */
	struct wl_chunk *_Atomic spare;
	/*
	 * The sampling thread's place: the next activation to drain, in
	 * drain_chunk, whose first is activation drain_base.
	 */
	size_t drained, drain_base;
	struct wl_chunk *drain_chunk;
	_Atomic int err;
};

struct wl_run {
	struct wl_run_opts o;
	cpu_set_t cpus;
	bool have_cpus;
	size_t nr_threads;
	struct wl_thread threads[WL_MAX_THREADS];
	atomic_bool stop;
	/*
	 * The first releases are planned once every thread is up at its
	 * policy and waits for them (nr_ready): start_ns, 0 until then.
	 */
	atomic_size_t nr_ready;
	_Atomic uint64_t start_ns;
	uint64_t stop_ns;
	/* browse: a page load handed to the helpers. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
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

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	nanosleep(&ts, NULL);
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

/* A zeroed chunk, its pages touched now rather than by a workload thread. */
static struct wl_chunk *chunk_new(void)
{
	struct wl_chunk *c = malloc(sizeof(*c));

	if (c)
		memset(c, 0, sizeof(*c));
	return c;
}

static void add_act(struct wl_thread *t, const struct wl_activation *a)
{
	size_t n = atomic_load_explicit(&t->nr, memory_order_relaxed);

	if (n && n % WL_CHUNK_ACTS == 0) {
		struct wl_chunk *c = atomic_exchange(&t->spare, NULL);

		if (!c)
			c = chunk_new();
		if (!c) {
			atomic_store(&t->err, -ENOMEM);
			return;
		}
		atomic_store_explicit(&t->last->next, c, memory_order_release);
		t->last = c;
	}
	t->last->acts[n % WL_CHUNK_ACTS] = *a;
	/* The activation and any new link are written before the count. */
	atomic_store_explicit(&t->nr, n + 1, memory_order_release);
}

/*
 * The thread's activation @k (below a count it published, read with
 * acquire order), from @chunk holding activation @base on, which it
 * moves on to the chunk holding @k: the walk of a reader who goes on.
 */
static const struct wl_activation *act_at(struct wl_chunk **chunk,
					  size_t *base, size_t k)
{
	while (k >= *base + WL_CHUNK_ACTS) {
		*chunk = atomic_load_explicit(&(*chunk)->next,
					      memory_order_acquire);
		*base += WL_CHUNK_ACTS;
	}
	return &(*chunk)->acts[k - *base];
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

	for (size_t i = 0; i < r->nr_threads && !err; i++) {
		struct wl_thread *t = &r->threads[i];
		size_t nr = atomic_load_explicit(&t->nr, memory_order_acquire);

		/* The thread takes it when its chunk is full: one ahead. */
		if (!atomic_load(&t->spare))
			atomic_store(&t->spare, chunk_new());
		while (t->drained < nr && !err) {
			struct wl_activation a = *act_at(&t->drain_chunk,
							 &t->drain_base,
							 t->drained);

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
			err = atomic_load(&t->err);
	}
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

	run_frames(t, atomic_load(&t->run->start_ns) + (uint64_t)(sp->offset_ms * 1e6),
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
	/*
	 * Polled, not woken: a wakeup from the starting thread would wait
	 * for it, and it may be starved (a lock it held did just that).
	 */
	atomic_fetch_add(&t->run->nr_ready, 1);
	while (!atomic_load(&t->run->start_ns)) {
		if (atomic_load(&t->run->stop))
			return NULL;	/* another thread failed to start */
		sleep_ns(WL_START_POLL_NS);
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
	for (size_t i = 0; i < r->nr_threads; i++) {
		struct wl_thread *t = &r->threads[i];

		t->run = r;
		t->idx = i;
		t->spec = &o->wl->threads[i];
		t->rng = (o->seed + 1) * 0x9E3779B97F4A7C15ULL + i;
		t->first = t->last = t->drain_chunk = chunk_new();
		t->spare = chunk_new();
		if (!t->first || !t->spare) {
			pthread_attr_destroy(&attr);
			wl_run_stop(r);
			wl_run_free(r);
			return -ENOMEM;
		}
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
	/*
	 * Planned once every thread is up at its policy, a little ahead: a
	 * thread created late (this one starved by other work) would
	 * otherwise drop releases that passed before it existed, misses of
	 * schedtop's start rather than of the scheduler (seen with this
	 * thread at SCHED_IDLE beside busy loops: 7 to 115 at the start).
	 */
	for (int i = 0; i < WL_START_WAIT_POLLS &&
	     atomic_load(&r->nr_ready) < r->nr_threads; i++)
		sleep_ns(WL_START_POLL_NS);
	atomic_store(&r->start_ns, now_ns() + WL_START_LEAD_NS);
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

	/* After wl_run_stop(): the threads are gone, their counts final. */
	if (!r->all) {
		for (size_t i = 0; i < r->nr_threads; i++)
			n += atomic_load(&r->threads[i].nr);
		r->all = calloc(n ? n : 1, sizeof(*r->all));
		if (!r->all) {
			*nr = 0;
			return NULL;
		}
		for (size_t i = 0; i < r->nr_threads; i++) {
			struct wl_thread *t = &r->threads[i];
			struct wl_chunk *c = t->first;
			size_t base = 0, count = atomic_load(&t->nr);

			/* Only what was released before the stop belongs to the run. */
			for (size_t k = 0; k < count; k++) {
				const struct wl_activation *a = act_at(&c, &base, k);

				if (a->release < r->stop_ns)
					r->all[r->nr_all++] = *a;
			}
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
	for (size_t i = 0; i < r->nr_threads; i++) {
		struct wl_chunk *c = r->threads[i].first;

		while (c) {
			struct wl_chunk *next = atomic_load(&c->next);

			free(c);
			c = next;
		}
		free(atomic_load(&r->threads[i].spare));
	}
	free(r->all);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	free(r);
}
