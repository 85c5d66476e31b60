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
	{
		.where = BIND_MAIN, .fn = act_quit,
		.keys = { 'q', VK_F(10) }, .names = "q F10",
		.help = "quit",
		.man = "Quit.",
	},
	{
		.where = BIND_MAIN, .fn = act_help,
		.keys = { 'h', '?', VK_F(1) }, .names = "h ? F1",
		.help = "this help (any key closes it)",
		.man = "Help: keys and the description of every column.",
	},
	{
		.where = BIND_MAIN, .fn = act_pause,
		.keys = { ' ', 'Z' }, .names = "space Z",
		.help = "pause / resume",
		.man = "Pause or resume (sampling goes on; the screen keeps the last values).",
	},
	{
		.where = BIND_MAIN, .fn = act_step_sort,
		.keys = { '<', '>', VK_F(6) }, .names = "< > F6",
		.help = "previous / next sort column",
		.man = "Previous or next sort column.",
	},
	{
		.where = BIND_MAIN, .fn = act_invert,
		.keys = { 'I' }, .names = "I",
		.help = "invert the sort order",
		.man = "Invert the sort order.",
	},
	{
		.where = BIND_MAIN, .fn = act_sort,
		.keys = { 'P', 'M', 'U' }, .names = "P M U",
		.help = "sort by %CPU, LOAD, UTIL (again: invert)",
		.man = "Sort by %CPU, LOAD, UTIL; the same key again inverts the order.",
	},
	{
		.where = BIND_MAIN, .fn = act_search,
		.keys = { '/', VK_F(3) }, .names = "/ F3",
		.help = "search a name",
		.man = "Search a task name.",
	},
	{
		.where = BIND_MAIN, .fn = act_filter,
		.keys = { '\\', VK_F(4) }, .names = "\\ F4",
		.help = "filter by name or pid (Esc clears)",
		.man = "Filter by name or pid (Esc clears the filter).",
	},
	{
		.where = BIND_MAIN, .fn = act_clear_filter,
		.keys = { VK_ESC }, .names = "Esc",
		.help = "clear the filter; back from a screen",
		.man = "Clear the filter; on another screen, go back.",
	},
	{
		.where = BIND_MAIN, .fn = act_tree,
		.keys = { 't', VK_F(5) }, .names = "t F5",
		.help = "threads under their process",
		.man = "Threads under their process.",
	},
	{
		.where = BIND_MAIN, .fn = act_groups,
		.keys = { 'g' }, .names = "g",
		.help = "cgroup entities instead of tasks",
		.man = "cgroup (and session autogroup) entities instead of tasks.",
	},
	{
		.where = BIND_MAIN, .fn = act_clusters,
		.keys = { 'c' }, .names = "c",
		.help = "cluster history",
		.man = "Per-cluster utilization history; with --pelt-trace, each --pelt-cpus CPU's every PELT update of the last 2 s under its cluster.",
	},
	{
		.where = BIND_MAIN, .fn = act_detail,
		.keys = { '\n', '\r', VK_ENTER }, .names = "Enter",
		.help = "task detail",
		.man = "Task detail: util_avg and runnable_avg history, time per cluster, "
		  "last CPUs, every column; Esc goes back.",
	},
	{
		.where = BIND_MAIN, .fn = act_interval,
		.keys = { '+', '=', '-' }, .names = "+ -",
		.help = "sample interval",
		.man = "Longer or shorter sample interval.",
	},
	{
		.where = BIND_MAIN, .fn = act_move,
		.keys = { VK_UP, 'k', VK_DOWN, 'j' }, .names = "Up Down k j",
		.help = "move the selection",
		.man = "Move the selection one row.",
	},
	{
		.where = BIND_MAIN, .fn = act_page,
		.keys = { VK_PPAGE, VK_NPAGE }, .names = "PgUp PgDn",
		.help = "move a page",
		.man = "Move the selection one page.",
	},
	{
		.where = BIND_MAIN, .fn = act_ends,
		.keys = { VK_HOME, VK_END }, .names = "Home End",
		.help = "first / last row",
		.man = "Select the first or the last row.",
	},
	{
		.where = BIND_REPLAY, .fn = act_replay_step,
		.keys = { '.', VK_RIGHT, ',', VK_LEFT }, .names = ". Right , Left",
		.help = "one sample forward / back (pauses)",
		.man = "One sample forward or back (and pause).",
	},
	{
		.where = BIND_REPLAY, .fn = act_replay_seek_by,
		.keys = { '[', ']' }, .names = "[ ]",
		.help = "10 s back / forward",
		.man = "10 s back or forward.",
	},
	{
		.where = BIND_REPLAY, .fn = act_replay_ends,
		.keys = { '{', '}' }, .names = "{ }",
		.help = "start / end",
		.man = "Go to the start or the end.",
	},
	{
		.where = BIND_REPLAY, .fn = act_replay_seek_to,
		.keys = { ':' }, .names = ":",
		.help = "go to seconds, M:SS or H:MM:SS from the start",
		.man = "Go to a time: seconds, M:SS or H:MM:SS from the start.",
	},
	{
		.where = BIND_REPLAY, .fn = act_replay_speed,
		.keys = { '+', '=', '-' }, .names = "+ -",
		.help = "speed x0.25 .. x16 (not the interval)",
		.man = "Replay speed, x0.25 to x16 (instead of the sample interval).",
	},
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
