// SPDX-License-Identifier: GPL-2.0
/*
 * Drawing --pelt-trace streams: a traced task's (task detail) and a traced
 * CPU's entities (cluster screen), one way for both: every update of the
 * last PELT_WINDOW_NS laid onto columns by tui_pelt_layout(), under a time
 * axis, with the number of updates drawn.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "array_size.h"
#include "tui_draw_local.h"

#define PELT_X		14	/* where the lines start, after their names */

struct pelt_line {
	const char *name;
	const struct pelt_task *t;
	enum pelt_signal sig;
};

/* A line from tui_pelt_layout(): -1 (no update yet) stays blank. */
static void draw_cols(int y, int x, const int *cols, int width, double max,
		      const struct tui_style *st)
{
	for (int i = 0; i < width; i++)
		if (cols[i] >= 0)
			tui_draw_level(y, x + i, cols[i] / max, st);
}

/*
 * @n lines, then the axis and the count of updates drawn (each entity's
 * once, however many of its signals are drawn), @whose naming them.
 */
static int draw_lines(int y, const struct pelt_line *lines, size_t n,
		      const char *whose, uint64_t now_ns, int w,
		      const struct tui_style *st)
{
	double secs = PELT_WINDOW_NS / 1e9;
	int cols[512];
	size_t shown = 0;
	char s[160];

	if (w > (int)ARRAY_SIZE(cols))
		w = ARRAY_SIZE(cols);
	for (size_t i = 0; i < n; i++) {
		size_t got = tui_pelt_layout(lines[i].t, lines[i].sig, now_ns,
					     PELT_WINDOW_NS, w, cols);

		if (!i || lines[i].t != lines[i - 1].t)
			shown += got;
		tui_put(y, 0, C_NORMAL, lines[i].name);
		draw_cols(y++, PELT_X, cols, w, SCHEDSTAT_CAPACITY_SCALE, st);
	}
	/* The axis: the window's start, its middle and the sample shown. */
	snprintf(s, sizeof(s), "-%.1fs", secs);
	tui_put(y, PELT_X, C_DIM, s);
	snprintf(s, sizeof(s), "-%.1fs", secs / 2);
	if (w > 24)
		tui_put(y, PELT_X + w / 2 - (int)strlen(s) / 2, C_DIM, s);
	tui_put(y++, PELT_X + w - 3, C_DIM, "now");
	snprintf(s, sizeof(s), "(%zu PELT updates%s in the last %.1f s, each "
		 "drawn; a column shows its peak)", shown, whose, secs);
	tui_put(y++, PELT_X, C_DIM, s);
	return y;
}

int tui_draw_pelt_task(int y, const struct pelt_task *pt, uint64_t now_ns,
		       int w, const struct tui_style *st)
{
	const struct pelt_line lines[] = {
		{ .name = "util  (all)", .t = pt, .sig = PELT_UTIL },
		{ .name = "runn  (all)", .t = pt, .sig = PELT_RUNNABLE },
		{ .name = "u_est (all)", .t = pt, .sig = PELT_UTIL_EST },
	};

	return draw_lines(y, lines, ARRAY_SIZE(lines), "", now_ns, w, st);
}

int tui_draw_pelt_cpu(int y, int last, const struct tui_pelt *tp, int cpu,
		      uint64_t now_ns, int w, const struct tui_style *st)
{
	static const struct {
		const char *name;
		enum schedstat_pelt_entity entity;
		enum pelt_signal sig;
	} all[] = {
		{ .name = "cfs util", .entity = SCHEDSTAT_PELT_CFS, .sig = PELT_UTIL },
		{ .name = "cfs runn", .entity = SCHEDSTAT_PELT_CFS, .sig = PELT_RUNNABLE },
		{ .name = "cfs u_est", .entity = SCHEDSTAT_PELT_CFS, .sig = PELT_UTIL_EST },
		{ .name = "rt  util", .entity = SCHEDSTAT_PELT_RT, .sig = PELT_UTIL },
		{ .name = "dl  util", .entity = SCHEDSTAT_PELT_DL, .sig = PELT_UTIL },
		{ .name = "irq util", .entity = SCHEDSTAT_PELT_IRQ, .sig = PELT_UTIL },
	};
	struct pelt_line lines[ARRAY_SIZE(all)];
	char whose[32], title[64];
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		const struct pelt_task *t = tui_pelt_find_cpu(tp, cpu, all[i].entity);

		if (t)
			lines[n++] = (struct pelt_line){ all[i].name, t, all[i].sig };
	}
	/* Its title, the lines, the axis and the count: all or nothing. */
	if (!n || y + (int)n + 3 > last)
		return y;
	snprintf(title, sizeof(title), "  cpu%d, every PELT update:", cpu);
	tui_put(y++, 0, C_NORMAL, title);
	snprintf(whose, sizeof(whose), " of cpu%d", cpu);
	return draw_lines(y, lines, n, whose, now_ns, w, st);
}
