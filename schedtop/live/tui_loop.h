/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event loop of a full-screen view (live and replay): keys, a timer,
 * resizes and the signals that end it, and one more descriptor if wanted.
 */
#ifndef SCHEDTOP_TUI_LOOP_H
#define SCHEDTOP_TUI_LOOP_H

#include "loop.h"

/*
 * Each returns an enum loop_result (loop.h) or a negative errno that ends
 * the loop: LOOP_GO_ON, and the view is redrawn after a tick; LOOP_UNCHANGED,
 * and it is not; LOOP_STOP ends the loop (a quitting key).
 */
struct tui_loop_ops {
	int (*tick)(void *ctx);		/* the timer fired */
	int (*keys)(void *ctx);		/* keys are waiting (they redraw) */
	int (*other)(void *ctx);	/* @other_fd is readable */
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
