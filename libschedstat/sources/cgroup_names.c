// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup ids to paths. A cgroup's kernfs id, which the BPF side reads from
 * task_group->css.cgroup->kn->id, is the inode number of its directory in
 * cgroupfs, so walking the mounted cgroup hierarchies maps one to the other.
 */
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "cgroup_names.h"
#include "schedstat-local.h"

/* Rescans to find a new cgroup happen at most this often. */
#define RESCAN_NS	1000000000ULL

struct name {
	uint64_t ino;
	char *path;
};

struct cgroup_names {
	struct name *names;
	size_t nr, cap;
	uint64_t last_scan;
	const char *root;	/* the mount being walked, during a scan */
	size_t root_len;
	int err;
};

/* nftw() has no context argument. */
static struct cgroup_names *scanning;

static int add(struct cgroup_names *c, uint64_t ino, const char *path)
{
	if (schedstat_array_reserve((void **)&c->names, &c->cap, c->nr + 1, sizeof(*c->names)))
		return -ENOMEM;
	c->names[c->nr].path = strdup(path);
	if (!c->names[c->nr].path)
		return -ENOMEM;
	c->names[c->nr++].ino = ino;
	return 0;
}

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	struct cgroup_names *c = scanning;
	const char *rel = path + c->root_len;

	if (type != FTW_D)
		return 0;
	c->err = add(c, st->st_ino, *rel ? rel : "/");
	return c->err ? FTW_STOP : 0;
}

static int cmp_name(const void *a, const void *b)
{
	const struct name *x = a, *y = b;

	return (x->ino > y->ino) - (x->ino < y->ino);
}

static void clear(struct cgroup_names *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->names[i].path);
	c->nr = 0;
}

/*
 * Inode numbers are only unique within one hierarchy, and task groups live
 * in the one with the cpu controller: a v1 hierarchy with "cpu" (Android's
 * cpuctl) if there is one, else cgroup v2.
 */
static bool find_cpu_hierarchy(char *dir, size_t size)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	bool v1 = false, found = false;

	if (!f)
		return false;
	while ((m = getmntent(f)) && !v1) {
		if (!strcmp(m->mnt_type, "cgroup") && hasmntopt(m, "cpu"))
			v1 = true;
		else if (found || strcmp(m->mnt_type, "cgroup2"))
			continue;
		snprintf(dir, size, "%s", m->mnt_dir);
		found = true;
	}
	endmntent(f);
	return found;
}

static int scan(struct cgroup_names *c)
{
	char root[4096];

	c->last_scan = util_mono_ns();
	clear(c);
	if (!find_cpu_hierarchy(root, sizeof(root)))
		return 0;
	scanning = c;
	c->root = root;
	c->root_len = strlen(root);
	nftw(root, visit, 16, FTW_PHYS | FTW_MOUNT);
	scanning = NULL;
	qsort(c->names, c->nr, sizeof(*c->names), cmp_name);
	return c->err;
}

int cgroup_names_new(struct cgroup_names **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void cgroup_names_free(struct cgroup_names *c)
{
	if (!c)
		return;
	clear(c);
	free(c->names);
	free(c);
}

const char *cgroup_names_find(struct cgroup_names *c, uint64_t id)
{
	struct name key = { .ino = id }, *n;

	n = bsearch(&key, c->names, c->nr, sizeof(key), cmp_name);
	if (!n && util_mono_ns() - c->last_scan > RESCAN_NS) {
		c->err = 0;
		scan(c);
		n = bsearch(&key, c->names, c->nr, sizeof(key), cmp_name);
	}
	return n ? n->path : "";
}

int cgroup_dir_id(const char *dir, uint64_t *id)
{
	struct statfs fs;
	struct stat st;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || statfs(dir, &fs) ||
	    (fs.f_type != CGROUP2_SUPER_MAGIC && fs.f_type != CGROUP_SUPER_MAGIC))
		return -SCHEDSTAT_ERR_PELT_CGROUP;
	*id = st.st_ino;
	return 0;
}
