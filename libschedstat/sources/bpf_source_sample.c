// SPDX-License-Identifier: GPL-2.0
/*
 * One sample of the BPF source: the task iterator's records (its last call
 * copies the runqueues), the group entities, frequency residency, cpuidle
 * and cpufreq from sysfs, and the ring buffers drained so that every task
 * gone has its exit record; all handed to model_update().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpf_source.h"
#include "cgroup_names.h"
#include "cpufreq_stats.h"
#include "cpuidle.h"
#include "proc_stat.h"

static int add_group(struct bpfsrc *s, const struct st_group_val *v,
		     uint64_t now)
{
	struct schedstat_group *g;

	if (schedstat_array_reserve((void **)&s->groups, &s->cap_groups, s->nr_groups + 1,
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
 * The group entities the sample's walk read (bpf/schedtop.h,
 * st_group_samples), as the kernel keeps them.
 */
static int read_groups(struct bpfsrc *s, uint64_t now)
{
	const struct st_group_samples *gs = &s->skel->bss->group_samples;
	size_t nr = gs->nr < ST_MAX_GROUP_SAMPLES ? gs->nr : ST_MAX_GROUP_SAMPLES;
	int err;

	s->nr_groups = 0;
	for (size_t i = 0; i < nr; i++) {
		err = add_group(s, &gs->g[i], now);
		if (err)
			return err;
	}
	return 0;
}

static bool any_cpu_seen(const struct bpfsrc *s, __u32 flag)
{
	for (int cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->cpus[cpu].seen & flag)
			return true;
	return false;
}

/* Completed stays at each frequency, from the residency map. */
static int read_freq_times(struct bpfsrc *s)
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
		if (schedstat_array_reserve((void **)&s->freq_times, &s->cap_freq_times,
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
static void poll_freqs(struct bpfsrc *s)
{
	int n = schedstat_topology_nr_clusters(s->topo);

	memset(s->polled_khz, 0, s->nr_cpus * sizeof(*s->polled_khz));
	for (int k = 0; k < n && k < s->nr_cur_freq_fds; k++) {
		int policy = schedstat_topology_cluster_policy(s->topo, k);
		char rel[96], buf[32];
		uint64_t khz;

		if (policy < 0)
			continue;
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpufreq/policy%d/scaling_cur_freq", policy);
		if (sysfs_read_kept(s->sysfs_root, rel, &s->cur_freq_fds[k], buf,
				    sizeof(buf)) < 0 ||
		    sysfs_parse_u64(buf, &khz) || khz > UINT32_MAX)
			continue;
		for (int cpu = 0; cpu < s->nr_cpus; cpu++)
			if (schedstat_topology_cpu_cluster(s->topo, cpu) == k)
				s->polled_khz[cpu] = khz;
	}
}

int bpfsrc_sample(struct bpfsrc *s,
		  struct schedstat_snapshot **out)
{
	struct st_global_state global;
	struct cpuset online = {};
	struct model_input in = {};
	int err;

	*out = NULL;
	/*
	 * Asking the kernel this thread's run time brings this CPU's rq clock
	 * up to date (task_sched_runtime()): the iterator starts its
	 * sched_clock from it (schedtop.bpf.c, sched_now()).
	 */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &(struct timespec){ 0 });
	/* The tasks' read ends with the runqueues' (read_cpus()). */
	err = bpfsrc_tasks_read(s, &in);
	if (err)
		return err;
	s->nr_recs = in.nr_tasks;
	bpfsrc_cpus_copy(s->cpus, s->skel->bss->cpu_state, s->nr_cpus);
	memcpy(s->hotplug, (const void *)s->skel->bss->hotplug,
	       s->nr_cpus * sizeof(*s->hotplug));
	global = s->skel->bss->global_state;
	/* The CPUs' values are as of this instant: the sample's time. */
	in.ts_ns = global.cpus_read_ts ? global.cpus_read_ts : util_mono_ns();
	cpuidle_read(s->cpuidle, s->cpus, s->nr_cpus);
	/* Without tick_sched, the same accounting through /proc/stat. */
	if (!s->ksyms) {
		if (!s->proc_stat)
			proc_stat_open(&s->proc_stat, "/proc/stat");
		if (s->proc_stat)
			cpuidle_read_proc_stat(s->proc_stat, s->cpus, s->nr_cpus);
	}
	err = read_groups(s, in.ts_ns);
	if (err)
		return err;
	/*
	 * A task leaves the task list only after sched_process_exit fired, so
	 * draining events after the iterator pairs every vanished task with
	 * its exit record.
	 */
	err = bpfsrc_poll(s);
	if (err < 0)
		return err;
	if (s->online_fd < 0)
		s->online_fd = sysfs_open(NULL, "devices/system/cpu/online");
	if (s->online_fd < 0 || topology_pread_online(s->online_fd, &online))
		topology_cpus(s->topo, &online);
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
	in.avail = s->avail | bpfsrc_cpus_avail(s->cpus, s->nr_cpus) |
		   (cpuidle_present(s->cpuidle) ? SCHEDSTAT_AVAIL_IDLE : 0);
	in.groups = s->groups;
	in.nr_groups = s->nr_groups;
	return model_update(s->model, &in, out);
}
