/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live view's state and everything about it that is not drawing:
 * sorting, filtering, exited tasks kept for a moment, per-task history, and
 * its keys (tui_keys.h). No ncurses here, so unit tests drive it with plain
 * key codes.
 */
#ifndef SCHEDTOP_TUI_VIEW_H
#define SCHEDTOP_TUI_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "columns.h"
#include "schedstat.h"
#include "tui_keys.h"
#include "tui_pelt.h"

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

	/*
	 * --pelt-trace: the traced tasks' updates (the command's; NULL without
	 * a stream) and the updates lost so far, shown on the status line.
	 */
	const struct tui_pelt *pelt;
	uint64_t pelt_lost;
	/*
	 * --emulate: the run's emulation (NULL: the machine as it is), so that
	 * a slowed machine is never read as the real one.
	 */
	const struct schedstat_emulation *emul;

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

int view_init(struct view *v, unsigned long interval_ms);
void view_free(struct view *v);
/* Forget history and exited tasks (a jump in a replay); keeps the settings. */
void view_forget(struct view *v);
/* Take a new snapshot into history and the exited-task list. */
int view_update(struct view *v, const struct schedstat_snapshot *snap);
/* Rebuild rows from @snap: filter, sort, exited tasks; keeps the selection. */
int view_rows(struct view *v, const struct schedstat_snapshot *snap,
	      uint64_t now_ns);
const struct task_hist *view_hist(const struct view *v, int32_t pid);
/* The current sort column. */
const struct column *view_sort_column(const struct view *v);

/* For tui_keys.c: the index of column @name in @t (0 if none). */
size_t view_find_col(const struct column_table *t, const char *name);
/* Call after any change of v->selected, while v->rows is current. */
void view_note_selection(struct view *v);

#endif /* SCHEDTOP_TUI_VIEW_H */
