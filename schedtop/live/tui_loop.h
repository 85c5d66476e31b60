/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event loop of a full-screen view (live and replay): keys, a timer,
 * resizes and the signals that end it, and one more descriptor if wanted.
 */
#ifndef SCHEDTOP_TUI_LOOP_H
#define SCHEDTOP_TUI_LOOP_H

#include "loop.h"

struct tui_loop_ops {
	/* The timer fired: 0 to redraw, 1 if nothing changed, or a negative
	 * error that ends the loop. */
	int (*tick)(void *ctx);
	/* Keys are waiting: 0, 1 to quit, or a negative error. */
	int (*keys)(void *ctx);
	/* @other_fd is readable: 0 or a negative error. */
	int (*other)(void *ctx);
	void (*redraw)(void *ctx);
};

/*
 * Watches the terminal, @other_fd (-1: none) and INT, TERM, HUP, QUIT and
 * WINCH; the timer fires first after @first_ms, then every @interval_ms.
 */
int tui_loop_open(struct loop *l, int other_fd, unsigned long first_ms,
		  unsigned long interval_ms);
/* Until a signal, a quitting key or an error; 0 or that error. */
int tui_loop_run(struct loop *l, const struct tui_loop_ops *ops, void *ctx);

#endif /* SCHEDTOP_TUI_LOOP_H */
