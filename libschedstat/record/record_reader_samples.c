// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's samples by index or time: the chunk that holds one is
 * decoded whole into a one-chunk cache, with the events of its samples.
 */
#include <errno.h>
#include <stdlib.h>

#include "record_reader.h"
#include "record_regroup.h"

void rec_drop_cache(struct schedstat_recording *r)
{
	if (r->cached != SIZE_MAX && r->snaps)
		for (uint32_t i = 0; i < r->chunks[r->cached].count; i++)
			schedstat_snapshot_free(r->snaps[i]);
	free(r->snaps);
	free(r->ev_start);
	r->snaps = NULL;
	r->ev_start = NULL;
	r->nr_evs = 0;
	r->cached = SIZE_MAX;
}

/* Decode chunk @k into the cache. */
int rec_load_chunk(struct schedstat_recording *r, size_t k)
{
	struct chunk_ref *ch = &r->chunks[k];
	struct rec_codec cx = {};
	struct rec_chunk_hdr h;
	struct rec_cur c;
	uint8_t *buf = NULL;
	int err;

	if (r->cached == k)
		return 0;
	if (ch->bad)
		return -EBADMSG;
	rec_drop_cache(r);
	err = rec_chunk_at(r, ch->offset, &h) ? -EBADMSG : 0;
	if (!err && (h.type != REC_CHUNK_SAMPLES || h.count != ch->count ||
		     h.count > h.raw_len / REC_SAMPLE_MIN_LEN))
		err = -EBADMSG;
	if (!err)
		err = rec_chunk_payload(r, ch->offset, &h, &buf);
	if (err)
		goto cleanup;
	r->snaps = calloc(ch->count, sizeof(*r->snaps));
	r->ev_start = calloc(ch->count + 1, sizeof(*r->ev_start));
	if (!r->snaps || !r->ev_start) {
		err = -ENOMEM;
		goto cleanup;
	}
	r->cached = k;
	cx.base_ts = h.first_ts;
	cx.budget = 2 * REC_CHUNK_DECODED_MAX;
	if (r->info.version_minor < 5)
		cx.add_avail = SCHEDSTAT_AVAIL_TASK_TIME | SCHEDSTAT_AVAIL_ACTIVITY;
	c = (struct rec_cur){ buf, buf + h.raw_len, 0 };
	for (uint32_t i = 0; i < ch->count && !err; i++) {
		r->ev_start[i] = r->nr_evs;
		err = rec_decode_sample(&cx, &c, &r->snaps[i], &r->evs, &r->nr_evs,
					&r->cap_evs);
	}
	r->ev_start[ch->count] = r->nr_evs;
	if (!err && c.p != c.end)
		err = -EBADMSG;
cleanup:
	rec_codec_reset(&cx);
	free(buf);
	if (err) {
		rec_drop_cache(r);
		if (err != -ENOMEM && !ch->bad) {
			ch->bad = true;
			r->info.bad_chunks++;
			r->info.bad_samples += ch->count;
		}
	}
	return err;
}

/* The chunk holding sample @idx: chunks are in sample order. */
static size_t chunk_of(const struct schedstat_recording *r, size_t idx)
{
	size_t lo = 0, hi = r->nr_chunks;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (r->chunks[mid].first_sample <= idx)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int schedstat_recording_sample(struct schedstat_recording *r, size_t idx,
			       struct schedstat_snapshot **out,
			       const struct schedstat_event **evs, size_t *nr_evs)
{
	const struct schedstat_event *ev;
	size_t k, i, nr;
	int err;

	*out = NULL;
	if (idx >= r->info.nr_samples)
		return -ERANGE;
	k = chunk_of(r, idx);
	err = rec_load_chunk(r, k);
	if (err)
		return err;
	i = idx - r->chunks[k].first_sample;
	nr = r->ev_start[i + 1] - r->ev_start[i];
	ev = nr ? r->evs + r->ev_start[i] : NULL;
	*out = rec_snapshot_copy(r->snaps[i]);
	if (*out && r->recorded && rec_regroup_snapshot(*out, r, ev, nr)) {
		schedstat_snapshot_free(*out);
		*out = NULL;
	}
	if (!*out)
		return -ENOMEM;
	schedstat_snapshot_apply_energy(*out, r->em);
	if (evs) {
		*nr_evs = nr;
		*evs = ev;
	}
	return 0;
}

uint64_t schedstat_recording_ts(struct schedstat_recording *r, size_t idx)
{
	size_t k;

	if (idx >= r->info.nr_samples)
		return 0;
	k = chunk_of(r, idx);
	if (rec_load_chunk(r, k))
		return 0;
	return r->snaps[idx - r->chunks[k].first_sample]->ts_ns;
}

size_t schedstat_recording_skip(const struct schedstat_recording *r, size_t idx)
{
	size_t k;

	if (idx >= r->info.nr_samples)
		return r->info.nr_samples;
	k = chunk_of(r, idx);
	return r->chunks[k].first_sample + r->chunks[k].count;
}

size_t schedstat_recording_find(struct schedstat_recording *r, uint64_t ts_ns)
{
	size_t lo = 0, hi = r->nr_chunks, k;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (r->chunks[mid].first_ts <= ts_ns)
			lo = mid;
		else
			hi = mid;
	}
	k = lo;
	if (rec_load_chunk(r, k))
		return r->chunks[k].first_sample;
	for (uint32_t i = r->chunks[k].count; i-- > 1;)
		if (r->snaps[i]->ts_ns <= ts_ns)
			return r->chunks[k].first_sample + i;
	return r->chunks[k].first_sample;
}
