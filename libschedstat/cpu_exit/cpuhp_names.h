/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpuhp states by name, and cpuhp_kick_ap_work() by address: what the
 * hotplug timer, the BPF source and recordings need to read cpuhp steps.
 */
#ifndef SCHEDSTAT_CPUHP_NAMES_H
#define SCHEDSTAT_CPUHP_NAMES_H

#include <stdint.h>

/* cpuhp states' names by number (cpuhp_names.c). */
struct cpuhp_names {
	char **name;		/* NULL where no name is known */
	int nr;
};

/* A copy of @name for state @idx. 0, -EINVAL or -ENOMEM. */
int cpuhp_names_set(struct cpuhp_names *n, int idx, const char *name);
/* The name of state @idx, "state N" where none is known. */
const char *cpuhp_name(struct cpuhp_names *n, int idx);
/* The name of state @idx, or NULL where none is known. */
const char *cpuhp_name_known(const struct cpuhp_names *n, int idx);
/* Every name in /sys/devices/system/cpu/hotplug/states (none: 0). */
int cpuhp_names_read(struct cpuhp_names *n);
void cpuhp_names_free(struct cpuhp_names *n);
/* cpuhp_kick_ap_work()'s address from /proc/kallsyms, 0 if hidden. */
uint64_t cpuhp_kick_address(void);

#endif /* SCHEDSTAT_CPUHP_NAMES_H */
