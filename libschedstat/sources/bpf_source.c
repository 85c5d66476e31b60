// SPDX-License-Identifier: GPL-2.0
/*
 * The live source: loads bpf/schedtop.bpf.c, attaches the programs this
 * kernel supports, and feeds the model from the kernel's aggregates.
 */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cgroup_names.h"
#include "bpf_cpus.h"
#include "cpufreq_stats.h"
#include "cpuidle.h"
#include "model.h"
#include "pelt_stream.h"
#include "sched_kernel.h"
#include "schedtop.skel.h"
#include "source.h"

#define MAX_PROGS 32
/* A group entity not updated for this long is gone or idle for good. */
#define GROUP_STALE_NS	(60 * 1000000000ULL)

struct bpf_source {
	struct schedtop_bpf *skel;
	struct ring_buffer *rb;
	struct schedstat_topology *topo;
	struct model *model;
	schedstat_event_fn on_event;
	void *event_ctx;
	uint32_t avail;
	const char *attached[MAX_PROGS + 1];
	int nr_cpus;
	struct st_cpu_state *cpus;
	struct st_hotplug *hotplug;
	uint32_t *polled_khz;
	char *sysfs_root;
	struct st_task_rec *recs;
	size_t nr_recs;
	size_t recs_cap;		/* bytes */
	struct schedstat_group *groups;
	size_t nr_groups, cap_groups;
	struct model_freq_time *freq_times;
	size_t nr_freq_times, cap_freq_times;
	struct cgroup_names *cgroup_names;
	struct cpuidle *cpuidle;
	struct cpufreq_stats *cpufreq_stats;
	bool ksyms;			/* per-CPU ksyms resolve: dump_task */
	int cb_err;
	/* --pelt-trace: updates held for ordering, records left this drain. */
	struct pelt_stream *pelt;
	int pelt_budget;
	bool pelt_budget_hit;
};

static int bpf_source_poll(struct bpf_source *s);
static void bpf_source_close(struct bpf_source *s);

/* libbpf's print hook is process-wide, so the log sink is too. */
static schedstat_log_fn log_fn;
static void *log_ctx;
static bool log_debug;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	char *msg;

	if (!log_fn || (level == LIBBPF_DEBUG && !log_debug))
		return 0;
	/* Verifier logs run to many kilobytes: no fixed buffer. */
	if (vasprintf(&msg, fmt, args) < 0)
		return 0;
	log_fn(level, msg, log_ctx);
	free(msg);
	return 0;
}

/* CAP_BPF and CAP_PERFMON (5.8+), or CAP_SYS_ADMIN, are needed to load. */
static bool have_bpf_privileges(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	uint64_t eff;

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	if (eff & (1ULL << CAP_SYS_ADMIN))
		return true;
	return (eff & (1ULL << CAP_BPF)) && (eff & (1ULL << CAP_PERFMON));
}

int bpf_source_btf_check(const char *path)
{
	return access(path, R_OK) ? -SCHEDSTAT_ERR_NO_BTF : 0;
}

/*
 * Which avail bit a tracepoint provides. Programs absent from the table
 * (the task iterator, exit, migrate) are always needed. The per-CPU
 * values come from the runqueue at sample time (bpf_cpus_avail()).
 */
static uint32_t prog_avail(const char *tp)
{
	static const struct { const char *tp; uint32_t bit; } map[] = {
		{ "sched_overutilized_tp", SCHEDSTAT_AVAIL_OVERUTILIZED_NS },
		{ "sched_waking", SCHEDSTAT_AVAIL_WAKEUPS },
		{ "sched_switch", SCHEDSTAT_AVAIL_PREEMPT },
		{ "cpuhp_exit", SCHEDSTAT_AVAIL_HOTPLUG },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(map[i].tp, tp))
			return map[i].bit;
	return 0;
}

/*
 * Keep only the programs whose tracepoint this kernel has: a BTF-only
 * tracepoint exists iff vmlinux BTF has its btf_trace_<name> typedef.
 * The ones that run on every switch or wakeup are opt-in.
 */
static bool wanted(const char *tp, const char *prog,
		   const struct schedstat_session_opts *opts)
{
	/* --pelt-trace only: tasks on pelt_se_tp, CPUs on the others. */
	if (!strncmp(prog, "pelt_trace_", 11)) {
		if (!opts->pelt_trace)
			return false;
		if (!strcmp(tp, "pelt_se_tp"))
			return opts->nr_pelt_pids || opts->pelt_comm ||
			       opts->pelt_cgroup;
		return opts->pelt_cpus;
	}
	if (!strcmp(tp, "sched_waking") || !strcmp(tp, "sched_wakeup_new") ||
	    !strcmp(tp, "sched_switch"))
		return opts->exact_wakeups;
	return true;
}

static int choose_programs(struct bpf_source *s, const struct btf *vmlinux,
			   const struct schedstat_session_opts *opts)
{
	struct bpf_program *prog;
	char name[128];
	int n = 0;

	s->ksyms = bpf_cpus_ksyms_resolvable();

	bpf_object__for_each_program(prog, s->skel->obj) {
		const char *sec = bpf_program__section_name(prog);
		const char *tp;
		bool have;

		if (!strncmp(sec, "iter/", 5)) {
			have = btf__find_by_name_kind(vmlinux, "bpf_iter_task",
						      BTF_KIND_FUNC) > 0;
			if (!have)
				return -SCHEDSTAT_ERR_KERNEL_TOO_OLD;
			have = !strcmp(bpf_program__name(prog), "dump_task") ==
			       s->ksyms;
			bpf_program__set_autoload(prog, have);
			if (have)
				s->attached[n++] = sec;
			continue;
		}
		tp = strchr(sec, '/') + 1;
		snprintf(name, sizeof(name), "btf_trace_%s", tp);
		have = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) > 0;
		if (!have && !strcmp(tp, "sched_switch") && opts->exact_wakeups)
			return -SCHEDSTAT_ERR_NO_SCHED_TP;
		/* pelt_irq_tp may be missing alone (no avg_irq): not the rest. */
		if (!have && opts->pelt_trace && strcmp(tp, "pelt_irq_tp") &&
		    wanted(tp, bpf_program__name(prog), opts))
			return -SCHEDSTAT_ERR_NO_PELT_TP;
		have = have && wanted(tp, bpf_program__name(prog), opts);
		bpf_program__set_autoload(prog, have);
		if (have) {
			s->avail |= prog_avail(tp);
			if (n < MAX_PROGS)
				s->attached[n++] = sec;
		}
	}
	/*
	 * Every kernel since 4.17 has util_est; it is read from the tasks.
	 * sched_util_est_cfs_tp is not attached: it fires on every enqueue and
	 * dequeue (docs/performance.md) and the root value is the sum over the
	 * queued tasks anyway.
	 */
	s->avail |= SCHEDSTAT_AVAIL_UTIL_EST;
	return 0;
}

/*
 * Ring buffers and task iterators (5.8). Task storage (--exact-wakeups) is
 * only created when asked for. tp_btf support itself cannot be probed
 * without a target: a kernel with BTF but without it fails at load, which
 * load_error() reports.
 */
static int kernel_features(const struct schedstat_session_opts *opts)
{
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) <= 0)
		return -SCHEDSTAT_ERR_KERNEL_TOO_OLD;
	if (opts->exact_wakeups &&
	    libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) <= 0)
		return -SCHEDSTAT_ERR_KERNEL_TOO_OLD;
	return 0;
}

static void deliver(struct bpf_source *s, const struct st_event_hdr *h,
		    struct schedstat_event *ev)
{
	ev->ts_ns = h->ts;
	ev->cpu = h->cpu;
	if (s->on_event)
		s->on_event(ev, s->event_ctx);
}

static int on_ring_event(void *ctx, void *data, size_t size)
{
	struct bpf_source *s = ctx;
	const struct st_event_hdr *h = data;
	struct schedstat_event ev = {};

	if (size < sizeof(*h) || h->size > size)
		return 0;
	switch (h->type) {
	case ST_EV_EXIT: {
		const struct st_event_exit *e = data;

		if (h->size < sizeof(*e))
			return 0;
		if (model_add_exit(s->model, &e->task))
			s->cb_err = -ENOMEM;
		ev.type = SCHEDSTAT_EV_EXIT;
		ev.pid = e->task.pid;
		ev.tgid = e->task.tgid;
		schedstat_comm_sanitize(ev.comm, e->task.comm, sizeof(ev.comm));
		break;
	}
	case ST_EV_MIGRATE: {
		const struct st_event_migrate *e = data;

		if (h->size < sizeof(*e))
			return 0;
		if (model_add_migration(s->model, e->pid, e->orig_cpu, e->dest_cpu))
			s->cb_err = -ENOMEM;
		ev.type = SCHEDSTAT_EV_MIGRATE;
		ev.pid = e->pid;
		ev.tgid = e->tgid;
		ev.orig_cpu = e->orig_cpu;
		ev.dest_cpu = e->dest_cpu;
		schedstat_comm_sanitize(ev.comm, e->comm, sizeof(ev.comm));
		break;
	}
	case ST_EV_OVERUTILIZED: {
		const struct st_event_overutilized *e = data;

		if (h->size < sizeof(*e))
			return 0;
		ev.type = SCHEDSTAT_EV_OVERUTILIZED;
		ev.overutilized = e->overutilized;
		break;
	}
	default:
		return 0;
	}
	deliver(s, h, &ev);
	return 0;
}

/*
 * One --pelt-trace record. Past the drain's budget the ring is left with the
 * rest (returning an error stops libbpf after consuming this one).
 */
static int on_pelt_record(void *ctx, void *data, size_t size)
{
	struct bpf_source *s = ctx;

	if (size >= sizeof(struct st_pelt_rec) &&
	    pelt_stream_add(s->pelt, data))
		s->cb_err = -ENOMEM;
	if (--s->pelt_budget > 0)
		return 0;
	s->pelt_budget_hit = true;
	return -ECANCELED;
}

/* Run the task iterator once: one st_task_rec per task, all threads. */
static int read_tasks(struct bpf_source *s, size_t *nr)
{
	struct bpf_link *link = s->ksyms ? s->skel->links.dump_task :
					   s->skel->links.dump_task_nosym;
	int fd = bpf_iter_create(bpf_link__fd(link));
	size_t len = 0;
	int err = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got;

		if (s->recs_cap - len < 64 * 1024) {
			size_t cap = s->recs_cap ? s->recs_cap * 2 : 256 * 1024;
			void *p = realloc(s->recs, cap);

			if (!p) {
				err = -ENOMEM;
				goto cleanup;
			}
			s->recs = p;
			s->recs_cap = cap;
		}
		got = read(fd, (char *)s->recs + len, s->recs_cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			goto cleanup;
		}
		if (got == 0)
			break;
		len += got;
	}
	if (len % sizeof(struct st_task_rec))
		err = -EPROTO;
	*nr = len / sizeof(struct st_task_rec);
cleanup:
	close(fd);
	return err;
}

static int add_group(struct bpf_source *s, const struct st_group_val *v,
		     uint64_t now)
{
	struct schedstat_group *g;

	if (array_reserve((void **)&s->groups, &s->cap_groups, s->nr_groups + 1,
			  sizeof(*s->groups)))
		return -ENOMEM;
	g = &s->groups[s->nr_groups++];
	memset(g, 0, sizeof(*g));
	g->cgroup_id = v->cgroup_id;
	if (v->cgroup_id)
		snprintf(g->path, sizeof(g->path), "%s",
			 cgroup_names_find(s->cgroup_names, v->cgroup_id));
	else
		snprintf(g->path, sizeof(g->path), "autogroup-%llu",
			 (unsigned long long)v->autogroup_id);
	g->cpu = v->cpu;
	g->depth = v->depth;
	g->util_avg = v->util_avg;
	g->runnable_avg = v->runnable_avg;
	g->load_avg = v->load_avg;
	g->age_ns = now > v->ts ? now - v->ts : 0;
	return 0;
}

/*
 * Copy the group entities out of their hash map, and drop the ones whose
 * cgroup is gone (no update for a minute) so the map never fills.
 */
static int read_groups(struct bpf_source *s, uint64_t now)
{
	int fd = bpf_map__fd(s->skel->maps.groups);
	__u64 key, next, *stale = NULL;
	size_t nr_stale = 0, cap_stale = 0;
	struct st_group_val v;
	void *prev = NULL;
	int err = 0;

	s->nr_groups = 0;
	while (!err && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		if (v.ts + GROUP_STALE_NS >= now) {
			err = add_group(s, &v, now);
			continue;
		}
		/* Deleting now would restart the walk: later. */
		err = array_reserve((void **)&stale, &cap_stale, nr_stale + 1,
				    sizeof(*stale));
		if (!err)
			stale[nr_stale++] = key;
	}
	for (size_t i = 0; i < nr_stale; i++)
		bpf_map_delete_elem(fd, &stale[i]);
	free(stale);
	return err;
}

static bool any_cpu_seen(const struct bpf_source *s, __u32 flag)
{
	for (int cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->cpus[cpu].seen & flag)
			return true;
	return false;
}

/* Completed stays at each frequency, from the residency map. */
static int read_freq_times(struct bpf_source *s)
{
	int fd = bpf_map__fd(s->skel->maps.freq_time);
	struct st_freq_key key, next;
	void *prev = NULL;
	__u64 ns;

	s->nr_freq_times = 0;
	/*
	 * A stay is stored from a CPU's second cpu_frequency event on, so
	 * while no CPU has seen one the map is empty. Walking an empty hash
	 * still scans all its buckets (8% of a sample's CPU time at 200
	 * tasks, where cpufreq does not exist).
	 */
	if (!any_cpu_seen(s, ST_SEEN_FREQ))
		return 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &ns))
			continue;
		if (array_reserve((void **)&s->freq_times, &s->cap_freq_times,
				  s->nr_freq_times + 1, sizeof(*s->freq_times)))
			return -ENOMEM;
		s->freq_times[s->nr_freq_times++] =
			(struct model_freq_time){ key.cpu, key.khz, ns };
	}
	return 0;
}

/*
 * Where power:cpu_frequency never fires (a driver that does not report, or
 * no event support) the policy's scaling_cur_freq still says the clock.
 */
static void poll_freqs(struct bpf_source *s)
{
	int n = schedstat_topology_nr_clusters(s->topo);

	memset(s->polled_khz, 0, s->nr_cpus * sizeof(*s->polled_khz));
	for (int k = 0; k < n; k++) {
		int policy = schedstat_topology_cluster_policy(s->topo, k);
		char rel[96];
		uint64_t khz;

		if (policy < 0)
			continue;
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpufreq/policy%d/scaling_cur_freq", policy);
		if (sysfs_read_u64(s->sysfs_root, rel, &khz) || khz > UINT32_MAX)
			continue;
		for (int cpu = 0; cpu < s->nr_cpus; cpu++)
			if (schedstat_topology_cpu_cluster(s->topo, cpu) == k)
				s->polled_khz[cpu] = khz;
	}
}

static int bpf_source_sample(struct bpf_source *s,
			     struct schedstat_snapshot **out)
{
	struct st_global_state global;
	struct cpuset online = {};
	struct model_input in = {};
	size_t nr = 0;
	int err;

	*out = NULL;
	/* The iterator's last call copies the runqueues: after the tasks. */
	err = read_tasks(s, &nr);
	if (err)
		return err;
	s->nr_recs = nr;
	bpf_cpus_copy(s->cpus, s->skel->bss->cpu_state, s->nr_cpus);
	memcpy(s->hotplug, (const void *)s->skel->bss->hotplug,
	       s->nr_cpus * sizeof(*s->hotplug));
	global = s->skel->bss->global_state;
	/* The CPUs' values are as of this instant: the sample's time. */
	in.ts_ns = global.cpus_read_ts ? global.cpus_read_ts : mono_ns();
	cpuidle_read(s->cpuidle, s->cpus, s->nr_cpus);
	/* Without tick_sched, the same accounting through /proc/stat. */
	if (!s->ksyms)
		cpuidle_read_proc_stat(s->cpus, s->nr_cpus);
	err = read_groups(s, in.ts_ns);
	if (err)
		return err;
	/*
	 * A task leaves the task list only after sched_process_exit fired, so
	 * draining events after the iterator pairs every vanished task with
	 * its exit record.
	 */
	err = bpf_source_poll(s);
	if (err < 0)
		return err;
	if (topology_read_online(NULL, &online))
		topology_cpus(s->topo, &online);
	in.tasks = s->recs;
	in.nr_tasks = nr;
	in.cpus = s->cpus;
	in.hotplug = s->hotplug;
	poll_freqs(s);
	in.polled_khz = s->polled_khz;
	err = read_freq_times(s);
	if (!err)
		err = cpufreq_stats_apply(s->cpufreq_stats, &s->freq_times,
					  &s->nr_freq_times, &s->cap_freq_times);
	if (err)
		return err;
	in.freq_times = s->freq_times;
	in.nr_freq_times = s->nr_freq_times;
	in.nr_cpus = s->nr_cpus;
	in.online = &online;
	in.global = &global;
	in.avail = s->avail | bpf_cpus_avail(s->cpus, s->nr_cpus) |
		   (cpuidle_present(s->cpuidle) ? SCHEDSTAT_AVAIL_IDLE : 0);
	in.groups = s->groups;
	in.nr_groups = s->nr_groups;
	return model_update(s->model, &in, out);
}

/*
 * Events, then at most PELT_DRAIN_BUDGET PELT records (the event fd stays
 * readable while more wait); then the PELT updates old enough to be in
 * order go out.
 */
static int bpf_source_poll(struct bpf_source *s)
{
	uint64_t now = mono_ns();
	int n;

	s->pelt_budget = PELT_DRAIN_BUDGET;
	s->pelt_budget_hit = false;
	n = ring_buffer__consume(s->rb);
	if (n == -ECANCELED && s->pelt_budget_hit)
		n = PELT_DRAIN_BUDGET;
	if (s->cb_err) {
		n = s->cb_err;
		s->cb_err = 0;
	}
	if (n >= 0 && s->pelt && now > PELT_REORDER_NS)
		pelt_stream_release(s->pelt, now - PELT_REORDER_NS);
	return n;
}

/* Everything the rings hold, and every held PELT update: the end. */
static int bpf_source_flush(struct bpf_source *s)
{
	int n;

	do {
		n = bpf_source_poll(s);
	} while (n >= 0 && s->pelt_budget_hit);
	if (n >= 0 && s->pelt)
		pelt_stream_release(s->pelt, UINT64_MAX);
	return n < 0 ? n : 0;
}

static uint64_t bpf_source_pelt_dropped(const struct bpf_source *s)
{
	return s->skel->bss->global_state.pelt_dropped;
}

/*
 * --pelt-trace selection, in the kernel: rodata before load, the pid map
 * after (before attach, so no update of an unselected task is ever sent).
 */
static int pelt_select(struct bpf_source *s,
		       const struct schedstat_session_opts *opts)
{
	struct cpuset cpus = {};
	uint64_t id;
	int err;

	if (!opts->pelt_trace)
		return 0;
	if ((!opts->nr_pelt_pids && !opts->pelt_comm && !opts->pelt_cpus &&
	     !opts->pelt_cgroup) ||
	    opts->nr_pelt_pids > ST_PELT_MAX_PIDS ||
	    (opts->pelt_comm && strlen(opts->pelt_comm) >= ST_COMM_LEN))
		return -EINVAL;
	if (opts->pelt_cpus) {
		err = cpulist_parse(opts->pelt_cpus, &cpus);
		if (err)
			return err;
		for (int cpu = 0; cpu < ST_MAX_CPUS; cpu++)
			s->skel->rodata->pelt_cpu[cpu] = cpuset_test(&cpus, cpu);
	}
	s->skel->rodata->pelt_by_pid = opts->nr_pelt_pids;
	s->skel->rodata->pelt_by_comm = opts->pelt_comm;
	if (opts->pelt_comm)
		memcpy((char *)s->skel->rodata->pelt_comm, opts->pelt_comm,
		       strlen(opts->pelt_comm) + 1);
	err = pelt_stream_new(&s->pelt, opts->on_pelt, opts->pelt_ctx);
	if (err || !opts->pelt_cgroup)
		return err;
	/* Named as the group table names it: the path below the mount. */
	err = cgroup_dir_id(opts->pelt_cgroup, &id);
	if (!err) {
		s->skel->rodata->pelt_cgroup_id = id;
		pelt_stream_set_group(s->pelt, id,
				      cgroup_names_find(s->cgroup_names, id));
	}
	return err;
}

static int pelt_fill_pids(struct bpf_source *s,
			  const struct schedstat_session_opts *opts)
{
	int fd = bpf_map__fd(s->skel->maps.pelt_pids);
	__u8 one = 1;

	for (size_t i = 0; opts->pelt_trace && i < opts->nr_pelt_pids; i++)
		if (bpf_map_update_elem(fd, &opts->pelt_pids[i], &one, BPF_ANY))
			return -errno;
	return 0;
}

static int bpf_source_event_fd(const struct bpf_source *s)
{
	return ring_buffer__epoll_fd(s->rb);
}

static const struct schedstat_topology *
bpf_source_topology(const struct bpf_source *s)
{
	return s->topo;
}

static int load_error(int err)
{
	if (err == -EPERM || err == -EACCES)
		return -SCHEDSTAT_ERR_NO_PRIV;
	if (err == -ENOMEM || err == -E2BIG)
		return err;
	return -SCHEDSTAT_ERR_BPF_LOAD;
}

static int bpf_source_open(struct bpf_source **out,
			   const struct schedstat_session_opts *opts)
{
	struct bpf_source *s;
	struct btf *vmlinux = NULL;
	struct schedstat_snapshot *none;
	int err;

	*out = NULL;
	if (!opts || opts->sz < sizeof(*opts))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->on_event = opts->on_event;
	s->event_ctx = opts->event_ctx;
	log_fn = opts->log;
	log_ctx = opts->log_ctx;
	log_debug = opts->log_debug;
	libbpf_set_print(libbpf_print);

	err = source_topology(opts, &s->topo);
	if (err)
		goto cleanup;
	s->nr_cpus = schedstat_topology_nr_cpus(s->topo);
	if (s->nr_cpus > ST_MAX_CPUS) {
		err = -ERANGE;
		goto cleanup;
	}
	s->cpus = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*s->cpus));
	s->hotplug = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*s->hotplug));
	s->polled_khz = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*s->polled_khz));
	s->sysfs_root = opts->sysfs_root ? strdup(opts->sysfs_root) : NULL;
	if (!s->cpus || !s->hotplug || !s->polled_khz ||
	    (opts->sysfs_root && !s->sysfs_root)) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = model_new(&s->model, s->topo);
	if (err)
		goto cleanup;
	err = cgroup_names_new(&s->cgroup_names);
	if (err)
		goto cleanup;
	err = cpuidle_open(&s->cpuidle, opts->sysfs_root, s->nr_cpus);
	if (err)
		goto cleanup;
	err = cpufreq_stats_open(&s->cpufreq_stats, opts->sysfs_root, s->topo,
				 s->nr_cpus);
	if (err)
		goto cleanup;

	if (!have_bpf_privileges()) {
		err = -SCHEDSTAT_ERR_NO_PRIV;
		goto cleanup;
	}
	err = bpf_source_btf_check("/sys/kernel/btf/vmlinux");
	if (err)
		goto cleanup;
	err = kernel_features(opts);
	if (err)
		goto cleanup;
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		err = -SCHEDSTAT_ERR_NO_BTF;
		goto cleanup;
	}

	s->skel = schedtop_bpf__open();
	if (!s->skel) {
		err = -errno;
		goto cleanup;
	}
	err = choose_programs(s, vmlinux, opts);
	if (err)
		goto cleanup;
	s->skel->rodata->count_wakeups = opts->exact_wakeups;
	s->skel->rodata->nr_cpus = s->nr_cpus;
	bpf_map__set_autocreate(s->skel->maps.task_locals, opts->exact_wakeups);
	bpf_map__set_autocreate(s->skel->maps.pelt_events, opts->pelt_trace);
	bpf_map__set_autocreate(s->skel->maps.pelt_pids, opts->pelt_trace);
	err = pelt_select(s, opts);
	if (err)
		goto cleanup;
	err = schedtop_bpf__load(s->skel);
	if (err) {
		err = load_error(err);
		goto cleanup;
	}
	err = pelt_fill_pids(s, opts);
	if (err)
		goto cleanup;
	err = schedtop_bpf__attach(s->skel);
	if (err) {
		err = load_error(err);
		goto cleanup;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events),
				 on_ring_event, s, NULL);
	if (!s->rb) {
		err = -errno;
		goto cleanup;
	}
	/* Second: poll() takes the discrete events before the budgeted PELT. */
	if (opts->pelt_trace &&
	    ring_buffer__add(s->rb, bpf_map__fd(s->skel->maps.pelt_events),
			     on_pelt_record, s)) {
		err = -errno;
		goto cleanup;
	}
	/* The baseline that the first snapshot's deltas are taken against. */
	err = bpf_source_sample(s, &none);
	if (err)
		goto cleanup;
	*out = s;
	s = NULL;
cleanup:
	btf__free(vmlinux);
#ifdef __GLIBC__
	/*
	 * Parsing vmlinux BTF (for probing, and inside libbpf for CO-RE) took
	 * megabytes that are free now: give them back, they would stay in RSS.
	 */
	malloc_trim(0);
#endif
	bpf_source_close(s);
	return err;
}

static void bpf_source_close(struct bpf_source *s)
{
	if (!s)
		return;
	ring_buffer__free(s->rb);
	schedtop_bpf__destroy(s->skel);
	pelt_stream_free(s->pelt);
	model_free(s->model);
	schedstat_topology_free(s->topo);
	free(s->cpus);
	free(s->hotplug);
	free(s->polled_khz);
	free(s->sysfs_root);
	free(s->recs);
	free(s->groups);
	free(s->freq_times);
	cgroup_names_free(s->cgroup_names);
	cpuidle_close(s->cpuidle);
	cpufreq_stats_close(s->cpufreq_stats);
	free(s);
}

static int ops_open(void **out, const struct schedstat_session_opts *opts)
{
	return bpf_source_open((struct bpf_source **)out, opts);
}

static void ops_close(void *s)
{
	bpf_source_close(s);
}

static int ops_sample(void *s, struct schedstat_snapshot **out)
{
	return bpf_source_sample(s, out);
}

static int ops_poll(void *s)
{
	return bpf_source_poll(s);
}

static int ops_flush(void *s)
{
	return bpf_source_flush(s);
}

static uint64_t ops_pelt_dropped(const void *s)
{
	return bpf_source_pelt_dropped(s);
}

static int ops_event_fd(const void *s)
{
	return bpf_source_event_fd(s);
}

static const struct schedstat_topology *ops_topology(const void *s)
{
	return bpf_source_topology(s);
}

const struct source_ops bpf_source_ops = {
	.name = "bpf",
	.open = ops_open,
	.close = ops_close,
	.sample = ops_sample,
	.poll = ops_poll,
	.flush = ops_flush,
	.pelt_dropped = ops_pelt_dropped,
	.event_fd = ops_event_fd,
	.topology = ops_topology,
};
