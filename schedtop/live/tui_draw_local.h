/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files that draw the live view share: the colours and the one
 * way anything is put (tui_paint.c), and the --pelt-trace streams
 * (tui_draw_pelt.c) that tui_draw.c places on its screens.
 */
#ifndef SCHEDTOP_TUI_DRAW_LOCAL_H
#define SCHEDTOP_TUI_DRAW_LOCAL_H

#include <curses.h>
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

/* tui_paint.c: the attribute that shows @c, and its colour pair (0: none). */
attr_t tui_attr(enum color c);
short tui_pair(enum color c);
/* @s at (@y, @x) in colour @c, cut at the right edge; nothing off screen. */
void tui_put(int y, int x, enum color c, const char *s);
/* Line @y filled with colour @c. */
void tui_fill_line(int y, enum color c);
/* A bar of @width cells: segments of @vals over @total, in colours. */
void tui_bar(int y, int x, int width, const unsigned int *vals,
	     const enum color *colors, int n, unsigned int total,
	     const struct tui_style *st);
/*
 * The last min(@n, @width) of a history ring (@ring, or @fring when NULL)
 * ending before @head, as levels of @max.
 */
void tui_sparkline(int y, int x, int width, const uint16_t *ring,
		   const float *fring, int n, int head, double max,
		   const struct tui_style *st);

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
