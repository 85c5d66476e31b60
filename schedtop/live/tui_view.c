// SPDX-License-Identifier: GPL-2.0
/* The live view's state: rows, exited tasks, history. Keys: tui_keys.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "tui_view.h"

size_t view_find_col(const struct column_table *t, const char *name)
{
	const struct column *c = column_find(t, name);

	return c ? (size_t)(c - t->cols) : 0;
}

int view_init(struct view *v, unsigned long interval_ms)
{
	memset(v, 0, sizeof(*v));
	v->selected_pid = -1;
	v->table = &task_table;
	v->sort_col = view_find_col(v->table, "util_avg");
	v->interval_ms = interval_ms;
	v->detail_pid = -1;
	return 0;
}

void view_free(struct view *v)
{
	free(v->rows);
	free(v->exited);
	free(v->exited_until);
	free(v->hist);
	schedstat_hash_free(v->hist_index);
	memset(v, 0, sizeof(*v));
}

void view_forget(struct view *v)
{
	v->nr_hist = 0;
	if (v->hist_index)
		schedstat_hash_clear(v->hist_index);
	v->nr_exited = 0;
	memset(v->clusters, 0, sizeof(v->clusters));
}

const struct column *view_sort_column(const struct view *v)
{
	return &v->table->cols[v->sort_col];
}

/* Not seen for more than two samples: its entry may go. */
static bool hist_stale(const struct view *v, const struct task_hist *e)
{
	return v->gen - e->seen > 2;
}

/*
 * Room for @want more pids. Before the array grows, the entries of tasks
 * not seen lately go, so that pid churn (a build, a fork-heavy load) does
 * not grow it for ever.
 */
static int hist_reserve(struct view *v, size_t want)
{
	size_t keep = 0;

	if (!v->hist_index && schedstat_hash_new(&v->hist_index))
		return -ENOMEM;
	if (v->nr_hist + want <= v->hist_cap)
		return 0;
	for (size_t i = 0; i < v->nr_hist; i++)
		if (!hist_stale(v, &v->hist[i]))
			v->hist[keep++] = v->hist[i];
	v->nr_hist = keep;
	schedstat_hash_clear(v->hist_index);
	for (size_t i = 0; i < keep; i++)
		if (schedstat_hash_put(v->hist_index, (uint32_t)v->hist[i].pid, i))
			return -ENOMEM;
	return schedstat_array_reserve((void **)&v->hist, &v->hist_cap, keep + want,
				       sizeof(*v->hist));
}

/*
 * The live tasks of @t that may need an entry: those with none, and those
 * whose entry is stale (a pid used again), which hist_reserve() drops
 * when it makes room. Room for these only: room for all of them every
 * sample kept the array at twice the tasks, and grew it to four times for
 * a moment (3,000 tasks: 8,192 entries, 2.6 MB).
 */
static size_t hist_new_pids(const struct view *v, const struct schedstat_task *t,
			    size_t n)
{
	size_t fresh = 0;
	uint64_t i;

	if (!v->hist_index)
		return n;
	for (size_t k = 0; k < n; k++)
		if (!t[k].exited &&
		    (schedstat_hash_get(v->hist_index, (uint32_t)t[k].pid, &i) ||
		     hist_stale(v, &v->hist[i])))
			fresh++;
	return fresh;
}

const struct task_hist *view_hist(const struct view *v, int32_t pid)
{
	uint64_t i;

	if (!v->hist_index || pid <= 0 ||
	    schedstat_hash_get(v->hist_index, (uint32_t)pid, &i))
		return NULL;
	return &v->hist[i];
}

/* Room was made by hist_reserve(). */
static int hist_add(struct view *v, const struct schedstat_task *t)
{
	struct task_hist *e;
	uint64_t i;

	if (schedstat_hash_get(v->hist_index, (uint32_t)t->pid, &i)) {
		/* Counted by hist_new_pids(): never past the room it made. */
		if (v->nr_hist >= v->hist_cap)
			return -ENOSPC;
		i = v->nr_hist;
		if (schedstat_hash_put(v->hist_index, (uint32_t)t->pid, i))
			return -ENOMEM;
		v->nr_hist++;
		v->hist[i].pid = 0;
	}
	e = &v->hist[i];
	if (!e->pid || hist_stale(v, e)) {
		memset(e, 0, sizeof(*e));
		e->pid = t->pid;
	}
	e->seen = v->gen;
	e->util[e->head] = t->util_avg;
	e->runnable[e->head] = t->runnable_avg;
	e->head = (e->head + 1) % HIST_LEN;
	if (e->n < HIST_LEN)
		e->n++;
	if (t->cluster >= 0 && (size_t)t->cluster < ARRAY_SIZE(e->cluster_ns))
		e->cluster_ns[t->cluster] += t->run_ns;
	if (t->run_ns && (!e->nr_last || e->last_cpus[0] != t->cpu)) {
		memmove(e->last_cpus + 1, e->last_cpus,
			(LAST_CPUS - 1) * sizeof(e->last_cpus[0]));
		e->last_cpus[0] = t->cpu;
		if (e->nr_last < LAST_CPUS)
			e->nr_last++;
	}
	return 0;
}

static int keep_exited(struct view *v, const struct schedstat_task *t,
		       uint64_t until)
{
	size_t n = v->nr_exited + 1, cap = v->cap_exited;

	/* Two arrays of one length: the second grows to the first's size. */
	if (schedstat_array_reserve((void **)&v->exited, &v->cap_exited, n,
				    sizeof(*v->exited)) ||
	    schedstat_array_reserve((void **)&v->exited_until, &cap, v->cap_exited,
				    sizeof(*v->exited_until)))
		return -ENOMEM;
	v->exited[v->nr_exited] = *t;
	v->exited_until[v->nr_exited++] = until;
	return 0;
}

int view_update(struct view *v, const struct schedstat_snapshot *snap)
{
	uint64_t now = schedstat_snapshot_ts_ns(snap);
	const struct schedstat_task *t;
	const struct schedstat_cluster *cl;
	size_t n, keep = 0;
	int err;

	v->gen++;
	t = schedstat_snapshot_tasks(snap, &n);
	err = hist_reserve(v, hist_new_pids(v, t, n));
	if (err)
		return err;
	for (size_t i = 0; i < v->nr_exited; i++) {
		if (v->exited_until[i] <= now)
			continue;
		v->exited[keep] = v->exited[i];
		v->exited_until[keep++] = v->exited_until[i];
	}
	v->nr_exited = keep;
	for (size_t i = 0; i < n; i++) {
		if (t[i].exited) {
			err = keep_exited(v, &t[i], now + EXITED_KEEP_NS);
			if (err)
				return err;
			continue;
		}
		err = hist_add(v, &t[i]);
		if (err)
			return err;
	}
	cl = schedstat_snapshot_clusters(snap, &n);
	for (size_t i = 0; i < n && i < ARRAY_SIZE(v->clusters); i++) {
		struct cluster_hist *h = &v->clusters[i];

		h->util_pct[h->head] = cl[i].util_pct;
		h->head = (h->head + 1) % HIST_LEN;
		if (h->n < HIST_LEN)
			h->n++;
	}
	return 0;
}

/* A filter of digits matches a pid or tgid; anything else a comm substring. */
static bool row_matches(const struct view *v, const struct schedstat_task *t)
{
	const char *f = v->filter;
	char *end;
	long pid;

	if (!*f)
		return true;
	pid = strtol(f, &end, 10);
	if (!*end && pid > 0)
		return t->pid == pid || t->tgid == pid;
	return strcasestr(t->comm, f) != NULL;
}

static const struct view *sorting;

static int cmp_rows(const void *a, const void *b)
{
	const struct view_row *x = a, *y = b;
	const struct column *c = view_sort_column(sorting);
	int r;

	if (sorting->tree && x->task->tgid != y->task->tgid) {
		/* Processes ordered by their leader's pid; threads follow it. */
		return x->task->tgid < y->task->tgid ? -1 : 1;
	}
	if (sorting->tree && (x->task->pid == x->task->tgid) !=
			     (y->task->pid == y->task->tgid))
		return x->task->pid == x->task->tgid ? -1 : 1;
	r = column_cmp(c, x->task, y->task);
	if (c->sort_desc)
		r = -r;
	if (sorting->sort_invert)
		r = -r;
	if (r)
		return r;
	return (x->task->pid > y->task->pid) - (x->task->pid < y->task->pid);
}

static int add_row(struct view *v, const struct schedstat_task *t, bool dimmed)
{
	if (!row_matches(v, t))
		return 0;
	if (schedstat_array_reserve((void **)&v->rows, &v->cap_rows, v->nr_rows + 1,
				    sizeof(*v->rows)))
		return -ENOMEM;
	v->rows[v->nr_rows].task = t;
	v->rows[v->nr_rows++].dimmed = dimmed;
	return 0;
}

void view_note_selection(struct view *v)
{
	v->selected_pid = v->selected < v->nr_rows ?
			  v->rows[v->selected].task->pid : -1;
}

int view_rows(struct view *v, const struct schedstat_snapshot *snap,
	      uint64_t now_ns)
{
	const struct schedstat_task *t;
	size_t n;
	int err;

	v->nr_rows = 0;
	t = schedstat_snapshot_tasks(snap, &n);
	for (size_t i = 0; i < n; i++) {
		if (t[i].exited)
			continue;
		err = add_row(v, &t[i], false);
		if (err)
			return err;
	}
	for (size_t i = 0; i < v->nr_exited; i++) {
		if (v->exited_until[i] <= now_ns)
			continue;
		err = add_row(v, &v->exited[i], true);
		if (err)
			return err;
	}
	sorting = v;
	qsort(v->rows, v->nr_rows, sizeof(*v->rows), cmp_rows);
	sorting = NULL;
	/* The selection follows its task once moved, as in htop. */
	for (size_t i = 0; v->follow_selected && i < v->nr_rows; i++) {
		if (v->rows[i].task->pid == v->selected_pid) {
			v->selected = i;
			return 0;
		}
	}
	if (v->selected >= v->nr_rows)
		v->selected = v->nr_rows ? v->nr_rows - 1 : 0;
	view_note_selection(v);
	return 0;
}
