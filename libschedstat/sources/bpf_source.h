/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF source's own layout, shared by its files: bpf_source.c (life,
 * load, attach, ops), bpf_source_programs.c (which programs),
 * bpf_source_sample.c (a sample), bpf_source_events.c (the ring buffers).
 * The session sees bpfsrc_ops (source.h) only.
 */
#ifndef SCHEDSTAT_BPF_SOURCE_H
#define SCHEDSTAT_BPF_SOURCE_H

#include <bpf/libbpf.h>

#include "bpf_cpus.h"
#include "model.h"
#include "schedtop.skel.h"
#include "source.h"

#define BPFSRC_MAX_PROGS 32

struct bpfsrc {
	struct schedtop_bpf *skel;
	struct ring_buffer *rb;
	struct schedstat_topology *topo;
	struct model *model;
	schedstat_event_fn on_event;
	void *event_ctx;
	uint64_t kick_fn;	/* cpuhp_kick_ap_work, 0 if unknown */
	uint32_t avail;
	const char *attached[BPFSRC_MAX_PROGS + 1];
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
	struct proc_stat *proc_stat;	/* without tick_sched: idle time */
	int online_fd;			/* devices/system/cpu/online, or -1 */
	int *cur_freq_fds;		/* each cluster's scaling_cur_freq */
	int nr_cur_freq_fds;
	struct cpufreq_stats *cpufreq_stats;
	bool ksyms;			/* per-CPU ksyms resolve: dump_task */
	/* bpf_tasks.c: the task table (scan_tasks), else the walk. */
	bool task_table;
	int scan_fd;			/* the scan program, BPF_PROG_RUN */
	const struct st_task_out *task_out;	/* mapped */
	int32_t *gone;
	size_t nr_gone, cap_gone;
	uint64_t nr_table_tasks;
	int cb_err;
	/* --pelt-trace: updates held for ordering, records left this drain. */
	struct pelt_stream *pelt;
	int pelt_budget;
	bool pelt_budget_hit;
};

/* bpf_source_programs.c */
/* Ring buffers and task iterators (5.8), task storage if asked for. */
int bpfsrc_kernel_features(const struct schedstat_session_opts *opts);
/* Autoload set on each program; s->attached and s->avail filled. */
int bpfsrc_choose_programs(struct bpfsrc *s, const struct btf *vmlinux,
			   const struct schedstat_session_opts *opts,
			   bool task_table);
/* --pelt-trace: rodata before load; the pid map after, before attach. */
int bpfsrc_pelt_select(struct bpfsrc *s,
		       const struct schedstat_session_opts *opts);
int bpfsrc_pelt_fill_pids(struct bpfsrc *s,
			  const struct schedstat_session_opts *opts);

/* bpf_tasks.c */
/* Before load: the task table's programs where the kernel has it and @table. */
int bpfsrc_tasks_choose(struct bpfsrc *s, const struct btf *vmlinux, bool table);
/* After attach: the table filled and its scan attached. */
int bpfsrc_tasks_start(struct bpfsrc *s);
void bpfsrc_tasks_stop(struct bpfsrc *s);
/* This sample's tasks into @in: tasks, nr_tasks, tasks_changed, gone. */
int bpfsrc_tasks_read(struct bpfsrc *s, struct model_input *in);
/*
 * The iterator walk: every task's record into s->recs, @nr of them. Also
 * where the table reads the tasks: tests hold the table to it
 * (tests/tools/task_walk_check.c).
 */
int bpfsrc_tasks_walk(struct bpfsrc *s, size_t *nr);

/* bpf_source_sample.c */
int bpfsrc_sample(struct bpfsrc *s, struct schedstat_snapshot **out);

/* bpf_source_events.c: ring_buffer callbacks, and draining them. */
int bpfsrc_on_ring_event(void *ctx, void *data, size_t size);
int bpfsrc_on_pelt_record(void *ctx, void *data, size_t size);
int bpfsrc_poll(struct bpfsrc *s);
int bpfsrc_flush(struct bpfsrc *s);
uint64_t bpfsrc_pelt_dropped(const struct bpfsrc *s);
int bpfsrc_event_fd(const struct bpfsrc *s);

#endif /* SCHEDSTAT_BPF_SOURCE_H */
