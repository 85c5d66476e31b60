// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>

#include "cli.h"
#include "loop.h"
#include "sample_loop.h"

int sample_loop(struct schedstat_session *s, unsigned long interval_ms,
		unsigned long samples, sample_fn fn, void *ctx)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, 0 };
	int fds[] = { schedstat_session_event_fd(s), -1 };
	struct loop l = LOOP_INIT;
	unsigned long done = 0;
	int err;

	err = loop_open(&l, signals, fds, interval_ms);
	if (err) {
		cli_error("cannot set up the event loop: %s", strerror(-err));
	}
	while (!err && (!samples || done < samples)) {
		struct epoll_event evs[4];
		int n = epoll_wait(l.epfd, evs, 4, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			cli_error("event loop: %s", strerror(-err));
			break;
		}
		for (int i = 0; i < n && !err; i++) {
			int fd = evs[i].data.fd;
			struct schedstat_snapshot *snap;

			if (fd == l.sigfd)
				goto cleanup;
			if (fd != l.timerfd) {
				err = schedstat_session_poll(s);
				if (err < 0)
					cli_error("reading events: %s", schedstat_strerror(err));
				else
					err = 0;
				continue;
			}
			if (!loop_ticks(&l))
				continue;
			err = schedstat_session_sample(s, &snap);
			/* Only a trace file's session runs out: the end of it. */
			if (err == -ENODATA) {
				err = 0;
				goto cleanup;
			}
			if (err) {
				cli_error("sampling failed: %s", schedstat_strerror(err));
				break;
			}
			err = fn(snap, ctx);
			schedstat_snapshot_free(snap);
			done++;
		}
	}
cleanup:
	loop_close(&l);
	return err;
}
