// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop emulate SPEC: this machine made to behave like the big.LITTLE
 * one in SPEC until -d runs out or a signal ends it (schedstat_emulation_*,
 * docs/emulation.md). Other commands take --emulate SPEC for their length
 * (run.c).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loop.h"
#include "run.h"

static const char emulate_usage[] =
"Usage: schedtop emulate SPEC [OPTIONS]\n"
"Make this machine behave like the big.LITTLE one in SPEC until -d runs out\n"
"or SIGINT/SIGTERM/SIGHUP, then put everything back.\n"
"\n"
"SPEC is NAME:CPULIST[@N%],... e.g. LITTLE:0@50%,big:1 or LITTLE:0-3@40%,big:4-7:\n"
"each CPU of a cluster at N% runs at N% of itself (10 to 100, default 100),\n"
"and the clusters are the topology (capacity N% of 1024) of every view.\n"
"\n"
"  -d, --duration SECONDS stop after this long (default: until a signal)\n"
"  -m, --method METHOD    auto (default: cpufreq where every CPU has it, else\n"
"                         stealer), stealer (a SCHED_FIFO thread per slowed CPU\n"
"                         burns 100-N% of every 2 ms) or cpufreq (caps\n"
"                         scaling_max_freq of slowed CPUs, floors\n"
"                         scaling_min_freq of the others)\n"
CLI_USAGE_SYSFS_ROOT
"      --restore          only put back cpufreq limits a killed schedtop left\n"
"  -q, --quiet            no summary on standard error at the end\n"
"  -v, --verbose          (accepted for symmetry; nothing more to say)\n"
"  -h, --help             show this help\n"
"\n"
"The live view, csv and record take --emulate SPEC to do the same while they\n"
"run. What each method does not reproduce: docs/emulation.md.\n";

enum { OPT_RESTORE = 256 };

const struct option emulate_long_opts[] = {
	{ "duration", required_argument, NULL, 'd' },
	{ "method", required_argument, NULL, 'm' },
	CLI_OPT_SYSFS_ROOT,
	{ "restore", no_argument, NULL, OPT_RESTORE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

/* SIGINT, SIGTERM, SIGHUP: the normal end without -d. */
static int on_signal(void *ctx, int sig)
{
	return LOOP_STOP;
}

/* The one timer expiry is -d running out. */
static int on_tick(void *ctx)
{
	return LOOP_STOP;
}

static int on_ready(void *ctx, int fd)
{
	return 0;
}

static int wait_for_end(double seconds)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, 0 };
	static const struct loop_ops ops = {
		.signal = on_signal, .tick = on_tick, .ready = on_ready,
	};
	int fds[] = { -1 };
	struct loop l = LOOP_INIT;
	int err;

	err = loop_open(&l, signals, fds, seconds ? (unsigned long)(seconds * 1000 + 0.5) : 1000);
	/* Without -d nothing but a signal ends it: no timer. */
	if (!err && !seconds)
		err = loop_set_timer(&l, 0, 0);
	if (!err)
		err = loop_run(&l, &ops, NULL);
	if (err)
		cli_error("event loop: %s", strerror(-err));
	loop_close(&l);
	return err;
}

/* What the stealers really took, from their schedstat: the user's check. */
static void print_summary(const struct schedstat_emulation *e)
{
	int cpus[64];
	double pct[64];
	int n = schedstat_emulation_measure(e, cpus, pct, 64);

	for (int i = 0; i < n; i++)
		fprintf(stderr, "schedtop: cpu%d: the stealer ran %.1f%% of the time (wanted %u%%)\n",
			cpus[i], pct[i], 100 - schedstat_emulation_cpu_pct(e, cpus[i]));
}

/* --restore: a killed schedtop's cpufreq limits put back. An exit code. */
static int restore(void)
{
	struct schedstat_emulation_recovery rc;
	char why[320];

	if (schedstat_emulation_recover(true, &rc, why, sizeof(why))) {
		cli_error("%s", why);
		return EXIT_FAIL;
	}
	run_say_recovered(&rc);
	return EXIT_OK;
}

int cmd_emulate(int argc, char **argv)
{
	enum schedstat_emulate_method method = SCHEDSTAT_EMULATE_AUTO;
	struct cli_session_args a = {};
	struct schedstat_emulation *e = NULL;
	bool quiet = false, restore_only = false;
	char why[320];
	double seconds = 0;
	int c, err, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	/* No leading '+': options may come after SPEC, getopt moves them. */
	while ((c = getopt_long(argc, argv, ":d:m:qvh", emulate_long_opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_seconds(optarg, &seconds))
				return cli_usage_error("emulate", "bad duration '%s': seconds, more than 0", optarg);
			break;
		case 'm':
			if (schedstat_emulate_method_parse(optarg, &method))
				return cli_usage_error("emulate", "unknown method '%s': auto, stealer or cpufreq", optarg);
			break;
		case OPT_RESTORE:
			restore_only = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			global_opts.verbose = true;
			break;
		case 'h':
			fputs(emulate_usage, stdout);
			return EXIT_OK;
		default:
			if (cli_shared_option("emulate", c, argv, &a, NULL))
				return EXIT_USAGE;
			break;
		}
	}
	if (restore_only) {
		if (optind < argc)
			return cli_usage_error("emulate", "--restore takes no SPEC");
		return restore();
	}
	if (optind >= argc)
		return cli_usage_error("emulate", "SPEC is missing, e.g. schedtop emulate 'LITTLE:0@50%%,big:1' -d 10");
	if (optind + 1 < argc)
		return cli_usage_error("emulate", "unexpected argument '%s'", argv[optind + 1]);
	err = schedstat_emulation_new(&e, argv[optind], a.sysfs_root, why, sizeof(why));
	if (err) {
		cli_error("%s", err == -EINVAL ? why : strerror(-err));
		return err == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	/* Ended by the loop's signalfd, never halfway through a start. */
	cli_block_ending_signals();
	err = schedstat_emulation_start(e, method);
	run_say_recovered(schedstat_emulation_recovered(e));
	if (err) {
		cli_error("%s", schedstat_emulation_error(e));
		goto cleanup;
	}
	if (!quiet)
		run_say_emulation(e);
	err = wait_for_end(seconds);
	if (!quiet)
		print_summary(e);
	if (schedstat_emulation_stop(e)) {
		cli_error("%s", schedstat_emulation_error(e));
		goto cleanup;
	}
	if (err)
		goto cleanup;
	ret = EXIT_OK;
cleanup:
	schedstat_emulation_free(e);
	return ret;
}
