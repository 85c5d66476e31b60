/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tui_draw.c shares with the files that draw parts of its screens
 * (tui_draw_pelt.c): the colours and the one way text is put.
 */
#ifndef SCHEDTOP_TUI_DRAW_LOCAL_H
#define SCHEDTOP_TUI_DRAW_LOCAL_H

#include <stdint.h>

#include "tui_draw.h"
#include "tui_pelt.h"

/* Semantic colours (htop's ColorElements idea), mapped per scheme. */
enum color {
	C_NORMAL = 1,
	C_TITLE,
	C_HEADER,
	C_CFS,
	C_RT,
	C_DL,
	C_IRQ,
	C_ALERT,
	C_DIM,
	C_SELECTED,
	C_STATUS,
};

/* @s at (@y, @x) in colour @c, cut at the right edge; nothing off screen. */
void tui_put(int y, int x, enum color c, const char *s);

/*
 * One cell of a sparkline at level @f of its maximum: a block of eighths,
 * or an ASCII shade without UTF-8; beyond 0 to 1 it is clamped.
 */
void tui_draw_level(int y, int x, double f, const struct tui_style *st);

/*
 * The task's every PELT update (--pelt-trace) over the last PELT_WINDOW_NS
 * up to @now_ns: util, runnable and util_est lines and the time axis.
 * Returns the next free line.
 */
int tui_draw_pelt_task(int y, const struct pelt_task *pt, uint64_t now_ns,
		       int w, const struct tui_style *st);
/*
 * The same for CPU @cpu's entities (--pelt-cpus): cfs util, runnable and
 * util_est, rt, dl and irq util, as far as they were traced; nothing if
 * none was. Stops before line @last. Returns the next free line.
 */
int tui_draw_pelt_cpu(int y, int last, const struct tui_pelt *tp, int cpu,
		      uint64_t now_ns, int w, const struct tui_style *st);

#endif /* SCHEDTOP_TUI_DRAW_LOCAL_H */
