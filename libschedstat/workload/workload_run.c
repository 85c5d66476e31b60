// SPDX-License-Identifier: GPL-2.0
/*
 * A workload's threads, from their start to their end: each is set up
 * (name, affinity, policy, uclamp) before any of them begins, so that a
 * refusal stops the run before anything ran, and they begin together
 * (rt-app's barrier; here a start planned 20 ms ahead once every thread
 * is ready, docs/workloads.md).
 *
 * The sampling thread takes their activations without a lock: it runs at
 * the caller's policy, and a lock it held while preempted kept a
 * SCHED_FIFO thread waiting behind it past its next release (an inversion
 * of priority that Android's audio avoids with lock-free FIFOs too).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload_run.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif
/*
 * The start: threads look for it every ms; it is planned 20 ms ahead once
 * they are all set up, or after WL_START_WAIT_POLLS if one is starved (it
 * then drops what passed before it came).
 */
#define WL_START_POLL_NS	1000000ULL
#define WL_START_WAIT_POLLS	5000
#define WL_START_LEAD_NS	20000000ULL
/* A workload thread needs little stack: its events keep nothing there. */
#define WL_STACK_SIZE		(256u << 10)

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	nanosleep(&ts, NULL);
}

static int setup_thread(struct wl_thread *t)
{
	struct schedstat_workload_run *r = t->run;
	const struct wl_task *task = t->t;
	cpu_set_t cs;
	int err;

	/* The name the live view, top and /proc show: rt-app's own. */
	pthread_setname_np(pthread_self(), task->comm);
	atomic_store(&t->tid, (int32_t)syscall(SYS_gettid));
	CPU_ZERO(&cs);
	if (task->cpus || r->default_cpus) {
		const struct cpuset *set = task->cpus ? task->cpus : r->default_cpus;

		for (int c = 0; c < cpuset_end(set) && c < CPU_SETSIZE; c++)
			if (cpuset_test(set, c))
				CPU_SET(c, &cs);
		if (pthread_setaffinity_np(pthread_self(), sizeof(cs), &cs)) {
			t->setup_step = WL_SETUP_CPUS;
			return -EINVAL;
		}
		t->cur_cpus = set;
	}
	/* The first phase's policy if it has one, else the task's. */
	err = wl_apply_sched(t, task->phases[0].has_sched ? &task->phases[0].sched :
			     &task->sched);
	if (err) {
		t->setup_step = WL_SETUP_POLICY;
		return err;
	}
	if (r->wl->nr_unique_timers) {
		t->utimers = calloc(r->wl->nr_unique_timers, sizeof(*t->utimers));
		if (!t->utimers) {
			t->setup_step = WL_SETUP_MEMORY;
			return -ENOMEM;
		}
	}
	for (size_t p = 0; p < task->nr_phases && !t->mem; p++)
		for (size_t i = 0; i < task->phases[p].nr_ev && !t->mem; i++)
			if (task->phases[p].ev[i].type == WL_EV_MEM ||
			    task->phases[p].ev[i].type == WL_EV_IORUN) {
				/* Touched now, not during the first event. */
				t->mem = calloc(1, r->wl->mem_buffer_size);
				if (!t->mem) {
					t->setup_step = WL_SETUP_MEMORY;
					return -ENOMEM;
				}
			}
	return 0;
}

static void *thread_main(void *arg)
{
	struct wl_thread *t = arg;
	struct schedstat_workload_run *r = t->run;
	int err = setup_thread(t);

	t->setup_err = err;
	atomic_store(&t->setup_done, err ? -1 : 1);
	atomic_fetch_add(&r->nr_ready, 1);
	if (err) {
		atomic_store(&t->done, true);
		atomic_fetch_add(&r->nr_done, 1);
		return NULL;
	}
	/*
	 * Polled, not woken: a wakeup from the starting thread would wait
	 * for it, and it may be starved.
	 */
	while (!atomic_load(&r->start_ns)) {
		if (atomic_load(&r->stop)) {
			atomic_store(&t->done, true);
			atomic_fetch_add(&r->nr_done, 1);
			return NULL;
		}
		sleep_ns(WL_START_POLL_NS);
	}
	wl_thread_body(t);
	return NULL;
}

/*
 * The first thread that could not be set up, as one line; -ENXIO when
 * it was the caller's CPU list that had no CPU online.
 */
static int setup_error(struct schedstat_workload_run *r, char *err, size_t errlen)
{
	for (size_t i = 0; i < r->nr_threads; i++) {
		const struct wl_thread *t = &r->threads[i];
		const struct wl_task *task = t->t;
		const struct wl_sched *s = task->phases[0].has_sched ? &task->phases[0].sched :
					   &task->sched;
		int policy = s->policy != WL_UNSET ? s->policy : task->sched.policy != WL_UNSET ?
			     task->sched.policy : r->wl->default_policy;

		if (atomic_load(&t->setup_done) >= 0)
			continue;
		switch (t->setup_step) {
		case WL_SETUP_CPUS:
			if (!task->cpus) {
				snprintf(err, errlen, "no CPU of %s is online (/sys/devices/system/cpu/online)",
					 r->o.cpus);
				return -ENXIO;
			}
			snprintf(err, errlen, "%s:%u: task '%s': key 'cpus': no CPU of them is online (/sys/devices/system/cpu/online)",
				 r->wl->origin, task->line, task->name);
			return -EINVAL;
		case WL_SETUP_POLICY:
			if (policy == SCHED_DEADLINE)
				snprintf(err, errlen, "%s:%u: task '%s': the kernel refused SCHED_DEADLINE (runtime %llu, deadline %llu, period %llu µs): %s%s",
					 r->wl->origin, task->line, task->name,
					 (unsigned long long)s->dl_runtime / 1000,
					 (unsigned long long)s->dl_deadline / 1000,
					 (unsigned long long)s->dl_period / 1000,
					 strerror(-t->setup_err),
					 t->setup_err == -EBUSY ? ": the deadline tasks' bandwidth would pass sched_rt_runtime_us" :
					 t->setup_err == -EPERM ? ": it needs root, and the CPUs of its whole root domain" : "");
			else
				snprintf(err, errlen, "%s:%u: task '%s': the kernel refused %s: %s",
					 r->wl->origin, task->line, task->name,
					 wl_policy_name(policy), strerror(-t->setup_err));
			return t->setup_err;
		default:
			snprintf(err, errlen, "%s: task '%s': %s", r->wl->origin, task->name,
				 strerror(-t->setup_err));
			return t->setup_err;
		}
	}
	return 0;
}

/* pthread_mutexattr for the use case: priority inheritance with pi_enabled. */
static int init_resources(struct schedstat_workload_run *r)
{
	const struct schedstat_workload *wl = r->wl;
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;

	r->res = calloc(wl->nr_res ? wl->nr_res : 1, sizeof(*r->res));
	if (!r->res)
		return -ENOMEM;
	pthread_mutexattr_init(&ma);
	if (wl->pi_enabled)
		pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	for (size_t i = 0; i < wl->nr_res; i++) {
		pthread_mutex_init(&r->res[i].mutex, &ma);
		pthread_cond_init(&r->res[i].cond, &ca);
		pthread_mutex_init(&r->res[i].timer.lock, NULL);
	}
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_destroy(&ca);
	return 0;
}

static bool needs_io(const struct schedstat_workload *wl, bool *rt)
{
	bool io = false;

	*rt = false;
	for (size_t t = 0; t < wl->nr_tasks; t++) {
		const struct wl_task *task = &wl->tasks[t];
		int policy = task->sched.policy != WL_UNSET ? task->sched.policy :
			     wl->default_policy;

		*rt |= policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE;
		for (size_t p = 0; p < task->nr_phases; p++) {
			*rt |= task->phases[p].has_sched &&
			       task->phases[p].sched.policy != WL_UNSET &&
			       task->phases[p].sched.policy != SCHED_OTHER;
			for (size_t i = 0; i < task->phases[p].nr_ev; i++)
				io |= task->phases[p].ev[i].type == WL_EV_IORUN;
		}
	}
	return io;
}

int schedstat_workload_start(struct schedstat_workload_run **out,
			     const struct schedstat_workload *wl,
			     const struct schedstat_workload_opts *opts,
			     char *err, size_t errlen)
{
	struct schedstat_workload_run *r;
	pthread_attr_t attr;
	bool rt;
	int ret;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (!(opts->ns_per_loop > 0)) {
		snprintf(err, errlen, "no calibration: ns per loop must be above 0");
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->wl = wl;
	r->o = *opts;
	r->io_fd = -1;
	r->loops_per_ns = 1.0 / opts->ns_per_loop;
	r->nr_threads = wl->nr_threads;
	r->threads = calloc(r->nr_threads, sizeof(*r->threads));
	if (!r->threads || (ret = init_resources(r))) {
		ret = -ENOMEM;
		goto fail;
	}
	r->default_cpus = calloc(1, sizeof(*r->default_cpus));
	if (!r->default_cpus) {
		ret = -ENOMEM;
		goto fail;
	}
	if (!opts->cpus) {
		/* Where the caller runs: a phase after one with "cpus" goes back there. */
		cpu_set_t cs;

		if (!sched_getaffinity(0, sizeof(cs), &cs))
			for (int c = 0; c < CPU_SETSIZE && c < SCHEDSTAT_MAX_CPUS; c++)
				if (CPU_ISSET(c, &cs))
					cpuset_set(r->default_cpus, c);
		if (!cpuset_count(r->default_cpus)) {
			free(r->default_cpus);
			r->default_cpus = NULL;
		}
	} else {
		if (cpulist_parse(opts->cpus, r->default_cpus) ||
		    !cpuset_count(r->default_cpus)) {
			snprintf(err, errlen, "bad CPU list '%s': e.g. 1 or 0-3,6", opts->cpus);
			ret = -ERANGE;
			goto fail;
		}
	}
	if (needs_io(wl, &rt)) {
		r->io_fd = open(wl->io_device, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (r->io_fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: io_device %s: %s", wl->origin, wl->io_device,
				 strerror(-ret));
			goto fail;
		}
	}
	if (opts->log_dir && (ret = wl_log_open(r, err, errlen)))
		goto fail;
	/*
	 * rt-app's lock_pages, for its threads that are not SCHED_OTHER: the
	 * whole process here, unlocked again at the stop.
	 */
	if (wl->lock_pages && rt) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE))
			r->lock_pages_refused = true;
		else
			r->locked_pages = true;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WL_STACK_SIZE);
	for (size_t i = 0; i < r->nr_threads; i++) {
		struct wl_thread *t = &r->threads[i];

		t->run = r;
		t->idx = i;
		t->t = &wl->tasks[wl->thread_task[i]];
		t->rng = (opts->seed + 1) * 0x9E3779B97F4A7C15ULL + i;
		t->first = t->last = t->drain_chunk = calloc(1, sizeof(*t->first));
		if (!t->first) {
			ret = -ENOMEM;
			break;
		}
		ret = -pthread_create(&t->th, &attr, thread_main, t);
		if (ret) {
			snprintf(err, errlen, "cannot create thread %zu of %zu: %s", i + 1,
				 r->nr_threads, strerror(-ret));
			break;
		}
		t->started = true;
	}
	pthread_attr_destroy(&attr);
	/*
	 * Every thread set up (or refused) before any begins: a starved one
	 * is waited for 5 s, and then the others go without it.
	 */
	for (int i = 0; !ret && i < WL_START_WAIT_POLLS &&
	     atomic_load(&r->nr_ready) < r->nr_threads; i++)
		sleep_ns(WL_START_POLL_NS);
	if (!ret)
		ret = setup_error(r, err, errlen);
	if (ret)
		goto fail;
	atomic_store(&r->start_ns, wl_now() + WL_START_LEAD_NS);
	*out = r;
	return 0;
fail:
	if (ret == -ENOMEM && errlen && !err[0])
		snprintf(err, errlen, "out of memory");
	schedstat_workload_stop(r);
	schedstat_workload_run_free(r);
	return ret;
}

void schedstat_workload_stop(struct schedstat_workload_run *r)
{
	if (!r || r->stopped)
		return;
	r->stopped = true;
	r->stop_ns = wl_now();
	atomic_store(&r->stop, true);
	for (size_t i = 0; i < r->nr_threads; i++)
		if (r->threads[i].started)
			pthread_join(r->threads[i].th, NULL);
	if (r->locked_pages) {
		munlockall();
		r->locked_pages = false;
	}
}

bool schedstat_workload_done(const struct schedstat_workload_run *r)
{
	return atomic_load(&((struct schedstat_workload_run *)r)->nr_done) >= r->nr_threads;
}

const char *schedstat_workload_error(const struct schedstat_workload_run *r)
{
	return atomic_load(&((struct schedstat_workload_run *)r)->failed) ? r->error : NULL;
}

/*
 * The thread's activation @k (below a count it published, read with
 * acquire order), from @chunk holding activation @base on, which it moves
 * on to the chunk holding @k.
 */
static const struct schedstat_workload_activation *act_at(struct wl_chunk **chunk,
							  size_t *base, size_t k)
{
	while (k >= *base + WL_CHUNK_ACTS) {
		*chunk = atomic_load_explicit(&(*chunk)->next, memory_order_acquire);
		*base += WL_CHUNK_ACTS;
	}
	return &(*chunk)->acts[k - *base];
}

/*
 * Settled by @upto: done by then, or dropped and due by then. A thread
 * keeps its activations in release order and ends them in that order, so
 * the first one not settled holds back the rest.
 */
static bool settled(const struct schedstat_workload_activation *a, uint64_t upto)
{
	if (a->dropped)
		return a->deadline <= upto;
	return a->end && a->end <= upto;
}

int schedstat_workload_drain(struct schedstat_workload_run *r, uint64_t upto,
			     bool final,
			     int (*fn)(const struct schedstat_workload_activation *a,
				       void *ctx),
			     void *ctx)
{
	int err = 0;

	if (atomic_load(&r->failed))
		return -ECANCELED;
	for (size_t i = 0; i < r->nr_threads && !err; i++) {
		struct wl_thread *t = &r->threads[i];
		size_t nr = atomic_load_explicit(&t->nr, memory_order_acquire);

		/* The thread takes it when its chunk is full: one ahead. */
		if (!final && !atomic_load(&t->spare))
			atomic_store(&t->spare, calloc(1, sizeof(struct wl_chunk)));
		while (t->drained < nr && !err) {
			struct schedstat_workload_activation a = *act_at(&t->drain_chunk,
									 &t->drain_base,
									 t->drained);

			if (!settled(&a, upto)) {
				if (!final)
					break;
				/* rt-app's log has every pass done. */
				if (!a.dropped && a.end)
					wl_log_pass(t, &a);
				/*
				 * The end of the run: released and due by then
				 * but not done is missed, as a dropped one; not
				 * yet due, or released after it, is not judged.
				 */
				t->drained++;
				if (a.constraint == SCHEDSTAT_WORKLOAD_UNJUDGED ||
				    a.release >= upto || a.deadline > upto)
					continue;
				a.dropped = true;
				a.start = a.end = 0;
				err = fn(&a, ctx);
				continue;
			}
			t->drained++;
			if (!a.dropped)
				wl_log_pass(t, &a);
			err = fn(&a, ctx);
		}
		if (!err)
			err = atomic_load(&t->err);
	}
	return err;
}

static int act_cmp(const void *a, const void *b)
{
	const struct schedstat_workload_activation *x = a, *y = b;

	return (x->release > y->release) - (x->release < y->release);
}

const struct schedstat_workload_activation *
schedstat_workload_activations(struct schedstat_workload_run *r, size_t *nr)
{
	size_t n = 0;

	/* After the stop: the threads are gone, their counts final. */
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
				const struct schedstat_workload_activation *a = act_at(&c, &base, k);

				if (a->release < r->stop_ns)
					r->all[r->nr_all++] = *a;
			}
		}
		qsort(r->all, r->nr_all, sizeof(*r->all), act_cmp);
	}
	*nr = r->nr_all;
	return r->all;
}

int32_t schedstat_workload_tid(const struct schedstat_workload_run *r, size_t thread)
{
	return thread < r->nr_threads ?
	       atomic_load(&((struct schedstat_workload_run *)r)->threads[thread].tid) : 0;
}

uint64_t schedstat_workload_cpu_ns(const struct schedstat_workload_run *r, size_t thread)
{
	return thread < r->nr_threads ? r->threads[thread].cpu_ns : 0;
}

void schedstat_workload_notes(const struct schedstat_workload_run *r,
			      struct schedstat_workload_notes *notes)
{
	memset(notes, 0, sizeof(*notes));
	for (size_t i = 0; i < r->nr_threads; i++) {
		notes->policy_refused += r->threads[i].policy_refused;
		notes->uclamp_unsupported += r->threads[i].uclamp_unsupported;
	}
	notes->lock_pages_refused = r->lock_pages_refused;
}

void schedstat_workload_run_free(struct schedstat_workload_run *r)
{
	if (!r)
		return;
	wl_log_close(r);
	for (size_t i = 0; r->threads && i < r->nr_threads; i++) {
		struct wl_chunk *c = r->threads[i].first;

		while (c) {
			struct wl_chunk *next = atomic_load(&c->next);

			free(c);
			c = next;
		}
		free(atomic_load(&r->threads[i].spare));
		free(r->threads[i].utimers);
		free(r->threads[i].mem);
	}
	for (size_t i = 0; r->res && i < r->wl->nr_res; i++) {
		pthread_mutex_destroy(&r->res[i].mutex);
		pthread_cond_destroy(&r->res[i].cond);
		pthread_mutex_destroy(&r->res[i].timer.lock);
	}
	if (r->io_fd >= 0)
		close(r->io_fd);
	free(r->res);
	free(r->threads);
	free(r->default_cpus);
	free(r->all);
	free(r);
}
