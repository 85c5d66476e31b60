/* SPDX-License-Identifier: GPL-2.0 */
/* Headless sampling, shared by csv and record: a sample per tick until done. */
#ifndef SCHEDTOP_SAMPLE_LOOP_H
#define SCHEDTOP_SAMPLE_LOOP_H

#include "schedstat.h"

/* Called with each snapshot; any return but 0 stops the loop with it. */
typedef int (*sample_fn)(const struct schedstat_snapshot *snap, void *ctx);

/*
 * Samples @s every @interval_ms until @samples were taken (0: no limit) or
 * SIGINT, SIGTERM or SIGHUP arrives, or a trace file's session runs out
 * (-ENODATA), which are normal ends. Returns 0, the
 * error @fn returned, or EXIT_FAIL when the loop or the session failed (that
 * is reported here).
 */
int sample_loop(struct schedstat_session *s, unsigned long interval_ms,
		unsigned long samples, sample_fn fn, void *ctx);

#endif /* SCHEDTOP_SAMPLE_LOOP_H */
