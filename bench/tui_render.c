// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of one live-view frame (rows: filter + sort; draw: ncurses into a
 * 200x50 screen written to /dev/null) for synthetic snapshots of N tasks.
 * Usage: tui_render N [FRAMES]; prints "N us_per_frame rows_us draw_us".
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "tui_draw.h"
#include "tui_view.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	int frames = argc > 2 ? atoi(argv[2]) : 200;
	struct schedstat_topology *topo;
	struct schedstat_snapshot *snap = NULL;
	struct st_task_rec *recs = calloc(n, sizeof(*recs));
	struct st_cpu_state cpus[8] = {};
	struct st_global_state g = {};
	struct cpuset online = {};
	struct tui_style style = { .color = true, .utf8 = true };
	struct model *m;
	struct view v;
	uint64_t t_rows = 0, t_draw = 0;
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	SCREEN *scr;

	for (int c = 0; c < 8; c++)
		cpuset_set(&online, c);
	schedstat_topology_parse(&topo, "LITTLE:0-3@446,big:4-6@870,prime:7@1024", NULL);
	model_new(&m, topo);
	for (size_t i = 0; i < n; i++) {
		recs[i].pid = i + 1;
		recs[i].tgid = i / 4 + 1;
		snprintf(recs[i].comm, sizeof(recs[i].comm), "task-%u", (unsigned int)(i % 1000000));
		recs[i].cpu = i % 8;
		recs[i].prio = 120;
		recs[i].start_time = i;
		recs[i].util_avg = (i * 37) % 1024;
		recs[i].on_rq = i % 3 == 0;
	}
	struct model_input inp = {
		.tasks = recs, .nr_tasks = n, .cpus = cpus, .nr_cpus = 8,
		.online = &online, .global = &g,
	};
	for (int k = 0; k < 2; k++) {
		inp.ts_ns = (k + 1) * 1000000000ULL;
		for (size_t i = 0; i < n; i++)
			recs[i].sum_exec_runtime += i * 1000;
		schedstat_snapshot_free(snap);
		model_update(m, &inp, &snap);
	}
	scr = newterm("xterm-256color", out, in);
	if (!scr)
		scr = newterm("vt100", out, in);
	resizeterm(50, 200);
	tui_draw_init(&style);
	view_init(&v, 1000);
	view_update(&v, snap);
	for (int f = 0; f < frames; f++) {
		uint64_t a = now_ns(), b, c;

		view_rows(&v, snap, schedstat_snapshot_ts_ns(snap));
		b = now_ns();
		tui_draw(&v, snap, topo, &style);
		c = now_ns();
		t_rows += b - a;
		t_draw += c - b;
	}
	endwin();
	delscreen(scr);
	printf("%zu %.1f %.1f %.1f\n", n, (t_rows + t_draw) / 1e3 / frames,
	       t_rows / 1e3 / frames, t_draw / 1e3 / frames);
	view_free(&v);
	schedstat_snapshot_free(snap);
	model_free(m);
	schedstat_topology_free(topo);
	free(recs);
	return 0;
}
