// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU queues merged in time order within a bounded window
 * (trace_merge.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_merge.h"

int trace_merge_init(struct trace_merge *m, int nr_cpus, bool sorted,
		     const uint64_t *totals)
{
	memset(m, 0, sizeof(*m));
	m->q = calloc(nr_cpus ? nr_cpus : 1, sizeof(*m->q));
	if (!m->q)
		return -ENOMEM;
	m->nr_cpus = nr_cpus;
	m->sorted = sorted;
	m->totals_known = totals;
	for (int cpu = 0; totals && cpu < nr_cpus; cpu++)
		m->q[cpu].total = totals[cpu];
	return 0;
}

void trace_merge_free(struct trace_merge *m)
{
	for (int cpu = 0; m->q && cpu < m->nr_cpus; cpu++)
		free(m->q[cpu].ev);
	free(m->q);
	m->q = NULL;
}

static int grow(struct trace_merge_queue *q)
{
	uint32_t cap = q->cap ? q->cap * 2 : 64;
	struct trace_ev *ev = malloc(cap * sizeof(*ev));

	if (!ev)
		return -ENOMEM;
	/* Unwrap the ring into the new array. */
	for (uint32_t i = 0; i < q->n; i++)
		ev[i] = q->ev[(q->head + i) % q->cap];
	free(q->ev);
	q->ev = ev;
	q->cap = cap;
	q->head = 0;
	return 0;
}

int trace_merge_push(struct trace_merge *m, const struct trace_ev *ev)
{
	struct trace_merge_queue *q = &m->q[ev->cpu];

	if (q->n == q->cap && grow(q))
		return -ENOMEM;
	q->ev[(q->head + q->n) % q->cap] = *ev;
	q->n++;
	q->pushed++;
	if (ev->ts > q->last_ts)
		q->last_ts = ev->ts;
	if (ev->ts > m->newest)
		m->newest = ev->ts;
	if (++m->queued > m->high_water)
		m->high_water = m->queued;
	return 0;
}

/* Whether @cpu may still bring an event earlier than @ts. */
static bool may_precede(const struct trace_merge *m, int cpu, uint64_t ts)
{
	const struct trace_merge_queue *q = &m->q[cpu];

	if (q->n)
		return false;		/* its next is queued, not earlier */
	if (m->totals_known && q->pushed >= q->total)
		return false;		/* it has no more */
	return !q->pushed || q->last_ts < ts;
}

const struct trace_ev *trace_merge_peek(struct trace_merge *m, bool all_in)
{
	const struct trace_ev *best = NULL;
	int best_cpu = -1;

	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct trace_merge_queue *q = &m->q[cpu];
		const struct trace_ev *ev;

		if (!q->n)
			continue;
		ev = &q->ev[q->head];
		if (!best || ev->ts < best->ts) {
			best = ev;
			best_cpu = cpu;
		}
	}
	if (!best || all_in || m->sorted)
		return best;
	if (m->queued >= TRACE_MERGE_MAX_EVENTS ||
	    m->newest - best->ts > TRACE_MERGE_WINDOW_NS)
		return best;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		if (cpu != best_cpu && may_precede(m, cpu, best->ts))
			return NULL;
	return best;
}

void trace_merge_pop(struct trace_merge *m, const struct trace_ev *ev)
{
	struct trace_merge_queue *q = &m->q[ev->cpu];

	if (ev->ts < m->last_out)
		m->late++;
	else
		m->last_out = ev->ts;
	q->head = (q->head + 1) % q->cap;
	q->n--;
	m->queued--;
}
