// SPDX-License-Identifier: GPL-2.0
/*
 * The one way the live view puts anything on the screen: semantic colours
 * mapped to pairs (or to attributes in monochrome), text cut at the edge,
 * bars, levels and sparklines. tui_draw.c and tui_draw_pelt.c draw with it.
 */
#include <curses.h>

#include "array_size.h"
#include "tui_draw_local.h"

static bool use_color;

void tui_draw_init(const struct tui_style *style)
{
	use_color = style->color;
	if (!use_color)
		return;
	start_color();
	use_default_colors();
	init_pair(C_NORMAL, -1, -1);
	init_pair(C_TITLE, COLOR_CYAN, -1);
	init_pair(C_HEADER, COLOR_BLACK, COLOR_GREEN);
	init_pair(C_CFS, COLOR_GREEN, -1);
	init_pair(C_RT, COLOR_RED, -1);
	init_pair(C_DL, COLOR_MAGENTA, -1);
	init_pair(C_IRQ, COLOR_YELLOW, -1);
	init_pair(C_ALERT, COLOR_WHITE, COLOR_RED);
	init_pair(C_DIM, COLOR_BLUE, -1);
	init_pair(C_SELECTED, COLOR_BLACK, COLOR_CYAN);
	init_pair(C_STATUS, COLOR_BLACK, COLOR_CYAN);
}

/* Monochrome: the attribute that stands in for each colour. */
attr_t tui_attr(enum color c)
{
	static const attr_t mono[] = {
		[C_TITLE] = A_BOLD, [C_HEADER] = A_REVERSE, [C_ALERT] = A_REVERSE | A_BOLD,
		[C_DIM] = A_DIM, [C_SELECTED] = A_REVERSE, [C_STATUS] = A_REVERSE,
	};

	if (use_color)
		return COLOR_PAIR(c) | (c == C_TITLE || c == C_ALERT ? A_BOLD : 0);
	return c < (int)(ARRAY_SIZE(mono)) ? mono[c] : A_NORMAL;
}

short tui_pair(enum color c)
{
	return use_color ? c : 0;
}

void tui_put(int y, int x, enum color c, const char *s)
{
	if (y >= LINES || x >= COLS)
		return;
	attrset(tui_attr(c));
	mvaddnstr(y, x, s, COLS - x);
	attrset(A_NORMAL);
}

void tui_fill_line(int y, enum color c)
{
	attrset(tui_attr(c));
	mvhline(y, 0, ' ', COLS);
	attrset(A_NORMAL);
}

void tui_bar(int y, int x, int width, const unsigned int *vals,
	     const enum color *colors, int n, unsigned int total,
	     const struct tui_style *st)
{
	static const char ascii[] = "#RDI";
	int used = 0;

	if (width < 3 || x + width > COLS)
		return;
	mvaddch(y, x, '[');
	for (int i = 0; i < n && total; i++) {
		int cells = (int)((double)vals[i] * (width - 2) / total + 0.5);

		if (used + cells > width - 2)
			cells = width - 2 - used;
		attrset(tui_attr(colors[i]));
		for (int k = 0; k < cells; k++) {
			if (st->utf8)
				mvaddstr(y, x + 1 + used + k, "\u2588");
			else
				mvaddch(y, x + 1 + used + k, ascii[i % 4]);
		}
		attrset(A_NORMAL);
		used += cells;
	}
	for (; used < width - 2; used++)
		mvaddch(y, x + 1 + used, st->utf8 ? ' ' : '.');
	mvaddch(y, x + width - 1, ']');
}

void tui_draw_level(int y, int x, double f, const struct tui_style *st)
{
	static const char *const blocks[] = {
		" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586",
		"\u2587", "\u2588",
	};
	static const char ascii[] = " .:-=+*#%@";

	/* NaN and negatives (a damaged recording) draw as empty. */
	if (!(f > 0))
		f = 0;
	if (f > 1)
		f = 1;
	if (st->utf8)
		mvaddstr(y, x, blocks[(int)(f * 8 + 0.5)]);
	else
		mvaddch(y, x, ascii[(int)(f * 9 + 0.5)]);
}

void tui_sparkline(int y, int x, int width, const uint16_t *ring,
		   const float *fring, int n, int head, double max,
		   const struct tui_style *st)
{
	int shown = n < width ? n : width;

	for (int i = 0; i < shown; i++) {
		int idx = (head - shown + i + HIST_LEN) % HIST_LEN;
		double v = ring ? ring[idx] : fring[idx];

		tui_draw_level(y, x + i, max > 0 ? v / max : 0, st);
	}
}
