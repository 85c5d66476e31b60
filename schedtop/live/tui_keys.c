// SPDX-License-Identifier: GPL-2.0
/*
 * The live view's keys: what each does to the view (struct view), the one
 * table that binds them, and that table worded for help and the man page.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "csv_format.h"
#include "tui_keys.h"
#include "tui_view.h"

static void move_selection(struct view *v, long by)
{
	long s = (long)v->selected + by;

	if (s < 0 || !v->nr_rows)
		s = 0;
	else if (s >= (long)v->nr_rows)
		s = v->nr_rows - 1;
	v->selected = s;
}

static void set_sort(struct view *v, const char *name)
{
	size_t c = view_find_col(v->table, name);

	if (c == v->sort_col)
		v->sort_invert = !v->sort_invert;
	else
		v->sort_invert = false;
	v->sort_col = c;
}

/* Next or previous sortable column, skipping the timestamp. */
static void step_sort(struct view *v, int dir)
{
	size_t n = v->table->nr_cols, c = v->sort_col;

	do
		c = (c + n + dir) % n;
	while (v->table->cols[c].type == COL_TS);
	v->sort_col = c;
	v->sort_invert = false;
}

/* "90", "1:30" or "1:02:03": seconds from the start of the recording. */
static int parse_seek(const char *s, double *out)
{
	double t = 0, part;
	char *end;

	do {
		part = strtod(s, &end);
		if (end == s || part < 0)
			return -EINVAL;
		t = t * 60 + part;
		s = end + (*end == ':');
	} while (*end == ':');
	/* Also keeps the caller's conversion to nanoseconds defined. */
	if (*end || !isfinite(t) || t > 1e7)
		return -EINVAL;
	*out = t;
	return 0;
}

static enum view_action input_key(struct view *v, int key)
{
	size_t len = strlen(v->input_buf);

	switch (key) {
	case VK_ESC:
		v->input = INPUT_NONE;
		v->input_buf[0] = '\0';
		return ACT_REDRAW;
	case '\n':
	case '\r':
	case VK_ENTER:
		if (v->input == INPUT_SEEK) {
			bool ok = !parse_seek(v->input_buf, &v->seek_s);

			v->input = INPUT_NONE;
			if (ok)
				return ACT_SEEK_TO;
			v->message = "seek to: seconds, M:SS or H:MM:SS from the start";
			return ACT_REDRAW;
		} else if (v->input == INPUT_FILTER) {
			memcpy(v->filter, v->input_buf, sizeof(v->filter));
		} else {
			/* Search: jump to the first matching row. */
			for (size_t i = 0; i < v->nr_rows; i++) {
				if (strcasestr(v->rows[i].task->comm, v->input_buf)) {
					v->selected = i;
					break;
				}
			}
		}
		v->input = INPUT_NONE;
		return ACT_REDRAW;
	case VK_BACKSPACE:
	case 127:
	case 8:
		if (len)
			v->input_buf[len - 1] = '\0';
		return ACT_REDRAW;
	default:
		if (key >= 0x20 && key < 0x7f && len + 1 < sizeof(v->input_buf)) {
			v->input_buf[len] = key;
			v->input_buf[len + 1] = '\0';
			return ACT_REDRAW;
		}
		return ACT_NONE;
	}
}

static enum view_action change_interval(struct view *v, int dir)
{
	static const unsigned long steps[] = {
		100, 200, 250, 500, 1000, 2000, 5000, 10000,
	};
	size_t i = 0;

	while (i < ARRAY_SIZE(steps) - 1 && steps[i] < v->interval_ms)
		i++;
	if (dir < 0 && i > 0 && steps[i] >= v->interval_ms)
		i--;
	else if (dir > 0 && steps[i] <= v->interval_ms && i < ARRAY_SIZE(steps) - 1)
		i++;
	if (steps[i] == v->interval_ms)
		return ACT_NONE;
	v->interval_ms = steps[i];
	return ACT_INTERVAL;
}

/*
 * The key bindings: small actions, each returning what to redraw, and one
 * table that binds keys to them (htop's Action_setBindings). The handler,
 * the help screen (tui_draw.c) and the man page's KEYS (schedtop
 * --list-keys=man) all read the table, so a key is bound and documented in
 * one place.
 */
static enum view_action act_quit(struct view *v, int key, size_t page)
{
	return ACT_QUIT;
}

static enum view_action act_help(struct view *v, int key, size_t page)
{
	v->screen = SCREEN_HELP;
	return ACT_REDRAW;
}

static enum view_action act_pause(struct view *v, int key, size_t page)
{
	v->paused = !v->paused;
	return ACT_REDRAW;
}

static enum view_action act_step_sort(struct view *v, int key, size_t page)
{
	step_sort(v, key == '<' ? -1 : 1);
	return ACT_REDRAW;
}

static enum view_action act_invert(struct view *v, int key, size_t page)
{
	v->sort_invert = !v->sort_invert;
	return ACT_REDRAW;
}

static enum view_action act_sort(struct view *v, int key, size_t page)
{
	set_sort(v, key == 'P' ? "cpu_pct" : key == 'M' ? "load_avg" : "util_avg");
	return ACT_REDRAW;
}

static enum view_action act_search(struct view *v, int key, size_t page)
{
	v->input = INPUT_SEARCH;
	v->input_buf[0] = '\0';
	return ACT_REDRAW;
}

static enum view_action act_filter(struct view *v, int key, size_t page)
{
	v->input = INPUT_FILTER;
	memcpy(v->input_buf, v->filter, sizeof(v->input_buf));
	return ACT_REDRAW;
}

static enum view_action act_clear_filter(struct view *v, int key, size_t page)
{
	if (!v->filter[0])
		return ACT_NONE;
	v->filter[0] = '\0';
	return ACT_REDRAW;
}

static enum view_action act_tree(struct view *v, int key, size_t page)
{
	v->tree = !v->tree;
	return ACT_REDRAW;
}

static enum view_action act_groups(struct view *v, int key, size_t page)
{
	v->show_groups = !v->show_groups;
	v->scroll = v->selected = 0;
	return ACT_REDRAW;
}

static enum view_action act_clusters(struct view *v, int key, size_t page)
{
	v->screen = SCREEN_CLUSTERS;
	return ACT_REDRAW;
}

static enum view_action act_detail(struct view *v, int key, size_t page)
{
	if (v->selected >= v->nr_rows || v->show_groups)
		return ACT_NONE;
	v->detail_pid = v->rows[v->selected].task->pid;
	v->screen = SCREEN_DETAIL;
	return ACT_REDRAW;
}

static enum view_action act_interval(struct view *v, int key, size_t page)
{
	return change_interval(v, key == '-' ? -1 : 1);
}

static enum view_action act_move(struct view *v, int key, size_t page)
{
	long by = key == VK_UP || key == 'k' ? -1 : 1;

	move_selection(v, by);
	return ACT_REDRAW;
}

static enum view_action act_page(struct view *v, int key, size_t page)
{
	long by = page ? page : 1;

	move_selection(v, key == VK_PPAGE ? -by : by);
	return ACT_REDRAW;
}

static enum view_action act_ends(struct view *v, int key, size_t page)
{
	if (key == VK_HOME)
		v->selected = 0;
	else
		move_selection(v, v->nr_rows);
	return ACT_REDRAW;
}

static enum view_action act_replay_step(struct view *v, int key, size_t page)
{
	v->paused = true;
	return key == '.' || key == VK_RIGHT ? ACT_STEP_FWD : ACT_STEP_BACK;
}

static enum view_action act_replay_ends(struct view *v, int key, size_t page)
{
	return key == '{' ? ACT_SEEK_START : ACT_SEEK_END;
}

static enum view_action act_replay_seek_by(struct view *v, int key, size_t page)
{
	v->seek_s = key == '[' ? -10 : 10;
	return ACT_SEEK_BY;
}

static enum view_action act_replay_seek_to(struct view *v, int key, size_t page)
{
	v->input = INPUT_SEEK;
	v->input_buf[0] = '\0';
	return ACT_REDRAW;
}

static enum view_action act_replay_speed(struct view *v, int key, size_t page)
{
	if (key == '-') {
		if (v->speed_x4 <= 1)
			return ACT_NONE;
		v->speed_x4 /= 2;
	} else {
		if (v->speed_x4 >= 64)
			return ACT_NONE;
		v->speed_x4 *= 2;
	}
	return ACT_SPEED;
}

const struct view_binding view_bindings[] = {
	{ BIND_MAIN, act_quit, { 'q', VK_F(10) }, "q F10",
	  "quit", "Quit." },
	{ BIND_MAIN, act_help, { 'h', '?', VK_F(1) }, "h ? F1",
	  "this help (any key closes it)",
	  "Help: keys and the description of every column." },
	{ BIND_MAIN, act_pause, { ' ', 'Z' }, "space Z",
	  "pause / resume",
	  "Pause or resume (sampling goes on; the screen keeps the last values)." },
	{ BIND_MAIN, act_step_sort, { '<', '>', VK_F(6) }, "< > F6",
	  "previous / next sort column", "Previous or next sort column." },
	{ BIND_MAIN, act_invert, { 'I' }, "I",
	  "invert the sort order", "Invert the sort order." },
	{ BIND_MAIN, act_sort, { 'P', 'M', 'U' }, "P M U",
	  "sort by %CPU, LOAD, UTIL (again: invert)",
	  "Sort by %CPU, LOAD, UTIL; the same key again inverts the order." },
	{ BIND_MAIN, act_search, { '/', VK_F(3) }, "/ F3",
	  "search a name", "Search a task name." },
	{ BIND_MAIN, act_filter, { '\\', VK_F(4) }, "\\ F4",
	  "filter by name or pid (Esc clears)",
	  "Filter by name or pid (Esc clears the filter)." },
	{ BIND_MAIN, act_clear_filter, { VK_ESC }, "Esc",
	  "clear the filter; back from a screen",
	  "Clear the filter; on another screen, go back." },
	{ BIND_MAIN, act_tree, { 't', VK_F(5) }, "t F5",
	  "threads under their process", "Threads under their process." },
	{ BIND_MAIN, act_groups, { 'g' }, "g",
	  "cgroup entities instead of tasks",
	  "cgroup (and session autogroup) entities instead of tasks." },
	{ BIND_MAIN, act_clusters, { 'c' }, "c",
	  "cluster history", "Per-cluster utilization history; with --pelt-trace, each --pelt-cpus CPU's every PELT update of the last 2 s under its cluster." },
	{ BIND_MAIN, act_detail, { '\n', '\r', VK_ENTER }, "Enter",
	  "task detail",
	  "Task detail: util_avg and runnable_avg history, time per cluster, "
	  "last CPUs, every column; Esc goes back." },
	{ BIND_MAIN, act_interval, { '+', '=', '-' }, "+ -",
	  "sample interval", "Longer or shorter sample interval." },
	{ BIND_MAIN, act_move, { VK_UP, 'k', VK_DOWN, 'j' }, "Up Down k j",
	  "move the selection", "Move the selection one row." },
	{ BIND_MAIN, act_page, { VK_PPAGE, VK_NPAGE }, "PgUp PgDn",
	  "move a page", "Move the selection one page." },
	{ BIND_MAIN, act_ends, { VK_HOME, VK_END }, "Home End",
	  "first / last row", "Select the first or the last row." },
	{ BIND_REPLAY, act_replay_step, { '.', VK_RIGHT, ',', VK_LEFT }, ". Right , Left",
	  "one sample forward / back (pauses)",
	  "One sample forward or back (and pause)." },
	{ BIND_REPLAY, act_replay_seek_by, { '[', ']' }, "[ ]",
	  "10 s back / forward", "10 s back or forward." },
	{ BIND_REPLAY, act_replay_ends, { '{', '}' }, "{ }",
	  "start / end", "Go to the start or the end." },
	{ BIND_REPLAY, act_replay_seek_to, { ':' }, ":",
	  "go to seconds, M:SS or H:MM:SS from the start",
	  "Go to a time: seconds, M:SS or H:MM:SS from the start." },
	{ BIND_REPLAY, act_replay_speed, { '+', '=', '-' }, "+ -",
	  "speed x0.25 .. x16 (not the interval)",
	  "Replay speed, x0.25 to x16 (instead of the sample interval)." },
};
const size_t view_nr_bindings = ARRAY_SIZE(view_bindings);

/* "q F10" as .BR "q" ", " "F10" (bold keys, roman commas). */
static void man_keys(FILE *f, const char *names)
{
	char buf[64], *save = NULL;
	bool first = true;

	snprintf(buf, sizeof(buf), "%s", names);
	fputs(strchr(names, ' ') ? ".BR" : ".B", f);
	for (char *k = strtok_r(buf, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
		fputs(first ? " \"" : " \", \" \"", f);
		man_text(f, k, true);
		fputc('"', f);
		first = false;
	}
	fputc('\n', f);
}

int view_write_keys(FILE *f, bool man)
{
	bool replay = false;

	for (size_t i = 0; i < view_nr_bindings; i++) {
		const struct view_binding *b = &view_bindings[i];

		if (!man) {
			fprintf(f, "%-14s %s%s\n", b->names,
				b->where == BIND_REPLAY ? "replay: " : "", b->help);
			continue;
		}
		if (b->where == BIND_REPLAY && !replay) {
			fputs(".PP\nIn\n.BR \"schedtop replay\" ,\n"
			      "these come before the keys above:\n", f);
			replay = true;
		}
		fputs(".TP\n", f);
		man_keys(f, b->names);
		man_text(f, b->man, true);
		fputc('\n', f);
	}
	return fflush(f) ? -errno : 0;
}

/* The binding of @key among those of @where, or NULL. */
static const struct view_binding *find_binding(unsigned int where, int key)
{
	for (size_t i = 0; i < view_nr_bindings; i++) {
		const struct view_binding *b = &view_bindings[i];

		if (b->where != where)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(b->keys) && b->keys[k]; k++)
			if (b->keys[k] == key)
				return b;
	}
	return NULL;
}

static enum view_action handle_key(struct view *v, int key, size_t page)
{
	const struct view_binding *b;

	if (v->input != INPUT_NONE)
		return input_key(v, key);
	/* Moving through a replay works on every screen but help. */
	if (v->replay && v->screen != SCREEN_HELP) {
		b = find_binding(BIND_REPLAY, key);
		if (b)
			return b->fn(v, key, page);
	}
	b = find_binding(BIND_MAIN, key);
	if (v->screen != SCREEN_MAIN) {
		if (b && b->fn == act_quit)
			return ACT_QUIT;
		/* Any other key leaves help; Esc or Enter leave the others. */
		if (v->screen == SCREEN_HELP || key == VK_ESC || key == '\n' ||
		    key == '\r' || key == VK_ENTER || key == 'c' || key == 'h') {
			v->screen = SCREEN_MAIN;
			return ACT_REDRAW;
		}
		return ACT_NONE;
	}
	return b ? b->fn(v, key, page) : ACT_NONE;
}

enum view_action view_key(struct view *v, int key, size_t page)
{
	size_t was = v->selected;
	enum view_action a = handle_key(v, key, page);

	/* Moved by the user: it follows its task from now on; Home goes
	 * back to the top of the list (view_rows()). */
	if (v->selected != was)
		v->follow_selected = true;
	if (key == VK_HOME)
		v->follow_selected = false;
	view_note_selection(v);
	return a;
}
