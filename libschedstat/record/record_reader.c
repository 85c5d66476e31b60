// SPDX-License-Identifier: GPL-2.0
/*
 * Reading recordings. A finished file is opened through its index; one cut
 * short (SIGKILL, power loss, full disk) or damaged is walked chunk by chunk
 * instead, keeping every chunk whose CRC holds and counting what was lost.
 * Nothing read from the file is trusted: every length and count is checked
 * against the bytes that are actually there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>

#include "energy_model.h"
#include "record_format.h"
#include "record_reader.h"
#include "record_regroup.h"

/*
 * A fuzzing build (see the Makefile) lets every CRC pass, so that mutated
 * input reaches the decoders behind them; the unit tests check the CRCs.
 */
static bool crc_matches(uint32_t got, uint32_t want)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	return true;
#else
	return got == want;
#endif
}

/* A chunk header at @off whose stored bytes fit in the file and pass the CRC. */
static int chunk_at(const struct schedstat_recording *r, uint64_t off,
		    struct rec_chunk_hdr *h)
{
	if (off > r->size || r->size - off < REC_CHUNK_HDR_LEN)
		return -ENODATA;
	if (rec_chunk_hdr_decode(r->map + off, h))
		return -EBADMSG;
	if (r->size - off - REC_CHUNK_HDR_LEN < h->stored_len)
		return -ENODATA;
	if (!crc_matches(rec_chunk_crc(r->map + off, r->map + off + REC_CHUNK_HDR_LEN,
				       h->stored_len), h->crc))
		return -EBADMSG;
	return 0;
}

/* The chunk's payload, inflated if need be, in *@buf (free it). */
static int chunk_payload(const struct schedstat_recording *r, uint64_t off,
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
		char key[64], value[512];

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
	int err = array_reserve((void **)&r->chunks, &r->cap_chunks,
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
static int read_head(struct schedstat_recording *r, uint64_t *off)
{
	struct rec_chunk_hdr h;
	uint8_t *buf;
	int err;

	while (!r->topo) {
		struct rec_cur c;

		if (chunk_at(r, *off, &h))
			return -SCHEDSTAT_ERR_REC_CORRUPT;
		if (h.type == REC_CHUNK_SAMPLES)
			return -SCHEDSTAT_ERR_REC_CORRUPT;
		err = chunk_payload(r, *off, &h, &buf);
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
static uint64_t resync(struct schedstat_recording *r, uint64_t off)
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
		if (!chunk_at(r, off, &h))
			return off;
	}
	return r->size;
}

/* No usable index: walk every chunk, keep the whole ones. */
static int scan(struct schedstat_recording *r, uint64_t off)
{
	while (off < r->size) {
		struct rec_chunk_hdr h;
		uint64_t next;
		int err = chunk_at(r, off, &h);

		/*
		 * A damaged length can point past the end as a torn write
		 * does: only if no whole chunk follows is it the torn end.
		 */
		if (err) {
			next = resync(r, off + 1);
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

/* The finished file's index; -EBADMSG sends the caller to scan(). */
static int read_index(struct schedstat_recording *r, uint64_t head_end)
{
	struct rec_chunk_hdr h;
	uint64_t end_off, idx_off, nr_samples, nr_chunks, off = 0, ts = 0;
	struct rec_cur c;
	size_t n;
	int err;

	if (r->size < head_end + REC_END_CHUNK_LEN)
		return -EBADMSG;
	end_off = r->size - REC_END_CHUNK_LEN;
	if (chunk_at(r, end_off, &h) || h.type != REC_CHUNK_END ||
	    h.stored_len != REC_END_PAYLOAD_LEN)
		return -EBADMSG;
	c = (struct rec_cur){ r->map + end_off + REC_CHUNK_HDR_LEN, r->map + r->size, 0 };
	idx_off = rec_get_u64le(&c);
	nr_samples = rec_get_u64le(&c);
	nr_chunks = rec_get_u64le(&c);
	if (idx_off < head_end || idx_off >= end_off || chunk_at(r, idx_off, &h) ||
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

static void drop_cache(struct schedstat_recording *r)
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
static int load_chunk(struct schedstat_recording *r, size_t k)
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
	drop_cache(r);
	err = chunk_at(r, ch->offset, &h) ? -EBADMSG : 0;
	if (!err && (h.type != REC_CHUNK_SAMPLES || h.count != ch->count ||
		     h.count > h.raw_len / REC_SAMPLE_MIN_LEN))
		err = -EBADMSG;
	if (!err)
		err = chunk_payload(r, ch->offset, &h, &buf);
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
		drop_cache(r);
		if (err != -ENOMEM && !ch->bad) {
			ch->bad = true;
			r->info.bad_chunks++;
			r->info.bad_samples += ch->count;
		}
	}
	return err;
}

static int check_file_header(const uint8_t *p, size_t size,
			     struct schedstat_recording_info *info)
{
	uLong crc;

	if (size < REC_MAGIC_LEN || memcmp(p, REC_MAGIC, REC_MAGIC_LEN)) {
		/* "\r\n" turned into "\n" or "\r\r\n" on the way. */
		if (size >= 10 && !memcmp(p, REC_MAGIC, 9) &&
		    (p[9] == '\n' || (p[9] == '\r' && p[10] == '\r')))
			return -SCHEDSTAT_ERR_REC_MANGLED;
		return -SCHEDSTAT_ERR_REC_FOREIGN;
	}
	if (size < REC_FILE_HDR_LEN)
		return -SCHEDSTAT_ERR_REC_CORRUPT;
	info->version_major = p[12] | p[13] << 8;
	info->version_minor = p[14] | p[15] << 8;
	crc = crc32(crc32(0L, Z_NULL, 0), p, 16);
	if (!crc_matches(crc, p[16] | p[17] << 8 | p[18] << 16 | (uint32_t)p[19] << 24))
		return -SCHEDSTAT_ERR_REC_CORRUPT;
	if (info->version_major != REC_VERSION_MAJOR)
		return -SCHEDSTAT_ERR_REC_VERSION;
	return 0;
}

/*
 * An energy model the recorder stored. One that does not parse or fit the
 * topology costs the estimate, not the recording.
 */
static void load_energy_model(struct schedstat_recording *r)
{
	const char **keys, **values;

	keys = calloc(r->nr_meta + 1, sizeof(*keys));
	values = calloc(r->nr_meta + 1, sizeof(*values));
	if (keys && values) {
		for (size_t i = 0; i < r->nr_meta; i++) {
			keys[i] = r->meta[i].key;
			values[i] = r->meta[i].value;
		}
		if (!energy_model_from_meta(&r->em, keys, values, r->nr_meta,
					    schedstat_recording_meta(r, EM_META_ORIGIN)) &&
		    schedstat_energy_model_bind(r->em, r->topo)) {
			schedstat_energy_model_free(r->em);
			r->em = NULL;
		}
	}
	free(keys);
	free(values);
}

const struct schedstat_energy_model *
schedstat_recording_energy_model(const struct schedstat_recording *r)
{
	return r->em;
}

int schedstat_recording_open(struct schedstat_recording **out, int fd)
{
	struct schedstat_recording *r;
	uint64_t off = REC_FILE_HDR_LEN;
	struct stat st;
	int err;

	*out = NULL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ESPIPE;
	if (st.st_size < REC_MAGIC_LEN)
		return st.st_size ? -SCHEDSTAT_ERR_REC_FOREIGN : -SCHEDSTAT_ERR_REC_EMPTY;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->cached = SIZE_MAX;
	r->size = st.st_size;
	r->info.file_bytes = st.st_size;
	r->crc_budget = 4 * r->size + (1u << 20);
	r->map = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (r->map == MAP_FAILED) {
		err = -errno;
		r->map = NULL;
		goto fail;
	}
	err = check_file_header(r->map, r->size, &r->info);
	if (!err)
		err = read_head(r, &off);
	if (err)
		goto fail;
	r->head_end = r->pelt_off = off;
	err = read_index(r, off);
	if (err == -EBADMSG) {
		r->nr_chunks = 0;
		r->info.nr_samples = 0;
		err = scan(r, off);
	}
	if (err)
		goto fail;
	if (!r->info.nr_samples) {
		/* Chunks were there but none read back: damage, not an
		 * early stop. */
		err = r->info.bad_chunks ? -SCHEDSTAT_ERR_REC_CORRUPT :
			-SCHEDSTAT_ERR_REC_EMPTY;
		goto fail;
	}
	load_energy_model(r);
	r->info.first_ts_ns = r->chunks[0].first_ts;
	/* The end is the last sample's own time: decode the last chunk. */
	r->info.last_ts_ns = r->chunks[r->nr_chunks - 1].first_ts;
	for (size_t k = r->nr_chunks; k-- > 0;) {
		if (!load_chunk(r, k)) {
			r->info.last_ts_ns = r->snaps[r->chunks[k].count - 1]->ts_ns;
			break;
		}
	}
	*out = r;
	return 0;
fail:
	schedstat_recording_close(r);
	return err;
}

void schedstat_recording_close(struct schedstat_recording *r)
{
	if (!r)
		return;
	drop_cache(r);
	schedstat_energy_model_free(r->em);
	free(r->evs);
	if (r->map)
		munmap((void *)r->map, r->size);
	schedstat_topology_free(r->topo);
	schedstat_topology_free(r->recorded);
	for (size_t i = 0; i < r->nr_meta; i++) {
		free(r->meta[i].key);
		free(r->meta[i].value);
	}
	free(r->meta);
	free(r->chunks);
	free(r->pelt);
	free(r);
}

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
	err = chunk_payload(r, off, h, &buf);
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
		if (chunk_at(r, off, &h)) {
			/* Say so for a PELT chunk; others are the samples' business. */
			bool pelt = !rec_chunk_hdr_decode(r->map + off, &h) &&
				    h.type == REC_CHUNK_PELT;

			r->pelt_off = resync(r, off + 1);
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

void schedstat_recording_info(const struct schedstat_recording *r,
			      struct schedstat_recording_info *info)
{
	*info = r->info;
}

const struct schedstat_topology *
schedstat_recording_topology(const struct schedstat_recording *r)
{
	return r->topo;
}

const char *schedstat_recording_meta(const struct schedstat_recording *r,
				     const char *key)
{
	for (size_t i = 0; i < r->nr_meta; i++)
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].value;
	return NULL;
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
	size_t k, i;
	int err;

	*out = NULL;
	if (idx >= r->info.nr_samples)
		return -ERANGE;
	k = chunk_of(r, idx);
	err = load_chunk(r, k);
	if (err)
		return err;
	i = idx - r->chunks[k].first_sample;
	*out = rec_snapshot_copy(r->snaps[i]);
	if (*out && r->recorded &&
	    rec_regroup_snapshot(*out, r->recorded, r->topo)) {
		schedstat_snapshot_free(*out);
		*out = NULL;
	}
	if (!*out)
		return -ENOMEM;
	schedstat_snapshot_apply_energy(*out, r->em);
	if (evs) {
		*nr_evs = r->ev_start[i + 1] - r->ev_start[i];
		*evs = *nr_evs ? r->evs + r->ev_start[i] : NULL;
	}
	return 0;
}

uint64_t schedstat_recording_ts(struct schedstat_recording *r, size_t idx)
{
	size_t k;

	if (idx >= r->info.nr_samples)
		return 0;
	k = chunk_of(r, idx);
	if (load_chunk(r, k))
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
	if (load_chunk(r, k))
		return r->chunks[k].first_sample;
	for (uint32_t i = r->chunks[k].count; i-- > 1;)
		if (r->snaps[i]->ts_ns <= ts_ns)
			return r->chunks[k].first_sample + i;
	return r->chunks[k].first_sample;
}
