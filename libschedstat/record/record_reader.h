/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reader's state, shared by record_reader.c (chunks, samples, PELT)
 * and record_regroup.c (the clusters read by another topology).
 */
#ifndef SCHEDSTAT_RECORD_READER_H
#define SCHEDSTAT_RECORD_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedstat.h"

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
	uint64_t crc_budget;		/* see resync() */
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
	/* From the metadata: power is derived on read, as it was live. */
	struct schedstat_energy_model *em;
	/* Set once regrouped (record_regroup.c): the topology recorded. */
	struct schedstat_topology *recorded;
};

#endif /* SCHEDSTAT_RECORD_READER_H */
