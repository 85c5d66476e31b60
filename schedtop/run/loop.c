// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "loop.h"

static int watch(struct loop *l, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static struct timespec ms_ts(unsigned long ms)
{
	return (struct timespec){ ms / 1000, (ms % 1000) * 1000000 };
}

int loop_set_timer(struct loop *l, unsigned long first_ms,
		   unsigned long interval_ms)
{
	struct itimerspec its = {
		.it_interval = ms_ts(interval_ms),
		.it_value = ms_ts(first_ms),
	};

	return timerfd_settime(l->timerfd, 0, &its, NULL) ? -errno : 0;
}

int loop_set_interval(struct loop *l, unsigned long interval_ms)
{
	return loop_set_timer(l, interval_ms, interval_ms);
}

int loop_open(struct loop *l, const int *signals, const int *fds,
	      unsigned long interval_ms)
{
	sigset_t mask;
	int err;

	sigemptyset(&mask);
	for (; *signals; signals++)
		sigaddset(&mask, *signals);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -errno;
	l->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	l->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->sigfd < 0 || l->timerfd < 0 || l->epfd < 0)
		return -errno;
	err = loop_set_interval(l, interval_ms);
	if (!err)
		err = watch(l, l->sigfd);
	if (!err)
		err = watch(l, l->timerfd);
	for (; !err && *fds >= 0; fds++)
		err = watch(l, *fds);
	return err;
}

int loop_signal(struct loop *l)
{
	struct signalfd_siginfo si;

	if (read(l->sigfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	return si.ssi_signo;
}

unsigned long loop_ticks(struct loop *l)
{
	uint64_t ticks;

	if (read(l->timerfd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return 0;
	return ticks;
}

int loop_run(struct loop *l, const struct loop_ops *ops, void *ctx)
{
	for (;;) {
		struct epoll_event evs[4];
		int n = epoll_wait(l->epfd, evs, 4, -1);

		/* A signal we do not watch (SIGSTOP/SIGCONT, a debugger). */
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd, ret;

			if (fd == l->sigfd) {
				int sig = loop_signal(l);

				ret = sig ? ops->signal(ctx, sig) : 0;
			} else if (fd == l->timerfd) {
				ret = loop_ticks(l) ? ops->tick(ctx) : 0;
			} else {
				ret = ops->ready(ctx, fd);
			}
			if (ret < 0)
				return ret;
			if (ret == LOOP_STOP)
				return 0;
		}
	}
}

void loop_close(struct loop *l)
{
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->timerfd >= 0)
		close(l->timerfd);
	if (l->sigfd >= 0)
		close(l->sigfd);
	l->epfd = l->timerfd = l->sigfd = -1;
}
