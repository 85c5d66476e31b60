// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop convert --json: a recording as a Chrome JSON trace, which the
 * Perfetto UI and chrome://tracing both open. Counter tracks carry per-CPU
 * and per-cluster util, cluster clocks and per-task util_avg/runnable_avg;
 * instant events mark cluster changes, overutilized flips and hotplug. A
 * counter is written only when its value changes: the viewer holds it.
 * PELT updates (record --pelt-trace) are written one counter point each,
 * as the kernel made them: "COMM PID pelt" under the task's process and
 * "cpuN ENTITY pelt" under CPUs, each with util_avg, runnable_avg and (where
 * kept) util_est.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "convert_perfetto.h"
#include "recording.h"

static const char convert_usage[] =
"Usage: schedtop convert FILE --perfetto|--json -o OUT\n"
"Convert a recording (or a trace.dat) for Perfetto's UI and trace processor.\n"
"\n"
"      --perfetto         a native Perfetto trace (.perfetto-trace): counter\n"
"                         tracks per task, CPU and cluster, hotplug and\n"
"                         activation slices, in CLOCK_BOOTTIME beside a\n"
"                         capture of the same moments (docs/perfetto.md)\n"
"      --task-stats       --perfetto: each task's cpu_pct, wait_ns, cpu and\n"
"                         misfit too (twice the size with 500 tasks)\n"
"      --json             the legacy JSON trace-event format (chrome://tracing)\n"
"  -o, --output OUT       where to write (\"-\": standard output)\n"
INPUT_OPTS_USAGE
"  -h, --help             show this help\n";

enum { OPT_PERFETTO = 256, OPT_JSON, OPT_TASK_STATS };

const struct option convert_long_opts[] = {
	{ "perfetto", no_argument, NULL, OPT_PERFETTO },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "task-stats", no_argument, NULL, OPT_TASK_STATS },
	{ "output", required_argument, NULL, 'o' },
	INPUT_LONG_OPTS,
	{ "help", no_argument, NULL, 'h' },
	{}
};

/* Pseudo-processes holding the machine-wide tracks, clear of real pids. */
#define PID_CPUS	2147483646
#define PID_CLUSTERS	2147483645

struct last_task {
	int32_t pid;
	uint32_t util, runnable;
};

struct conv {
	FILE *f;
	const struct schedstat_topology *topo;
	uint64_t t0;
	bool first;
	struct last_task *tasks;	/* in the order first seen */
	size_t cap, nr;
	struct schedstat_hash *task_index;	/* pid -> index into tasks */
	/* Last values per CPU and cluster: cfs, rt, dl, irq, online, khz. */
	uint32_t (*cpu_last)[6];
	size_t nr_cpu_last;
	char (*cl_args)[96];	/* the util_pct, busy_pct args last written */
	uint32_t *cl_khz;
};

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (schedstat_text_unsafe(c, true))
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/*
 * A cluster's args: util_pct and busy_pct, each where the kernel keeps it.
 * JSON has no NaN or infinity: a damaged value becomes null.
 */
static void pct_args(char *buf, size_t size, const double *util, const double *busy)
{
	char u[40] = "", b[40] = "";

	if (util)
		snprintf(u, sizeof(u), isfinite(*util) ? "\"util_pct\":%.2f" :
			 "\"util_pct\":null", *util);
	if (busy)
		snprintf(b, sizeof(b), isfinite(*busy) ? "\"busy_pct\":%.2f" :
			 "\"busy_pct\":null", *busy);
	snprintf(buf, size, "%s%s%s", u, util && busy ? "," : "", b);
}

/* Opens one event object: the separator, phase, pid and time. */
static void event(struct conv *cv, char ph, long pid, uint64_t ts_ns)
{
	fprintf(cv->f, "%s\n{\"ph\":\"%c\",\"pid\":%ld,\"ts\":%.3f", cv->first ? "" : ",",
		ph, pid, (int64_t)(ts_ns - cv->t0) / 1e3);
	cv->first = false;
}

/* A sample of counter track @name; the caller writes its args and "}". */
static void counter(struct conv *cv, long pid, uint64_t ts_ns, const char *name)
{
	event(cv, 'C', pid, ts_ns);
	fputs(",\"name\":", cv->f);
	json_str(cv->f, name);
}

static void process_name(struct conv *cv, long pid, const char *name)
{
	fprintf(cv->f, "%s\n{\"ph\":\"M\",\"pid\":%ld,\"name\":\"process_name\","
		"\"args\":{\"name\":", cv->first ? "" : ",", pid);
	json_str(cv->f, name);
	fputs("}}", cv->f);
	cv->first = false;
}

/* The last values written for @pid (none yet: UINT32_MAX); NULL: no memory. */
static struct last_task *task_slot(struct conv *cv, int32_t pid)
{
	uint64_t i;

	if (!cv->task_index && schedstat_hash_new(&cv->task_index))
		return NULL;
	if (!schedstat_hash_get(cv->task_index, (uint32_t)pid, &i))
		return &cv->tasks[i];
	if (schedstat_array_reserve((void **)&cv->tasks, &cv->cap, cv->nr + 1,
				    sizeof(*cv->tasks)))
		return NULL;
	if (schedstat_hash_put(cv->task_index, (uint32_t)pid, cv->nr))
		return NULL;
	cv->tasks[cv->nr] = (struct last_task){ .pid = pid, .util = UINT32_MAX,
						.runnable = UINT32_MAX };
	return &cv->tasks[cv->nr++];
}

static int tasks(struct conv *cv, const struct schedstat_snapshot *snap)
{
	uint64_t ts = schedstat_snapshot_ts_ns(snap);
	const struct schedstat_task *t;
	size_t n;

	t = schedstat_snapshot_tasks(snap, &n);
	for (size_t i = 0; i < n; i++) {
		struct last_task *lt = task_slot(cv, t[i].pid);
		char name[SCHEDSTAT_COMM_LEN + 16];

		if (!lt)
			return -ENOMEM;
		if (lt->util == t[i].util_avg && lt->runnable == t[i].runnable_avg)
			continue;
		/* A process's threads are grouped under its tgid, as in a trace. */
		if (lt->util == UINT32_MAX && t[i].pid == t[i].tgid)
			process_name(cv, t[i].tgid, t[i].comm);
		lt->util = t[i].util_avg;
		lt->runnable = t[i].runnable_avg;
		snprintf(name, sizeof(name), "%s %d", t[i].comm, t[i].pid);
		counter(cv, t[i].tgid, ts, name);
		fprintf(cv->f, ",\"args\":{\"util_avg\":%u,\"runnable_avg\":%u}}",
			t[i].util_avg, t[i].runnable_avg);
	}
	return 0;
}

static void cpus(struct conv *cv, const struct schedstat_snapshot *snap)
{
	uint64_t ts = schedstat_snapshot_ts_ns(snap);
	const struct schedstat_cpu *c;
	size_t n;

	c = schedstat_snapshot_cpus(snap, &n);
	for (size_t i = 0; i < n && i < cv->nr_cpu_last; i++) {
		uint32_t *last = cv->cpu_last[i];
		uint32_t now[6] = { c[i].util_avg, c[i].rt_util, c[i].dl_util,
				    c[i].irq_util, c[i].online, c[i].freq_khz };

		if (c[i].cluster < 0)
			continue;
		if (c[i].hotplug_ops) {
			event(cv, 'i', PID_CPUS, ts);
			fprintf(cv->f, ",\"s\":\"g\",\"name\":\"cpu%d %s\",\"args\":"
				"{\"ops\":%u,\"took_ms\":%.3f}}", c[i].cpu,
				c[i].hotplug_to[0] ? c[i].hotplug_to : "unknown",
				c[i].hotplug_ops,
				c[i].hotplug_ns / 1e6);
		}
		if ((c[i].avail & SCHEDSTAT_AVAIL_CFS) &&
		    memcmp(now, last, 4 * sizeof(*now))) {
			event(cv, 'C', PID_CPUS, ts);
			fprintf(cv->f, ",\"name\":\"cpu%d util\",\"args\":{\"cfs\":%u,"
				"\"rt\":%u,\"dl\":%u,\"irq\":%u}}", c[i].cpu, now[0],
				now[1], now[2], now[3]);
		}
		if (now[4] != last[4]) {
			event(cv, 'C', PID_CPUS, ts);
			fprintf(cv->f, ",\"name\":\"cpu%d online\",\"args\":{\"online\":%u}}",
				c[i].cpu, now[4]);
		}
		memcpy(last, now, sizeof(now));
	}
}

static void clusters(struct conv *cv, const struct schedstat_snapshot *snap)
{
	uint64_t ts = schedstat_snapshot_ts_ns(snap);
	const struct schedstat_cluster *cl;
	size_t n;

	cl = schedstat_snapshot_clusters(snap, &n);
	for (size_t i = 0; i < n && (int)i < schedstat_topology_nr_clusters(cv->topo); i++) {
		/* A counter the kernel does not keep is left out, never 0. */
		bool util = cl[i].avail & SCHEDSTAT_AVAIL_CFS;
		bool busy = cl[i].avail & SCHEDSTAT_AVAIL_BUSY;

		char args[sizeof(*cv->cl_args)];

		/*
		 * One track holds both, compared as written: a change of
		 * either writes it (else busy's changes are lost while util
		 * stands still), a change below the printed 0.01 does not.
		 */
		if (util || busy) {
			pct_args(args, sizeof(args), util ? &cl[i].util_pct : NULL,
				 busy ? &cl[i].busy_pct : NULL);
			if (strcmp(args, cv->cl_args[i])) {
				counter(cv, PID_CLUSTERS, ts, cl[i].name);
				fprintf(cv->f, ",\"args\":{%s}}", args);
				strcpy(cv->cl_args[i], args);
			}
		}
		if (cl[i].avail & SCHEDSTAT_AVAIL_FREQ && cl[i].freq_khz != cv->cl_khz[i]) {
			char name[SCHEDSTAT_NAME_LEN + 16];

			snprintf(name, sizeof(name), "%s freq", cl[i].name);
			counter(cv, PID_CLUSTERS, ts, name);
			fprintf(cv->f, ",\"args\":{\"khz\":%u,\"avg_khz\":%u}}",
				cl[i].freq_khz, cl[i].freq_avg_khz);
			cv->cl_khz[i] = cl[i].freq_khz;
		}
		/* The energy estimate, where the recording holds a model. */
		if (cl[i].avail & SCHEDSTAT_AVAIL_ENERGY) {
			char name[SCHEDSTAT_NAME_LEN + 16];

			snprintf(name, sizeof(name), "%s power", cl[i].name);
			counter(cv, PID_CLUSTERS, ts, name);
			fprintf(cv->f, ",\"args\":{\"mw\":%.3f,\"eas_mw\":%.3f}}",
				cl[i].power_mw, cl[i].eas_power_mw);
		}
	}
}

static void instants(struct conv *cv, const struct schedstat_event *evs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct schedstat_event *e = &evs[i];

		if (e->type == SCHEDSTAT_EV_MIGRATE) {
			int from = schedstat_topology_cpu_cluster(cv->topo, e->orig_cpu);
			int to = schedstat_topology_cpu_cluster(cv->topo, e->dest_cpu);
			char name[2 * SCHEDSTAT_NAME_LEN + 16];

			snprintf(name, sizeof(name), "migrate %s -> %s",
				 from >= 0 ? schedstat_topology_cluster_name(cv->topo, from) : "?",
				 to >= 0 ? schedstat_topology_cluster_name(cv->topo, to) : "?");
			event(cv, 'i', e->tgid, e->ts_ns);
			fprintf(cv->f, ",\"tid\":%d,\"s\":\"p\",\"name\":", e->pid);
			json_str(cv->f, name);
			fputs(",\"args\":{\"comm\":", cv->f);
			json_str(cv->f, e->comm);
			fprintf(cv->f, ",\"pid\":%d,\"from_cpu\":%d,\"to_cpu\":%d}}", e->pid,
				e->orig_cpu, e->dest_cpu);
		} else if (e->type == SCHEDSTAT_EV_OVERUTILIZED) {
			event(cv, 'i', PID_CLUSTERS, e->ts_ns);
			fprintf(cv->f, ",\"s\":\"g\",\"name\":\"%s\"}",
				e->overutilized ? "overutilized" : "not overutilized");
		}
	}
}

/* Every PELT update; the number of damaged PELT chunks skipped. */
static size_t pelt_counters(struct conv *cv, struct schedstat_recording *rec)
{
	struct schedstat_pelt_update u;
	size_t bad = 0;
	int err;

	schedstat_recording_pelt_rewind(rec);
	while ((err = schedstat_recording_pelt_next(rec, &u)) != -ENODATA) {
		bool task = u.avail & SCHEDSTAT_AVAIL_PELT_TASK;
		char name[SCHEDSTAT_COMM_LEN + 32];

		if (err) {
			bad++;
			if (err != -EBADMSG)
				break;
			continue;
		}
		if (task)
			snprintf(name, sizeof(name), "%s %d pelt", u.comm, u.pid);
		else
			snprintf(name, sizeof(name), "cpu%d %s pelt", u.cpu, u.entity);
		event(cv, 'C', task ? u.tgid : PID_CPUS, u.ts_ns);
		fputs(",\"name\":", cv->f);
		json_str(cv->f, name);
		fprintf(cv->f, ",\"args\":{\"util_avg\":%u,\"runnable_avg\":%u",
			u.util_avg, u.runnable_avg);
		if (u.avail & SCHEDSTAT_AVAIL_UTIL_EST)
			fprintf(cv->f, ",\"util_est\":%u", u.util_est);
		fputs("}}", cv->f);
	}
	return bad;
}

/*
 * Each hotplug operation of the recorded cpuhp steps (format 1.2) as a
 * slice on its CPU's "cpuN hotplug" thread, from its first step to its last,
 * with the time of each cpuhp state in its args, as report lists them.
 * Returns the damaged CPUHP chunks, or -ENOMEM.
 */
static long hotplug_slices(struct conv *cv, struct schedstat_recording *rec)
{
	struct schedstat_recorded_hotplug *ops;
	size_t nr, damaged;
	int err;

	err = schedstat_recording_hotplug(rec, &ops, &nr, &damaged);
	if (err)
		return err == -ENODATA ? 0 : err;
	for (size_t i = 0; i < nr; i++) {
		const struct schedstat_recorded_hotplug *h = &ops[i];

		fprintf(cv->f, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			"\"name\":\"thread_name\",\"args\":{\"name\":\"cpu%d hotplug\"}}",
			PID_CPUS, h->cpu, h->cpu);
		event(cv, 'X', PID_CPUS, h->ts_ns);
		fprintf(cv->f, ",\"tid\":%d,\"dur\":%.3f,\"name\":\"cpu%d %s%s\","
			"\"args\":{", h->cpu, h->op.total_ns / 1e3, h->cpu,
			h->op.back ? "online" : "offline", h->failed ? " failed" : "");
		for (size_t k = 0; k < h->op.nr_steps; k++) {
			fputs(k ? "," : "", cv->f);
			json_str(cv->f, h->op.steps[k].name);
			fprintf(cv->f, ":%.3f", h->op.steps[k].ns / 1e6);
		}
		fputs("}}", cv->f);
	}
	schedstat_recording_hotplug_free(ops, nr);
	return damaged;
}

/*
 * Every sample's events, CPUs, clusters and tasks; a damaged chunk's samples
 * are counted in @bad.
 */
static int convert_samples(struct conv *cv, struct schedstat_recording *rec,
			   size_t nr, size_t *bad)
{
	bool have_t0 = false;
	int err = 0;

	for (size_t i = 0; !err; i++) {
		const struct schedstat_event *evs;
		struct schedstat_snapshot *snap;
		size_t nr_evs;

		err = recording_read_sample(rec, &i, nr, &snap, &evs, &nr_evs, bad);
		if (err == -ENODATA)
			return 0;
		if (err)
			break;
		/*
		 * Time 0 is the start of the first interval that reads back:
		 * its events come before its sample.
		 */
		if (!have_t0) {
			struct schedstat_pelt_update u;

			cv->t0 = schedstat_snapshot_ts_ns(snap) -
				schedstat_snapshot_interval_ns(snap);
			/* Or the first PELT update, if it came before. */
			if (!schedstat_recording_pelt_next(rec, &u) && u.ts_ns < cv->t0)
				cv->t0 = u.ts_ns;
			have_t0 = true;
		}
		instants(cv, evs, nr_evs);
		cpus(cv, snap);
		clusters(cv, snap);
		err = tasks(cv, snap);
		schedstat_snapshot_free(snap);
	}
	return err;
}

static int convert(struct schedstat_recording *rec, FILE *f, const char *path)
{
	struct schedstat_recording_info info;
	struct conv cv = { .f = f, .first = true };
	bool chunks_bad = false;
	int nr_cl, err = 0;
	size_t bad = 0;

	schedstat_recording_info(rec, &info);
	cv.topo = schedstat_recording_topology(rec);
	nr_cl = schedstat_topology_nr_clusters(cv.topo);
	cv.nr_cpu_last = schedstat_topology_nr_cpus(cv.topo);
	cv.cpu_last = calloc(cv.nr_cpu_last, sizeof(*cv.cpu_last));
	cv.cl_args = calloc(nr_cl, sizeof(*cv.cl_args));
	cv.cl_khz = calloc(nr_cl, sizeof(*cv.cl_khz));
	if (!cv.cpu_last || !cv.cl_args || !cv.cl_khz) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* Nothing is equal to "never written". */
	memset(cv.cpu_last, 0xff, cv.nr_cpu_last * sizeof(*cv.cpu_last));
	fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", f);
	process_name(&cv, PID_CPUS, "CPUs");
	process_name(&cv, PID_CLUSTERS, "Clusters");
	err = convert_samples(&cv, rec, info.nr_samples, &bad);
	/* Damaged PELT or CPUHP chunks fail the run as damaged samples do. */
	if (!err && pelt_counters(&cv, rec)) {
		cli_error("%s: damaged PELT chunks skipped", path);
		chunks_bad = true;
	}
	if (!err) {
		long hp = hotplug_slices(&cv, rec);

		if (hp < 0)
			err = hp;
		else if (hp) {
			cli_error("%s: %ld damaged CPUHP chunks skipped", path, hp);
			chunks_bad = true;
		}
	}
	fputs("\n]}\n", f);
cleanup:
	free(cv.tasks);
	schedstat_hash_free(cv.task_index);
	free(cv.cpu_last);
	free(cv.cl_args);
	free(cv.cl_khz);
	if (err) {
		cli_error("%s: %s", path, schedstat_strerror(err));
		return EXIT_FAIL;
	}
	if (recording_check_damage(path, rec, bad) != EXIT_OK || chunks_bad)
		return EXIT_FAIL;
	return EXIT_OK;
}

int cmd_convert(int argc, char **argv)
{
	struct schedstat_recording *rec = NULL;
	const char *out = NULL, *in = NULL;
	struct input_opts input = {};
	bool perfetto = false, json = false, task_stats = false;
	FILE *f = NULL;
	int c, fd = -1, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	/* No '+': the recording may come before or after the options. */
	while ((c = getopt_long(argc, argv, ":o:h", convert_long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_PERFETTO:
			perfetto = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_TASK_STATS:
			task_stats = true;
			break;
		case 'o':
			out = optarg;
			break;
		case OPT_INPUT_TOPOLOGY:
		case OPT_INPUT_PELT_SCHEME:
			if (input_opt("convert", c, optarg, &input))
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(convert_usage, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("convert", c, argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("convert", "give one file: a schedtop recording or a trace (trace.dat, Perfetto)");
	in = argv[optind];
	if (perfetto == json)
		return cli_usage_error("convert", "say which format: --perfetto (native) or --json");
	if (!out)
		return cli_usage_error("convert", "-o OUT is required (\"-\" for standard output)");
	if (task_stats && !perfetto)
		return cli_usage_error("convert", "--task-stats is for --perfetto");
	/* Opening the output truncates it: it must not be what we read. */
	if (strcmp(out, "-") && same_file(in, out))
		return cli_usage_error("convert", "the recording and -o name the same file");
	fd = open_recording(in, 0, &input, &rec);
	if (fd < 0)
		return EXIT_FAIL;
	f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		cli_error("cannot write %s: %s", out, strerror(errno));
		goto cleanup;
	}
	{
		struct schedstat_recording_info info;

		schedstat_recording_info(rec, &info);
		recording_warn_lost(in, &info);
	}
	ret = perfetto ? convert_perfetto(rec, fileno(f), in, task_stats) :
			 convert(rec, f, in);
	if (f != stdout ? fclose(f) : fflush(f)) {
		cli_error("writing %s: %s", out, strerror(errno));
		ret = EXIT_FAIL;
	}
cleanup:
	schedstat_recording_close(rec);
	close(fd);
	return ret;
}
