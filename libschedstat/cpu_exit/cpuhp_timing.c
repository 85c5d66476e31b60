// SPDX-License-Identifier: GPL-2.0
/*
 * One hotplug operation, timed: the sysfs write from start to return, and
 * within it every cpuhp state, from the cpuhp tracepoints of the private
 * instance (cpuhp_split.c splits the time among them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_exit.h"

int schedstat_cpu_exit_hotplug(struct schedstat_cpu_exit *x, bool online,
			       struct schedstat_exit_op *op)
{
	uint64_t t0, t1;
	int fd, err, werr = 0;

	memset(op, 0, sizeof(*op));
	op->back = online;
	/* What came before is not this operation's. */
	err = cpu_exit_read_events(x);
	if (err)
		return err;
	fd = open(x->online_path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	t0 = util_mono_ns();
	if (write(fd, online ? "1" : "0", 1) != 1)
		werr = -errno;
	t1 = util_mono_ns();
	close(fd);
	err = cpu_exit_read_events(x);
	if (!err)
		err = cpuhp_attribute(x->evs, x->nr_evs, x->cpu, x->kick_fn,
				      &x->names, op, t0, t1);
	if (werr && (!err || err == -ENOMEM))
		err = werr;
	return err;
}
