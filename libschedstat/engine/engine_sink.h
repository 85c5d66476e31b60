/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an event source sends the engine's exits and migrations: to the
 * model (for the next sample) and, as events, to the session's caller.
 */
#ifndef SCHEDSTAT_ENGINE_SINK_H
#define SCHEDSTAT_ENGINE_SINK_H

#include "engine.h"

struct engine_sink {
	struct model *model;
	schedstat_event_fn on_event;
	void *event_ctx;
	int err;		/* the first failure, until taken */
};

/* Points @hooks' exit and migrate at @sink (its ctx becomes @sink). */
void engine_sink_hooks(struct engine_sink *sink, struct engine_hooks *hooks);
/* The first error since the last call (-ENOMEM from the model), or 0. */
int engine_sink_take_error(struct engine_sink *sink);

#endif /* SCHEDSTAT_ENGINE_SINK_H */
