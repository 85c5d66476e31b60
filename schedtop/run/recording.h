/* SPDX-License-Identifier: GPL-2.0 */
/* Making a recording next to a live session: file, metadata, events. */
#ifndef SCHEDTOP_RECORDING_H
#define SCHEDTOP_RECORDING_H

#include <stdbool.h>
#include <stddef.h>

#include "schedstat.h"

struct recording_out {
	const char *path;		/* "-": standard output */
	int fd;
	struct schedstat_recorder *rec;
	const struct schedstat_topology *topo;
	int err;			/* first failure adding an event */
	bool failed;			/* a write error was reported */
	/*
	 * A full-screen view cannot print: keep the message here instead,
	 * for the status line and for after the terminal is restored.
	 */
	bool defer_errors;
	char error[320];
	unsigned long nr_samples;
	uint64_t bytes;			/* written, once closed */
	/* --emulate: "SPEC by METHOD" for the metadata, or NULL. */
	const char *emulation;
	/* Stored in the metadata, so readers derive the same power. */
	const struct schedstat_energy_model *em;
	/* More "key", "value" pairs for the metadata (NULL-ended), or NULL. */
	const char *const *extra_meta;
	/*
	 * A session reading a trace file: the metadata names the trace and
	 * its machine as the file does (trace_meta()), not this machine, its
	 * clocks or the time of reading.
	 */
	const char *trace_file;
	const struct schedstat_trace_info *trace;
};

/*
 * Creates @path (truncating it) and writes the header, metadata (kernel,
 * host, start time, @interval_ms, the command line) and @topo. Reports
 * failures (see defer_errors); returns 0 or a negative errno.
 */
int recording_out_open(struct recording_out *o, const char *path,
		       const struct schedstat_topology *topo,
		       unsigned long interval_ms, int argc, char **argv);
/*
 * A trace file's own metadata, as (key, value) pairs into @meta (room for
 * 12 and the NULL): schedtop, the source format, the file, the kernel and
 * machine it names, and whether it is schedtop's own export read back. The
 * count of entries written.
 */
size_t trace_meta(const char **meta, const char *path,
		  const struct schedstat_trace_info *ti);
/* The session's on_event: keeps the events worth a record (ctx: the out). */
void recording_out_event(const struct schedstat_event *ev, void *ctx);
/* A --pelt-trace update, kept as the next PELT chunk's (ctx: the out). */
void recording_out_pelt(const struct schedstat_pelt_update *u, void *ctx);
/* The session's count of lost updates, stored with the PELT chunks. */
void recording_out_pelt_dropped(struct recording_out *o, uint64_t dropped);
/* 0, or a negative errno after saying what went wrong and what is kept. */
int recording_out_sample(struct recording_out *o,
			 const struct schedstat_snapshot *snap);
/* Finishes the file; 0 or a negative errno (reported). Safe when never opened. */
int recording_out_close(struct recording_out *o);


/*
 * The options of every command that reads a recording or a trace.dat
 * (report, replay, convert; csv --from has its own --topology, parsed into
 * the same struct): one getopt entry, one help text, one parser.
 */
enum { OPT_INPUT_TOPOLOGY = 0x1000, OPT_INPUT_PELT_SCHEME };
#define INPUT_LONG_OPTS \
	{ "topology", required_argument, NULL, OPT_INPUT_TOPOLOGY }, \
	{ "pelt-scheme", required_argument, NULL, OPT_INPUT_PELT_SCHEME }
#define INPUT_OPTS_USAGE \
"      --topology SPEC    the recording machine's clusters, as\n" \
"                         NAME:CPULIST[@CAPACITY],... or @FILE: a trace.dat\n" \
"                         does not hold them (a Perfetto trace may)\n" \
PELT_SCHEME_USAGE
#define PELT_SCHEME_USAGE \
"      --pelt-scheme S    how a trace's kernel computed PELT: 4.x\n" \
"                         (contributions scaled by frequency and capacity;\n" \
"                         kernels before 5.1), 5.0 (the scaled PELT clock;\n" \
"                         5.1 on) or auto (by the kernel the file names)\n"

struct input_opts {
	const char *topology;	/* as given: a spec or @FILE */
	enum schedstat_pelt_scheme pelt_scheme;
	bool pelt_scheme_set;
};

/*
 * Takes getopt's @c (one of OPT_INPUT_*) into @o: 0, or EXIT_USAGE after
 * saying what is wrong with @arg (@cmd names the command).
 */
int input_opt(const char *cmd, int c, const char *arg, struct input_opts *o);

/*
 * Opens @path as a recording; returns its descriptor (close it after the
 * recording) or -1 after saying why not. A trace-cmd file (trace.dat) is
 * turned into a recording in memory first, sampled every
 * @trace_interval_ms of trace time (0: 100 ms), with the trace's CPUs and
 * @in's clusters (a note on stderr says how to give them when @in has none).
 * @in may be NULL.
 */
int open_recording(const char *path, unsigned long trace_interval_ms,
		   const struct input_opts *in, struct schedstat_recording **rec);
/*
 * trace_notes.c. After a trace file's session opened: a note for each thing
 * it had to assume (the clusters, the PELT scheme, what ran before each
 * CPU's first switch, clocks before the first cpu_frequency, lost events).
 */
void trace_notes(const char *path, struct schedstat_session *s,
		 const struct schedstat_trace_info *ti);
/* After the last sample: events the per-CPU merge took out of order. */
void trace_late_note(const char *path, const struct schedstat_trace_info *ti);
/* "PATH: damaged at offset N: WHAT; read up to there (...)"; false if not damaged. */
bool trace_damage_text(const char *path, const struct schedstat_trace_info *ti,
		       char *buf, size_t size);
/* "0,3-5" of the first 64 CPUs in @mask. */
void trace_cpu_mask_text(uint64_t mask, char *buf, size_t size);
/*
 * After a full-screen view of what open_recording() read: the damage of
 * its trace said once more; EXIT_FAIL if it had any, else EXIT_OK.
 */
int recording_input_damage(void);
/*
 * A line on standard error when the recording is of a newer minor version
 * (what it added is skipped), and one when it is incomplete or damaged.
 */
void recording_warn_lost(const char *path,
			 const struct schedstat_recording_info *info);
/*
 * After reading every sample (damaged chunks are found by decoding them):
 * if any chunk was damaged, one line on stderr naming the damage and
 * EXIT_FAIL; else EXIT_OK. @bad: samples the command skipped as damaged.
 */
int recording_check_damage(const char *path, struct schedstat_recording *rec,
			   size_t bad);
/* Whether @a and @b name one existing file (an output must not be the input). */
/*
 * Sample *@i of @rec, or the first after it that reads: a damaged chunk's
 * samples are skipped, *@i moved past them and their number added to
 * *@bad. 0, -ENODATA once *@i reaches @nr, or -errno.
 */
int recording_read_sample(struct schedstat_recording *rec, size_t *i, size_t nr,
			  struct schedstat_snapshot **snap,
			  const struct schedstat_event **evs, size_t *nr_evs,
			  size_t *bad);
bool same_file(const char *a, const char *b);
/* Describes what was lost in @buf; false if nothing was. */
bool recording_lost_text(const struct schedstat_recording_info *info,
			 char *buf, size_t size);

#endif /* SCHEDTOP_RECORDING_H */
