// SPDX-License-Identifier: GPL-2.0
/* schedtop: what the Linux scheduler thinks of every task and CPU. */
#include <stdio.h>
#include <string.h>

#include "array_size.h"
#include "cli.h"

const struct cli_command cli_commands[] = {
	{ "csv", cmd_csv, csv_long_opts },
	{ "topology", cmd_topology, topology_long_opts },
	{ "record", cmd_record, record_long_opts },
	{ "report", cmd_report, report_long_opts },
	{ "convert", cmd_convert, convert_long_opts },
	{ "replay", cmd_replay, replay_long_opts },
	{ "hotplug", cmd_hotplug, hotplug_long_opts },
	{ "emulate", cmd_emulate, emulate_long_opts },
	{ "energy", cmd_energy, energy_long_opts },
	{ "workload", cmd_workload, workload_long_opts },
};
const size_t cli_nr_commands = ARRAY_SIZE(cli_commands);

int main(int argc, char **argv)
{
	int i = 1;

	/* "schedtop -v csv ...": a leading -v belongs to every command. */
	while (i < argc && (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))) {
		global_opts.verbose = true;
		i++;
	}
	/* Generated, not hand-kept: make install writes it (Makefile). */
	if (i == 1 && argc == 2 && !strcmp(argv[1], "--bash-completion"))
		return cli_write_bash_completion();
	if (i == 1 && argc == 2 && !strcmp(argv[1], "--list-tracepoints"))
		return cli_list_tracepoints();
	for (size_t c = 0; i < argc && c < cli_nr_commands; c++)
		if (!strcmp(argv[i], cli_commands[c].name))
			return cli_commands[c].fn(argc - i, argv + i);
	return cmd_live(argc, argv);
}
