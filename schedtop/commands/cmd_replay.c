// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop replay: the live view over a recording. The same screens and
 * keys, plus moving through time: pause, step, seek, speed. A jump rebuilds
 * the sparklines from the samples before the new position, so what is on
 * screen is what the live view showed at that moment.
 */
#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "loop.h"
#include "recording.h"
#include "terminal.h"
#include "tui_draw.h"
#include "tui_loop.h"
#include "tui_view.h"

static const char replay_usage[] =
"Usage: schedtop replay [OPTIONS] FILE\n"
"Show a recording in the live view, with the live view's keys and more:\n"
"space pause, . , step, [ ] 10 s, { } start/end, : go to a time, + - speed.\n"
"From a recording made with --pelt-trace, the task detail (Enter) draws\n"
"the task's every PELT update of the 2 s before the sample shown.\n"
"\n"
"  -s, --speed X          x0.25, x0.5, x1 (default), x2 ... x16\n"
"      --start TIME       begin at TIME from the start (seconds or M:SS)\n"
"  -f, --filter TEXT      show only tasks whose name contains TEXT (or a pid)\n"
INPUT_OPTS_USAGE
"  -h, --help             show this help\n";

enum { OPT_START = 256 };

const struct option replay_long_opts[] = {
	{ "speed", required_argument, NULL, 's' },
	{ "start", required_argument, NULL, OPT_START },
	{ "filter", required_argument, NULL, 'f' },
	INPUT_LONG_OPTS,
	{ "help", no_argument, NULL, 'h' },
	{}
};

struct replay {
	struct schedstat_recording *rec;
	struct schedstat_recording_info info;
	size_t idx;				/* sample shown */
	struct schedstat_snapshot *snap;	/* that sample */
	struct view view;
	struct tui_style style;
	struct loop loop;
	uint64_t play_ts;			/* the replay clock, recording time */
	bool have_wall;
	int64_t wall_minus_mono;		/* realtime - monotonic, ns */
	/* --pelt-trace recordings: the updates up to the sample shown. */
	struct tui_pelt pelt;
	struct schedstat_pelt_update next;	/* read, not yet due */
	bool have_next;
	uint64_t pelt_ts;			/* updates taken up to this */
};

/*
 * The replay clock advances by TICK_MS times the speed at each tick and the
 * view shows the last sample taken by then: the samples' own times set the
 * pace, whatever interval they were taken at.
 */
#define TICK_MS		20

static void describe(struct replay *rp)
{
	struct view *v = &rp->view;
	uint64_t ts = schedstat_snapshot_ts_ns(rp->snap);
	double at = (ts - rp->info.first_ts_ns) / 1e9;
	double len = (rp->info.last_ts_ns - rp->info.first_ts_ns) / 1e9;
	char when[32] = "";

	if (rp->have_wall) {
		time_t t = (int64_t)(ts + rp->wall_minus_mono) / 1000000000LL;
		struct tm tm;

		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), " %H:%M:%S", &tm);
	}
	snprintf(v->replay_status, sizeof(v->replay_status),
		 " REPLAY %zu/%zu %.1f/%.1f s x%g%s", rp->idx + 1,
		 rp->info.nr_samples, at, len, v->speed_x4 / 4.0, when);
}

/*
 * The recording's PELT updates up to @ts, into the detail screen's buffer.
 * Forward, only the new ones are read; back, from the first again, as the
 * buffer must hold what the live view held at that moment.
 */
static int feed_pelt(struct replay *rp, uint64_t ts)
{
	int err;

	if (!rp->view.pelt)
		return 0;
	if (ts < rp->pelt_ts) {
		schedstat_recording_pelt_rewind(rp->rec);
		tui_pelt_clear(&rp->pelt);
		rp->have_next = false;
	}
	rp->pelt_ts = ts;
	for (;;) {
		if (!rp->have_next) {
			err = schedstat_recording_pelt_next(rp->rec, &rp->next);
			if (err == -ENODATA)
				break;
			if (err == -EBADMSG) {
				rp->view.message = "damaged PELT updates skipped";
				continue;
			}
			if (err)
				return err;
			rp->have_next = true;
		}
		if (rp->next.ts_ns > ts)
			break;
		rp->have_next = false;
		err = tui_pelt_add(&rp->pelt, &rp->next);
		if (err)
			return err;
	}
	rp->view.pelt_lost = schedstat_recording_pelt_dropped(rp->rec);
	return 0;
}

/*
 * Show sample @idx. The next one feeds the view like a live sample; any
 * other position refills the view's history from the samples before it. A
 * damaged chunk is stepped over in the direction of travel.
 */
static int go_to(struct replay *rp, size_t idx, int dir)
{
	size_t n = rp->info.nr_samples, from;
	struct schedstat_snapshot *snap = NULL;
	int err;

	for (;;) {
		err = schedstat_recording_sample(rp->rec, idx, &snap, NULL, NULL);
		if (err != -EBADMSG)
			break;
		rp->view.message = "damaged part of the recording skipped";
		if (dir < 0 ? idx == 0 : schedstat_recording_skip(rp->rec, idx) >= n)
			return rp->snap ? 0 : -EBADMSG;
		idx = dir < 0 ? idx - 1 : schedstat_recording_skip(rp->rec, idx);
	}
	if (err)
		return err;
	if (!rp->snap || idx != rp->idx + 1) {
		view_forget(&rp->view);
		from = idx >= HIST_LEN ? idx - HIST_LEN + 1 : 0;
		for (size_t i = from; i < idx; i++) {
			struct schedstat_snapshot *old;

			if (schedstat_recording_sample(rp->rec, i, &old, NULL, NULL))
				continue;
			err = view_update(&rp->view, old);
			schedstat_snapshot_free(old);
			if (err)
				break;
		}
	}
	if (!err)
		err = view_update(&rp->view, snap);
	if (!err)
		err = feed_pelt(rp, schedstat_snapshot_ts_ns(snap));
	if (err) {
		schedstat_snapshot_free(snap);
		return err;
	}
	schedstat_snapshot_free(rp->snap);
	rp->snap = snap;
	rp->idx = idx;
	rp->play_ts = schedstat_snapshot_ts_ns(snap);
	rp->view.interval_ms = (schedstat_snapshot_interval_ns(snap) + 500000) / 1000000;
	describe(rp);
	return 0;
}

static void redraw(void *ctx)
{
	struct replay *rp = ctx;

	view_rows(&rp->view, rp->snap, schedstat_snapshot_ts_ns(rp->snap));
	tui_draw(&rp->view, rp->snap, schedstat_recording_topology(rp->rec),
		 &rp->style);
}

static int seek(struct replay *rp, uint64_t ts_ns, int dir)
{
	return go_to(rp, schedstat_recording_find(rp->rec, ts_ns), dir);
}

static int act(struct replay *rp, enum view_action a)
{
	struct view *v = &rp->view;
	uint64_t t0 = rp->info.first_ts_ns;
	uint64_t now = rp->snap ? schedstat_snapshot_ts_ns(rp->snap) : t0;
	int64_t by;

	switch (a) {
	case ACT_STEP_FWD:
		return rp->idx + 1 < rp->info.nr_samples ? go_to(rp, rp->idx + 1, 1) : 0;
	case ACT_STEP_BACK:
		return rp->idx ? go_to(rp, rp->idx - 1, -1) : 0;
	case ACT_SEEK_START:
		return go_to(rp, 0, 1);
	case ACT_SEEK_END:
		return go_to(rp, rp->info.nr_samples - 1, -1);
	case ACT_SEEK_BY:
		by = v->seek_s * 1e9;
		/* Before the start is the start. */
		return seek(rp, by < 0 && (uint64_t)-by > now - t0 ? t0 : now + by,
			    by < 0 ? -1 : 1);
	case ACT_SEEK_TO:
		return seek(rp, t0 + (uint64_t)(v->seek_s * 1e9), 1);
	default:
		return 0;
	}
}

/* LOOP_STOP to quit (loop.h), or an error. */
static int keys(void *ctx)
{
	struct replay *rp = ctx;
	bool dirty = false;
	int key, err;

	while ((key = getch()) != ERR) {
		enum view_action a;

		if (key == KEY_RESIZE) {
			dirty = true;
			continue;
		}
		rp->view.message = NULL;
		a = view_key(&rp->view, key, tui_draw_page(rp->snap));
		if (a == ACT_QUIT)
			return LOOP_STOP;
		err = act(rp, a);
		if (err)
			return err;
		if (a == ACT_SPEED || a == ACT_REDRAW)
			describe(rp);
		dirty |= a != ACT_NONE;
	}
	if (dirty)
		redraw(rp);
	return 0;
}

/* The samples the replay clock has passed; at the end, pause there. */
static int tick(void *ctx)
{
	struct replay *rp = ctx;
	size_t was = rp->idx;
	bool stuck = false;
	uint64_t clock;
	int err;

	if (rp->view.paused)
		return LOOP_UNCHANGED;
	clock = rp->play_ts + TICK_MS * 1000000ULL * rp->view.speed_x4 / 4;
	/*
	 * Every sample passed, not just the last: the sparklines must miss
	 * none. A damaged chunk reads as time 0 and go_to() steps over it.
	 */
	while (rp->idx + 1 < rp->info.nr_samples &&
	       schedstat_recording_ts(rp->rec, rp->idx + 1) <= clock) {
		size_t before = rp->idx;

		err = go_to(rp, rp->idx + 1, 1);
		if (err)
			return err;
		stuck = rp->idx == before;
		if (stuck)
			break;
	}
	rp->play_ts = clock;
	if (stuck || rp->idx + 1 >= rp->info.nr_samples) {
		rp->view.paused = true;
		rp->view.message = "end of the recording: { start, [ back, q quit";
		return 0;
	}
	return rp->idx == was ? LOOP_UNCHANGED : LOOP_GO_ON;
}

static int no_other(void *ctx)
{
	return 0;
}

static int run(struct replay *rp)
{
	static const struct tui_loop_ops ops = {
		.tick = tick, .keys = keys, .other = no_other, .redraw = redraw,
	};
	int err = tui_loop_open(&rp->loop, -1, TICK_MS, TICK_MS);

	return err ? err : tui_loop_run(&rp->loop, &ops, rp);
}

static int parse_speed(const char *s, unsigned int *x4)
{
	char *end;
	double x;

	if (*s == 'x')
		s++;
	x = strtod(s, &end);
	if (end == s || *end)
		return -EINVAL;
	for (unsigned int v = 1; v <= 64; v *= 2) {
		if (x == v / 4.0) {
			*x4 = v;
			return 0;
		}
	}
	return -EINVAL;
}

static void wall_clock(struct replay *rp)
{
	const char *real = schedstat_recording_meta(rp->rec, "start_realtime_ns");
	const char *mono = schedstat_recording_meta(rp->rec, "start_monotonic_ns");

	if (!real || !mono)
		return;
	rp->wall_minus_mono = (int64_t)(strtoull(real, NULL, 10) - strtoull(mono, NULL, 10));
	rp->have_wall = true;
}

struct replay_opts {
	const char *filter;
	const char *start;		/* --start: seconds or M:SS */
	struct input_opts in;		/* --topology, --pelt-scheme */
	unsigned int speed_x4;		/* -s, in quarters */
};

/* Options into @o; -1 to go on, or the exit code. */
static int parse_replay_opts(int argc, char **argv, struct replay_opts *o)
{
	int c;

	o->speed_x4 = 4;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:f:h", replay_long_opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_speed(optarg, &o->speed_x4))
				return cli_usage_error("replay", "bad speed '%s': x0.25, x0.5, x1, x2 ... x16", optarg);
			break;
		case OPT_START:
			o->start = optarg;
			break;
		case 'f':
			if (strlen(optarg) >= VIEW_TEXT_LEN)
				return cli_usage_error("replay", "filter too long");
			o->filter = optarg;
			break;
		case OPT_INPUT_TOPOLOGY:
		case OPT_INPUT_PELT_SCHEME:
			if (input_opt("replay", c, optarg, &o->in))
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(replay_usage, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("replay", c, argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("replay", "give one file: a schedtop recording or a trace (trace.dat, Perfetto)");
	return -1;
}

int cmd_replay(int argc, char **argv)
{
	struct replay rp = { .loop = LOOP_INIT };
	struct replay_opts o = {};
	int fd = -1, err, ret;

	ret = parse_replay_opts(argc, argv, &o);
	if (ret >= 0)
		return ret;
	ret = EXIT_FAIL;
	fd = open_recording(argv[optind], 0, &o.in, &rp.rec);
	if (fd < 0)
		return EXIT_FAIL;
	schedstat_recording_info(rp.rec, &rp.info);
	recording_warn_lost(argv[optind], &rp.info);
	wall_clock(&rp);
	setlocale(LC_ALL, "");
	/* The interval shown is each sample's own (see go_to()). */
	view_init(&rp.view, 1000);
	/* A recording made with --pelt-trace: its first update is ahead. */
	err = schedstat_recording_pelt_next(rp.rec, &rp.next);
	if (err != -ENODATA) {
		rp.view.pelt = &rp.pelt;
		rp.have_next = !err;
	}
	rp.view.replay = true;
	rp.view.speed_x4 = o.speed_x4;
	if (o.filter)
		strcpy(rp.view.filter, o.filter);
	if (o.start) {
		memcpy(rp.view.input_buf, o.start, strnlen(o.start, VIEW_TEXT_LEN - 1));
		rp.view.input = INPUT_SEEK;
		if (view_key(&rp.view, '\n', 0) != ACT_SEEK_TO) {
			ret = cli_usage_error("replay", "bad start '%s': seconds or M:SS", o.start);
			goto cleanup;
		}
	}
	if (open_terminal(&rp.style))
		goto cleanup;
	err = o.start ? act(&rp, ACT_SEEK_TO) : go_to(&rp, 0, 1);
	if (!err)
		err = run(&rp);
	restore_terminal();
	if (err == -EBADMSG)
		cli_error("%s: no sample reads back: the recording is damaged", argv[optind]);
	else if (err)
		cli_error("%s: %s", argv[optind], schedstat_strerror(err));
	else
		/* A damaged trace shows up to the damage; said again here. */
		ret = recording_input_damage();
cleanup:
	close_terminal();
	loop_close(&rp.loop);
	schedstat_snapshot_free(rp.snap);
	view_free(&rp.view);
	tui_pelt_free(&rp.pelt);
	schedstat_recording_close(rp.rec);
	close(fd);
	return ret;
}
