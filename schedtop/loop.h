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

#endif /* SCHEDTOP_LOOP_H */
