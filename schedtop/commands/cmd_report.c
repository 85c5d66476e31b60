// SPDX-License-Identifier: GPL-2.0
/*
 * schedtop report: the summary of a recording a person reads first. One
 * pass over the samples gathers per-cluster utilization (mean and p95), time
 * overutilized, per-task util and run time, migrations, hotplug and drops.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "recording.h"
#include "workload.h"

static const char report_usage[] =
"Usage: schedtop report [-n N] [--topology SPEC] [--pelt-scheme S] FILE\n"
"Summarize a recording or a trace (trace.dat, Perfetto): clusters, overutilization,\n"
"busiest tasks, migrations, hotplug per cpuhp state, dropped events and anything\n"
"lost.\n"
"\n"
"  -n, --top N            tasks listed per ranking (default 10)\n"
INPUT_OPTS_USAGE
"  -h, --help             show this help\n";

const struct option report_long_opts[] = {
	{ "top", required_argument, NULL, 'n' },
	INPUT_LONG_OPTS,
	{ "help", no_argument, NULL, 'h' },
	{}
};

struct task_sum {
	int32_t pid, tgid;
	char comm[SCHEDSTAT_COMM_LEN];
	uint64_t util_sum, runnable_sum;
	uint32_t util_max;
	uint64_t samples;
	uint64_t run_ns;
	uint32_t up, down;
};

struct cluster_sum {
	double *util;		/* util_pct per sample */
	size_t cap;
	double busy_sum;
	size_t n;
	size_t busy_n;		/* samples with busy_pct available */
	uint32_t up, down;
	uint32_t misfit_max;
};

struct hotplug_op {
	uint64_t ts_ns;
	int32_t cpu;
	char to[8];		/* "online", "offline"; "" in older files */
	uint32_t ops;
	uint64_t ns;
};

struct report {
	const struct schedstat_topology *topo;
	int nr_clusters;
	struct cluster_sum *clusters;
	struct task_sum *tasks;		/* in the order first seen */
	size_t cap_tasks, nr_tasks;
	struct schedstat_hash *task_index;	/* pid -> index into tasks */
	struct hotplug_op *hotplug;
	size_t nr_hotplug, cap_hotplug;
	uint64_t ou_ns;
	bool ou_avail;
	/*
	 * SCHEDSTAT_AVAIL_* of any sample: without TASK_TIME or ACTIVITY
	 * (schedtop's own export read back) run time, moves and drops are
	 * not known, shown "-".
	 */
	uint32_t avail;
	uint64_t dropped;
	uint64_t cross_events;
	size_t samples, bad;
	uint64_t span_ns;
	/* A recording of schedtop workload: its score, as the run printed it. */
	const char *wl_name;
	struct schedstat_workload_constraint *cons;	/* the recording's */
	struct schedstat_workload *builtin;		/* an older recording's */
	struct schedstat_workload_tally *tally;
};

/* The sums of @pid, new and zeroed the first time it is seen; NULL: no memory. */
static struct task_sum *task_sum(struct report *r, int32_t pid)
{
	uint64_t i;

	if (!r->task_index && schedstat_hash_new(&r->task_index))
		return NULL;
	if (!schedstat_hash_get(r->task_index, (uint32_t)pid, &i))
		return &r->tasks[i];
	if (schedstat_array_reserve((void **)&r->tasks, &r->cap_tasks,
				    r->nr_tasks + 1, sizeof(*r->tasks)))
		return NULL;
	if (schedstat_hash_put(r->task_index, (uint32_t)pid, r->nr_tasks))
		return NULL;
	r->tasks[r->nr_tasks] = (struct task_sum){ .pid = pid };
	return &r->tasks[r->nr_tasks++];
}

static int add_task(struct report *r, const struct schedstat_task *t)
{
	struct task_sum *s = task_sum(r, t->pid);

	if (!s)
		return -ENOMEM;
	s->tgid = t->tgid;
	memcpy(s->comm, t->comm, sizeof(s->comm));
	s->util_sum += t->util_avg;
	s->runnable_sum += t->runnable_avg;
	if (t->util_avg > s->util_max)
		s->util_max = t->util_avg;
	s->samples++;
	s->run_ns += t->run_ns;
	s->up += t->up_migrations;
	s->down += t->down_migrations;
	return 0;
}

/* The operation listed last for @cpu, or NULL. */
static struct hotplug_op *last_hotplug(struct report *r, int32_t cpu)
{
	for (size_t i = r->nr_hotplug; i-- > 0;)
		if (r->hotplug[i].cpu == cpu)
			return &r->hotplug[i];
	return NULL;
}

/* A sample's events: a workload's activations, and the others counted. */
static int add_events(struct report *r, const struct schedstat_event *evs,
		      size_t nr_evs)
{
	for (size_t i = 0; i < nr_evs; i++) {
		struct schedstat_workload_activation a;
		int err;

		if (r->tally && schedstat_workload_event_activation(&evs[i], &a)) {
			err = schedstat_workload_tally_activation(r->tally, &a);
			if (err)
				return err;
		} else if (evs[i].type != SCHEDSTAT_EV_ACTIVATION) {
			r->cross_events++;
		}
	}
	return 0;
}

/* Each cluster's migrations, misfits, %busy and %util of one sample. */
static int add_clusters(struct report *r, const struct schedstat_snapshot *snap)
{
	size_t n;
	const struct schedstat_cluster *cl = schedstat_snapshot_clusters(snap, &n);

	for (size_t i = 0; i < n && (int)i < r->nr_clusters; i++) {
		struct cluster_sum *cs = &r->clusters[i];

		cs->up += cl[i].up_migrations;
		cs->down += cl[i].down_migrations;
		if (cl[i].misfit_tasks > cs->misfit_max)
			cs->misfit_max = cl[i].misfit_tasks;
		if (cl[i].avail & SCHEDSTAT_AVAIL_BUSY) {
			cs->busy_sum += cl[i].busy_pct;
			cs->busy_n++;
		}
		/*
		 * Not kept by the kernel: no sample. A damaged value must not
		 * upset the sort for the p95.
		 */
		if (!(cl[i].avail & SCHEDSTAT_AVAIL_CFS) || !isfinite(cl[i].util_pct))
			continue;
		if (schedstat_array_reserve((void **)&cs->util, &cs->cap, cs->n + 1,
					    sizeof(*cs->util)))
			return -ENOMEM;
		cs->util[cs->n++] = cl[i].util_pct;
	}
	if (n && cl[0].avail & SCHEDSTAT_AVAIL_OVERUTILIZED_NS) {
		r->ou_avail = true;
		r->ou_ns += cl[0].overutilized_ns;
	}
	return 0;
}

/* The hotplug operations of one sample's CPUs. */
static int add_hotplug(struct report *r, const struct schedstat_snapshot *snap)
{
	size_t n;
	const struct schedstat_cpu *c = schedstat_snapshot_cpus(snap, &n);

	for (size_t i = 0; i < n; i++) {
		struct hotplug_op *h;

		if (!c[i].hotplug_ops) {
			/* The operation listed last for this CPU went on past
			 * its sample: it took until this one's last step. */
			h = last_hotplug(r, c[i].cpu);
			if (h && c[i].hotplug_to[0])
				h->ns = c[i].hotplug_ns;
			continue;
		}
		if (schedstat_array_reserve((void **)&r->hotplug, &r->cap_hotplug,
					    r->nr_hotplug + 1, sizeof(*r->hotplug)))
			return -ENOMEM;
		h = &r->hotplug[r->nr_hotplug++];
		*h = (struct hotplug_op){
			.ts_ns = schedstat_snapshot_ts_ns(snap), .cpu = c[i].cpu,
			.ops = c[i].hotplug_ops, .ns = c[i].hotplug_ns,
		};
		memcpy(h->to, c[i].hotplug_to, sizeof(h->to));
		h->to[sizeof(h->to) - 1] = '\0';
	}
	return 0;
}

static int add_sample(struct report *r, const struct schedstat_snapshot *snap,
		      const struct schedstat_event *evs, size_t nr_evs)
{
	const struct schedstat_task *t;
	size_t n;
	int err;

	r->dropped = schedstat_snapshot_dropped(snap);
	r->avail |= schedstat_snapshot_avail(snap);
	err = add_events(r, evs, nr_evs);
	if (err)
		return err;
	if (r->tally)
		schedstat_workload_tally_sample(r->tally, snap);
	err = add_clusters(r, snap);
	if (!err)
		err = add_hotplug(r, snap);
	if (err)
		return err;
	t = schedstat_snapshot_tasks(snap, &n);
	for (size_t i = 0; i < n; i++) {
		err = add_task(r, &t[i]);
		if (err)
			return err;
	}
	return 0;
}

/* "12.3%", or "-" where no sample had the value (the kernel keeps none). */
/* @v in @buf (16 bytes) with @decimals, or "-" when @r's samples lack @bit. */
static const char *or_dash(char *buf, const struct report *r, uint32_t bit,
			   int decimals, double v)
{
	if (!(r->avail & bit))
		return "-";
	snprintf(buf, 16, "%.*f", decimals, v);
	return buf;
}

static const char *pct_or_dash(char *buf, size_t n, double v)
{
	if (!n)
		return "-";
	snprintf(buf, 16, "%.1f%%", v);
	return buf;
}

/* Nearest-rank percentile of @n sorted values. */
static double percentile(const double *v, size_t n, double p)
{
	size_t rank = (size_t)(p / 100.0 * n + 0.999999);

	return n ? v[(rank ? rank : 1) - 1] : 0;
}

static int cmp_util(const void *a, const void *b)
{
	const struct task_sum *x = a, *y = b;
	double ux = (double)x->util_sum / x->samples;
	double uy = (double)y->util_sum / y->samples;

	return ux > uy ? -1 : ux < uy;
}

static int cmp_run(const void *a, const void *b)
{
	const struct task_sum *x = a, *y = b;

	return x->run_ns > y->run_ns ? -1 : x->run_ns < y->run_ns;
}

static void print_header(const char *path, struct schedstat_recording *rec,
			 const struct schedstat_recording_info *info, uint64_t span_ns,
			 uint64_t dropped)
{
	const char *real = schedstat_recording_meta(rec, "start_realtime_ns");
	const char *mono = schedstat_recording_meta(rec, "start_monotonic_ns");
	const char *host = schedstat_recording_meta(rec, "host");
	const char *kernel = schedstat_recording_meta(rec, "kernel");
	const char *machine = schedstat_recording_meta(rec, "machine");
	const char *source = schedstat_recording_meta(rec, "source");
	char when[64] = "unknown time", lost[512];

	if (real && mono) {
		/* The first sample's wall-clock time, from the pair of clocks. */
		int64_t off = (int64_t)(info->first_ts_ns - strtoull(mono, NULL, 10));
		time_t t = (strtoull(real, NULL, 10) + off) / 1000000000ULL;
		struct tm tm;

		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	}
	printf("schedtop report: %s\n", path);
	if (source && schedstat_recording_meta(rec, "trace_file"))
		/* A trace file holds no wall-clock time or host name. */
		printf("  recorded   by %s, kernel %s%s%s\n", source,
		       kernel ? kernel : "not named in the file",
		       machine ? ", " : "", machine ? machine : "");
	else
		printf("  recorded   %s on %s (%s), kernel %s\n", when,
		       host ? host : "?", machine ? machine : "?",
		       kernel ? kernel : "?");
	/* From the start of the first interval to the last sample. */
	printf("  duration   %.1f s, %zu samples", span_ns / 1e9, info->nr_samples);
	if (schedstat_recording_meta(rec, "interval_ms"))
		printf(" every %s ms", schedstat_recording_meta(rec, "interval_ms"));
	printf(", %.1f KiB (%.1f KiB/s)\n", info->file_bytes / 1024.0,
	       span_ns ? info->file_bytes / 1024.0 / (span_ns / 1e9) : 0);
	if (schedstat_recording_meta(rec, "emulation"))
		printf("  emulated   %s (docs/emulation.md)\n",
		       schedstat_recording_meta(rec, "emulation"));
	if (recording_lost_text(info, lost, sizeof(lost)) || info->bad_samples)
		printf("  LOST       %s%s\n", lost, dropped ? "; and events dropped (below)" : "");
	else if (dropped)
		/* The file is whole; what it was made from was not. */
		printf("  complete   the file is whole, but %" PRIu64 " events were lost "
		       "before it (dropped, below)\n", dropped);
	else if (schedstat_recording_meta(rec, "export_read_back"))
		/* Its counters are what the export wrote, its losses are not. */
		printf("  complete   not known: schedtop's own export read back "
		       "carries no count of what its recording lost\n");
	else
		printf("  complete   nothing lost\n");
}

static void print_clusters(struct report *r, bool trace)
{
	printf("\nClusters (utilization: cfs+rt+dl+irq util over capacity)\n");
	printf("  %-10s %-10s %8s %10s %10s %10s %7s %7s %7s\n", "CLUSTER", "CPUS",
	       "CAPACITY", "UTIL_MEAN", "UTIL_P95", "BUSY_MEAN", "MIGR_UP", "MIGR_DN",
	       "MISFIT");
	for (int k = 0; k < r->nr_clusters; k++) {
		struct cluster_sum *cs = &r->clusters[k];
		char cpus[SCHEDSTAT_CPULIST_LEN] = "";
		char mean[16], p95[16], busy[16], up[16], down[16];
		double sum = 0;

		schedstat_topology_cluster_cpulist(r->topo, k, cpus, sizeof(cpus));
		for (size_t i = 0; i < cs->n; i++)
			sum += cs->util[i];
		qsort(cs->util, cs->n, sizeof(*cs->util), cmp_double);
		printf("  %-10s %-10s %8u %10s %10s %10s %7s %7s %7u\n",
		       schedstat_topology_cluster_name(r->topo, k), cpus,
		       schedstat_topology_cluster_capacity(r->topo, k),
		       pct_or_dash(mean, cs->n, cs->n ? sum / cs->n : 0),
		       pct_or_dash(p95, cs->n, percentile(cs->util, cs->n, 95)),
		       pct_or_dash(busy, cs->busy_n,
				   cs->busy_n ? cs->busy_sum / cs->busy_n : 0),
		       or_dash(up, r, SCHEDSTAT_AVAIL_ACTIVITY, 0, cs->up),
		       or_dash(down, r, SCHEDSTAT_AVAIL_ACTIVITY, 0, cs->down),
		       cs->misfit_max);
	}
	if (r->ou_avail)
		printf("  overutilized %.2f s (%.1f%% of the time)\n", r->ou_ns / 1e9,
		       r->span_ns ? 100.0 * r->ou_ns / r->span_ns : 0);
	else if (trace)
		printf("  overutilized not available (the trace has no "
		       "sched_overutilized or lisa__sched_overutilized event)\n");
	else
		printf("  overutilized not available (no sched_overutilized_tp on this kernel)\n");
	printf("  cluster changes with a timestamp (migrations, overutilized flips): %" PRIu64 "\n",
	       r->cross_events);
}

static void print_tasks(struct report *r, struct task_sum *list, size_t n,
			unsigned long top)
{
	char run[16], up[16], down[16];

	printf("\nBusiest tasks by util (mean util_avg over the samples it was seen in)\n");
	printf("  %-8s %-8s %-16s %9s %8s %13s %9s %5s %5s\n", "PID", "TGID", "COMM",
	       "UTIL_MEAN", "UTIL_MAX", "RUNNABLE_MEAN", "RUN_S", "UP", "DOWN");
	qsort(list, n, sizeof(*list), cmp_util);
	for (size_t i = 0; i < n && i < top; i++)
		printf("  %-8d %-8d %-16s %9.0f %8u %13.0f %9s %5s %5s\n", list[i].pid,
		       list[i].tgid, list[i].comm, (double)list[i].util_sum / list[i].samples,
		       list[i].util_max, (double)list[i].runnable_sum / list[i].samples,
		       or_dash(run, r, SCHEDSTAT_AVAIL_TASK_TIME, 3, list[i].run_ns / 1e9),
		       or_dash(up, r, SCHEDSTAT_AVAIL_ACTIVITY, 0, list[i].up),
		       or_dash(down, r, SCHEDSTAT_AVAIL_ACTIVITY, 0, list[i].down));
	printf("\nBusiest tasks by run time\n");
	if (!(r->avail & SCHEDSTAT_AVAIL_TASK_TIME)) {
		printf("  not known: the file carries no run time (schedtop's own "
		       "Perfetto export made without --task-stats)\n");
		return;
	}
	printf("  %-8s %-8s %-16s %9s %8s %9s\n", "PID", "TGID", "COMM", "RUN_S",
	       "CPU_PCT", "UTIL_MEAN");
	qsort(list, n, sizeof(*list), cmp_run);
	for (size_t i = 0; i < n && i < top && list[i].run_ns; i++)
		printf("  %-8d %-8d %-16s %9.3f %8.1f%% %9.0f\n", list[i].pid, list[i].tgid,
		       list[i].comm, list[i].run_ns / 1e9,
		       r->span_ns ? 100.0 * list[i].run_ns / r->span_ns : 0,
		       (double)list[i].util_sum / list[i].samples);
}

static void print_hotplug(const struct report *r, uint64_t t0)
{
	printf("\nCPU hotplug: %zu operations seen\n", r->nr_hotplug);
	for (size_t i = 0; i < r->nr_hotplug; i++) {
		const struct hotplug_op *h = &r->hotplug[i];

		printf("  at %8.3f s  cpu%-4d %-8s %u op%s, took %.1f ms\n",
		       (h->ts_ns - t0) / 1e9, h->cpu, h->to[0] ? h->to : "unknown",
		       h->ops, h->ops == 1 ? "" : "s", h->ns / 1e6);
	}
}

/*
 * Each operation's cpuhp states, as `schedtop hotplug` splits a live one
 * (docs/hotplug.md), from the recorded steps: the sysfs write around them
 * was not recorded, so the time is first step to last.
 */
static int print_hotplug_states(struct schedstat_recording *rec, size_t nr_seen,
				uint64_t t0)
{
	struct schedstat_recorded_hotplug *ops;
	size_t nr, damaged;
	int err;

	err = schedstat_recording_hotplug(rec, &ops, &nr, &damaged);
	if (err == -ENODATA) {
		if (nr_seen)
			printf("  (no cpuhp steps recorded for a per-state breakdown: "
			       "a recording before format 1.2, or of a trace file)\n");
		return 0;
	}
	if (err)
		return err;
	printf("\nCPU hotplug per cpuhp state: %zu operations, first step to last\n", nr);
	for (size_t i = 0; i < nr; i++) {
		const struct schedstat_recorded_hotplug *h = &ops[i];

		printf("  at %8.3f s  cpu%-4d %-8s %9.3f ms%s\n",
		       (h->ts_ns - t0) / 1e9, h->cpu,
		       h->op.back ? "online" : "offline", h->op.total_ns / 1e6,
		       h->failed ? "  (a callback failed: rolled back)" : "");
		for (size_t k = 0; k < h->op.nr_steps; k++)
			printf("      %9.3f ms  %s\n", h->op.steps[k].ns / 1e6,
			       h->op.steps[k].name);
	}
	if (damaged)
		cli_error("%zu damaged CPUHP chunks skipped", damaged);
	schedstat_recording_hotplug_free(ops, nr);
	return 0;
}

/* The first @nr samples; a damaged chunk's are counted in @r->bad. */
static int add_samples(struct report *r, struct schedstat_recording *rec,
		       size_t nr)
{
	int err = 0;

	for (size_t i = 0; !err; i++) {
		const struct schedstat_event *evs;
		struct schedstat_snapshot *snap;
		size_t nr_evs = 0;

		err = recording_read_sample(rec, &i, nr, &snap, &evs, &nr_evs, &r->bad);
		if (err == -ENODATA)
			return 0;
		if (!err) {
			r->samples++;
			r->span_ns += schedstat_snapshot_interval_ns(snap);
			err = add_sample(r, snap, evs, nr_evs);
			schedstat_snapshot_free(snap);
		}
	}
	return err;
}

/*
 * A recording of schedtop workload: its constraints as the run kept them
 * (older recordings name a built-in only, whose file gives them).
 */
static int workload_tally(struct report *r, struct schedstat_recording *rec)
{
	const char *cons = schedstat_recording_meta(rec, "workload_constraints");
	const struct schedstat_workload_constraint *c = NULL;
	size_t nr = 0;
	int err;

	r->wl_name = schedstat_recording_meta(rec, "workload");
	if (!r->wl_name)
		return 0;
	if (cons) {
		err = schedstat_workload_constraints_parse(cons, &r->cons, &nr);
		if (err)
			return err == -ENOMEM ? err : -SCHEDSTAT_ERR_REC_CORRUPT;
		c = r->cons;
	} else {
		r->builtin = workload_builtin(r->wl_name);
		if (!r->builtin)
			return 0;	/* said; the rest of the report stands */
		c = schedstat_workload_constraint(r->builtin, 0);
		nr = schedstat_workload_nr_constraints(r->builtin);
	}
	return schedstat_workload_tally_new(&r->tally, c, nr,
					    schedstat_recording_energy_model(rec) != NULL);
}

static int report(const char *path, struct schedstat_recording *rec,
		  unsigned long top)
{
	struct schedstat_recording_info info;
	struct report r = { .topo = schedstat_recording_topology(rec) };
	struct task_sum *list = NULL;
	size_t n = 0;
	int err = 0;

	schedstat_recording_info(rec, &info);
	r.nr_clusters = schedstat_topology_nr_clusters(r.topo);
	err = workload_tally(&r, rec);
	if (err)
		goto fail;
	r.clusters = calloc(r.nr_clusters, sizeof(*r.clusters));
	if (!r.clusters)
		goto nomem;
	err = add_samples(&r, rec, info.nr_samples);
	if (err)
		goto fail;
	list = malloc((r.nr_tasks ? r.nr_tasks : 1) * sizeof(*list));
	if (!list)
		goto nomem;
	for (size_t i = 0; i < r.nr_tasks; i++)
		list[n++] = r.tasks[i];
	/* Damaged chunks are only found by decoding them: ask again. */
	schedstat_recording_info(rec, &info);
	print_header(path, rec, &info, r.span_ns, r.dropped);
	if (!(r.avail & SCHEDSTAT_AVAIL_ACTIVITY))
		printf("  dropped    - (not in the file: schedtop's own Perfetto export)\n");
	else if (schedstat_recording_meta(rec, "trace_file"))
		printf("  dropped    %" PRIu64 " events the trace lost (its buffers' lost-event "
		       "marks; a Perfetto bundle's lost_events counts one)\n", r.dropped);
	else
		printf("  dropped    %" PRIu64 " events or reads (a full ring buffer or BPF map, "
		       "more than 32 task groups on a CPU) during the recording\n", r.dropped);
	print_clusters(&r, schedstat_recording_meta(rec, "trace_file"));
	print_tasks(&r, list, n, top);
	print_hotplug(&r, info.first_ts_ns);
	err = print_hotplug_states(rec, r.nr_hotplug, info.first_ts_ns);
	if (err)
		goto fail;
	if (r.tally) {
		printf("\n");
		workload_score_print(stdout, r.wl_name, schedstat_workload_tally_finish(r.tally));
	}
	goto cleanup;
nomem:
	err = -ENOMEM;
fail:
	cli_error("%s: %s", path, schedstat_strerror(err));
cleanup:
	for (int k = 0; r.clusters && k < r.nr_clusters; k++)
		free(r.clusters[k].util);
	free(r.clusters);
	free(r.tasks);
	schedstat_hash_free(r.task_index);
	free(r.hotplug);
	schedstat_workload_tally_free(r.tally);
	free(r.cons);
	schedstat_workload_free(r.builtin);
	free(list);
	if (err)
		return EXIT_FAIL;
	if (recording_check_damage(path, rec, r.bad) != EXIT_OK)
		return EXIT_FAIL;
	/* Not damaged, perhaps unfinished: said on stderr too, not only in
	 * the report's LOST line. */
	recording_warn_lost(path, &info);
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct schedstat_recording *rec = NULL;
	struct input_opts in = {};
	unsigned long top = 10;
	int c, fd, ret;

	optind = 1;
	opterr = 0;
	/* No leading '+': options may come after FILE, as in replay and convert. */
	while ((c = getopt_long(argc, argv, ":n:h", report_long_opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_ulong(optarg, 1, 100000, &top))
				return cli_usage_error("report", "bad count '%s'", optarg);
			break;
		case OPT_INPUT_TOPOLOGY:
		case OPT_INPUT_PELT_SCHEME:
			if (input_opt("report", c, optarg, &in))
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("report", c, argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("report", "give one file: a schedtop recording or a trace (trace.dat, Perfetto)");
	fd = open_recording(argv[optind], 0, &in, &rec);
	if (fd < 0)
		return EXIT_FAIL;
	ret = report(argv[optind], rec, top);
	schedstat_recording_close(rec);
	close(fd);
	return ret;
}
