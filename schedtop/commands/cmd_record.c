// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop record: the live sources, headless, into a recording that replay,
 * report, convert and csv --from read back (docs/record-format.md).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atrace_out.h"
#include "cli.h"
#include "recording.h"
#include "run.h"
#include "sample_loop.h"

static const char record_usage[] =
"Usage: schedtop record -o FILE [OPTIONS]\n"
"Sample the scheduler into a recording for replay, report, convert and csv --from.\n"
"\n"
"  -o, --output FILE      the recording (\"-\": standard output, e.g. adb exec-out)\n"
"  -i, --interval MS      sample interval in milliseconds (default 1000, min 10)\n"
"  -d, --duration SECONDS stop after this long\n"
"  -n, --samples N        stop after N samples\n"
CLI_USAGE_TOPOLOGY
CLI_USAGE_SYSFS_ROOT
CLI_USAGE_EMULATE
CLI_USAGE_EXACT_WAKEUPS
"      --pelt-trace       also record every PELT update of the tasks of -p/-c\n"
"                         and the CPUs of --pelt-cpus, through BPF ring\n"
"                         buffers (csv --from FILE -t pelt reads them back)\n"
CLI_USAGE_PELT_SELECT
CLI_USAGE_ATRACE
CLI_USAGE_ENERGY_MODEL
"  -q, --quiet            no summary on standard error at the end\n"
"  -v, --verbose          show libbpf debug output\n"
"  -h, --help             show this help\n"
"\n"
"Runs until -d/-n is reached or SIGINT/SIGTERM/SIGHUP, which finish the file.\n"
"A recorder killed outright loses at most the last second.\n";

const struct option record_long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "samples", required_argument, NULL, 'n' },
	CLI_OPT_TOPOLOGY,
	CLI_OPT_SYSFS_ROOT,
	CLI_OPT_EXACT_WAKEUPS,
	CLI_OPT_EMULATE,
	CLI_OPT_PELT,
	CLI_OPT_ATRACE,
	CLI_OPT_ENERGY_MODEL,
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

struct record_run {
	struct run run;
	bool pelt_trace;
	unsigned long nr_pelt;
};

static int on_sample(const struct schedstat_snapshot *snap, void *ctx)
{
	struct record_run *r = ctx;

	if (r->pelt_trace)
		recording_out_pelt_dropped(&r->run.rec,
					   schedstat_session_pelt_dropped(r->run.session));
	atrace_out_sample(&r->run.atrace, snap);
	return recording_out_sample(&r->run.rec, snap);
}

static void on_pelt(const struct schedstat_pelt_update *u, void *ctx)
{
	struct record_run *r = ctx;

	/* Before the file is open: the session's start, not the recording. */
	if (!r->run.rec.rec)
		return;
	r->nr_pelt++;
	recording_out_pelt(u, &r->run.rec);
}

/*
 * The updates held back for ordering go in before the file ends, and what
 * was lost. @err is the run's: the first failure is the one returned.
 */
static int end_pelt(struct record_run *r, bool quiet, int err)
{
	struct schedstat_session *s = r->run.session;
	int ferr = schedstat_session_flush(s);

	if (ferr && !err) {
		cli_error("reading PELT updates: %s", schedstat_strerror(ferr));
		err = ferr;
	}
	recording_out_pelt_dropped(&r->run.rec, schedstat_session_pelt_dropped(s));
	if (!quiet)
		pelt_summary(r->nr_pelt, schedstat_session_pelt_dropped(s));
	return err;
}

struct record_opts {
	const char *path;		/* -o */
	unsigned long interval_ms;
	unsigned long samples;		/* 0: until a signal */
	bool quiet;
	struct cli_session_args session;	/* --topology, --emulate, ... */
	bool done;			/* -h: nothing more to do */
	struct cli_pelt_args pelt;	/* --pelt-trace, -p, -c, --pelt-cpus */
};

/* An exit code: EXIT_OK to go on, unless @o->done. */
static int parse_record_opts(int argc, char **argv, struct record_opts *o)
{
	double seconds = 0;
	int c;

	o->interval_ms = 1000;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:i:d:n:p:c:qvh", record_long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			o->path = optarg;
			break;
		case 'i':
			if (parse_ulong(optarg, 10, 3600000, &o->interval_ms))
				return cli_usage_error("record", "bad interval '%s': milliseconds, 10 to 3600000", optarg);
			break;
		case 'd':
			if (parse_seconds(optarg, &seconds))
				return cli_usage_error("record", "bad duration '%s': seconds, more than 0", optarg);
			break;
		case 'n':
			if (parse_ulong(optarg, 1, 1000000000, &o->samples))
				return cli_usage_error("record", "bad sample count '%s'", optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			global_opts.verbose = true;
			break;
		case 'h':
			fputs(record_usage, stdout);
			o->done = true;
			return EXIT_OK;
		default:
			if (cli_shared_option("record", c, argv, &o->session, &o->pelt))
				return EXIT_USAGE;
			break;
		}
	}
	if (optind < argc)
		return cli_usage_error("record", "unexpected argument '%s'", argv[optind]);
	if (!o->path)
		return cli_usage_error("record", "-o FILE is required");
	if (seconds && o->samples)
		return cli_usage_error("record", "-d and -n do not go together");
	if (!strcmp(o->path, "-") && isatty(STDOUT_FILENO))
		return cli_usage_error("record", "a recording is binary: -o - wants a pipe or a file, not a terminal");
	if (seconds)
		o->samples = samples_for(seconds, o->interval_ms);
	if (cli_pelt_args_check("record", &o->pelt))
		return EXIT_USAGE;
	return EXIT_OK;
}

int cmd_record(int argc, char **argv)
{
	struct record_run r = { .run = RUN_INIT };
	struct recording_out *out = &r.run.rec;
	struct record_opts o = {};
	bool sampled = false;
	int err, ret;

	ret = parse_record_opts(argc, argv, &o);
	if (ret != EXIT_OK || o.done)
		goto cleanup;
	r.pelt_trace = o.pelt.trace;
	cli_pelt_args_apply(&o.pelt, &r.run.sopts, on_pelt, &r);
	/* A closed pipe (adb went away) must be an error we see, not a kill. */
	signal(SIGPIPE, SIG_IGN);
	/* The energy model is stored: report and csv --from derive the same power. */
	ret = run_open(&r.run, &(struct run_opts){
		.cmd = "record", .args = &o.session, .pelt = &o.pelt, .record = o.path,
		.interval_ms = o.interval_ms, .argc = argc, .argv = argv,
		.say_emulation = !o.quiet,
	});
	if (ret != EXIT_OK)
		goto cleanup;
	sampled = true;
	err = sample_loop(r.run.session, o.interval_ms, o.samples, on_sample, &r);
	if (o.pelt.trace)
		err = end_pelt(&r, o.quiet, err);
	/* Every failure was reported where it happened. */
	ret = err ? EXIT_FAIL : EXIT_OK;
cleanup:
	if (run_close(&r.run) != EXIT_OK)
		ret = EXIT_FAIL;
	else if (ret == EXIT_OK && !o.quiet && sampled && out->bytes)
		fprintf(stderr, "schedtop: recorded %lu samples, %" PRIu64 " bytes, to %s\n",
			out->nr_samples, out->bytes, o.path);
	else if (ret == EXIT_OK && !o.quiet && sampled)
		fprintf(stderr, "schedtop: recorded %lu samples\n", out->nr_samples);
	free(o.pelt.pids);
	return ret;
}
