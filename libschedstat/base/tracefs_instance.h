/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedtop's private tracefs instances, "schedtop-PID": one per process, so
 * the user's own tracing is never touched, and one left by a killed
 * schedtop is removed by the next. Shared by the tracefs source and the
 * hotplug timer. Named trace_instance_*: tracefs_* is libtracefs's, and a
 * name of ours there could clash with one of its own in a static link.
 */
#ifndef SCHEDSTAT_TRACEFS_INSTANCE_H
#define SCHEDSTAT_TRACEFS_INSTANCE_H

#include <tracefs.h>

/*
 * Finds (or mounts) tracefs, removes stale instances and creates this
 * process's, clocked by CLOCK_MONOTONIC ("mono", as util_mono_ns()) with
 * @buffer_kb per CPU. Returns 0, -SCHEDSTAT_ERR_NO_TRACEFS or
 * -SCHEDSTAT_ERR_TRACEFS_PRIV.
 */
int trace_instance_open(struct tracefs_instance **out, int buffer_kb);
/* Events off, then the instance removed and freed; NULL is fine. */
void trace_instance_close(struct tracefs_instance *inst);

#endif /* SCHEDSTAT_TRACEFS_INSTANCE_H */
