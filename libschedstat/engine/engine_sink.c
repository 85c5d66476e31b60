// SPDX-License-Identifier: GPL-2.0
#include <errno.h>

#include "engine_sink.h"

static void deliver(struct engine_sink *k, struct schedstat_event *ev,
		    const struct st_task_rec *rec, uint64_t ts, int cpu)
{
	ev->ts_ns = ts;
	ev->cpu = cpu;
	ev->pid = rec->pid;
	ev->tgid = rec->tgid;
	schedstat_comm_sanitize(ev->comm, rec->comm, sizeof(ev->comm));
	if (k->on_event)
		k->on_event(ev, k->event_ctx);
}

static void on_exit_rec(void *ctx, const struct st_task_rec *rec, uint64_t ts)
{
	struct engine_sink *k = ctx;
	struct schedstat_event ev = { .type = SCHEDSTAT_EV_EXIT };

	if (model_add_exit(k->model, rec) && !k->err)
		k->err = -ENOMEM;
	deliver(k, &ev, rec, ts, rec->cpu);
}

static void on_migrate(void *ctx, const struct st_task_rec *rec, int32_t orig,
		       int32_t dest, uint64_t ts)
{
	struct engine_sink *k = ctx;
	struct schedstat_event ev = { .type = SCHEDSTAT_EV_MIGRATE };

	if (model_add_migration(k->model, rec->pid, orig, dest) && !k->err)
		k->err = -ENOMEM;
	ev.orig_cpu = orig;
	ev.dest_cpu = dest;
	deliver(k, &ev, rec, ts, dest);
}

void engine_sink_hooks(struct engine_sink *sink, struct engine_hooks *hooks)
{
	hooks->exit = on_exit_rec;
	hooks->migrate = on_migrate;
	hooks->ctx = sink;
}

int engine_sink_take_error(struct engine_sink *sink)
{
	int err = sink->err;

	sink->err = 0;
	return err;
}
