// SPDX-License-Identifier: GPL-2.0
/* schedtop topology: what clusters schedtop sees, without loading BPF. */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "csv_format.h"

static const char topology_usage[] =
"Usage: schedtop topology [--topology SPEC] [--sysfs-root DIR] [--csv]\n"
"Print the clusters schedtop detects (or that SPEC defines), one per line.\n"
"\n"
"      --topology SPEC    clusters as NAME:CPULIST[@CAPACITY],...\n"
"      --sysfs-root DIR   read sysfs from DIR instead of /sys\n"
"      --csv              CSV with header cluster,name,cpus,capacity\n"
"  -h, --help             show this help\n";

static const char *const origin_names[] = {
	[SCHEDSTAT_TOPO_OVERRIDE] = "--topology",
	[SCHEDSTAT_TOPO_CPU_CAPACITY] = "cpu_capacity",
	[SCHEDSTAT_TOPO_CPUFREQ] = "cpufreq policies",
	[SCHEDSTAT_TOPO_SINGLE] = "no asymmetry found",
};

enum { OPT_TOPOLOGY = 256, OPT_SYSFS_ROOT, OPT_CSV };

static const struct option topology_long_opts[] = {
	{ "topology", required_argument, NULL, OPT_TOPOLOGY },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "help", no_argument, NULL, 'h' },
	{}
};

static void print_topology(const struct schedstat_topology *t, bool csv)
{
	int n = schedstat_topology_nr_clusters(t);
	char cpus[SCHEDSTAT_CPULIST_LEN];

	if (csv)
		printf("cluster,name,cpus,capacity\r\n");
	else
		printf("%-7s %-12s %-16s %s\n", "CLUSTER", "NAME", "CPUS", "CAPACITY");
	for (int i = 0; i < n; i++) {
		const char *name = schedstat_topology_cluster_name(t, i);
		unsigned int cap = schedstat_topology_cluster_capacity(t, i);

		if (schedstat_topology_cluster_cpulist(t, i, cpus, sizeof(cpus)))
			cpus[0] = '\0';
		if (csv) {
			printf("%d,", i);
			csv_field(stdout, name);
			putchar(',');
			csv_field(stdout, cpus);
			printf(",%u\r\n", cap);
		} else {
			printf("%-7d %-12s %-16s %u\n", i, name, cpus, cap);
		}
	}
	if (!csv)
		printf("(from %s)\n", origin_names[schedstat_topology_origin(t)]);
}

int cmd_topology(int argc, char **argv)
{
	const char *spec = NULL, *root = NULL;
	struct schedstat_topology *t = NULL;
	bool csv = false;
	int c, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", topology_long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_TOPOLOGY:
			spec = optarg;
			break;
		case OPT_SYSFS_ROOT:
			root = optarg;
			break;
		case OPT_CSV:
			csv = true;
			break;
		case 'h':
			fputs(topology_usage, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("topology", c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("topology", "unexpected argument '%s'", argv[optind]);
	err = spec ? schedstat_topology_parse(&t, spec, root) :
		     schedstat_topology_detect(&t, root);
	if (err) {
		cli_error("%s%s%s", schedstat_strerror(err), root ? ": " : "",
			  root ? root : "");
		return spec ? EXIT_USAGE : EXIT_FAIL;
	}
	print_topology(t, csv);
	schedstat_topology_free(t);
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}
