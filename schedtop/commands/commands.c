// SPDX-License-Identifier: GPL-2.0
/*
 * The command table: main() dispatches on it, the bash completion
 * (completion.c) and the usage are written from it. A new command is one
 * cmd_NAME.c here and one row below (docs/design.md, "A command").
 */
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
