/* SPDX-License-Identifier: GPL-2.0 */
/* What every schedtop subcommand shares: options, messages, exit codes. */
#ifndef SCHEDTOP_CLI_H
#define SCHEDTOP_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "schedstat.h"

/* Exit codes: 0 done, 1 runtime error, 2 bad usage. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
};

struct global_opts {
	bool verbose;		/* -v: libbpf debug output */
};

extern struct global_opts global_opts;

/*
 * Blocks the signals that end a run (SIGINT, SIGTERM, SIGHUP: those every
 * event loop watches) before a command changes anything: one that comes
 * while it sets up (BPF attached, a tracefs instance made, CPUs emulated)
 * waits for the loop's signalfd and ends the run there, through the path
 * that puts everything back, instead of killing the process half set up
 * (a SIGTERM in the first 130 ms of csv --source tracefs left its tracefs
 * instance behind).
 */
void cli_block_ending_signals(void);

/* "schedtop: <msg>\n" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, plus "Try 'schedtop CMD --help'."; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * After getopt_long() with opterr = 0 and an optstring starting "+:"
 * returned @c, '?' (unknown option) or ':' (value missing).
 */
int cli_bad_option(const char *cmd, int c, char **argv);

/*
 * A --topology argument: a spec as it is, or "@FILE" naming a file with one
 * NAME:CPULIST[@CAPACITY] per line ('#' starts a comment). Returns a spec to
 * free(), or NULL with errno set (the message is printed).
 */
char *cli_topology_spec(const char *arg);

/* Strict numeric option parsing: the whole string, within [min, max]. */
int parse_ulong(const char *s, unsigned long min, unsigned long max,
		unsigned long *out);
int parse_seconds(const char *s, double *out);
/*
 * The end of a --pelt-trace run on stderr: updates taken and lost (ring
 * buffer full), with what to do about a loss.
 */
void pelt_summary(unsigned long taken, uint64_t dropped);
/* Samples that -d SECONDS at @interval_ms means: at least one. */
unsigned long samples_for(double seconds, unsigned long interval_ms);
/* qsort() order of doubles, ascending (a NaN compares equal to anything). */
int cmp_double(const void *a, const void *b);
/* "1,2,300" into a sorted array; -EINVAL on anything else. */
int parse_pid_list(const char *s, int **pids, size_t *nr);
/* Whether @pid is in a list from parse_pid_list(). */
bool pid_list_has(const int *pids, size_t nr, int pid);

/*
 * The options of the commands that look at this machine (the live view, csv,
 * record, topology, emulate, energy, workload), each defined once: its getopt_long() entry
 * (CLI_OPT_*, listed in each command's table, so the bash completion has
 * it), its help line (CLI_USAGE_*, in each command's usage) and what its
 * value means (cli_session_arg(), through cli_shared_option()). The values are clear of each command's
 * own (from 256) and of the file commands' (recording.h).
 */
enum {
	OPT_TOPOLOGY = 0x1100,
	OPT_SYSFS_ROOT,
	OPT_EXACT_WAKEUPS,
	OPT_SOURCE,
	OPT_EMULATE,
	OPT_ENERGY_MODEL,
	OPT_PELT_TRACE,
	OPT_PELT_CPUS,
	OPT_PELT_CGROUP,
	OPT_ATRACE,
};

#define CLI_OPT_TOPOLOGY	{ "topology", required_argument, NULL, OPT_TOPOLOGY }
#define CLI_OPT_SYSFS_ROOT	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT }
#define CLI_OPT_EXACT_WAKEUPS	{ "exact-wakeups", no_argument, NULL, OPT_EXACT_WAKEUPS }
#define CLI_OPT_SOURCE		{ "source", required_argument, NULL, OPT_SOURCE }
#define CLI_OPT_EMULATE		{ "emulate", required_argument, NULL, OPT_EMULATE }
#define CLI_OPT_ENERGY_MODEL	{ "energy-model", required_argument, NULL, OPT_ENERGY_MODEL }
/* --pelt-trace and its selection (-p, -c: each command's own letters). */
#define CLI_OPT_PELT_TRACE	{ "pelt-trace", no_argument, NULL, OPT_PELT_TRACE }
#define CLI_OPT_PID		{ "pid", required_argument, NULL, 'p' }
#define CLI_OPT_COMM		{ "comm", required_argument, NULL, 'c' }
#define CLI_OPT_PELT_CPUS	{ "pelt-cpus", required_argument, NULL, OPT_PELT_CPUS }
#define CLI_OPT_PELT_CGROUP	{ "pelt-cgroup", required_argument, NULL, OPT_PELT_CGROUP }
/* All four, for a command whose -p and -c only select what is traced. */
#define CLI_OPT_PELT \
	CLI_OPT_PELT_TRACE, CLI_OPT_PID, CLI_OPT_COMM, CLI_OPT_PELT_CPUS
/* --atrace: the selection's, CPUs' and clusters' counters into trace_marker. */
#define CLI_OPT_ATRACE		{ "atrace", no_argument, NULL, OPT_ATRACE }
#define CLI_USAGE_ATRACE \
"      --atrace           write each sample's counters (the tasks of -p/-c,\n" \
"                         every CPU and cluster) into trace_marker as atrace\n" \
"                         counters: a Perfetto or trace-cmd capture taken\n" \
"                         meanwhile shows them (docs/perfetto.md)\n"

#define CLI_USAGE_TOPOLOGY \
"      --topology SPEC    clusters as NAME:CPULIST[@CAPACITY],..., or @FILE\n" \
"                         e.g. LITTLE:0-3,big:4-7@1024\n"
#define CLI_USAGE_SYSFS_ROOT \
"      --sysfs-root DIR   read sysfs from DIR instead of /sys\n"
#define CLI_USAGE_EXACT_WAKEUPS \
"      --exact-wakeups    count every sched_waking instead of the sleeps that\n" \
"                         ended, and preemptions: runs programs on every\n" \
"                         switch and wakeup (53 ns per switch, 78 per wakeup;\n" \
"                         docs/performance.md)\n"
#define CLI_USAGE_SOURCE \
"      --source SOURCE    auto (default: BPF, else tracefs), bpf, or tracefs\n" \
"                         (sched events and schedtop's own PELT estimate:\n" \
"                         traces every switch and wakeup, 1.3x on a pinned\n" \
"                         pipe benchmark, 7% of a core at 400k switches/s;\n" \
"                         docs/performance.md)\n"
#define CLI_USAGE_EMULATE \
"      --emulate SPEC     big.LITTLE while it runs, e.g. LITTLE:0@50%,big:1\n" \
"                         (schedtop emulate --help; gives the topology)\n"

#define CLI_USAGE_ENERGY_MODEL \
"      --energy-model FILE  OPPs as CLUSTER KHZ MW lines (CLUSTER idle MW for\n" \
"                         an idle CPU); default: the kernel's, from debugfs\n"

#define CLI_USAGE_PELT_SELECT \
"  -p, --pid PID[,PID]    the tasks --pelt-trace traces (thread or process id,\n" \
"                         at most 64)\n" \
"  -c, --comm COMM        the tasks --pelt-trace traces, by exact name\n" \
"      --pelt-cpus LIST   CPUs whose cfs, rt, dl and irq updates are traced\n"

/* What those options were given as. */
struct cli_session_args {
	const char *topology;	/* a spec or @FILE, as given */
	const char *sysfs_root;
	const char *emulate;	/* an emulation SPEC */
	const char *energy_model;	/* a model file (energy_opt_load()) */
	enum schedstat_source source;
	bool exact_wakeups;
};

/*
 * Takes getopt's @c and @arg into @a if @c is one of the options above.
 * Returns 0, -ENOENT if @c is none of them, or -EINVAL after saying what is
 * wrong with the value (@cmd as in cli_usage_error()).
 */
int cli_session_arg(const char *cmd, int c, const char *arg,
		    struct cli_session_args *a);
/*
 * @a into @so: the --topology spec read (from @FILE too; *@spec is it, to
 * free), the other values copied; --emulate's topology is the caller's to
 * set. 0, or -EINVAL after saying what is wrong.
 */
int cli_session_args_apply(const char *cmd, const struct cli_session_args *a,
			   struct schedstat_session_opts *so, char **spec);

/* What --pelt-trace and its selection were given as. */
struct cli_pelt_args {
	bool trace;		/* --pelt-trace */
	int *pids;		/* -p, sorted (parse_pid_list()); free() it */
	size_t nr_pids;
	const char *comm;	/* -c */
	const char *cpus;	/* --pelt-cpus LIST */
	/* --pelt-cgroup DIR: csv only (recordings keep no group entity) */
	const char *cgroup;
	/* --atrace: -p and -c select its tasks too */
	bool atrace;
};

/*
 * Takes getopt's @c and @arg into @a if @c is --pelt-trace, -p, -c,
 * --pelt-cpus or --pelt-cgroup. Returns 0, -ENOENT if @c is none of them, or -EINVAL after
 * saying what is wrong with the value (@cmd as in cli_usage_error()).
 */
int cli_pelt_arg(const char *cmd, int c, const char *arg, struct cli_pelt_args *a);
/*
 * After the options: a selection without --pelt-trace, --pelt-trace
 * without one, more pids than the kernel side takes. 0, or -EINVAL after
 * saying which. (csv, where -p and -c also filter rows, checks the first
 * itself and calls this with --pelt-trace on.)
 */
int cli_pelt_args_check(const char *cmd, const struct cli_pelt_args *a);
/*
 * The default: of a command's option switch: @c (getopt's, with optarg)
 * taken into @pelt or @session (either may be NULL) by cli_pelt_arg() and
 * cli_session_arg(), else an unknown option or a missing value. 0 when
 * taken, or -EINVAL after saying what is wrong (the command exits with
 * EXIT_USAGE).
 */
int cli_shared_option(const char *cmd, int c, char **argv,
		      struct cli_session_args *session, struct cli_pelt_args *pelt);
/* @a into @so with @on_pelt and @ctx, if --pelt-trace was given. */
void cli_pelt_args_apply(const struct cli_pelt_args *a,
			 struct schedstat_session_opts *so,
			 schedstat_pelt_fn on_pelt, void *ctx);

/* The --source values, indexed by enum schedstat_source. */
extern const char *const cli_source_names[];
extern const size_t cli_nr_source_names;
/* "auto", "bpf" or "tracefs"; -EINVAL otherwise. */
int cli_parse_source(const char *arg, enum schedstat_source *out);

/* The --pelt-scheme values, indexed by enum schedstat_pelt_scheme. */
extern const char *const cli_pelt_scheme_names[];
extern const size_t cli_nr_pelt_scheme_names;
/* "auto", "5.0" or "4.x"; -EINVAL otherwise. */
int cli_parse_pelt_scheme(const char *arg, enum schedstat_pelt_scheme *out);

/*
 * Opens a session with @opts (the caller's choices; logging is filled in
 * here). The caller reports a failure: the live view must first give the
 * terminal back.
 */
int cli_session_open(struct schedstat_session **s,
		     struct schedstat_session_opts *opts);

extern const char schedtop_usage[];

/*
 * The subcommands (commands/commands.c): what runs them and which options they take, so
 * that the bash completion (completion.c) is generated from what getopt
 * really accepts. @opts may be NULL: no options are completed then.
 */
struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct option *opts;
};

extern const struct cli_command cli_commands[];
extern const size_t cli_nr_commands;

/* Each command's getopt_long() table, ending in an all-zero entry. */
extern const struct option live_long_opts[];
extern const struct option csv_long_opts[];
extern const struct option topology_long_opts[];
extern const struct option record_long_opts[];
extern const struct option report_long_opts[];
extern const struct option convert_long_opts[];
extern const struct option replay_long_opts[];
extern const struct option hotplug_long_opts[];
extern const struct option emulate_long_opts[];
extern const struct option energy_long_opts[];
extern const struct option workload_long_opts[];

/* The bash completion script for schedtop, on stdout. */
int cli_write_bash_completion(void);
/*
 * The library's tables as the docs show them, on stdout (doc_tables.c):
 * the tracepoints and the signals (docs/signals.md), the fields a
 * recording stores (docs/record-format.md).
 */
int cli_list_tracepoints(void);
int cli_list_signals(void);
int cli_list_fields(void);

int cmd_live(int argc, char **argv);
int cmd_csv(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_hotplug(int argc, char **argv);
int cmd_emulate(int argc, char **argv);
int cmd_energy(int argc, char **argv);
int cmd_workload(int argc, char **argv);

#endif /* SCHEDTOP_CLI_H */
