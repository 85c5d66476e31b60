// SPDX-License-Identifier: GPL-2.0
/* The live view's keys and rows, without a terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"
#include "tui_view.h"

#define MS 1000000ULL

struct fixture {
	struct schedstat_topology *topo;
	struct model *model;
	struct schedstat_snapshot *snap;
	struct view view;
};

static struct st_task_rec rec(int pid, int tgid, const char *comm,
			      unsigned int util, uint64_t run)
{
	struct st_task_rec r = {
		.pid = pid, .tgid = tgid, .prio = 120, .start_time = pid,
		.util_avg = util, .sum_exec_runtime = run, .on_rq = 1,
	};

	strncpy(r.comm, comm, sizeof(r.comm) - 1);
	return r;
}

static int setup(void **state)
{
	static struct fixture f;
	struct st_task_rec tasks[] = {
		rec(10, 10, "alpha", 100, 0), rec(11, 10, "alpha-worker", 700, 0),
		rec(20, 20, "beta", 400, 0), rec(30, 30, "gamma", 50, 0),
	};
	struct st_cpu_state cpus[2] = {};
	struct st_global_state g = {};
	struct cpuset online = {};
	struct model_input in = {
		.ts_ns = 100 * MS, .tasks = tasks, .nr_tasks = 4, .cpus = cpus,
		.nr_cpus = 2, .online = &online, .global = &g,
	};

	memset(&f, 0, sizeof(f));
	cpuset_set(&online, 0);
	cpuset_set(&online, 1);
	if (schedstat_topology_parse(&f.topo, "LITTLE:0@512,big:1@1024", NULL) ||
	    model_new(&f.model, f.topo) || model_update(f.model, &in, &f.snap))
		return -1;
	/* Second sample: run times over 100 ms. */
	tasks[0].sum_exec_runtime = 10 * MS;
	tasks[1].sum_exec_runtime = 5 * MS;
	tasks[2].sum_exec_runtime = 90 * MS;
	in.ts_ns = 200 * MS;
	if (model_update(f.model, &in, &f.snap) || !f.snap)
		return -1;
	view_init(&f.view, 1000);
	if (view_update(&f.view, f.snap) ||
	    view_rows(&f.view, f.snap, schedstat_snapshot_ts_ns(f.snap)))
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	view_free(&f->view);
	schedstat_snapshot_free(f->snap);
	model_free(f->model);
	schedstat_topology_free(f->topo);
	return 0;
}

static void pids(struct fixture *f, const int *want, size_t n)
{
	view_rows(&f->view, f->snap, schedstat_snapshot_ts_ns(f->snap));
	assert_int_equal(f->view.nr_rows, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(f->view.rows[i].task->pid, want[i]);
}

static void default_sort_is_util_descending(void **state)
{
	pids(*state, (int[]){ 11, 20, 10, 30 }, 4);
}

static void sort_keys(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(view_key(&f->view, 'U', 10), ACT_REDRAW);	/* invert */
	pids(f, (int[]){ 30, 10, 20, 11 }, 4);
	view_key(&f->view, 'P', 10);					/* %CPU */
	assert_string_equal(view_sort_column(&f->view)->name, "cpu_pct");
	pids(f, (int[]){ 20, 10, 11, 30 }, 4);
	view_key(&f->view, 'I', 10);
	pids(f, (int[]){ 30, 11, 10, 20 }, 4);
	view_key(&f->view, '>', 10);
	assert_string_not_equal(view_sort_column(&f->view)->name, "cpu_pct");
	view_key(&f->view, '<', 10);
	assert_string_equal(view_sort_column(&f->view)->name, "cpu_pct");
}

static void filter_by_name_and_pid(void **state)
{
	struct fixture *f = *state;

	view_key(&f->view, '\\', 10);
	assert_int_equal(f->view.input, INPUT_FILTER);
	for (const char *k = "ALPHA"; *k; k++)
		view_key(&f->view, *k, 10);
	view_key(&f->view, '\r', 10);
	assert_string_equal(f->view.filter, "ALPHA");
	pids(f, (int[]){ 11, 10 }, 2);			/* case-insensitive */
	view_key(&f->view, VK_ESC, 10);
	pids(f, (int[]){ 11, 20, 10, 30 }, 4);
	/* Digits: a pid or a tgid. */
	view_key(&f->view, '\\', 10);
	view_key(&f->view, '1', 10);
	view_key(&f->view, '0', 10);
	view_key(&f->view, VK_ENTER, 10);
	pids(f, (int[]){ 11, 10 }, 2);
	/* Backspace edits, Esc abandons the edit. */
	view_key(&f->view, '\\', 10);
	view_key(&f->view, VK_BACKSPACE, 10);
	assert_string_equal(f->view.input_buf, "1");
	view_key(&f->view, VK_ESC, 10);
	assert_int_equal(f->view.input, INPUT_NONE);
	assert_string_equal(f->view.filter, "10");
}

static void search_moves_selection(void **state)
{
	struct fixture *f = *state;

	view_key(&f->view, '/', 10);
	for (const char *k = "gam"; *k; k++)
		view_key(&f->view, *k, 10);
	view_key(&f->view, '\r', 10);
	assert_int_equal(f->view.rows[f->view.selected].task->pid, 30);
	/* The selection follows its task when the order changes. */
	view_key(&f->view, 'U', 10);
	pids(f, (int[]){ 30, 10, 20, 11 }, 4);
	assert_int_equal(f->view.rows[f->view.selected].task->pid, 30);
}

static void movement_and_screens(void **state)
{
	struct fixture *f = *state;

	view_key(&f->view, VK_END, 10);
	assert_int_equal(f->view.selected, 3);
	view_key(&f->view, VK_DOWN, 10);
	assert_int_equal(f->view.selected, 3);
	view_key(&f->view, VK_PPAGE, 2);
	assert_int_equal(f->view.selected, 1);
	view_key(&f->view, VK_HOME, 10);
	assert_int_equal(f->view.selected, 0);
	assert_int_equal(view_key(&f->view, '\r', 10), ACT_REDRAW);
	assert_int_equal(f->view.screen, SCREEN_DETAIL);
	assert_int_equal(f->view.detail_pid, 11);
	assert_non_null(view_hist(&f->view, 11));
	assert_int_equal(view_hist(&f->view, 11)->util[0], 700);
	view_key(&f->view, VK_ESC, 10);
	assert_int_equal(f->view.screen, SCREEN_MAIN);
	view_key(&f->view, 'h', 10);
	assert_int_equal(f->view.screen, SCREEN_HELP);
	view_key(&f->view, 'x', 10);			/* any key leaves help */
	assert_int_equal(f->view.screen, SCREEN_MAIN);
	assert_int_equal(view_key(&f->view, 'q', 10), ACT_QUIT);
	assert_int_equal(view_key(&f->view, VK_F(10), 10), ACT_QUIT);
}

static void pause_tree_groups_interval(void **state)
{
	struct fixture *f = *state;

	view_key(&f->view, ' ', 10);
	assert_true(f->view.paused);
	view_key(&f->view, 'Z', 10);
	assert_false(f->view.paused);
	view_key(&f->view, 't', 10);
	/* Threads under their process: by tgid, leader first. */
	pids(f, (int[]){ 10, 11, 20, 30 }, 4);
	view_key(&f->view, 'g', 10);
	assert_true(f->view.show_groups);
	assert_int_equal(view_key(&f->view, '+', 10), ACT_INTERVAL);
	assert_int_equal(f->view.interval_ms, 2000);
	view_key(&f->view, '-', 10);
	view_key(&f->view, '-', 10);
	assert_int_equal(f->view.interval_ms, 500);
	f->view.interval_ms = 10000;
	assert_int_equal(view_key(&f->view, '+', 10), ACT_NONE);
}

/* One sample of @n tasks at @ms into the model and the view. */
static void view_sample(struct fixture *f, struct st_task_rec *recs, size_t n,
			uint64_t ms)
{
	struct st_cpu_state cpus[2] = {};
	struct st_global_state g = {};
	struct cpuset online = {};
	struct model_input in = {
		.ts_ns = ms * MS, .tasks = recs, .nr_tasks = n, .cpus = cpus,
		.nr_cpus = 2, .online = &online, .global = &g,
	};
	struct schedstat_snapshot *snap = NULL;

	assert_int_equal(model_update(f->model, &in, &snap), 0);
	assert_int_equal(view_update(&f->view, snap), 0);
	schedstat_snapshot_free(snap);
}

/*
 * pids come and go (a build, a fork-heavy load): the history table must
 * recycle the slots of tasks long gone, or a lookup never finds a free one.
 */
static void history_survives_pid_churn(void **state)
{
	struct fixture *f = *state;
	struct st_task_rec recs[100];
	int next_pid = 1000;

	for (int i = 0; i < 100; i++)
		recs[i] = rec(next_pid++, 1, "churn", 10, 0);
	for (int k = 0; k < 300; k++) {
		/* Ten tasks a sample are replaced by new pids. */
		for (int i = 0; i < 10; i++)
			recs[(k * 10 + i) % 100] = rec(next_pid++, 1, "churn", 10, 0);
		view_sample(f, recs, 100, 300 + k);
	}
	assert_true(f->view.hist_cap <= 4096);
	assert_non_null(view_hist(&f->view, recs[0].pid));
}

/*
 * Tasks that stay keep their entries: the table grows only for pids it
 * does not hold. Room for every task of every sample took 8,192 entries
 * (2.6 MB) for 3,000 tasks from the second sample on.
 */
static void history_of_steady_tasks_has_no_slack(void **state)
{
	enum { N = 3000 };
	struct fixture *f = *state;
	static struct st_task_rec recs[N];

	for (int i = 0; i < N; i++)
		recs[i] = rec(1000 + i, 1, "steady", 10, 0);
	for (int k = 0; k < 4; k++)
		view_sample(f, recs, N, 300 + k);
	assert_true(f->view.nr_hist >= N && f->view.nr_hist < N + 16);
	assert_true(f->view.hist_cap <= 4096);
	assert_non_null(view_hist(&f->view, 1000 + N - 1));
}

/*
 * A pid back after its entry went stale: hist_reserve() drops stale
 * entries when it makes room, so such a pid needs room as a new one.
 * Counted as known, 16 of them came back to 16 kept and one new pid in
 * room for 32 (the entry past the room was written, or refused).
 */
static void history_takes_pids_used_again(void **state)
{
	struct fixture *f = *state;
	struct st_task_rec recs[33];
	const int first[] = { 10, 11, 20, 30 };

	/* The setup's four, and 28 more: 32 entries, room for 32. */
	for (int i = 0; i < 4; i++)
		recs[i] = rec(first[i], first[i], "old", 10, 0);
	for (int i = 4; i < 32; i++)
		recs[i] = rec(1000 + i, 1, "many", 10, 0);
	view_sample(f, recs, 32, 300);
	assert_int_equal(f->view.hist_cap, 32);
	/* Then 16 of them for three samples, then all and one new. */
	for (int k = 1; k < 4; k++)
		view_sample(f, recs + 16, 16, 300 + k * 100);
	recs[32] = rec(2000, 2000, "new", 10, 0);
	view_sample(f, recs, 33, 700);
	assert_true(f->view.nr_hist <= f->view.hist_cap);
	for (int i = 0; i < 32; i++)
		assert_non_null(view_hist(&f->view, recs[i].pid));
	assert_non_null(view_hist(&f->view, 2000));
}

/* Rows point into a snapshot that the next sample frees. */
static void selection_survives_new_snapshot(void **state)
{
	struct fixture *f = *state;
	struct st_task_rec tasks[] = {
		rec(10, 10, "alpha", 100, 20 * MS), rec(20, 20, "beta", 400, 90 * MS),
	};
	struct st_cpu_state cpus[2] = {};
	struct st_global_state g = {};
	struct cpuset online = {};
	struct model_input in = {
		.ts_ns = 300 * MS, .tasks = tasks, .nr_tasks = 2, .cpus = cpus,
		.nr_cpus = 2, .online = &online, .global = &g,
	};
	struct schedstat_snapshot *next = NULL;

	view_key(&f->view, VK_END, 10);			/* gamma, pid 30 */
	assert_int_equal(f->view.selected_pid, 30);
	assert_int_equal(model_update(f->model, &in, &next), 0);
	schedstat_snapshot_free(f->snap);		/* as the live loop does */
	f->snap = next;
	assert_int_equal(view_update(&f->view, f->snap), 0);
	/* pid 30 is gone: it stays selected among exited rows or falls back. */
	assert_int_equal(view_rows(&f->view, f->snap,
				   schedstat_snapshot_ts_ns(f->snap)), 0);
	assert_true(f->view.selected < f->view.nr_rows);
}

/* A new sample where @utils[i] is the util of pids 10, 11, 20, 30. */
static void resample(struct fixture *f, uint64_t ts_ms, const unsigned int *utils)
{
	struct st_task_rec tasks[] = {
		rec(10, 10, "alpha", utils[0], 30 * MS),
		rec(11, 10, "alpha-worker", utils[1], 30 * MS),
		rec(20, 20, "beta", utils[2], 30 * MS),
		rec(30, 30, "gamma", utils[3], 30 * MS),
	};
	struct st_cpu_state cpus[2] = {};
	struct st_global_state g = {};
	struct cpuset online = {};
	struct model_input in = {
		.ts_ns = ts_ms * MS, .tasks = tasks, .nr_tasks = 4, .cpus = cpus,
		.nr_cpus = 2, .online = &online, .global = &g,
	};
	struct schedstat_snapshot *next = NULL;

	cpuset_set(&online, 0);
	cpuset_set(&online, 1);
	assert_int_equal(model_update(f->model, &in, &next), 0);
	schedstat_snapshot_free(f->snap);
	f->snap = next;
	assert_int_equal(view_update(&f->view, f->snap), 0);
	assert_int_equal(view_rows(&f->view, f->snap,
				   schedstat_snapshot_ts_ns(f->snap)), 0);
}

/*
 * Untouched, the view shows the top of the sorted list: a task that becomes
 * the busiest is on the first row, selected, whatever was first before
 * (issue 11: the view scrolled after the task first in the list). Once the
 * user moves the selection it follows its task, as in htop; Home goes back.
 */
static void top_stays_in_view_until_selection_moves(void **state)
{
	struct fixture *f = *state;
	const unsigned int gamma_busiest[] = { 100, 10, 400, 900 };
	const unsigned int beta_busiest[] = { 100, 10, 950, 900 };
	const unsigned int alpha_busiest[] = { 990, 10, 950, 900 };

	assert_int_equal(f->view.rows[0].task->pid, 11);
	resample(f, 300, gamma_busiest);
	assert_int_equal(f->view.rows[0].task->pid, 30);
	assert_int_equal(f->view.selected, 0);
	assert_int_equal(f->view.selected_pid, 30);
	assert_int_equal(f->view.scroll, 0);

	view_key(&f->view, VK_DOWN, 10);		/* beta, pid 20 */
	assert_int_equal(f->view.selected_pid, 20);
	resample(f, 400, beta_busiest);
	assert_int_equal(f->view.rows[0].task->pid, 20);
	assert_int_equal(f->view.selected_pid, 20);	/* followed to row 0 */
	resample(f, 500, gamma_busiest);
	assert_int_equal(f->view.selected_pid, 20);
	assert_int_equal(f->view.selected, 1);

	view_key(&f->view, VK_HOME, 10);
	resample(f, 600, alpha_busiest);
	assert_int_equal(f->view.selected, 0);
	assert_int_equal(f->view.selected_pid, 10);
}

static void type(struct view *v, const char *text)
{
	for (; *text; text++)
		view_key(v, *text, 10);
}

/* Replay: keys move through time; speed replaces the interval. */
static void replay_keys(void **state)
{
	struct fixture *f = *state;
	struct view *v = &f->view;

	v->replay = true;
	v->speed_x4 = 4;
	assert_int_equal(view_key(v, '.', 10), ACT_STEP_FWD);
	assert_true(v->paused);
	v->paused = false;
	assert_int_equal(view_key(v, VK_LEFT, 10), ACT_STEP_BACK);
	assert_true(v->paused);
	assert_int_equal(view_key(v, '{', 10), ACT_SEEK_START);
	assert_int_equal(view_key(v, '}', 10), ACT_SEEK_END);
	assert_int_equal(view_key(v, ']', 10), ACT_SEEK_BY);
	assert_true(v->seek_s == 10);
	assert_int_equal(view_key(v, '[', 10), ACT_SEEK_BY);
	assert_true(v->seek_s == -10);
	for (int i = 0; i < 4; i++)
		assert_int_equal(view_key(v, '+', 10), ACT_SPEED);
	assert_int_equal(v->speed_x4, 64);
	assert_int_equal(view_key(v, '+', 10), ACT_NONE);
	for (int i = 0; i < 6; i++)
		assert_int_equal(view_key(v, '-', 10), ACT_SPEED);
	assert_int_equal(v->speed_x4, 1);
	assert_int_equal(view_key(v, '-', 10), ACT_NONE);
	assert_int_equal(v->interval_ms, 1000);

	view_key(v, ':', 10);
	assert_int_equal(v->input, INPUT_SEEK);
	type(v, "1:02:03.5");
	assert_int_equal(view_key(v, '\n', 10), ACT_SEEK_TO);
	assert_true(v->seek_s == 3723.5);
	view_key(v, ':', 10);
	type(v, "90");
	assert_int_equal(view_key(v, '\r', 10), ACT_SEEK_TO);
	assert_true(v->seek_s == 90);
	view_key(v, ':', 10);
	type(v, "1:x");
	assert_int_equal(view_key(v, '\n', 10), ACT_REDRAW);
	assert_non_null(v->message);
	/* Live, the same keys do what they always did. */
	v->replay = false;
	assert_int_equal(view_key(v, '+', 10), ACT_INTERVAL);
	assert_int_equal(view_key(v, '.', 10), ACT_NONE);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(default_sort_is_util_descending),
		T(sort_keys),
		T(filter_by_name_and_pid),
		T(search_moves_selection),
		T(movement_and_screens),
		T(pause_tree_groups_interval),
		T(history_survives_pid_churn),
		T(history_of_steady_tasks_has_no_slack),
		T(history_takes_pids_used_again),
		T(selection_survives_new_snapshot),
		T(top_stays_in_view_until_selection_moves),
		T(replay_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
