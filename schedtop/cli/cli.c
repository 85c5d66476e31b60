// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "cli.h"

struct global_opts global_opts;

const char schedtop_usage[] =
"Usage: schedtop [OPTIONS]               the live view\n"
"       schedtop [-v] COMMAND [OPTIONS]\n"
"Show what the Linux scheduler thinks of every task and CPU, by cluster.\n"
"\n"
"Commands:\n"
"  csv        sample headlessly and write CSV (schedtop csv --help)\n"
"  record     sample headlessly into a recording file\n"
"  replay     show a recording in the live view\n"
"  report     summarize a recording\n"
"  convert    turn a recording into a Perfetto / chrome://tracing trace\n"
"  topology   print the CPU clusters schedtop detects\n"
"  hotplug    time taking a CPU out of service and back (cpuhp states)\n"
"  emulate    make this machine behave like a big.LITTLE one for a while\n"
"  energy     print the energy model the power estimate uses\n"
"  workload   run a mobile workload and score it (power, deadlines)\n"
"\n"
"Live view options:\n"
"  -i, --interval MS      sample interval in milliseconds (default 1000)\n"
CLI_USAGE_TOPOLOGY
CLI_USAGE_SYSFS_ROOT
"  -f, --filter TEXT      start filtered by name or pid\n"
CLI_USAGE_EXACT_WAKEUPS
"      --record FILE      also record the session, for schedtop replay FILE\n"
CLI_USAGE_SOURCE
CLI_USAGE_EMULATE
CLI_USAGE_ENERGY_MODEL
"      --pelt-trace       also take every PELT update of the tasks of -p/-c\n"
"                         (and the CPUs of --pelt-cpus) through BPF ring\n"
"                         buffers: the task detail (Enter) draws the last 2 s\n"
"                         of them, each update, with its time axis\n"
CLI_USAGE_PELT_SELECT
CLI_USAGE_ATRACE
"  -v, --verbose          show libbpf debug output\n"
"  -V, --version          print the version and exit\n"
"      --list-keys[=man]  print the live view's keys (troff for the man page)\n"
"  -h, --help             show this help\n"
"\n"
"Keys in the live view: h or F1. Needs root (or CAP_BPF and CAP_PERFMON)\n"
"and a kernel with BTF, or else tracefs (--source=tracefs: PELT values are\n"
"then schedtop's estimate). See schedtop(1) and docs/ for what each number means.\n";

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("schedtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("schedtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'schedtop %s%s--help'.\n", cmd ? cmd : "",
		cmd ? " " : "");
	return EXIT_USAGE;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value",
				       argv[optind - 1]);
	/* Long options report their val (>= 256 for ours) in optopt. */
	if (optopt > 0 && optopt < 128 && isalnum(optopt))
		return cli_usage_error(cmd, "unknown option '-%c'", optopt);
	return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

char *cli_topology_spec(const char *arg)
{
	char line[512], *spec = NULL;
	size_t len = 0;
	FILE *f;

	if (arg[0] != '@')
		return strdup(arg);
	f = fopen(arg + 1, "r");
	if (!f) {
		cli_error("cannot read topology file %s: %s", arg + 1, strerror(errno));
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *p = line, *end;
		size_t n;
		char *grown;

		if (hash)
			*hash = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		end = p + strlen(p);
		while (end > p && (end[-1] == '\n' || end[-1] == ' ' ||
				   end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		n = end - p;
		if (!n)
			continue;
		grown = realloc(spec, len + n + 2);
		if (!grown) {
			free(spec);
			fclose(f);
			errno = ENOMEM;
			return NULL;
		}
		spec = grown;
		if (len)
			spec[len++] = ',';
		memcpy(spec + len, p, n);
		len += n;
		spec[len] = '\0';
	}
	fclose(f);
	if (!spec) {
		cli_error("topology file %s names no cluster", arg + 1);
		errno = EINVAL;
	}
	return spec;
}

int parse_ulong(const char *s, unsigned long min, unsigned long max,
		unsigned long *out)
{
	char *end;
	unsigned long v;

	/* strtoul would take leading blanks and signs too. */
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

void pelt_summary(unsigned long taken, uint64_t dropped)
{
	fprintf(stderr, "schedtop: %lu PELT updates, %" PRIu64 " lost%s\n", taken,
		dropped, dropped ? " (ring buffer full: trace fewer tasks or CPUs)" : "");
}

unsigned long samples_for(double seconds, unsigned long interval_ms)
{
	double n = seconds * 1000.0 / interval_ms;

	return n < 1 ? 1 : (unsigned long)(n + 0.5);
}

int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	/* NaN fails both comparisons. */
	if (errno || *end || !(v > 0) || !(v <= 31536000))
		return -EINVAL;
	*out = v;
	return 0;
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

bool pid_list_has(const int *pids, size_t nr, int pid)
{
	return bsearch(&pid, pids, nr, sizeof(*pids), cmp_int) != NULL;
}

int parse_pid_list(const char *s, int **pids, size_t *nr)
{
	char *copy, *tok, *save = NULL;
	int *out = NULL;
	size_t n = 0;
	int err = -EINVAL;

	if (!s || !*s)
		return -EINVAL;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	/* strtok would skip empty items; a ",," must be an error. */
	if (s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		goto cleanup;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long v;
		int *grown;

		if (parse_ulong(tok, 1, 4194304, &v))
			goto cleanup;
		grown = realloc(out, (n + 1) * sizeof(*out));
		if (!grown) {
			err = -ENOMEM;
			goto cleanup;
		}
		out = grown;
		out[n++] = v;
	}
	qsort(out, n, sizeof(*out), cmp_int);
	*pids = out;
	*nr = n;
	out = NULL;
	err = 0;
cleanup:
	free(out);
	free(copy);
	return err;
}

static void log_libbpf(int level, const char *msg, void *ctx)
{
	/* libbpf's messages carry their own "libbpf: " prefix. */
	fputs(msg, stderr);
}

const char *const cli_source_names[] = {
	[SCHEDSTAT_SOURCE_AUTO] = "auto",
	[SCHEDSTAT_SOURCE_BPF] = "bpf",
	[SCHEDSTAT_SOURCE_TRACEFS] = "tracefs",
};
const size_t cli_nr_source_names = ARRAY_SIZE(cli_source_names);

int cli_parse_source(const char *arg, enum schedstat_source *out)
{
	for (size_t i = 0; i < cli_nr_source_names; i++) {
		if (!strcmp(arg, cli_source_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *const cli_pelt_scheme_names[] = {
	[SCHEDSTAT_PELT_AUTO] = "auto",
	[SCHEDSTAT_PELT_SCALED_CLOCK] = "5.0",
	[SCHEDSTAT_PELT_SCALED_CONTRIB] = "4.x",
};
const size_t cli_nr_pelt_scheme_names = ARRAY_SIZE(cli_pelt_scheme_names);

int cli_parse_pelt_scheme(const char *arg, enum schedstat_pelt_scheme *out)
{
	for (size_t i = 0; i < cli_nr_pelt_scheme_names; i++) {
		if (!strcmp(arg, cli_pelt_scheme_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

int cli_session_arg(const char *cmd, int c, const char *arg,
		    struct cli_session_args *a)
{
	switch (c) {
	case OPT_TOPOLOGY:
		a->topology = arg;
		return 0;
	case OPT_SYSFS_ROOT:
		a->sysfs_root = arg;
		return 0;
	case OPT_EXACT_WAKEUPS:
		a->exact_wakeups = true;
		return 0;
	case OPT_SOURCE:
		if (cli_parse_source(arg, &a->source)) {
			cli_usage_error(cmd, "unknown source '%s': auto, bpf or tracefs", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_EMULATE:
		a->emulate = arg;
		return 0;
	case OPT_ENERGY_MODEL:
		a->energy_model = arg;
		return 0;
	}
	return -ENOENT;
}

int cli_pelt_arg(const char *cmd, int c, const char *arg, struct cli_pelt_args *a)
{
	switch (c) {
	case OPT_PELT_TRACE:
		a->trace = true;
		return 0;
	case 'p':
		free(a->pids);
		a->pids = NULL;
		if (parse_pid_list(arg, &a->pids, &a->nr_pids)) {
			cli_usage_error(cmd, "bad pid list '%s': e.g. 1234 or 1234,5678", arg);
			return -EINVAL;
		}
		return 0;
	case 'c':
		if (!*arg || strlen(arg) >= SCHEDSTAT_COMM_LEN) {
			cli_usage_error(cmd, "bad comm '%s': 1 to 15 characters", arg);
			return -EINVAL;
		}
		a->comm = arg;
		return 0;
	case OPT_PELT_CPUS:
		a->cpus = arg;
		return 0;
	case OPT_PELT_CGROUP:
		a->cgroup = arg;
		return 0;
	case OPT_ATRACE:
		a->atrace = true;
		return 0;
	}
	return -ENOENT;
}

int cli_shared_option(const char *cmd, int c, char **argv,
		      struct cli_session_args *session, struct cli_pelt_args *pelt)
{
	int err = -ENOENT;

	if (pelt)
		err = cli_pelt_arg(cmd, c, optarg, pelt);
	if (err == -ENOENT && session)
		err = cli_session_arg(cmd, c, optarg, session);
	if (err == -ENOENT) {
		cli_bad_option(cmd, c, argv);
		return -EINVAL;
	}
	return err;
}

int cli_pelt_args_check(const char *cmd, const struct cli_pelt_args *a)
{
	if ((a->pids || a->comm) && !a->trace && !a->atrace) {
		cli_usage_error(cmd, "-p and -c select what --pelt-trace traces or --atrace writes: add one");
		return -EINVAL;
	}
	if (a->cpus && !a->trace) {
		cli_usage_error(cmd, "--pelt-cpus selects what --pelt-trace traces: add --pelt-trace");
		return -EINVAL;
	}
	if (a->trace && !a->pids && !a->comm && !a->cpus && !a->cgroup) {
		/* Only csv takes --pelt-cgroup: recordings keep no group entity. */
		cli_usage_error(cmd, "--pelt-trace traces what you name: add -p PID, -c COMM%s",
				strcmp(cmd, "csv") ? " or --pelt-cpus LIST" :
				", --pelt-cpus LIST or --pelt-cgroup DIR");
		return -EINVAL;
	}
	if (a->nr_pids > SCHEDSTAT_PELT_MAX_PIDS) {
		cli_usage_error(cmd, "--pelt-trace takes at most %d pids", SCHEDSTAT_PELT_MAX_PIDS);
		return -EINVAL;
	}
	return 0;
}

void cli_pelt_args_apply(const struct cli_pelt_args *a,
			 struct schedstat_session_opts *so,
			 schedstat_pelt_fn on_pelt, void *ctx)
{
	if (!a->trace)
		return;
	so->pelt_trace = true;
	so->pelt_pids = a->pids;
	so->nr_pelt_pids = a->nr_pids;
	so->pelt_comm = a->comm;
	so->pelt_cpus = a->cpus;
	so->pelt_cgroup = a->cgroup;
	so->on_pelt = on_pelt;
	so->pelt_ctx = ctx;
}

int cli_session_args_apply(const char *cmd, const struct cli_session_args *a,
			   struct schedstat_session_opts *so, char **spec)
{
	*spec = NULL;
	if (a->emulate && a->topology) {
		cli_usage_error(cmd, "--emulate gives the topology: no --topology with it");
		return -EINVAL;
	}
	if (a->topology) {
		*spec = cli_topology_spec(a->topology);
		if (!*spec)
			return -EINVAL;
	}
	so->topology = *spec;
	so->sysfs_root = a->sysfs_root;
	so->exact_wakeups = a->exact_wakeups;
	so->source = a->source;
	return 0;
}

void cli_block_ending_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

int cli_session_open(struct schedstat_session **s,
		     struct schedstat_session_opts *opts)
{
	cli_block_ending_signals();
	opts->sz = sizeof(*opts);
	/* One clear line on failure by default; libbpf's own story with -v. */
	opts->log = global_opts.verbose ? log_libbpf : NULL;
	opts->log_debug = global_opts.verbose;
	return schedstat_session_open(s, opts);
}
