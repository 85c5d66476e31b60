// SPDX-License-Identifier: GPL-2.0
/* schedtop: what the Linux scheduler thinks of every task and CPU. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char main_usage[] =
"Usage: schedtop [-v] [COMMAND [OPTIONS]]\n"
"Show what the Linux scheduler thinks of every task and CPU, by cluster.\n"
"\n"
"Commands:\n"
"  csv        sample headlessly and write CSV (schedtop csv --help)\n"
"  topology   print the CPU clusters schedtop detects\n"
"\n"
"Options:\n"
"  -v, --verbose   show libbpf debug output\n"
"  -V, --version   print the version and exit\n"
"  -h, --help      show this help\n"
"\n"
"Needs root (or CAP_BPF and CAP_PERFMON) and a kernel with BTF.\n"
"See schedtop(1) and docs/ for what each number means.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "csv", cmd_csv },
	{ "topology", cmd_topology },
};

static const struct option main_long_opts[] = {
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

int main(int argc, char **argv)
{
	int c;

	opterr = 0;	/* our own messages, in our own words */
	while ((c = getopt_long(argc, argv, "+:vVh", main_long_opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			global_opts.verbose = true;
			break;
		case 'V':
			printf("schedtop %s%s%s\n", SCHEDTOP_VERSION,
			       *SCHEDTOP_GIT_REV ? " " : "", SCHEDTOP_GIT_REV);
			return EXIT_OK;
		case 'h':
			fputs(main_usage, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option(NULL, c, argv);
		}
	}
	if (optind >= argc) {
		cli_error("the live view is not part of this build yet; "
			  "use 'schedtop csv' (see 'schedtop --help')");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[optind], commands[i].name))
			return commands[i].fn(argc - optind, argv + optind);
	return cli_usage_error(NULL, "unknown command '%s'", argv[optind]);
}
