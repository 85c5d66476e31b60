// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop workload NAME: run a built-in mobile workload while sampling the
 * scheduler, then score it: every constraint met, the estimated average
 * power; any missed, a very large number (docs/workloads.md).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "recording.h"
#include "run.h"
#include "sample_loop.h"
#include "workload.h"

struct wl_opts {
	const struct workload *wl;
	double seconds;
	unsigned long interval_ms;
	const char *cpus;
	double scale;
	unsigned long seed;
	const char *record;
	bool json;
	/* --topology, --emulate and --energy-model: cli.h's shared options */
	struct cli_session_args session;
	const char *calibration;
	bool recalibrate;
	const char *activations;
};

static const char workload_usage[] =
"Usage: schedtop workload NAME [OPTIONS]\n"
"       schedtop workload --list\n"
"Run a synthetic mobile workload (threads inside schedtop) while sampling the\n"
"scheduler, and score it: when every constraint is met the figure of merit is\n"
"the estimated average power in mW (smaller is better); when any is missed it\n"
"is 1e6 per missed constraint plus that power.\n"
"\n"
"  -d, --duration SECONDS run this long (default 10); Ctrl-C ends it early\n"
"  -i, --interval MS      sample interval of the power estimate (default 1000)\n"
"      --cpus LIST        CPUs the workload's threads may run on, e.g. 0-3\n"
"      --scale F          multiply every work size by F (default 1)\n"
"      --seed N           jitter and reading pauses from seed N (default 1)\n"
"      --record FILE      also make a recording of the run (schedtop report)\n"
"      --json             the summary as one JSON object on standard output\n"
"      --activations FILE every activation as CSV: release, start, end,\n"
"                         deadline, response and slack\n"
CLI_USAGE_TOPOLOGY
CLI_USAGE_ENERGY_MODEL
CLI_USAGE_EMULATE
"      --calibration FILE where the work units' calibration is kept\n"
"      --recalibrate      measure the work units again and store them\n"
"      --list[=man]       name the workloads and their constraints (troff\n"
"                         for the man page)\n"
"  -v, --verbose          show libbpf debug output\n"
"  -h, --help             show this help\n"
"\n"
"Workloads (--list says more):\n";

/* --topology, --emulate and --energy-model are cli.h's shared options. */
enum {
	OPT_CPUS = 256, OPT_SCALE, OPT_SEED, OPT_RECORD, OPT_JSON,
	OPT_CALIBRATION, OPT_RECALIBRATE, OPT_LIST, OPT_ACTIVATIONS,
};

const struct option workload_long_opts[] = {
	{ "duration", required_argument, NULL, 'd' },
	{ "interval", required_argument, NULL, 'i' },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "activations", required_argument, NULL, OPT_ACTIVATIONS },
	CLI_OPT_TOPOLOGY,
	CLI_OPT_ENERGY_MODEL,
	CLI_OPT_EMULATE,
	{ "calibration", required_argument, NULL, OPT_CALIBRATION },
	{ "recalibrate", no_argument, NULL, OPT_RECALIBRATE },
	{ "list", optional_argument, NULL, OPT_LIST },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

/* The man page's WORKLOADS section (make docs), from the same table. */
static void list_workloads_man(void)
{
	for (size_t i = 0; i < nr_workloads; i++) {
		const struct workload *w = &workloads[i];

		printf(".TP\n.B %s\n%s. Threads:", w->name, w->desc);
		for (size_t t = 0; t < w->nr_threads; t++)
			printf(" \\fB%s\\fR", w->threads[t].comm);
		printf(".\n");
		for (size_t c = 0; c < w->nr_constraints; c++) {
			const struct wl_constraint *k = &w->constraints[c];

			printf(".br\n");
			if (k->kind == WL_MISS_RATIO)
				printf("Constraint \\fI%s\\fR: at most %g%% of activations late or dropped (%s).\n",
				       k->name, 100 * k->limit, k->why);
			else
				printf("Constraint \\fI%s\\fR: every response within %g ms (%s).\n",
				       k->name, k->limit, k->why);
		}
	}
}

static void list_workloads(void)
{
	for (size_t i = 0; i < nr_workloads; i++) {
		const struct workload *w = &workloads[i];

		printf("%-7s %s\n", w->name, w->desc);
		printf("        threads:");
		for (size_t t = 0; t < w->nr_threads; t++)
			printf(" %s", w->threads[t].comm);
		putchar('\n');
		for (size_t c = 0; c < w->nr_constraints; c++) {
			const struct wl_constraint *k = &w->constraints[c];

			if (k->kind == WL_MISS_RATIO)
				printf("        constraint: %s, at most %g%% of activations late or dropped (%s)\n",
				       k->name, 100 * k->limit, k->why);
			else
				printf("        constraint: %s, every response within %g ms (%s)\n",
				       k->name, k->limit, k->why);
		}
	}
}

/*
 * After the options: the workload named after them (if not before), and
 * what does not go together. -1 to go on, or the exit code.
 */
static int check_opts(int argc, char **argv, struct wl_opts *o)
{
	if (!o->wl && optind < argc) {
		o->wl = workload_find(argv[optind]);
		if (!o->wl)
			return cli_usage_error("workload", "unknown workload '%s': audio, video, browse or camera", argv[optind]);
		optind++;
	}
	if (optind < argc)
		return cli_usage_error("workload", "unexpected argument '%s'", argv[optind]);
	if (!o->wl)
		return cli_usage_error("workload", "name a workload: audio, video, browse or camera (--list)");
	if (o->session.emulate && o->session.topology)
		return cli_usage_error("workload", "--emulate gives the topology: no --topology with it");
	if (o->record && !strcmp(o->record, "-") && o->json)
		return cli_usage_error("workload", "--record - and --json cannot both go to standard output");
	return -1;
}

/* Returns -1 to go on, or the exit code. */
static int parse_opts(int argc, char **argv, struct wl_opts *o)
{
	unsigned long ul;
	char *end;
	int c;

	o->seconds = 10;
	o->interval_ms = 1000;
	o->scale = 1;
	o->seed = 1;
	optind = 1;
	opterr = 0;
	/* "workload NAME -d 8": the name may come before the options. */
	if (argc > 1 && argv[1][0] != '-') {
		o->wl = workload_find(argv[1]);
		if (!o->wl)
			return cli_usage_error("workload", "unknown workload '%s': audio, video, browse or camera", argv[1]);
		optind = 2;
	}
	while ((c = getopt_long(argc, argv, "+:d:i:vh", workload_long_opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_seconds(optarg, &o->seconds))
				return cli_usage_error("workload", "bad duration '%s': seconds, more than 0", optarg);
			break;
		case 'i':
			if (parse_ulong(optarg, 10, 3600000, &o->interval_ms))
				return cli_usage_error("workload", "bad interval '%s': milliseconds, 10 to 3600000", optarg);
			break;
		case OPT_CPUS:
			o->cpus = optarg;
			break;
		case OPT_SCALE:
			o->scale = strtod(optarg, &end);
			if (*end || end == optarg || !(o->scale > 0) || o->scale > 1000)
				return cli_usage_error("workload", "bad scale '%s': a factor above 0, e.g. 0.5 or 2", optarg);
			break;
		case OPT_SEED:
			if (parse_ulong(optarg, 0, ~0UL, &ul))
				return cli_usage_error("workload", "bad seed '%s': a whole number", optarg);
			o->seed = ul;
			break;
		case OPT_RECORD:
			o->record = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_ACTIVATIONS:
			o->activations = optarg;
			break;
		case OPT_CALIBRATION:
			o->calibration = optarg;
			break;
		case OPT_RECALIBRATE:
			o->recalibrate = true;
			break;
		case OPT_LIST:
			if (optarg && strcmp(optarg, "man"))
				return cli_usage_error("workload", "--list takes man or nothing");
			if (optarg)
				list_workloads_man();
			else
				list_workloads();
			return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
		case 'v':
			global_opts.verbose = true;
			break;
		case 'h':
			fputs(workload_usage, stdout);
			for (size_t i = 0; i < nr_workloads; i++)
				printf("  %-7s %s\n", workloads[i].name, workloads[i].desc);
			return EXIT_OK;
		default:
			if (cli_shared_option("workload", c, argv, &o->session, NULL))
				return EXIT_USAGE;
			break;
		}
	}
	return check_opts(argc, argv, o);
}

/* The stored calibration, measured and stored first when there is none. */
static int calibration(const struct wl_opts *o, double *units_per_ms)
{
	char buf[512];
	const char *path = o->calibration ? o->calibration :
			   wl_calibration_path(buf, sizeof(buf));
	int err = -ENOENT;

	if (path && !o->recalibrate)
		err = wl_calibration_load(path, units_per_ms);
	if (!err)
		return 0;
	if (err != -ENOENT) {
		cli_error("%s: not a calibration (%s): remove it or give --recalibrate",
			  path, strerror(-err));
		return err;
	}
	*units_per_ms = wl_calibrate(-1);
	if (!path) {
		cli_error("no place to keep the calibration (no HOME): give --calibration FILE");
		return -ENOENT;
	}
	err = wl_calibration_store(path, *units_per_ms);
	if (err) {
		cli_error("cannot store the calibration in %s: %s; give --calibration FILE",
			  path, strerror(-err));
		return err;
	}
	fprintf(stderr, "schedtop: calibrated %.1f work units per ms, stored in %s\n",
		*units_per_ms, path);
	return 0;
}

struct wl_sampling {
	struct wl_tally *tally;
	struct wl_run *run;
	const struct workload *wl;
	struct recording_out *rec;
	bool record;
};

/* An activation done by now: the score's, and the recording's. */
static int on_activation(const struct wl_activation *a, void *ctx)
{
	struct wl_sampling *ws = ctx;
	struct schedstat_event ev;

	if (ws->record) {
		wl_activation_event(a, ws->wl, getpid(), &ev);
		recording_out_event(&ev, ws->rec);
	}
	return wl_tally_activation(ws->tally, a);
}

/* Each sample: the activations done by its time, then its energy. */
static int on_sample(const struct schedstat_snapshot *snap, void *ctx)
{
	struct wl_sampling *ws = ctx;
	int err = wl_run_drain(ws->run, schedstat_snapshot_ts_ns(snap), false,
			       on_activation, ws);

	if (err) {
		cli_error("keeping the activations: %s", strerror(-err));
		return err;
	}
	if (ws->record) {
		err = recording_out_sample(ws->rec, snap);
		if (err)
			return err;
	}
	wl_tally_sample(ws->tally, snap);
	return 0;
}

static int write_activations(const char *path, struct wl_run *run,
			     const struct workload *wl)
{
	const struct wl_activation *a;
	size_t n;
	FILE *f = fopen(path, "w");

	if (!f) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	a = wl_run_activations(run, &n);
	fprintf(f, "thread,tid,constraint,release_ns,start_ns,end_ns,deadline_ns,response_ns,slack_ns,dropped\n");
	for (size_t i = 0; i < n; i++) {
		const char *cname = a[i].constraint < wl->nr_constraints ?
				    wl->constraints[a[i].constraint].name : "";

		fprintf(f, "%s,%d,%s,%" PRIu64 ",", wl->threads[a[i].thread].comm,
			a[i].tid, cname, a[i].release);
		if (a[i].dropped)
			fprintf(f, ",,%" PRIu64 ",,,1\n", a[i].deadline);
		else if (!a[i].end && a[i].start)
			/* Not finished when the run stopped: no end. */
			fprintf(f, "%" PRIu64 ",,%" PRIu64 ",,,0\n", a[i].start, a[i].deadline);
		else if (!a[i].end)
			fprintf(f, ",,%" PRIu64 ",,,0\n", a[i].deadline);
		else
			fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",0\n",
				a[i].start, a[i].end, a[i].deadline,
				(int64_t)(a[i].end - a[i].release),
				(int64_t)(a[i].deadline - a[i].end));
	}
	if (fclose(f)) {
		cli_error("writing %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

/*
 * The recording's metadata: the workload, its scale, seed and CPUs, so
 * that report judges the run as it ran. @scale and @seed hold the text.
 */
static void workload_meta(const struct wl_opts *o, char scale[32], char seed[32],
			  const char *meta[9])
{
	const char *m[] = {
		"workload", o->wl->name,
		"workload_scale", scale,
		"workload_seed", seed,
		o->cpus ? "workload_cpus" : NULL, o->cpus,
		NULL,
	};

	snprintf(scale, 32, "%g", o->scale);
	snprintf(seed, 32, "%lu", o->seed);
	memcpy(meta, m, sizeof(m));
}

/* The workload's threads running: an exit code, or -1 when they are. */
static int start_threads(const struct wl_opts *o, double units_per_ms,
			 struct wl_run **run)
{
	int err;

	/*
	 * The threads inherit this mask (cli_session_open() set it already):
	 * Ctrl-C must reach the event loop's signalfd, not kill a worker.
	 */
	cli_block_ending_signals();
	err = wl_run_start(run, &(struct wl_run_opts){
		.wl = o->wl, .units_per_ms = units_per_ms, .scale = o->scale,
		.seed = o->seed, .cpus = o->cpus,
	});
	if (err == -EINVAL)
		return cli_usage_error("workload", "bad CPU list '%s': e.g. 1 or 0-3,6", o->cpus);
	if (err == -ENXIO) {
		cli_error("no CPU of --cpus %s is online: name online CPUs (/sys/devices/system/cpu/online)", o->cpus);
		return EXIT_FAIL;
	}
	if (err) {
		cli_error("cannot start the workload's threads: %s", strerror(-err));
		return EXIT_FAIL;
	}
	return -1;
}

/*
 * The score on standard output; with --json also each thread's id and CPU
 * time, and where judging stopped on the clock of --activations.
 */
static void print_score(const struct wl_opts *o, const struct wl_tally *tally,
			struct wl_run *run)
{
	char threads[512], end_ns[32];
	const char *extra[] = { "threads", threads, "end_ns", end_ns, NULL };
	size_t len = 0;

	snprintf(end_ns, sizeof(end_ns), "%" PRIu64, tally->last_ts);
	len += snprintf(threads + len, sizeof(threads) - len, "[");
	for (size_t t = 0; t < o->wl->nr_threads; t++)
		len += snprintf(threads + len, sizeof(threads) - len,
				"%s{\"comm\": \"%s\", \"tid\": %d, \"cpu_ns\": %" PRIu64 "}",
				t ? ", " : "", o->wl->threads[t].comm,
				wl_run_tid(run, t), wl_run_cpu_ns(run, t));
	snprintf(threads + len, sizeof(threads) - len, "]");
	if (o->json)
		wl_score_json(stdout, &tally->score, extra);
	else
		wl_score_print(stdout, &tally->score);
}

/* After the last sample: the score and --activations. An exit code. */
static int finish_run(const struct wl_opts *o, struct wl_sampling *ws)
{
	int err;

	/*
	 * The run ends at the last sample: what was due by then and not done
	 * is missed, though the thread (starved, say) never got to say so.
	 * No sample follows to carry it into a recording.
	 */
	ws->record = false;
	err = wl_run_drain(ws->run, ws->tally->last_ts, true, on_activation, ws);
	if (err) {
		cli_error("keeping the activations: %s", strerror(-err));
		return EXIT_FAIL;
	}
	if (wl_run_policy_failures(ws->run))
		cli_error("warning: %zu threads ran without their policy (SCHED_FIFO, nice): run as root for a phone's priorities",
			  wl_run_policy_failures(ws->run));
	wl_tally_finish(ws->tally, o->wl);
	print_score(o, ws->tally, ws->run);
	if (o->activations && write_activations(o->activations, ws->run, o->wl))
		return EXIT_FAIL;
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}

int cmd_workload(int argc, char **argv)
{
	struct wl_opts o = {};
	struct run r = RUN_INIT;
	struct wl_run *run = NULL;
	struct wl_tally tally = {};
	struct wl_sampling ws = { .tally = &tally, .rec = &r.rec };
	double units_per_ms;
	char scale[32], seed[32];
	const char *meta[9];
	int ret, err;

	ret = parse_opts(argc, argv, &o);
	if (ret >= 0)
		return ret;
	ret = EXIT_FAIL;
	if (calibration(&o, &units_per_ms))
		goto cleanup;
	workload_meta(&o, scale, seed, meta);
	ret = run_open(&r, &(struct run_opts){
		.cmd = "workload", .args = &o.session, .record = o.record,
		.interval_ms = o.interval_ms, .argc = argc, .argv = argv,
		.extra_meta = meta, .say_emulation = true,
	});
	if (ret != EXIT_OK)
		goto cleanup;
	ws.record = o.record != NULL;
	ret = start_threads(&o, units_per_ms, &run);
	if (ret >= 0)
		goto cleanup;
	ret = EXIT_FAIL;
	ws.run = run;
	ws.wl = o.wl;
	tally.em = r.em;
	err = sample_loop(r.session, o.interval_ms, samples_for(o.seconds, o.interval_ms),
			  on_sample, &ws);
	wl_run_stop(run);
	if (!err)
		ret = finish_run(&o, &ws);
cleanup:
	wl_run_stop(run);
	wl_run_free(run);
	wl_tally_free(&tally);
	if (run_close(&r) != EXIT_OK)
		ret = EXIT_FAIL;
	return ret;
}
