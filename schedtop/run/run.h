/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One run of a command that samples the kernel: the live view, record, csv
 * and workload (perf's struct perf_sched does this for its modes). The run
 * owns the session and what stands around it: the energy model, --emulate,
 * and the recording written beside the session. run_open() sets them up in
 * one order, run_close() tears them down in the reverse one, whatever
 * failed:
 *
 *   1. the shared options into the session's options (--topology, ...)
 *   2. the energy model (--energy-model, else the kernel's): a bad file is
 *      said before anything on the machine changes; --atrace's
 *      trace_marker opened (a plain line if it cannot be)
 *   3. --emulate: parsed, its topology given to the session, started
 *   4. the command's own step (opts.before_session: the live view takes
 *      the terminal here)
 *   5. the session, with the energy model bound to its clusters
 *   6. the recording (opts.record), its metadata naming the emulation
 *
 * Both return an exit code (EXIT_OK, EXIT_USAGE, EXIT_FAIL), every failure
 * said in one line where it happened.
 */
#ifndef SCHEDTOP_RUN_H
#define SCHEDTOP_RUN_H

#include <stdbool.h>

#include "atrace_out.h"
#include "cli.h"
#include "recording.h"
#include "schedstat.h"

struct run_opts {
	const char *cmd;	/* "record", "csv", ...; NULL: the live view */
	const struct cli_session_args *args;	/* --topology, --emulate, ... */
	/* -p, -c and --atrace: the counters written into trace_marker, or NULL. */
	const struct cli_pelt_args *pelt;
	const char *record;	/* a recording to write beside the session */
	unsigned long interval_ms;	/* for the recording's metadata */
	int argc;		/* the command line, for the recording's */
	char **argv;
	/* More "key", "value" pairs for the recording's metadata, or NULL. */
	const char *const *extra_meta;
	/* Say "emulating SPEC by METHOD: ..." on standard error once started. */
	bool say_emulation;
	/*
	 * Between the emulation and the session (step 4): an exit code. The
	 * live view takes the terminal, and gives it back in leave_screen().
	 */
	int (*before_session)(void *ctx);
	/* Before a failure is said (a full-screen view gives the screen back). */
	void (*leave_screen)(void *ctx);
	void *ctx;
};

struct run {
	/*
	 * The session's options: a command may set its own (trace file,
	 * --pelt-trace's callback, ...) before run_open(), which adds the
	 * shared ones.
	 */
	struct schedstat_session_opts sopts;
	struct schedstat_session *session;
	struct schedstat_energy_model *em;	/* NULL: none */
	struct schedstat_emulation *emul;	/* NULL: not emulating */
	struct recording_out rec;		/* .fd -1 until opened */
	struct atrace_out atrace;		/* --atrace (atrace_out.h) */
	char *topology_spec;			/* --topology's text, read */
	char emulation[256];			/* "SPEC by METHOD", or "" */
};

#define RUN_INIT { .rec = { .fd = -1 } }

/* Steps 1 to 6 above; on failure what was set up stays for run_close(). */
int run_open(struct run *r, const struct run_opts *o);
/*
 * The session closed (the recording's end marker is the last thing
 * written), the recording finished, the emulation stopped, everything
 * freed. EXIT_OK, or EXIT_FAIL when the recording or the emulation could
 * not be finished (said). Safe after any run_open(), and twice.
 */
int run_close(struct run *r);

/*
 * On standard error: "schedtop: emulating SPEC by METHOD: cpu0 at 50%", and
 * the cpufreq limits a killed schedtop had left changed that a start or a
 * recovery put back (nothing when none). schedtop emulate says them too.
 */
void run_say_emulation(const struct schedstat_emulation *e);
void run_say_recovered(const struct schedstat_emulation_recovery *rc);

#endif /* SCHEDTOP_RUN_H */
