/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one event loop of every front end: an epoll set over a signalfd (so
 * signals arrive as events and every exit path is the normal one), a
 * timerfd for samples and any other descriptors (ring buffer, terminal).
 */
#ifndef SCHEDTOP_LOOP_H
#define SCHEDTOP_LOOP_H

#include <signal.h>

struct loop {
	int epfd;
	int timerfd;
	int sigfd;
};

#define LOOP_INIT { -1, -1, -1 }

/* Blocks @signals (0-terminated) and watches them, the timer and @fds (-1 ends). */
int loop_open(struct loop *l, const int *signals, const int *fds,
	      unsigned long interval_ms);
int loop_set_interval(struct loop *l, unsigned long interval_ms);
/* Next expiry after @first_ms, then every @interval_ms. */
int loop_set_timer(struct loop *l, unsigned long first_ms,
		   unsigned long interval_ms);
/* Reads one pending signal number, or 0. */
int loop_signal(struct loop *l);
/* Consumes timer expirations; returns how many. */
unsigned long loop_ticks(struct loop *l);
void loop_close(struct loop *l);

/*
 * What every handler of an event loop returns (loop_ops here, tui_loop_ops
 * of the full-screen views): one of these, or a negative errno that ends
 * the loop with that error.
 */
enum loop_result {
	LOOP_GO_ON = 0,		/* go on (a view redraws) */
	LOOP_STOP = 1,		/* end the loop: its normal end (a signal, q) */
	LOOP_UNCHANGED = 2,	/* go on: nothing changed, no redraw */
};

/* What loop_run() calls; each returns an enum loop_result or -errno. */
struct loop_ops {
	int (*signal)(void *ctx, int sig);	/* a watched signal arrived */
	int (*tick)(void *ctx);			/* the timer fired */
	int (*ready)(void *ctx, int fd);	/* one of the @fds is readable */
};

/*
 * Waits and dispatches (EINTR is not an error) until a handler ends the
 * loop: 0 for LOOP_STOP, else its error, or epoll's -errno (not reported).
 */
int loop_run(struct loop *l, const struct loop_ops *ops, void *ctx);

#endif /* SCHEDTOP_LOOP_H */
