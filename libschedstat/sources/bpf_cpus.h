/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDSTAT_BPFSRC_CPUS_H
#define SCHEDSTAT_BPFSRC_CPUS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "schedtop.h"

struct btf;

/*
 * True if the verifier resolves runqueues and tick_cpu_sched (vmlinux BTF
 * variables, found in kallsyms): dump_task loads.
 */
bool bpfsrc_cpus_ksyms_resolvable(const struct btf *vmlinux);
/* Consistent copies of @nr slots of the skeleton's cpu_state[]. */
void bpfsrc_cpus_copy(struct st_cpu_state *dst,
		      const volatile struct st_cpu_state *src, int nr);
/* SCHEDSTAT_AVAIL_* bits of what the runqueue read found. */
uint32_t bpfsrc_cpus_avail(const struct st_cpu_state *cpus, int nr);

#endif /* SCHEDSTAT_BPFSRC_CPUS_H */
