// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop csv: headless sampling to RFC 4180 CSV, one flushed block of rows
 * per interval so the stream can be read live through a pipe or adb.
 */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "array_size.h"
#include "atrace_out.h"
#include "cli.h"
#include "columns.h"
#include "csv_format.h"
#include "recording.h"
#include "run.h"
#include "sample_loop.h"

struct csv_opts {
	const char *output;
	unsigned long interval_ms;
	unsigned long samples;		/* 0: until stopped */
	const struct column_table *table;
	struct cli_session_args session;	/* --topology, --source, ... */
	/* -p and -c filter the task and pelt rows, and select what is traced */
	struct cli_pelt_args pelt;
	bool interval_set;		/* -i given (a trace file's pace) */
	bool done;			/* -h or --list-columns: nothing more to do */
	const char *from;		/* a recording to read instead */
	const char *record;		/* a recording to make alongside */
	const char *trace_file;
	struct input_opts input;	/* --pelt-scheme (topology: above) */
	/* The emulation column: the method of --emulate or of the recording. */
	const char *emulation;
};

static const char csv_usage[] =
"Usage: schedtop csv [OPTIONS]\n"
"Sample the scheduler and write RFC 4180 CSV, one block of rows per interval.\n"
"\n"
"  -o, --output FILE      write to FILE instead of standard output\n"
"  -i, --interval MS      sample interval in milliseconds (default 1000, min 10)\n"
"  -d, --duration SECONDS stop after this long\n"
"  -n, --samples N        stop after N samples\n"
"  -t, --table NAME       task (default), cpu, cluster, group (cgroups),\n"
"                         migration (between clusters), freq (residency), or\n"
"                         pelt (every PELT update of the --pelt-trace\n"
"                         selection, in time order; implies --pelt-trace)\n"
CLI_USAGE_TOPOLOGY
CLI_USAGE_SYSFS_ROOT
CLI_USAGE_EMULATE
"  -p, --pid PID[,PID]    only these tasks (matches thread or process id);\n"
"                         with --pelt-trace, the tasks traced (at most 64)\n"
"  -c, --comm COMM        only tasks whose name is exactly COMM (and traced)\n"
"      --pelt-trace       also take every PELT update of the tasks of -p/-c\n"
"                         and the CPUs of --pelt-cpus, through BPF ring\n"
"                         buffers (-t pelt writes them, --record keeps them)\n"
"      --pelt-cpus LIST   CPUs whose cfs, rt, dl and irq updates are traced\n"
"      --pelt-cgroup DIR  the cgroup (its directory) whose group entities'\n"
"                         updates are traced, one per CPU (not --record)\n"
CLI_USAGE_ATRACE
CLI_USAGE_ENERGY_MODEL
CLI_USAGE_EXACT_WAKEUPS
"      --from FILE        read a recording (schedtop record) instead of the\n"
"                         kernel: the rows the live run gave; a trace\n"
"                         (trace.dat, Perfetto) is read as --trace FILE -i 100\n"
"                         would\n"
"      --record FILE      also make a recording of this run\n"
CLI_USAGE_SOURCE
"      --trace FILE       read a trace (trace-cmd record -e sched, or Perfetto)\n"
"                         instead of the live kernel; -i is in trace time\n"
PELT_SCHEME_USAGE
"      --list-columns[=markdown|man]\n"
"                         describe every column of every table and exit\n"
"  -v, --verbose          show libbpf debug output\n"
"  -h, --help             show this help\n"
"\n"
"Empty fields mean \"not available on this kernel\". See docs/csv.md.\n";

enum { OPT_LIST_COLUMNS = 256, OPT_FROM, OPT_RECORD, OPT_TRACE };

const struct option csv_long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "samples", required_argument, NULL, 'n' },
	{ "table", required_argument, NULL, 't' },
	CLI_OPT_TOPOLOGY,
	CLI_OPT_SYSFS_ROOT,
	CLI_OPT_PID,
	CLI_OPT_COMM,
	{ "list-columns", optional_argument, NULL, OPT_LIST_COLUMNS },
	CLI_OPT_EXACT_WAKEUPS,
	{ "from", required_argument, NULL, OPT_FROM },
	{ "record", required_argument, NULL, OPT_RECORD },
	CLI_OPT_SOURCE,
	{ "trace", required_argument, NULL, OPT_TRACE },
	CLI_OPT_EMULATE,
	{ "pelt-scheme", required_argument, NULL, OPT_INPUT_PELT_SCHEME },
	CLI_OPT_PELT_TRACE,
	CLI_OPT_PELT_CPUS,
	CLI_OPT_PELT_CGROUP,
	CLI_OPT_ATRACE,
	CLI_OPT_ENERGY_MODEL,
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

/* The column tables as Markdown (docs/csv.md) or troff (docs/schedtop.1). */
static int list_columns(const char *format)
{
	bool man = format && !strcmp(format, "man");

	if (format && !man && strcmp(format, "markdown"))
		return cli_usage_error("csv", "--list-columns takes markdown or man");
	for (size_t i = 0; i < column_nr_tables; i++) {
		if (man) {
			printf(".SS %s table\n", column_tables[i]->name);
			columns_write_man(stdout, column_tables[i]);
			continue;
		}
		if (i)
			putchar('\n');
		columns_write_markdown(stdout, column_tables[i]);
	}
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}

/* The options that do not go together; -d into samples. An exit code. */
static int check_csv_opts(struct csv_opts *o, double seconds)
{
	if (seconds && o->samples)
		return cli_usage_error("csv", "-d and -n do not go together");
	if (seconds)
		o->samples = samples_for(seconds, o->interval_ms);
	if (o->record && !strcmp(o->record, "-") && !o->output)
		return cli_usage_error("csv", "--record - and the CSV cannot both go to standard output: add -o FILE");
	if (o->record && !strcmp(o->record, "-") && isatty(STDOUT_FILENO))
		return cli_usage_error("csv", "a recording is binary: --record - wants a pipe or a file, not a terminal");
	if (o->from && seconds)
		return cli_usage_error("csv", "-d is for live runs: -n N takes the first N samples of a recording");
	if (o->from && o->session.energy_model)
		return cli_usage_error("csv", "--from uses the energy model stored in the recording: no --energy-model with it");
	if (o->from && o->trace_file)
		return cli_usage_error("csv", "--from and --trace do not go together");
	if (o->from && (o->record || o->session.sysfs_root || o->session.exact_wakeups))
		return cli_usage_error("csv", "--from reads what was recorded: no --record, --sysfs-root or --exact-wakeups with it");
	if (o->input.pelt_scheme_set && !o->from && !o->trace_file)
		return cli_usage_error("csv", "--pelt-scheme is for trace files: with --trace FILE or --from FILE");
	if (o->session.emulate && (o->from || o->trace_file))
		return cli_usage_error("csv", "--emulate changes the live machine: not with --from or --trace");
	if (o->session.emulate && o->session.topology)
		return cli_usage_error("csv", "--emulate gives the topology: no --topology with it");
	if (o->table == &pelt_table && !o->from)
		o->pelt.trace = true;
	if ((o->pelt.pids || o->pelt.comm) && o->table != &task_table &&
	    o->table != &pelt_table && !o->pelt.atrace)
		return cli_usage_error("csv", "-p and -c filter tasks: use them with --table task or pelt");
	if (o->pelt.atrace && (o->from || o->trace_file))
		return cli_usage_error("csv", "--atrace writes the live kernel's samples into trace_marker: not with --from or --trace");
	if (o->pelt.cpus && !o->pelt.trace)
		return cli_usage_error("csv", "--pelt-cpus selects what --pelt-trace traces: add --pelt-trace (or -t pelt)");
	if (o->pelt.trace && (o->from || o->trace_file ||
			      o->session.source == SCHEDSTAT_SOURCE_TRACEFS))
		return cli_usage_error("csv", "--pelt-trace reads the live kernel through BPF: not with --from, --trace or --source tracefs (csv --from FILE -t pelt reads recorded updates)");
	if (o->pelt.cgroup && !o->pelt.trace)
		return cli_usage_error("csv", "--pelt-cgroup selects what --pelt-trace traces: add --pelt-trace (or -t pelt)");
	/* Format 1.1 has no group entity: a reader of it would call it damage. */
	if (o->pelt.cgroup && o->record)
		return cli_usage_error("csv", "--pelt-cgroup's group updates are not kept in recordings: not with --record");
	if (o->pelt.trace && cli_pelt_args_check("csv", &o->pelt))
		return EXIT_USAGE;
	return EXIT_OK;
}

/*
 * An exit code: EXIT_OK to go on, unless @o->done says that an option
 * (-h, --list-columns) was the whole command.
 */
static int parse_csv_opts(int argc, char **argv, struct csv_opts *o)
{
	double seconds = 0;
	int c;

	o->interval_ms = 1000;
	o->table = &task_table;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:i:d:n:t:p:c:vh", csv_long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'i':
			if (parse_ulong(optarg, 10, 3600000, &o->interval_ms))
				return cli_usage_error("csv", "bad interval '%s': milliseconds, 10 to 3600000", optarg);
			o->interval_set = true;
			break;
		case 'd':
			if (parse_seconds(optarg, &seconds))
				return cli_usage_error("csv", "bad duration '%s': seconds, more than 0", optarg);
			break;
		case 'n':
			if (parse_ulong(optarg, 1, 1000000000, &o->samples))
				return cli_usage_error("csv", "bad sample count '%s'", optarg);
			break;
		case 't':
			o->table = column_table_find(optarg);
			if (!o->table)
				return cli_usage_error("csv", "unknown table '%s': task, cpu, cluster, group, migration, freq or pelt", optarg);
			break;
		case OPT_FROM:
			o->from = optarg;
			break;
		case OPT_RECORD:
			o->record = optarg;
			break;
		case OPT_TRACE:
			o->trace_file = optarg;
			break;
		case OPT_INPUT_PELT_SCHEME:
			if (input_opt("csv", c, optarg, &o->input))
				return EXIT_USAGE;
			break;
		case OPT_LIST_COLUMNS:
			o->done = true;
			return list_columns(optarg);
		case 'v':
			global_opts.verbose = true;
			break;
		case 'h':
			fputs(csv_usage, stdout);
			o->done = true;
			return EXIT_OK;
		default:
			if (cli_shared_option("csv", c, argv, &o->session, &o->pelt))
				return EXIT_USAGE;
			break;
		}
	}
	if (optind < argc)
		return cli_usage_error("csv", "unexpected argument '%s'", argv[optind]);
	return check_csv_opts(o, seconds);
}

static bool task_selected(const struct csv_opts *o, const struct schedstat_task *t)
{
	if (o->pelt.comm && strcmp(o->pelt.comm, t->comm))
		return false;
	if (!o->pelt.pids)
		return true;
	return pid_list_has(o->pelt.pids, o->pelt.nr_pids, t->pid) ||
	       pid_list_has(o->pelt.pids, o->pelt.nr_pids, t->tgid);
}

/*
 * --from: the recorded updates, each kept as the live run wrote it; -p and
 * -c narrow the tasks further, CPU entities stay.
 */
static bool pelt_selected(const struct csv_opts *o, const struct schedstat_pelt_update *u)
{
	if (!(u->avail & SCHEDSTAT_AVAIL_PELT_TASK))
		return true;
	if (o->pelt.comm && strcmp(o->pelt.comm, u->comm))
		return false;
	return !o->pelt.pids || pid_list_has(o->pelt.pids, o->pelt.nr_pids, u->pid) ||
	       pid_list_has(o->pelt.pids, o->pelt.nr_pids, u->tgid);
}

static int write_pelt(FILE *f, const struct schedstat_pelt_update *u)
{
	struct csv_ctx ctx = { .avail = u->avail };

	return csv_write_row(f, &pelt_table, &ctx, u);
}

static int write_sample(FILE *f, const struct csv_opts *o,
			const struct schedstat_topology *topo,
			const struct schedstat_snapshot *snap)
{
	struct csv_ctx ctx = {
		.topo = topo,
		.avail = schedstat_snapshot_avail(snap),
		.ts_ns = schedstat_snapshot_ts_ns(snap),
		.emulation = o->emulation,
	};
	int err = 0;
	size_t n;

	/* The updates were written as they came (on_pelt): flush them only. */
	if (o->table == &pelt_table) {
	} else if (o->table == &task_table) {
		const struct schedstat_task *t = schedstat_snapshot_tasks(snap, &n);

		for (size_t i = 0; i < n && !err; i++)
			if (task_selected(o, &t[i]))
				err = csv_write_row(f, o->table, &ctx, &t[i]);
	} else if (o->table == &cpu_table) {
		const struct schedstat_cpu *c = schedstat_snapshot_cpus(snap, &n);

		for (size_t i = 0; i < n && !err; i++) {
			if (c[i].cluster < 0)
				continue;
			ctx.avail = c[i].avail;
			err = csv_write_row(f, o->table, &ctx, &c[i]);
		}
	} else if (o->table == &cluster_table) {
		const struct schedstat_cluster *c = schedstat_snapshot_clusters(snap, &n);

		for (size_t i = 0; i < n && !err; i++) {
			ctx.avail = c[i].avail;
			err = csv_write_row(f, o->table, &ctx, &c[i]);
		}
	} else if (o->table == &freq_table) {
		const struct schedstat_freq_residency *fr =
			schedstat_snapshot_freq_residency(snap, &n);

		for (size_t i = 0; i < n && !err; i++)
			err = csv_write_row(f, o->table, &ctx, &fr[i]);
	} else if (o->table == &migration_table) {
		const struct schedstat_migration *mg =
			schedstat_snapshot_migrations(snap, &n);

		for (size_t i = 0; i < n && !err; i++)
			err = csv_write_row(f, o->table, &ctx, &mg[i]);
	} else {
		const struct schedstat_group *g = schedstat_snapshot_groups(snap, &n);

		for (size_t i = 0; i < n && !err; i++)
			err = csv_write_row(f, o->table, &ctx, &g[i]);
	}
	if (!err && fflush(f))
		err = -errno;
	return err;
}

struct csv_run {
	struct csv_opts *o;
	const struct schedstat_topology *topo;
	FILE *f;
	struct run run;		/* session, energy model, --emulate, --record */
	int write_err;
	unsigned long nr_pelt;
	/* Updates the session delivers while opening come before the run. */
	bool started;
	struct schedstat_trace_info ti;	/* --trace */
};

/* The session's on_pelt: the row, and the recording's copy. */
static void on_pelt(const struct schedstat_pelt_update *u, void *ctx)
{
	struct csv_run *r = ctx;

	if (!r->started)
		return;
	r->nr_pelt++;
	if (r->o->record)
		recording_out_pelt(u, &r->run.rec);
	if (r->o->table == &pelt_table && !r->write_err)
		r->write_err = write_pelt(r->f, u);
}

static int on_sample(const struct schedstat_snapshot *snap, void *ctx)
{
	struct csv_run *r = ctx;
	int err;

	atrace_out_sample(&r->run.atrace, snap);
	if (r->o->record) {
		if (r->o->pelt.trace)
			recording_out_pelt_dropped(&r->run.rec,
						   schedstat_session_pelt_dropped(r->run.session));
		err = recording_out_sample(&r->run.rec, snap);
		if (err)
			return err;
	}
	err = write_sample(r->f, r->o, r->topo, snap);
	if (err)
		r->write_err = err;
	return err;
}

/* The outcome of writing: a reader that went away (head, adb) is fine. */
static int write_result(const struct csv_run *r)
{
	if (!r->write_err || r->write_err == -EPIPE)
		return EXIT_OK;
	cli_error("writing %s: %s", r->o->output ? r->o->output : "standard output",
		  strerror(-r->write_err));
	return EXIT_FAIL;
}

static int run_live(struct csv_run *r, struct schedstat_session *s)
{
	int err;

	r->topo = schedstat_session_topology(s);
	r->write_err = csv_write_header(r->f, r->o->table);
	if (!r->write_err && fflush(r->f))
		r->write_err = -errno;
	if (r->write_err)
		return write_result(r);
	r->started = true;
	/* A trace file is read as fast as it goes: its time is not ours. */
	err = sample_loop(s, r->o->trace_file ? 1 : r->o->interval_ms, r->o->samples,
			  on_sample, r);
	/* The updates held back for ordering, and what was lost. */
	if (r->o->pelt.trace) {
		int ferr = schedstat_session_flush(s);

		if (ferr && !err) {
			cli_error("reading PELT updates: %s", schedstat_strerror(ferr));
			err = ferr;
		}
		if (!r->write_err && fflush(r->f))
			r->write_err = -errno;
		if (r->o->record)
			recording_out_pelt_dropped(&r->run.rec, schedstat_session_pelt_dropped(s));
		pelt_summary(r->nr_pelt, schedstat_session_pelt_dropped(s));
	}
	if (r->write_err)
		return write_result(r);
	if (r->o->trace_file) {
		trace_late_note(r->o->trace_file, &r->ti);
		/* Read up to the damage, said at open: still a failure. */
		if (r->ti.damage[0])
			return EXIT_FAIL;
	}
	return err ? EXIT_FAIL : EXIT_OK;
}

/* Every PELT update of a recording, as the live run wrote them. */
static int from_pelt(struct csv_run *r, struct schedstat_recording *rec)
{
	struct schedstat_pelt_update u;
	unsigned long bad = 0, n = 0;
	int err, ret;

	while (!r->write_err) {
		err = schedstat_recording_pelt_next(rec, &u);
		if (err == -ENODATA)
			break;
		if (err == -EBADMSG) {
			bad++;
			continue;
		}
		if (err) {
			cli_error("reading %s: %s", r->o->from, schedstat_strerror(err));
			return EXIT_FAIL;
		}
		n++;
		if (pelt_selected(r->o, &u))
			r->write_err = write_pelt(r->f, &u);
	}
	if (!n && !bad)
		fprintf(stderr, "schedtop: note: %s holds no PELT updates: record "
			"with --pelt-trace -p PID (or -c COMM, --pelt-cpus LIST)\n",
			r->o->from);
	if (!r->write_err && fflush(r->f))
		r->write_err = -errno;
	ret = write_result(r);
	if (bad) {
		cli_error("%s: %lu damaged PELT chunks skipped", r->o->from, bad);
		ret = EXIT_FAIL;
	}
	if (schedstat_recording_pelt_dropped(rec))
		cli_error("%s: note: %" PRIu64 " PELT updates were lost while recording (ring buffer full)",
			  r->o->from, schedstat_recording_pelt_dropped(rec));
	return ret;
}

/*
 * Every sample of a recording in order. A damaged chunk costs its samples,
 * not the rest: say so, go on, and fail at the end.
 */
static int run_from(struct csv_run *r)
{
	struct schedstat_recording *rec = NULL;
	struct schedstat_recording_info info;
	size_t bad = 0, n;
	int fd, err, ret = EXIT_FAIL;

	fd = open_recording(r->o->from, r->o->interval_set ? r->o->interval_ms : 0,
			    &(struct input_opts){ .topology = r->o->session.topology,
				.pelt_scheme = r->o->input.pelt_scheme,
				.pelt_scheme_set = r->o->input.pelt_scheme_set }, &rec);
	if (fd < 0)
		return EXIT_FAIL;
	schedstat_recording_info(rec, &info);
	recording_warn_lost(r->o->from, &info);
	r->o->emulation = schedstat_emulation_recorded_method(
		schedstat_recording_meta(rec, "emulation"));
	r->topo = schedstat_recording_topology(rec);
	r->write_err = csv_write_header(r->f, r->o->table);
	if (r->o->table == &pelt_table) {
		ret = from_pelt(r, rec);
		goto cleanup;
	}
	n = r->o->samples && r->o->samples < info.nr_samples ? r->o->samples : info.nr_samples;
	for (size_t i = 0; !r->write_err; i++) {
		struct schedstat_snapshot *snap;

		err = recording_read_sample(rec, &i, n, &snap, NULL, NULL, &bad);
		if (err == -ENODATA)
			break;
		if (err) {
			cli_error("reading %s: %s", r->o->from, schedstat_strerror(err));
			goto cleanup;
		}
		r->write_err = write_sample(r->f, r->o, r->topo, snap);
		schedstat_snapshot_free(snap);
	}
	ret = write_result(r);
	if (recording_check_damage(r->o->from, rec, bad) != EXIT_OK)
		ret = EXIT_FAIL;
cleanup:
	schedstat_recording_close(rec);
	close(fd);
	return ret;
}

/*
 * The run on the live kernel or --trace's file (run.h: the energy model,
 * --emulate started, the session, --record's file). An exit code.
 */
static int open_run(struct csv_run *r, int argc, char **argv)
{
	struct csv_opts *o = r->o;
	struct schedstat_session_opts *sopts = &r->run.sopts;
	int ret;

	sopts->trace_file = o->trace_file;
	sopts->trace_info = &r->ti;
	sopts->trace_interval_ns = o->interval_ms * 1000000ULL;
	sopts->pelt_scheme = o->input.pelt_scheme;
	cli_pelt_args_apply(&o->pelt, sopts, on_pelt, r);
	/* The CSV stays pandas' plain table: the method is said on stderr. */
	ret = run_open(&r->run, &(struct run_opts){
		.cmd = "csv", .args = &o->session, .pelt = &o->pelt, .record = o->record,
		.interval_ms = o->interval_ms, .argc = argc, .argv = argv,
		.say_emulation = true,
	});
	if (ret != EXIT_OK)
		return ret;
	if (r->run.emul)
		o->emulation = schedstat_emulate_method_name(
			schedstat_emulation_method(r->run.emul));
	if (o->trace_file)
		trace_notes(o->trace_file, r->run.session, &r->ti);
	return EXIT_OK;
}

int cmd_csv(int argc, char **argv)
{
	struct csv_opts o = {};
	struct csv_run run = { .run = RUN_INIT };
	FILE *f = stdout;
	int ret;

	ret = parse_csv_opts(argc, argv, &o);
	if (ret != EXIT_OK || o.done)
		goto cleanup;
	ret = EXIT_FAIL;
	/* A closed pipe must show up as EPIPE from fflush, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	/* Opening the output truncates it: it must not be what we read. */
	if (o.from && o.output && same_file(o.from, o.output)) {
		ret = cli_usage_error("csv", "--from and -o name the same file");
		goto cleanup;
	}
	if (o.output) {
		f = fopen(o.output, "w");
		if (!f) {
			cli_error("cannot write %s: %s", o.output, strerror(errno));
			goto cleanup;
		}
	}
	run.o = &o;
	run.f = f;
	if (o.from) {
		/* The shared options checked alike; a recording has its session. */
		if (cli_session_args_apply("csv", &o.session, &run.run.sopts,
					   &run.run.topology_spec))
			ret = EXIT_USAGE;
		else
			ret = run_from(&run);
		goto cleanup;
	}
	ret = open_run(&run, argc, argv);
	if (ret == EXIT_OK)
		ret = run_live(&run, run.run.session);
cleanup:
	if (run_close(&run.run) != EXIT_OK)
		ret = EXIT_FAIL;
	if (f && f != stdout && fclose(f) && ret == EXIT_OK) {
		cli_error("writing %s: %s", o.output, strerror(errno));
		ret = EXIT_FAIL;
	}
	free(o.pelt.pids);
	return ret;
}
