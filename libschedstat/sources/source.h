/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a session backend provides. A session (session/session.c) is one
 * backend behind this table: the BPF programs, a private tracefs instance,
 * or a trace file (traces/). Every backend feeds the same model (model.h).
 * The table lives here, below the session that chooses among them.
 */
#ifndef SCHEDSTAT_SOURCE_H
#define SCHEDSTAT_SOURCE_H

#include "schedstat.h"

struct source_ops {
	const char *name;
	int (*open)(void **out, const struct schedstat_session_opts *opts);
	void (*close)(void *src);
	int (*sample)(void *src, struct schedstat_snapshot **out);
	int (*poll)(void *src);
	/* Optional: drain all, deliver what is held back (else poll). */
	int (*flush)(void *src);
	/* Optional: --pelt-trace records lost (else 0). */
	uint64_t (*pelt_dropped)(const void *src);
	int (*event_fd)(const void *src);
	const struct schedstat_topology *(*topology)(const void *src);
	/* Trace files only (NULL otherwise). */
	int (*pelt_info)(const void *src, struct schedstat_pelt_info *info);
};

/* source.c: the clusters @opts asks for: its --topology spec, else sysfs. */
int source_topology(const struct schedstat_session_opts *opts,
		    struct schedstat_topology **topo);

extern const struct source_ops bpfsrc_ops;
extern const struct source_ops ftsrc_ops;
/* A trace file of any format schedtop reads (traces/trace_source.c). */
extern const struct source_ops trace_source_ops;

#endif /* SCHEDSTAT_SOURCE_H */
