/* SPDX-License-Identifier: GPL-2.0 */
/* Headless sampling, shared by csv and record: a sample per tick until done. */
#ifndef SCHEDTOP_SAMPLE_LOOP_H
#define SCHEDTOP_SAMPLE_LOOP_H

#include "schedstat.h"

/*
 * Called with each snapshot: LOOP_GO_ON goes on, LOOP_STOP ends the loop
 * as a normal end (a workload whose threads have all ended), a negative
 * errno stops it with that error (the callback has said what went wrong).
 */
typedef int (*sample_fn)(const struct schedstat_snapshot *snap, void *ctx);

/*
 * Samples @s every @interval_ms until @samples were taken (0: no limit) or
 * SIGINT, SIGTERM or SIGHUP arrives, or a trace file's session runs out
 * (-ENODATA), which are normal ends. Returns 0, the error @fn returned, or
 * the negative errno of the loop or the session (reported here). The caller
 * turns it into an exit code: one error domain, errno, below main().
 */
int sample_loop(struct schedstat_session *s, unsigned long interval_ms,
		unsigned long samples, sample_fn fn, void *ctx);

#endif /* SCHEDTOP_SAMPLE_LOOP_H */
