// SPDX-License-Identifier: GPL-2.0
/*
 * PELT updates in recordings (format 1.1, docs/record-format.md "PELT
 * chunk"): field by field, variable-length, the timestamp as a delta.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "record_format.h"

/* Bit 0 of the flags: util_est present; bit 1: a task (pid, tgid, comm). */
#define PELT_HAS_UTIL_EST	0x1
#define PELT_IS_TASK		0x2

void rec_encode_pelt(struct rec_buf *b, const struct schedstat_pelt_update *u,
		     uint64_t *prev_ts)
{
	unsigned int entity = 0, flags = 0;

	for (unsigned int e = SCHEDSTAT_PELT_TASK; e <= SCHEDSTAT_PELT_IRQ; e++)
		if (!strcmp(u->entity, schedstat_pelt_entity_name(e)))
			entity = e;
	if (u->avail & SCHEDSTAT_AVAIL_UTIL_EST)
		flags |= PELT_HAS_UTIL_EST;
	if (u->avail & SCHEDSTAT_AVAIL_PELT_TASK)
		flags |= PELT_IS_TASK;
	rec_put_svar(b, (int64_t)(u->ts_ns - *prev_ts));
	*prev_ts = u->ts_ns;
	rec_put_uvar(b, entity);
	rec_put_uvar(b, flags);
	rec_put_uvar(b, u->cpu);
	if (flags & PELT_IS_TASK) {
		rec_put_svar(b, u->pid);
		rec_put_svar(b, u->tgid);
		rec_put_str(b, u->comm);
	}
	rec_put_uvar(b, u->util_avg);
	rec_put_uvar(b, u->runnable_avg);
	rec_put_uvar(b, u->load_avg);
	if (flags & PELT_HAS_UTIL_EST)
		rec_put_uvar(b, u->util_est);
	rec_put_uvar(b, u->last_update_ns);
}

int rec_decode_pelt(struct rec_cur *c, struct schedstat_pelt_update *u,
		    uint64_t *prev_ts)
{
	uint64_t entity, flags, cpu, util, runnable, util_est = 0;
	const char *name;
	int64_t pid = -1, tgid = -1;

	memset(u, 0, sizeof(*u));
	u->ts_ns = *prev_ts + (uint64_t)rec_get_svar(c);
	*prev_ts = u->ts_ns;
	entity = rec_get_uvar(c);
	flags = rec_get_uvar(c);
	cpu = rec_get_uvar(c);
	if (flags & PELT_IS_TASK) {
		pid = rec_get_svar(c);
		tgid = rec_get_svar(c);
		rec_get_str(c, u->comm, sizeof(u->comm));
	}
	util = rec_get_uvar(c);
	runnable = rec_get_uvar(c);
	u->load_avg = rec_get_uvar(c);
	if (flags & PELT_HAS_UTIL_EST)
		util_est = rec_get_uvar(c);
	u->last_update_ns = rec_get_uvar(c);
	if (c->err)
		return c->err;
	name = entity <= SCHEDSTAT_PELT_IRQ ? schedstat_pelt_entity_name(entity) : NULL;
	if (!name || flags > (PELT_HAS_UTIL_EST | PELT_IS_TASK) ||
	    cpu >= SCHEDSTAT_MAX_CPUS || util > UINT32_MAX ||
	    runnable > UINT32_MAX || util_est > UINT32_MAX ||
	    pid < INT32_MIN || pid > INT32_MAX || tgid < INT32_MIN || tgid > INT32_MAX)
		return c->err = -EBADMSG;
	/* Stored as written: comm was sanitized before it was recorded. */
	for (char *p = u->comm; *p; p++)
		if (schedstat_text_unsafe(*p, true))
			*p = '?';
	snprintf(u->entity, sizeof(u->entity), "%s", name);
	u->cpu = cpu;
	u->pid = pid;
	u->tgid = tgid;
	u->util_avg = util;
	u->runnable_avg = runnable;
	u->util_est = util_est;
	if (flags & PELT_HAS_UTIL_EST)
		u->avail |= SCHEDSTAT_AVAIL_UTIL_EST;
	if (flags & PELT_IS_TASK)
		u->avail |= SCHEDSTAT_AVAIL_PELT_TASK;
	return 0;
}
