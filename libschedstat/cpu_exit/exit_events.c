// SPDX-License-Identifier: GPL-2.0
/*
 * The events an operation on the CPU is timed by: a private tracefs instance
 * with the cpuhp events (and sched_switch while evacuating), read in time
 * order. The hotplug timer (cpuhp_timing.c) and the evacuation (evacuate.c)
 * both read them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "cpu_exit.h"
#include "tracefs_instance.h"

/* cpuhp events are a few hundred per operation; switches a few thousand. */
#define BUFFER_KB	1024

static const char *const systems[] = { "cpuhp", "sched", NULL };

static int get_field(struct tep_event *ev, const char *name,
		     struct tep_record *rec, unsigned long long *val)
{
	return tep_get_field_val(NULL, ev, name, rec, val, 0) ? -EINVAL : 0;
}

static int on_record(struct tep_event *event, struct tep_record *rec, int cpu,
		     void *ctx)
{
	struct schedstat_cpu_exit *x = ctx;
	unsigned long long v1 = 0, v2 = 0, v3 = 0;
	struct exit_event *e;
	int err;

	if (event != x->ev_enter && event != x->ev_multi &&
	    event != x->ev_exit && event != x->ev_switch)
		return 0;
	if (schedstat_array_reserve((void **)&x->evs, &x->cap_evs, x->nr_evs + 1,
			  sizeof(*x->evs))) {
		x->cb_err = -ENOMEM;
		return 1;
	}
	e = &x->evs[x->nr_evs];
	memset(e, 0, sizeof(*e));
	e->ts = rec->ts;
	e->seq = x->seq++;
	if (event == x->ev_switch) {
		e->kind = XEV_SWITCH;
		e->cpu = rec->cpu;
		err = get_field(event, "prev_pid", rec, &v1) ?:
		      get_field(event, "next_pid", rec, &v2);
		e->prev_pid = v1;
		e->next_pid = v2;
	} else {
		e->kind = event == x->ev_exit ? XEV_EXIT : XEV_ENTER;
		err = get_field(event, "cpu", rec, &v1) ?:
		      get_field(event, "idx", rec, &v2);
		if (!err && e->kind == XEV_EXIT)
			err = get_field(event, "ret", rec, &v3);
		else if (!err)
			err = get_field(event, "fun", rec, &v3);
		e->cpu = v1;
		e->idx = (int)v2;
		if (e->kind == XEV_EXIT)
			e->ret = (int)v3;
		else
			e->fun = v3;
	}
	if (!err)
		x->nr_evs++;	/* a record without the fields is skipped */
	return 0;
}

static int cmp_event(const void *a, const void *b)
{
	const struct exit_event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int cpu_exit_read_events(struct schedstat_cpu_exit *x)
{
	x->nr_evs = 0;
	x->cb_err = 0;
	/* The per-CPU buffers one after the other: sorted afterwards. */
	if (tracefs_iterate_raw_events(x->tep, x->inst, NULL, 0, on_record, x))
		return errno ? -errno : -EIO;
	if (x->cb_err)
		return x->cb_err;
	qsort(x->evs, x->nr_evs, sizeof(*x->evs), cmp_event);
	return 0;
}

/* The instance with the events enabled: 0 or -errno. */
int exit_events_open(struct schedstat_cpu_exit *x)
{
	int err = trace_instance_open(&x->inst, BUFFER_KB);

	if (err)
		return err;
	x->tep = tracefs_local_events_system(NULL, systems);
	if (!x->tep)
		return -SCHEDSTAT_ERR_TRACEFS_EVENTS;
	x->ev_enter = tep_find_event_by_name(x->tep, "cpuhp", "cpuhp_enter");
	x->ev_multi = tep_find_event_by_name(x->tep, "cpuhp", "cpuhp_multi_enter");
	x->ev_exit = tep_find_event_by_name(x->tep, "cpuhp", "cpuhp_exit");
	x->ev_switch = tep_find_event_by_name(x->tep, "sched", "sched_switch");
	/* Each missing piece said apart: one line names what this kernel lacks. */
	if (!x->ev_enter || !x->ev_exit ||
	    tracefs_event_enable(x->inst, "cpuhp", NULL))
		return -SCHEDSTAT_ERR_NO_CPUHP_TP;
	if (!x->ev_switch)
		return -SCHEDSTAT_ERR_TRACEFS_EVENTS;
	return 0;
}

void exit_events_close(struct schedstat_cpu_exit *x)
{
	trace_instance_close(x->inst);
	tep_free(x->tep);
	free(x->evs);
}
