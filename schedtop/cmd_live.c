// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop with no command: the live view. One event loop (loop.h) takes
 * keys, samples and signals; every way out goes through one cleanup that
 * restores the terminal and detaches BPF.
 */
#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <term.h>
#include <unistd.h>

#include "cli.h"
#include "loop.h"
#include "tui_draw.h"
#include "tui_view.h"

enum { OPT_TOPOLOGY = 256, OPT_SYSFS_ROOT, OPT_EXACT_WAKEUPS, OPT_SOURCE };

static const struct option live_long_opts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "topology", required_argument, NULL, OPT_TOPOLOGY },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
	{ "filter", required_argument, NULL, 'f' },
	{ "exact-wakeups", no_argument, NULL, OPT_EXACT_WAKEUPS },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

#define FIRST_SAMPLE_MS	100

static SCREEN *screen;

/* Also reached from atexit() and fatal signals: leave the terminal usable. */
static void restore_terminal(void)
{
	if (screen && !isendwin())
		endwin();
}

static void on_fatal_signal(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * The terminal description: $TERM if terminfo knows it, else a VT100-like
 * fallback, else a clear message. setupterm() is asked first because
 * newterm() would print its own error and exit.
 */
static int open_terminal(struct tui_style *style)
{
	static const char *const fallbacks[] = { "xterm", "vt100", "linux", NULL };
	const char *term = getenv("TERM");
	int err = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cli_error("the live view needs a terminal; 'schedtop csv' writes to pipes and files");
		return -ENOTTY;
	}
	if (!term || !*term || setupterm(term, STDOUT_FILENO, &err) != OK) {
		const char *const *f;

		for (f = fallbacks; *f; f++)
			if (setupterm(*f, STDOUT_FILENO, &err) == OK)
				break;
		if (!*f) {
			cli_error("no terminfo entry for TERM=%s (nor xterm or vt100): "
				  "set TERMINFO or TERM, or use 'schedtop csv'",
				  term ? term : "(unset)");
			return -ENOENT;
		}
		term = *f;
	}
	del_curterm(cur_term);
	screen = newterm(term, stdout, stdin);
	if (!screen) {
		cli_error("cannot start the terminal '%s': use 'schedtop csv'", term);
		return -EIO;
	}
	atexit(restore_terminal);
	signal(SIGSEGV, on_fatal_signal);
	signal(SIGABRT, on_fatal_signal);
	signal(SIGBUS, on_fatal_signal);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	style->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	style->color = has_colors() && !getenv("NO_COLOR");
	tui_draw_init(style);
	return 0;
}

struct live {
	struct schedstat_session *session;
	struct schedstat_snapshot *snap;	/* shown; kept while paused */
	struct view view;
	struct tui_style style;
	struct loop loop;
};

static void redraw(struct live *lv)
{
	if (lv->snap)
		view_rows(&lv->view, lv->snap, schedstat_snapshot_ts_ns(lv->snap));
	tui_draw(&lv->view, lv->snap, schedstat_session_topology(lv->session),
		 &lv->style);
}

static int sample(struct live *lv)
{
	struct schedstat_snapshot *snap;
	int err = schedstat_session_sample(lv->session, &snap);

	if (err)
		return err;
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

/* Returns 1 to quit. */
static int keys(struct live *lv)
{
	bool dirty = false;
	int key;

	while ((key = getch()) != ERR) {
		enum view_action a;

		if (key == KEY_RESIZE) {
			dirty = true;
			continue;
		}
		a = view_key(&lv->view, key, lv->snap ? tui_draw_page(&lv->view, lv->snap) : 0);
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
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, 0 };
	int fds[] = { STDIN_FILENO, schedstat_session_event_fd(lv->session), -1 };
	int err;

	err = loop_open(&lv->loop, signals, fds, lv->view.interval_ms);
	/*
	 * A person waits for the first frame: take the first sample soon
	 * (its deltas cover less than an interval; percentages still hold).
	 */
	if (!err && lv->view.interval_ms > FIRST_SAMPLE_MS)
		err = loop_set_timer(&lv->loop, FIRST_SAMPLE_MS, lv->view.interval_ms);
	if (err)
		return err;
	redraw(lv);
	for (;;) {
		struct epoll_event evs[4];
		int n = epoll_wait(lv->loop.epfd, evs, 4, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd, sig;

			if (fd == lv->loop.sigfd) {
				sig = loop_signal(&lv->loop);
				if (sig != SIGWINCH && sig)
					return 0;
				/* The signal is ours, not ncurses': tell it. */
				endwin();
				refresh();
				redraw(lv);
			} else if (fd == lv->loop.timerfd) {
				if (!loop_ticks(&lv->loop))
					continue;
				err = sample(lv);
				if (err)
					return err;
				redraw(lv);
			} else if (fd == STDIN_FILENO) {
				if (keys(lv))
					return 0;
			} else {
				err = schedstat_session_poll(lv->session);
				if (err < 0)
					return err;
			}
		}
	}
}

int cmd_live(int argc, char **argv)
{
	struct schedstat_session_opts sopts = {};
	struct live lv = { .loop = LOOP_INIT };
	unsigned long interval = 1000;
	const char *filter = NULL;
	char *spec = NULL;
	int c, err, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:f:vVh", live_long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (parse_ulong(optarg, 10, 3600000, &interval))
				return cli_usage_error(NULL, "bad interval '%s': milliseconds, 10 to 3600000", optarg);
			break;
		case OPT_TOPOLOGY:
			sopts.topology = optarg;
			break;
		case OPT_SYSFS_ROOT:
			sopts.sysfs_root = optarg;
			break;
		case 'f':
			if (strlen(optarg) >= VIEW_TEXT_LEN)
				return cli_usage_error(NULL, "filter too long");
			filter = optarg;
			break;
		case OPT_EXACT_WAKEUPS:
			sopts.exact_wakeups = true;
			break;
		case OPT_SOURCE:
			if (cli_parse_source(optarg, &sopts.source))
				return cli_usage_error(NULL, "unknown source '%s': auto, bpf or tracefs", optarg);
			break;
		case 'v':
			global_opts.verbose = true;
			break;
		case 'V':
			printf("schedtop %s%s%s\n", SCHEDTOP_VERSION,
			       *SCHEDTOP_GIT_REV ? " " : "", SCHEDTOP_GIT_REV);
			return EXIT_OK;
		case 'h':
			fputs(schedtop_usage, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option(NULL, c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error(NULL, "unknown command '%s'", argv[optind]);

	if (sopts.topology) {
		spec = cli_topology_spec(sopts.topology);
		if (!spec)
			return EXIT_USAGE;
		sopts.topology = spec;
	}
	setlocale(LC_ALL, "");
	view_init(&lv.view, interval);
	if (filter)
		strcpy(lv.view.filter, filter);
	if (open_terminal(&lv.style))
		goto cleanup;
	mvaddstr(0, 0, sopts.source == SCHEDSTAT_SOURCE_TRACEFS ?
		 "schedtop: starting tracefs..." : "schedtop: loading BPF programs...");
	refresh();
	/* libbpf must not scribble over the screen: it only logs with -v. */
	if (global_opts.verbose)
		endwin();
	err = cli_session_open(&lv.session, &sopts);
	if (err) {
		restore_terminal();
		cli_error("%s", schedstat_strerror(err));
		goto cleanup;
	}
	err = run(&lv);
	restore_terminal();
	if (err)
		cli_error("%s", schedstat_strerror(err));
	else
		ret = EXIT_OK;
cleanup:
	restore_terminal();
	loop_close(&lv.loop);
	schedstat_snapshot_free(lv.snap);
	schedstat_session_close(lv.session);
	view_free(&lv.view);
	free(spec);
	if (screen) {
		delscreen(screen);
		screen = NULL;
	}
	return ret;
}
