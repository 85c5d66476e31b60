/* SPDX-License-Identifier: GPL-2.0 */
/* Drawing the live view with ncurses; the state lives in tui_view.h. */
#ifndef SCHEDTOP_TUI_DRAW_H
#define SCHEDTOP_TUI_DRAW_H

#include <stdbool.h>

#include "tui_view.h"

/* Smallest terminal that still shows something useful. */
#define TUI_MIN_COLS	40
#define TUI_MIN_ROWS	10

struct tui_style {
	bool color;	/* false: monochrome (NO_COLOR, or no colours) */
	bool utf8;	/* false: ASCII bars */
};

/* After initscr()/newterm(): colours and attributes for @style. */
void tui_draw_init(const struct tui_style *style);
/* Task rows that fit below the header, for PgUp/PgDn. */
size_t tui_draw_page(const struct schedstat_snapshot *snap);
void tui_draw(struct view *v, const struct schedstat_snapshot *snap,
	      const struct schedstat_topology *topo, const struct tui_style *style);

#endif /* SCHEDTOP_TUI_DRAW_H */
