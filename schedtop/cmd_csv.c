// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop csv: headless sampling to RFC 4180 CSV, one flushed block of rows
 * per interval so the stream can be read live through a pipe or adb.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cli.h"
#include "columns.h"
#include "csv_format.h"
#include "loop.h"

struct csv_opts {
	const char *output;
	unsigned long interval_ms;
	unsigned long samples;		/* 0: until stopped */
	const struct column_table *table;
	const char *topology;
	const char *sysfs_root;
	int *pids;
	size_t nr_pids;
	const char *comm;
	bool exact_wakeups;
	enum schedstat_source source;
	const char *trace_file;
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
"                         migration (between clusters) or freq (residency)\n"
"      --topology SPEC    clusters as NAME:CPULIST[@CAPACITY],..., or @FILE\n"
"                         e.g. LITTLE:0-3,big:4-7@1024\n"
"      --sysfs-root DIR   read the topology from DIR instead of /sys\n"
"  -p, --pid PID[,PID]    only these tasks (matches thread or process id)\n"
"  -c, --comm COMM        only tasks whose name is exactly COMM\n"
"      --exact-wakeups    count every sched_waking (costs a little per wakeup)\n"
"                         instead of the sleeps that ended\n"
"      --source SOURCE    auto (default: BPF, else tracefs), bpf, or tracefs\n"
"                         (sched events and schedtop's own PELT estimate)\n"
"      --trace FILE       read a trace-cmd recording (trace-cmd record -e sched)\n"
"                         instead of the live kernel; -i is in trace time\n"
"      --list-columns[=markdown|man]\n"
"                         describe every column of every table and exit\n"
"  -v, --verbose          show libbpf debug output\n"
"  -h, --help             show this help\n"
"\n"
"Empty fields mean \"not available on this kernel\". See docs/csv.md.\n";

enum { OPT_TOPOLOGY = 256, OPT_SYSFS_ROOT, OPT_LIST_COLUMNS, OPT_EXACT_WAKEUPS,
       OPT_SOURCE, OPT_TRACE };

static const struct option csv_long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "samples", required_argument, NULL, 'n' },
	{ "table", required_argument, NULL, 't' },
	{ "topology", required_argument, NULL, OPT_TOPOLOGY },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
	{ "pid", required_argument, NULL, 'p' },
	{ "comm", required_argument, NULL, 'c' },
	{ "list-columns", optional_argument, NULL, OPT_LIST_COLUMNS },
	{ "exact-wakeups", no_argument, NULL, OPT_EXACT_WAKEUPS },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

/* The column tables as Markdown (docs/csv.md) or troff (docs/schedtop.1). */
static int list_columns(const char *format)
{
	static const struct column_table *const tables[] = {
		&task_table, &cpu_table, &cluster_table, &group_table,
		&migration_table, &freq_table,
	};
	bool man = format && !strcmp(format, "man");

	if (format && !man && strcmp(format, "markdown"))
		return cli_usage_error("csv", "--list-columns takes markdown or man");
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		if (man) {
			printf(".SS %s table\n", tables[i]->name);
			columns_write_man(stdout, tables[i]);
			continue;
		}
		if (i)
			putchar('\n');
		columns_write_markdown(stdout, tables[i]);
	}
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}

/* Returns -1 to go on, or the exit code. */
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
				return cli_usage_error("csv", "unknown table '%s': task, cpu, cluster, group, migration or freq", optarg);
			break;
		case OPT_TOPOLOGY:
			o->topology = optarg;
			break;
		case OPT_SYSFS_ROOT:
			o->sysfs_root = optarg;
			break;
		case 'p':
			free(o->pids);
			o->pids = NULL;
			if (parse_pid_list(optarg, &o->pids, &o->nr_pids))
				return cli_usage_error("csv", "bad pid list '%s': e.g. 1234 or 1234,5678", optarg);
			break;
		case 'c':
			if (!*optarg || strlen(optarg) >= SCHEDSTAT_COMM_LEN)
				return cli_usage_error("csv", "bad comm '%s': 1 to 15 characters", optarg);
			o->comm = optarg;
			break;
		case OPT_EXACT_WAKEUPS:
			o->exact_wakeups = true;
			break;
		case OPT_SOURCE:
			if (cli_parse_source(optarg, &o->source))
				return cli_usage_error("csv", "unknown source '%s': auto, bpf or tracefs", optarg);
			break;
		case OPT_TRACE:
			o->trace_file = optarg;
			break;
		case OPT_LIST_COLUMNS:
			return list_columns(optarg);
		case 'v':
			global_opts.verbose = true;
			break;
		case 'h':
			fputs(csv_usage, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("csv", c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("csv", "unexpected argument '%s'", argv[optind]);
	if (seconds && o->samples)
		return cli_usage_error("csv", "-d and -n do not go together");
	if (seconds) {
		double n = seconds * 1000.0 / o->interval_ms;

		o->samples = n < 1 ? 1 : (unsigned long)(n + 0.5);
	}
	if ((o->pids || o->comm) && o->table != &task_table)
		return cli_usage_error("csv", "-p and -c filter tasks: use them with --table task");
	return -1;
}

static bool task_selected(const struct csv_opts *o, const struct schedstat_task *t)
{
	if (o->comm && strcmp(o->comm, t->comm))
		return false;
	if (!o->pids)
		return true;
	return pid_list_has(o->pids, o->nr_pids, t->pid) ||
	       pid_list_has(o->pids, o->nr_pids, t->tgid);
}

static int write_sample(FILE *f, const struct csv_opts *o,
			const struct schedstat_topology *topo,
			const struct schedstat_snapshot *snap)
{
	struct csv_ctx ctx = {
		.topo = topo,
		.avail = schedstat_snapshot_avail(snap),
		.ts_ns = schedstat_snapshot_ts_ns(snap),
	};
	int err = 0;
	size_t n;

	if (o->table == &task_table) {
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

static int run(const struct csv_opts *o, struct schedstat_session *s, FILE *f)
{
	const struct schedstat_topology *topo = schedstat_session_topology(s);
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, 0 };
	int fds[] = { schedstat_session_event_fd(s), -1 };
	struct loop l = LOOP_INIT;
	unsigned long done = 0;
	int err, ret = EXIT_FAIL;

	/* A recording is read as fast as it goes: its time is not ours. */
	err = loop_open(&l, signals, fds, o->trace_file ? 1 : o->interval_ms);
	if (err) {
		cli_error("cannot set up the event loop: %s", strerror(-err));
		goto cleanup;
	}
	err = csv_write_header(f, o->table);
	if (!err && fflush(f))
		err = -errno;
	while (!err && (!o->samples || done < o->samples)) {
		struct epoll_event evs[4];
		int n = epoll_wait(l.epfd, evs, 4, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		for (int i = 0; i < n && !err; i++) {
			int fd = evs[i].data.fd;

			if (fd == l.sigfd) {
				ret = EXIT_OK;
				goto cleanup;
			} else if (fd == l.timerfd) {
				struct schedstat_snapshot *snap;

				if (!loop_ticks(&l))
					continue;
				err = schedstat_session_sample(s, &snap);
				if (err == -ENODATA && o->trace_file) {
					ret = EXIT_OK;	/* end of the recording */
					goto cleanup;
				}
				if (err) {
					cli_error("sampling failed: %s", schedstat_strerror(err));
					goto cleanup;
				}
				err = write_sample(f, o, topo, snap);
				schedstat_snapshot_free(snap);
				done++;
			} else {
				err = schedstat_session_poll(s);
				err = err < 0 ? err : 0;
			}
		}
	}
	if (err == -EPIPE) {
		/* The reader went away (head, a closed adb stream): done. */
		ret = EXIT_OK;
	} else if (err) {
		cli_error("writing %s: %s", o->output ? o->output : "standard output",
			  strerror(-err));
	} else {
		ret = EXIT_OK;
	}
cleanup:
	loop_close(&l);
	return ret;
}

int cmd_csv(int argc, char **argv)
{
	struct csv_opts o = {};
	struct schedstat_session_opts sopts = {};
	struct schedstat_session *s = NULL;
	FILE *f = stdout;
	char *spec = NULL;
	int ret, err;

	ret = parse_csv_opts(argc, argv, &o);
	if (ret >= 0)
		goto cleanup;
	ret = EXIT_FAIL;
	/* A closed pipe must show up as EPIPE from fflush, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	if (o.output) {
		f = fopen(o.output, "w");
		if (!f) {
			cli_error("cannot write %s: %s", o.output, strerror(errno));
			goto cleanup;
		}
	}
	if (o.topology) {
		spec = cli_topology_spec(o.topology);
		if (!spec) {
			ret = EXIT_USAGE;
			goto cleanup;
		}
	}
	sopts.topology = spec;
	sopts.sysfs_root = o.sysfs_root;
	sopts.exact_wakeups = o.exact_wakeups;
	sopts.source = o.source;
	sopts.trace_file = o.trace_file;
	sopts.trace_interval_ns = o.interval_ms * 1000000ULL;
	err = cli_session_open(&s, &sopts);
	if (err) {
		cli_error("%s", schedstat_strerror(err));
		goto cleanup;
	}
	ret = run(&o, s, f);
cleanup:
	schedstat_session_close(s);
	if (f && f != stdout && fclose(f) && ret == EXIT_OK) {
		cli_error("writing %s: %s", o.output, strerror(errno));
		ret = EXIT_FAIL;
	}
	free(o.pids);
	free(spec);
	return ret;
}
