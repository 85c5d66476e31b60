// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF source's ring buffers between samples: exit, migration and
 * overutilized events into the model and out to the session's on_event,
 * and --pelt-trace records, drained with a budget and put in time order
 * (pelt_stream.c).
 */
#include <errno.h>

#include "bpf_source.h"
#include "pelt_stream.h"

static void deliver(struct bpfsrc *s, const struct st_event_hdr *h,
		    struct schedstat_event *ev)
{
	ev->ts_ns = h->ts;
	ev->cpu = h->cpu;
	if (s->on_event)
		s->on_event(ev, s->event_ctx);
}

int bpfsrc_on_ring_event(void *ctx, void *data, size_t size)
{
	struct bpfsrc *s = ctx;
	const struct st_event_hdr *h = data;
	struct schedstat_event ev = {};

	if (size < sizeof(*h) || h->size > size)
		return 0;
	switch (h->type) {
	case ST_EV_EXIT: {
		const struct st_event_exit *e = data;

		if (h->size < sizeof(*e))
			return 0;
		if (model_add_exit(s->model, &e->task))
			s->cb_err = -ENOMEM;
		ev.type = SCHEDSTAT_EV_EXIT;
		ev.pid = e->task.pid;
		ev.tgid = e->task.tgid;
		schedstat_comm_sanitize(ev.comm, e->task.comm, sizeof(ev.comm));
		break;
	}
	case ST_EV_MIGRATE: {
		const struct st_event_migrate *e = data;

		if (h->size < sizeof(*e))
			return 0;
		if (model_add_migration(s->model, e->pid, e->orig_cpu, e->dest_cpu))
			s->cb_err = -ENOMEM;
		ev.type = SCHEDSTAT_EV_MIGRATE;
		ev.pid = e->pid;
		ev.tgid = e->tgid;
		ev.orig_cpu = e->orig_cpu;
		ev.dest_cpu = e->dest_cpu;
		schedstat_comm_sanitize(ev.comm, e->comm, sizeof(ev.comm));
		break;
	}
	case ST_EV_OVERUTILIZED: {
		const struct st_event_overutilized *e = data;

		if (h->size < sizeof(*e))
			return 0;
		ev.type = SCHEDSTAT_EV_OVERUTILIZED;
		ev.overutilized = e->overutilized;
		break;
	}
	case ST_EV_CPUHP: {
		const struct st_event_cpuhp *e = data;

		if (h->size < sizeof(*e))
			return 0;
		ev.type = SCHEDSTAT_EV_CPUHP;
		ev.hp_cpu = e->cpu;
		ev.hp_kind = e->kind;
		ev.hp_target = e->target;
		ev.hp_idx = e->idx;
		ev.hp_ret = e->ret;
		ev.hp_kick = e->kind == ST_CPUHP_ENTER && s->kick_fn &&
			     e->fun == s->kick_fn;
		break;
	}
	default:
		return 0;
	}
	deliver(s, h, &ev);
	return 0;
}

/*
 * One --pelt-trace record. Past the drain's budget the ring is left with the
 * rest (returning an error stops libbpf after consuming this one).
 */
int bpfsrc_on_pelt_record(void *ctx, void *data, size_t size)
{
	struct bpfsrc *s = ctx;

	if (size >= sizeof(struct st_pelt_rec) &&
	    pelt_stream_add(s->pelt, data))
		s->cb_err = -ENOMEM;
	if (--s->pelt_budget > 0)
		return 0;
	s->pelt_budget_hit = true;
	return -ECANCELED;
}

/*
 * Events, then at most PELT_DRAIN_BUDGET PELT records (the event fd stays
 * readable while more wait); then the PELT updates old enough to be in
 * order go out.
 */
int bpfsrc_poll(struct bpfsrc *s)
{
	uint64_t now = util_mono_ns();
	int n;

	s->pelt_budget = PELT_DRAIN_BUDGET;
	s->pelt_budget_hit = false;
	n = ring_buffer__consume(s->rb);
	if (n == -ECANCELED && s->pelt_budget_hit)
		n = PELT_DRAIN_BUDGET;
	if (s->cb_err) {
		n = s->cb_err;
		s->cb_err = 0;
	}
	if (n >= 0 && s->pelt && now > PELT_REORDER_NS)
		pelt_stream_release(s->pelt, now - PELT_REORDER_NS);
	return n;
}

/* Everything the rings hold, and every held PELT update: the end. */
int bpfsrc_flush(struct bpfsrc *s)
{
	int n;

	do {
		n = bpfsrc_poll(s);
	} while (n >= 0 && s->pelt_budget_hit);
	if (n >= 0 && s->pelt)
		pelt_stream_release(s->pelt, UINT64_MAX);
	return n < 0 ? n : 0;
}

uint64_t bpfsrc_pelt_dropped(const struct bpfsrc *s)
{
	return s->skel->bss->global_state.pelt_dropped;
}

int bpfsrc_event_fd(const struct bpfsrc *s)
{
	return ring_buffer__epoll_fd(s->rb);
}
