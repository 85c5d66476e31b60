// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU trace_pipe_raw read in whole pages (tracefs_reader.h). Each CPU's
 * records are in time order within its buffer, so a merge of the CPUs'
 * fronts gives the global order without sorting; a record is parsed where
 * it lies, in the page read from the kernel. (libtracefs's
 * tracefs_iterate_raw_events() handed out records one CPU after another,
 * which had to be copied and sorted: two thirds of the source's CPU time at
 * 400k switches/s.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/kbuffer.h>

#include "schedstat-local.h"
#include "tracefs_reader.h"

struct cpu_pages {
	int fd;
	struct kbuffer *kbuf;
	/* Pages read and not yet handed out; pages[head] is loaded in kbuf. */
	void **pages;
	size_t head, nr, cap;
	bool loaded;
	void *rec;			/* the front record; NULL: none read */
	unsigned long long ts;
	uint64_t missed;
};

struct trace_reader {
	struct cpu_pages *cpus;
	int nr_cpus;
	size_t page_size;
	size_t max_pages;		/* per CPU and drain */
	void **spare;			/* emptied pages, for the next reads */
	size_t nr_spare, cap_spare;
};

/* The ring buffer's sub-buffer: a page, or what buffer_subbuf_size_kb says. */
static size_t subbuf_size(struct tracefs_instance *inst)
{
	long page = sysconf(_SC_PAGESIZE);
	char *text = tracefs_instance_file_read(inst, "buffer_subbuf_size_kb", NULL);
	long kb = text ? strtol(text, NULL, 10) : 0;

	free(text);
	if (kb > 0 && kb * 1024 > page)
		return kb * 1024;
	return page > 0 ? page : 4096;
}

/* Buffer size per CPU, for the read budget. */
static size_t buffer_bytes(struct tracefs_instance *inst)
{
	char *text = tracefs_instance_file_read(inst, "buffer_size_kb", NULL);
	long kb = text ? strtol(text, NULL, 10) : 0;

	free(text);
	return kb > 0 ? kb * 1024 : 1 << 20;
}

int trace_reader_open(struct trace_reader **out, struct tracefs_instance *inst,
			struct tep_handle *tep, int nr_cpus)
{
	struct trace_reader *r;
	int err = 0;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->nr_cpus = nr_cpus;
	r->cpus = calloc(nr_cpus, sizeof(*r->cpus));
	if (!r->cpus) {
		err = -ENOMEM;
		goto cleanup;
	}
	r->page_size = subbuf_size(inst);
	r->max_pages = buffer_bytes(inst) / r->page_size + 1;
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		struct cpu_pages *c = &r->cpus[cpu];
		char rel[64], *path;

		c->fd = -1;
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		path = tracefs_instance_get_file(inst, rel);
		if (!path) {
			err = -ENOMEM;
			goto cleanup;
		}
		c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		tracefs_put_tracing_file(path);
		if (c->fd < 0)
			continue;	/* not a possible CPU of this kernel */
		/* The kernel's own long size and byte order (header_page). */
		c->kbuf = tep_kbuffer(tep);
		if (!c->kbuf) {
			err = -ENOMEM;
			goto cleanup;
		}
	}
	*out = r;
	r = NULL;
cleanup:
	trace_reader_free(r);
	return err;
}

void trace_reader_free(struct trace_reader *r)
{
	if (!r)
		return;
	for (int cpu = 0; r->cpus && cpu < r->nr_cpus; cpu++) {
		struct cpu_pages *c = &r->cpus[cpu];

		if (c->fd >= 0)
			close(c->fd);
		if (c->kbuf)
			kbuffer_free(c->kbuf);
		for (size_t i = c->head; i < c->nr; i++)
			free(c->pages[i]);
		free(c->pages);
	}
	for (size_t i = 0; i < r->nr_spare; i++)
		free(r->spare[i]);
	free(r->spare);
	free(r->cpus);
	free(r);
}

static void *page_get(struct trace_reader *r)
{
	if (r->nr_spare)
		return r->spare[--r->nr_spare];
	return malloc(r->page_size);
}

static void page_put(struct trace_reader *r, void *page)
{
	if (schedstat_array_reserve((void **)&r->spare, &r->cap_spare, r->nr_spare + 1,
			  sizeof(*r->spare))) {
		free(page);
		return;
	}
	r->spare[r->nr_spare++] = page;
}

/* What the CPU's buffer holds now, page by page, up to the budget. */
static int fill(struct trace_reader *r, struct cpu_pages *c)
{
	/* Pages handed out already leave the front of the list. */
	if (c->head) {
		memmove(c->pages, c->pages + c->head,
			(c->nr - c->head) * sizeof(*c->pages));
		c->nr -= c->head;
		c->head = 0;
	}
	for (size_t n = 0; n < r->max_pages; n++) {
		void *page;
		ssize_t len;

		if (schedstat_array_reserve((void **)&c->pages, &c->cap, c->nr + 1,
				  sizeof(*c->pages)))
			return -ENOMEM;
		page = page_get(r);
		if (!page)
			return -ENOMEM;
		len = read(c->fd, page, r->page_size);
		if (len <= 0) {
			int err = len < 0 ? errno : 0;

			page_put(r, page);
			/* Empty for now (or an offline CPU's): not an error. */
			if (!err || err == EAGAIN || err == EINTR || err == ENODEV)
				return 0;
			return -err;
		}
		c->pages[c->nr++] = page;
	}
	return 0;
}

/* The front record of the CPU, if it has read one; emptied pages recycled. */
static void front(struct trace_reader *r, struct cpu_pages *c)
{
	while (!c->rec && c->head < c->nr) {
		if (!c->loaded) {
			int missed;

			if (kbuffer_load_subbuffer(c->kbuf, c->pages[c->head])) {
				/* Not a page we understand: skip it, as lost. */
				c->missed++;
			} else {
				missed = kbuffer_missed_events(c->kbuf);
				/* -1: some were lost, how many is not known. */
				if (missed)
					c->missed += missed > 0 ? missed : 1;
				c->loaded = true;
				c->rec = kbuffer_read_event(c->kbuf, &c->ts);
				if (c->rec)
					break;
			}
		}
		page_put(r, c->pages[c->head++]);
		c->loaded = false;
	}
}

int trace_reader_drain(struct trace_reader *r, uint64_t upto,
			 trace_reader_fn fn, void *ctx)
{
	int handed = 0, err;

	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		if (r->cpus[cpu].fd < 0)
			continue;
		err = fill(r, &r->cpus[cpu]);
		if (err)
			return err;
	}
	for (;;) {
		struct cpu_pages *best = NULL;
		struct tep_record rec = {};
		int best_cpu = -1;

		for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
			struct cpu_pages *c = &r->cpus[cpu];

			if (!c->rec)
				front(r, c);
			if (c->rec && c->ts <= upto && (!best || c->ts < best->ts)) {
				best = c;
				best_cpu = cpu;
			}
		}
		if (!best)
			break;
		rec.ts = best->ts;
		rec.cpu = best_cpu;
		rec.size = kbuffer_event_size(best->kbuf);
		rec.data = best->rec;
		err = fn(ctx, &rec);
		if (err)
			return err;
		handed++;
		best->rec = kbuffer_next_event(best->kbuf, &best->ts);
	}
	return handed;
}

uint64_t trace_reader_missed(const struct trace_reader *r, int cpu)
{
	return cpu >= 0 && cpu < r->nr_cpus ? r->cpus[cpu].missed : 0;
}
