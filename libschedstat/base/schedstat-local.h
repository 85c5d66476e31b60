/* SPDX-License-Identifier: GPL-2.0 */
/* Private layouts and helpers of libschedstat; not installed. */
#ifndef SCHEDSTAT_LOCAL_H
#define SCHEDSTAT_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "array_size.h"
#include "schedstat.h"


/* A set of CPU numbers below SCHEDSTAT_MAX_CPUS. */
struct cpuset {
	uint64_t bits[SCHEDSTAT_MAX_CPUS / 64];
};

static inline void cpuset_set(struct cpuset *set, unsigned int cpu)
{
	set->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

static inline bool cpuset_test(const struct cpuset *set, unsigned int cpu)
{
	return cpu < SCHEDSTAT_MAX_CPUS && (set->bits[cpu / 64] >> (cpu % 64)) & 1;
}

int cpuset_count(const struct cpuset *set);
/* Highest member + 1, 0 when empty. */
int cpuset_end(const struct cpuset *set);
/* @dst |= @src, &= @src, &= ~@src. */
void cpuset_or(struct cpuset *dst, const struct cpuset *src);
void cpuset_and(struct cpuset *dst, const struct cpuset *src);
void cpuset_andnot(struct cpuset *dst, const struct cpuset *src);
bool cpuset_intersects(const struct cpuset *a, const struct cpuset *b);

/*
 * Kernel CPU list syntax ("0-3,5,8-11"; also "0-7:2/4" stride groups are not
 * accepted: sysfs never writes them). Whitespace and a trailing newline are
 * ignored. -EINVAL on bad syntax, -ERANGE on a CPU >= SCHEDSTAT_MAX_CPUS.
 */
int cpulist_parse(const char *str, struct cpuset *set);
/* The shortest kernel-style list; -ENOSPC if it does not fit. */
int cpulist_format(const struct cpuset *set, char *buf, size_t size);

/*
 * Read a small sysfs file below @root ("/sys" when NULL) into @buf, trailing
 * newline removed. Returns the length or -errno.
 */
int sysfs_read(const char *root, const char *rel, char *buf, size_t size);
/* The same, parsed as an unsigned decimal. */
int sysfs_read_u64(const char *root, const char *rel, uint64_t *val);
int sysfs_parse_u64(const char *buf, uint64_t *val);
/* An fd for sysfs_pread_u64(), or -errno. */
int sysfs_open(const char *root, const char *rel);
int sysfs_pread_u64(int fd, uint64_t *val);
/* An open file read again from its start, as sysfs_read(): its length. */
int sysfs_pread(int fd, char *buf, size_t size);
/*
 * A file read at every sample, as sysfs_read(). Below the real /sys (@root
 * NULL) it stays open in *@fd (-1 at first; the caller closes it) and is
 * read again from its start: no path walk each time. Below another root
 * (a copy, which tests rewrite by renaming files) it is opened each time.
 */
int sysfs_read_kept(const char *root, const char *rel, int *fd, char *buf,
		    size_t size);

/*
 * devices/system/cpu/online. Returns -errno if it cannot be read or parsed,
 * leaving @online untouched: the caller decides what to assume then (all
 * CPUs of the topology, say, from topology_cpus()).
 */
int topology_read_online(const char *sysfs_root, struct cpuset *online);
/* The same from that file kept open (sysfs_open()): no path walk. */
int topology_pread_online(int fd, struct cpuset *online);
/* CPUs that belong to some cluster. */
void topology_cpus(const struct schedstat_topology *topo, struct cpuset *set);

/*
 * A topology rebuilt cluster by cluster, as a recording describes it:
 * @capacity holds one value per CPU of @cpus, lowest CPU first. -EINVAL if
 * a CPU is already in a cluster or @cpus is empty. Seal it before use.
 */
struct schedstat_topology *topology_new(enum schedstat_topology_origin origin);
int topology_add_cluster(struct schedstat_topology *topo, const char *name,
			 const struct cpuset *cpus,
			 const unsigned int *capacity, int policy,
			 unsigned int freq_min_khz, unsigned int freq_max_khz);
void topology_seal(struct schedstat_topology *topo);
/*
 * A --topology spec for another machine (a trace's): capacities as the spec
 * gives them, else 1024, and nothing read from this machine's sysfs.
 */
int topology_parse_foreign(struct schedstat_topology **out, const char *spec);
/*
 * A trace's machine from what the trace says of its CPUs (Perfetto's
 * cpu_info): one cluster per capacity (0: 1024), named by rank, each
 * cluster's highest frequency from @max_khz (NULL, or 0: not known).
 */
int topology_from_capacities(struct schedstat_topology **out, int nr_cpus,
			     const unsigned int *capacity,
			     const unsigned int *max_khz);
/* The same for a recording made with @recorded: its capacities, else 1024. */
int topology_parse_recorded(struct schedstat_topology **out, const char *spec,
			    const struct schedstat_topology *recorded);

/* The grow helper's name before it was public (schedstat_array_reserve()). */
#define util_array_reserve schedstat_array_reserve

/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns() and of ts_ns. */
uint64_t util_mono_ns(void);
/*
 * A small text file (a cpuset's or an IRQ's CPU list, a state file) in
 * one read, trailing newlines and spaces removed; 0 or -errno.
 */
int util_read_small_file(const char *path, char *buf, size_t size);
/* @text written to an existing file in one write(); 0 or -errno. */
int util_write_small_file(const char *path, const char *text);

/* 0 if kernel BTF is readable at @path, else -SCHEDSTAT_ERR_NO_BTF. */
int bpfsrc_btf_check(const char *path);

#endif /* SCHEDSTAT_LOCAL_H */
