// SPDX-License-Identifier: GPL-2.0
/*
 * What the model tests share: a model over two CPUs fed synthetic kernel
 * records, and lookups in its snapshots.
 */
#ifndef MODEL_FIXTURE_H
#define MODEL_FIXTURE_H

#define MS 1000000ULL

struct fixture {
	struct schedstat_topology *topo;
	struct model *model;
	struct st_cpu_state cpus[2];
	struct st_global_state global;
	struct cpuset online;
	struct st_task_rec tasks[8];
	size_t nr;
};

__attribute__((unused))
static int setup(void **state)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	if (schedstat_topology_parse(&f.topo, "LITTLE:0@512,big:1@1024", NULL))
		return -1;
	if (model_new(&f.model, f.topo))
		return -1;
	cpuset_set(&f.online, 0);
	cpuset_set(&f.online, 1);
	*state = &f;
	return 0;
}

__attribute__((unused))
static int teardown(void **state)
{
	struct fixture *f = *state;

	model_free(f->model);
	schedstat_topology_free(f->topo);
	return 0;
}

__attribute__((unused))
static struct st_task_rec *add_task(struct fixture *f, int pid, const char *comm,
				    int cpu)
{
	struct st_task_rec *r = &f->tasks[f->nr++];

	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->tgid = pid;
	strncpy(r->comm, comm, sizeof(r->comm) - 1);
	r->cpu = cpu;
	r->prio = 120;
	r->start_time = 1000 + pid;
	return r;
}

__attribute__((unused))
static struct schedstat_snapshot *update(struct fixture *f, uint64_t ts)
{
	struct model_input in = {
		.ts_ns = ts,
		.tasks = f->tasks,
		.nr_tasks = f->nr,
		.cpus = f->cpus,
		.nr_cpus = 2,
		.online = &f->online,
		.global = &f->global,
		.avail = SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_RT |
			 SCHEDSTAT_AVAIL_WAKEUPS | SCHEDSTAT_AVAIL_OVERUTILIZED |
			 SCHEDSTAT_AVAIL_BUSY | SCHEDSTAT_AVAIL_PREEMPT |
			 SCHEDSTAT_AVAIL_OVERUTILIZED_NS,
	};
	struct schedstat_snapshot *s = NULL;

	assert_int_equal(model_update(f->model, &in, &s), 0);
	return s;
}

__attribute__((unused))
static const struct schedstat_task *find(const struct schedstat_snapshot *s,
					 int pid, bool exited)
{
	size_t n;
	const struct schedstat_task *t = schedstat_snapshot_tasks(s, &n);

	for (size_t i = 0; i < n; i++)
		if (t[i].pid == pid && t[i].exited == exited)
			return &t[i];
	return NULL;
}

#endif /* MODEL_FIXTURE_H */
