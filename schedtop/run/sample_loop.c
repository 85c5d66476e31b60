// SPDX-License-Identifier: GPL-2.0
/* Headless sampling on the one event loop (loop.c): a sample per tick. */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "cli.h"
#include "loop.h"
#include "sample_loop.h"

struct sampling {
	struct schedstat_session *s;
	unsigned long samples, done;
	sample_fn fn;
	void *ctx;
	bool reported;		/* the error that ended the loop was said */
};

/* INT, TERM or HUP: the normal end of an unlimited run. */
static int on_signal(void *ctx, int sig)
{
	return LOOP_STOP;
}

static int on_tick(void *ctx)
{
	struct sampling *sm = ctx;
	struct schedstat_snapshot *snap;
	int err = schedstat_session_sample(sm->s, &snap);

	/* Only a trace file's session runs out: the end of it. */
	if (err == -ENODATA)
		return LOOP_STOP;
	if (err) {
		cli_error("sampling failed: %s", schedstat_strerror(err));
		sm->reported = true;
		return err;
	}
	err = sm->fn(snap, sm->ctx);
	schedstat_snapshot_free(snap);
	if (err == LOOP_STOP)
		return LOOP_STOP;
	if (err) {
		sm->reported = true;
		return err;
	}
	return sm->samples && ++sm->done >= sm->samples ? LOOP_STOP : 0;
}

/* The session's events are pending. */
static int on_ready(void *ctx, int fd)
{
	struct sampling *sm = ctx;
	int err = schedstat_session_poll(sm->s);

	if (err >= 0)
		return 0;
	cli_error("reading events: %s", schedstat_strerror(err));
	sm->reported = true;
	return err;
}

int sample_loop(struct schedstat_session *s, unsigned long interval_ms,
		unsigned long samples, sample_fn fn, void *ctx)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, 0 };
	static const struct loop_ops ops = {
		.signal = on_signal, .tick = on_tick, .ready = on_ready,
	};
	struct sampling sm = { .s = s, .samples = samples, .fn = fn, .ctx = ctx };
	int fds[] = { schedstat_session_event_fd(s), -1 };
	struct loop l = LOOP_INIT;
	int err;

	err = loop_open(&l, signals, fds, interval_ms);
	if (err) {
		cli_error("cannot set up the event loop: %s", strerror(-err));
		goto cleanup;
	}
	err = loop_run(&l, &ops, &sm);
	if (err && !sm.reported)
		cli_error("event loop: %s", strerror(-err));
cleanup:
	loop_close(&l);
	return err;
}
