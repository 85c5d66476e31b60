// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "array_size.h"
#include "cli.h"
#include "recording.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * CLOCK_MONOTONIC and CLOCK_BOOTTIME at one instant: boottime read between
 * two monotonic reads, against their middle (a few tens of ns apart
 * through the vDSO), so that an export lines up with a capture to the us.
 */
static void clock_pair(struct schedstat_clock_pair *pair)
{
	uint64_t m1 = clock_ns(CLOCK_MONOTONIC);
	uint64_t b = clock_ns(CLOCK_BOOTTIME);
	uint64_t m2 = clock_ns(CLOCK_MONOTONIC);

	pair->monotonic_ns = m1 + (m2 - m1) / 2;
	pair->boottime_ns = b;
}

/* @err: a negative errno or SCHEDSTAT_ERR_* code; returned. */
static int fail_open(struct recording_out *o, int err)
{
	snprintf(o->error, sizeof(o->error), "cannot write %s: %s", o->path,
		 schedstat_strerror(err));
	if (!o->defer_errors)
		cli_error("%s", o->error);
	return err;
}

size_t trace_meta(const char **meta, const char *path,
		  const struct schedstat_trace_info *ti)
{
	size_t n = 0;

	meta[n++] = "schedtop";
	meta[n++] = SCHEDTOP_VERSION;
	meta[n++] = "source";
	meta[n++] = ti->format;
	meta[n++] = "trace_file";
	meta[n++] = path;
	/* A trace holds no host name, and its clock is not wall time. */
	if (ti->kernel[0]) {
		meta[n++] = "kernel";
		meta[n++] = ti->kernel;
	}
	if (ti->machine[0]) {
		meta[n++] = "machine";
		meta[n++] = ti->machine;
	}
	/* Its rows are an export's counters: what its recording lost is not in it. */
	if (ti->schedtop_export) {
		meta[n++] = "export_read_back";
		meta[n++] = "1";
	}
	meta[n] = NULL;
	return n;
}

int recording_out_open(struct recording_out *o, const char *path,
		       const struct schedstat_topology *topo,
		       unsigned long interval_ms, int argc, char **argv)
{
	char mono[24], real[24], interval[24], cmdline[512] = "";
	struct utsname u;
	size_t len = 0;
	int err;

	o->path = path;
	o->topo = topo;
	o->fd = strcmp(path, "-") ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
				  : STDOUT_FILENO;
	if (o->fd < 0)
		return fail_open(o, -errno);
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	/* Both clocks at one instant: replay shows wall-clock time from it. */
	snprintf(mono, sizeof(mono), "%" PRIu64, clock_ns(CLOCK_MONOTONIC));
	snprintf(real, sizeof(real), "%" PRIu64, clock_ns(CLOCK_REALTIME));
	snprintf(interval, sizeof(interval), "%lu", interval_ms);
	for (int i = 0; i < argc && len < sizeof(cmdline) - 1; i++)
		len += snprintf(cmdline + len, sizeof(cmdline) - len, "%s%s",
				i ? " " : "", argv[i]);
	{
		char kernel[2 * sizeof(u.release) + 2];
		const char *base[] = {
			"schedtop", SCHEDTOP_VERSION,
			"kernel", kernel,
			"machine", u.machine,
			"host", u.nodename,
			"interval_ms", interval,
			"start_monotonic_ns", mono,
			"start_realtime_ns", real,
			"command", cmdline,
			o->emulation ? "emulation" : NULL, o->emulation,
		};
		/* Room for every energy domain (key, value) and the extra pairs. */
		const char *meta[ARRAY_SIZE(base) + 2 * 18 + 2 * 16 + 1];
		char em_text[16][512], keys[16][SCHEDSTAT_NAME_LEN + 16];
		size_t n = 0;

		if (o->trace) {
			/* Its machine, not this one; its time, not now. */
			n = trace_meta(meta, o->trace_file, o->trace);
			meta[n++] = "interval_ms";
			meta[n++] = interval;
			meta[n++] = "command";
			meta[n++] = cmdline;
		}
		for (size_t i = 0; !o->trace && i < ARRAY_SIZE(base) && base[i]; i += 2) {
			meta[n++] = base[i];
			meta[n++] = base[i + 1];
		}
		err = 0;
		for (int d = 0; o->em && d < schedstat_energy_model_nr_domains(o->em) &&
		     d < 16 && !err; d++) {
			snprintf(keys[d], sizeof(keys[d]), "energy_model.%s",
				 schedstat_energy_model_domain_key(o->em, d));
			err = schedstat_energy_model_domain_text(o->em, d, em_text[d],
								 sizeof(em_text[d]));
			meta[n++] = keys[d];
			meta[n++] = em_text[d];
		}
		if (o->em) {
			meta[n++] = "energy_model_origin";
			meta[n++] = schedstat_energy_model_origin(o->em);
		}
		for (size_t i = 0; o->extra_meta && o->extra_meta[i] && i < 32; i += 2) {
			meta[n++] = o->extra_meta[i];
			meta[n++] = o->extra_meta[i + 1];
		}
		meta[n] = NULL;
		snprintf(kernel, sizeof(kernel), "%s %s", u.release, u.version);
		if (err == -ENOSPC) {
			cli_error("the energy model has too many OPPs for a recording's metadata (about 25 per cluster)");
			return fail_open(o, err);
		}
		err = schedstat_recorder_open(&o->rec, o->fd, topo, meta);
	}
	/* This machine's clocks say nothing of a trace's time. */
	if (!err && !o->trace) {
		struct schedstat_clock_pair pair;

		clock_pair(&pair);
		err = schedstat_recorder_add_clock(o->rec, &pair);
	}
	if (err)
		return fail_open(o, err);
	return 0;
}

void recording_out_event(const struct schedstat_event *ev, void *ctx)
{
	struct recording_out *o = ctx;
	int err;

	/*
	 * Exits show up as rows, and moves within a cluster as per-task
	 * counts; what rows cannot tell is when a task changed clusters and
	 * when the root domain flipped overutilized. Events the session
	 * delivers while opening come before the recording: not part of it.
	 */
	if (ev->type == SCHEDSTAT_EV_EXIT || !o->rec)
		return;
	if (ev->type == SCHEDSTAT_EV_MIGRATE &&
	    schedstat_topology_cpu_cluster(o->topo, ev->orig_cpu) ==
	    schedstat_topology_cpu_cluster(o->topo, ev->dest_cpu))
		return;
	err = schedstat_recorder_add_event(o->rec, ev);
	if (err && !o->err)
		o->err = err;
}

void recording_out_pelt(const struct schedstat_pelt_update *u, void *ctx)
{
	struct recording_out *o = ctx;
	int err;

	if (!o->rec)
		return;
	err = schedstat_recorder_add_pelt(o->rec, u);
	if (err && !o->err)
		o->err = err;
}

void recording_out_pelt_dropped(struct recording_out *o, uint64_t dropped)
{
	if (o->rec)
		schedstat_recorder_pelt_dropped(o->rec, dropped);
}

static void report_kept(struct recording_out *o, int err)
{
	const char *what = err == -ENOSPC ? "disk full" : schedstat_strerror(err);

	snprintf(o->error, sizeof(o->error), "writing %s: %s; what was written "
		 "before stays readable (%lu samples taken)", o->path, what,
		 o->nr_samples);
	if (!o->defer_errors)
		cli_error("%s", o->error);
}

int recording_out_sample(struct recording_out *o,
			 const struct schedstat_snapshot *snap)
{
	struct schedstat_clock_pair pair;
	int err;

	/* Kept only if the machine slept since: the clocks' distance moved. */
	clock_pair(&pair);
	/* An event that could not be kept fails the sample it belongs to. */
	err = o->err ? o->err : o->trace ? 0 : schedstat_recorder_add_clock(o->rec, &pair);
	if (!err)
		err = schedstat_recorder_add_sample(o->rec, snap);

	if (err) {
		report_kept(o, err);
		o->failed = true;
		return err;
	}
	o->nr_samples++;
	return 0;
}

int recording_out_close(struct recording_out *o)
{
	struct stat st;
	int err, ret = 0;

	if (!o->rec)
		goto out;
	err = schedstat_recorder_close(o->rec);
	o->rec = NULL;
	if (!fstat(o->fd, &st) && S_ISREG(st.st_mode))
		o->bytes = st.st_size;
	if (err) {
		/* The same sticky error as the failed sample: said once. */
		if (!o->failed)
			report_kept(o, err);
		ret = err;
	}
out:
	if (o->fd > STDOUT_FILENO && close(o->fd) && !ret) {
		ret = -errno;
		cli_error("writing %s: %s", o->path, strerror(-ret));
	}
	o->fd = -1;
	return ret;
}

/*
 * What a file that is neither recording nor trace most likely is, for
 * someone bringing a trace: the text that trace-cmd report or tracefs's
 * "trace" print is not the trace.dat that trace-cmd record writes.
 */
static const char *foreign_hint(int fd)
{
	char buf[512];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return " (an empty file)";
	buf[n] = '\0';
	if (!strncmp(buf, "PERFILE2", 8))
		return " (a perf.data: record the sched and power events with "
		       "'trace-cmd record -e sched -e power' instead)";
	if (!strncmp(buf, "# tracer:", 9) || !strncmp(buf, "cpus=", 5) ||
	    strstr(buf, "sched_switch:") || strstr(buf, "bprint:"))
		return " (ftrace text in a form schedtop does not read: the kernel's "
		       "latency-format and trace-cmd report -l are not; print it "
		       "without them, or give the trace.dat)";
	return " (make a recording with 'schedtop record -o FILE', a trace "
	       "with 'trace-cmd record -e sched -e power')";
}

/*
 * A trace-cmd file, run through the trace-file session (the model and the
 * PELT engine, as --trace does) into a recording in memory: whatever reads
 * recordings reads trace.dat alike. Returns the recording's descriptor or
 * -1 after saying why not.
 */
int input_opt(const char *cmd, int c, const char *arg, struct input_opts *o)
{
	if (c == OPT_INPUT_TOPOLOGY) {
		o->topology = arg;
		return 0;
	}
	if (cli_parse_pelt_scheme(arg, &o->pelt_scheme))
		return cli_usage_error(cmd, "unknown PELT scheme '%s': 4.x, 5.0 or auto", arg);
	o->pelt_scheme_set = true;
	return 0;
}

static bool ending_signal_pending(void)
{
	sigset_t set;

	return !sigpending(&set) && (sigismember(&set, SIGINT) ||
				     sigismember(&set, SIGTERM) ||
				     sigismember(&set, SIGHUP));
}

/* The damage of the trace open_recording() read, kept for the end. */
static char input_damage[512];

int recording_input_damage(void)
{
	if (!input_damage[0])
		return EXIT_OK;
	cli_error("%s", input_damage);
	return EXIT_FAIL;
}

/*
 * A trace file (any format the library reads), run through the trace
 * session (the model and the PELT engine, as --trace does) into a
 * recording in memory: whatever reads recordings reads traces alike.
 * Returns the recording's descriptor or -1 after saying why not. A trace
 * damaged partway is read up to the damage, said so at once, and fails
 * the command at its end (recording_check_damage()).
 */
static int record_trace(const char *path, unsigned long interval_ms,
			const char *topology, enum schedstat_pelt_scheme scheme)
{
	struct schedstat_trace_info ti = {};
	struct schedstat_session_opts sopts = {
		.trace_file = path,
		.trace_interval_ns = interval_ms * 1000000ULL,
		.topology = topology,
		.pelt_scheme = scheme,
		.trace_info = &ti,
	};
	struct recording_out o = { .fd = -1, .path = path };
	struct schedstat_session *s = NULL;
	char interval[24];
	const char *meta[16];
	int fd, err, close_err;
	size_t n;

	fd = memfd_create("schedtop-trace", MFD_CLOEXEC);
	if (fd < 0) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(interval, sizeof(interval), "%lu", interval_ms);
	sopts.on_event = recording_out_event;
	sopts.event_ctx = &o;
	err = cli_session_open(&s, &sopts);
	if (!err) {
		trace_notes(path, s, &ti);
		o.topo = schedstat_session_topology(s);
		n = trace_meta(meta, path, &ti);
		meta[n++] = "interval_ms";
		meta[n++] = interval;
		meta[n] = NULL;
		err = schedstat_recorder_open(&o.rec, fd, o.topo, meta);
	}
	if (trace_damage_text(path, &ti, input_damage, sizeof(input_damage)))
		cli_error("%s", input_damage);
	while (!err) {
		struct schedstat_snapshot *snap;

		/* Blocked since the session opened: Ctrl-C ends a long read. */
		if (ending_signal_pending()) {
			err = -EINTR;
			break;
		}
		err = schedstat_session_sample(s, &snap);
		if (err)
			break;
		err = o.err ? o.err : schedstat_recorder_add_sample(o.rec, snap);
		schedstat_snapshot_free(snap);
	}
	if (err == -ENODATA)
		err = 0;
	close_err = schedstat_recorder_close(o.rec);
	schedstat_session_close(s);
	trace_late_note(path, &ti);
	err = err ? err : close_err;
	if (err) {
		/* The damage said it all, when it came before any sample. */
		if (err != -SCHEDSTAT_ERR_TRACE_DAMAGED || !input_damage[0])
			cli_error("%s: %s", path, schedstat_strerror(err));
		close(fd);
		return -1;
	}
	return fd;
}

/* "LITTLE:0-3,big:4-7" of @topo. */
static void topology_text(const struct schedstat_topology *topo, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int k = 0; k < schedstat_topology_nr_clusters(topo) && len < size; k++) {
		char cpus[SCHEDSTAT_CPULIST_LEN];

		if (schedstat_topology_cluster_cpulist(topo, k, cpus, sizeof(cpus)))
			cpus[0] = '\0';
		len += snprintf(buf + len, size - len, "%s%s:%s", k ? "," : "",
				schedstat_topology_cluster_name(topo, k), cpus);
	}
}

/* "a and b, a and c" for the cluster pairs whose moves @rec did not keep. */
static void unknown_moves(const struct schedstat_recording *rec, char *buf,
			  size_t size)
{
	const struct schedstat_topology *topo = schedstat_recording_topology(rec);
	int n = schedstat_topology_nr_clusters(topo);
	size_t len = 0;

	buf[0] = '\0';
	for (int f = 0; f < n; f++) {
		for (int t = f + 1; t < n && len < size; t++) {
			if (schedstat_recording_moves_known(rec, f, t))
				continue;
			len += snprintf(buf + len, size - len, "%s%s and %s",
					len ? ", " : "",
					schedstat_topology_cluster_name(topo, f),
					schedstat_topology_cluster_name(topo, t));
		}
	}
}

/*
 * --topology on a schedtop recording: its clusters regrouped from its CPU
 * rows, with one line saying so, what it was recorded with, and what
 * cannot be regrouped.
 */
static int regroup(const char *path, struct schedstat_recording *rec,
		   const char *arg)
{
	char *spec = cli_topology_spec(arg), was[256], pairs[256];
	int err;

	if (!spec) {
		if (errno == ENOMEM)
			cli_error("%s", strerror(errno));
		return -1;
	}
	topology_text(schedstat_recording_topology(rec), was, sizeof(was));
	err = schedstat_recording_regroup(rec, spec);
	free(spec);
	if (err) {
		cli_error("%s: --topology: %s", path, err == -SCHEDSTAT_ERR_TOPOLOGY_TRACE ?
			  "it leaves out CPUs of the recording: name every one" :
			  err == -SCHEDSTAT_ERR_TOPOLOGY_SPEC ?
			  "not NAME:CPULIST[@CAPACITY],... over the recording's CPUs" :
			  schedstat_strerror(err));
		return -1;
	}
	unknown_moves(rec, pairs, sizeof(pairs));
	fprintf(stderr, "schedtop: note: %s: clusters regrouped by --topology "
		"(recorded as %s)", path, was);
	if (pairs[0])
		fprintf(stderr, "; moves between %s are not known (the recording "
			"kept none within one of its clusters): the migration "
			"table leaves them out and up/down migrations are 0", pairs);
	else if (schedstat_topology_nr_clusters(schedstat_recording_topology(rec)) > 1)
		fprintf(stderr, "; moves between them counted from the recorded ones");
	fputc('\n', stderr);
	return 0;
}

int open_recording(const char *path, unsigned long trace_interval_ms,
		   const struct input_opts *in, struct schedstat_recording **rec)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	char *spec = NULL;
	struct stat st;
	bool trace;

	if (fd < 0) {
		cli_error("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !st.st_size) {
		cli_error("%s: an empty file", path);
		close(fd);
		return -1;
	}
	trace = schedstat_trace_format(fd) != NULL;
	if (trace) {
		close(fd);
		if (in && in->topology) {
			spec = cli_topology_spec(in->topology);
			if (!spec) {
				if (errno == ENOMEM)
					cli_error("%s", strerror(errno));
				return -1;
			}
		}
		fd = record_trace(path, trace_interval_ms ? trace_interval_ms : 100,
				  spec, in ? in->pelt_scheme : SCHEDSTAT_PELT_AUTO);
		free(spec);
		if (fd < 0)
			return -1;
	} else if (in && in->pelt_scheme_set) {
		cli_error("%s: a schedtop recording keeps the PELT values it "
			  "recorded: --pelt-scheme applies to trace files", path);
		close(fd);
		return -1;
	}
	err = schedstat_recording_open(rec, fd);
	if (err == -SCHEDSTAT_ERR_REC_FOREIGN) {
		cli_error("%s: neither a schedtop recording nor a trace schedtop "
			  "reads (trace-cmd's trace.dat, a Perfetto trace, ftrace "
			  "text, a systrace HTML)%s", path,
			  foreign_hint(fd));
		close(fd);
		return -1;
	}
	if (err) {
		cli_error("%s: %s", path, err == -ESPIPE ?
			  "not a regular file: save the recording first" :
			  schedstat_strerror(err));
		close(fd);
		return -1;
	}
	if (!trace && in && in->topology && regroup(path, *rec, in->topology)) {
		schedstat_recording_close(*rec);
		*rec = NULL;
		close(fd);
		return -1;
	}
	return fd;
}

bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

bool recording_lost_text(const struct schedstat_recording_info *info,
			 char *buf, size_t size)
{
	double secs = (info->last_ts_ns - info->first_ts_ns) / 1e9;
	size_t len = 0;

	if (info->finished && !info->lost_bytes && !info->bad_chunks)
		return false;
	if (!info->finished)
		len += snprintf(buf + len, size - len,
				"the recorder did not finish the file (killed, or the "
				"device lost power): %zu samples, %.1f s, read back; "
				"samples after that (at most 1 s) are lost",
				info->nr_samples, secs);
	if (info->lost_bytes && len < size)
		len += snprintf(buf + len, size - len, "%s%" PRIu64 " bytes of "
				"torn or damaged data dropped", len ? "; " : "",
				info->lost_bytes);
	if (info->bad_chunks && len < size)
		snprintf(buf + len, size - len, "%s%u damaged chunks (%zu samples) skipped",
			 len ? "; " : "", info->bad_chunks, info->bad_samples);
	return true;
}

int recording_check_damage(const char *path, struct schedstat_recording *rec,
			   size_t bad)
{
	struct schedstat_recording_info info;
	char text[512];

	schedstat_recording_info(rec, &info);
	/* A damaged trace was said at open: its recording is whole. */
	if (!bad && !info.bad_chunks)
		return input_damage[0] ? EXIT_FAIL : EXIT_OK;
	/*
	 * A file the recorder did not finish is what a killed recorder
	 * leaves, and says so; a chunk whose CRC fails was changed after it
	 * was written (disk, copy): the output misses its samples.
	 */
	if (!recording_lost_text(&info, text, sizeof(text)))
		snprintf(text, sizeof(text), "%zu samples in damaged chunks skipped",
			 bad);
	cli_error("%s: damaged: %s; the output leaves them out (if the file "
		  "was copied, copy it again)", path, text);
	return EXIT_FAIL;
}

void recording_warn_lost(const char *path,
			 const struct schedstat_recording_info *info)
{
	char text[512];

	if (info->version_minor > SCHEDSTAT_RECORDING_VERSION_MINOR)
		cli_error("%s: made by a newer schedtop (format %u.%u, this one "
			  "reads %u.%u): what the newer format added is skipped; "
			  "update schedtop to see it", path, info->version_major,
			  info->version_minor, SCHEDSTAT_RECORDING_VERSION_MAJOR,
			  SCHEDSTAT_RECORDING_VERSION_MINOR);
	if (recording_lost_text(info, text, sizeof(text)))
		cli_error("%s: %s", path, text);
}

int recording_read_sample(struct schedstat_recording *rec, size_t *i, size_t nr,
			  struct schedstat_snapshot **snap,
			  const struct schedstat_event **evs, size_t *nr_evs,
			  size_t *bad)
{
	while (*i < nr) {
		int err = schedstat_recording_sample(rec, *i, snap, evs, nr_evs);
		size_t next;

		if (err != -EBADMSG)
			return err;
		next = schedstat_recording_skip(rec, *i);
		*bad += next - *i;
		*i = next;
	}
	return -ENODATA;
}
