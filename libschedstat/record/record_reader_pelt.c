// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's PELT updates (format 1.1), chunk after chunk in file order,
 * apart from the samples: a reader walks them with its own position.
 */
#include <errno.h>
#include <stdlib.h>

#include "record_reader.h"

/* Decode the PELT chunk at @off whose header is @h into r->pelt. */
static int load_pelt(struct schedstat_recording *r, uint64_t off,
		     const struct rec_chunk_hdr *h)
{
	uint64_t prev_ts = 0;
	struct rec_cur c;
	uint8_t *buf;
	int err;

	r->pelt_nr = r->pelt_pos = 0;
	if (!h->count || h->count > REC_CHUNK_MAX_PELT ||
	    h->count > h->raw_len / REC_PELT_MIN_LEN)
		return -EBADMSG;
	err = rec_chunk_payload(r, off, h, &buf);
	if (err)
		return err;
	free(r->pelt);
	r->pelt = calloc(h->count, sizeof(*r->pelt));
	if (!r->pelt) {
		free(buf);
		return -ENOMEM;
	}
	c = (struct rec_cur){ buf, buf + h->raw_len, 0 };
	r->pelt_dropped = rec_get_u64le(&c);
	for (uint32_t i = 0; i < h->count && !c.err; i++)
		rec_decode_pelt(&c, &r->pelt[i], &prev_ts);
	err = c.err;
	if (!err && c.p != c.end)
		err = -EBADMSG;
	free(buf);
	if (err)
		return err;
	r->pelt_nr = h->count;
	return 0;
}

int schedstat_recording_pelt_next(struct schedstat_recording *r,
				  struct schedstat_pelt_update *u)
{
	while (r->pelt_pos >= r->pelt_nr) {
		struct rec_chunk_hdr h;
		uint64_t off = r->pelt_off;
		int err;

		if (off >= r->size)
			return -ENODATA;
		if (rec_chunk_at(r, off, &h)) {
			/* Say so for a PELT chunk; others are the samples' business. */
			bool pelt = !rec_chunk_hdr_decode(r->map + off, &h) &&
				    h.type == REC_CHUNK_PELT;

			r->pelt_off = rec_resync(r, off + 1);
			if (pelt)
				return -EBADMSG;
			continue;
		}
		r->pelt_off = off + REC_CHUNK_HDR_LEN + h.stored_len;
		if (h.type == REC_CHUNK_END)
			r->pelt_off = r->size;
		if (h.type != REC_CHUNK_PELT)
			continue;
		err = load_pelt(r, off, &h);
		if (err)
			return err == -ENOMEM ? err : -EBADMSG;
	}
	*u = r->pelt[r->pelt_pos++];
	return 0;
}

void schedstat_recording_pelt_rewind(struct schedstat_recording *r)
{
	r->pelt_off = r->head_end;
	r->pelt_nr = r->pelt_pos = 0;
	r->pelt_dropped = 0;
}

uint64_t schedstat_recording_pelt_dropped(const struct schedstat_recording *r)
{
	return r->pelt_dropped;
}
