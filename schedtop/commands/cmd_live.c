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
#include "emulate.h"
#include "energy_opt.h"
#include "loop.h"
#include "recording.h"
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

#define FIRST_SAMPLE_MS	100

struct live {
	struct schedstat_session *session;
	struct schedstat_snapshot *snap;	/* shown; kept while paused */
	struct view view;
	struct tui_style style;
	struct loop loop;
	struct recording_out rec;	/* --record, while it works */
	bool recording;
	struct tui_pelt pelt;		/* --pelt-trace: the tasks' updates */
	int pelt_err;			/* the first failure to keep one */
	struct atrace_out atrace;	/* --atrace */
};

/* The session's on_pelt: the detail screen's copy, and --record's. */
static void on_pelt(const struct schedstat_pelt_update *u, void *ctx)
{
	struct live *lv = ctx;
	int err = tui_pelt_add(&lv->pelt, u);

	if (err && !lv->pelt_err)
		lv->pelt_err = err;
	if (lv->recording)
		recording_out_pelt(u, &lv->rec);
}

static void redraw(void *ctx)
{
	struct live *lv = ctx;

	if (lv->snap)
		view_rows(&lv->view, lv->snap, schedstat_snapshot_ts_ns(lv->snap));
	tui_draw(&lv->view, lv->snap, schedstat_session_topology(lv->session),
		 &lv->style);
}

static int sample(void *ctx)
{
	struct live *lv = ctx;
	struct schedstat_snapshot *snap;
	int err = schedstat_session_sample(lv->session, &snap);

	if (err)
		return err;
	if (lv->pelt_err) {
		schedstat_snapshot_free(snap);
		return lv->pelt_err;
	}
	if (lv->view.pelt) {
		lv->view.pelt_lost = schedstat_session_pelt_dropped(lv->session);
		if (lv->recording)
			recording_out_pelt_dropped(&lv->rec, lv->view.pelt_lost);
	}
	atrace_out_sample(&lv->atrace, snap);
	/* A recording that fails stops; the view goes on and says why. */
	if (lv->recording && recording_out_sample(&lv->rec, snap)) {
		lv->recording = false;
		lv->view.message = lv->rec.error;
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
	int err = schedstat_session_poll(lv->session);

	return err < 0 ? err : 0;
}

/* Returns 1 to quit. */
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
			return 1;
		if (a == ACT_INTERVAL)
			loop_set_interval(&lv->loop, lv->view.interval_ms);
		dirty |= a != ACT_NONE;
	}
	if (dirty)
		redraw(lv);
	return 0;
}

static int run(struct live *lv)
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
	err = tui_loop_open(&lv->loop, schedstat_session_event_fd(lv->session),
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
 * The terminal taken and the loading message shown; libbpf must not scribble
 * over the screen, so with -v (its debug output) the screen is left again.
 */
static int open_view(struct live *lv, const struct live_opts *o,
		     enum schedstat_source source)
{
	setlocale(LC_ALL, "");
	view_init(&lv->view, o->interval_ms);
	if (o->filter)
		strcpy(lv->view.filter, o->filter);
	if (open_terminal(&lv->style))
		return -1;
	mvaddstr(0, 0, source == SCHEDSTAT_SOURCE_TRACEFS ?
		 "schedtop: starting tracefs..." : "schedtop: loading BPF programs...");
	refresh();
	if (global_opts.verbose)
		endwin();
	return 0;
}

/* The session with --pelt-trace and --record wired in; -1 once said. */
static int open_session(struct live *lv, const struct live_opts *o,
			struct schedstat_session_opts *sopts, int argc, char **argv)
{
	int err;

	cli_pelt_args_apply(&o->pelt, sopts, on_pelt, lv);
	if (o->pelt.trace)
		lv->view.pelt = &lv->pelt;
	if (o->record) {
		lv->rec.defer_errors = true;
		sopts->on_event = recording_out_event;
		sopts->event_ctx = &lv->rec;
	}
	err = cli_session_open(&lv->session, sopts);
	if (err) {
		restore_terminal();
		cli_error("%s", schedstat_strerror(err));
		return -1;
	}
	if (o->record) {
		if (recording_out_open(&lv->rec, o->record,
				       schedstat_session_topology(lv->session),
				       o->interval_ms, argc, argv))
			return -1;
		lv->recording = true;
	}
	return 0;
}

int cmd_live(int argc, char **argv)
{
	struct schedstat_session_opts sopts = {};
	struct live lv = { .loop = LOOP_INIT, .rec = { .fd = -1 } };
	struct live_opts o = {};
	struct emulation emul = {};
	struct schedstat_energy_model *em = NULL;
	char desc[256];
	char *spec = NULL;
	int err, ret;

	ret = parse_live_opts(argc, argv, &o);
	if (ret != EXIT_OK || o.done)
		goto cleanup;
	ret = EXIT_USAGE;
	if (cli_session_args_apply(NULL, &o.session, &sopts, &spec))
		goto cleanup;
	/* Before the terminal is taken: its errors are plain lines. */
	if (energy_opt_load(o.session.energy_model, &em))
		goto cleanup;
	sopts.energy_model = em;
	lv.rec.em = em;
	if (o.session.emulate) {
		ret = emulation_open(&emul, o.session.emulate, sopts.sysfs_root,
				     &sopts);
		if (ret != EXIT_OK)
			goto cleanup;
		lv.rec.emulation = emulation_describe(&emul, desc, sizeof(desc));
	}
	ret = EXIT_FAIL;
	/* Before the terminal is taken: its error is a plain line. */
	if (atrace_out_open(&lv.atrace, &o.pelt))
		goto cleanup;
	if (open_view(&lv, &o, sopts.source) ||
	    open_session(&lv, &o, &sopts, argc, argv))
		goto cleanup;
	err = run(&lv);
	/* The updates held back for ordering go in before the file ends. */
	if (lv.recording && lv.view.pelt) {
		int ferr = schedstat_session_flush(lv.session);

		if (!err)
			err = ferr;
		recording_out_pelt_dropped(&lv.rec,
					   schedstat_session_pelt_dropped(lv.session));
	}
	restore_terminal();
	if (err)
		cli_error("%s", schedstat_strerror(err));
	else
		ret = EXIT_OK;
cleanup:
	restore_terminal();
	atrace_out_close(&lv.atrace);
	loop_close(&lv.loop);
	schedstat_snapshot_free(lv.snap);
	schedstat_session_close(lv.session);
	/* Said once the terminal is back: the view could only show it. */
	if (recording_out_close(&lv.rec) || lv.rec.error[0]) {
		cli_error("%s", lv.rec.error);
		ret = EXIT_FAIL;
	}
	view_free(&lv.view);
	tui_pelt_free(&lv.pelt);
	free(o.pelt.pids);
	free(spec);
	close_terminal();
	if (emulation_stop(&emul))
		ret = EXIT_FAIL;
	emulation_free(&emul);
	schedstat_energy_model_free(em);
	return ret;
}
