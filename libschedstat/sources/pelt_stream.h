/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The --pelt-trace stream: records from the pelt_events ring buffer, turned
 * into schedstat_pelt_update and delivered in timestamp order across CPUs.
 */
#ifndef SCHEDSTAT_PELT_STREAM_H
#define SCHEDSTAT_PELT_STREAM_H

#include <stdint.h>
#include <linux/types.h>

#include "schedstat.h"
#include "schedtop.h"

/*
 * Records of different CPUs reach the ring in the order they reserved
 * space, and each takes its timestamp just after: two CPUs updating within
 * the same microsecond can arrive swapped. An update is held until it is
 * this much older than the clock read before the drain that took it, by
 * when every update stamped earlier has long been committed (the programs
 * run with interrupts off; a vCPU stalled by its host is the only longer
 * gap). docs/signals.md, "PELT at every update".
 */
#define PELT_REORDER_NS		(20 * 1000000ULL)
/* Records taken per drain: a flood cannot starve the caller's loop. */
#define PELT_DRAIN_BUDGET	4096

struct pelt_stream;

int pelt_stream_new(struct pelt_stream **out, schedstat_pelt_fn fn, void *ctx);
void pelt_stream_free(struct pelt_stream *ps);
/* The --pelt-cgroup group: its updates are named @path (below the mount). */
void pelt_stream_set_group(struct pelt_stream *ps, uint64_t cgroup_id,
			   const char *path);
/* Hold one record from the ring; 0 or -ENOMEM. */
int pelt_stream_add(struct pelt_stream *ps, const struct st_pelt_rec *r);
/* Deliver, in (ts, cpu) order, every held update stamped at or before @upto. */
void pelt_stream_release(struct pelt_stream *ps, uint64_t upto);

#endif /* SCHEDSTAT_PELT_STREAM_H */
