// SPDX-License-Identifier: GPL-2.0
/* schedtop: what the Linux scheduler thinks of every task and CPU. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

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
	if (i == 1 && argc == 2 && !strcmp(argv[1], "--list-signals"))
		return cli_list_signals();
	if (i == 1 && argc == 2 && !strcmp(argv[1], "--list-fields"))
		return cli_list_fields();
	for (size_t c = 0; i < argc && c < cli_nr_commands; c++)
		if (!strcmp(argv[i], cli_commands[c].name))
			return cli_commands[c].fn(argc - i, argv + i);
	return cmd_live(argc, argv);
}
