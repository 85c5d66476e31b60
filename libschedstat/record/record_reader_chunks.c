// SPDX-License-Identifier: GPL-2.0
/*
 * Where a recording's chunks are: its head (metadata, topology), then the
 * samples' chunks from the finished file's index, or, without a usable
 * index, from a walk over every chunk that resynchronises past damage.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "record_reader.h"

/* A chunk header at @off whose stored bytes fit in the file and pass the CRC. */
int rec_chunk_at(const struct schedstat_recording *r, uint64_t off,
		 struct rec_chunk_hdr *h)
{
	if (off > r->size || r->size - off < REC_CHUNK_HDR_LEN)
		return -ENODATA;
	if (rec_chunk_hdr_decode(r->map + off, h))
		return -EBADMSG;
	if (r->size - off - REC_CHUNK_HDR_LEN < h->stored_len)
		return -ENODATA;
	if (!rec_crc_matches(rec_chunk_crc(r->map + off, r->map + off + REC_CHUNK_HDR_LEN,
					   h->stored_len), h->crc))
		return -EBADMSG;
	return 0;
}

/* The chunk's payload, inflated if need be, in *@buf (free it). */
int rec_chunk_payload(const struct schedstat_recording *r, uint64_t off,
		      const struct rec_chunk_hdr *h, uint8_t **buf)
{
	const uint8_t *stored = r->map + off + REC_CHUNK_HDR_LEN;
	uLongf len = h->raw_len;

	*buf = malloc(h->raw_len ? h->raw_len : 1);
	if (!*buf)
		return -ENOMEM;
	if (!(h->flags & REC_CHUNK_DEFLATE)) {
		memcpy(*buf, stored, h->raw_len);
		return 0;
	}
	if (uncompress(*buf, &len, stored, h->stored_len) != Z_OK ||
	    len != h->raw_len) {
		free(*buf);
		*buf = NULL;
		return -EBADMSG;
	}
	return 0;
}

static int read_meta(struct schedstat_recording *r, const uint8_t *p, size_t len)
{
	struct rec_cur c = { p, p + len, 0 };
	size_t n = rec_get_count(&c, 2);

	if (c.err)
		return c.err;
	r->meta = calloc(n ? n : 1, sizeof(*r->meta));
	if (!r->meta)
		return -ENOMEM;
	for (size_t i = 0; i < n && !c.err; i++) {
		/* A workload's constraints take up to 4 KiB (cmd_workload.c). */
		char key[64], value[4096];

		rec_get_str(&c, key, sizeof(key));
		rec_get_str(&c, value, sizeof(value));
		if (c.err)
			break;
		r->meta[i].key = strdup(key);
		r->meta[i].value = strdup(value);
		r->nr_meta++;
		if (!r->meta[i].key || !r->meta[i].value)
			return -ENOMEM;
	}
	return c.err;
}

static int add_chunk(struct schedstat_recording *r, uint64_t off, uint64_t ts,
		     uint32_t count)
{
	int err = schedstat_array_reserve((void **)&r->chunks, &r->cap_chunks,
				r->nr_chunks + 1, sizeof(*r->chunks));

	if (err)
		return err;
	r->chunks[r->nr_chunks++] = (struct chunk_ref){
		.offset = off, .first_ts = ts, .count = count,
		.first_sample = r->info.nr_samples,
	};
	r->info.nr_samples += count;
	return 0;
}

/* META and TOPOLOGY: the chunks before the first samples. */
int rec_read_head(struct schedstat_recording *r, uint64_t *off)
{
	struct rec_chunk_hdr h;
	uint8_t *buf;
	int err;

	while (!r->topo) {
		struct rec_cur c;

		if (rec_chunk_at(r, *off, &h))
			return -SCHEDSTAT_ERR_REC_CORRUPT;
		if (h.type == REC_CHUNK_SAMPLES)
			return -SCHEDSTAT_ERR_REC_CORRUPT;
		err = rec_chunk_payload(r, *off, &h, &buf);
		if (err)
			return err == -ENOMEM ? err : -SCHEDSTAT_ERR_REC_CORRUPT;
		c = (struct rec_cur){ buf, buf + h.raw_len, 0 };
		if (h.type == REC_CHUNK_META && !r->meta)
			err = read_meta(r, buf, h.raw_len);
		else if (h.type == REC_CHUNK_TOPOLOGY)
			err = rec_decode_topology(&c, &r->topo);
		free(buf);
		if (err)
			return err == -ENOMEM ? err : -SCHEDSTAT_ERR_REC_CORRUPT;
		*off += REC_CHUNK_HDR_LEN + h.stored_len;
	}
	return 0;
}

/*
 * The next offset at or after @off where a whole, valid chunk starts. Each
 * candidate costs a CRC over its length: a file made of nothing but chunk
 * headers would take quadratic time, so the CRC work of one open is capped
 * at a few times the file's size; past that the rest counts as lost.
 */
uint64_t rec_resync(struct schedstat_recording *r, uint64_t off)
{
	struct rec_chunk_hdr h;

	for (; off + REC_CHUNK_HDR_LEN <= r->size; off++) {
		const uint8_t *p = memchr(r->map + off, 'S', r->size - off);

		if (!p)
			break;
		off = p - r->map;
		if (off + REC_CHUNK_HDR_LEN > r->size)
			break;
		if (rec_chunk_hdr_decode(p, &h) ||
		    r->size - off - REC_CHUNK_HDR_LEN < h.stored_len)
			continue;
		if (r->crc_budget < h.stored_len)
			break;
		r->crc_budget -= h.stored_len;
		if (!rec_chunk_at(r, off, &h))
			return off;
	}
	return r->size;
}

/* No usable index: walk every chunk, keep the whole ones. */
int rec_scan(struct schedstat_recording *r, uint64_t off)
{
	while (off < r->size) {
		struct rec_chunk_hdr h;
		uint64_t next;
		int err = rec_chunk_at(r, off, &h);

		/*
		 * A damaged length can point past the end as a torn write
		 * does: only if no whole chunk follows is it the torn end.
		 */
		if (err) {
			next = rec_resync(r, off + 1);
			if (next >= r->size) {
				/*
				 * A torn write leaves a chunk cut short; a
				 * whole one that fails its CRC was damaged.
				 */
				if (r->size - off >= REC_CHUNK_HDR_LEN &&
				    !rec_chunk_hdr_decode(r->map + off, &h) &&
				    r->size - off - REC_CHUNK_HDR_LEN >= h.stored_len)
					r->info.bad_chunks++;
				r->info.lost_bytes += r->size - off;
				return 0;
			}
			r->info.bad_chunks++;
			r->info.lost_bytes += next - off;
			off = next;
			continue;
		}
		if (h.type == REC_CHUNK_SAMPLES && (!h.count || h.count > REC_CHUNK_MAX_SAMPLES ||
						    h.count > h.raw_len / REC_SAMPLE_MIN_LEN)) {
			r->info.bad_chunks++;
		} else if (h.type == REC_CHUNK_SAMPLES) {
			err = add_chunk(r, off, h.first_ts, h.count);
			if (err)
				return err;
		}
		off += REC_CHUNK_HDR_LEN + h.stored_len;
	}
	return 0;
}

/*
 * An index entry must point at the header of a SAMPLES chunk that says the
 * same (CRCs are checked when a chunk is decoded): a small file must not
 * claim millions of samples it does not hold.
 */
static bool entry_matches(const struct schedstat_recording *r, uint64_t off,
			  uint64_t ts, uint64_t count)
{
	struct rec_chunk_hdr h;

	return !rec_chunk_hdr_decode(r->map + off, &h) && h.type == REC_CHUNK_SAMPLES &&
	       h.first_ts == ts && h.count == count &&
	       count <= h.raw_len / REC_SAMPLE_MIN_LEN &&
	       r->size - off - REC_CHUNK_HDR_LEN >= h.stored_len;
}

/* The finished file's index; -EBADMSG sends the caller to rec_scan(). */
int rec_read_index(struct schedstat_recording *r, uint64_t head_end)
{
	struct rec_chunk_hdr h;
	uint64_t end_off, idx_off, nr_samples, nr_chunks, off = 0, ts = 0;
	struct rec_cur c;
	size_t n;
	int err;

	if (r->size < head_end + REC_END_CHUNK_LEN)
		return -EBADMSG;
	end_off = r->size - REC_END_CHUNK_LEN;
	if (rec_chunk_at(r, end_off, &h) || h.type != REC_CHUNK_END ||
	    h.stored_len != REC_END_PAYLOAD_LEN)
		return -EBADMSG;
	c = (struct rec_cur){ r->map + end_off + REC_CHUNK_HDR_LEN, r->map + r->size, 0 };
	idx_off = rec_get_u64le(&c);
	nr_samples = rec_get_u64le(&c);
	nr_chunks = rec_get_u64le(&c);
	if (idx_off < head_end || idx_off >= end_off || rec_chunk_at(r, idx_off, &h) ||
	    h.type != REC_CHUNK_INDEX || h.flags & REC_CHUNK_DEFLATE)
		return -EBADMSG;
	c = (struct rec_cur){ r->map + idx_off + REC_CHUNK_HDR_LEN,
			      r->map + idx_off + REC_CHUNK_HDR_LEN + h.stored_len, 0 };
	n = rec_get_count(&c, 3);
	for (size_t i = 0; i < n && !c.err; i++) {
		uint64_t count;

		off += rec_get_uvar(&c);
		ts += (uint64_t)rec_get_svar(&c);
		count = rec_get_uvar(&c);
		/* Chunks in order, inside the samples' part of the file. */
		if (c.err || off < head_end || off + REC_CHUNK_HDR_LEN > idx_off ||
		    (r->nr_chunks && off <= r->chunks[r->nr_chunks - 1].offset) ||
		    !count || count > REC_CHUNK_MAX_SAMPLES ||
		    !entry_matches(r, off, ts, count))
			return -EBADMSG;
		err = add_chunk(r, off, ts, count);
		if (err)
			return err;
	}
	if (c.err || r->info.nr_samples != nr_samples || n != nr_chunks)
		return -EBADMSG;
	r->info.finished = true;
	return 0;
}

int rec_next_chunk(struct schedstat_recording *r, uint64_t *off,
		      uint16_t type, struct rec_chunk_hdr *h, uint64_t *at)
{
	for (;;) {
		uint64_t o = *off;

		if (o >= r->size)
			return -ENODATA;
		if (rec_chunk_at(r, o, h)) {
			/* Say so for @type; others are their readers' business. */
			bool mine = !rec_chunk_hdr_decode(r->map + o, h) &&
				    h->type == type;

			*off = rec_resync(r, o + 1);
			if (mine)
				return -EBADMSG;
			continue;
		}
		*off = o + REC_CHUNK_HDR_LEN + h->stored_len;
		if (h->type == REC_CHUNK_END)
			*off = r->size;
		if (h->type == type) {
			*at = o;
			return 0;
		}
	}
}
