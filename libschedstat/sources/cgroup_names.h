/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDSTAT_CGROUP_NAMES_H
#define SCHEDSTAT_CGROUP_NAMES_H

#include <stdint.h>

struct cgroup_names;

int cgroup_names_new(struct cgroup_names **out);
void cgroup_names_free(struct cgroup_names *c);
/*
 * Path of the cgroup with kernfs id @id below its mount, "" if not found.
 * An unknown id rescans the cgroup mounts, at most once a second.
 */
const char *cgroup_names_find(struct cgroup_names *c, uint64_t id);

#endif /* SCHEDSTAT_CGROUP_NAMES_H */
