// SPDX-License-Identifier: GPL-2.0
/*
 * What happens between samples, at its own time: a task's moves between
 * clusters (instants on its thread), workload activations (slices on the
 * thread, late ones named so, dropped ones instants), the root domain's
 * overutilized flips (a counter) and CPU hotplug operations (a slice per
 * operation on the CPU's hotplug track, its cpuhp states nested inside).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_fields.h"
#include "perfetto_writer.h"

uint32_t pfw_task_events_seq(struct schedstat_perfetto *p, struct pfw_task *t)
{
	if (!t->events_seq)
		t->events_seq = pfw_sequence(p, NULL, 0, 0);
	return t->events_seq;
}

static void annotation_int(struct proto_buf *b, const char *name, int64_t v)
{
	proto_begin(b, PF_TE_DEBUG_ANNOTATIONS);
	proto_put_string(b, PF_DA_NAME, name);
	proto_put_int(b, PF_DA_INT_VALUE, v);
	proto_end(b);
}

static void annotation_str(struct proto_buf *b, const char *name, const char *v)
{
	proto_begin(b, PF_TE_DEBUG_ANNOTATIONS);
	proto_put_string(b, PF_DA_NAME, name);
	proto_put_string(b, PF_DA_STRING_VALUE, v);
	proto_end(b);
}

/* Opens a TrackEvent of @type on @track named @name (NULL: none). */
static void event_begin(struct schedstat_perfetto *p, uint32_t seq, uint64_t ts,
			int type, uint64_t track, const char *name)
{
	pfw_packet_begin(p, seq, ts);
	proto_begin(&p->out, PF_PKT_TRACK_EVENT);
	proto_put_uint(&p->out, PF_TE_TYPE, type);
	proto_put_uint(&p->out, PF_TE_TRACK_UUID, track);
	if (name)
		proto_put_string(&p->out, PF_TE_NAME, name);
}

static int event_end(struct schedstat_perfetto *p)
{
	proto_end(&p->out);
	return pfw_packet_end(p);
}

static const char *cluster_of(const struct schedstat_perfetto *p, int cpu)
{
	int k = schedstat_topology_cpu_cluster(p->topo, cpu);

	return k >= 0 ? schedstat_topology_cluster_name(p->topo, k) : "?";
}

static int migrate(struct schedstat_perfetto *p, const struct schedstat_event *e)
{
	struct pfw_task *t = pfw_task_get(p, e->pid, e->tgid, e->comm, NULL, e->ts_ns);
	char name[2 * SCHEDSTAT_NAME_LEN + 16];

	if (!t)
		return -ENOMEM;
	snprintf(name, sizeof(name), "migrate %s -> %s", cluster_of(p, e->orig_cpu),
		 cluster_of(p, e->dest_cpu));
	event_begin(p, pfw_task_events_seq(p, t), e->ts_ns, PF_TYPE_INSTANT,
		    t->thread_uuid, name);
	annotation_int(&p->out, "from_cpu", e->orig_cpu);
	annotation_int(&p->out, "to_cpu", e->dest_cpu);
	return event_end(p);
}

static int overutilized(struct schedstat_perfetto *p, const struct schedstat_event *e)
{
	static const struct schedstat_trace_counter flag = {
		.name = "overutilized", .type = SCHEDSTAT_FIELD_S32, .unit = "flag",
	};

	if (!p->overutil_seq) {
		p->overutil_uuid = pfw_uuid(p);
		pfw_track(p, p->overutil_uuid, p->clusters_uuid, "overutilized", &flag, 1000);
		p->overutil_seq = pfw_sequence(p, NULL, 0, 0);
	}
	event_begin(p, p->overutil_seq, e->ts_ns, PF_TYPE_COUNTER, p->overutil_uuid, NULL);
	proto_put_int(&p->out, PF_TE_COUNTER_VALUE, e->overutilized ? 1 : 0);
	return event_end(p);
}

/*
 * An activation of `schedtop workload`: work from start to end, late when
 * it ended past its deadline; one never started (dropped: its thread was
 * still busy at the next release) or not finished when the run stopped is
 * an instant at its release or start.
 */
static int activation(struct schedstat_perfetto *p, const struct schedstat_event *e)
{
	struct pfw_task *t = pfw_task_get(p, e->pid, e->tgid, e->comm, NULL, e->ts_ns);
	uint32_t seq;
	int err;

	if (!t)
		return -ENOMEM;
	seq = pfw_task_events_seq(p, t);
	if (!e->start_ns || !e->end_ns) {
		event_begin(p, seq, e->start_ns ? e->start_ns : e->ts_ns, PF_TYPE_INSTANT,
			    t->thread_uuid, e->start_ns ? "activation unfinished" :
							  "activation dropped");
		annotation_int(&p->out, "release_ns", e->ts_ns);
		annotation_int(&p->out, "deadline_ns", e->deadline_ns);
		return event_end(p);
	}
	event_begin(p, seq, e->start_ns, PF_TYPE_SLICE_BEGIN, t->thread_uuid,
		    e->end_ns > e->deadline_ns ? "activation late" : "activation");
	annotation_int(&p->out, "wakeup_latency_ns", (int64_t)(e->start_ns - e->ts_ns));
	annotation_int(&p->out, "response_ns", (int64_t)(e->end_ns - e->ts_ns));
	annotation_int(&p->out, "slack_ns", (int64_t)(e->deadline_ns - e->end_ns));
	if (e->constraint >= 0)
		annotation_int(&p->out, "constraint", e->constraint);
	err = event_end(p);
	if (err)
		return err;
	event_begin(p, seq, e->end_ns, PF_TYPE_SLICE_END, t->thread_uuid, NULL);
	return event_end(p);
}

/* When an event goes on its track: an activation's work starts later. */
static uint64_t event_ts(const struct schedstat_event *e)
{
	return e->type == SCHEDSTAT_EV_ACTIVATION && e->start_ns ? e->start_ns : e->ts_ns;
}

static int by_ts(const void *a, const void *b)
{
	const struct schedstat_event *x = *(const struct schedstat_event *const *)a;
	const struct schedstat_event *y = *(const struct schedstat_event *const *)b;
	uint64_t tx = event_ts(x), ty = event_ts(y);

	return (tx > ty) - (tx < ty);
}

int pfw_events(struct schedstat_perfetto *p, const struct schedstat_event *evs,
	       size_t nr)
{
	const struct schedstat_event **order;
	int err = 0;

	if (!nr)
		return 0;
	/* One ring buffer for all CPUs: nearly, not quite, in time order. */
	order = malloc(nr * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		order[i] = &evs[i];
	qsort(order, nr, sizeof(*order), by_ts);
	for (size_t i = 0; i < nr && !err; i++) {
		switch (order[i]->type) {
		case SCHEDSTAT_EV_MIGRATE:
			err = migrate(p, order[i]);
			break;
		case SCHEDSTAT_EV_OVERUTILIZED:
			err = overutilized(p, order[i]);
			break;
		case SCHEDSTAT_EV_ACTIVATION:
			err = activation(p, order[i]);
			break;
		default:
			break;
		}
	}
	free(order);
	return err;
}

/*
 * A task's rows end (docs/perfetto.md, "Read back"): "exit" at the sample
 * of its last row (it exited), "gone" at the first sample without it. A
 * counter holds its value until the next, so without these a reader could
 * not tell a task that left from one whose values stood still.
 */
int pfw_task_end(struct schedstat_perfetto *p, struct pfw_task *t, uint64_t ts,
		 bool exited)
{
	event_begin(p, pfw_task_events_seq(p, t), ts, PF_TYPE_INSTANT, t->thread_uuid,
		    exited ? "exit" : "gone");
	return event_end(p);
}

int schedstat_perfetto_add_hotplug(struct schedstat_perfetto *p,
				   const struct schedstat_recorded_hotplug *h)
{
	const struct schedstat_exit_op *op = &h->op;
	char name[64];
	uint64_t at;
	int cpu = h->cpu;

	if (p->err)
		return p->err;
	if (cpu < 0 || cpu >= p->nr_cpus || !p->cpu_uuid[cpu])
		return 0;
	if (!p->hotplug_uuid[cpu]) {
		p->hotplug_uuid[cpu] = pfw_uuid(p);
		snprintf(name, sizeof(name), "cpu%d hotplug", cpu);
		pfw_track(p, p->hotplug_uuid[cpu], p->cpu_uuid[cpu], name, NULL, 999);
		p->hotplug_seq[cpu] = pfw_sequence(p, NULL, 0, 0);
	}
	snprintf(name, sizeof(name), "cpu%d %s%s", cpu, op->back ? "online" : "offline",
		 h->failed ? " failed" : "");
	event_begin(p, p->hotplug_seq[cpu], h->ts_ns, PF_TYPE_SLICE_BEGIN,
		    p->hotplug_uuid[cpu], name);
	annotation_int(&p->out, "total_ns", op->total_ns);
	event_end(p);
	/* The states laid end to end, in the order first entered, each as
	 * long as it was innermost: their times sum to the operation's. */
	at = h->ts_ns;
	for (size_t k = 0; k < op->nr_steps; k++) {
		const struct schedstat_exit_step *s = &op->steps[k];

		event_begin(p, p->hotplug_seq[cpu], at, PF_TYPE_SLICE_BEGIN,
			    p->hotplug_uuid[cpu], s->name ? s->name : "?");
		annotation_int(&p->out, "state", s->state);
		annotation_int(&p->out, "ns", s->ns);
		annotation_int(&p->out, "calls", s->calls);
		event_end(p);
		at += s->ns;
		event_begin(p, p->hotplug_seq[cpu], at, PF_TYPE_SLICE_END,
			    p->hotplug_uuid[cpu], NULL);
		event_end(p);
	}
	/* Never before its last state's end: the sequence's time only grows. */
	if (at < h->ts_ns + op->total_ns)
		at = h->ts_ns + op->total_ns;
	event_begin(p, p->hotplug_seq[cpu], at, PF_TYPE_SLICE_END,
		    p->hotplug_uuid[cpu], NULL);
	if (h->failed)
		annotation_str(&p->out, "result", "a callback failed: rolled back");
	return event_end(p);
}
