// SPDX-License-Identifier: GPL-2.0
/*
 * Reading recordings. A finished file is opened through its index; one cut
 * short (SIGKILL, power loss, full disk) or damaged is walked chunk by chunk
 * instead, keeping every chunk whose CRC holds and counting what was lost.
 * Nothing read from the file is trusted: every length and count is checked
 * against the bytes that are actually there.
 *
 * This file opens and closes a recording and answers what its head says
 * (metadata, topology, energy model); record_reader_chunks.c finds the
 * chunks, record_reader_samples.c decodes samples, record_reader_pelt.c
 * the PELT updates. record_reader.h is their shared layout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>

#include "energy_model.h"
#include "record_reader.h"

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
	if (!rec_crc_matches(crc, p[16] | p[17] << 8 | p[18] << 16 | (uint32_t)p[19] << 24))
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
		err = rec_read_head(r, &off);
	if (err)
		goto fail;
	r->head_end = r->pelt_off = off;
	err = rec_read_index(r, off);
	if (err == -EBADMSG) {
		r->nr_chunks = 0;
		r->info.nr_samples = 0;
		err = rec_scan(r, off);
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
		if (!rec_load_chunk(r, k)) {
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
	rec_drop_cache(r);
	schedstat_energy_model_free(r->em);
	free(r->evs);
	if (r->map)
		munmap((void *)r->map, r->size);
	schedstat_topology_free(r->topo);
	schedstat_topology_free(r->recorded);
	free(r->moves_known);
	for (size_t i = 0; i < r->nr_meta; i++) {
		free(r->meta[i].key);
		free(r->meta[i].value);
	}
	free(r->meta);
	free(r->chunks);
	free(r->pelt);
	free(r->clocks);
	cpuhp_names_free(&r->hp_names);
	free(r);
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
