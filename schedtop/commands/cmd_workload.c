// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop workload NAME|FILE: run an rt-app use case (a built-in, or a
 * file as rt-app's users write it) in schedtop's own threads while
 * sampling the scheduler, then score it: every constraint met, the
 * estimated average power; any missed, a very large number
 * (docs/workloads.md).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "loop.h"
#include "recording.h"
#include "run.h"
#include "sample_loop.h"
#include "workload.h"

struct wl_opts {
	const char *arg;		/* the built-in's name or the file */
	struct schedstat_workload *wl;
	double seconds;			/* 0: the file's duration, else until the threads end */
	bool seconds_given;
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
	const char *log_dir;
};

static const char workload_usage[] =
"Usage: schedtop workload NAME|FILE [OPTIONS]\n"
"       schedtop workload --list\n"
"Run a mobile use case (a built-in, or an rt-app JSON file as rt-app's users\n"
"write it) in schedtop's own threads while sampling the scheduler, and score\n"
"it: when every constraint is met the figure of merit is the estimated\n"
"average power in mW (smaller is better); when any is missed it is 1e6 per\n"
"missed constraint plus that power.\n"
"\n"
"  -d, --duration SECONDS run this long (default: the file's global duration,\n"
"                         else until its threads end); Ctrl-C ends it early\n"
"  -i, --interval MS      sample interval of the power estimate (default 1000)\n"
"      --cpus LIST        CPUs of the threads whose file names none, e.g. 0-3\n"
"      --scale F          multiply every run by F (default 1)\n"
"      --seed N           the file's jitter from seed N (default 1)\n"
"      --record FILE      also make a recording of the run (schedtop report)\n"
"      --json             the summary as one JSON object on standard output\n"
"      --activations FILE every activation as CSV: release, start, end,\n"
"                         deadline, response and slack\n"
"      --rt-app-log DIR   rt-app's per-thread log files, in its format\n"
CLI_USAGE_TOPOLOGY
CLI_USAGE_ENERGY_MODEL
CLI_USAGE_EMULATE
"      --calibration FILE where the work loops' calibration is kept\n"
"      --recalibrate      measure the work loops again and store them\n"
"      --list[=man]       name the built-ins and their constraints (troff\n"
"                         for the man page)\n"
"  -v, --verbose          show libbpf debug output\n"
"  -h, --help             show this help\n"
"\n"
"Built-in workloads (--list says more):\n";

/* --topology, --emulate and --energy-model are cli.h's shared options. */
enum {
	OPT_CPUS = 256, OPT_SCALE, OPT_SEED, OPT_RECORD, OPT_JSON,
	OPT_CALIBRATION, OPT_RECALIBRATE, OPT_LIST, OPT_ACTIVATIONS, OPT_RTAPP_LOG,
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
	{ "rt-app-log", required_argument, NULL, OPT_RTAPP_LOG },
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

static void usage(void)
{
	fputs(workload_usage, stdout);
	for (size_t i = 0; workload_builtins[i].name; i++) {
		struct schedstat_workload *wl = workload_builtin(workload_builtins[i].name);

		if (wl)
			printf("  %-7s %s\n", workload_builtins[i].name,
			       schedstat_workload_description(wl));
		schedstat_workload_free(wl);
	}
}

/* After the options: what does not go together. -1 to go on, or the exit code. */
static int check_opts(int argc, char **argv, struct wl_opts *o)
{
	if (!o->arg && optind < argc)
		o->arg = argv[optind++];
	if (optind < argc)
		return cli_usage_error("workload", "unexpected argument '%s'", argv[optind]);
	if (!o->arg)
		return cli_usage_error("workload", "name a workload (%s) or an rt-app file (--list)",
				       workload_builtin_names());
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

	o->interval_ms = 1000;
	o->scale = 1;
	o->seed = 1;
	optind = 1;
	opterr = 0;
	/* "workload NAME -d 8": the name may come before the options. */
	if (argc > 1 && argv[1][0] != '-') {
		o->arg = argv[1];
		optind = 2;
	}
	while ((c = getopt_long(argc, argv, "+:d:i:vh", workload_long_opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_seconds(optarg, &o->seconds))
				return cli_usage_error("workload", "bad duration '%s': seconds, more than 0", optarg);
			o->seconds_given = true;
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
		case OPT_RTAPP_LOG:
			o->log_dir = optarg;
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
			return workload_list(optarg != NULL);
		case 'v':
			global_opts.verbose = true;
			break;
		case 'h':
			usage();
			return EXIT_OK;
		default:
			if (cli_shared_option("workload", c, argv, &o->session, NULL))
				return EXIT_USAGE;
			break;
		}
	}
	return check_opts(argc, argv, o);
}

/*
 * Root: /var/lib/schedtop/calibration (one per machine, as a phone's
 * /data would hold it); others: $XDG_CACHE_HOME/schedtop/calibration,
 * else ~/.cache/schedtop/calibration.
 */
static const char *calibration_path(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (!geteuid())
		snprintf(buf, size, "/var/lib/schedtop/calibration");
	else if (xdg && *xdg)
		snprintf(buf, size, "%s/schedtop/calibration", xdg);
	else if (home && *home)
		snprintf(buf, size, "%s/.cache/schedtop/calibration", home);
	else
		return NULL;
	return buf;
}

/*
 * ns per loop: the file's number, else the stored calibration of the CPU
 * it names, measured and stored first when there is none.
 */
static int calibration(const struct wl_opts *o, double *ns_per_loop)
{
	char buf[512];
	const char *path = o->calibration ? o->calibration : calibration_path(buf, sizeof(buf));
	int cpu = schedstat_workload_calibration(o->wl, ns_per_loop);
	int err = -ENOENT;

	if (cpu < 0)
		return 0;
	if (path && !o->recalibrate)
		err = schedstat_workload_calibration_load(path, cpu, ns_per_loop);
	if (!err)
		return 0;
	if (err != -ENOENT) {
		cli_error("%s: not a calibration (%s): remove it or give --recalibrate",
			  path, strerror(-err));
		return err;
	}
	err = schedstat_workload_calibrate(cpu, ns_per_loop);
	if (err) {
		cli_error("cannot calibrate on CPU%d, which %s names: %s", cpu,
			  schedstat_workload_name(o->wl), strerror(-err));
		return err;
	}
	if (!path) {
		cli_error("no place to keep the calibration (no HOME): give --calibration FILE");
		return -ENOENT;
	}
	err = schedstat_workload_calibration_store(path, cpu, *ns_per_loop);
	if (err) {
		cli_error("cannot store the calibration in %s: %s; give --calibration FILE",
			  path, strerror(-err));
		return err;
	}
	fprintf(stderr, "schedtop: calibrated %.3f ns per work loop on CPU%d, stored in %s\n",
		*ns_per_loop, cpu, path);
	return 0;
}

struct wl_sampling {
	const struct wl_opts *o;
	struct schedstat_workload_tally *tally;
	struct schedstat_workload_run *run;
	struct recording_out *rec;
	bool record;
};

/* An activation handed over: the score's, and the recording's if judged. */
static int on_activation(const struct schedstat_workload_activation *a, void *ctx)
{
	struct wl_sampling *ws = ctx;
	struct schedstat_event ev;

	if (ws->record && a->constraint != SCHEDSTAT_WORKLOAD_UNJUDGED) {
		schedstat_workload_activation_event(a,
			schedstat_workload_thread_comm(ws->o->wl, a->thread), getpid(), &ev);
		recording_out_event(&ev, ws->rec);
	}
	return schedstat_workload_tally_activation(ws->tally, a);
}

static int drain_error(struct wl_sampling *ws, int err)
{
	const char *why = schedstat_workload_error(ws->run);

	if (why)
		cli_error("%s", why);
	else
		cli_error("keeping the activations: %s", strerror(-err));
	return err;
}

/* Each sample: the activations done by its time, then its energy. */
static int on_sample(const struct schedstat_snapshot *snap, void *ctx)
{
	struct wl_sampling *ws = ctx;
	int err = schedstat_workload_drain(ws->run, schedstat_snapshot_ts_ns(snap), false,
					   on_activation, ws);

	if (err)
		return drain_error(ws, err);
	if (ws->record) {
		err = recording_out_sample(ws->rec, snap);
		if (err)
			return err;
	}
	schedstat_workload_tally_sample(ws->tally, snap);
	/* A use case whose threads all ended (finite loops) ends the run. */
	return schedstat_workload_done(ws->run) ? LOOP_STOP : LOOP_GO_ON;
}

static void csv_field(FILE *f, const char *s)
{
	bool quote = strpbrk(s, ",\"\n\r") != NULL;

	if (quote)
		fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	if (quote)
		fputc('"', f);
}

static int write_activations(const struct wl_opts *o, struct schedstat_workload_run *run)
{
	const struct schedstat_workload_activation *a;
	size_t n;
	FILE *f = fopen(o->activations, "w");

	if (!f) {
		cli_error("cannot write %s: %s", o->activations, strerror(errno));
		return -errno;
	}
	a = schedstat_workload_activations(run, &n);
	fprintf(f, "thread,tid,constraint,release_ns,start_ns,end_ns,deadline_ns,response_ns,slack_ns,dropped\n");
	for (size_t i = 0; i < n; i++) {
		const struct schedstat_workload_constraint *k =
			schedstat_workload_constraint(o->wl, a[i].constraint);
		bool judged = k != NULL;

		csv_field(f, schedstat_workload_thread_comm(o->wl, a[i].thread));
		fprintf(f, ",%d,", a[i].tid);
		csv_field(f, k ? k->name : "");
		fprintf(f, ",%" PRIu64 ",", a[i].release);
		if (a[i].dropped)
			fprintf(f, ",,%" PRIu64 ",,,1\n", a[i].deadline);
		else if (!a[i].end)
			/* Not finished when the run stopped: no end. */
			fprintf(f, "%" PRIu64 ",,%" PRIu64 ",,,0\n", a[i].start, a[i].deadline);
		else if (judged)
			fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",0\n",
				a[i].start, a[i].end, a[i].deadline,
				(int64_t)(a[i].end - a[i].release),
				(int64_t)(a[i].deadline - a[i].end));
		else
			/* Judged by nothing: no deadline, no slack. */
			fprintf(f, "%" PRIu64 ",%" PRIu64 ",,%" PRId64 ",,0\n",
				a[i].start, a[i].end, (int64_t)(a[i].end - a[i].release));
	}
	if (fclose(f)) {
		cli_error("writing %s: %s", o->activations, strerror(errno));
		return -EIO;
	}
	return 0;
}

/*
 * The recording's metadata: the workload, its constraints, scale, seed
 * and CPUs, so that report judges the run as it ran. @cons, @scale and
 * @seed hold the text. 0, or -ENOSPC (said).
 */
static int workload_meta(const struct wl_opts *o, char cons[4096], char scale[32],
			 char seed[32], const char *meta[11])
{
	const char *m[] = {
		"workload", schedstat_workload_name(o->wl),
		"workload_constraints", cons,
		"workload_scale", scale,
		"workload_seed", seed,
		o->cpus ? "workload_cpus" : NULL, o->cpus,
		NULL,
	};

	if (schedstat_workload_constraints_format(o->wl, cons, 4096)) {
		cli_error("%s: too many constraints for a recording's metadata (%zu)",
			  schedstat_workload_name(o->wl), schedstat_workload_nr_constraints(o->wl));
		return -ENOSPC;
	}
	snprintf(scale, 32, "%g", o->scale);
	snprintf(seed, 32, "%lu", o->seed);
	memcpy(meta, m, sizeof(m));
	return 0;
}

/* The workload's threads running: an exit code, or -1 when they are. */
static int start_threads(const struct wl_opts *o, double ns_per_loop,
			 struct schedstat_workload_run **run)
{
	char err[SCHEDSTAT_WORKLOAD_ERR_LEN];
	int ret;

	/*
	 * The threads inherit this mask (cli_session_open() set it already):
	 * Ctrl-C must reach the event loop's signalfd, not kill a worker.
	 */
	cli_block_ending_signals();
	/* rt-app's logdir must exist; --rt-app-log makes it, as a user expects. */
	if (o->log_dir && mkdir(o->log_dir, 0755) && errno != EEXIST) {
		cli_error("--rt-app-log %s: %s", o->log_dir, strerror(errno));
		return EXIT_FAIL;
	}
	ret = schedstat_workload_start(run, o->wl, &(struct schedstat_workload_opts){
		.ns_per_loop = ns_per_loop, .scale = o->scale, .seed = o->seed,
		.cpus = o->cpus, .log_dir = o->log_dir,
	}, err, sizeof(err));
	if (ret == -ERANGE)
		return cli_usage_error("workload", "bad CPU list '%s': e.g. 1 or 0-3,6", o->cpus);
	if (ret == -ENXIO) {
		cli_error("no CPU of --cpus %s is online: name online CPUs (/sys/devices/system/cpu/online)", o->cpus);
		return EXIT_FAIL;
	}
	if (ret) {
		cli_error("%s", err);
		return EXIT_FAIL;
	}
	return -1;
}

static void json_threads(FILE *f, void *ctx)
{
	struct wl_sampling *ws = ctx;
	size_t n = schedstat_workload_nr_threads(ws->o->wl);

	fputs(", \"threads\": [", f);
	for (size_t t = 0; t < n; t++) {
		fputs(t ? ", {\"comm\": " : "{\"comm\": ", f);
		workload_json_str(f, schedstat_workload_thread_comm(ws->o->wl, t));
		fprintf(f, ", \"tid\": %d, \"cpu_ns\": %" PRIu64 "}",
			schedstat_workload_tid(ws->run, t), schedstat_workload_cpu_ns(ws->run, t));
	}
	fprintf(f, "], \"end_ns\": %" PRIu64, schedstat_workload_tally_finish(ws->tally)->end_ns);
}

/* What could not be applied, each in one line. */
static void print_notes(struct schedstat_workload_run *run)
{
	struct schedstat_workload_notes n;

	schedstat_workload_notes(run, &n);
	if (n.policy_refused)
		cli_error("warning: %zu threads ran without their policy (SCHED_FIFO, nice): run as root for a phone's priorities",
			  n.policy_refused);
	if (n.uclamp_unsupported)
		cli_error("warning: util_min/util_max of %zu threads not applied: this kernel has no uclamp (CONFIG_UCLAMP_TASK)",
			  n.uclamp_unsupported);
	if (n.lock_pages_refused)
		cli_error("warning: lock_pages: the kernel refused to lock schedtop's pages (RLIMIT_MEMLOCK)");
}

/* After the last sample: the score, --activations, the logs. An exit code. */
static int finish_run(const struct wl_opts *o, struct wl_sampling *ws)
{
	const struct schedstat_workload_score *s;
	int err;

	/*
	 * The run ends at the last sample: what was due by then and not done
	 * is missed, though the thread (starved, say) never got to say so.
	 * No sample follows to carry it into a recording.
	 */
	ws->record = false;
	s = schedstat_workload_tally_finish(ws->tally);
	err = schedstat_workload_drain(ws->run, s->end_ns, true, on_activation, ws);
	if (err) {
		drain_error(ws, err);
		return EXIT_FAIL;
	}
	print_notes(ws->run);
	s = schedstat_workload_tally_finish(ws->tally);
	if (o->json)
		workload_score_json(stdout, schedstat_workload_name(o->wl), s, json_threads, ws);
	else
		workload_score_print(stdout, schedstat_workload_name(o->wl), s);
	if (o->activations && write_activations(o, ws->run))
		return EXIT_FAIL;
	err = schedstat_workload_close_logs(ws->run);
	if (err) {
		cli_error("--rt-app-log %s: %s", o->log_dir, strerror(-err));
		return EXIT_FAIL;
	}
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}

int cmd_workload(int argc, char **argv)
{
	struct wl_opts o = {};
	struct run r = RUN_INIT;
	struct schedstat_workload_run *run = NULL;
	struct schedstat_workload_tally *tally = NULL;
	struct wl_sampling ws = { .o = &o, .rec = &r.rec };
	double ns_per_loop, seconds;
	char cons[4096], scale[32], seed[32];
	const char *meta[11];
	int ret, err;

	ret = parse_opts(argc, argv, &o);
	if (ret >= 0)
		return ret;
	ret = workload_open(o.arg, &o.wl);
	if (ret >= 0)
		return ret;
	ret = EXIT_FAIL;
	if (calibration(&o, &ns_per_loop))
		goto cleanup;
	if (workload_meta(&o, cons, scale, seed, meta))
		goto cleanup;
	ret = run_open(&r, &(struct run_opts){
		.cmd = "workload", .args = &o.session, .record = o.record,
		.interval_ms = o.interval_ms, .argc = argc, .argv = argv,
		.extra_meta = meta, .say_emulation = true,
	});
	if (ret != EXIT_OK)
		goto cleanup;
	ws.record = o.record != NULL;
	if (schedstat_workload_tally_new(&tally, schedstat_workload_constraint(o.wl, 0),
					 schedstat_workload_nr_constraints(o.wl), r.em != NULL)) {
		cli_error("out of memory");
		ret = EXIT_FAIL;
		goto cleanup;
	}
	ws.tally = tally;
	ret = start_threads(&o, ns_per_loop, &run);
	if (ret >= 0)
		goto cleanup;
	ret = EXIT_FAIL;
	ws.run = run;
	/* -d, else the file's global duration, else until the threads end. */
	seconds = o.seconds_given ? o.seconds : schedstat_workload_duration(o.wl);
	err = sample_loop(r.session, o.interval_ms,
			  seconds > 0 ? samples_for(seconds, o.interval_ms) : 0,
			  on_sample, &ws);
	schedstat_workload_stop(run);
	if (!err)
		ret = finish_run(&o, &ws);
cleanup:
	schedstat_workload_stop(run);
	schedstat_workload_run_free(run);
	schedstat_workload_tally_free(tally);
	if (run_close(&r) != EXIT_OK)
		ret = EXIT_FAIL;
	schedstat_workload_free(o.wl);
	return ret;
}
