// SPDX-License-Identifier: GPL-2.0
/*
 * rt-app's grammar (its doc/tutorial.txt), read from the tree of
 * rtapp_json.c into a workload (workload_local.h). What rt-app does with a
 * key is what schedtop does: an event is any member whose key starts with
 * an event's name ("run3", "runtime1", "timer0", as workgen numbers
 * repeated keys), in file order; "suspend" alone waits on its task's own
 * name. Where rt-app would go on with a guess (a run of a string is a run
 * of 0, a missing "ref" is "unknown", an unknown key is ignored) schedtop
 * refuses the file with one line before anything runs: a run that differs
 * from the file is worse than none.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtapp_json.h"
#include "workload_local.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif

struct pctx {
	struct schedstat_workload *wl;
	const struct rj_doc *d;
	const char *file;
	const char *task, *phase;
	char *err;
	size_t errlen;
	int nr_cpus;		/* CPUs the machine has (rt-app's max_cpu + 1) */
};

/* One line: "FILE:LINE: task 'T': phase 'P': key 'K': what". */
static int refuse(struct pctx *c, const struct rj_node *n, const char *key,
		  const char *fmt, ...)
{
	size_t len = 0;
	va_list ap;

#define PUT(...) do {							\
		int k_ = snprintf(c->err + len, c->errlen - len, __VA_ARGS__); \
		if (k_ > 0)						\
			len = len + k_ < c->errlen ? len + k_ : c->errlen - 1; \
	} while (0)
	if (!c->errlen)
		return -EINVAL;
	c->err[0] = '\0';
	PUT("%s:%u: ", c->file, n ? n->line : 1);
	if (c->task)
		PUT("task '%s': ", c->task);
	if (c->phase)
		PUT("phase '%s': ", c->phase);
	if (key)
		PUT("key '%s': ", key);
#undef PUT
	va_start(ap, fmt);
	vsnprintf(c->err + len, c->errlen - len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *key_of(const struct pctx *c, const struct rj_node *n)
{
	return rj_str(c->d, n->key);
}

/* A key that is no event, given twice in @obj: refused. */
static int once(struct pctx *c, const struct rj_node *obj, const struct rj_node *n)
{
	const struct rj_node *e = rj_earlier(c->d, obj, n);

	if (!e)
		return 0;
	return refuse(c, n, key_of(c, n), "given twice (first on line %u): rt-app would read one of them only",
		      e->line);
}

/* A name as rt-app uses it: in log file names and as a thread's name. */
static int check_name(struct pctx *c, const struct rj_node *n, const char *key,
		      const char *s, const char *what)
{
	size_t len = strlen(s);

	if (!len)
		return refuse(c, n, key, "an empty %s", what);
	if (len > WL_NAME_MAX)
		return refuse(c, n, key, "a %s longer than %d bytes", what, WL_NAME_MAX);
	for (size_t i = 0; i < len; i++)
		if (schedstat_text_unsafe(s[i], false) || s[i] == '/')
			return refuse(c, n, key, "a %s with a control character or '/'", what);
	return 0;
}

static int want_int(struct pctx *c, const struct rj_node *n, const char *key,
		    int64_t min, int64_t max, const char *what, int64_t *v)
{
	if (n->type != RJ_INT)
		return refuse(c, n, key, "%s, not %s", what, rj_type_name(n));
	if (n->i < min || n->i > max) {
		if (n->i < 0 && min >= 0)
			return refuse(c, n, key, "a negative value (%lld): %s",
				      (long long)n->i, what);
		return refuse(c, n, key, "%lld is out of range: %s", (long long)n->i, what);
	}
	*v = n->i;
	return 0;
}

static int want_bool(struct pctx *c, const struct rj_node *n, const char *key, bool *v)
{
	if (n->type != RJ_BOOL)
		return refuse(c, n, key, "true or false, not %s", rj_type_name(n));
	*v = n->b;
	return 0;
}

static int want_str(struct pctx *c, const struct rj_node *n, const char *key,
		    const char *what, const char **v)
{
	if (n->type != RJ_STRING)
		return refuse(c, n, key, "%s (a string), not %s", what, rj_type_name(n));
	*v = rj_str(c->d, n->str);
	return 0;
}

/* The resource of kind @type named @name, created on first use as rt-app does. */
static int res_index(struct pctx *c, const struct rj_node *n, const char *name,
		     int type, uint32_t *idx)
{
	struct schedstat_workload *wl = c->wl;
	struct wl_res *r;

	for (size_t i = 0; i < wl->nr_res; i++)
		if (wl->res[i].type == type && !strcmp(wl->res[i].name, name)) {
			*idx = i;
			return 0;
		}
	if (check_name(c, n, key_of(c, n), name, "resource name"))
		return -EINVAL;
	if (schedstat_array_reserve((void **)&wl->res, &wl->cap_res, wl->nr_res + 1,
				    sizeof(*wl->res)))
		return -ENOMEM;
	r = &wl->res[wl->nr_res];
	memset(r, 0, sizeof(*r));
	r->name = strdup(name);
	if (!r->name)
		return -ENOMEM;
	r->type = type;
	r->line = n->line;
	/* rt-app: a timer named "unique..." is one per thread. */
	if (type == WL_RES_TIMER && !strncmp(name, "unique", 6)) {
		r->unique = true;
		r->slot = wl->nr_unique_timers++;
	}
	*idx = wl->nr_res++;
	return 0;
}

int wl_policy_from_name(const char *s)
{
	static const struct { const char *name; int policy; } map[] = {
		{ "SCHED_OTHER", SCHED_OTHER }, { "SCHED_FIFO", SCHED_FIFO },
		{ "SCHED_RR", SCHED_RR }, { "SCHED_DEADLINE", SCHED_DEADLINE },
		{ "SCHED_BATCH", SCHED_BATCH }, { "SCHED_IDLE", SCHED_IDLE },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(s, map[i].name))
			return map[i].policy;
	return -1;
}

const char *wl_policy_name(int policy)
{
	switch (policy) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	case SCHED_DEADLINE: return "SCHED_DEADLINE";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE: return "SCHED_IDLE";
	}
	return "?";
}

static int parse_policy(struct pctx *c, const struct rj_node *n, int32_t *policy)
{
	const char *s = NULL;

	if (want_str(c, n, key_of(c, n), "a policy", &s))
		return -EINVAL;
	*policy = wl_policy_from_name(s);
	if (*policy < 0)
		return refuse(c, n, key_of(c, n), "unknown policy '%s': SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE, SCHED_BATCH or SCHED_IDLE", s);
	return 0;
}

/* "cpus": [0, 2]: CPUs this machine has (rt-app refuses the others too). */
static int parse_cpus(struct pctx *c, const struct rj_node *n, struct cpuset **out)
{
	struct cpuset *set;

	if (n->type != RJ_ARRAY)
		return refuse(c, n, "cpus", "an array of CPU numbers, not %s", rj_type_name(n));
	if (!n->nr)
		return refuse(c, n, "cpus", "an empty list of CPUs");
	set = calloc(1, sizeof(*set));
	if (!set)
		return -ENOMEM;
	for (const struct rj_node *e = rj_at(c->d, n->child); e; e = rj_at(c->d, e->next)) {
		if (e->type != RJ_INT || e->i < 0) {
			free(set);
			return refuse(c, e, "cpus", "CPU numbers are whole numbers from 0, not %s",
				      e->type == RJ_INT ? "a negative one" : rj_type_name(e));
		}
		if (e->i >= c->nr_cpus || e->i >= SCHEDSTAT_MAX_CPUS) {
			free(set);
			return refuse(c, e, "cpus", "CPU %lld does not exist: this machine has CPUs 0-%d",
				      (long long)e->i, c->nr_cpus - 1);
		}
		cpuset_set(set, e->i);
	}
	*out = set;
	return 0;
}

/* Keys of a task or a phase that set its policy; 1 if @n is none of them. */
static int parse_sched_key(struct pctx *c, const struct rj_node *n, struct wl_sched *s)
{
	const char *key = key_of(c, n);
	int64_t v;

	if (!strcmp(key, "policy"))
		return parse_policy(c, n, &s->policy);
	if (!strcmp(key, "priority")) {
		if (want_int(c, n, key, -20, 99, "a nice value (-20..19) or an RT priority (1..99)", &v))
			return -EINVAL;
		s->prio = v;
		return 0;
	}
	if (!strcmp(key, "dl-runtime") || !strcmp(key, "dl-period") ||
	    !strcmp(key, "dl-deadline")) {
		if (want_int(c, n, key, 0, INT32_MAX, "µs", &v))
			return -EINVAL;
		*(key[3] == 'r' ? &s->dl_runtime : key[3] == 'p' ? &s->dl_period :
		  &s->dl_deadline) = v * 1000;
		return 0;
	}
	if (!strcmp(key, "util_min") || !strcmp(key, "util_max")) {
		if (want_int(c, n, key, 0, SCHEDSTAT_CAPACITY_SCALE, "a utilization 0..1024", &v))
			return -EINVAL;
		*(key[5] == 'm' && key[6] == 'i' ? &s->util_min : &s->util_max) = v;
		return 0;
	}
	return 1;
}

/* The policy a thread ends up with, checked as the kernel would. */
static int check_sched(struct pctx *c, const struct rj_node *at, struct wl_sched *s,
		       int32_t inherit, bool task_level)
{
	int policy = s->policy != WL_UNSET ? s->policy : inherit;

	if (s->prio != WL_UNSET) {
		if ((policy == SCHED_FIFO || policy == SCHED_RR) && (s->prio < 1 || s->prio > 99))
			return refuse(c, at, "priority", "%d: %s takes a priority of 1..99",
				      s->prio, wl_policy_name(policy));
		if ((policy == SCHED_OTHER || policy == SCHED_BATCH) &&
		    (s->prio < -20 || s->prio > 19))
			return refuse(c, at, "priority", "%d: %s takes a nice value of -20..19",
				      s->prio, wl_policy_name(policy));
	}
	if (policy == SCHED_DEADLINE &&
	    (task_level || s->policy != WL_UNSET || s->dl_runtime)) {
		if (!s->dl_period)
			s->dl_period = s->dl_runtime;
		if (!s->dl_deadline)
			s->dl_deadline = s->dl_period;
		if (s->dl_runtime < 1024)
			return refuse(c, at, "dl-runtime", "SCHED_DEADLINE needs a dl-runtime of at least 2 µs");
		if (s->dl_runtime > s->dl_deadline || s->dl_deadline > s->dl_period)
			return refuse(c, at, "dl-deadline", "SCHED_DEADLINE needs dl-runtime <= dl-deadline <= dl-period (%llu, %llu, %llu µs)",
				      (unsigned long long)s->dl_runtime / 1000,
				      (unsigned long long)s->dl_deadline / 1000,
				      (unsigned long long)s->dl_period / 1000);
	}
	if (s->util_min != WL_UNSET && s->util_max != WL_UNSET && s->util_min > s->util_max)
		return refuse(c, at, "util_min", "util_min %d above util_max %d",
			      s->util_min, s->util_max);
	return 0;
}

/*
 * rt-app's events, tried in its order (a key is an event by its prefix);
 * those of later rt-apps come first, to be refused by their name.
 */
#define WL_EV_LATER	0xff

static const struct {
	const char *prefix;
	uint8_t type;
} events[] = {
	{ "memrun", WL_EV_LATER }, { "fork", WL_EV_LATER },
	{ "sem_post", WL_EV_LATER }, { "sem_wait", WL_EV_LATER },
	{ "runtime", WL_EV_RUNTIME }, { "run", WL_EV_RUN }, { "sleep", WL_EV_SLEEP },
	{ "mem", WL_EV_MEM }, { "iorun", WL_EV_IORUN },
	{ "lock", WL_EV_LOCK }, { "unlock", WL_EV_UNLOCK },
	{ "signal", WL_EV_SIGNAL }, { "broad", WL_EV_BROADCAST },
	{ "wait", WL_EV_WAIT }, { "sync", WL_EV_SYNC }, { "barrier", WL_EV_BARRIER },
	{ "timer", WL_EV_TIMER }, { "resume", WL_EV_RESUME },
	{ "suspend", WL_EV_SUSPEND }, { "yield", WL_EV_YIELD },
};

static int event_type(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(events); i++)
		if (!strncmp(key, events[i].prefix, strlen(events[i].prefix)))
			return events[i].type;
	return -1;
}

/* { "ref": "X", "mutex": "M" } of wait and sync. */
static int parse_ref_mutex(struct pctx *c, const struct rj_node *n, struct wl_event *e)
{
	const struct rj_node *ref = rj_get(c->d, n, "ref"), *mtx = rj_get(c->d, n, "mutex");
	const char *key = key_of(c, n), *s = NULL;
	int err;

	if (n->type != RJ_OBJECT)
		return refuse(c, n, key, "{ \"ref\": CONDITION, \"mutex\": MUTEX }, not %s",
			      rj_type_name(n));
	for (const struct rj_node *m = rj_at(c->d, n->child); m; m = rj_at(c->d, m->next)) {
		if (strcmp(key_of(c, m), "ref") && strcmp(key_of(c, m), "mutex"))
			return refuse(c, m, key, "unknown member '%s': it takes ref and mutex",
				      key_of(c, m));
		if (once(c, n, m))
			return -EINVAL;
	}
	if (!ref || !mtx)
		return refuse(c, n, key, "needs both \"ref\" and \"mutex\"");
	if (want_str(c, ref, key, "a condition's name", &s) ||
	    (err = res_index(c, ref, s, WL_RES_COND, &e->res)))
		return -EINVAL;
	if (want_str(c, mtx, key, "a mutex's name", &s))
		return -EINVAL;
	return res_index(c, mtx, s, WL_RES_MUTEX, &e->mutex);
}

static int parse_timer(struct pctx *c, const struct rj_node *n, struct wl_event *e)
{
	const char *key = key_of(c, n), *s = NULL;
	bool have_ref = false, have_period = false;
	int64_t v;
	int err;

	if (n->type != RJ_OBJECT)
		return refuse(c, n, key, "{ \"ref\": NAME, \"period\": µs }, not %s",
			      rj_type_name(n));
	for (const struct rj_node *m = rj_at(c->d, n->child); m; m = rj_at(c->d, m->next)) {
		const char *k = key_of(c, m);

		if (once(c, n, m))
			return -EINVAL;
		if (!strcmp(k, "ref")) {
			if (want_str(c, m, key, "a timer's name", &s) ||
			    (err = res_index(c, m, s, WL_RES_TIMER, &e->res)))
				return -EINVAL;
			have_ref = true;
		} else if (!strcmp(k, "period")) {
			if (want_int(c, m, key, 0, INT32_MAX, "a period in µs", &v))
				return -EINVAL;
			e->value = v;
			have_period = true;
		} else if (!strcmp(k, "mode")) {
			if (want_str(c, m, key, "relative or absolute", &s))
				return -EINVAL;
			if (strcmp(s, "relative") && strcmp(s, "absolute"))
				return refuse(c, m, key, "mode '%s': relative or absolute", s);
			e->absolute = !strcmp(s, "absolute");
		} else {
			return refuse(c, m, key, "unknown member '%s': it takes ref, period and mode", k);
		}
	}
	if (!have_ref || !have_period)
		return refuse(c, n, key, "needs \"ref\" and \"period\"");
	return 0;
}

static int parse_event(struct pctx *c, const struct rj_node *n, int type,
		       struct wl_event *e)
{
	const char *key = key_of(c, n), *s = NULL;
	int64_t v;

	if (type == WL_EV_LATER)
		return refuse(c, n, key, "an event of an rt-app after 1.0 (fork, memrun, sem_post, sem_wait): schedtop runs 1.0's run, runtime, sleep, timer, suspend, resume, lock, unlock, wait, signal, broad, sync, barrier, yield, mem and iorun");
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->line = n->line;
	e->res = e->mutex = WL_NONE;
	if (n->type == RJ_BARE && type != WL_EV_SUSPEND && type != WL_EV_YIELD)
		return refuse(c, n, key, "has no value (only \"suspend\" and \"yield\" may stand alone)");
	switch (type) {
	case WL_EV_RUN:
	case WL_EV_RUNTIME:
	case WL_EV_SLEEP:
		if (want_int(c, n, key, 0, INT32_MAX, "a duration in µs", &v))
			return -EINVAL;
		e->value = v;
		return 0;
	case WL_EV_MEM:
	case WL_EV_IORUN:
		if (want_int(c, n, key, 0, INT32_MAX, "a size in bytes", &v))
			return -EINVAL;
		e->value = v;
		return 0;
	case WL_EV_LOCK:
	case WL_EV_UNLOCK:
		if (want_str(c, n, key, "a mutex's name", &s))
			return -EINVAL;
		return res_index(c, n, s, WL_RES_MUTEX, &e->res);
	case WL_EV_SIGNAL:
	case WL_EV_BROADCAST:
		if (want_str(c, n, key, "a condition's name", &s))
			return -EINVAL;
		return res_index(c, n, s, WL_RES_COND, &e->res);
	case WL_EV_WAIT:
	case WL_EV_SYNC:
		return parse_ref_mutex(c, n, e);
	case WL_EV_BARRIER:
		if (want_str(c, n, key, "a barrier's name", &s))
			return -EINVAL;
		return res_index(c, n, s, WL_RES_BARRIER, &e->res);
	case WL_EV_TIMER:
		return parse_timer(c, n, e);
	case WL_EV_SUSPEND:
	case WL_EV_RESUME:
		/* workgen gives a bare "suspend" its own task's name. */
		if (n->type == RJ_BARE)
			s = c->task;
		else if (want_str(c, n, key, "a name to wait on", &s))
			return -EINVAL;
		if (res_index(c, n, s, WL_RES_COND, &e->res))
			return -EINVAL;
		return res_index(c, n, s, WL_RES_MUTEX, &e->mutex);
	case WL_EV_YIELD:
		return 0;
	}
	return refuse(c, n, key, "unknown event");
}

/*
 * Locks of one phase as its events take them: each taken before it is
 * let go or waited with, and let go by the phase's end, so that every
 * pass (and a stopped run) leaves them free. A thread cannot take a mutex
 * it holds: it would wait for itself.
 */
static int check_locks(struct pctx *c, const struct rj_node *pn, struct wl_phase *p)
{
	uint32_t held[64];
	size_t nr = 0;

	for (size_t i = 0; i < p->nr_ev; i++) {
		const struct wl_event *e = &p->ev[i];
		const char *name = e->res != WL_NONE ? c->wl->res[e->res].name : "";
		struct rj_node at = { .line = e->line };
		size_t k;

		switch (e->type) {
		case WL_EV_LOCK:
			for (k = 0; k < nr && held[k] != e->res; k++)
				;
			if (k < nr)
				return refuse(c, &at, "lock", "'%s' is held already: the thread would wait for itself", name);
			if (nr == ARRAY_SIZE(held))
				return refuse(c, &at, "lock", "more than %zu mutexes held at once", ARRAY_SIZE(held));
			held[nr++] = e->res;
			break;
		case WL_EV_UNLOCK:
			for (k = 0; k < nr && held[k] != e->res; k++)
				;
			if (k == nr)
				return refuse(c, &at, "unlock", "'%s' is not held here (lock it earlier in the same phase)", name);
			held[k] = held[--nr];
			break;
		case WL_EV_WAIT:
		case WL_EV_SYNC:
			for (k = 0; k < nr && held[k] != e->mutex; k++)
				;
			if (k == nr)
				return refuse(c, &at, e->type == WL_EV_WAIT ? "wait" : "sync",
					      "waits with mutex '%s', which is not held here (lock it first)",
					      c->wl->res[e->mutex].name);
			break;
		case WL_EV_SUSPEND:
		case WL_EV_RESUME:
			for (k = 0; k < nr && held[k] != e->mutex; k++)
				;
			if (k < nr)
				return refuse(c, &at, e->type == WL_EV_SUSPEND ? "suspend" : "resume",
					      "takes mutex '%s', which is held here: the thread would wait for itself",
					      name);
			break;
		}
	}
	if (nr)
		return refuse(c, pn, "lock", "'%s' is still held at the end of the phase: unlock it in the same phase",
			      c->wl->res[held[0]].name);
	return 0;
}

/* Legacy keys: rt-app's first grammar (doc/examples/merge, taskset.json). */
static bool legacy_key(const char *k)
{
	return !strcmp(k, "exec") || !strcmp(k, "period") || !strcmp(k, "deadline") ||
	       !strcmp(k, "lock_order") || !strcmp(k, "resources");
}

/*
 * A phase from the members of @obj (a phase, or a task without phases):
 * its events in order and its own keys; @task_level: @obj is the task's.
 */
static int parse_phase(struct pctx *c, const struct rj_node *obj, struct wl_phase *p,
		       bool task_level)
{
	size_t cap = 0;
	int err;

	p->line = obj->line;
	p->loop = 1;
	p->last_timer = UINT32_MAX;
	p->sched = (struct wl_sched){ .policy = WL_UNSET, .prio = WL_UNSET,
				      .util_min = WL_UNSET, .util_max = WL_UNSET };
	for (const struct rj_node *n = rj_at(c->d, obj->child); n; n = rj_at(c->d, n->next)) {
		const char *key = key_of(c, n);
		int type = event_type(key);
		int64_t v;

		if (type >= 0) {
			if (p->nr_ev >= WL_MAX_EVENTS)
				return refuse(c, n, key, "more than %d events in one phase", WL_MAX_EVENTS);
			if (schedstat_array_reserve((void **)&p->ev, &cap, p->nr_ev + 1, sizeof(*p->ev)))
				return -ENOMEM;
			if ((err = parse_event(c, n, type, &p->ev[p->nr_ev])))
				return err;
			if (type == WL_EV_TIMER)
				p->last_timer = p->nr_ev;
			p->nr_ev++;
			continue;
		}
		if (once(c, obj, n))
			return -EINVAL;
		if (!strcmp(key, "loop")) {
			if (want_int(c, n, key, -1, INT32_MAX, "-1 (for ever) or a number of passes", &v))
				return -EINVAL;
			if (v == 0)
				return refuse(c, n, key, "a loop of 0 would never end its phase (rt-app counts up to it): give -1 or a number of passes");
			p->loop = v;
			continue;
		}
		if (task_level)
			continue;	/* the task's own keys: parse_task() */
		if (!strcmp(key, "cpus")) {
			if ((err = parse_cpus(c, n, &p->cpus)))
				return err;
			continue;
		}
		err = parse_sched_key(c, n, &p->sched);
		if (err <= 0) {
			if (err)
				return err;
			p->has_sched = true;
			continue;
		}
		if (legacy_key(key))
			return refuse(c, n, key, "rt-app's old grammar (exec, period, lock_order, resources) is not supported: write its events (run, timer, lock, ...)");
		return refuse(c, n, key, "schedtop does not support this key in a phase");
	}
	if (!p->nr_ev)
		return refuse(c, obj, NULL, "no event: a pass of it would do nothing, for ever");
	return check_locks(c, obj, p);
}

static int parse_task(struct pctx *c, const struct rj_node *tn, struct wl_task *t)
{
	const struct rj_node *phases = rj_get(c->d, tn, "phases");
	struct wl_sched *s = &t->sched;
	bool have_loop = false;
	int err;

	t->line = tn->line;
	t->instances = 1;
	t->loop = -1;
	*s = (struct wl_sched){ .policy = WL_UNSET, .prio = WL_UNSET,
				.util_min = WL_UNSET, .util_max = WL_UNSET };
	if (tn->type != RJ_OBJECT)
		return refuse(c, tn, NULL, "a task is an object of events, not %s", rj_type_name(tn));
	for (const struct rj_node *n = rj_at(c->d, tn->child); n; n = rj_at(c->d, n->next)) {
		const char *key = key_of(c, n);
		int64_t v;

		if (event_type(key) >= 0) {
			if (phases)
				return refuse(c, n, key, "an event beside \"phases\" (rt-app ignores it): move it into a phase");
			continue;
		}
		if (once(c, tn, n))
			return -EINVAL;
		if (!strcmp(key, "phases") || (!strcmp(key, "loop") && (have_loop = true)))
			continue;
		if (!strcmp(key, "instance")) {
			if (want_int(c, n, key, 1, SCHEDSTAT_WORKLOAD_MAX_THREADS, "a number of threads, 1 or more", &v))
				return -EINVAL;
			t->instances = v;
		} else if (!strcmp(key, "delay")) {
			if (want_int(c, n, key, 0, INT32_MAX, "µs before its first event", &v))
				return -EINVAL;
			t->delay_us = v;
		} else if (!strcmp(key, "cpus")) {
			if ((err = parse_cpus(c, n, &t->cpus)))
				return err;
		} else if ((err = parse_sched_key(c, n, s)) <= 0) {
			if (err)
				return err;
		} else if (legacy_key(key)) {
			return refuse(c, n, key, "rt-app's old grammar (exec, period, lock_order, resources) is not supported: write its events (run, timer, lock, ...)");
		} else {
			return refuse(c, n, key, "schedtop does not support this key in a task");
		}
	}
	if ((err = check_sched(c, tn, s, c->wl->default_policy, true)))
		return err;
	if (phases) {
		size_t cap = 0;
		const struct rj_node *loop = rj_get(c->d, tn, "loop");
		int64_t v;

		if (phases->type != RJ_OBJECT)
			return refuse(c, phases, "phases", "an object of phases, not %s", rj_type_name(phases));
		if (!phases->nr)
			return refuse(c, phases, "phases", "no phase");
		if (loop) {
			if (want_int(c, loop, "loop", -1, INT32_MAX, "-1 (for ever) or a number of passes", &v))
				return -EINVAL;
			if (!v)
				return refuse(c, loop, "loop", "a loop of 0 would never end (rt-app counts up to it): give -1 or a number of passes");
			t->loop = v;
		}
		for (const struct rj_node *pn = rj_at(c->d, phases->child); pn;
		     pn = rj_at(c->d, pn->next)) {
			struct wl_phase *p;

			if (t->nr_phases >= WL_MAX_PHASES)
				return refuse(c, pn, NULL, "more than %d phases", WL_MAX_PHASES);
			if (schedstat_array_reserve((void **)&t->phases, &cap, t->nr_phases + 1,
						    sizeof(*t->phases)))
				return -ENOMEM;
			p = &t->phases[t->nr_phases++];
			memset(p, 0, sizeof(*p));
			c->phase = key_of(c, pn);
			if ((err = check_name(c, pn, NULL, c->phase, "phase name")))
				return err;
			p->name = strdup(c->phase);
			if (!p->name)
				return -ENOMEM;
			if (pn->type != RJ_OBJECT)
				return refuse(c, pn, NULL, "a phase is an object of events, not %s",
					      rj_type_name(pn));
			if ((err = parse_phase(c, pn, p, false)))
				return err;
			if (p->has_sched &&
			    (err = check_sched(c, pn, &p->sched,
					       s->policy != WL_UNSET ? s->policy : c->wl->default_policy,
					       false)))
				return err;
		}
		c->phase = NULL;
		return 0;
	}
	/*
	 * No phases: the task is its one phase. Its "loop" is the number of
	 * passes, as the tutorial says and rt-app after 1.0 does (1.0 went
	 * on for ever); none: for ever.
	 */
	t->phases = calloc(1, sizeof(*t->phases));
	if (!t->phases)
		return -ENOMEM;
	t->nr_phases = 1;
	t->phases[0].name = strdup(c->task);
	if (!t->phases[0].name)
		return -ENOMEM;
	if ((err = parse_phase(c, tn, &t->phases[0], true)))
		return err;
	t->loop = have_loop ? 1 : -1;
	if (!have_loop)
		t->phases[0].loop = 1;
	return 0;
}

static int parse_tasks(struct pctx *c, const struct rj_node *tasks)
{
	struct schedstat_workload *wl = c->wl;
	size_t threads = 0;
	int err;

	if (!tasks)
		return refuse(c, NULL, "tasks", "no \"tasks\": an rt-app use case needs its tasks");
	if (tasks->type != RJ_OBJECT)
		return refuse(c, tasks, "tasks", "an object of tasks, not %s", rj_type_name(tasks));
	if (!tasks->nr)
		return refuse(c, tasks, "tasks", "no task");
	/* Threads first, so that 10,000 tasks are refused before any is read. */
	for (const struct rj_node *tn = rj_at(c->d, tasks->child); tn; tn = rj_at(c->d, tn->next)) {
		const struct rj_node *inst = rj_get(c->d, tn, "instance");

		threads += inst && inst->type == RJ_INT && inst->i > 0 &&
			   inst->i <= SCHEDSTAT_WORKLOAD_MAX_THREADS ? inst->i : 1;
		if (threads > SCHEDSTAT_WORKLOAD_MAX_THREADS) {
			c->task = key_of(c, tn);
			return refuse(c, tn, NULL, "more than %d threads (%u tasks%s): schedtop runs at most %d",
				      SCHEDSTAT_WORKLOAD_MAX_THREADS, tasks->nr,
				      inst ? " and their instances" : "",
				      SCHEDSTAT_WORKLOAD_MAX_THREADS);
		}
	}
	wl->tasks = calloc(tasks->nr, sizeof(*wl->tasks));
	wl->thread_task = calloc(threads, sizeof(*wl->thread_task));
	if (!wl->tasks || !wl->thread_task)
		return -ENOMEM;
	for (const struct rj_node *tn = rj_at(c->d, tasks->child); tn; tn = rj_at(c->d, tn->next)) {
		struct wl_task *t = &wl->tasks[wl->nr_tasks];

		c->task = key_of(c, tn);
		if ((err = check_name(c, tn, NULL, c->task, "task name")))
			return err;
		for (size_t i = 0; i < wl->nr_tasks; i++)
			if (!strcmp(wl->tasks[i].name, c->task))
				return refuse(c, tn, NULL, "named twice (first on line %u): give each task its own name",
					      wl->tasks[i].line);
		t->name = strdup(c->task);
		if (!t->name)
			return -ENOMEM;
		/* What comm holds: rt-app's own name fails past 15 bytes. */
		snprintf(t->comm, sizeof(t->comm), "%s", c->task);
		wl->nr_tasks++;
		if ((err = parse_task(c, tn, t)))
			return err;
		t->first_thread = wl->nr_threads;
		for (uint32_t k = 0; k < t->instances; k++)
			wl->thread_task[wl->nr_threads++] = wl->nr_tasks - 1;
	}
	c->task = NULL;
	return 0;
}

static int parse_global(struct pctx *c, const struct rj_node *g)
{
	struct schedstat_workload *wl = c->wl;
	const char *s = NULL;
	int64_t v;
	bool b;

	if (!g)
		return 0;
	if (g->type != RJ_OBJECT)
		return refuse(c, g, "global", "an object, not %s", rj_type_name(g));
	for (const struct rj_node *n = rj_at(c->d, g->child); n; n = rj_at(c->d, n->next)) {
		const char *key = key_of(c, n);

		if (once(c, g, n))
			return -EINVAL;
		if (!strcmp(key, "duration")) {
			if (want_int(c, n, key, -1, INT32_MAX, "seconds, or -1 until the threads end", &v))
				return -EINVAL;
			wl->duration_s = v > 0 ? v : 0;
		} else if (!strcmp(key, "calibration")) {
			if (n->type == RJ_INT) {
				if (n->i <= 0 || n->i > 1000000)
					return refuse(c, n, key, "%lld: ns per loop, 1 to 1000000",
						      (long long)n->i);
				wl->calib_cpu = -1;
				wl->calib_ns_per_loop = n->i;
			} else {
				int cpu, len = 0;

				if (want_str(c, n, key, "\"CPUn\" or ns per loop", &s))
					return -EINVAL;
				if (sscanf(s, "CPU%d%n", &cpu, &len) != 1 || s[len] || cpu < 0)
					return refuse(c, n, key, "'%s': \"CPUn\" (the CPU a run's µs are measured on) or a number of ns per loop", s);
				if (cpu >= c->nr_cpus)
					return refuse(c, n, key, "CPU%d does not exist: this machine has CPUs 0-%d",
						      cpu, c->nr_cpus - 1);
				wl->calib_cpu = cpu;
			}
		} else if (!strcmp(key, "default_policy")) {
			if (parse_policy(c, n, &wl->default_policy))
				return -EINVAL;
		} else if (!strcmp(key, "pi_enabled")) {
			if (want_bool(c, n, key, &wl->pi_enabled))
				return -EINVAL;
		} else if (!strcmp(key, "lock_pages")) {
			if (want_bool(c, n, key, &wl->lock_pages))
				return -EINVAL;
		} else if (!strcmp(key, "cumulative_slack")) {
			if (want_bool(c, n, key, &wl->cumulative_slack))
				return -EINVAL;
		} else if (!strcmp(key, "log_basename")) {
			if (want_str(c, n, key, "a file name prefix", &s) ||
			    check_name(c, n, key, s, "log name"))
				return -EINVAL;
			free(wl->log_basename);
			wl->log_basename = strdup(s);
			if (!wl->log_basename)
				return -ENOMEM;
		} else if (!strcmp(key, "io_device")) {
			if (want_str(c, n, key, "a file to write", &s))
				return -EINVAL;
			free(wl->io_device);
			wl->io_device = strdup(s);
			if (!wl->io_device)
				return -ENOMEM;
		} else if (!strcmp(key, "mem_buffer_size")) {
			if (want_int(c, n, key, 1, WL_MAX_MEM_BUF, "bytes, up to 256 MiB", &v))
				return -EINVAL;
			wl->mem_buffer_size = v;
		} else if (!strcmp(key, "ftrace") || !strcmp(key, "gnuplot")) {
			/*
			 * Trace markers and plots are rt-app's own output; a
			 * schedtop run is recorded with --record instead.
			 */
			if (n->type != RJ_STRING && want_bool(c, n, key, &b))
				return -EINVAL;
		} else if (!strcmp(key, "logdir") || !strcmp(key, "log_size") ||
			   !strcmp(key, "frag")) {
			/* Logs go where --rt-app-log says; frag is rt-app 0.x's, unused since. */
			if (n->type != RJ_STRING && n->type != RJ_INT)
				return refuse(c, n, key, "a string or a number, not %s", rj_type_name(n));
		} else {
			return refuse(c, n, key, "schedtop does not support this key in \"global\"");
		}
	}
	return 0;
}

/*
 * Names that wait: a resume wakes the threads suspended on its name (and
 * those that wait on the condition of that name); with none, it is a
 * mistake, and rt-app would run it silently.
 */
static int check_resumes(struct pctx *c)
{
	struct schedstat_workload *wl = c->wl;

	for (size_t t = 0; t < wl->nr_tasks; t++)
		for (size_t p = 0; p < wl->tasks[t].nr_phases; p++)
			for (size_t i = 0; i < wl->tasks[t].phases[p].nr_ev; i++) {
				const struct wl_event *e = &wl->tasks[t].phases[p].ev[i];

				if (e->type == WL_EV_SUSPEND || e->type == WL_EV_WAIT ||
				    e->type == WL_EV_SYNC)
					wl->res[e->res].suspenders += wl->tasks[t].instances;
				if (e->type == WL_EV_BARRIER)
					wl->res[e->res].users += wl->tasks[t].instances;
			}
	for (size_t t = 0; t < wl->nr_tasks; t++)
		for (size_t p = 0; p < wl->tasks[t].nr_phases; p++)
			for (size_t i = 0; i < wl->tasks[t].phases[p].nr_ev; i++) {
				const struct wl_event *e = &wl->tasks[t].phases[p].ev[i];
				struct rj_node at = { .line = e->line };

				if (e->type != WL_EV_RESUME || wl->res[e->res].suspenders)
					continue;
				c->task = wl->tasks[t].name;
				c->phase = wl->tasks[t].nr_phases > 1 ? wl->tasks[t].phases[p].name : NULL;
				return refuse(c, &at, "resume", "no task suspends on '%s' (a bare \"suspend\" waits on its own task's name)",
					      wl->res[e->res].name);
			}
	return 0;
}

int wl_parse(struct schedstat_workload *wl, const char *text, size_t len,
	     const char *origin, char *err, size_t errlen)
{
	struct rj_doc d;
	struct pctx c = {
		.wl = wl, .d = &d, .file = origin, .err = err, .errlen = errlen,
	};
	const struct rj_node *root;
	char jerr[SCHEDSTAT_WORKLOAD_ERR_LEN];
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int ret;

	c.nr_cpus = n > 0 ? n : 1;
	/* rt-app's defaults where "global" says nothing. */
	wl->default_policy = SCHED_OTHER;
	wl->calib_cpu = 0;
	wl->lock_pages = true;
	wl->mem_buffer_size = WL_DEFAULT_MEM_BUF;
	wl->miss_ratio = 0.01;
	ret = rj_parse(&d, text, len, jerr, sizeof(jerr));
	if (ret) {
		if (ret == -EINVAL)
			snprintf(err, errlen, "%s:%s", origin, jerr);
		else
			snprintf(err, errlen, "%s: %s", origin, strerror(-ret));
		return ret;
	}
	root = rj_at(&d, 0);
	for (const struct rj_node *m = rj_at(&d, root->child); m; m = rj_at(&d, m->next)) {
		const char *k = key_of(&c, m);

		if (strcmp(k, "tasks") && strcmp(k, "global") && strcmp(k, "schedtop") &&
		    strcmp(k, "resources")) {
			ret = refuse(&c, m, k, "not an rt-app section (tasks, global, resources) nor schedtop's");
			goto out;
		}
		if ((ret = once(&c, root, m)))
			goto out;
	}
	/*
	 * "resources" is the old grammar's list; rt-app 1.0 still takes it
	 * but makes its resources as events name them, so it changes
	 * nothing: its tasks decide (the old ones are refused there).
	 */
	if ((ret = parse_global(&c, rj_get(&d, root, "global"))) ||
	    (ret = parse_tasks(&c, rj_get(&d, root, "tasks"))) ||
	    (ret = check_resumes(&c)))
		goto out;
	if (!wl->log_basename && !(wl->log_basename = strdup("rt-app"))) {
		ret = -ENOMEM;
		goto out;
	}
	if (!wl->io_device && !(wl->io_device = strdup("/dev/null"))) {
		ret = -ENOMEM;
		goto out;
	}
	if ((ret = wl_constraints_parse(wl, &d, rj_get(&d, root, "schedtop"), err, errlen)))
		goto out;
	ret = wl_constraints_default(wl, err, errlen);
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", origin);
	rj_free(&d);
	return ret;
}
