// SPDX-License-Identifier: GPL-2.0
/*
 * What a use case must achieve: schedtop's own member of the file,
 * "schedtop", which rt-app never reads (it takes "tasks", "global" and
 * "resources" from the top and nothing else), and the default for every
 * thread a timer wakes: each activation done by the next timer release,
 * at most 1% late or dropped (docs/workloads.md, "Constraints").
 *
 *   "schedtop": {
 *       "description": "...",
 *       "miss_ratio": 0.01,
 *       "jitter": { "run": 0.1, "sleep": 0.33 },
 *       "constraints": [
 *           { "name": "page load", "task": "browse-render", "phase": "load",
 *             "max_response_us": 500000, "why": "..." },
 *           { "task": "T", "max_miss_ratio": 0.05 },
 *           { "resume": "X", "deadline_us": 2000, "max_miss_ratio": 0.01 }
 *       ]
 *   }
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtapp_json.h"
#include "workload_local.h"

struct cctx {
	struct schedstat_workload *wl;
	const struct rj_doc *d;
	char *err;
	size_t errlen;
};

static int refuse(struct cctx *c, const struct rj_node *n, const char *key,
		  const char *fmt, ...)
{
	va_list ap;
	int len;

	len = snprintf(c->err, c->errlen, "%s:%u: key 'schedtop'%s%s%s: ", c->wl->origin,
		       n ? n->line : 1, key ? ": '" : "", key ? key : "", key ? "'" : "");
	if (len < 0 || (size_t)len >= c->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(c->err + len, c->errlen - len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int add_constraint(struct schedstat_workload *wl, const char *name,
			  const char *why, enum schedstat_workload_kind kind,
			  double limit, uint32_t *idx)
{
	struct schedstat_workload_constraint *k;

	if (wl->nr_cons >= SCHEDSTAT_WORKLOAD_MAX_CONSTRAINTS)
		return -E2BIG;
	if (schedstat_array_reserve((void **)&wl->cons, &wl->cap_cons, wl->nr_cons + 1,
				    sizeof(*wl->cons)))
		return -ENOMEM;
	k = &wl->cons[wl->nr_cons];
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", name);
	snprintf(k->why, sizeof(k->why), "%s", why ? why : "");
	k->kind = kind;
	k->limit = limit;
	*idx = wl->nr_cons++;
	return 0;
}

static struct wl_judge *judge_of(struct schedstat_workload *wl, size_t thread,
				 size_t phase)
{
	return &wl->judge[wl->thread_phase[thread] + phase];
}

/* One judge per thread and phase, none at first. */
static int judges_init(struct schedstat_workload *wl)
{
	size_t n = 0;

	wl->thread_phase = calloc(wl->nr_threads ? wl->nr_threads : 1, sizeof(*wl->thread_phase));
	if (!wl->thread_phase)
		return -ENOMEM;
	for (size_t t = 0; t < wl->nr_threads; t++) {
		wl->thread_phase[t] = n;
		n += wl->tasks[wl->thread_task[t]].nr_phases;
	}
	wl->judge = calloc(n ? n : 1, sizeof(*wl->judge));
	if (!wl->judge)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		wl->judge[i].constraint = WL_NONE;
	return 0;
}

static const struct wl_task *task_named(const struct schedstat_workload *wl,
					const char *name, size_t *idx)
{
	for (size_t t = 0; t < wl->nr_tasks; t++)
		if (!strcmp(wl->tasks[t].name, name)) {
			*idx = t;
			return &wl->tasks[t];
		}
	return NULL;
}

static bool phase_timed(const struct wl_phase *p)
{
	return p->last_timer != UINT32_MAX && p->ev[p->last_timer].value > 0;
}

/* One constraint object of "constraints". */
static int parse_one(struct cctx *c, const struct rj_node *o, size_t index)
{
	struct schedstat_workload *wl = c->wl;
	const char *name = NULL, *why = NULL, *task = NULL, *phase = NULL, *resume = NULL;
	const struct rj_node *kind_node = NULL;
	enum schedstat_workload_kind kind = SCHEDSTAT_WORKLOAD_MISS_RATIO;
	double limit = wl->miss_ratio;
	int64_t deadline_us = -1;
	const struct wl_task *t = NULL;
	size_t ti = 0, pi = SIZE_MAX;
	uint32_t cond = WL_NONE;
	char defname[96];
	int err;

	if (o->type != RJ_OBJECT)
		return refuse(c, o, "constraints", "each constraint is an object, not %s",
			      rj_type_name(o));
	for (const struct rj_node *m = rj_at(c->d, o->child); m; m = rj_at(c->d, m->next)) {
		const char *k = rj_str(c->d, m->key);
		const struct rj_node *e = rj_earlier(c->d, o, m);
		const char **s = !strcmp(k, "name") ? &name : !strcmp(k, "why") ? &why :
				 !strcmp(k, "task") ? &task : !strcmp(k, "phase") ? &phase :
				 !strcmp(k, "resume") ? &resume : NULL;

		if (e)
			return refuse(c, m, k, "given twice in one constraint (first on line %u)", e->line);
		if (s) {
			if (m->type != RJ_STRING)
				return refuse(c, m, k, "a string, not %s", rj_type_name(m));
			*s = rj_str(c->d, m->str);
		} else if (!strcmp(k, "deadline_us")) {
			if (m->type != RJ_INT || m->i <= 0 || m->i > INT32_MAX)
				return refuse(c, m, k, "µs after the release, above 0");
			deadline_us = m->i;
		} else if (!strcmp(k, "max_miss_ratio") || !strcmp(k, "max_response_us")) {
			double v = m->type == RJ_INT ? (double)m->i : m->type == RJ_DOUBLE ? m->d : NAN;

			if (kind_node)
				return refuse(c, m, k, "one of max_miss_ratio and max_response_us, not both");
			kind_node = m;
			if (k[4] == 'm') {
				if (!(v >= 0 && v <= 1))
					return refuse(c, m, k, "a share of activations, 0 to 1");
				limit = v;
			} else {
				if (!(v > 0 && v <= INT32_MAX))
					return refuse(c, m, k, "µs, above 0");
				kind = SCHEDSTAT_WORKLOAD_MAX_RESPONSE;
				limit = v / 1000;	/* ms, as the score says it */
			}
		} else {
			return refuse(c, m, k, "unknown member of a constraint: name, why, task, phase, resume, deadline_us, max_miss_ratio, max_response_us");
		}
	}
	if (!task && !resume)
		return refuse(c, o, "constraints", "constraint %zu names no task and no resume", index + 1);
	if (phase && !task)
		return refuse(c, o, "phase", "a phase belongs to a task: give \"task\" too");
	if (task && !(t = task_named(wl, task, &ti)))
		return refuse(c, o, "task", "no task '%s' in \"tasks\"", task);
	if (phase) {
		for (pi = 0; pi < t->nr_phases && strcmp(t->phases[pi].name, phase); pi++)
			;
		if (pi == t->nr_phases)
			return refuse(c, o, "phase", "task '%s' has no phase '%s'", task, phase);
	}
	if (resume) {
		for (cond = 0; cond < wl->nr_res; cond++)
			if (wl->res[cond].type == WL_RES_COND && !strcmp(wl->res[cond].name, resume))
				break;
		if (cond == wl->nr_res || !wl->res[cond].suspenders)
			return refuse(c, o, "resume", "no task suspends on '%s'", resume);
	}
	if (kind == SCHEDSTAT_WORKLOAD_MAX_RESPONSE && deadline_us < 0)
		deadline_us = (int64_t)(limit * 1000);
	if (resume && deadline_us < 0)
		return refuse(c, o, "deadline_us", "a response constraint needs deadline_us (or max_response_us)");
	if (!resume && deadline_us < 0) {
		bool timed = false;

		for (size_t p = 0; p < t->nr_phases; p++)
			timed |= (pi == SIZE_MAX || p == pi) && phase_timed(&t->phases[p]);
		if (!timed)
			return refuse(c, o, "deadline_us", "task '%s'%s%s%s has no timer to be due by: give deadline_us (or max_response_us)",
				      task, phase ? " phase '" : "", phase ? phase : "", phase ? "'" : "");
	}
	if (!name) {
		if (resume)
			snprintf(defname, sizeof(defname), "resume %s response", resume);
		else
			snprintf(defname, sizeof(defname), "%s%s%s deadline", task,
				 phase ? "/" : "", phase ? phase : "");
		name = defname;
	}
	/* Per thread: every instance of a task is judged on its own. */
	for (size_t th = 0; th < wl->nr_threads; th++) {
		uint32_t idx;
		char full[96];

		if (t && wl->thread_task[th] != ti)
			continue;
		if (t && t->instances > 1)
			snprintf(full, sizeof(full), "%s [%zu]", name, th - t->first_thread);
		else
			snprintf(full, sizeof(full), "%s", name);
		err = add_constraint(wl, full, why, kind, limit, &idx);
		if (err == -E2BIG)
			return refuse(c, o, "constraints", "more than %d constraints",
				      SCHEDSTAT_WORKLOAD_MAX_CONSTRAINTS);
		if (err)
			return err;
		if (resume) {
			struct wl_resume_judge *r;

			if (schedstat_array_reserve((void **)&wl->resume_judge, &wl->cap_resume_judge,
						    wl->nr_resume_judge + 1, sizeof(*r)))
				return -ENOMEM;
			r = &wl->resume_judge[wl->nr_resume_judge++];
			r->thread = t ? th : WL_NONE;
			r->cond = cond;
			r->constraint = idx;
			r->deadline_ns = deadline_us * 1000;
			if (!t)
				break;	/* any thread a resume wakes: one constraint */
			continue;
		}
		for (size_t p = 0; p < wl->tasks[ti].nr_phases; p++) {
			struct wl_judge *j = judge_of(wl, th, p);
			bool pass = deadline_us >= 0;

			if (pi != SIZE_MAX && p != pi)
				continue;
			if (!pass && !phase_timed(&wl->tasks[ti].phases[p]))
				continue;
			/* A phase named beats the whole task: it is more precise. */
			if (j->constraint != WL_NONE && pi == SIZE_MAX)
				continue;
			j->constraint = idx;
			j->pass = pass;
			j->deadline_ns = pass ? deadline_us * 1000 : 0;
		}
	}
	return 0;
}

int wl_constraints_parse(struct schedstat_workload *wl, const struct rj_doc *d,
			 const struct rj_node *st, char *err, size_t errlen)
{
	struct cctx c = { .wl = wl, .d = d, .err = err, .errlen = errlen };
	const struct rj_node *list = NULL;
	int ret;

	if ((ret = judges_init(wl)))
		return ret;
	if (!st)
		return 0;
	if (st->type != RJ_OBJECT)
		return refuse(&c, st, NULL, "an object, not %s", rj_type_name(st));
	for (const struct rj_node *m = rj_at(d, st->child); m; m = rj_at(d, m->next)) {
		const char *k = rj_str(d, m->key);
		const struct rj_node *e = rj_earlier(d, st, m);

		if (e)
			return refuse(&c, m, k, "given twice (first on line %u)", e->line);
		if (!strcmp(k, "description")) {
			if (m->type != RJ_STRING)
				return refuse(&c, m, k, "a string, not %s", rj_type_name(m));
			free(wl->description);
			wl->description = strdup(rj_str(d, m->str));
			if (!wl->description)
				return -ENOMEM;
		} else if (!strcmp(k, "miss_ratio")) {
			double v = m->type == RJ_INT ? (double)m->i : m->type == RJ_DOUBLE ? m->d : NAN;

			if (!(v >= 0 && v <= 1))
				return refuse(&c, m, k, "the default share of activations late or dropped, 0 to 1");
			wl->miss_ratio = v;
		} else if (!strcmp(k, "jitter")) {
			if (m->type != RJ_OBJECT)
				return refuse(&c, m, k, "{ \"run\": SHARE, \"sleep\": SHARE }");
			for (const struct rj_node *j = rj_at(d, m->child); j; j = rj_at(d, j->next)) {
				const char *jk = rj_str(d, j->key);
				const struct rj_node *je = rj_earlier(d, m, j);
				double v = j->type == RJ_INT ? (double)j->i :
					   j->type == RJ_DOUBLE ? j->d : NAN;

				if (je)
					return refuse(&c, j, k, "%s given twice", jk);
				if (strcmp(jk, "run") && strcmp(jk, "sleep"))
					return refuse(&c, j, k, "unknown member '%s': run or sleep", jk);
				if (!(v >= 0 && v < 1))
					return refuse(&c, j, k, "%s: a share below 1 (0.1: +-10%%)", jk);
				*(jk[0] == 'r' ? &wl->jitter_run : &wl->jitter_sleep) = v;
			}
		} else if (!strcmp(k, "constraints")) {
			if (m->type != RJ_ARRAY)
				return refuse(&c, m, k, "an array of constraints, not %s", rj_type_name(m));
			list = m;
		} else {
			return refuse(&c, m, k, "unknown member: description, miss_ratio, jitter, constraints");
		}
	}
	if (list) {
		size_t i = 0;

		for (const struct rj_node *o = rj_at(d, list->child); o; o = rj_at(d, o->next), i++)
			if ((ret = parse_one(&c, o, i)))
				return ret;
	}
	return 0;
}

int wl_constraints_default(struct schedstat_workload *wl, char *err, size_t errlen)
{
	for (size_t th = 0; th < wl->nr_threads; th++) {
		const struct wl_task *t = &wl->tasks[wl->thread_task[th]];
		bool named = false, timed = false;
		char name[96];
		uint32_t idx;
		int ret;

		for (size_t p = 0; p < t->nr_phases; p++) {
			named |= judge_of(wl, th, p)->constraint != WL_NONE;
			timed |= phase_timed(&t->phases[p]);
		}
		for (size_t r = 0; r < wl->nr_resume_judge; r++)
			named |= wl->resume_judge[r].thread == th;
		if (named || !timed)
			continue;
		if (t->instances > 1)
			snprintf(name, sizeof(name), "%s [%zu] deadline", t->name,
				 th - t->first_thread);
		else
			snprintf(name, sizeof(name), "%s deadline", t->name);
		ret = add_constraint(wl, name, "an activation not done by its next timer release is late",
				     SCHEDSTAT_WORKLOAD_MISS_RATIO, wl->miss_ratio, &idx);
		if (ret == -E2BIG) {
			snprintf(err, errlen, "%s:%u: task '%s': more than %d constraints",
				 wl->origin, t->line, t->name, SCHEDSTAT_WORKLOAD_MAX_CONSTRAINTS);
			return -EINVAL;
		}
		if (ret)
			return ret;
		for (size_t p = 0; p < t->nr_phases; p++)
			if (phase_timed(&t->phases[p]))
				judge_of(wl, th, p)->constraint = idx;
	}
	return 0;
}

/*
 * "miss_ratio 0.001 audio-tick deadline;max_response_ms 500 page load;":
 * a recording's metadata is one line of text (it keeps no control
 * character), so each constraint ends with ';', and a ';' or '\\' of a
 * name is escaped with '\\'.
 */
int schedstat_workload_constraints_format(const struct schedstat_workload *wl,
					  char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return -ENOSPC;
	buf[0] = '\0';
	for (size_t i = 0; i < wl->nr_cons; i++) {
		const struct schedstat_workload_constraint *k = &wl->cons[i];
		int n = snprintf(buf + len, size - len, "%s %.17g ",
				 k->kind == SCHEDSTAT_WORKLOAD_MISS_RATIO ? "miss_ratio" :
				 "max_response_ms", k->limit);

		if (n < 0 || (size_t)n >= size - len)
			return -ENOSPC;
		len += n;
		for (const char *p = k->name; *p; p++) {
			if (len + 3 >= size)
				return -ENOSPC;
			if (*p == ';' || *p == '\\')
				buf[len++] = '\\';
			buf[len++] = *p;
		}
		if (len + 2 >= size)
			return -ENOSPC;
		buf[len++] = ';';
		buf[len] = '\0';
	}
	return 0;
}

int schedstat_workload_constraints_parse(const char *text,
					 struct schedstat_workload_constraint **cons,
					 size_t *nr)
{
	size_t n = 0, cap = 0;
	struct schedstat_workload_constraint *v = NULL;

	*cons = NULL;
	*nr = 0;
	while (*text) {
		char kind[32], name[sizeof(v->name)];
		size_t len = 0;
		double limit;
		int off = 0;

		if (n >= SCHEDSTAT_WORKLOAD_MAX_CONSTRAINTS ||
		    sscanf(text, "%31s %lf %n", kind, &limit, &off) != 2 || !off)
			goto bad;
		for (text += off; *text && *text != ';'; text++) {
			if (*text == '\\' && text[1])
				text++;
			if (len + 1 >= sizeof(name))
				goto bad;
			name[len++] = *text;
		}
		if (*text != ';' || !len)
			goto bad;
		text++;
		name[len] = '\0';
		if (schedstat_array_reserve((void **)&v, &cap, n + 1, sizeof(*v)))
			goto nomem;
		memset(&v[n], 0, sizeof(v[n]));
		if (!strcmp(kind, "miss_ratio"))
			v[n].kind = SCHEDSTAT_WORKLOAD_MISS_RATIO;
		else if (!strcmp(kind, "max_response_ms"))
			v[n].kind = SCHEDSTAT_WORKLOAD_MAX_RESPONSE;
		else
			goto bad;
		v[n].limit = limit;
		memcpy(v[n].name, name, len + 1);
		n++;
	}
	*cons = v;
	*nr = n;
	return 0;
nomem:
	free(v);
	return -ENOMEM;
bad:
	free(v);
	return -EINVAL;
}
