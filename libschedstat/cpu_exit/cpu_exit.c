// SPDX-License-Identifier: GPL-2.0
/*
 * The object behind schedstat_cpu_exit_*: the CPU, its events (a private
 * tracefs instance, exit_events.c), the names of the cpuhp states, and what
 * must be put back on close.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_exit.h"

int schedstat_cpu_exit_open(struct schedstat_cpu_exit **out, int cpu)
{
	struct schedstat_cpu_exit *x;
	unsigned int restored;
	bool online;
	int err;

	*out = NULL;
	if (cpu < 0 || cpu >= SCHEDSTAT_MAX_CPUS)
		return -EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->cpu = cpu;
	x->state_fd = -1;
	snprintf(x->online_path, sizeof(x->online_path),
		 "/sys/devices/system/cpu/cpu%d/online", cpu);
	if (access(x->online_path, W_OK)) {
		err = errno == EACCES || errno == EPERM || errno == EROFS ?
		      -errno : -SCHEDSTAT_ERR_NO_HOTPLUG;
		goto cleanup;
	}
	err = cpuhp_names_read(&x->names);
	if (err)
		goto cleanup;
	x->kick_fn = cpuhp_kick_address();
	err = exit_events_open(x);
	if (err)
		goto cleanup;
	/* What a killed session left; then ours, held till close. */
	err = schedstat_cpu_exit_recover(&restored);
	if (err)
		goto cleanup;
	/* Operations start from online; close puts back what was found. */
	err = cpu_exit_is_online(x, &online);
	if (err)
		goto cleanup;
	x->found_offline = !online;
	err = exit_state_begin(x);
	if (err)
		goto cleanup;
	if (!online) {
		struct schedstat_exit_op op;

		err = schedstat_cpu_exit_hotplug(x, true, &op);
		schedstat_exit_op_clear(&op);
		if (err)
			goto cleanup;
	}
	*out = x;
	x = NULL;
cleanup:
	if (x)
		schedstat_cpu_exit_close(x);
	return err;
}

/* The CPU's online file says "1": -errno if it cannot be read. */
int cpu_exit_is_online(const struct schedstat_cpu_exit *x, bool *online)
{
	char buf[8];
	int err = util_read_small_file(x->online_path, buf, sizeof(buf));

	if (err)
		return err;
	if (!buf[0])
		return -EIO;
	*online = buf[0] == '1';
	return 0;
}

int schedstat_cpu_exit_close(struct schedstat_cpu_exit *x)
{
	struct schedstat_exit_op op = {};
	bool online;
	int err = 0, e;

	if (!x)
		return 0;
	/* The state file stays if this session could not put all back. */
	/* Whatever stopped us, the CPU and every affinity go back. */
	if (x->evacuated) {
		err = evacuate_restore(x, &op);
		schedstat_exit_op_clear(&op);
	}
	/* The CPU as it was found (online, unless it was offline then). */
	if (x->inst && !cpu_exit_is_online(x, &online) &&
	    online == x->found_offline) {
		e = schedstat_cpu_exit_hotplug(x, !x->found_offline, &op);
		schedstat_exit_op_clear(&op);
		if (!err)
			err = e;
	}
	exit_state_end(x, !err);
	exit_events_close(x);
	cpuhp_names_free(&x->names);
	free(x->tasks);
	free(x->irqs);
	free(x->cpusets);
	free(x);
	return err;
}
