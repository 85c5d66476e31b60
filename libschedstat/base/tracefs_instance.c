// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedstat-local.h"
#include "tracefs_instance.h"

/* Instances left by a schedtop that was killed: their owner is gone. */
static void remove_stale_instances(void)
{
	char **names = tracefs_instances("^schedtop-[0-9][0-9]*$");

	for (int i = 0; names && names[i]; i++) {
		int pid = atoi(names[i] + strlen("schedtop-"));
		struct tracefs_instance *inst;

		if (pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (inst) {
			tracefs_instance_destroy(inst);
			tracefs_instance_free(inst);
		}
	}
	tracefs_list_free(names);
}

/* Find tracefs, or mount it where the kernel documents it. */
static int find_tracefs(void)
{
	const char *path = NULL;

	/* Only root may mount it, or look for it under a closed debugfs. */
	if (tracefs_tracing_dir_is_mounted(true, &path) < 0 || !path)
		return geteuid() ? -SCHEDSTAT_ERR_TRACEFS_PRIV :
		       -SCHEDSTAT_ERR_NO_TRACEFS;
	if (access(path, W_OK))
		return errno == EACCES || errno == EPERM ?
		       -SCHEDSTAT_ERR_TRACEFS_PRIV : -SCHEDSTAT_ERR_NO_TRACEFS;
	return 0;
}

int trace_instance_open(struct tracefs_instance **out, int buffer_kb)
{
	struct tracefs_instance *inst;
	char name[32], kb[32];
	int err;

	*out = NULL;
	err = find_tracefs();
	if (err)
		return err;
	remove_stale_instances();
	snprintf(name, sizeof(name), "schedtop-%d", getpid());
	inst = tracefs_instance_create(name);
	if (!inst)
		return errno == EACCES || errno == EPERM ?
		       -SCHEDSTAT_ERR_TRACEFS_PRIV : -SCHEDSTAT_ERR_NO_TRACEFS;
	/* Same clock as util_mono_ns(); "local" would not compare with samples. */
	if (tracefs_instance_file_write(inst, "trace_clock", "mono") < 0) {
		trace_instance_close(inst);
		return -SCHEDSTAT_ERR_NO_TRACEFS;
	}
	snprintf(kb, sizeof(kb), "%d", buffer_kb);
	tracefs_instance_file_write(inst, "buffer_size_kb", kb);
	*out = inst;
	return 0;
}

void trace_instance_close(struct tracefs_instance *inst)
{
	if (!inst)
		return;
	/* Events off first, so destroying it never races new ones. */
	tracefs_event_disable(inst, NULL, NULL);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
}
