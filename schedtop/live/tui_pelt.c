// SPDX-License-Identifier: GPL-2.0
/* The traced tasks' and CPUs' recent PELT updates, their time axis (tui_pelt.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tui_pelt.h"

static uint16_t clamp16(uint64_t v)
{
	return v > UINT16_MAX ? UINT16_MAX : v;
}

static void keep(struct pelt_task *t, const struct schedstat_pelt_update *u)
{
	struct pelt_point *p = &t->p[t->head];

	p->ts_ns = u->ts_ns;
	p->util = clamp16(u->util_avg);
	p->runnable = clamp16(u->runnable_avg);
	p->util_est = clamp16(u->util_est);
	p->has_util_est = u->avail & SCHEDSTAT_AVAIL_UTIL_EST;
	t->head = (t->head + 1) % PELT_RING;
	if (t->n < PELT_RING)
		t->n++;
}

static struct pelt_task *series_new(int32_t pid, int32_t cpu,
				    enum schedstat_pelt_entity entity)
{
	struct pelt_task *t = calloc(1, sizeof(*t));

	if (t) {
		t->pid = pid;
		t->cpu = cpu;
		t->entity = entity;
	}
	return t;
}

/* A CPU entity's update: its CPU's row of series, made on first sight. */
static int add_cpu(struct tui_pelt *tp, const struct schedstat_pelt_update *u,
		   enum schedstat_pelt_entity entity)
{
	int e = entity - SCHEDSTAT_PELT_CFS;
	size_t k;

	for (k = 0; k < tp->nr_cpus && tp->cpus[k] != u->cpu; k++)
		;
	if (k == tp->nr_cpus) {
		if (k == PELT_CPUS) {
			tp->cpu_untracked++;
			return 0;
		}
		tp->cpus[tp->nr_cpus++] = u->cpu;
	}
	if (!tp->cpu_series[k][e]) {
		tp->cpu_series[k][e] = series_new(-1, u->cpu, entity);
		if (!tp->cpu_series[k][e])
			return -ENOMEM;
	}
	keep(tp->cpu_series[k][e], u);
	return 0;
}

int tui_pelt_add(struct tui_pelt *tp, const struct schedstat_pelt_update *u)
{
	struct pelt_task *t = NULL;

	for (int e = SCHEDSTAT_PELT_CFS; e <= SCHEDSTAT_PELT_IRQ; e++)
		if (u->pid < 0 && !strcmp(u->entity, schedstat_pelt_entity_name(e)))
			return add_cpu(tp, u, e);
	if (u->pid < 0 || strcmp(u->entity, "task"))
		return 0;
	for (size_t i = 0; i < tp->nr; i++) {
		if (tp->tasks[i]->pid == u->pid) {
			t = tp->tasks[i];
			break;
		}
	}
	if (!t) {
		if (tp->nr == PELT_TASKS) {
			tp->untracked++;
			return 0;
		}
		t = series_new(u->pid, -1, SCHEDSTAT_PELT_TASK);
		if (!t)
			return -ENOMEM;
		tp->tasks[tp->nr++] = t;
	}
	keep(t, u);
	return 0;
}

const struct pelt_task *tui_pelt_find(const struct tui_pelt *tp, int32_t pid)
{
	for (size_t i = 0; tp && i < tp->nr; i++)
		if (tp->tasks[i]->pid == pid && tp->tasks[i]->n)
			return tp->tasks[i];
	return NULL;
}

const struct pelt_task *tui_pelt_find_cpu(const struct tui_pelt *tp, int32_t cpu,
					  enum schedstat_pelt_entity entity)
{
	int e = entity - SCHEDSTAT_PELT_CFS;

	if (e < 0 || e >= PELT_CPU_ENTITIES)
		return NULL;
	for (size_t k = 0; tp && k < tp->nr_cpus; k++)
		if (tp->cpus[k] == cpu && tp->cpu_series[k][e] &&
		    tp->cpu_series[k][e]->n)
			return tp->cpu_series[k][e];
	return NULL;
}

void tui_pelt_clear(struct tui_pelt *tp)
{
	for (size_t i = 0; i < tp->nr; i++)
		tp->tasks[i]->n = tp->tasks[i]->head = 0;
	for (size_t k = 0; k < tp->nr_cpus; k++)
		for (int e = 0; e < PELT_CPU_ENTITIES; e++)
			if (tp->cpu_series[k][e])
				tp->cpu_series[k][e]->n = tp->cpu_series[k][e]->head = 0;
	tp->untracked = tp->cpu_untracked = 0;
}

void tui_pelt_free(struct tui_pelt *tp)
{
	for (size_t i = 0; i < tp->nr; i++)
		free(tp->tasks[i]);
	for (size_t k = 0; k < tp->nr_cpus; k++)
		for (int e = 0; e < PELT_CPU_ENTITIES; e++)
			free(tp->cpu_series[k][e]);
	memset(tp, 0, sizeof(*tp));
}

static int value(const struct pelt_point *p, enum pelt_signal sig)
{
	switch (sig) {
	case PELT_RUNNABLE:
		return p->runnable;
	case PELT_UTIL_EST:
		return p->has_util_est ? p->util_est : -1;
	default:
		return p->util;
	}
}

size_t tui_pelt_layout(const struct pelt_task *t, enum pelt_signal sig,
		       uint64_t now_ns, uint64_t window_ns, int width, int *cols)
{
	uint64_t start = now_ns > window_ns ? now_ns - window_ns : 0;
	int held = -1, filled = 0;	/* columns before @filled are set */
	size_t shown = 0;

	if (width <= 0 || !window_ns)
		return 0;
	for (int i = 0; i < width; i++)
		cols[i] = -1;
	for (uint32_t k = 0; t && k < t->n; k++) {
		const struct pelt_point *p =
			&t->p[(t->head + PELT_RING - t->n + k) % PELT_RING];
		int v = value(p, sig), col;

		if (p->ts_ns > now_ns)
			break;
		if (p->ts_ns <= start) {
			held = v;
			continue;
		}
		/* The column whose interval (a, b] holds the update. */
		col = ((p->ts_ns - start) * width + window_ns - 1) / window_ns - 1;
		if (col >= width)
			col = width - 1;
		while (filled < col)
			cols[filled++] = held;
		if (filled == col) {
			cols[col] = v;
			filled++;
		} else if (v > cols[col]) {
			cols[col] = v;
		}
		held = v;
		shown++;
	}
	while (filled < width)
		cols[filled++] = held;
	return shown;
}
