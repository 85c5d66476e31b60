/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live view's state and everything about it that is not drawing: keys,
 * sorting, filtering, exited tasks kept for a moment, per-task history.
 * No ncurses here, so unit tests drive it with plain key codes.
 */
#ifndef SCHEDTOP_TUI_VIEW_H
#define SCHEDTOP_TUI_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "columns.h"
#include "schedstat.h"

/* Key codes the view understands besides plain characters (ncurses' own). */
enum {
	VK_DOWN = 0402, VK_UP = 0403, VK_LEFT = 0404, VK_RIGHT = 0405,
	VK_HOME = 0406, VK_BACKSPACE = 0407, VK_F0 = 0410,
	VK_NPAGE = 0522, VK_PPAGE = 0523, VK_ENTER = 0527, VK_END = 0550,
	VK_ESC = 27,
};
#define VK_F(n) (VK_F0 + (n))

enum view_screen {
	SCREEN_MAIN,
	SCREEN_HELP,
	SCREEN_DETAIL,
	SCREEN_CLUSTERS,
};

enum view_input {
	INPUT_NONE,
	INPUT_SEARCH,
	INPUT_FILTER,
	INPUT_SEEK,		/* replay: a time to go to */
};

#define VIEW_TEXT_LEN	32
#define HIST_LEN	60	/* samples kept: a minute at the default 1 s */
#define LAST_CPUS	8
#define EXITED_KEEP_NS	3000000000ULL	/* exited tasks stay dimmed this long */

/* One line of the task table: a live task or one that exited lately. */
struct view_row {
	const struct schedstat_task *task;
	bool dimmed;
};

struct task_hist {
	int32_t pid;
	uint32_t seen;			/* sample generation it was last seen */
	uint16_t n, head;
	uint16_t util[HIST_LEN];
	uint16_t runnable[HIST_LEN];
	uint64_t cluster_ns[4];		/* run time per cluster, since seen */
	int32_t last_cpus[LAST_CPUS];	/* most recent first */
	uint8_t nr_last;
};

struct cluster_hist {
	uint16_t n, head;
	float util_pct[HIST_LEN];
};

struct view {
	enum view_screen screen;
	enum view_input input;
	char input_buf[VIEW_TEXT_LEN];
	char filter[VIEW_TEXT_LEN];	/* comm substring or a pid */
	const struct column_table *table;	/* task_table */
	size_t sort_col;
	bool sort_invert;
	bool paused;
	bool tree;			/* threads under their process */
	bool show_groups;		/* cgroup entities instead of tasks */
	size_t selected;		/* index in rows */
	/* The selected task, kept apart: rows point into a freed snapshot. */
	int32_t selected_pid;
	/* The user has moved the selection: until then it stays on the top
	 * row, whatever task comes first (htop). */
	bool follow_selected;
	size_t scroll;			/* first row shown */
	unsigned long interval_ms;
	int32_t detail_pid;
	const char *message;		/* one-shot status message */

	/* Replaying a recording: keys move through time instead of sampling. */
	bool replay;
	unsigned int speed_x4;		/* replay speed times 4: 1 (x0.25) .. 64 (x16) */
	double seek_s;			/* ACT_SEEK_BY: seconds; ACT_SEEK_TO: from start */
	char replay_status[96];		/* position and time, drawn on the status line */

	/* Rows of the current frame, sorted and filtered. */
	struct view_row *rows;
	size_t nr_rows, cap_rows;
	/* Exited tasks still shown: owned copies with their expiry. */
	struct schedstat_task *exited;
	uint64_t *exited_until;
	size_t nr_exited, cap_exited;
	/* History of recent pids, live or stale; hist_index: pid -> entry. */
	struct task_hist *hist;
	size_t nr_hist, hist_cap;
	struct schedstat_hash *hist_index;	/* made at the first update */
	uint32_t gen;
	struct cluster_hist clusters[8];
};

enum view_action {
	ACT_NONE,		/* nothing changed */
	ACT_REDRAW,
	ACT_QUIT,
	ACT_INTERVAL,		/* interval_ms changed: re-arm the timer */
	/* Replay only. */
	ACT_STEP_FWD,		/* one sample on (and pause) */
	ACT_STEP_BACK,		/* one sample back (and pause) */
	ACT_SEEK_START,
	ACT_SEEK_END,
	ACT_SEEK_BY,		/* seek_s seconds from here */
	ACT_SEEK_TO,		/* seek_s seconds from the start */
	ACT_SPEED,		/* speed_x4 changed */
};

/* Where a binding works: every view, or a replay (checked first there). */
enum view_bind_where {
	BIND_MAIN,
	BIND_REPLAY,
};

/* Keys that do one thing, and how the help screen and man page say it. */
struct view_binding {
	enum view_bind_where where;
	enum view_action (*fn)(struct view *v, int key, size_t page);
	int keys[4];		/* key codes (VK_*), 0-terminated if fewer */
	const char *names;	/* the keys as typed, space-separated: "q F10" */
	const char *help;	/* the help screen's line, lower case */
	const char *man;	/* the man page's sentence(s) */
};

extern const struct view_binding view_bindings[];
extern const size_t view_nr_bindings;

/*
 * The key table as the help screen words it, or as troff for the KEYS
 * section of docs/schedtop.1 (schedtop --list-keys=man). 0 or -errno.
 */
int view_write_keys(FILE *f, bool man);

int view_init(struct view *v, unsigned long interval_ms);
void view_free(struct view *v);
/* Forget history and exited tasks (a jump in a replay); keeps the settings. */
void view_forget(struct view *v);
/* Take a new snapshot into history and the exited-task list. */
int view_update(struct view *v, const struct schedstat_snapshot *snap);
/* Rebuild rows from @snap: filter, sort, exited tasks; keeps the selection. */
int view_rows(struct view *v, const struct schedstat_snapshot *snap,
	      uint64_t now_ns);
/* @page: rows visible in the task table, for PgUp/PgDn. */
enum view_action view_key(struct view *v, int key, size_t page);
const struct task_hist *view_hist(const struct view *v, int32_t pid);
/* The current sort column. */
const struct column *view_sort_column(const struct view *v);

#endif /* SCHEDTOP_TUI_VIEW_H */
