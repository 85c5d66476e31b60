// SPDX-License-Identifier: GPL-2.0
/*
 * One hotplug operation, timed: the sysfs write from start to return, and
 * within it every cpuhp state, from the cpuhp_enter / cpuhp_multi_enter /
 * cpuhp_exit tracepoints. States nest across CPUs: the writer runs the
 * control side's states, and one of them (cpuhp_kick_ap_work) waits while
 * the CPU's own hotplug thread runs the AP states; takedown runs the dying
 * states in stop_machine on the CPU itself. Each moment goes to the
 * innermost state open then, so the states' times add up to the write's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_exit.h"

/* Deeper than any kernel nests its states (two or three levels). */
#define MAX_DEPTH	32

static const char *state_name(struct schedstat_cpu_exit *x, int idx)
{
	char buf[32];

	if (idx < 0 || idx > 4096)
		return "state ?";
	if (idx >= x->nr_state_names) {
		char **grown = realloc(x->state_names, (idx + 1) * sizeof(*grown));

		if (!grown)
			return "state ?";
		memset(grown + x->nr_state_names, 0,
		       (idx + 1 - x->nr_state_names) * sizeof(*grown));
		x->state_names = grown;
		x->nr_state_names = idx + 1;
	}
	if (!x->state_names[idx]) {
		/* No callbacks listed for it now; the number still tells. */
		snprintf(buf, sizeof(buf), "state %d", idx);
		x->state_names[idx] = strdup(buf);
	}
	return x->state_names[idx] ? x->state_names[idx] : "state ?";
}

struct open_state {
	int idx;	/* as cpuhp_exit will name it */
	size_t step;	/* in op->steps */
};

/*
 * Time outside every state: before the first (the hotplug locks; taking
 * cpus_write_lock() waits for an RCU grace period), between two, or after
 * the last (unlocking, the uevent). Which one it is shows only later.
 */
static int charge_outside(struct schedstat_exit_op *op, bool seen_state,
			  bool at_end, uint64_t ns)
{
	const char *name = !seen_state ? SCHEDSTAT_STEP_BEFORE :
			   at_end ? SCHEDSTAT_STEP_AFTER : SCHEDSTAT_STEP_BETWEEN;
	struct schedstat_exit_step *st;

	if (!ns && (seen_state || !at_end))
		return 0;
	st = exit_op_step(op, name, -1);
	if (!st)
		return -ENOMEM;
	st->ns += ns;
	return 0;
}

/*
 * Splits [@t0, @t1] among the states of x->evs: each moment to the
 * innermost state open then. -SCHEDSTAT_ERR_HOTPLUG_FAILED if a callback
 * returned an error.
 */
static int attribute(struct schedstat_cpu_exit *x, struct schedstat_exit_op *op,
		     uint64_t t0, uint64_t t1)
{
	struct open_state stack[MAX_DEPTH];
	struct schedstat_exit_step *st;
	uint64_t cur = t0, outside = 0;
	bool seen = false;
	int depth = 0, failed = 0;

	for (size_t i = 0; i < x->nr_evs; i++) {
		const struct exit_event *e = &x->evs[i];
		uint64_t ts = e->ts < cur ? cur : e->ts > t1 ? t1 : e->ts;

		if (e->kind == XEV_SWITCH || e->cpu != x->cpu)
			continue;
		if (depth)
			op->steps[stack[depth - 1].step].ns += ts - cur;
		else
			outside += ts - cur;
		cur = ts;
		if (e->kind == XEV_ENTER) {
			bool kick = x->kick_fn && e->fun == x->kick_fn;

			if (!depth) {
				if (charge_outside(op, seen, false, outside))
					return -ENOMEM;
				outside = 0;
			}
			seen = true;
			st = kick ? exit_op_step(op, "cpuhp_kick_ap_work", -1) :
			     exit_op_step(op, state_name(x, e->idx), e->idx);
			if (!st)
				return -ENOMEM;
			st->calls++;
			if (depth < MAX_DEPTH)
				stack[depth++] = (struct open_state){
					e->idx, st - op->steps };
			continue;
		}
		if (e->ret)
			failed = 1;
		/* Close the innermost state of that number and all within. */
		for (int d = depth - 1; d >= 0; d--) {
			if (stack[d].idx == e->idx) {
				depth = d;
				break;
			}
		}
	}
	if (depth)
		op->steps[stack[depth - 1].step].ns += t1 - cur;
	else
		outside += t1 - cur;
	if (charge_outside(op, seen, true, outside))
		return -ENOMEM;
	op->total_ns = t1 - t0;
	return failed ? -SCHEDSTAT_ERR_HOTPLUG_FAILED : 0;
}

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
	t0 = mono_ns();
	if (write(fd, online ? "1" : "0", 1) != 1)
		werr = -errno;
	t1 = mono_ns();
	close(fd);
	err = cpu_exit_read_events(x);
	if (!err)
		err = attribute(x, op, t0, t1);
	if (werr && (!err || err == -ENOMEM))
		err = werr;
	return err;
}
