// SPDX-License-Identifier: GPL-2.0
/* schedtop's --atrace counters held and written into the rows (atrace_values.h). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atrace_values.h"
#include "schedstat-local.h"

/* row (2 bits) | offset (16 bits) | subject: a tid, a CPU, a cluster's id. */
static uint64_t key(unsigned int row, unsigned int offset, uint32_t subject)
{
	return (uint64_t)row << 62 | (uint64_t)offset << 40 | subject;
}

int atrace_values_init(struct atrace_values *v, const struct schedstat_topology *topo)
{
	memset(v, 0, sizeof(*v));
	v->topo = topo;
	return schedstat_hash_new(&v->idx);
}

void atrace_values_free(struct atrace_values *v)
{
	schedstat_hash_free(v->idx);
	free(v->vals);
	memset(v, 0, sizeof(*v));
}

static int subject_of(const struct atrace_values *v, const struct trace_ev *ev,
		      uint32_t *out)
{
	switch (ev->counter.row) {
	case SCHEDSTAT_ROW_TASK:
		*out = (uint32_t)ev->counter.tid;
		return 0;
	case SCHEDSTAT_ROW_CPU:
		if (ev->counter.cpu >= schedstat_topology_nr_cpus(v->topo))
			return -ENOENT;
		*out = (uint32_t)ev->counter.cpu;
		return 0;
	default:
		/* The topology's clusters only: any other app's "X nr_running" is not ours. */
		for (int i = 0; i < schedstat_topology_nr_clusters(v->topo); i++)
			if (!strcmp(schedstat_topology_cluster_name(v->topo, i),
				    ev->counter.cluster)) {
				*out = (uint32_t)i;
				return 0;
			}
		return -ENOENT;
	}
}

static int note_field(struct atrace_values *v, const struct trace_ev *ev)
{
	for (int i = 0; i < v->nr_fields; i++)
		if (v->fields[i].row == ev->counter.row &&
		    v->fields[i].offset == ev->counter.offset)
			return 0;
	if (v->nr_fields == ATRACE_VALUES_FIELDS)
		return -ENOENT;
	v->fields[v->nr_fields].row = ev->counter.row;
	v->fields[v->nr_fields].type = ev->counter.type;
	v->fields[v->nr_fields].offset = ev->counter.offset;
	v->nr_fields++;
	return 0;
}

int atrace_values_take(struct atrace_values *v, const struct trace_ev *ev)
{
	struct atrace_value *val;
	uint32_t subject;
	uint64_t i;

	if (subject_of(v, ev, &subject) || note_field(v, ev)) {
		v->ignored++;
		return 0;
	}
	if (!schedstat_hash_get(v->idx, key(ev->counter.row, ev->counter.offset,
					    subject), &i)) {
		val = &v->vals[i];
		val->gap = ev->ts > val->ts ? ev->ts - val->ts : 0;
	} else {
		if (schedstat_array_reserve((void **)&v->vals, &v->cap, v->nr + 1,
					    sizeof(*v->vals)))
			return -ENOMEM;
		if (schedstat_hash_put(v->idx, key(ev->counter.row, ev->counter.offset,
						   subject), v->nr))
			return -ENOMEM;
		val = &v->vals[v->nr++];
		val->gap = 0;
	}
	val->value = ev->counter.value;
	val->ts = ev->ts;
	v->taken++;
	return 0;
}

/* 2^64 is one past uint64_t: the largest double below it. */
#define U64_AS_DOUBLE_MAX 18446744073709549568.0

/*
 * @d held to [@lo, @hi]: a file's counter can say anything (1.5e18 for a
 * u32 field, a NaN), and converting a double outside the integer type's
 * range is undefined behaviour (the Perfetto fuzzer's finding). NaN is 0.
 */
static double clamp(double d, double lo, double hi)
{
	if (isnan(d))
		return 0;
	return d < lo ? lo : d > hi ? hi : d;
}

static void store(void *row, unsigned int type, size_t offset, double d)
{
	char *p = (char *)row + offset;

	switch (type) {
	case SCHEDSTAT_FIELD_BOOL:
		*(bool *)p = d != 0;
		break;
	case SCHEDSTAT_FIELD_S32: {
		int32_t x = (int32_t)clamp(d, INT32_MIN, INT32_MAX);

		memcpy(p, &x, sizeof(x));
		break;
	}
	case SCHEDSTAT_FIELD_U32: {
		uint32_t x = (uint32_t)clamp(d, 0, UINT32_MAX);

		memcpy(p, &x, sizeof(x));
		break;
	}
	case SCHEDSTAT_FIELD_U64: {
		uint64_t x = (uint64_t)clamp(d, 0, U64_AS_DOUBLE_MAX);

		memcpy(p, &x, sizeof(x));
		break;
	}
	case SCHEDSTAT_FIELD_F64:
		/* No NaN or infinity into a row: CSV and report print numbers. */
		d = isfinite(d) ? d : 0;
		memcpy(p, &d, sizeof(d));
		break;
	}
}

/* The SCHEDSTAT_AVAIL_* bit that guards a CPU row's field, 0 if none. */
static uint32_t cpu_guard(size_t offset)
{
	const struct schedstat_signal *sig;
	size_t n;

	/* A signal of tasks and CPUs alike: the table guards no CPU field with it. */
	if (offset == offsetof(struct schedstat_cpu, util_est))
		return SCHEDSTAT_AVAIL_UTIL_EST;
	sig = schedstat_signals(&n);
	for (size_t i = 0; i < n; i++)
		for (size_t f = 0; f < SCHEDSTAT_SIGNAL_FIELDS && sig[i].cpu_fields[f].name; f++)
			if (sig[i].cpu_fields[f].offset == offset)
				return sig[i].avail;
	return 0;
}

/*
 * The SCHEDSTAT_AVAIL_* bit a cluster row's field is shown under (the
 * cluster table's columns): a value read is shown, whatever the CPUs
 * the model summed had.
 */
static uint32_t cluster_guard(size_t offset)
{
	switch (offset) {
	case offsetof(struct schedstat_cluster, util_pct):
		return SCHEDSTAT_AVAIL_CFS;
	case offsetof(struct schedstat_cluster, busy_pct):
		return SCHEDSTAT_AVAIL_BUSY;
	case offsetof(struct schedstat_cluster, freq_khz):
	case offsetof(struct schedstat_cluster, freq_avg_khz):
		return SCHEDSTAT_AVAIL_FREQ;
	case offsetof(struct schedstat_cluster, power_mw):
	case offsetof(struct schedstat_cluster, eas_power_mw):
	case offsetof(struct schedstat_cluster, energy_uj):
		return SCHEDSTAT_AVAIL_ENERGY;
	}
	return 0;
}

/*
 * The SCHEDSTAT_AVAIL_* bit a task row's field is shown under (the task
 * table's columns). Tasks have no bits of their own: their snapshot's
 * are, so only an export (every task's values its own) sets them.
 */
static uint32_t task_guard(size_t offset)
{
	switch (offset) {
	case offsetof(struct schedstat_task, util_est):
		return SCHEDSTAT_AVAIL_UTIL_EST;
	case offsetof(struct schedstat_task, cpu):
	case offsetof(struct schedstat_task, wait_ns):
	case offsetof(struct schedstat_task, cpu_pct):
	case offsetof(struct schedstat_task, misfit):
		return SCHEDSTAT_AVAIL_TASK_TIME;
	}
	return 0;
}

static uint32_t guard(unsigned int kind, size_t offset)
{
	switch (kind) {
	case SCHEDSTAT_ROW_TASK:
		return task_guard(offset);
	case SCHEDSTAT_ROW_CPU:
		return cpu_guard(offset);
	default:
		return cluster_guard(offset);
	}
}

/* Row @row of kind @kind about @subject: its held fields written. */
static bool apply_row(struct atrace_values *v, unsigned int kind, void *row,
		      uint32_t subject, uint64_t ts, uint64_t hold_ns, uint32_t *avail)
{
	bool pelt = false;
	size_t util = kind == SCHEDSTAT_ROW_TASK ? offsetof(struct schedstat_task, util_avg) :
		      offsetof(struct schedstat_cpu, util_avg);

	for (int f = 0; f < v->nr_fields; f++) {
		const struct atrace_value *val;
		uint64_t i, hold;

		if (v->fields[f].row != kind ||
		    schedstat_hash_get(v->idx, key(kind, v->fields[f].offset, subject), &i))
			continue;
		val = &v->vals[i];
		hold = val->gap ? val->gap + val->gap / 2 : hold_ns;
		if (val->ts > ts || (!v->hold_all && ts - val->ts > hold))
			continue;
		store(row, v->fields[f].type, v->fields[f].offset, val->value);
		if (avail)
			*avail |= guard(kind, v->fields[f].offset);
		if (kind != SCHEDSTAT_ROW_CLUSTER && v->fields[f].offset == util)
			pelt = true;
		v->set++;
	}
	return pelt;
}

void atrace_values_apply(struct atrace_values *v, struct schedstat_snapshot *snap,
			 uint64_t ts, uint64_t hold_ns)
{
	uint32_t task_avail = 0;

	if (!v->taken)
		return;
	for (size_t i = 0; i < snap->nr_tasks; i++) {
		struct schedstat_task *t = &snap->tasks[i];

		int32_t cpu = t->cpu;

		double pct = t->cpu_pct;

		if (t->pid > 0 && apply_row(v, SCHEDSTAT_ROW_TASK, t, (uint32_t)t->pid,
					    ts, hold_ns, v->hold_all ? &task_avail : NULL))
			t->pelt_estimated = false;
		/*
		 * An export's cpu_pct is over the interval of its source's
		 * sample, which its instants repeat: the run time it gives is
		 * that sample's (cpu_pct is recomputed from it downstream).
		 */
		if (v->hold_all && t->cpu_pct != pct && snap->interval_ns)
			t->run_ns = (uint64_t)clamp(t->cpu_pct * snap->interval_ns /
						    100.0 + 0.5, 0, U64_AS_DOUBLE_MAX);
		/* Its CPU as schedtop saw it: the cluster goes with it. */
		if (t->cpu != cpu)
			t->cluster = schedstat_topology_cpu_cluster(v->topo, t->cpu);
	}
	/* An export's tasks: what it carries is shown, the rest stays empty. */
	snap->avail |= task_avail;
	for (size_t i = 0; i < snap->nr_cpus; i++) {
		struct schedstat_cpu *c = &snap->cpus[i];

		if (c->cpu >= 0 && apply_row(v, SCHEDSTAT_ROW_CPU, c, (uint32_t)c->cpu,
					     ts, hold_ns, &c->avail))
			c->pelt_estimated = false;
	}
	for (size_t i = 0; i < snap->nr_clusters; i++) {
		struct schedstat_cluster *cl = &snap->clusters[i];

		if (cl->id >= 0)
			apply_row(v, SCHEDSTAT_ROW_CLUSTER, cl, (uint32_t)cl->id, ts,
				  hold_ns, &cl->avail);
	}
}
