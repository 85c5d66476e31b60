// SPDX-License-Identifier: GPL-2.0
/*
 * rt-app's events, done by a workload thread as rt-app does them (its
 * src/rt-app.c): a timer's expiry advances by its period from the start
 * of the use case (its first use) and, when the thread comes to it late,
 * starts again from then ("relative") or keeps its grid ("absolute");
 * "suspend" waits on a condition of its name under the mutex of its name,
 * "resume" wakes every thread waiting there and is lost if none is.
 *
 * Unlike rt-app, every wait looks at the stop flag at least every 50 ms,
 * a run looks every millisecond of work, and a thread that stops lets go
 * of the mutexes it holds: a stop never waits for a use case that does
 * not end by itself (docs/workloads.md, "Stopping").
 *
 * Each pass over a phase is one activation (one line of rt-app's log).
 * Its release is when what woke it was due: a timer's expiry, a resume or
 * signal; its work runs from its wake to its last run. A constraint
 * judges it as a timer activation (due by the next expiry), a pass (due
 * some time after its start) or the response to a resume.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload_run.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif
/* uapi linux/sched.h: keep the policy and its parameters, set a clamp. */
#define WL_SCHED_FLAG_KEEP_ALL		0x18
#define WL_SCHED_FLAG_UTIL_CLAMP_MIN	0x20
#define WL_SCHED_FLAG_UTIL_CLAMP_MAX	0x40

/* uapi linux/sched/types.h's struct sched_attr, SCHED_ATTR_SIZE_VER1. */
struct wl_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

uint64_t wl_now(void)
{
	return util_mono_ns();
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool stopping(const struct schedstat_workload_run *r)
{
	return atomic_load_explicit(&r->stop, memory_order_relaxed);
}

bool wl_sleep_until(struct schedstat_workload_run *r, uint64_t t)
{
	while (!stopping(r)) {
		uint64_t now = wl_now(), until = t;
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

void wl_run_fail(struct schedstat_workload_run *r, const char *fmt, ...)
{
	va_list ap;
	bool was = false;

	if (!atomic_compare_exchange_strong(&r->failed, &was, true))
		return;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	atomic_store(&r->stop, true);
}

/* xorshift64*: --seed makes every run's jitter the same. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* @v times a factor in [1 - j, 1 + j). */
static double jittered(struct wl_thread *t, double v, double j)
{
	if (!j)
		return v;
	return v * (1 - j + 2 * j * ((rng_next(&t->rng) >> 11) * (1.0 / 9007199254740992.0)));
}

void wl_add_act(struct wl_thread *t, const struct schedstat_workload_activation *a)
{
	size_t n = atomic_load_explicit(&t->nr, memory_order_relaxed);

	if (n && n % WL_CHUNK_ACTS == 0) {
		struct wl_chunk *c = atomic_exchange(&t->spare, NULL);

		/* Only if the sampler came too late: malloc may take a lock. */
		if (!c)
			c = calloc(1, sizeof(*c));
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

int wl_apply_sched(struct wl_thread *t, const struct wl_sched *s)
{
	const struct schedstat_workload *wl = t->run->wl;
	struct wl_sched_attr a = { .size = sizeof(a) };
	int32_t policy, prio;
	long ret;

	if (!s)
		return 0;
	policy = s->policy != WL_UNSET ? s->policy :
		 t->t->sched.policy != WL_UNSET ? t->t->sched.policy : wl->default_policy;
	prio = s->prio != WL_UNSET ? s->prio : t->t->sched.prio;
	a.sched_policy = policy;
	switch (policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		a.sched_priority = prio != WL_UNSET ? prio : WL_DEFAULT_RT_PRIO;
		break;
	case SCHED_DEADLINE:
		a.sched_runtime = s->dl_runtime ? s->dl_runtime : t->t->sched.dl_runtime;
		a.sched_deadline = s->dl_deadline ? s->dl_deadline : t->t->sched.dl_deadline;
		a.sched_period = s->dl_period ? s->dl_period : t->t->sched.dl_period;
		break;
	default:
		a.sched_nice = prio != WL_UNSET ? prio : 0;
		break;
	}
	ret = syscall(SYS_sched_setattr, 0, &a, 0);
	if (ret) {
		int err = -errno;

		/*
		 * Not root: other policies and raised priorities are refused.
		 * The run goes on at the default policy, and says so; a
		 * deadline refused stops it (its point is the reservation).
		 */
		if (policy == SCHED_DEADLINE || err != -EPERM)
			return err;
		t->policy_refused = true;
	}
	if (policy != SCHED_DEADLINE &&
	    (s->util_min != WL_UNSET || s->util_max != WL_UNSET)) {
		struct wl_sched_attr u = {
			.size = sizeof(u), .sched_policy = policy,
			.sched_flags = WL_SCHED_FLAG_KEEP_ALL,
			.sched_priority = a.sched_priority, .sched_nice = a.sched_nice,
		};

		if (s->util_min != WL_UNSET) {
			u.sched_flags |= WL_SCHED_FLAG_UTIL_CLAMP_MIN;
			u.sched_util_min = s->util_min;
		}
		if (s->util_max != WL_UNSET) {
			u.sched_flags |= WL_SCHED_FLAG_UTIL_CLAMP_MAX;
			u.sched_util_max = s->util_max;
		}
		/* A kernel without CONFIG_UCLAMP_TASK: EOPNOTSUPP; before 5.3: EINVAL. */
		if (syscall(SYS_sched_setattr, 0, &u, 0))
			t->uclamp_unsupported = true;
	}
	t->cur_sched = s;
	return 0;
}

static int apply_cpus(struct wl_thread *t, const struct cpuset *set)
{
	cpu_set_t cs;

	if (!set || set == t->cur_cpus)
		return 0;
	CPU_ZERO(&cs);
	for (int c = 0; c < cpuset_end(set) && c < CPU_SETSIZE; c++)
		if (cpuset_test(set, c))
			CPU_SET(c, &cs);
	/* EINVAL: no CPU of the set is online. */
	if (pthread_setaffinity_np(pthread_self(), sizeof(cs), &cs))
		return -EINVAL;
	t->cur_cpus = set;
	return 0;
}

/* A pass under way: what rt-app logs of it, and what judges it. */
struct pass {
	struct schedstat_workload_activation a;
	const struct wl_judge *judge;
	bool worked;			/* a run, runtime, mem or iorun done */
	bool woken;			/* a wait before the work set its release */
	uint32_t woke_cond;		/* the condition that woke it, or WL_NONE */
	uint64_t work_end;
	/* its last timer, as the thread came to it */
	bool timer_seen, timer_late, timer_relative;
	uint64_t arrival, due, period;
};

/* Before the first work: the thread was woken by something due at @release. */
static void woke(struct pass *p, uint64_t release, uint32_t cond)
{
	if (p->worked)
		return;
	p->woken = true;
	p->a.release = release;
	p->a.start = wl_now();
	p->woke_cond = cond;
}

static void do_work(struct wl_thread *t, struct pass *p, uint64_t loops, bool *stopped)
{
	const struct schedstat_workload_run *r = t->run;
	uint64_t slice = (uint64_t)(WL_WORK_SLICE_NS * r->loops_per_ns) + 1;

	while (loops && !*stopped) {
		uint64_t n = loops < slice ? loops : slice;

		schedstat_workload_work(n, t->rng + p->a.perf);
		p->a.perf += n;
		loops -= n;
		*stopped = stopping(r);
	}
}

static void ev_run(struct wl_thread *t, struct pass *p, const struct wl_event *e,
		   bool *stopped)
{
	const struct schedstat_workload_run *r = t->run;
	double scale = r->o.scale > 0 ? r->o.scale : 1;
	uint64_t t0 = wl_now(), t1;

	if (!p->worked && !p->woken)
		p->a.start = t0;
	p->worked = true;
	p->a.c_duration_us += e->value;
	if (e->type == WL_EV_RUN) {
		double ns = jittered(t, e->value * 1000.0 * scale, r->wl->jitter_run);

		do_work(t, p, (uint64_t)(ns * r->loops_per_ns + 0.5), stopped);
		t1 = wl_now();
	} else {
		/* runtime: by the clock, whatever the CPU's speed. */
		uint64_t until = t0 + (uint64_t)(jittered(t, e->value * 1000.0 * scale,
							  r->wl->jitter_run));
		uint64_t slice = (uint64_t)(WL_RUNTIME_SLICE_NS * r->loops_per_ns) + 1;

		do {
			do_work(t, p, slice, stopped);
			t1 = wl_now();
		} while (t1 < until && !*stopped);
	}
	p->a.run_ns += t1 - t0;
	p->work_end = t1;
}

static struct wl_timer_state *timer_of(struct wl_thread *t, const struct wl_event *e,
				       bool *shared)
{
	const struct wl_res *res = &t->run->wl->res[e->res];

	*shared = !res->unique;
	return res->unique ? &t->utimers[res->slot] : &t->run->res[e->res].timer;
}

static void ev_timer(struct wl_thread *t, struct pass *p, const struct wl_event *e,
		     bool last, bool *stopped)
{
	struct schedstat_workload_run *r = t->run;
	uint64_t period = e->value * 1000, now, due;
	bool shared;
	struct wl_timer_state *ts = timer_of(t, e, &shared);
	int64_t slack;

	p->a.c_period_us += e->value;
	if (shared)
		pthread_mutex_lock(&ts->lock);
	if (!ts->init) {
		ts->init = true;
		ts->next = t->t_first;
	}
	ts->next += period;
	due = ts->next;
	now = wl_now();
	slack = (int64_t)(due - now);
	if (r->wl->cumulative_slack)
		p->a.slack_ns += slack;
	else
		p->a.slack_ns = slack;
	if (now >= due && !e->absolute)
		ts->next = now;		/* late, relative: from now on */
	if (shared)
		pthread_mutex_unlock(&ts->lock);
	if (last) {
		p->timer_seen = true;
		p->arrival = now;
		p->due = due;
		p->period = period;
		p->timer_late = now > due;
		p->timer_relative = !e->absolute;
		if (p->worked)
			p->work_end = now;
	}
	if (now < due) {
		if (!wl_sleep_until(r, due)) {
			*stopped = true;
			return;
		}
		p->a.wu_lat_ns += wl_now() - due;
		woke(p, due, WL_NONE);
	} else {
		p->a.wu_lat_ns = 0;	/* rt-app's: a late timer clears it */
	}
}

/*
 * Waits on @cond with @mutex held (taken again on return), looking at
 * the stop flag: 0 when woken, -ECANCELED when stopped. A wake that came
 * while the thread looked is not lost: the waker holds the same mutex.
 */
static int cond_wait(struct schedstat_workload_run *r, pthread_cond_t *cond,
		     pthread_mutex_t *mutex)
{
	for (;;) {
		uint64_t until = wl_now() + WL_STOP_POLL_NS;
		struct timespec ts = { until / 1000000000ULL, until % 1000000000ULL };
		int err;

		if (stopping(r))
			return -ECANCELED;
		err = pthread_cond_timedwait(cond, mutex, &ts);
		if (err != ETIMEDOUT)
			return 0;
	}
}

/* Takes @m, looking at the stop flag: 0, or -ECANCELED. */
static int mutex_lock(struct schedstat_workload_run *r, pthread_mutex_t *m)
{
	for (;;) {
		struct timespec ts;
		int err;

		if (stopping(r))
			return -ECANCELED;
		/* Realtime: the one clock every kind of mutex (PI too) times out on. */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += WL_STOP_POLL_NS;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		err = pthread_mutex_timedlock(m, &ts);
		if (err != ETIMEDOUT)
			return err ? -err : 0;
	}
}

static void held_add(struct wl_thread *t, uint32_t res)
{
	if (t->nr_held < WL_MAX_HELD)
		t->held[t->nr_held++] = res;
}

static void held_drop(struct wl_thread *t, uint32_t res)
{
	for (size_t i = 0; i < t->nr_held; i++)
		if (t->held[i] == res) {
			t->held[i] = t->held[--t->nr_held];
			return;
		}
}

static void ev_barrier(struct wl_thread *t, struct pass *p, const struct wl_event *e,
		       bool *stopped)
{
	struct schedstat_workload_run *r = t->run;
	struct wl_res_state *b = &r->res[e->res];
	uint32_t users = r->wl->res[e->res].users;

	if (mutex_lock(r, &b->mutex)) {
		*stopped = true;
		return;
	}
	/*
	 * rt-app counts the references to a barrier in the file (times the
	 * instances): the last of them to come lets every one go on. A
	 * generation, not rt-app's bare count, so that a wake-up that is
	 * not one does not let a thread through.
	 */
	if (++b->arrived >= users) {
		b->arrived = 0;
		b->generation++;
		b->last_ns = wl_now();
		pthread_cond_broadcast(&b->cond);
	} else {
		uint64_t gen = b->generation;

		while (b->generation == gen) {
			if (cond_wait(r, &b->cond, &b->mutex)) {
				b->arrived--;
				*stopped = true;
				break;
			}
		}
		if (!*stopped)
			woke(p, b->last_ns, WL_NONE);
	}
	pthread_mutex_unlock(&b->mutex);
}

/* One event; *@stopped when the stop came during it. */
static void do_event(struct wl_thread *t, struct pass *p, size_t i, bool *stopped)
{
	struct schedstat_workload_run *r = t->run;
	const struct wl_phase *ph = &t->t->phases[p->a.phase];
	const struct wl_event *e = &ph->ev[i];
	struct wl_res_state *rs = e->res != WL_NONE ? &r->res[e->res] : NULL;
	struct wl_res_state *ms = e->mutex != WL_NONE ? &r->res[e->mutex] : NULL;
	uint64_t until;

	switch (e->type) {
	case WL_EV_RUN:
	case WL_EV_RUNTIME:
		ev_run(t, p, e, stopped);
		break;
	case WL_EV_SLEEP:
		until = wl_now() + (uint64_t)jittered(t, e->value * 1000.0, r->wl->jitter_sleep);
		if (!wl_sleep_until(r, until))
			*stopped = true;
		else
			woke(p, until, WL_NONE);
		break;
	case WL_EV_TIMER:
		ev_timer(t, p, e, i == ph->last_timer, stopped);
		break;
	case WL_EV_SUSPEND:
		if (mutex_lock(r, &ms->mutex)) {
			*stopped = true;
			break;
		}
		if (cond_wait(r, &rs->cond, &ms->mutex))
			*stopped = true;
		else
			woke(p, atomic_load(&rs->woke_ns), e->res);
		pthread_mutex_unlock(&ms->mutex);
		break;
	case WL_EV_RESUME:
		if (mutex_lock(r, &ms->mutex)) {
			*stopped = true;
			break;
		}
		atomic_store(&rs->woke_ns, wl_now());
		pthread_cond_broadcast(&rs->cond);
		pthread_mutex_unlock(&ms->mutex);
		break;
	case WL_EV_LOCK:
		if (mutex_lock(r, &rs->mutex))
			*stopped = true;
		else
			held_add(t, e->res);
		break;
	case WL_EV_UNLOCK:
		pthread_mutex_unlock(&rs->mutex);
		held_drop(t, e->res);
		break;
	case WL_EV_SIGNAL:
	case WL_EV_BROADCAST:
		atomic_store(&rs->woke_ns, wl_now());
		if (e->type == WL_EV_SIGNAL)
			pthread_cond_signal(&rs->cond);
		else
			pthread_cond_broadcast(&rs->cond);
		break;
	case WL_EV_SYNC:
		atomic_store(&rs->woke_ns, wl_now());
		pthread_cond_signal(&rs->cond);
		/* and waits */
		__attribute__((fallthrough));
	case WL_EV_WAIT:
		if (cond_wait(r, &rs->cond, &ms->mutex))
			*stopped = true;
		else
			woke(p, atomic_load(&rs->woke_ns), e->res);
		break;
	case WL_EV_BARRIER:
		ev_barrier(t, p, e, stopped);
		break;
	case WL_EV_YIELD:
		sched_yield();
		break;
	case WL_EV_MEM:
	case WL_EV_IORUN:
		if (!p->worked && !p->woken)
			p->a.start = wl_now();
		p->worked = true;
		for (uint64_t left = e->value; left && !*stopped;) {
			size_t n = left < r->wl->mem_buffer_size ? left : r->wl->mem_buffer_size;

			if (e->type == WL_EV_MEM) {
				memset(t->mem, (int)left, n);
			} else {
				ssize_t w = write(r->io_fd, t->mem, n);

				if (w <= 0) {
					wl_run_fail(r, "task '%s': iorun: writing %s: %s",
						    t->t->name, r->wl->io_device,
						    w < 0 ? strerror(errno) : "nothing written");
					*stopped = true;
					break;
				}
				n = w;
			}
			left -= n;
			*stopped = stopping(r);
		}
		p->work_end = wl_now();
		break;
	}
}

/* The resume constraint that judges a pass woken by @cond, or NULL. */
static const struct wl_resume_judge *resume_judge(const struct wl_thread *t, uint32_t cond)
{
	const struct schedstat_workload *wl = t->run->wl;

	for (size_t i = 0; cond != WL_NONE && i < wl->nr_resume_judge; i++) {
		const struct wl_resume_judge *j = &wl->resume_judge[i];

		if (j->cond == cond && (j->thread == WL_NONE || j->thread == t->idx))
			return j;
	}
	return NULL;
}

/*
 * The pass as an activation: release, start, end and deadline as the
 * constraint that judges it sees them (@done: the pass ended; else the
 * run stopped during it). Then the releases a late timer let pass.
 */
static void keep_pass(struct wl_thread *t, struct pass *p, bool done)
{
	struct schedstat_workload_activation *a = &p->a;
	const struct wl_judge *j = p->judge;
	const struct wl_resume_judge *rj = NULL;
	uint32_t timer_res = WL_NONE;
	bool timed, first = !t->passed;
	const struct wl_phase *ph = &t->t->phases[a->phase];
	uint64_t dropped = 0;

	if (ph->last_timer != UINT32_MAX)
		timer_res = ph->ev[ph->last_timer].res;
	if (done)
		a->end = p->worked ? p->work_end : a->start;
	a->constraint = SCHEDSTAT_WORKLOAD_UNJUDGED;
	a->deadline = 0;
	/*
	 * Due by its timer's next expiry: a pass whose timer woke the last
	 * one too (after a pass without it, the timer's expiry is that of
	 * an older pass, not what released this one).
	 */
	timed = j && j->constraint != WL_NONE && !j->pass && timer_res != WL_NONE &&
		(first || t->prev_timer == timer_res);
	if (j && j->constraint != WL_NONE && j->pass) {
		a->constraint = j->constraint;
		a->release = a->pass_start;
		a->deadline = a->pass_start + j->deadline_ns;
		if (done)
			a->end = a->pass_end;
	} else if (timed && p->timer_seen) {
		a->constraint = j->constraint;
		a->release = p->due - p->period;
		a->deadline = p->due;
		a->end = p->arrival;
		/* A timer before the work: it was late if the last pass was. */
		if (a->start > a->end)
			a->start = a->pass_start;
		if (p->timer_late && p->timer_relative && p->period)
			dropped = (p->arrival - p->due) / p->period;
	} else if ((rj = resume_judge(t, p->woken ? p->woke_cond : WL_NONE))) {
		a->constraint = rj->constraint;
		a->deadline = a->release + rj->deadline_ns;
	} else if (timed && !done) {
		/*
		 * Stopped before its timer: due at the timer's next expiry,
		 * and so are the releases that passed meanwhile.
		 */
		const struct wl_event *e = &ph->ev[ph->last_timer];
		bool shared;
		struct wl_timer_state *ts = timer_of(t, e, &shared);
		uint64_t next = ts->init ? ts->next : t->t_first, period = e->value * 1000;

		a->constraint = j->constraint;
		a->release = next;
		a->deadline = next + period;
		wl_add_act(t, a);
		for (uint64_t rel = next + period; period && rel < t->run->stop_ns; rel += period) {
			struct schedstat_workload_activation u = *a;

			u.release = rel;
			u.deadline = rel + period;
			u.start = 0;
			wl_add_act(t, &u);
		}
		return;
	}
	if (!done && a->constraint == SCHEDSTAT_WORKLOAD_UNJUDGED)
		return;		/* nothing to judge, nor to log */
	wl_add_act(t, a);
	/* Releases that passed while it was late: dropped, as a display drops frames. */
	for (uint64_t k = 0; k < dropped; k++) {
		struct schedstat_workload_activation d = {
			.release = p->due + k * p->period,
			.deadline = p->due + (k + 1) * p->period,
			.tid = a->tid, .thread = a->thread, .phase = a->phase,
			.constraint = a->constraint, .dropped = true,
		};

		wl_add_act(t, &d);
	}
}

/* A stopped thread lets go of what it holds: the others can stop too. */
static void let_go(struct wl_thread *t)
{
	while (t->nr_held)
		pthread_mutex_unlock(&t->run->res[t->held[--t->nr_held]].mutex);
}

/* One pass over phase @ph; false if the run stopped during it. */
static bool do_pass(struct wl_thread *t, size_t ph)
{
	struct schedstat_workload_run *r = t->run;
	const struct wl_phase *phase = &t->t->phases[ph];
	struct pass p = {
		.a = {
			.tid = t->tid, .thread = t->idx, .phase = ph,
		},
		.judge = &r->wl->judge[r->wl->thread_phase[t->idx] + ph],
		.woke_cond = WL_NONE,
	};
	bool stopped = false;
	uint32_t timer_res;

	p.a.pass_start = p.a.release = p.a.start = wl_now();
	for (size_t i = 0; i < phase->nr_ev && !stopped; i++)
		do_event(t, &p, i, &stopped);
	if (stopped) {
		keep_pass(t, &p, false);
		let_go(t);
		return false;
	}
	p.a.pass_end = wl_now();
	keep_pass(t, &p, true);
	timer_res = phase->last_timer != UINT32_MAX ? phase->ev[phase->last_timer].res :
		    WL_NONE;
	t->prev_timer = timer_res;
	t->passed = true;
	return true;
}

void wl_thread_body(struct wl_thread *t)
{
	const struct wl_task *task = t->t;
	int64_t loop = 0;

	/* rt-app's t_first: the common start, after the task's delay. */
	t->t_first = atomic_load(&t->run->start_ns) + task->delay_us * 1000;
	if (!wl_sleep_until(t->run, t->t_first))
		goto out;
	while (task->loop < 0 || loop < task->loop) {
		for (size_t ph = 0; ph < task->nr_phases; ph++) {
			const struct wl_phase *phase = &task->phases[ph];
			int err;

			/* rt-app's order: the phase's, the task's, where it began. */
			if (apply_cpus(t, phase->cpus ? phase->cpus : task->cpus ? task->cpus :
				       t->run->default_cpus)) {
				wl_run_fail(t->run, "task '%s': phase '%s': cpus: no CPU of them is online",
					    task->name, phase->name);
				goto out;
			}
			if (phase->has_sched && (err = wl_apply_sched(t, &phase->sched))) {
				wl_run_fail(t->run, "task '%s': phase '%s': the kernel refused its policy: %s",
					    task->name, phase->name, strerror(-err));
				goto out;
			}
			for (int64_t k = 0; phase->loop < 0 || k < phase->loop; k++)
				if (!do_pass(t, ph))
					goto out;
		}
		loop++;
	}
out:
	let_go(t);
	t->cpu_ns = thread_cpu_ns();
	atomic_store(&t->done, true);
	atomic_fetch_add(&t->run->nr_done, 1);
}
