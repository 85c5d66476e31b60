// SPDX-License-Identifier: GPL-2.0
/*
 * Writing recordings. Samples gather in memory for about a second, then go
 * out as one deflated chunk with one write and a data sync: what a crash,
 * a SIGKILL or a pulled battery leaves is a run of whole chunks and at most
 * one torn one, which the reader drops and counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zlib.h>

#include "record_format.h"

/* A chunk spans about this much recording time: the most a crash loses. */
#define CHUNK_SPAN_NS		1000000000ULL
#define CHUNK_MAX_SAMPLES	64
/* Raw bytes after which a chunk goes out whatever its span. */
#define CHUNK_MAX_RAW		(8u << 20)

struct index_entry {
	uint64_t offset;
	uint64_t first_ts;
	uint32_t count;
};

struct schedstat_recorder {
	int fd;
	bool regular;		/* a file: worth a data sync per chunk */
	bool can_cut;		/* and one we may truncate back after an error */
	off_t base;		/* where the recording starts in it */
	uint64_t offset;	/* bytes written, also where the next chunk goes */
	int err;		/* sticky */
	struct rec_codec codec;
	struct rec_buf raw;	/* samples of the chunk being built */
	uint64_t first_ts;
	uint32_t count;
	size_t decoded;		/* bytes its samples take in a reader's memory */
	struct schedstat_event *evs;	/* events since the last sample */
	size_t nr_evs, cap_evs;
	struct index_entry *index;
	size_t nr_index, cap_index;
	uint64_t nr_samples;
	uint8_t *zbuf;
	size_t zcap;
	/* PELT updates since the last PELT chunk; lost ones so far. */
	struct rec_buf pelt;
	uint64_t pelt_first_ts, pelt_prev_ts, pelt_dropped;
	uint32_t pelt_count;
	/* cpuhp steps since the last CPUHP chunk. */
	struct rec_cpuhp_out hp;
	/* Clock pairs since the last CLOCK chunk. */
	struct rec_clock_out clk;
};

/* A PELT chunk goes out with every samples chunk, or when this big. */
#define PELT_CHUNK_MAX_RAW	(1u << 20)

static int write_all(int fd, const struct iovec *iov, int n)
{
	struct iovec v[2];

	memcpy(v, iov, n * sizeof(*v));
	while (n) {
		ssize_t done = writev(fd, v, n);

		if (done < 0 && errno == EINTR)
			continue;
		if (done < 0)
			return -errno;
		if (done == 0)
			return -EIO;
		while (n && (size_t)done >= v[0].iov_len) {
			done -= v[0].iov_len;
			v[0] = v[1];
			n--;
		}
		if (n) {
			v[0].iov_base = (char *)v[0].iov_base + done;
			v[0].iov_len -= done;
		}
	}
	return 0;
}

/*
 * A failed write may have left part of a chunk: cut the file back to the
 * last whole one so that it ends cleanly (a pipe or an appended file is not
 * cut: the reader copes with the torn end anyway).
 */
static int fail(struct schedstat_recorder *r, int err)
{
	if (r->can_cut && ftruncate(r->fd, r->base + r->offset) == 0)
		fdatasync(r->fd);
	r->err = err;
	return err;
}

static int write_chunk(struct schedstat_recorder *r, struct rec_chunk_hdr *h,
		       const void *raw, size_t raw_len, bool deflate)
{
	uint8_t hdr[REC_CHUNK_HDR_LEN];
	const void *stored = raw;
	struct iovec iov[2];
	int err;

	if (r->err)
		return r->err;
	if (raw_len > REC_CHUNK_MAX)
		return fail(r, -EFBIG);
	h->raw_len = raw_len;
	h->stored_len = raw_len;
	if (deflate) {
		uLongf zlen = compressBound(raw_len);

		if (zlen > r->zcap) {
			uint8_t *p = realloc(r->zbuf, zlen);

			if (!p)
				return fail(r, -ENOMEM);
			r->zbuf = p;
			r->zcap = zlen;
		}
		/* Level 6 takes twice level 1's time for a third less: worth it
		 * once a second on a phone's flash. */
		if (compress2(r->zbuf, &zlen, raw, raw_len, 6) != Z_OK)
			return fail(r, -ENOMEM);
		if (zlen < raw_len) {
			h->flags |= REC_CHUNK_DEFLATE;
			h->stored_len = zlen;
			stored = r->zbuf;
		}
	}
	rec_chunk_hdr_encode(hdr, h, stored);
	iov[0] = (struct iovec){ hdr, sizeof(hdr) };
	iov[1] = (struct iovec){ (void *)stored, h->stored_len };
	err = write_all(r->fd, iov, 2);
	if (err)
		return fail(r, err);
	r->offset += sizeof(hdr) + h->stored_len;
	return 0;
}

/*
 * PELT updates are not in the index (it lists samples): readers walk the
 * chunks for them, and a 1.0 reader skips the type it does not know.
 */
static int flush_pelt(struct schedstat_recorder *r)
{
	struct rec_chunk_hdr h = {
		.type = REC_CHUNK_PELT,
		.first_ts = r->pelt_first_ts,
		.count = r->pelt_count,
	};
	int err;

	if (!r->pelt_count)
		return r->err;
	if (r->pelt.err)
		return fail(r, r->pelt.err);
	/* The first 8 bytes were kept for the count lost as of now. */
	for (int i = 0; i < 8; i++)
		r->pelt.p[i] = r->pelt_dropped >> (8 * i);
	err = write_chunk(r, &h, r->pelt.p, r->pelt.len, true);
	r->pelt.len = 0;
	r->pelt_count = 0;
	return err;
}

int schedstat_recorder_add_pelt(struct schedstat_recorder *r,
				const struct schedstat_pelt_update *u)
{
	if (r->err)
		return r->err;
	if (!r->pelt_count) {
		rec_put_u64le(&r->pelt, 0);
		r->pelt_first_ts = u->ts_ns;
		r->pelt_prev_ts = 0;
	}
	rec_encode_pelt(&r->pelt, u, &r->pelt_prev_ts);
	if (r->pelt.err)
		return fail(r, r->pelt.err);
	r->pelt_count++;
	if (r->pelt_count >= REC_CHUNK_MAX_PELT || r->pelt.len >= PELT_CHUNK_MAX_RAW)
		return flush_pelt(r);
	return 0;
}

void schedstat_recorder_pelt_dropped(struct schedstat_recorder *r,
				     uint64_t dropped)
{
	r->pelt_dropped = dropped;
}

/* Like PELT chunks: not indexed, before the samples they go out with. */
static int flush_cpuhp(struct schedstat_recorder *r)
{
	struct rec_chunk_hdr h = {
		.type = REC_CHUNK_CPUHP,
		.first_ts = r->hp.first_ts,
		.count = r->hp.count,
	};
	int err;

	if (!r->hp.count)
		return r->err;
	if (r->hp.buf.err)
		return fail(r, r->hp.buf.err);
	err = write_chunk(r, &h, r->hp.buf.p, r->hp.buf.len, true);
	r->hp.buf.len = 0;
	r->hp.count = 0;
	return err;
}

/* Like PELT chunks: not indexed, before the samples they go out with. */
static int flush_clock(struct schedstat_recorder *r)
{
	struct rec_chunk_hdr h = {
		.type = REC_CHUNK_CLOCK,
		.first_ts = r->clk.first_ts,
		.count = r->clk.count,
	};
	int err;

	if (!r->clk.count)
		return r->err;
	if (r->clk.buf.err)
		return fail(r, r->clk.buf.err);
	err = write_chunk(r, &h, r->clk.buf.p, r->clk.buf.len, false);
	r->clk.buf.len = 0;
	r->clk.count = 0;
	return err;
}

int schedstat_recorder_add_clock(struct schedstat_recorder *r,
				 const struct schedstat_clock_pair *pair)
{
	int kept;

	if (r->err)
		return r->err;
	kept = rec_clock_add(&r->clk, pair);
	if (kept < 0)
		return fail(r, kept);
	return kept && r->clk.count >= REC_CHUNK_MAX_CLOCK ? flush_clock(r) : 0;
}

static int flush_samples(struct schedstat_recorder *r)
{
	struct rec_chunk_hdr h = {
		.type = REC_CHUNK_SAMPLES,
		.first_ts = r->first_ts,
		.count = r->count,
	};
	uint64_t at;
	int err;

	err = flush_clock(r) ?: flush_pelt(r) ?: flush_cpuhp(r);
	if (err)
		return err;
	at = r->offset;
	if (!r->count)
		return r->err;
	err = schedstat_array_reserve((void **)&r->index, &r->cap_index, r->nr_index + 1,
			    sizeof(*r->index));
	if (err)
		return fail(r, err);
	err = write_chunk(r, &h, r->raw.p, r->raw.len, true);
	if (err)
		return err;
	r->index[r->nr_index++] = (struct index_entry){ at, r->first_ts, r->count };
	r->raw.len = 0;
	r->count = 0;
	r->decoded = 0;
	rec_codec_reset(&r->codec);
	/* A pipe or a file system without sync is fine: nothing to wait for. */
	if (r->regular)
		fdatasync(r->fd);
	return 0;
}

int schedstat_recorder_open(struct schedstat_recorder **out, int fd,
			    const struct schedstat_topology *topo,
			    const char *const *meta)
{
	struct schedstat_recorder *r;
	uint8_t fhdr[REC_FILE_HDR_LEN];
	struct rec_buf b = {};
	struct rec_chunk_hdr h = {};
	struct iovec iov;
	struct stat st;
	size_t nr_meta = 0;
	int err;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = fd;
	r->regular = !fstat(fd, &st) && S_ISREG(st.st_mode);
	/*
	 * Cutting back after an error must not touch what the file held
	 * before us ("record -o - >> file"); appending, we cannot know where
	 * our bytes start once others write too, so we do not cut at all.
	 */
	r->base = r->regular ? lseek(fd, 0, SEEK_CUR) : -1;
	r->can_cut = r->base >= 0 && !(fcntl(fd, F_GETFL) & O_APPEND);

	memcpy(fhdr, REC_MAGIC, REC_MAGIC_LEN);
	fhdr[12] = REC_VERSION_MAJOR;
	fhdr[13] = 0;
	fhdr[14] = REC_VERSION_MINOR;
	fhdr[15] = 0;
	{
		uLong crc = crc32(crc32(0L, Z_NULL, 0), fhdr, 16);

		for (int i = 0; i < 4; i++)
			fhdr[16 + i] = crc >> (8 * i);
	}
	iov = (struct iovec){ fhdr, sizeof(fhdr) };
	err = write_all(fd, &iov, 1);
	if (err)
		goto fail;
	r->offset = sizeof(fhdr);

	while (meta && meta[2 * nr_meta] && meta[2 * nr_meta + 1])
		nr_meta++;
	rec_put_uvar(&b, nr_meta);
	for (size_t i = 0; i < nr_meta; i++) {
		rec_put_str(&b, meta[2 * i]);
		rec_put_str(&b, meta[2 * i + 1]);
	}
	err = b.err;
	h.type = REC_CHUNK_META;
	if (!err)
		err = write_chunk(r, &h, b.p, b.len, false);
	if (err)
		goto fail;
	b.len = 0;
	err = rec_encode_topology(&b, topo);
	h = (struct rec_chunk_hdr){ .type = REC_CHUNK_TOPOLOGY };
	if (!err)
		err = write_chunk(r, &h, b.p, b.len, false);
	if (err)
		goto fail;
	free(b.p);
	*out = r;
	return 0;
fail:
	free(b.p);
	free(r->zbuf);
	free(r);
	return err;
}

int schedstat_recorder_add_event(struct schedstat_recorder *r,
				 const struct schedstat_event *ev)
{
	int err;

	if (r->err)
		return r->err;
	if (ev->type == SCHEDSTAT_EV_CPUHP) {
		rec_cpuhp_add(&r->hp, ev);
		if (r->hp.buf.err)
			return fail(r, r->hp.buf.err);
		return r->hp.count >= REC_CHUNK_MAX_CPUHP ? flush_cpuhp(r) : 0;
	}
	err = schedstat_array_reserve((void **)&r->evs, &r->cap_evs, r->nr_evs + 1,
			    sizeof(*r->evs));
	if (err)
		return err;
	r->evs[r->nr_evs++] = *ev;
	return 0;
}

int schedstat_recorder_add_sample(struct schedstat_recorder *r,
				  const struct schedstat_snapshot *snap)
{
	int err;

	if (r->err)
		return r->err;
	if (!r->count) {
		r->first_ts = snap->ts_ns;
		r->codec.base_ts = snap->ts_ns;
	}
	err = rec_encode_sample(&r->codec, &r->raw, snap, r->evs, r->nr_evs);
	if (err)
		return fail(r, err);
	r->decoded += r->nr_evs * sizeof(*r->evs) + rec_snapshot_bytes(snap);
	r->nr_evs = 0;
	r->count++;
	r->nr_samples++;
	if (snap->ts_ns + snap->interval_ns - r->first_ts >= CHUNK_SPAN_NS ||
	    r->count >= CHUNK_MAX_SAMPLES || r->raw.len >= CHUNK_MAX_RAW ||
	    r->decoded >= REC_CHUNK_DECODED_MAX)
		return flush_samples(r);
	return 0;
}

static int write_index(struct schedstat_recorder *r)
{
	struct rec_chunk_hdr h = { .type = REC_CHUNK_INDEX };
	uint64_t at = r->offset, prev_off = 0, prev_ts = 0;
	struct rec_buf b = {};
	uint8_t end[REC_END_PAYLOAD_LEN];
	int err;

	rec_put_uvar(&b, r->nr_index);
	for (size_t i = 0; i < r->nr_index; i++) {
		rec_put_uvar(&b, r->index[i].offset - prev_off);
		rec_put_svar(&b, (int64_t)(r->index[i].first_ts - prev_ts));
		rec_put_uvar(&b, r->index[i].count);
		prev_off = r->index[i].offset;
		prev_ts = r->index[i].first_ts;
	}
	err = b.err ? fail(r, b.err) : write_chunk(r, &h, b.p, b.len, false);
	free(b.p);
	if (err)
		return err;
	b = (struct rec_buf){ .p = end, .cap = sizeof(end) };
	rec_put_u64le(&b, at);
	rec_put_u64le(&b, r->nr_samples);
	rec_put_u64le(&b, r->nr_index);
	h = (struct rec_chunk_hdr){ .type = REC_CHUNK_END };
	return write_chunk(r, &h, end, sizeof(end), false);
}

int schedstat_recorder_close(struct schedstat_recorder *r)
{
	int err;

	if (!r)
		return 0;
	err = flush_samples(r);
	if (!err)
		err = write_index(r);
	if (!err && r->regular && fdatasync(r->fd) && errno != EINVAL)
		err = -errno;
	rec_codec_reset(&r->codec);
	free(r->raw.p);
	free(r->pelt.p);
	rec_cpuhp_out_free(&r->hp);
	rec_clock_out_free(&r->clk);
	free(r->evs);
	free(r->index);
	free(r->zbuf);
	free(r);
	return err;
}
