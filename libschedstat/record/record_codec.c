// SPDX-License-Identifier: GPL-2.0
/*
 * One sample of a SAMPLES chunk (docs/record-format.md): its time, interval,
 * signals and losses, the events it delivered, then its six tables
 * (record_rows.c), coded against the previous sample of the same chunk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record_format.h"

void rec_codec_reset(struct rec_codec *cx)
{
	schedstat_snapshot_free(cx->prev);
	cx->prev = NULL;
}

/*
 * An activation fills the same nine slots as every event, so that readers
 * of format 1.0 skip it whole (docs/record-format.md): the cpu slot holds
 * its constraint, the last three its start, end and deadline as ns after
 * its release (start -1: dropped).
 */
static void encode_event(struct rec_buf *b, const struct schedstat_event *ev,
			 uint64_t ts)
{
	bool act = ev->type == SCHEDSTAT_EV_ACTIVATION;

	rec_put_uvar(b, ev->type);
	rec_put_svar(b, (int64_t)(ev->ts_ns - ts));
	rec_put_svar(b, act ? ev->constraint : ev->cpu);
	rec_put_svar(b, ev->pid);
	rec_put_svar(b, ev->tgid);
	rec_put_str(b, ev->comm);
	if (act) {
		rec_put_svar(b, ev->start_ns ? (int64_t)(ev->start_ns - ev->ts_ns) : -1);
		rec_put_svar(b, ev->end_ns ? (int64_t)(ev->end_ns - ev->ts_ns) : -1);
		rec_put_svar(b, (int64_t)(ev->deadline_ns - ev->ts_ns));
		return;
	}
	rec_put_svar(b, ev->orig_cpu);
	rec_put_svar(b, ev->dest_cpu);
	rec_put_svar(b, ev->overutilized);
}

static void decode_event(struct rec_cur *c, struct schedstat_event *ev, uint64_t ts)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = rec_get_uvar(c);
	ev->ts_ns = ts + (uint64_t)rec_get_svar(c);
	ev->cpu = rec_get_svar(c);
	ev->pid = rec_get_svar(c);
	ev->tgid = rec_get_svar(c);
	rec_get_str(c, ev->comm, sizeof(ev->comm));
	if (ev->type == SCHEDSTAT_EV_ACTIVATION) {
		int64_t start = rec_get_svar(c), end = rec_get_svar(c);

		ev->constraint = ev->cpu;
		ev->cpu = -1;
		ev->start_ns = start >= 0 ? ev->ts_ns + start : 0;
		ev->end_ns = end >= 0 ? ev->ts_ns + end : 0;
		ev->deadline_ns = ev->ts_ns + rec_get_svar(c);
		return;
	}
	ev->orig_cpu = rec_get_svar(c);
	ev->dest_cpu = rec_get_svar(c);
	ev->overutilized = rec_get_svar(c);
}

int rec_encode_sample(struct rec_codec *cx, struct rec_buf *b,
		      const struct schedstat_snapshot *snap,
		      const struct schedstat_event *evs, size_t nr_evs)
{
	const struct schedstat_snapshot *prev = cx->prev;
	struct schedstat_snapshot *copy;

	rec_put_svar(b, (int64_t)(snap->ts_ns - (prev ? prev->ts_ns : cx->base_ts)));
	rec_put_uvar(b, snap->interval_ns);
	rec_put_uvar(b, snap->avail);
	rec_put_uvar(b, snap->dropped);
	rec_put_uvar(b, nr_evs);
	for (size_t i = 0; i < nr_evs; i++)
		encode_event(b, &evs[i], snap->ts_ns);
	rec_encode_tables(b, snap, prev);
	if (b->err)
		return b->err;
	copy = rec_snapshot_copy(snap);
	if (!copy)
		return -ENOMEM;
	rec_codec_reset(cx);
	cx->prev = copy;
	return 0;
}

/*
 * The bits a file of before them had every source give (cx->add_avail):
 * the reference copy keeps the stored values, which the next sample's
 * differences are against.
 */
static void rec_add_avail(const struct rec_codec *cx, struct schedstat_snapshot *s)
{
	s->avail |= cx->add_avail;
	for (size_t i = 0; i < s->nr_cpus; i++)
		s->cpus[i].avail |= cx->add_avail;
	for (size_t i = 0; i < s->nr_clusters; i++)
		s->clusters[i].avail |= cx->add_avail;
}

int rec_decode_sample(struct rec_codec *cx, struct rec_cur *c,
		      struct schedstat_snapshot **out,
		      struct schedstat_event **evs, size_t *nr_evs, size_t *cap)
{
	const struct schedstat_snapshot *prev = cx->prev;
	struct schedstat_snapshot *s, *copy;
	size_t nr;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ts_ns = (prev ? prev->ts_ns : cx->base_ts) + (uint64_t)rec_get_svar(c);
	s->interval_ns = rec_get_uvar(c);
	s->avail = rec_get_uvar(c);
	s->dropped = rec_get_uvar(c);
	/* An event takes at least nine bytes. */
	nr = rec_get_count(c, 9);
	err = c->err;
	if (!err && nr > cx->budget / sizeof(**evs))
		err = -EBADMSG;
	if (!err && nr) {
		cx->budget -= nr * sizeof(**evs);
		err = schedstat_array_reserve((void **)evs, cap, *nr_evs + nr, sizeof(**evs));
	}
	for (size_t i = 0; i < nr && !err; i++) {
		decode_event(c, &(*evs)[(*nr_evs)++], s->ts_ns);
		err = c->err;
	}
	if (!err)
		err = rec_decode_tables(cx, c, s, prev);
	if (err)
		goto fail;
	model_fill_derived(s);
	copy = rec_snapshot_copy(s);
	if (!copy) {
		err = -ENOMEM;
		goto fail;
	}
	rec_codec_reset(cx);
	cx->prev = copy;
	rec_add_avail(cx, s);
	*out = s;
	return 0;
fail:
	schedstat_snapshot_free(s);
	return err;
}
