// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel prints of a sched or power event, in the neutral form's
 * terms (trace_event.h): prev_state letters, devlib's frequency markers.
 */
#include <stdio.h>
#include <string.h>

#include "schedstat.h"
#include "trace_event.h"

/*
 * The letters of sched_switch's prev_state as the kernel prints them
 * (__print_flags() of TASK_REPORT, "+" for TASK_REPORT_MAX, "|" between
 * several): 4.14 and later, whose bits the engine uses. Older kernels'
 * extra letters: x is TASK_DEAD, K (wakekill), W (waking) and N (noload)
 * carry no state of their own.
 */
uint64_t trace_state_from_letters(const char *s)
{
	static const char letters[] = "SDTtXZPI";
	uint64_t state = 0;

	for (; *s && *s != ' '; s++) {
		const char *l = strchr(letters, *s);

		if (*s == '+')
			state |= TRACE_STATE_PREEMPTED;
		else if (*s == 'x')
			state |= TRACE_STATE_DEAD;
		else if (l && *s)
			state |= 1u << (l - letters);
	}
	return state;
}

bool trace_marker_freq(const char *line, int32_t *cpu, int32_t *khz)
{
	unsigned int k, c;
	const char *p;

	if (strncmp(line, "cpu_frequency", 13))
		return false;
	p = line + 13;
	if (!strncmp(p, "_devlib", 7))
		p += 7;
	if (*p != ':' || !(p = strstr(p, "state=")) ||
	    sscanf(p, "state=%u cpu_id=%u", &k, &c) != 2 || c >= SCHEDSTAT_MAX_CPUS ||
	    k > INT32_MAX)
		return false;
	*cpu = c;
	*khz = k;
	return true;
}

void trace_ev_task(struct trace_ev *ev, int32_t pid, int32_t tgid, const char *comm)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = TRACE_EV_TASK;
	ev->cpu = -1;
	ev->pid = -1;
	ev->task.pid = pid;
	ev->task.tgid = tgid;
	snprintf(ev->task.comm, sizeof(ev->task.comm), "%s", comm);
}
