// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop record: the live sources, headless, into a recording that replay,
 * report, convert and csv --from read back (docs/record-format.md).
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "emulate.h"
#include "energy_opt.h"
#include "recording.h"
#include "sample_loop.h"

static const char record_usage[] =
"Usage: schedtop record -o FILE [OPTIONS]\n"
"Sample the scheduler into a recording for replay, report, convert and csv --from.\n"
"\n"
"  -o, --output FILE      the recording (\"-\": standard output, e.g. adb exec-out)\n"
"  -i, --interval MS      sample interval in milliseconds (default 1000, min 10)\n"
"  -d, --duration SECONDS stop after this long\n"
"  -n, --samples N        stop after N samples\n"
"      --topology SPEC    clusters as NAME:CPULIST[@CAPACITY],..., or @FILE\n"
"      --sysfs-root DIR   read the topology from DIR instead of /sys\n"
"      --emulate SPEC     big.LITTLE while recording, e.g. LITTLE:0@50%,big:1\n"
"                         (schedtop emulate --help; gives the topology)\n"
"      --exact-wakeups    count every sched_waking instead of the sleeps that\n"
"                         ended, and preemptions: runs programs on every\n"
"                         switch and wakeup (53 ns per switch, 78 per wakeup)\n"
ENERGY_OPT_USAGE
"  -q, --quiet            no summary on standard error at the end\n"
"  -v, --verbose          show libbpf debug output\n"
"  -h, --help             show this help\n"
"\n"
"Runs until -d/-n is reached or SIGINT/SIGTERM/SIGHUP, which finish the file.\n"
"A recorder killed outright loses at most the last second.\n";

enum { OPT_TOPOLOGY = 256, OPT_SYSFS_ROOT, OPT_EXACT_WAKEUPS,
       OPT_EMULATE, OPT_ENERGY_MODEL };

const struct option record_long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "samples", required_argument, NULL, 'n' },
	{ "topology", required_argument, NULL, OPT_TOPOLOGY },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
	{ "exact-wakeups", no_argument, NULL, OPT_EXACT_WAKEUPS },
	{ "emulate", required_argument, NULL, OPT_EMULATE },
	{ "energy-model", required_argument, NULL, OPT_ENERGY_MODEL },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

static int on_sample(const struct schedstat_snapshot *snap, void *ctx)
{
	return recording_out_sample(ctx, snap);
}

int cmd_record(int argc, char **argv)
{
	struct schedstat_session_opts sopts = {};
	struct schedstat_session *s = NULL;
	struct recording_out out = { .fd = -1 };
	unsigned long interval = 1000, samples = 0;
	const char *path = NULL, *emulate = NULL, *energy_model = NULL;
	struct schedstat_energy_model *em = NULL;
	struct emulation emul = {};
	char desc[256];
	double seconds = 0;
	bool quiet = false;
	char *spec = NULL;
	int c, err, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:i:d:n:qvh", record_long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			path = optarg;
			break;
		case 'i':
			if (parse_ulong(optarg, 10, 3600000, &interval))
				return cli_usage_error("record", "bad interval '%s': milliseconds, 10 to 3600000", optarg);
			break;
		case 'd':
			if (parse_seconds(optarg, &seconds))
				return cli_usage_error("record", "bad duration '%s': seconds, more than 0", optarg);
			break;
		case 'n':
			if (parse_ulong(optarg, 1, 1000000000, &samples))
				return cli_usage_error("record", "bad sample count '%s'", optarg);
			break;
		case OPT_TOPOLOGY:
			sopts.topology = optarg;
			break;
		case OPT_SYSFS_ROOT:
			sopts.sysfs_root = optarg;
			break;
		case OPT_EXACT_WAKEUPS:
			sopts.exact_wakeups = true;
			break;
		case OPT_EMULATE:
			emulate = optarg;
			break;
		case OPT_ENERGY_MODEL:
			energy_model = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			global_opts.verbose = true;
			break;
		case 'h':
			fputs(record_usage, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("record", c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("record", "unexpected argument '%s'", argv[optind]);
	if (!path)
		return cli_usage_error("record", "-o FILE is required");
	if (seconds && samples)
		return cli_usage_error("record", "-d and -n do not go together");
	if (!strcmp(path, "-") && isatty(STDOUT_FILENO))
		return cli_usage_error("record", "a recording is binary: -o - wants a pipe or a file, not a terminal");
	if (seconds)
		samples = samples_for(seconds, interval);
	if (emulate && sopts.topology)
		return cli_usage_error("record", "--emulate gives the topology: no --topology with it");
	if (sopts.topology) {
		spec = cli_topology_spec(sopts.topology);
		if (!spec)
			return EXIT_USAGE;
		sopts.topology = spec;
	}
	/* A closed pipe (adb went away) must be an error we see, not a kill. */
	signal(SIGPIPE, SIG_IGN);
	if (emulate) {
		if (emulation_parse(&emul, emulate, sopts.sysfs_root)) {
			ret = EXIT_USAGE;
			goto cleanup;
		}
		sopts.topology = emul.topology_spec;
		if (emulation_start(&emul, EMULATE_AUTO))
			goto cleanup;
		out.emulation = emulation_describe(&emul, desc, sizeof(desc));
		if (!quiet)
			emulation_print_start(&emul);
	}
	/* Stored in the recording: report and csv --from derive the same power. */
	if (energy_opt_load(energy_model, &em)) {
		ret = EXIT_USAGE;
		goto cleanup;
	}
	sopts.energy_model = em;
	out.em = em;
	sopts.on_event = recording_out_event;
	sopts.event_ctx = &out;
	err = cli_session_open(&s, &sopts);
	if (err) {
		cli_error("%s", schedstat_strerror(err));
		goto cleanup;
	}
	if (recording_out_open(&out, path, schedstat_session_topology(s), interval,
			       argc, argv))
		goto cleanup;
	err = sample_loop(s, interval, samples, on_sample, &out);
	/* Every failure was reported where it happened. */
	ret = err ? EXIT_FAIL : EXIT_OK;
cleanup:
	/* Detach first: the file's end marker is the last thing written. */
	schedstat_session_close(s);
	if (recording_out_close(&out))
		ret = EXIT_FAIL;
	else if (ret == EXIT_OK && !quiet && out.bytes)
		fprintf(stderr, "schedtop: recorded %lu samples, %" PRIu64 " bytes, to %s\n",
			out.nr_samples, out.bytes, path);
	else if (ret == EXIT_OK && !quiet)
		fprintf(stderr, "schedtop: recorded %lu samples\n", out.nr_samples);
	if (emulation_stop(&emul))
		ret = EXIT_FAIL;
	emulation_free(&emul);
	schedstat_energy_model_free(em);
	free(spec);
	return ret;
}
