// SPDX-License-Identifier: GPL-2.0
/*
 * The command table: main() dispatches on it, the bash completion
 * (completion.c) and the usage are written from it. A new command is one
 * cmd_NAME.c here and one row below (docs/design.md, "A command").
 */
#include "array_size.h"
#include "cli.h"

const struct cli_command cli_commands[] = {
	{ .name = "csv", .fn = cmd_csv, .opts = csv_long_opts },
	{ .name = "topology", .fn = cmd_topology, .opts = topology_long_opts },
	{ .name = "record", .fn = cmd_record, .opts = record_long_opts },
	{ .name = "report", .fn = cmd_report, .opts = report_long_opts },
	{ .name = "convert", .fn = cmd_convert, .opts = convert_long_opts },
	{ .name = "replay", .fn = cmd_replay, .opts = replay_long_opts },
	{ .name = "hotplug", .fn = cmd_hotplug, .opts = hotplug_long_opts },
	{ .name = "emulate", .fn = cmd_emulate, .opts = emulate_long_opts },
	{ .name = "energy", .fn = cmd_energy, .opts = energy_long_opts },
	{ .name = "workload", .fn = cmd_workload, .opts = workload_long_opts },
};
const size_t cli_nr_commands = ARRAY_SIZE(cli_commands);
