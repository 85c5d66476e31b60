/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDTOP_CONVERT_PERFETTO_H
#define SCHEDTOP_CONVERT_PERFETTO_H

#include <stdbool.h>

#include "schedstat.h"

/*
 * @rec as a native Perfetto trace on @fd (@path names the recording in
 * messages): EXIT_OK, or EXIT_FAIL after saying what failed or what damage
 * was skipped.
 */
int convert_perfetto(struct schedstat_recording *rec, int fd, const char *path,
		     bool task_stats);

#endif /* SCHEDTOP_CONVERT_PERFETTO_H */
