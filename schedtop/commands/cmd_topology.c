// SPDX-License-Identifier: GPL-2.0
/* schedtop topology: what clusters schedtop sees, without loading BPF. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "csv_format.h"

static const char topology_usage[] =
"Usage: schedtop topology [--topology SPEC] [--sysfs-root DIR] [--csv]\n"
"Print the clusters schedtop detects (or that SPEC defines), one per line.\n"
"\n"
CLI_USAGE_TOPOLOGY
CLI_USAGE_SYSFS_ROOT
"      --csv              CSV with header cluster,name,cpus,capacity,policy,\n"
"                         freq_min_khz,freq_max_khz (empty where unknown)\n"
"  -h, --help             show this help\n";

static const char *const origin_names[] = {
	[SCHEDSTAT_TOPO_OVERRIDE] = "--topology",
	[SCHEDSTAT_TOPO_CPU_CAPACITY] = "cpu_capacity",
	[SCHEDSTAT_TOPO_CPUFREQ] = "cpufreq policies",
	[SCHEDSTAT_TOPO_SINGLE] = "no asymmetry found",
	[SCHEDSTAT_TOPO_CLUSTER_CPUS] = "topology/cluster_cpus_list",
};

enum { OPT_CSV = 256 };

const struct option topology_long_opts[] = {
	CLI_OPT_TOPOLOGY,
	CLI_OPT_SYSFS_ROOT,
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "help", no_argument, NULL, 'h' },
	{}
};

static void print_topology(const struct schedstat_topology *t, bool csv)
{
	int n = schedstat_topology_nr_clusters(t);
	char cpus[SCHEDSTAT_CPULIST_LEN];

	if (csv)
		printf("cluster,name,cpus,capacity,policy,freq_min_khz,freq_max_khz\r\n");
	else
		printf("%-7s %-12s %-16s %-8s %-8s %s\n", "CLUSTER", "NAME", "CPUS",
		       "CAPACITY", "POLICY", "FREQ_MHZ");
	for (int i = 0; i < n; i++) {
		const char *name = schedstat_topology_cluster_name(t, i);
		unsigned int cap = schedstat_topology_cluster_capacity(t, i);
		int policy = schedstat_topology_cluster_policy(t, i);
		unsigned int fmin = 0, fmax = 0;
		char pol[24] = "", fmn[16] = "", fmx[16] = "";

		if (schedstat_topology_cluster_cpulist(t, i, cpus, sizeof(cpus)))
			cpus[0] = '\0';
		schedstat_topology_cluster_freq(t, i, &fmin, &fmax);
		if (policy >= 0)
			snprintf(pol, sizeof(pol), "policy%d", policy);
		if (fmin)
			snprintf(fmn, sizeof(fmn), "%u", fmin);
		if (fmax)
			snprintf(fmx, sizeof(fmx), "%u", fmax);
		if (csv) {
			printf("%d,", i);
			csv_field(stdout, name);
			putchar(',');
			csv_field(stdout, cpus);
			printf(",%u,%s,%s,%s\r\n", cap, pol, fmn, fmx);
		} else {
			char mhz[32] = "-";

			if (fmin && fmax)
				snprintf(mhz, sizeof(mhz), "%u-%u", fmin / 1000, fmax / 1000);
			printf("%-7d %-12s %-16s %-8u %-8s %s\n", i, name, cpus, cap,
			       *pol ? pol : "-", mhz);
		}
	}
	if (!csv)
		printf("(from %s)\n", origin_names[schedstat_topology_origin(t)]);
}

int cmd_topology(int argc, char **argv)
{
	struct cli_session_args a = {};
	struct schedstat_topology *t = NULL;
	bool csv = false;
	int c, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", topology_long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_CSV:
			csv = true;
			break;
		case 'h':
			fputs(topology_usage, stdout);
			return EXIT_OK;
		default:
			if (cli_shared_option("topology", c, argv, &a, NULL))
				return EXIT_USAGE;
			break;
		}
	}
	if (optind < argc)
		return cli_usage_error("topology", "unexpected argument '%s'", argv[optind]);
	if (a.topology) {
		char *text = cli_topology_spec(a.topology);

		if (!text)
			return EXIT_USAGE;
		err = schedstat_topology_parse(&t, text, a.sysfs_root);
		free(text);
	} else {
		err = schedstat_topology_detect(&t, a.sysfs_root);
	}
	if (err) {
		cli_error("%s%s%s", schedstat_strerror(err), a.sysfs_root ? ": " : "",
			  a.sysfs_root ? a.sysfs_root : "");
		return a.topology ? EXIT_USAGE : EXIT_FAIL;
	}
	print_topology(t, csv);
	schedstat_topology_free(t);
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}
