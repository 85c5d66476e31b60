/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live view's keys: one table binds them to small actions and words
 * them for the help screen and the man page's KEYS (htop's
 * Action_setBindings). tui_keys.c holds the table and the handler.
 */
#ifndef SCHEDTOP_TUI_KEYS_H
#define SCHEDTOP_TUI_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct view;

/* Key codes the view understands besides plain characters (ncurses' own). */
enum {
	VK_DOWN = 0402, VK_UP = 0403, VK_LEFT = 0404, VK_RIGHT = 0405,
	VK_HOME = 0406, VK_BACKSPACE = 0407, VK_F0 = 0410,
	VK_NPAGE = 0522, VK_PPAGE = 0523, VK_ENTER = 0527, VK_END = 0550,
	VK_ESC = 27,
};
#define VK_F(n) (VK_F0 + (n))

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
/* @page: rows visible in the task table, for PgUp/PgDn. */
enum view_action view_key(struct view *v, int key, size_t page);

#endif /* SCHEDTOP_TUI_KEYS_H */
