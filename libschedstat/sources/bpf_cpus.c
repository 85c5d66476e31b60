// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU slots that the task iterator's last call fills from the
 * runqueues (bpf/schedtop.bpf.c read_cpus()): whether the kernel lets it
 * reach them through ksyms, copying them out, and what they hold.
 */
#include <stdio.h>
#include <string.h>

#include "bpf_cpus.h"
#include "signals.h"

/*
 * The verifier resolves a per-CPU ksym through kallsyms, which lists
 * per-CPU variables only with CONFIG_KALLSYMS_ALL. Names are listed even
 * to users who see zero addresses.
 */
bool bpfsrc_cpus_ksyms_resolvable(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256];
	int found = 0;

	if (!f)
		return false;
	while (found != 3 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %255s", name) != 1)
			continue;
		if (!strcmp(name, "runqueues"))
			found |= 1;
		else if (!strcmp(name, "tick_cpu_sched"))
			found |= 2;
	}
	fclose(f);
	return found == 3;
}

/*
 * The event programs left (frequency, preempt) update a slot's fields one
 * after another: a copy taken in between pairs a new value with an old
 * one. Copy each slot until two copies agree; writers are rare enough per
 * slot that this ends at once.
 */
void bpfsrc_cpus_copy(struct st_cpu_state *dst,
		      const volatile struct st_cpu_state *src, int nr)
{
	for (int i = 0; i < nr; i++) {
		struct st_cpu_state again;

		for (int tries = 0; tries < 16; tries++) {
			memcpy(&dst[i], (const void *)&src[i], sizeof(dst[i]));
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			memcpy(&again, (const void *)&src[i], sizeof(again));
			if (!memcmp(&dst[i], &again, sizeof(again)))
				break;
		}
	}
}

/*
 * The signals this kernel keeps per CPU, as read_cpus() found them on the
 * first CPU it read (the fields are the same on every CPU): the signal
 * table's runqueue rows whose seen bit it set.
 */
uint32_t bpfsrc_cpus_avail(const struct st_cpu_state *cpus, int nr)
{
	int cpu = 0;

	while (cpu < nr && !(cpus[cpu].seen & ST_SEEN_RQ))
		cpu++;
	return cpu < nr ? signal_avail_read(cpus[cpu].seen) : 0;
}
