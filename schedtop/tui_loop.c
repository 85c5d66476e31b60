// SPDX-License-Identifier: GPL-2.0
#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
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

int tui_loop_run(struct loop *l, const struct tui_loop_ops *ops, void *ctx)
{
	int err;

	ops->redraw(ctx);
	for (;;) {
		struct epoll_event evs[4];
		int n = epoll_wait(l->epfd, evs, 4, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd, sig;

			if (fd == l->sigfd) {
				sig = loop_signal(l);
				if (sig != SIGWINCH && sig)
					return 0;
				/* The signal is ours, not ncurses': tell it. */
				endwin();
				refresh();
				ops->redraw(ctx);
			} else if (fd == l->timerfd) {
				if (!loop_ticks(l))
					continue;
				err = ops->tick(ctx);
				if (err < 0)
					return err;
				if (!err)
					ops->redraw(ctx);
			} else if (fd == STDIN_FILENO) {
				err = ops->keys(ctx);
				if (err)
					return err < 0 ? err : 0;
			} else {
				err = ops->other(ctx);
				if (err)
					return err;
			}
		}
	}
}
