/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace events schedtop understands, parsed with libtraceevent and
 * handed to the engine: shared by the tracefs source and trace-cmd files.
 */
#ifndef SCHEDSTAT_SCHED_EVENTS_H
#define SCHEDSTAT_SCHED_EVENTS_H

#include <stdint.h>

#include <traceevent/event-parse.h>

#include "engine.h"
#include "trace_event.h"

/* The events read are the first TP_NR_EVENTS rows of tracepoints.h. */
struct sched_events;

/* Look the events up in @tep (missing ones are left out). */
int sched_events_new(struct sched_events **out, struct tep_handle *tep,
		     struct engine *engine);
void sched_events_free(struct sched_events *se);
/*
 * @rec as a neutral event (engine/trace_event.h): its kind, also in
 * ev->kind; TRACE_EV_CURRENT for an event not read (its common pid only).
 */
int sched_events_decode(const struct sched_events *se,
			const struct tep_record *rec, struct trace_ev *ev);
/* Feed one record to the engine; unknown events are ignored. */
int sched_events_handle(struct sched_events *se, struct tep_record *rec);
/*
 * Whether @rec sets a CPU's frequency (power:cpu_frequency, or devlib's
 * trace_marker line of it); then its @cpu and @khz.
 */
bool sched_events_freq(const struct sched_events *se,
		       const struct tep_record *rec, int *cpu, uint32_t *khz);
/*
 * Whether @rec is ftrace's print (a trace_marker write); then its text into
 * @buf (@size > 0, cut to fit, NUL-terminated).
 */
bool sched_events_print_text(const struct sched_events *se,
			     const struct tep_record *rec, char *buf, size_t size);
/* SCHEDSTAT_AVAIL_* bits the events found in @tep provide. */
uint32_t sched_events_avail(const struct sched_events *se);
/*
 * @name will not be read (the live source leaves it off): what it gave
 * comes from elsewhere (sched_wakeup counts the wakeups).
 */
void sched_events_ignore(struct sched_events *se, const char *name);
bool sched_events_have(const struct sched_events *se, const char *name);
/*
 * Every cpuhp step also goes to @fn as a SCHEDSTAT_EV_CPUHP event (for
 * recordings); @kick_fn is cpuhp_kick_ap_work's address, 0 if unknown.
 */
void sched_events_on_cpuhp(struct sched_events *se, schedstat_event_fn fn,
			   void *ctx, uint64_t kick_fn);

#endif /* SCHEDSTAT_SCHED_EVENTS_H */
