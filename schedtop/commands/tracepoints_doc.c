// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop --list-tracepoints: the library's table of which tracepoint gives
 * which signal (schedstat_tracepoints()), as the Markdown table of
 * docs/signals.md; scripts/regen-docs writes it there, test_docs checks it.
 */
#include <stdio.h>

#include "cli.h"

static const char *bpf_when(uint32_t flags)
{
	if (!(flags & SCHEDSTAT_TP_BPF))
		return "";
	if (flags & SCHEDSTAT_TP_EXACT_WAKEUPS)
		return "with `--exact-wakeups`";
	if (flags & SCHEDSTAT_TP_PELT_TRACE)
		return "with `--pelt-trace`";
	return "always";
}

static const char *events_when(uint32_t flags)
{
	if (!(flags & SCHEDSTAT_TP_EVENTS))
		return "";
	if (flags & SCHEDSTAT_TP_FILES_ONLY)
		return "trace files only";
	return "always";
}

int cli_list_tracepoints(void)
{
	size_t nr;
	const struct schedstat_tracepoint *tp = schedstat_tracepoints(&nr);

	printf("| tracepoint | BPF source | tracefs, trace files | gives |\n");
	printf("|---|---|---|---|\n");
	for (size_t i = 0; i < nr; i++)
		printf("| `%s:%s` | %s | %s | %s |\n", tp[i].system, tp[i].name,
		       bpf_when(tp[i].flags), events_when(tp[i].flags),
		       tp[i].gives);
	return fflush(stdout) ? EXIT_FAIL : 0;
}
