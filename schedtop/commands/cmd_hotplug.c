// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop hotplug: how long taking a CPU out of service and back takes,
 * against the mini-summit's 5 ms goal. Either by CPU hotplug, broken down
 * by cpuhp state, or by evacuating it (affinities and IRQs) and restoring.
 * Signals come through the event loop, so every way out (q, Ctrl-C,
 * SIGTERM, an error) ends the operation under way and then puts the CPU and
 * every affinity back (schedstat_cpu_exit_close()).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array_size.h"
#include "cli.h"
#include "csv_format.h"
#include "loop.h"

/* The seed's goal for evacuating a CPU and for restarting it. */
#define GOAL_MS		5.0
/* Between operations, so one does not run into the last one's aftermath. */
#define PAUSE_MS	100
/* Rows of the human table before the rest are summed up. */
#define TOP_STEPS	12

enum via { VIA_HOTPLUG, VIA_EVACUATE };

static const char *const via_names[] = {
	[VIA_HOTPLUG] = "hotplug",
	[VIA_EVACUATE] = "evacuate",
};

/* What an operation is called, by way and direction (out, back). */
static const char *const op_names[][2] = {
	[VIA_HOTPLUG] = { "offline", "online" },
	[VIA_EVACUATE] = { "evacuate", "restore" },
};

static const char hotplug_usage[] =
"Usage: schedtop hotplug CPU [-n N] [--csv] [--via hotplug|evacuate]\n"
"       schedtop hotplug --restore\n"
"Take CPU out of service and back N times and time each operation, against\n"
"the 5 ms goal for evacuating a CPU and for restarting it.\n"
"\n"
"  -n, --cycles N         out and back N times (default 5)\n"
"      --via WAY          hotplug (default): offline and online through sysfs,\n"
"                         timed per cpuhp state from the cpuhp tracepoints;\n"
"                         evacuate: every movable task's affinity, every\n"
"                         cpuset that lists the CPU and every IRQ's affinity\n"
"                         leave it, timed until none of those tasks runs\n"
"                         there, then all are restored exactly\n"
"      --csv              CSV with header cycle,op,state,ms: a row per state\n"
"                         and one with state \"total\" per operation\n"
"      --restore          put back what a killed schedtop hotplug changed\n"
"                         (the next run does it first too), then exit\n"
"  -h, --help             show this help\n"
"\n"
"q then Enter, Ctrl-C or SIGTERM stop after the operation under way; the CPU\n"
"is left as it was found and every affinity is put back. Each change is\n"
"written first to /run/schedtop/cpu-exit.state, so that after a SIGKILL\n"
"--restore or the next run puts it back. Needs root and tracefs.\n";

enum { OPT_CSV = 256, OPT_VIA, OPT_RESTORE };

const struct option hotplug_long_opts[] = {
	{ "cycles", required_argument, NULL, 'n' },
	{ "via", required_argument, NULL, OPT_VIA },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "restore", no_argument, NULL, OPT_RESTORE },
	{ "help", no_argument, NULL, 'h' },
	{}
};

struct hotplug_run {
	struct loop *loop;
	struct schedstat_cpu_exit *x;
	int cpu;
	enum via via;
	bool csv;
	unsigned long cycles;
	size_t nr_ops;			/* done */
	struct schedstat_exit_op *ops;	/* 2 * cycles: out, back, out, ... */
	int err;
};

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

static int write_csv_op(const struct hotplug_run *r, size_t k)
{
	const struct schedstat_exit_op *op = &r->ops[k];
	const char *name = op_names[r->via][op->back];
	unsigned long cycle = k / 2 + 1;

	for (size_t i = 0; i < op->nr_steps; i++) {
		printf("%lu,%s,", cycle, name);
		csv_field(stdout, op->steps[i].name);
		printf(",%.3f\r\n", ms(op->steps[i].ns));
	}
	printf("%lu,%s,total,%.3f\r\n", cycle, name, ms(op->total_ns));
	return fflush(stdout) ? -errno : 0;
}

static int do_op(struct hotplug_run *r)
{
	struct schedstat_exit_op *op = &r->ops[r->nr_ops];
	bool back = r->nr_ops % 2;
	int err;

	if (r->via == VIA_HOTPLUG)
		err = schedstat_cpu_exit_hotplug(r->x, back, op);
	else if (back)
		err = schedstat_cpu_exit_restore(r->x, op);
	else
		err = schedstat_cpu_exit_evacuate(r->x, op);
	if (err) {
		cli_error("cpu%d %s: %s", r->cpu, op_names[r->via][back],
			  schedstat_strerror(err));
		schedstat_exit_op_clear(op);
		return err;
	}
	r->nr_ops++;
	if (r->csv)
		return write_csv_op(r, r->nr_ops - 1);
	fprintf(stderr, "cycle %lu: %s %.2f ms\n", (r->nr_ops + 1) / 2,
		op_names[r->via][back], ms(op->total_ns));
	return 0;
}

static int on_tick(void *ctx)
{
	struct hotplug_run *r = ctx;
	int err;

	err = do_op(r);
	if (err)
		return err;
	if (r->nr_ops == 2 * r->cycles)
		return LOOP_STOP;
	/*
	 * The pause counts from the end of this operation: the periodic
	 * timer may have expired while it ran, and the next one would then
	 * start at once (and a signal between the two find it under way).
	 */
	return loop_set_timer(r->loop, PAUSE_MS, PAUSE_MS);
}

static int on_signal(void *ctx, int sig)
{
	return LOOP_STOP;
}

/* "q" and Enter on a terminal: stop, as a signal would. */
static int on_ready(void *ctx, int fd)
{
	char buf[64];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n <= 0)
		return LOOP_STOP;	/* stdin closed: nobody to stop us then */
	return memchr(buf, 'q', n) ? LOOP_STOP : 0;
}

/* One step's (or the total's, @name NULL) median and max over the ops of
 * one direction; a step absent from an op counts as 0 there. */
struct step_stats {
	const char *name;
	double med[2], max[2];
	bool seen[2];
};

static void stats_of(const struct hotplug_run *r, const char *name,
		     struct step_stats *s)
{
	double *v = calloc(r->nr_ops + 1, sizeof(*v));

	s->name = name;
	for (int back = 0; back < 2; back++) {
		size_t n = 0;

		for (size_t k = back; k < r->nr_ops; k += 2) {
			const struct schedstat_exit_op *op = &r->ops[k];
			uint64_t ns = name ? 0 : op->total_ns;

			for (size_t i = 0; name && i < op->nr_steps; i++) {
				if (!strcmp(op->steps[i].name, name)) {
					ns += op->steps[i].ns;
					s->seen[back] = true;
				}
			}
			if (v)
				v[n++] = ms(ns);
		}
		s->med[back] = s->max[back] = 0;
		if (!v || !n)
			continue;
		qsort(v, n, sizeof(*v), cmp_double);
		s->med[back] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
		s->max[back] = v[n - 1];
		if (!name)
			s->seen[back] = true;
	}
	free(v);
}

static int cmp_stats(const void *a, const void *b)
{
	const struct step_stats *x = a, *y = b;
	double kx = x->med[0] + x->med[1], ky = y->med[0] + y->med[1];

	return (kx < ky) - (kx > ky);
}

static void print_cell(const struct step_stats *s, int back)
{
	if (s->seen[back])
		printf("  %8.3f %8.3f", s->med[back], s->max[back]);
	else
		printf("  %8s %8s", "-", "-");
}

static const char *verdict(double med, double max)
{
	return max <= GOAL_MS ? "within" : med <= GOAL_MS ? "median within" : "over";
}

/* Medians and maxima per step, both directions side by side. */
static void print_summary(const struct hotplug_run *r)
{
	struct step_stats total = {}, *rows = NULL, rest = { .name = NULL };
	size_t nr = 0, cycles = r->nr_ops / 2 + r->nr_ops % 2;

	if (!r->nr_ops)
		return;
	for (size_t k = 0; k < r->nr_ops; k++) {
		const struct schedstat_exit_op *op = &r->ops[k];

		for (size_t i = 0; i < op->nr_steps; i++) {
			bool known = false;

			for (size_t j = 0; j < nr && !known; j++)
				known = !strcmp(rows[j].name, op->steps[i].name);
			if (known)
				continue;
			struct step_stats *grown = realloc(rows, (nr + 1) * sizeof(*rows));

			if (!grown)
				break;
			rows = grown;
			memset(&rows[nr], 0, sizeof(rows[nr]));
			rows[nr++].name = op->steps[i].name;
		}
	}
	for (size_t j = 0; j < nr; j++)
		stats_of(r, rows[j].name, &rows[j]);
	qsort(rows, nr, sizeof(*rows), cmp_stats);
	stats_of(r, NULL, &total);
	printf("cpu%d by %s, %zu cycle%s; ms, median and max per operation\n",
	       r->cpu, via_names[r->via], cycles, cycles == 1 ? "" : "s");
	printf("%-34s  %17s  %17s\n", "", op_names[r->via][0], op_names[r->via][1]);
	printf("%-34s  %8s %8s  %8s %8s\n", "STEP", "median", "max", "median", "max");
	printf("%-34s", "total");
	print_cell(&total, 0);
	print_cell(&total, 1);
	putchar('\n');
	for (size_t j = 0; j < nr; j++) {
		if (j < TOP_STEPS) {
			printf("%-34.34s", rows[j].name);
			print_cell(&rows[j], 0);
			print_cell(&rows[j], 1);
			putchar('\n');
			continue;
		}
		/* The long tail: sums of medians and of maxima, roughly. */
		for (int b = 0; b < 2; b++) {
			rest.med[b] += rows[j].med[b];
			rest.max[b] += rows[j].max[b];
			rest.seen[b] |= rows[j].seen[b];
		}
	}
	if (nr > TOP_STEPS) {
		char label[48];

		snprintf(label, sizeof(label), "(%zu other steps, sums)", nr - TOP_STEPS);
		printf("%-34s", label);
		print_cell(&rest, 0);
		print_cell(&rest, 1);
		putchar('\n');
	}
	for (int b = 0; b < 2; b++)
		if (total.seen[b])
			printf("%s: %s the %.0f ms goal (median %.2f ms, max %.2f ms)\n",
			       op_names[r->via][b],
			       verdict(total.med[b], total.max[b]), GOAL_MS,
			       total.med[b], total.max[b]);
	if (r->via == VIA_EVACUATE) {
		const struct schedstat_exit_op *op = &r->ops[0];

		printf("first evacuation: %u tasks, %u cpusets and %u IRQs moved; "
		       "%u tasks, %u cpusets and %u IRQs stay (per-CPU or refused); "
		       "%u movable tasks ran there afterwards\n", op->tasks_moved,
		       op->cpusets_moved, op->irqs_moved, op->tasks_pinned,
		       op->cpusets_pinned, op->irqs_pinned, op->tasks_left);
	}
	free(rows);
}

static int parse_via(const char *arg, enum via *via)
{
	for (size_t i = 0; i < ARRAY_SIZE(via_names); i++) {
		if (!strcmp(arg, via_names[i])) {
			*via = i;
			return 0;
		}
	}
	return -EINVAL;
}

static void say_busy(void)
{
	cli_error("another schedtop hotplug is running (it holds %s): "
		  "wait for it or stop it", schedstat_cpu_exit_state_path());
}

/* The last session's state file, and what to tell when it cannot be. */
static int recover(void)
{
	unsigned int n;
	int err = schedstat_cpu_exit_recover(&n);

	if (err == -EBUSY)
		say_busy();
	else if (err)
		cli_error("could not put back all that %s lists: %s; fix it by "
			  "hand, then remove the file", schedstat_cpu_exit_state_path(),
			  schedstat_strerror(err));
	else if (n)
		fprintf(stderr, "schedtop: put back %u things a killed schedtop "
			"hotplug had changed (%s)\n", n, schedstat_cpu_exit_state_path());
	return err;
}

/* Options into @r; -1 to go on, or the exit code (--restore's too). */
static int parse_hotplug_opts(int argc, char **argv, struct hotplug_run *r)
{
	unsigned long v;
	bool restore = false;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:h", hotplug_long_opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_ulong(optarg, 1, 100000, &r->cycles))
				return cli_usage_error("hotplug", "bad --cycles '%s': "
						       "a count from 1", optarg);
			break;
		case OPT_VIA:
			if (parse_via(optarg, &r->via))
				return cli_usage_error("hotplug", "bad --via '%s': "
						       "hotplug or evacuate", optarg);
			break;
		case OPT_CSV:
			r->csv = true;
			break;
		case OPT_RESTORE:
			restore = true;
			break;
		case 'h':
			fputs(hotplug_usage, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("hotplug", c, argv);
		}
	}
	if (restore) {
		if (optind < argc)
			return cli_usage_error("hotplug", "--restore takes no CPU");
		return recover() ? EXIT_FAIL : EXIT_OK;
	}
	if (optind >= argc)
		return cli_usage_error("hotplug", "which CPU? e.g. schedtop hotplug 1");
	if (parse_ulong(argv[optind], 0, SCHEDSTAT_MAX_CPUS - 1, &v))
		return cli_usage_error("hotplug", "bad CPU '%s': a CPU number",
				       argv[optind]);
	if (optind + 1 < argc)
		return cli_usage_error("hotplug", "unexpected argument '%s'",
				       argv[optind + 1]);
	r->cpu = v;
	return -1;
}

int cmd_hotplug(int argc, char **argv)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, 0 };
	static const struct loop_ops ops = {
		.signal = on_signal, .tick = on_tick, .ready = on_ready,
	};
	struct hotplug_run r = { .cycles = 5 };
	struct loop l = LOOP_INIT;
	int fds[2] = { -1, -1 };
	int err, ret;

	ret = parse_hotplug_opts(argc, argv, &r);
	if (ret >= 0)
		return ret;
	ret = EXIT_FAIL;
	r.ops = calloc(2 * r.cycles, sizeof(*r.ops));
	if (!r.ops) {
		cli_error("out of memory");
		goto cleanup;
	}
	/* Signals are blocked from here: they end the loop, not the process. */
	if (isatty(STDIN_FILENO))
		fds[0] = STDIN_FILENO;
	r.loop = &l;
	err = loop_open(&l, signals, fds, PAUSE_MS);
	if (err) {
		cli_error("cannot set up the event loop: %s", strerror(-err));
		goto cleanup;
	}
	/* Said here; open recovers too, finding nothing then. */
	if (recover())
		goto cleanup;
	err = schedstat_cpu_exit_open(&r.x, r.cpu);
	if (err == -EBUSY)
		say_busy();
	else if (err)
		cli_error("cpu%d: %s", r.cpu, schedstat_strerror(err));
	if (err)
		goto cleanup;
	if (r.csv) {
		printf("cycle,op,state,ms\r\n");
		fflush(stdout);
	}
	/* An operation's error is reported where it happened (do_op). */
	err = loop_run(&l, &ops, &r);
	if (!err)
		ret = EXIT_OK;
	/* Before close: the step names are the session's. */
	if (!r.csv)
		print_summary(&r);
cleanup:
	if (r.x) {
		err = schedstat_cpu_exit_close(r.x);
		if (err) {
			cli_error("cpu%d: putting it back as found: %s", r.cpu,
				  schedstat_strerror(err));
			ret = EXIT_FAIL;
		}
	}
	loop_close(&l);
	for (size_t k = 0; k < r.nr_ops; k++)
		schedstat_exit_op_clear(&r.ops[k]);
	free(r.ops);
	return ret;
}
