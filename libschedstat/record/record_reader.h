/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording reader's own layout, shared by its files: record_reader.c
 * (open, close, the head), record_reader_chunks.c (finding chunks),
 * record_reader_samples.c (samples), record_reader_pelt.c (PELT updates),
 * record_regroup.c (the clusters read by another topology).
 */
#ifndef SCHEDSTAT_RECORD_READER_H
#define SCHEDSTAT_RECORD_READER_H

#include "record_format.h"

struct chunk_ref {
	uint64_t offset;	/* of its header */
	uint64_t first_ts;
	uint32_t count;
	size_t first_sample;
	bool bad;		/* failed its CRC or did not decode */
};

struct meta_pair {
	char *key, *value;
};

struct schedstat_recording {
	const uint8_t *map;
	size_t size;
	struct schedstat_recording_info info;
	uint64_t crc_budget;		/* see rec_resync() */
	struct schedstat_topology *topo;
	struct meta_pair *meta;
	size_t nr_meta;
	struct chunk_ref *chunks;
	size_t nr_chunks, cap_chunks;
	/* The chunk decoded last: its samples and their events. */
	size_t cached;			/* index in chunks, or SIZE_MAX */
	struct schedstat_snapshot **snaps;
	size_t *ev_start;		/* per sample, into evs; one more at the end */
	struct schedstat_event *evs;
	size_t nr_evs, cap_evs;
	/* PELT updates: where the chunk walk is, the chunk decoded last. */
	uint64_t head_end, pelt_off;
	struct schedstat_pelt_update *pelt;
	size_t pelt_nr, pelt_pos;
	uint64_t pelt_dropped;
	struct cpuhp_names hp_names;	/* of the CPUHP chunks read */
	/* CLOCK chunks' pairs, read on first asking (record_clock.c). */
	struct schedstat_clock_pair *clocks;
	size_t nr_clocks;
	bool clocks_read;
	/* From the metadata: power is derived on read, as it was live. */
	struct schedstat_energy_model *em;
	/* Set once regrouped (record_regroup.c): the topology recorded. */
	struct schedstat_topology *recorded;
	/*
	 * With @recorded: whether the recording kept every move from new
	 * cluster f to new cluster t, at [f * nr_clusters + t]; and whether it
	 * kept them all (the up/down counts are derived only then).
	 */
	bool *moves_known;
	bool all_moves_known;
};

/*
 * A fuzzing build (see the Makefile) lets every CRC pass, so that mutated
 * input reaches the decoders behind them; the unit tests check the CRCs.
 */
static inline bool rec_crc_matches(uint32_t got, uint32_t want)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	return true;
#else
	return got == want;
#endif
}

/* record_reader_chunks.c */
/* A chunk header at @off whose stored bytes fit in the file and pass the CRC. */
int rec_chunk_at(const struct schedstat_recording *r, uint64_t off,
		 struct rec_chunk_hdr *h);
/* The chunk's payload, inflated if need be, in *@buf (free it). */
int rec_chunk_payload(const struct schedstat_recording *r, uint64_t off,
		      const struct rec_chunk_hdr *h, uint8_t **buf);
/* META and TOPOLOGY: the chunks before the first samples. */
int rec_read_head(struct schedstat_recording *r, uint64_t *off);
/* The finished file's index; -EBADMSG sends the caller to rec_scan(). */
int rec_read_index(struct schedstat_recording *r, uint64_t head_end);
/* No usable index: walk every chunk, keep the whole ones. */
int rec_scan(struct schedstat_recording *r, uint64_t off);
/* The next offset at or after @off where a whole, valid chunk starts. */
uint64_t rec_resync(struct schedstat_recording *r, uint64_t off);
/*
 * The next whole chunk of @type at or after *@off (its offset in *@at, *@off
 * moved past it): 0, -EBADMSG once per damaged chunk of @type (call again
 * to go on), -ENODATA at the end. Chunks outside the index (PELT, CPUHP,
 * CLOCK) are found this way.
 */
int rec_next_chunk(struct schedstat_recording *r, uint64_t *off,
		   uint16_t type, struct rec_chunk_hdr *h, uint64_t *at);

/* record_reader_samples.c */
/* Decode chunk @k into the cache. */
int rec_load_chunk(struct schedstat_recording *r, size_t k);
void rec_drop_cache(struct schedstat_recording *r);

#endif /* SCHEDSTAT_RECORD_READER_H */
