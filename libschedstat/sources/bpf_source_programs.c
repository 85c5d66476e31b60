// SPDX-License-Identifier: GPL-2.0
/*
 * Which of bpf/schedtop.bpf.c's programs this kernel and these options get,
 * decided before the skeleton loads: the task iterator's variant (per-CPU
 * ksyms or not), each tracepoint present in vmlinux BTF, the opt-in ones
 * (--exact-wakeups, --pelt-trace) and the rodata of --pelt-trace's
 * selection; and the avail bits the attached programs provide.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "bpf_source.h"
#include "cgroup_names.h"
#include "pelt_stream.h"
#include "tracepoints.h"

/*
 * Keep only the programs whose tracepoint this kernel has: a BTF-only
 * tracepoint exists iff vmlinux BTF has its btf_trace_<name> typedef.
 * The ones that run on every switch or wakeup are opt-in.
 */
static bool wanted(const char *tp, const struct schedstat_tracepoint *row,
		   const char *prog, const struct schedstat_session_opts *opts)
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
	if (row && (row->flags & SCHEDSTAT_TP_EXACT_WAKEUPS))
		return opts->exact_wakeups;
	return true;
}

/* The task table's programs: bpfsrc_tasks_choose() decides on them. */
static bool task_table_program(const struct bpfsrc *s,
			       const struct bpf_program *prog)
{
	const struct schedtop_bpf *k = s->skel;

	return prog == k->progs.scan_tasks || prog == k->progs.scan_tasks_nosym ||
	       prog == k->progs.fill_task_table || prog == k->progs.track_new ||
	       prog == k->progs.track_exec;
}

int bpfsrc_choose_programs(struct bpfsrc *s, const struct btf *vmlinux,
			   const struct schedstat_session_opts *opts,
			   bool task_table)
{
	struct bpf_program *prog;
	char name[128];
	int n = 0;

	s->ksyms = bpfsrc_cpus_ksyms_resolvable(vmlinux);

	bpf_object__for_each_program(prog, s->skel->obj) {
		const char *sec = bpf_program__section_name(prog);
		const struct schedstat_tracepoint *row;
		const char *tp;
		bool have;

		if (task_table_program(s, prog))
			continue;
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
		/* Its avail bits and opt-in (tracepoints.c; test_docs checks). */
		row = tp_find(tp);
		snprintf(name, sizeof(name), "btf_trace_%s", tp);
		have = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) > 0;
		if (!have && row == &tp_table[TP_SCHED_SWITCH] && opts->exact_wakeups)
			return -SCHEDSTAT_ERR_NO_SCHED_TP;
		/* pelt_irq_tp may be missing alone (no avg_irq): not the rest. */
		if (!have && opts->pelt_trace && row != &tp_table[TP_PELT_IRQ] &&
		    wanted(tp, row, bpf_program__name(prog), opts))
			return -SCHEDSTAT_ERR_NO_PELT_TP;
		have = have && wanted(tp, row, bpf_program__name(prog), opts);
		bpf_program__set_autoload(prog, have);
		if (have) {
			s->avail |= row ? row->bpf_avail : 0;
			if (n < BPFSRC_MAX_PROGS)
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
	/* The tasks and runqueues read at every sample. */
	s->avail |= SCHEDSTAT_AVAIL_TASK_TIME | SCHEDSTAT_AVAIL_ACTIVITY;
	return bpfsrc_tasks_choose(s, vmlinux, task_table);
}

/*
 * Ring buffers and task iterators (5.8). Task storage (--exact-wakeups) is
 * only created when asked for. tp_btf support itself cannot be probed
 * without a target: a kernel with BTF but without it fails at load, which
 * load_error() reports.
 */
int bpfsrc_kernel_features(const struct schedstat_session_opts *opts)
{
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) <= 0)
		return -SCHEDSTAT_ERR_KERNEL_TOO_OLD;
	if (opts->exact_wakeups &&
	    libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) <= 0)
		return -SCHEDSTAT_ERR_KERNEL_TOO_OLD;
	return 0;
}

/*
 * --pelt-trace selection, in the kernel: rodata before load, the pid map
 * after (before attach, so no update of an unselected task is ever sent).
 */
int bpfsrc_pelt_select(struct bpfsrc *s,
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

int bpfsrc_pelt_fill_pids(struct bpfsrc *s,
			  const struct schedstat_session_opts *opts)
{
	int fd = bpf_map__fd(s->skel->maps.pelt_pids);
	__u8 one = 1;

	for (size_t i = 0; opts->pelt_trace && i < opts->nr_pelt_pids; i++)
		if (bpf_map_update_elem(fd, &opts->pelt_pids[i], &one, BPF_ANY))
			return -errno;
	return 0;
}
