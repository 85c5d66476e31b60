// SPDX-License-Identifier: GPL-2.0
/*
 * The live source: loads bpf/schedtop.bpf.c, attaches the programs this
 * kernel supports (bpf_source_programs.c chooses them), and feeds the model
 * from the kernel's aggregates at each sample (bpf_source_sample.c) and
 * from the ring buffers' events between samples (bpf_source_events.c).
 * This file owns the object's life: privileges, loading, attaching, the
 * ring buffers and the ops table; bpf_source.h is the shared layout.
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

#include <bpf/btf.h>

#include "bpf_source.h"
#include "cgroup_names.h"
#include "cpufreq_stats.h"
#include "cpuhp_names.h"
#include "cpuidle.h"
#include "pelt_stream.h"
#include "proc_stat.h"

static void bpfsrc_close(struct bpfsrc *s);

/* libbpf's print hook is process-wide, so the log sink is too. */
static schedstat_log_fn log_fn;
static void *log_ctx;
static bool log_debug;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args);

static void bpfsrc_log(enum libbpf_print_level level, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	libbpf_print(level, fmt, args);
	va_end(args);
}

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

int bpfsrc_btf_check(const char *path)
{
	return access(path, R_OK) ? -SCHEDSTAT_ERR_NO_BTF : 0;
}

static const struct schedstat_topology *
bpfsrc_topology(const struct bpfsrc *s)
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

/* Topology, the model and the sysfs readers: everything but BPF. */
static int bpfsrc_alloc(struct bpfsrc *s,
			const struct schedstat_session_opts *opts)
{
	int err;

	err = source_topology(opts, &s->topo);
	if (err)
		return err;
	s->nr_cpus = schedstat_topology_nr_cpus(s->topo);
	if (s->nr_cpus > ST_MAX_CPUS)
		return -ERANGE;
	s->cpus = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*s->cpus));
	s->hotplug = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*s->hotplug));
	s->polled_khz = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*s->polled_khz));
	s->sysfs_root = opts->sysfs_root ? strdup(opts->sysfs_root) : NULL;
	s->nr_cur_freq_fds = schedstat_topology_nr_clusters(s->topo);
	s->cur_freq_fds = malloc((s->nr_cur_freq_fds ? s->nr_cur_freq_fds : 1) *
				 sizeof(*s->cur_freq_fds));
	if (!s->cpus || !s->hotplug || !s->polled_khz || !s->cur_freq_fds ||
	    (opts->sysfs_root && !s->sysfs_root))
		return -ENOMEM;
	for (int k = 0; k < s->nr_cur_freq_fds; k++)
		s->cur_freq_fds[k] = -1;
	err = model_new(&s->model, s->topo);
	if (err)
		return err;
	err = cgroup_names_new(&s->cgroup_names);
	if (err)
		return err;
	err = cpuidle_open(&s->cpuidle, opts->sysfs_root, s->nr_cpus);
	if (err)
		return err;
	return cpufreq_stats_open(&s->cpufreq_stats, opts->sysfs_root, s->topo,
				  s->nr_cpus);
}

/*
 * The skeleton's lifecycle up to attached programs and ring buffers: probe,
 * open, choose programs and rodata, load, fill maps, attach. With
 * @task_table, the task table's programs too where the kernel has what they
 * need (bpf_tasks.c).
 */
static int bpfsrc_load(struct bpfsrc *s,
		       const struct schedstat_session_opts *opts, bool task_table)
{
	struct btf *vmlinux = NULL;
	int err;

	if (!have_bpf_privileges())
		return -SCHEDSTAT_ERR_NO_PRIV;
	err = bpfsrc_btf_check("/sys/kernel/btf/vmlinux");
	if (err)
		return err;
	err = bpfsrc_kernel_features(opts);
	if (err)
		return err;
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return -SCHEDSTAT_ERR_NO_BTF;

	s->skel = schedtop_bpf__open();
	if (!s->skel) {
		err = -errno;
		goto cleanup;
	}
	err = bpfsrc_choose_programs(s, vmlinux, opts, task_table);
	if (err)
		goto cleanup;
	s->skel->rodata->count_wakeups = opts->exact_wakeups;
	s->skel->rodata->nr_cpus = s->nr_cpus;
	bpf_map__set_autocreate(s->skel->maps.task_locals, opts->exact_wakeups);
	bpf_map__set_autocreate(s->skel->maps.pelt_events, opts->pelt_trace);
	bpf_map__set_autocreate(s->skel->maps.pelt_pids, opts->pelt_trace);
	err = bpfsrc_pelt_select(s, opts);
	if (err)
		goto cleanup;
	err = schedtop_bpf__load(s->skel);
	if (err) {
		err = load_error(err);
		goto cleanup;
	}
	err = bpfsrc_pelt_fill_pids(s, opts);
	if (err)
		goto cleanup;
	err = schedtop_bpf__attach(s->skel);
	if (err) {
		err = load_error(err);
		goto cleanup;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events),
				 bpfsrc_on_ring_event, s, NULL);
	if (!s->rb) {
		err = -errno;
		goto cleanup;
	}
	/* Second: poll() takes the discrete events before the budgeted PELT. */
	if (opts->pelt_trace &&
	    ring_buffer__add(s->rb, bpf_map__fd(s->skel->maps.pelt_events),
			     bpfsrc_on_pelt_record, s))
		err = -errno;
	if (!err)
		err = bpfsrc_tasks_start(s);
cleanup:
	btf__free(vmlinux);
	return err;
}

/* What bpfsrc_load() made, undone, for another try. */
static void bpfsrc_unload(struct bpfsrc *s)
{
	bpfsrc_tasks_stop(s);
	s->task_out = NULL;
	s->scan_fd = -1;
	s->gone = NULL;
	s->nr_gone = s->cap_gone = 0;
	ring_buffer__free(s->rb);
	s->rb = NULL;
	schedtop_bpf__destroy(s->skel);
	s->skel = NULL;
	memset(s->attached, 0, sizeof(s->attached));
	s->avail = 0;
}

static int bpfsrc_open(struct bpfsrc **out,
		       const struct schedstat_session_opts *opts)
{
	struct bpfsrc *s;
	struct schedstat_snapshot *none;
	int err;

	*out = NULL;
	if (!opts || opts->sz < sizeof(*opts))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->online_fd = -1;
	s->scan_fd = -1;
	s->on_event = opts->on_event;
	s->event_ctx = opts->event_ctx;
	if (s->on_event)
		s->kick_fn = cpuhp_kick_address();
	log_fn = opts->log;
	log_ctx = opts->log_ctx;
	log_debug = opts->log_debug;
	libbpf_set_print(libbpf_print);

	err = bpfsrc_alloc(s, opts);
	if (err)
		goto cleanup;
	err = bpfsrc_load(s, opts, true);
	/*
	 * The task table is the newest thing the programs ask of a kernel:
	 * should this one refuse it (a verifier of its own), read the tasks
	 * with the iterator walk instead.
	 */
	if (err && s->task_table) {
		bpfsrc_log(LIBBPF_WARN, "the task table did not load (%s): "
			   "walking the tasks instead\n", schedstat_strerror(err));
		bpfsrc_unload(s);
		err = bpfsrc_load(s, opts, false);
	}
	if (err)
		goto cleanup;
	bpfsrc_log(LIBBPF_DEBUG, "tasks read %s\n", s->task_table ?
		   "from the task table" : "by the task iterator's walk");
	bpfsrc_log(LIBBPF_DEBUG, "runqueues %s\n", s->ksyms ?
		   "read through their per-CPU ksyms" :
		   "found through the tasks (kallsyms lacks their ksyms)");
	/* The baseline that the first snapshot's deltas are taken against. */
	err = bpfsrc_sample(s, &none);
	if (err)
		goto cleanup;
	*out = s;
	s = NULL;
cleanup:
#ifdef __GLIBC__
	/*
	 * Parsing vmlinux BTF (for probing, and inside libbpf for CO-RE) took
	 * megabytes that are free now: give them back, they would stay in RSS.
	 */
	malloc_trim(0);
#endif
	bpfsrc_close(s);
	return err;
}

static void bpfsrc_close(struct bpfsrc *s)
{
	if (!s)
		return;
	bpfsrc_tasks_stop(s);
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
	proc_stat_close(s->proc_stat);
	if (s->online_fd >= 0)
		close(s->online_fd);
	for (int k = 0; s->cur_freq_fds && k < s->nr_cur_freq_fds; k++)
		if (s->cur_freq_fds[k] >= 0)
			close(s->cur_freq_fds[k]);
	free(s->cur_freq_fds);
	cpufreq_stats_close(s->cpufreq_stats);
	free(s);
}

static int ops_open(void **out, const struct schedstat_session_opts *opts)
{
	return bpfsrc_open((struct bpfsrc **)out, opts);
}

static void ops_close(void *s)
{
	bpfsrc_close(s);
}

static int ops_sample(void *s, struct schedstat_snapshot **out)
{
	return bpfsrc_sample(s, out);
}

static int ops_poll(void *s)
{
	return bpfsrc_poll(s);
}

static int ops_flush(void *s)
{
	return bpfsrc_flush(s);
}

static uint64_t ops_pelt_dropped(const void *s)
{
	return bpfsrc_pelt_dropped(s);
}

static int ops_event_fd(const void *s)
{
	return bpfsrc_event_fd(s);
}

static const struct schedstat_topology *ops_topology(const void *s)
{
	return bpfsrc_topology(s);
}

const struct source_ops bpfsrc_ops = {
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
