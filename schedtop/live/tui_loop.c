// SPDX-License-Identifier: GPL-2.0
/* The full-screen views' handlers on the one event loop (loop.c). */
#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "tui_loop.h"

int tui_loop_open(struct loop *l, int other_fd, unsigned long first_ms,
		  unsigned long interval_ms)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, 0 };
	int fds[] = { STDIN_FILENO, other_fd, -1 };
	int err;

	err = loop_open(l, signals, fds, interval_ms);
	if (!err && first_ms != interval_ms)
		err = loop_set_timer(l, first_ms, interval_ms);
	return err;
}

struct tui_run {
	const struct tui_loop_ops *ops;
	void *ctx;
};

static int on_signal(void *ctx, int sig)
{
	const struct tui_run *r = ctx;

	if (sig != SIGWINCH)
		return LOOP_STOP;
	/* The signal is ours, not ncurses': tell it. */
	endwin();
	refresh();
	r->ops->redraw(r->ctx);
	return LOOP_GO_ON;
}

static int on_tick(void *ctx)
{
	const struct tui_run *r = ctx;
	int ret = r->ops->tick(r->ctx);

	if (ret == LOOP_GO_ON)
		r->ops->redraw(r->ctx);
	return ret;
}

static int on_ready(void *ctx, int fd)
{
	const struct tui_run *r = ctx;

	if (fd != STDIN_FILENO)
		return r->ops->other(r->ctx);
	return r->ops->keys(r->ctx);
}

int tui_loop_run(struct loop *l, const struct tui_loop_ops *ops, void *ctx)
{
	static const struct loop_ops lops = {
		.signal = on_signal, .tick = on_tick, .ready = on_ready,
	};
	struct tui_run r = { .ops = ops, .ctx = ctx };

	ops->redraw(ctx);
	return loop_run(l, &lops, &r);
}
