// SPDX-License-Identifier: GPL-2.0
/* schedtop: what the Linux scheduler thinks of every task and CPU. */
#include <stdio.h>
#include <string.h>

#include "array_size.h"
#include "cli.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "csv", cmd_csv },
	{ "topology", cmd_topology },
	{ "record", cmd_record },
	{ "report", cmd_report },
	{ "convert", cmd_convert },
	{ "replay", cmd_replay },
};

int main(int argc, char **argv)
{
	int i = 1;

	/* "schedtop -v csv ...": a leading -v belongs to every command. */
	while (i < argc && (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))) {
		global_opts.verbose = true;
		i++;
	}
	for (size_t c = 0; i < argc && c < ARRAY_SIZE(commands); c++)
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].fn(argc - i, argv + i);
	return cmd_live(argc, argv);
}
