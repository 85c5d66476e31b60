// SPDX-License-Identifier: GPL-2.0
/*
 * How a sample of the BPF source reads the tasks: from the task table where
 * the kernel allows it (bpf/task_table.bpf.h: only the records that changed,
 * and the tasks gone), else with the task iterator's walk (every task's
 * record). Chosen before load; the walk stays loaded as the way back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "bpf_source.h"

/* PROC_PID_INIT_INO: the initial pid namespace's inode. */
#define PID_NS_INIT_INO	0xEFFFFFFCu

/*
 * The table holds every task of the system, by its pid there; the task
 * iterator lists the tasks of the reader's pid namespace. Outside the
 * initial one (a container) they differ: walk.
 */
static bool in_init_pid_ns(void)
{
	struct stat st;

	return !stat("/proc/self/ns/pid", &st) && st.st_ino == PID_NS_INIT_INO;
}

/* pid_max as a power of two of slots, or 0 if the table cannot hold it. */
static uint32_t table_slots(void)
{
	char buf[32];
	uint64_t max;
	uint32_t n = 64;

	if (util_read_small_file("/proc/sys/kernel/pid_max", buf, sizeof(buf)) < 0 ||
	    sysfs_parse_u64(buf, &max) || max > ST_MAX_TASK_SLOTS)
		return 0;
	while (n < max)
		n *= 2;
	return n;
}

static bool have_kfunc(const struct btf *vmlinux, const char *name)
{
	return btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
}

/*
 * st_task_slot.task holds a reference to a task: the kernel must know it
 * as a kptr, a pointer to task_struct whose BTF type is tagged "kptr".
 * clang 15 and later write that tag from __attribute__((btf_type_tag));
 * Debian 12's clang 14 drops it. So the object's BTF gets it here, before
 * load: the member's type becomes a pointer to a "kptr" tag of task_struct.
 */
static int tag_kptr(struct bpf_object *obj)
{
	struct btf *btf = bpf_object__btf(obj);
	int slot_id, task_id, tag_id, ptr_id;
	struct btf_member *m;
	struct btf_type *t;

	if (!btf)
		return -ENOENT;
	slot_id = btf__find_by_name_kind(btf, "st_task_slot", BTF_KIND_STRUCT);
	task_id = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	if (slot_id < 0 || task_id < 0)
		return -ENOENT;
	tag_id = btf__add_type_tag(btf, "kptr", task_id);
	if (tag_id < 0)
		return tag_id;
	ptr_id = btf__add_ptr(btf, tag_id);
	if (ptr_id < 0)
		return ptr_id;
	/* Added types made the BTF writable: look the struct up again. */
	t = (struct btf_type *)btf__type_by_id(btf, slot_id);
	m = btf_members(t);
	if (!btf_vlen(t) || strcmp(btf__name_by_offset(btf, m->name_off), "task") ||
	    m->offset)
		return -EINVAL;
	m->type = ptr_id;
	return 0;
}

static void set_table_programs(struct bpfsrc *s, bool on)
{
	struct schedtop_bpf *k = s->skel;

	bpf_program__set_autoload(k->progs.scan_tasks, on && s->ksyms);
	bpf_program__set_autoload(k->progs.scan_tasks_nosym, on && !s->ksyms);
	bpf_program__set_autoload(k->progs.fill_task_table, on);
	bpf_program__set_autoload(k->progs.track_new, on);
	bpf_program__set_autoload(k->progs.track_exec, on);
	bpf_map__set_autocreate(k->maps.task_table, on);
	bpf_map__set_autocreate(k->maps.task_out, on);
	/* The fill is attached by hand and run once; the scan is run. */
	bpf_program__set_autoattach(k->progs.fill_task_table, false);
}

int bpfsrc_tasks_choose(struct bpfsrc *s, const struct btf *vmlinux, bool table)
{
	uint32_t slots = 0;
	int err;

	if (table && have_kfunc(vmlinux, "bpf_iter_num_new") &&
	    have_kfunc(vmlinux, "bpf_task_acquire") &&
	    have_kfunc(vmlinux, "bpf_task_release") &&
	    have_kfunc(vmlinux, "bpf_rcu_read_lock") && in_init_pid_ns())
		slots = table_slots();
	s->task_table = slots != 0;
	set_table_programs(s, s->task_table);
	if (!s->task_table)
		return 0;
	s->skel->rodata->task_slots = slots;
	err = bpf_map__set_max_entries(s->skel->maps.task_table, slots);
	if (!err)
		err = tag_kptr(s->skel->obj);
	return err;
}

/* Runs an iterator whose program writes nothing to read. */
static int run_silent(struct bpf_link *link)
{
	int fd = bpf_iter_create(bpf_link__fd(link));
	char buf[64];
	ssize_t got;
	int err = 0;

	if (fd < 0)
		return -errno;
	while ((got = read(fd, buf, sizeof(buf))) != 0) {
		if (got < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
	}
	close(fd);
	return err;
}

/* Every task into the table, once: the forks after are taken as they come. */
static int fill_table(struct bpfsrc *s)
{
	struct bpf_link *link;
	int err;

	link = bpf_program__attach_iter(s->skel->progs.fill_task_table, NULL);
	if (!link)
		return -errno;
	err = run_silent(link);
	bpf_link__destroy(link);
	return err;
}

/*
 * A task the table could not take (pid_max raised past its size since it
 * was made): from now on the walk, which needs no table. No more forks are
 * taken, and the references held are let go (an update of an array
 * element releases its kptr), or the tasks released since would stay
 * allocated until schedtop exits.
 */
static void leave_table(struct bpfsrc *s)
{
	const __u64 *bits = s->skel->bss->task_bits;
	int fd = bpf_map__fd(s->skel->maps.task_table);
	struct st_task_slot zero = {};

	bpf_link__destroy(s->skel->links.track_new);
	bpf_link__destroy(s->skel->links.track_exec);
	s->skel->links.track_new = NULL;
	s->skel->links.track_exec = NULL;
	for (uint32_t k = 0; k < s->skel->rodata->task_slots; k++)
		if (bits[k / 64] & (1ULL << (k % 64)))
			bpf_map_update_elem(fd, &k, &zero, BPF_ANY);
	s->task_table = false;
}

int bpfsrc_tasks_start(struct bpfsrc *s)
{
	size_t len;
	void *p;
	int err;

	if (!s->task_table)
		return 0;
	s->scan_fd = bpf_program__fd(s->ksyms ? s->skel->progs.scan_tasks :
					       s->skel->progs.scan_tasks_nosym);
	len = sizeof(struct st_task_out) * ST_TASK_OUT;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED,
		 bpf_map__fd(s->skel->maps.task_out), 0);
	if (p == MAP_FAILED)
		return -errno;
	s->task_out = p;
	err = fill_table(s);
	if (err)
		return err;
	if (s->skel->bss->task_scan.lost)
		leave_table(s);
	return 0;
}

void bpfsrc_tasks_stop(struct bpfsrc *s)
{
	if (s->task_out)
		munmap((void *)s->task_out, sizeof(struct st_task_out) * ST_TASK_OUT);
	free(s->gone);
}

/* Run a task iterator link once, reading what it writes into s->recs. */
static int run_iter(struct bpfsrc *s, struct bpf_link *link, size_t *len)
{
	int fd = bpf_iter_create(bpf_link__fd(link));
	int err = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got;

		/* Room for 64 KiB more, the most one read() gives. */
		if (schedstat_array_reserve((void **)&s->recs, &s->recs_cap,
					    *len + 64 * 1024, 1)) {
			err = -ENOMEM;
			goto cleanup;
		}
		got = read(fd, (char *)s->recs + *len, s->recs_cap - *len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			goto cleanup;
		}
		if (got == 0)
			break;
		*len += got;
	}
cleanup:
	close(fd);
	return err;
}

int bpfsrc_tasks_walk(struct bpfsrc *s, size_t *nr)
{
	struct bpf_link *link = s->ksyms ? s->skel->links.dump_task :
					   s->skel->links.dump_task_nosym;
	size_t len = 0;
	int err;

	err = run_iter(s, link, &len);
	if (err)
		return err;
	if (len % sizeof(struct st_task_rec))
		return -EPROTO;
	*nr = len / sizeof(struct st_task_rec);
	return 0;
}

static int walk_tasks(struct bpfsrc *s, struct model_input *in)
{
	int err = bpfsrc_tasks_walk(s, &in->nr_tasks);

	in->tasks = s->recs;
	in->tasks_changed = false;
	return err;
}

/* What the scan wrote into task_out: changed records and gone pids. */
static int take_out(struct bpfsrc *s, uint32_t n, size_t *nr)
{
	for (uint32_t i = 0; i < n && i < ST_TASK_OUT; i++) {
		const struct st_task_out *o = &s->task_out[i];

		if (o->change == ST_TASK_GONE) {
			if (schedstat_array_reserve((void **)&s->gone, &s->cap_gone,
						    s->nr_gone + 1, sizeof(*s->gone)))
				return -ENOMEM;
			s->gone[s->nr_gone++] = o->pid;
			continue;
		}
		/* recs_cap counts bytes (run_iter()). */
		if (schedstat_array_reserve((void **)&s->recs, &s->recs_cap,
					    (*nr + 1) * sizeof(*s->recs), 1))
			return -ENOMEM;
		s->recs[(*nr)++] = o->rec;
	}
	return 0;
}

/* One call of the scan program: BPF_PROG_RUN, one system call. */
static int run_scan(struct bpfsrc *s)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	return bpf_prog_test_run_opts(s->scan_fd, &opts) ? -errno : 0;
}

/*
 * The table's scan: calls until it reached the end, taking task_out's
 * records after each (it stops when they fill it).
 */
static int scan_tasks(struct bpfsrc *s, struct model_input *in)
{
	struct st_task_scan *scan = &s->skel->bss->task_scan;
	size_t nr = 0;
	int err;

	s->nr_gone = 0;
	scan->cursor = 0;
	scan->done = 0;
	do {
		scan->nr_out = 0;
		err = run_scan(s);
		if (!err)
			err = take_out(s, scan->nr_out, &nr);
		if (err)
			return err;
	} while (!scan->done);
	in->tasks = s->recs;
	in->nr_tasks = nr;
	in->tasks_changed = true;
	in->gone = s->gone;
	in->nr_gone = s->nr_gone;
	s->nr_table_tasks = scan->nr_tasks;
	return 0;
}

int bpfsrc_tasks_read(struct bpfsrc *s, struct model_input *in)
{
	if (s->task_table && s->skel->bss->task_scan.lost)
		leave_table(s);
	if (s->task_table)
		return scan_tasks(s, in);
	return walk_tasks(s, in);
}
