// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop with no command: the live view. One event loop (loop.h) takes
 * keys, samples and signals; every way out goes through one cleanup that
 * restores the terminal and detaches BPF.
 */
#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atrace_out.h"
#include "cli.h"
#include "loop.h"
#include "recording.h"
#include "run.h"
#include "terminal.h"
#include "tui_draw.h"
#include "tui_loop.h"
#include "tui_view.h"

enum { OPT_RECORD = 256, OPT_LIST_KEYS };

const struct option live_long_opts[] = {
	{ "interval", required_argument, NULL, 'i' },
	CLI_OPT_TOPOLOGY,
	CLI_OPT_SYSFS_ROOT,
	{ "filter", required_argument, NULL, 'f' },
	CLI_OPT_EXACT_WAKEUPS,
	{ "record", required_argument, NULL, OPT_RECORD },
	CLI_OPT_SOURCE,
	CLI_OPT_EMULATE,
	CLI_OPT_ENERGY_MODEL,
	CLI_OPT_PELT,
	CLI_OPT_ATRACE,
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "list-keys", optional_argument, NULL, OPT_LIST_KEYS },
	{ "help", no_argument, NULL, 'h' },
	{}
};

#define FIRST_SAMPLE_MS	20

struct live {
	struct run run;			/* session, energy model, --emulate, --record */
	struct schedstat_snapshot *snap;	/* shown; kept while paused */
	struct view view;
	struct tui_style style;
	struct loop loop;
	bool recording;			/* --record, while it works */
	struct tui_pelt pelt;		/* --pelt-trace: the tasks' updates */
	int pelt_err;			/* the first failure to keep one */
};

/* The session's on_pelt: the detail screen's copy, and --record's. */
static void on_pelt(const struct schedstat_pelt_update *u, void *ctx)
{
	struct live *lv = ctx;
	int err = tui_pelt_add(&lv->pelt, u);

	if (err && !lv->pelt_err)
		lv->pelt_err = err;
	if (lv->recording)
		recording_out_pelt(u, &lv->run.rec);
}

static void redraw(void *ctx)
{
	struct live *lv = ctx;

	if (lv->snap)
		view_rows(&lv->view, lv->snap, schedstat_snapshot_ts_ns(lv->snap));
	tui_draw(&lv->view, lv->snap, schedstat_session_topology(lv->run.session),
		 &lv->style);
}

static int sample(void *ctx)
{
	struct live *lv = ctx;
	struct schedstat_snapshot *snap;
	int err = schedstat_session_sample(lv->run.session, &snap);

	if (err)
		return err;
	if (lv->pelt_err) {
		schedstat_snapshot_free(snap);
		return lv->pelt_err;
	}
	if (lv->view.pelt) {
		lv->view.pelt_lost = schedstat_session_pelt_dropped(lv->run.session);
		if (lv->recording)
			recording_out_pelt_dropped(&lv->run.rec, lv->view.pelt_lost);
	}
	atrace_out_sample(&lv->run.atrace, snap);
	/* A recording that fails stops; the view goes on and says why. */
	if (lv->recording && recording_out_sample(&lv->run.rec, snap)) {
		lv->recording = false;
		lv->view.message = lv->run.rec.error;
	}
	/* Paused: keep sampling so deltas stay per interval, show the old. */
	if (lv->view.paused) {
		schedstat_snapshot_free(snap);
		return 0;
	}
	err = view_update(&lv->view, snap);
	schedstat_snapshot_free(lv->snap);
	lv->snap = snap;
	return err;
}

static int poll_events(void *ctx)
{
	struct live *lv = ctx;
	int err = schedstat_session_poll(lv->run.session);

	return err < 0 ? err : 0;
}

/* LOOP_STOP to quit (loop.h). */
static int keys(void *ctx)
{
	struct live *lv = ctx;
	bool dirty = false;
	int key;

	while ((key = getch()) != ERR) {
		enum view_action a;

		if (key == KEY_RESIZE) {
			dirty = true;
			continue;
		}
		a = view_key(&lv->view, key, lv->snap ? tui_draw_page(lv->snap) : 0);
		if (a == ACT_QUIT)
			return LOOP_STOP;
		if (a == ACT_INTERVAL)
			loop_set_interval(&lv->loop, lv->view.interval_ms);
		dirty |= a != ACT_NONE;
	}
	if (dirty)
		redraw(lv);
	return 0;
}

static int run_view(struct live *lv)
{
	static const struct tui_loop_ops ops = {
		.tick = sample, .keys = keys, .other = poll_events, .redraw = redraw,
	};
	unsigned long interval = lv->view.interval_ms;
	int err;

	/*
	 * A person waits for the first frame: take the first sample soon
	 * (its deltas cover less than an interval; percentages still hold).
	 */
	err = tui_loop_open(&lv->loop, schedstat_session_event_fd(lv->run.session),
			    interval > FIRST_SAMPLE_MS ? FIRST_SAMPLE_MS : interval,
			    interval);
	return err ? err : tui_loop_run(&lv->loop, &ops, lv);
}

struct live_opts {
	unsigned long interval_ms;
	const char *filter;
	const char *record;		/* --record FILE */
	struct cli_session_args session;	/* --topology, --source, ... */
	struct cli_pelt_args pelt;	/* --pelt-trace, -p, -c, --pelt-cpus */
	bool done;			/* -h, -V or --list-keys: nothing more to do */
};

/* An exit code: EXIT_OK to go on, unless @o->done. */
static int parse_live_opts(int argc, char **argv, struct live_opts *o)
{
	int c;

	o->interval_ms = 1000;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:f:p:c:vVh", live_long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (parse_ulong(optarg, 10, 3600000, &o->interval_ms))
				return cli_usage_error(NULL, "bad interval '%s': milliseconds, 10 to 3600000", optarg);
			break;
		case 'f':
			if (strlen(optarg) >= VIEW_TEXT_LEN)
				return cli_usage_error(NULL, "filter too long");
			o->filter = optarg;
			break;
		case OPT_RECORD:
			o->record = optarg;
			break;
		case 'v':
			global_opts.verbose = true;
			break;
		case 'V':
			o->done = true;
			printf("schedtop %s%s%s\n", SCHEDTOP_VERSION,
			       *SCHEDTOP_GIT_REV ? " " : "", SCHEDTOP_GIT_REV);
			return EXIT_OK;
		case 'h':
			o->done = true;
			fputs(schedtop_usage, stdout);
			return EXIT_OK;
		case OPT_LIST_KEYS:
			if (optarg && strcmp(optarg, "man"))
				return cli_usage_error(NULL, "--list-keys takes man or nothing");
			o->done = true;
			return view_write_keys(stdout, optarg) ? EXIT_FAIL : EXIT_OK;
		default:
			if (cli_shared_option(NULL, c, argv, &o->session, &o->pelt))
				return EXIT_USAGE;
			break;
		}
	}
	if (optind < argc)
		return cli_usage_error(NULL, "unknown command '%s'", argv[optind]);
	if (cli_pelt_args_check(NULL, &o->pelt))
		return EXIT_USAGE;
	return EXIT_OK;
}

/*
 * Between the emulation and the session (run.h): the terminal taken and the
 * loading message shown; libbpf must not scribble over the screen, so with
 * -v (its debug output) the screen is left again. An exit code.
 */
static int open_view(void *ctx)
{
	struct live *lv = ctx;

	setlocale(LC_ALL, "");
	if (open_terminal(&lv->style))
		return EXIT_FAIL;
	mvaddstr(0, 0, lv->run.sopts.source == SCHEDSTAT_SOURCE_TRACEFS ?
		 "schedtop: starting tracefs..." : "schedtop: loading BPF programs...");
	refresh();
	if (global_opts.verbose)
		endwin();
	return EXIT_OK;
}

static void leave_view(void *ctx)
{
	restore_terminal();
}

int cmd_live(int argc, char **argv)
{
	struct live lv = { .run = RUN_INIT, .loop = LOOP_INIT };
	struct live_opts o = {};
	int err, ret;

	ret = parse_live_opts(argc, argv, &o);
	if (ret != EXIT_OK || o.done)
		goto cleanup;
	view_init(&lv.view, o.interval_ms);
	if (o.filter)
		strcpy(lv.view.filter, o.filter);
	cli_pelt_args_apply(&o.pelt, &lv.run.sopts, on_pelt, &lv);
	if (o.pelt.trace)
		lv.view.pelt = &lv.pelt;
	/* A full-screen view cannot print: the recording keeps its failures. */
	lv.run.rec.defer_errors = true;
	ret = run_open(&lv.run, &(struct run_opts){
		.args = &o.session, .pelt = &o.pelt, .record = o.record,
		.interval_ms = o.interval_ms, .argc = argc, .argv = argv,
		.before_session = open_view, .leave_screen = leave_view, .ctx = &lv,
	});
	if (ret != EXIT_OK)
		goto cleanup;
	lv.recording = o.record != NULL;
	lv.view.emul = lv.run.emul;
	ret = EXIT_FAIL;
	err = run_view(&lv);
	/* The updates held back for ordering go in before the file ends. */
	if (lv.recording && lv.view.pelt) {
		int ferr = schedstat_session_flush(lv.run.session);

		if (!err)
			err = ferr;
		recording_out_pelt_dropped(&lv.run.rec,
					   schedstat_session_pelt_dropped(lv.run.session));
	}
	restore_terminal();
	if (err)
		cli_error("%s", schedstat_strerror(err));
	else
		ret = EXIT_OK;
cleanup:
	restore_terminal();
	loop_close(&lv.loop);
	schedstat_snapshot_free(lv.snap);
	/* Said once the terminal is back: the view could only show it. */
	if (run_close(&lv.run) != EXIT_OK)
		ret = EXIT_FAIL;
	view_free(&lv.view);
	tui_pelt_free(&lv.pelt);
	free(o.pelt.pids);
	close_terminal();
	return ret;
}
