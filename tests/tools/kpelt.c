// SPDX-License-Identifier: GPL-2.0
/*
 * kpelt: prints every PELT update of the root cfs_rqs and of the tasks as
 * the kernel made it (kpelt.bpf.c), for tests/integration/pelt_truth.py.
 *
 *   kpelt BPF_OBJECT [PROGRAM...]
 *
 * PROGRAM: attach only these of the object's programs (kpelt_cfs, kpelt_se,
 * kpelt_born); all by default.
 * "ready" on stderr once attached; then one line per update on stdout,
 *   cfs TS CPU UTIL RUNNABLE LAST_UPDATE_TIME
 *   se TS CPU PID UTIL RUNNABLE LAST_UPDATE_TIME COMM
 * and one per new task (post_init_entity_util_avg()'s util, read at
 * sched_wakeup_new), with the cfs_rq it joined, root or a group's, and that
 * cfs_rq's util_avg with it:
 *   born TS CPU root|group PID UTIL CFS_RQ_UTIL LAST_UPDATE_TIME COMM
 * (TS: bpf_ktime_get_ns(), CLOCK_MONOTONIC), until SIGINT or SIGTERM, and
 * at the end on stderr "lost N": updates the ring buffer could not hold.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <bpf/bpf.h>

struct krec {
	__u64 ts, lut;
	__u32 kind, cpu, util, runnable;
	__s32 pid;
	char comm[16];
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int on_rec(void *ctx, void *data, size_t len)
{
	const struct krec *r = data;

	if (len < sizeof(*r))
		return 0;
	if (r->kind == 0)
		printf("cfs %llu %u %u %u %llu\n", (unsigned long long)r->ts,
		       r->cpu, r->util, r->runnable, (unsigned long long)r->lut);
	else if (r->kind == 2)
		printf("born %llu %u %s %d %u %u %llu %.16s\n",
		       (unsigned long long)r->ts, r->cpu & ~(1u << 31),
		       r->cpu >> 31 ? "group" : "root", r->pid, r->util,
		       r->runnable, (unsigned long long)r->lut, r->comm);
	else
		printf("se %llu %u %d %u %u %llu %.16s\n",
		       (unsigned long long)r->ts, r->cpu, r->pid, r->util,
		       r->runnable, (unsigned long long)r->lut, r->comm);
	return 0;
}

static bool wanted(const char *name, char **names, int nr)
{
	if (!nr)
		return true;
	for (int i = 0; i < nr; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct bpf_object *obj;
	struct bpf_program *prog;
	__u64 lost = 0;
	__u32 zero = 0;
	int err = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: kpelt BPF_OBJECT [PROGRAM...]\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "kpelt: %s: cannot load: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!wanted(bpf_program__name(prog), argv + 2, argc - 2))
			continue;
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "kpelt: %s: cannot attach: %s\n",
				bpf_program__name(prog), strerror(errno));
			goto cleanup;
		}
	}
	rb = ring_buffer__new(bpf_object__find_map_fd_by_name(obj, "recs"),
			      on_rec, NULL, NULL);
	if (!rb) {
		fprintf(stderr, "kpelt: ring buffer: %s\n", strerror(errno));
		goto cleanup;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "ready\n");
	while (!stop) {
		if (ring_buffer__poll(rb, 100) < 0 && errno != EINTR)
			break;
	}
	ring_buffer__consume(rb);
	fflush(stdout);
	bpf_map_lookup_elem(bpf_object__find_map_fd_by_name(obj, "lost"),
			    &zero, &lost);
	fprintf(stderr, "lost %llu\n", (unsigned long long)lost);
	err = 0;
cleanup:
	ring_buffer__free(rb);
	bpf_object__close(obj);
	return err;
}
