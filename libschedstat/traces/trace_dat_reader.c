// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd's trace.dat (trace_reader.h): its sched and power events read
 * through libtracecmd and parsed by name (sched_events.c), the CPUs'
 * buffers merged here in time order as libtracecmd hands them out. The
 * file's lengths are checked first (trace_file_check.c): libtracecmd
 * trusts them.
 */
#ifdef HAVE_TRACECMD
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>

/*
 * The UNAME option of the file ("sysname nodename release version
 * machine", as trace-cmd record writes it), NULL if it has none: exported
 * by libtracecmd but declared only in its private header.
 */
const char *tracecmd_get_uname(struct tracecmd_input *handle);

#include "array_size.h"
#include "atrace.h"
#include "sched_events.h"
#include "trace_file_check.h"
#include "trace_marker_counter.h"
#include "trace_reader.h"

struct dat_reader {
	struct tracecmd_input *handle;
	struct tracecmd_input *buffer;	/* handle or one of its instances */
	struct tep_handle *tep;		/* owned by the handle */
	struct sched_events *events;
	int nr_cpus;
	struct tep_record **next;	/* per trace CPU, NULL at its end */
	bool lost_told;			/* the next record's missed events */
};

/* The trace CPU whose next record is the earliest, or -1 at the end. */
static int earliest(const struct dat_reader *d)
{
	int best = -1;

	for (int cpu = 0; cpu < d->nr_cpus; cpu++)
		if (d->next[cpu] &&
		    (best < 0 || d->next[cpu]->ts < d->next[best]->ts))
			best = cpu;
	return best;
}

static int dat_next(void *r, struct trace_ev *ev)
{
	struct dat_reader *d = r;
	struct tep_record *rec;
	int cpu = earliest(d);

	if (cpu < 0)
		return 0;
	rec = d->next[cpu];
	/* The page said events were lost before this one. */
	if (rec->missed_events && !d->lost_told) {
		d->lost_told = true;
		memset(ev, 0, sizeof(*ev));
		ev->ts = rec->ts;
		ev->cpu = rec->cpu;
		ev->pid = -1;
		ev->kind = TRACE_EV_LOST;
		ev->lost.count = rec->missed_events > 0 ? rec->missed_events : 0;
		return 1;
	}
	d->lost_told = false;
	sched_events_decode(d->events, rec, ev);
	if (ev->kind == TRACE_EV_CURRENT) {
		char text[ATRACE_LINE_MAX + 2];

		/* schedtop's own --atrace counters: the values, not estimates. */
		if (sched_events_print_text(d->events, rec, text, sizeof(text)))
			trace_marker_counter(text, strlen(text), ev);
	}
	tracecmd_free_record(rec);
	d->next[cpu] = tracecmd_read_data(d->buffer, cpu);
	return 1;
}

static int dat_rewind(void *r)
{
	struct dat_reader *d = r;

	for (int cpu = 0; cpu < d->nr_cpus; cpu++) {
		tracecmd_free_record(d->next[cpu]);
		d->next[cpu] = tracecmd_read_cpu_first(d->buffer, cpu);
	}
	d->lost_told = false;
	return 0;
}

static void dat_close(void *r)
{
	struct dat_reader *d = r;

	if (!d)
		return;
	for (int cpu = 0; d->next && cpu < d->nr_cpus; cpu++)
		tracecmd_free_record(d->next[cpu]);
	free(d->next);
	sched_events_free(d->events);
	if (d->buffer && d->buffer != d->handle)
		tracecmd_close(d->buffer);
	if (d->handle)
		tracecmd_close(d->handle);
	free(d);
}

/*
 * Whether @buffer holds a sched_switch record (its CPUs read up to the
 * first one), each CPU then back at its first record.
 */
static bool load_buffer(struct dat_reader *d, struct tracecmd_input *buffer)
{
	struct trace_ev ev;
	bool found = false;

	d->buffer = buffer;
	for (int cpu = 0; cpu < d->nr_cpus && !found; cpu++) {
		struct tep_record *rec;

		for (rec = tracecmd_read_cpu_first(buffer, cpu); rec && !found;
		     rec = tracecmd_read_data(buffer, cpu)) {
			found = sched_events_decode(d->events, rec, &ev) == TRACE_EV_SWITCH;
			tracecmd_free_record(rec);
		}
		tracecmd_free_record(rec);
	}
	for (int cpu = 0; cpu < d->nr_cpus; cpu++)
		d->next[cpu] = tracecmd_read_cpu_first(buffer, cpu);
	return found;
}

/*
 * The top-level buffer, or else the first instance buffer that holds
 * sched_switch records: "trace-cmd record -B NAME" and "trace-cmd extract
 * -B NAME" (a recording made with a private instance, as schedtop itself
 * traces) put them there, and the top level may hold other events then.
 */
static int pick_buffer(struct dat_reader *d)
{
	int n = tracecmd_buffer_instances(d->handle);

	if (load_buffer(d, d->handle))
		return 0;
	for (int cpu = 0; cpu < d->nr_cpus; cpu++) {
		tracecmd_free_record(d->next[cpu]);
		d->next[cpu] = NULL;
	}
	d->buffer = NULL;
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(d->handle, i);

		if (!b)
			continue;
		if (load_buffer(d, b))
			return 0;
		for (int cpu = 0; cpu < d->nr_cpus; cpu++) {
			tracecmd_free_record(d->next[cpu]);
			d->next[cpu] = NULL;
		}
		tracecmd_close(b);
		d->buffer = NULL;
	}
	return -SCHEDSTAT_ERR_TRACE_FILE;
}

/*
 * Events that only the EAS-era Android 4.x kernels declared (EAS r1.x,
 * include/trace/events/sched.h there; mainline never had them, and Android
 * replaced them with sched_load_se/sched_load_cfs_rq on 4.14 and 4.19):
 * a trace that stores their format was written by a kernel before 5.1,
 * even when trace-cmd was too old to store uname(2).
 */
static const char *const pre_5_1_events[] = {
	"sched_load_avg_task",
	"sched_load_avg_cpu",
};

/* The release the file names (uname's third word), else such an event. */
static void kernel_of(struct dat_reader *d, struct trace_reader_info *info)
{
	const char *uname = tracecmd_get_uname(d->handle);
	unsigned int major, minor;

	const char *machine = uname ? strrchr(uname, ' ') : NULL;

	/* The version between has spaces: the machine is the last word. */
	if (machine && machine[1])
		snprintf(info->machine, sizeof(info->machine), "%s", machine + 1);
	if (uname && sscanf(uname, "%*s %*s %64s", info->release) == 1 &&
	    sscanf(info->release, "%u.%u", &major, &minor) == 2)
		return;
	info->release[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(pre_5_1_events); i++) {
		if (tep_find_event_by_name(d->tep, "sched", pre_5_1_events[i])) {
			snprintf(info->pelt_evidence, sizeof(info->pelt_evidence),
				 "%s", pre_5_1_events[i]);
			return;
		}
	}
}

static int dat_open(void **out, int fd, const char *path,
		    struct trace_reader_info *info)
{
	struct dat_reader *d = calloc(1, sizeof(*d));
	int err;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	/* libtracecmd trusts the lengths in the file: check them first. */
	err = trace_file_check(fd);
	if (err)
		goto cleanup;
	d->handle = tracecmd_open(path, 0);
	if (!d->handle) {
		err = -SCHEDSTAT_ERR_TRACE_DAMAGED;
		goto cleanup;
	}
	d->tep = tracecmd_get_tep(d->handle);
	d->nr_cpus = tep_get_cpus(d->tep);
	if (d->nr_cpus <= 0 || d->nr_cpus > SCHEDSTAT_MAX_CPUS) {
		err = -SCHEDSTAT_ERR_TRACE_FILE;
		goto cleanup;
	}
	err = sched_events_new(&d->events, d->tep, NULL);
	if (err)
		goto cleanup;
	if (!sched_events_have(d->events, "sched_switch")) {
		err = -SCHEDSTAT_ERR_TRACE_FILE;
		goto cleanup;
	}
	d->next = calloc(d->nr_cpus, sizeof(*d->next));
	if (!d->next) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = pick_buffer(d);
	if (err)
		goto cleanup;
	info->nr_cpus = d->nr_cpus;
	info->sorted = true;
	info->avail = sched_events_avail(d->events);
	snprintf(info->format, sizeof(info->format), "trace-cmd");
	kernel_of(d, info);
	*out = d;
	d = NULL;
cleanup:
	dat_close(d);
	return err;
}

/* trace-cmd's files start with its magic and "tracing". */
static bool dat_probe(int fd, const uint8_t *head, size_t len)
{
	static const char magic[] = "\x17\x08\x44tracing";

	return len >= sizeof(magic) - 1 && !memcmp(head, magic, sizeof(magic) - 1);
}

const struct trace_reader_ops trace_dat_reader_ops = {
	.name = "trace-cmd",
	.probe = dat_probe,
	.open = dat_open,
	.next = dat_next,
	.rewind = dat_rewind,
	.close = dat_close,
};
#endif /* HAVE_TRACECMD */
