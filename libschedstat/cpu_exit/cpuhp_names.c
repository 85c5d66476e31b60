// SPDX-License-Identifier: GPL-2.0
/*
 * What the cpuhp tracepoints need to be read by a person: the states' names
 * (the live timer's and a recording's), and the address that tells
 * cpuhp_kick_ap_work() from a state's callback.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuhp_names.h"

/* No kernel numbers its states this high (about 250 in 6.18). */
#define MAX_STATE	4096

int cpuhp_names_set(struct cpuhp_names *n, int idx, const char *name)
{
	char *copy;

	if (idx < 0 || idx > MAX_STATE)
		return -EINVAL;
	if (idx >= n->nr) {
		char **grown = realloc(n->name, (idx + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		memset(grown + n->nr, 0, (idx + 1 - n->nr) * sizeof(*grown));
		n->name = grown;
		n->nr = idx + 1;
	}
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(n->name[idx]);
	n->name[idx] = copy;
	return 0;
}

const char *cpuhp_name(struct cpuhp_names *n, int idx)
{
	char buf[32];

	if (idx < 0 || idx > MAX_STATE)
		return "state ?";
	if (idx >= n->nr || !n->name[idx]) {
		/* No callbacks listed for it now; the number still tells. */
		snprintf(buf, sizeof(buf), "state %d", idx);
		if (cpuhp_names_set(n, idx, buf))
			return "state ?";
	}
	return n->name[idx];
}

const char *cpuhp_name_known(const struct cpuhp_names *n, int idx)
{
	return idx >= 0 && idx < n->nr ? n->name[idx] : NULL;
}

int cpuhp_names_read(struct cpuhp_names *n)
{
	FILE *f = fopen("/sys/devices/system/cpu/hotplug/states", "re");
	char line[128];
	int err = 0;

	if (!f)
		return 0;	/* names are a help, not a need */
	/* "%3d: %s" per state the kernel has callbacks for. */
	while (!err && fgets(line, sizeof(line), f)) {
		char name[96];
		int state;

		if (sscanf(line, " %d: %95s", &state, name) != 2 ||
		    state < 0 || state > MAX_STATE)
			continue;
		err = cpuhp_names_set(n, state, name);
	}
	fclose(f);
	return err;
}

void cpuhp_names_free(struct cpuhp_names *n)
{
	for (int i = 0; i < n->nr; i++)
		free(n->name[i]);
	free(n->name);
	n->name = NULL;
	n->nr = 0;
}

/*
 * cpuhp_kick_ap_work() reports itself with cpuhp_enter as the state the CPU
 * is in: its own time is the wait for the CPU's hotplug thread, not that
 * state's callback. Its address tells it apart (0 if kallsyms hides it).
 */
uint64_t cpuhp_kick_address(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256], sym[128], type;
	unsigned long long addr;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, "cpuhp_kick_ap_work")) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}
