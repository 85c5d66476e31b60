// SPDX-License-Identifier: GPL-2.0
/*
 * One hotplug operation's time split among its cpuhp states, from its
 * cpuhp_enter / cpuhp_multi_enter / cpuhp_exit steps: the live timer's
 * (cpuhp_timing.c) and a recording's (record_cpuhp.c). States nest across
 * CPUs: the writer runs the control side's states, and one of them
 * (cpuhp_kick_ap_work) waits while the CPU's own hotplug thread runs the AP
 * states; takedown runs the dying states in stop_machine on the CPU itself.
 * Each moment goes to the innermost state open then, so the states' times
 * add up to the operation's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_exit.h"

struct schedstat_exit_step *exit_op_step(struct schedstat_exit_op *op,
					 const char *name, int state)
{
	struct schedstat_exit_step *grown;

	for (size_t i = 0; i < op->nr_steps; i++)
		if (op->steps[i].state == state && !strcmp(op->steps[i].name, name))
			return &op->steps[i];
	grown = realloc(op->steps, (op->nr_steps + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	op->steps = grown;
	grown = &op->steps[op->nr_steps++];
	*grown = (struct schedstat_exit_step){ .name = name, .state = state };
	return grown;
}

void schedstat_exit_op_clear(struct schedstat_exit_op *op)
{
	free(op->steps);
	memset(op, 0, sizeof(*op));
}

/* Deeper than any kernel nests its states (two or three levels). */
#define MAX_DEPTH	32

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

int cpuhp_attribute(const struct exit_event *evs, size_t nr_evs, int cpu,
		    uint64_t kick_fn, struct cpuhp_names *names,
		    struct schedstat_exit_op *op, uint64_t t0, uint64_t t1)
{
	struct open_state stack[MAX_DEPTH];
	struct schedstat_exit_step *st;
	uint64_t cur = t0, outside = 0;
	bool seen = false;
	int depth = 0, failed = 0;

	for (size_t i = 0; i < nr_evs; i++) {
		const struct exit_event *e = &evs[i];
		uint64_t ts = e->ts < cur ? cur : e->ts > t1 ? t1 : e->ts;

		if (e->kind == XEV_SWITCH || e->cpu != cpu)
			continue;
		if (depth)
			op->steps[stack[depth - 1].step].ns += ts - cur;
		else
			outside += ts - cur;
		cur = ts;
		if (e->kind == XEV_ENTER) {
			bool kick = kick_fn && e->fun == kick_fn;

			if (!depth) {
				if (charge_outside(op, seen, false, outside))
					return -ENOMEM;
				outside = 0;
			}
			seen = true;
			st = kick ? exit_op_step(op, "cpuhp_kick_ap_work", -1) :
			     exit_op_step(op, cpuhp_name(names, e->idx), e->idx);
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

