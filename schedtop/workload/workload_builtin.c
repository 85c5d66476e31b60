// SPDX-License-Identifier: GPL-2.0
/*
 * The built-in use cases: rt-app files (workloads/NAME.json) compiled into
 * the binary, so that `schedtop workload audio` works wherever schedtop
 * runs (a static binary on a phone, the build tree). make install puts
 * the same files under share/schedtop/workloads to be read and copied;
 * a copy changed is run by its path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "workload.h"

const char *workload_builtin_names(void)
{
	static char names[128];
	size_t len = 0, n = 0;

	if (names[0])
		return names;
	while (workload_builtins[n].name)
		n++;
	for (size_t i = 0; i < n; i++)
		len += snprintf(names + len, sizeof(names) - len, "%s%s",
				i == 0 ? "" : i + 1 == n ? " or " : ", ",
				workload_builtins[i].name);
	return names;
}

static const struct workload_builtin *find(const char *name)
{
	for (size_t i = 0; workload_builtins[i].name; i++)
		if (!strcmp(workload_builtins[i].name, name))
			return &workload_builtins[i];
	return NULL;
}

struct schedstat_workload *workload_builtin(const char *name)
{
	const struct workload_builtin *b = find(name);
	struct schedstat_workload *wl;
	char origin[64], err[SCHEDSTAT_WORKLOAD_ERR_LEN];

	if (!b)
		return NULL;
	/* Named as its file, so that a message points into workloads/. */
	snprintf(origin, sizeof(origin), "%s.json", b->name);
	if (schedstat_workload_parse(&wl, b->text, b->size, origin, err, sizeof(err))) {
		cli_error("built-in workload %s", err);
		return NULL;
	}
	return wl;
}

/* A path, or a name only a file has: not a built-in's name. */
static bool names_a_file(const char *arg)
{
	size_t len = strlen(arg);
	struct stat st;

	return strchr(arg, '/') || (len > 5 && !strcmp(arg + len - 5, ".json")) ||
	       (len > 8 && !strcmp(arg + len - 8, ".json.gz")) || !stat(arg, &st);
}

int workload_open(const char *arg, struct schedstat_workload **out)
{
	char err[SCHEDSTAT_WORKLOAD_ERR_LEN];

	*out = NULL;
	if (!names_a_file(arg) || find(arg)) {
		if (!find(arg))
			return cli_usage_error("workload", "unknown workload '%s': %s, or an rt-app file",
					       arg, workload_builtin_names());
		*out = workload_builtin(arg);
		return *out ? -1 : EXIT_FAIL;
	}
	if (schedstat_workload_load(out, arg, err, sizeof(err))) {
		cli_error("%s", err);
		return EXIT_FAIL;
	}
	return -1;
}
