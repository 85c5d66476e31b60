/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The signal table (schedstat_signals(), signals.c) as the library uses it:
 * the BPF source's sample bits, a CPU row's bits, its fields copied from
 * the per-CPU slot, and zeroed where missing.
 */
#ifndef SCHEDSTAT_SIGNALS_H
#define SCHEDSTAT_SIGNALS_H

#include "schedstat-local.h"

struct st_cpu_state;

/* The bits a runqueue read whose st_cpu_state.seen is @seen gives. */
uint32_t signal_avail_read(uint32_t seen);
/* @avail less the bits a CPU whose slot has @seen lacks. */
uint32_t signal_cpu_avail(uint32_t avail, uint32_t seen);
/* The CPU row's fields that the slot holds as they are, copied from @c. */
void signal_copy_slot(struct schedstat_cpu *o, const struct st_cpu_state *c);
/* A signal the row lacks (o->avail) is 0 in it, never a stale value. */
void signal_clear_missing(struct schedstat_cpu *o);

#endif /* SCHEDSTAT_SIGNALS_H */
