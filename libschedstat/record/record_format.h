/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording file format, version 1 (docs/record-format.md is the
 * specification; keep the two in step). Everything is little-endian and
 * written field by field, never as a struct dump, so a recording made on
 * one architecture reads the same on any other.
 */
#ifndef SCHEDSTAT_RECORD_FORMAT_H
#define SCHEDSTAT_RECORD_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "cpuhp_names.h"
#include "model.h"

/*
 * PNG-style magic: the high byte catches 7-bit channels, "\r\n" newline
 * translation either way (a recording streamed through "adb shell" rather
 * than "adb exec-out"), 0x1a stops DOS type.
 */
#define REC_MAGIC		"\x89SCHEDTOP\r\n\x1a"
#define REC_MAGIC_LEN		12
#define REC_FILE_HDR_LEN	20
#define REC_VERSION_MAJOR	SCHEDSTAT_RECORDING_VERSION_MAJOR
/*
 * 1.1: PELT chunks (--pelt-trace); 1.2: CPUHP chunks (cpuhp steps); 1.3:
 * the cpu table's misfit_task_load; 1.4: CLOCK chunks. An older reader skips
 * a chunk type it does not know, unread.
 */
#define REC_VERSION_MINOR	SCHEDSTAT_RECORDING_VERSION_MINOR

#define REC_CHUNK_MAGIC		0x4b435453u	/* "STCK" */
#define REC_CHUNK_HDR_LEN	32
/* No chunk is larger: a length above it is corruption, not a big chunk. */
#define REC_CHUNK_MAX		(64u << 20)
/* Nor holds more samples (writers use far fewer: a chunk is about 1 s). */
#define REC_CHUNK_MAX_SAMPLES	4096

enum rec_chunk_type {
	REC_CHUNK_META = 1,
	REC_CHUNK_TOPOLOGY,
	REC_CHUNK_SAMPLES,
	REC_CHUNK_INDEX,
	REC_CHUNK_END,
	REC_CHUNK_PELT,		/* 1.1: PELT updates, in the order recorded */
	REC_CHUNK_CPUHP,	/* 1.2: cpuhp steps, in the order recorded */
	REC_CHUNK_CLOCK,	/* 1.4: CLOCK_MONOTONIC against CLOCK_BOOTTIME */
};

#define REC_CHUNK_DEFLATE	0x1	/* chunk flags */

#define REC_END_PAYLOAD_LEN	24
#define REC_END_CHUNK_LEN	(REC_CHUNK_HDR_LEN + REC_END_PAYLOAD_LEN)

struct rec_chunk_hdr {
	uint16_t type;
	uint16_t flags;
	uint32_t stored_len;	/* bytes after the header */
	uint32_t raw_len;	/* after inflating */
	uint64_t first_ts;	/* SAMPLES: ts_ns of its first sample */
	uint32_t count;		/* SAMPLES: how many samples */
	uint32_t crc;		/* header bytes 0..27, then the stored bytes */
};

void rec_chunk_hdr_encode(uint8_t out[REC_CHUNK_HDR_LEN],
			  const struct rec_chunk_hdr *h, const void *stored);
/* -EBADMSG unless the magic and the limits hold; the CRC is checked apart. */
int rec_chunk_hdr_decode(const uint8_t in[REC_CHUNK_HDR_LEN],
			 struct rec_chunk_hdr *h);
uint32_t rec_chunk_crc(const uint8_t hdr[REC_CHUNK_HDR_LEN], const void *stored,
		       size_t len);

/* A growable output buffer; the first failure sticks in err. */
struct rec_buf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

void rec_put_bytes(struct rec_buf *b, const void *p, size_t len);
void rec_put_uvar(struct rec_buf *b, uint64_t v);
void rec_put_svar(struct rec_buf *b, int64_t v);
void rec_put_str(struct rec_buf *b, const char *s);
void rec_put_u64le(struct rec_buf *b, uint64_t v);

/* A bounds-checked input cursor; reading past the end sets err (-EBADMSG). */
struct rec_cur {
	const uint8_t *p, *end;
	int err;
};

uint64_t rec_get_uvar(struct rec_cur *c);
int64_t rec_get_svar(struct rec_cur *c);
/* A string of at most @size - 1 bytes into @dst, NUL-terminated. */
void rec_get_str(struct rec_cur *c, char *dst, size_t size);
uint64_t rec_get_u64le(struct rec_cur *c);
/* A count of items, each at least @min_item_len bytes: bounded by what is left. */
size_t rec_get_count(struct rec_cur *c, size_t min_item_len);

/*
 * Samples of one chunk are coded against the previous sample of the same
 * chunk (the first against nothing), so each chunk decodes on its own.
 */
struct rec_codec {
	struct schedstat_snapshot *prev;	/* owned */
	uint64_t base_ts;			/* the chunk's first_ts */
	/*
	 * Reading: bytes of rows and events a chunk may still decode into. A
	 * row can be one byte of input, and inflating multiplies that again:
	 * without a cap a small damaged file could ask for gigabytes.
	 */
	size_t budget;
	/*
	 * Reading: SCHEDSTAT_AVAIL_* bits every row gets. Files of before 1.5
	 * stored no TASK_TIME or ACTIVITY bit; their sources (live ones, trace
	 * files with switches) gave both.
	 */
	uint32_t add_avail;
};

/*
 * A writer starts a new chunk once the rows of its samples reach this many
 * bytes in memory; a reader refuses a chunk that would take more than twice
 * as much (the last sample may overshoot by one sample's worth).
 */
#define REC_CHUNK_DECODED_MAX	(32u << 20)
/* The fewest bytes a sample takes: ts, interval, avail, dropped, events, 6 tables. */
#define REC_SAMPLE_MIN_LEN	11

int rec_encode_sample(struct rec_codec *cx, struct rec_buf *b,
		      const struct schedstat_snapshot *snap,
		      const struct schedstat_event *evs, size_t nr_evs);
/* Events are appended to *@evs (a growable array of capacity *@cap). */
int rec_decode_sample(struct rec_codec *cx, struct rec_cur *c,
		      struct schedstat_snapshot **out,
		      struct schedstat_event **evs, size_t *nr_evs, size_t *cap);
/* Start a new chunk: forget the previous sample. */
void rec_codec_reset(struct rec_codec *cx);

/*
 * The six tables of @snap, each row coded against its reference in @prev
 * (NULL: the first sample of a chunk), and back (record_rows.c). Decoding
 * fills @s's tables and takes their bytes from @cx's budget.
 */
void rec_encode_tables(struct rec_buf *b, const struct schedstat_snapshot *snap,
		       const struct schedstat_snapshot *prev);
int rec_decode_tables(struct rec_codec *cx, struct rec_cur *c,
		      struct schedstat_snapshot *s,
		      const struct schedstat_snapshot *prev);

struct schedstat_snapshot *rec_snapshot_copy(const struct schedstat_snapshot *s);
/* Bytes of the rows of @s, as a reader's budget counts them. */
size_t rec_snapshot_bytes(const struct schedstat_snapshot *s);

/*
 * PELT chunks: a u64le count of updates lost so far, then the updates,
 * each timestamp against the previous one's (@prev_ts: 0 at a chunk's start).
 * An update takes at least REC_PELT_MIN_LEN bytes; a chunk holds at most
 * REC_CHUNK_MAX_PELT of them.
 */
#define REC_PELT_MIN_LEN	9
#define REC_CHUNK_MAX_PELT	65536
void rec_encode_pelt(struct rec_buf *b, const struct schedstat_pelt_update *u,
		     uint64_t *prev_ts);
/* 0, or -EBADMSG for bytes that are no update (unknown entity, CPU, ...). */
int rec_decode_pelt(struct rec_cur *c, struct schedstat_pelt_update *u,
		    uint64_t *prev_ts);

/*
 * CPUHP chunks (record_cpuhp.c): cpuhp steps, each at least
 * REC_CPUHP_MIN_LEN bytes, at most REC_CHUNK_MAX_CPUHP a chunk. The writer's
 * side: steps since the last chunk, and the states' names to store.
 */
#define REC_CPUHP_MIN_LEN	7
#define REC_CHUNK_MAX_CPUHP	65536
struct rec_cpuhp_out {
	struct rec_buf buf;
	uint64_t first_ts, prev_ts;
	uint32_t count;
	struct cpuhp_names names;
	bool names_read;
};
/* Appends one SCHEDSTAT_EV_CPUHP event; buf.err says if that failed. */
void rec_cpuhp_add(struct rec_cpuhp_out *o, const struct schedstat_event *ev);
void rec_cpuhp_out_free(struct rec_cpuhp_out *o);

/*
 * CLOCK chunks (record_clock.c): CLOCK_MONOTONIC and CLOCK_BOOTTIME read
 * together, each pair at least REC_CLOCK_MIN_LEN bytes, at most
 * REC_CHUNK_MAX_CLOCK a chunk. The writer keeps a pair only when the two
 * clocks' distance moved by more than REC_CLOCK_SLACK_NS (a suspend).
 */
#define REC_CLOCK_MIN_LEN	2
#define REC_CHUNK_MAX_CLOCK	4096
#define REC_CLOCK_SLACK_NS	1000
struct rec_clock_out {
	struct rec_buf buf;
	uint64_t first_ts;
	uint32_t count;
	int64_t last_offset;
	bool kept;		/* a pair was kept: last_offset is its */
};
/* 1 if the pair was kept (a chunk's worth: flush), 0, or buf.err. */
int rec_clock_add(struct rec_clock_out *o, const struct schedstat_clock_pair *pair);
void rec_clock_out_free(struct rec_clock_out *o);

int rec_encode_topology(struct rec_buf *b, const struct schedstat_topology *topo);
int rec_decode_topology(struct rec_cur *c, struct schedstat_topology **out);

#endif /* SCHEDSTAT_RECORD_FORMAT_H */
