// SPDX-License-Identifier: GPL-2.0
/* schedtop energy: the energy model in use, where it came from, its OPPs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "energy_opt.h"

static const char energy_usage[] =
"Usage: schedtop energy [OPTIONS]\n"
"Print the energy model schedtop uses for its power estimate and where it\n"
"came from: per domain, each OPP's clock, power, performance (capacity at\n"
"that clock) and the kernel's cost.\n"
"\n"
CLI_USAGE_ENERGY_MODEL
CLI_USAGE_TOPOLOGY
"  -h, --help             show this help\n"
"\n"
"Without a model (no --energy-model, none in debugfs) the power columns are\n"
"empty. See docs/signals.md for both estimates.\n";

const struct option energy_long_opts[] = {
	CLI_OPT_ENERGY_MODEL,
	CLI_OPT_TOPOLOGY,
	{ "help", no_argument, NULL, 'h' },
	{}
};

int cmd_energy(int argc, char **argv)
{
	struct schedstat_energy_model *em = NULL;
	struct schedstat_topology *topo = NULL;
	struct cli_session_args a = {};
	char *spec = NULL;
	int c, err, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", energy_long_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(energy_usage, stdout);
			return EXIT_OK;
		default:
			if (cli_shared_option("energy", c, argv, &a, NULL))
				return EXIT_USAGE;
			break;
		}
	}
	if (optind < argc)
		return cli_usage_error("energy", "unexpected argument '%s'", argv[optind]);
	if (energy_opt_load(a.energy_model, &em))
		return EXIT_USAGE;
	if (!em) {
		cli_error("no energy model: the kernel has none in /sys/kernel/debug/energy_model (no EAS here, or debugfs not mounted); give --energy-model FILE");
		return EXIT_FAIL;
	}
	if (a.topology) {
		spec = cli_topology_spec(a.topology);
		if (!spec) {
			ret = EXIT_USAGE;
			goto cleanup;
		}
		err = schedstat_topology_parse(&topo, spec, NULL);
	} else {
		err = schedstat_topology_detect(&topo, NULL);
	}
	if (err) {
		cli_error("%s", schedstat_strerror(err));
		goto cleanup;
	}
	err = schedstat_energy_model_bind(em, topo);
	if (err) {
		cli_error("%s", schedstat_strerror(err));
		goto cleanup;
	}
	energy_opt_print(stdout, em);
	ret = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
cleanup:
	schedstat_topology_free(topo);
	schedstat_energy_model_free(em);
	free(spec);
	return ret;
}
