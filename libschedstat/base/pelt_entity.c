// SPDX-License-Identifier: GPL-2.0
/* The names of PELT entities, as the pelt CSV table and recordings say them. */
#include "schedstat-local.h"

static const char *const names[] = {
	[SCHEDSTAT_PELT_TASK] = "task",
	[SCHEDSTAT_PELT_CFS] = "cfs",
	[SCHEDSTAT_PELT_RT] = "rt",
	[SCHEDSTAT_PELT_DL] = "dl",
	[SCHEDSTAT_PELT_IRQ] = "irq",
	[SCHEDSTAT_PELT_GROUP] = "group",
};

const char *schedstat_pelt_entity_name(enum schedstat_pelt_entity e)
{
	if ((unsigned int)e >= ARRAY_SIZE(names))
		return NULL;
	return names[e];
}
