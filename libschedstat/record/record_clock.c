// SPDX-License-Identifier: GPL-2.0
/*
 * CLOCK chunks (format 1.4): where CLOCK_MONOTONIC, the clock of every
 * timestamp in a recording, stood against CLOCK_BOOTTIME, the clock of
 * Perfetto's captures and of ftrace's "boot" trace_clock. The two differ by
 * the time the machine slept, so a pair is kept at the start and again only
 * when that moved; an exporter then lays the recording beside a capture of
 * the same moments (docs/perfetto.md).
 */
#include <errno.h>
#include <stdlib.h>

#include "record_reader.h"

int rec_clock_add(struct rec_clock_out *o, const struct schedstat_clock_pair *pair)
{
	int64_t offset = (int64_t)(pair->boottime_ns - pair->monotonic_ns);
	int64_t moved = offset - o->last_offset;

	if (o->kept && moved <= REC_CLOCK_SLACK_NS && moved >= -REC_CLOCK_SLACK_NS)
		return 0;
	if (!o->count)
		o->first_ts = pair->monotonic_ns;
	rec_put_uvar(&o->buf, pair->monotonic_ns);
	rec_put_svar(&o->buf, offset);
	if (o->buf.err)
		return o->buf.err;
	o->count++;
	o->last_offset = offset;
	o->kept = true;
	return 1;
}

void rec_clock_out_free(struct rec_clock_out *o)
{
	free(o->buf.p);
	o->buf = (struct rec_buf){};
}

/* The pairs of the CLOCK chunk at @at into r->clocks. */
static int decode_chunk(struct schedstat_recording *r, uint64_t at,
			const struct rec_chunk_hdr *h)
{
	struct schedstat_clock_pair *grown;
	struct rec_cur c;
	uint8_t *buf;
	int err;

	if (!h->count || h->count > REC_CHUNK_MAX_CLOCK ||
	    h->count > h->raw_len / REC_CLOCK_MIN_LEN)
		return -EBADMSG;
	err = rec_chunk_payload(r, at, h, &buf);
	if (err)
		return err;
	grown = realloc(r->clocks, (r->nr_clocks + h->count) * sizeof(*grown));
	if (!grown) {
		free(buf);
		return -ENOMEM;
	}
	r->clocks = grown;
	c = (struct rec_cur){ buf, buf + h->raw_len, 0 };
	for (uint32_t i = 0; i < h->count && !c.err; i++) {
		struct schedstat_clock_pair *p = &r->clocks[r->nr_clocks + i];

		p->monotonic_ns = rec_get_uvar(&c);
		p->boottime_ns = p->monotonic_ns + (uint64_t)rec_get_svar(&c);
		/* In time order, on both clocks: a pair out of it is damage. */
		if (!c.err && (i || r->nr_clocks) &&
		    (p->monotonic_ns <= p[-1].monotonic_ns ||
		     p->boottime_ns <= p[-1].boottime_ns))
			c.err = -EBADMSG;
	}
	err = c.err;
	if (!err && c.p != c.end)
		err = -EBADMSG;
	free(buf);
	if (!err)
		r->nr_clocks += h->count;
	return err;
}

int schedstat_recording_clocks(struct schedstat_recording *r,
			       const struct schedstat_clock_pair **pairs, size_t *nr)
{
	uint64_t off = r->head_end, at;
	struct rec_chunk_hdr h;
	int err;

	if (!r->clocks_read) {
		for (;;) {
			err = rec_next_chunk(r, &off, REC_CHUNK_CLOCK, &h, &at);
			if (err == -ENODATA)
				break;
			if (!err)
				err = decode_chunk(r, at, &h);
			if (err == -ENOMEM)
				return err;
		}
		r->clocks_read = true;
	}
	*pairs = r->clocks;
	*nr = r->nr_clocks;
	return r->nr_clocks ? 0 : -ENODATA;
}
