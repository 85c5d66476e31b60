// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the rt-app use-case parser (libschedstat/workload/):
 * any bytes, as a file or gzip-compressed, must be read into a workload or
 * refused with one line naming the file, never a crash, a leak, undefined
 * behaviour or a message of more than one line (built with ASan and UBSan,
 * see the Makefile). What a front end asks of a workload read, and its
 * constraints through a recording's metadata and back, are asked here too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schedstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct schedstat_workload *wl;
	struct schedstat_workload_constraint *cons;
	char err[SCHEDSTAT_WORKLOAD_ERR_LEN], text[8192];
	size_t nr;
	double ns;

	if (schedstat_workload_parse(&wl, data, size, "fuzz.json", err, sizeof(err))) {
		/* One line, naming the file. */
		if (strchr(err, '\n') || strncmp(err, "fuzz.json", 9))
			abort();
		return 0;
	}
	schedstat_workload_name(wl);
	schedstat_workload_description(wl);
	schedstat_workload_duration(wl);
	schedstat_workload_log_basename(wl);
	schedstat_workload_calibration(wl, &ns);
	for (size_t t = 0; t < schedstat_workload_nr_threads(wl); t++) {
		schedstat_workload_thread_comm(wl, t);
		schedstat_workload_thread_task(wl, t);
	}
	for (size_t c = 0; c < schedstat_workload_nr_constraints(wl); c++)
		if (!schedstat_workload_constraint(wl, c))
			abort();
	if (!schedstat_workload_constraints_format(wl, text, sizeof(text)) &&
	    !schedstat_workload_constraints_parse(text, &cons, &nr)) {
		if (nr != schedstat_workload_nr_constraints(wl))
			abort();
		free(cons);
	}
	schedstat_workload_free(wl);
	return 0;
}
