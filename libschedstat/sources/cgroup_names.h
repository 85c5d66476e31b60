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
/*
 * The kernfs id of the cgroup whose directory is @dir (in a cgroup or
 * cgroup2 filesystem) in @id: 0, or -SCHEDSTAT_ERR_PELT_CGROUP if @dir is
 * no such directory.
 */
int cgroup_dir_id(const char *dir, uint64_t *id);

#endif /* SCHEDSTAT_CGROUP_NAMES_H */
