// SPDX-License-Identifier: GPL-2.0
/*
 * Drawing of the live view. Reads the view and the snapshot, writes the
 * screen; never changes the view except to keep the selection visible.
 * Colours, text, bars and sparklines are tui_paint.c's; the --pelt-trace
 * streams tui_draw_pelt.c's.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "array_size.h"
#include "tui_draw_local.h"

_Static_assert(VK_DOWN == KEY_DOWN && VK_NPAGE == KEY_NPAGE &&
	       VK_ENTER == KEY_ENTER && VK_END == KEY_END && VK_F0 == KEY_F0,
	       "tui_keys.h key codes must be ncurses' own");

static int count_cpu_lines(const struct schedstat_snapshot *snap)
{
	size_t nc, nu;

	schedstat_snapshot_clusters(snap, &nc);
	schedstat_snapshot_cpus(snap, &nu);
	return nc + nu;
}

/* Rows for the cluster block: all CPUs if they fit, else clusters only. */
static bool show_cpus(const struct schedstat_snapshot *snap)
{
	return LINES - 4 - count_cpu_lines(snap) >= 5;
}

static int top_lines(const struct schedstat_snapshot *snap)
{
	size_t nc;

	schedstat_snapshot_clusters(snap, &nc);
	return 1 + (show_cpus(snap) ? count_cpu_lines(snap) : (int)nc);
}

size_t tui_draw_page(const struct schedstat_snapshot *snap)
{
	int rows = LINES - top_lines(snap) - 2;

	return rows > 0 ? rows : 0;
}

static void draw_title(const struct view *v, const struct schedstat_snapshot *snap)
{
	size_t nc, nu;
	char s[160];

	schedstat_snapshot_clusters(snap, &nc);
	schedstat_snapshot_cpus(snap, &nu);
	snprintf(s, sizeof(s), "schedtop %s  %zu CPUs in %zu clusters  every %lu ms",
		 SCHEDTOP_VERSION, nu, nc, v->interval_ms);
	tui_put(0, 0, C_TITLE, s);
	/* A slowed machine must not be read as the real one. */
	if (v->emul && COLS > (int)strlen(s) + 20) {
		char e[128], d[96];

		snprintf(e, sizeof(e), "  EMULATED %s%s",
			 schedstat_emulation_describe(v->emul, d, sizeof(d)),
			 schedstat_emulation_method(v->emul) == SCHEDSTAT_EMULATE_STEALER ?
			 " (rt* is the stealer)" : "");
		tui_put(0, strlen(s), C_ALERT, e);
	}
	if (v->paused && COLS > 50)
		tui_put(0, COLS - 8, C_ALERT, " PAUSED ");
}

static void draw_cpu(int y, const struct view *v, const struct schedstat_cpu *c,
		     const struct tui_style *st)
{
	static const enum color colors[] = { C_CFS, C_RT, C_DL, C_IRQ };
	unsigned int vals[] = { c->util_avg, c->rt_util, c->dl_util, c->irq_util };
	int w = COLS / 4 < 32 ? COLS / 4 : 32;
	char s[160];

	snprintf(s, sizeof(s), "  cpu%-3d", c->cpu);
	tui_put(y, 0, C_NORMAL, s);
	if (!c->online) {
		tui_put(y, 8, C_DIM, "offline");
		return;
	}
	tui_bar(y, 8, w, vals, colors, 4, c->capacity ? c->capacity : SCHEDSTAT_CAPACITY_SCALE, st);
	/* rt* : the emulation's stealer makes this RT pressure, not load. */
	snprintf(s, sizeof(s), " util %4u rt%s%3u dl %3u irq %3u  runnable %4u  "
		 "blocked %4u  nr %u", c->util_avg,
		 schedstat_emulation_stealer_cpu(v->emul, c->cpu) ? "*" : " ",
		 c->rt_util, c->dl_util,
		 c->irq_util, c->runnable_avg, c->blocked_util, c->nr_running);
	tui_put(y, 8 + w, C_NORMAL, s);
}

static int draw_clusters(int y, const struct view *v,
			 const struct schedstat_snapshot *snap,
			 const struct tui_style *st)
{
	static const enum color cfs[] = { C_CFS };
	const struct schedstat_cluster *cl;
	const struct schedstat_cpu *cpus;
	bool per_cpu = show_cpus(snap);
	size_t nc, nu;
	char s[200];

	cl = schedstat_snapshot_clusters(snap, &nc);
	cpus = schedstat_snapshot_cpus(snap, &nu);
	for (size_t k = 0; k < nc && y < LINES - 2; k++) {
		unsigned int pct = cl[k].avail & SCHEDSTAT_AVAIL_CFS ?
				   cl[k].util_pct * 10 : 0;
		int w = COLS / 4 < 32 ? COLS / 4 : 32;

		snprintf(s, sizeof(s), "%-8.8s", cl[k].name);
		tui_put(y, 0, C_TITLE, s);
		tui_bar(y, 8, w, &pct, cfs, 1, 1000, st);
		char util[16] = "    -", busy[16] = "-";
		int len;

		/* What the kernel does not keep is a dash, never 0. */
		if (cl[k].avail & SCHEDSTAT_AVAIL_CFS)
			snprintf(util, sizeof(util), "%5.1f%%", cl[k].util_pct);
		if (cl[k].avail & SCHEDSTAT_AVAIL_BUSY)
			snprintf(busy, sizeof(busy), "%.0f%%", cl[k].busy_pct);
		len = snprintf(s, sizeof(s), " %s  cpus %s  cap %u  nr %u  busy %s",
			       util, cl[k].cpus, cl[k].capacity,
			       cl[k].nr_running, busy);

		if (cl[k].freq_khz && len > 0 && (size_t)len < sizeof(s))
			len += snprintf(s + len, sizeof(s) - len, "  %u MHz",
					cl[k].freq_khz / 1000);
		/* The estimate (a); "~" where the clock was not known. */
		if ((cl[k].avail & SCHEDSTAT_AVAIL_ENERGY) && len > 0 && (size_t)len < sizeof(s))
			len += snprintf(s + len, sizeof(s) - len, "  %s%.0f mW",
					cl[k].power_freq_assumed ? "~" : "",
					cl[k].power_mw);
		if (cl[k].misfit_tasks && len > 0 && (size_t)len < sizeof(s))
			snprintf(s + len, sizeof(s) - len, "  misfit %u",
				 cl[k].misfit_tasks);
		tui_put(y, 8 + w, C_NORMAL, s);
		if (cl[k].overutilized == 1) {
			int x = 8 + w + (int)strlen(s) + 2;

			if (x + 12 < COLS)
				tui_put(y, x, C_ALERT, "OVERUTILIZED");
		}
		y++;
		for (size_t i = 0; per_cpu && i < nu && y < LINES - 2; i++)
			if (cpus[i].cluster == (int)k)
				draw_cpu(y++, v, &cpus[i], st);
	}
	return y;
}

/*
 * The shown columns that fit in the width, in table order: the most
 * important ones (lowest tui_rank) are kept when not all fit.
 */
static size_t visible_columns(const struct column_table *t,
			      const struct column **out, size_t max)
{
	unsigned int rank = 0;
	size_t n = 0;

	/* The highest rank whose columns, with all lower ranks, still fit. */
	for (unsigned int r = 0; r < 256; r++) {
		int w = 0;
		bool any = false;

		for (size_t i = 0; i < t->nr_cols; i++) {
			if (!t->cols[i].tui_default || t->cols[i].tui_rank > r)
				continue;
			w += t->cols[i].width + 1;
			any |= t->cols[i].tui_rank == r;
		}
		if (w > COLS)
			break;
		if (any || r == 0)
			rank = r;
	}
	for (size_t i = 0; i < t->nr_cols && n < max; i++)
		if (t->cols[i].tui_default && t->cols[i].tui_rank <= rank)
			out[n++] = &t->cols[i];
	return n;
}

static bool left_aligned(const struct column *c)
{
	return c->type == COL_STR || c->type == COL_CLUSTER || c->type == COL_CHAR;
}

static void draw_cells(int y, const struct column **cols, size_t n,
		       const void *row, const struct schedstat_topology *topo,
		       uint32_t avail, enum color color, bool tree_child)
{
	char s[256], cell[64];
	int x = 0;

	for (size_t i = 0; i < n; i++) {
		const struct column *c = cols[i];
		bool left = left_aligned(c);

		column_text(c, topo, avail, row, cell, sizeof(cell));
		if (tree_child && c->type == COL_STR) {
			memmove(cell + 2, cell, sizeof(cell) - 2);
			cell[0] = ' ';
			cell[1] = '`';
			cell[sizeof(cell) - 1] = '\0';
		}
		snprintf(s, sizeof(s), left ? "%-*.*s " : "%*.*s ", c->width,
			 c->width, cell);
		tui_put(y, x, color, s);
		x += c->width + 1;
	}
}

/* Titles aligned like their values; @sort (may be NULL) underlined. */
static void draw_header(int y, const struct column **cols, size_t n,
			const struct column *sort)
{
	char s[64];
	int x = 0;

	tui_fill_line(y, C_HEADER);
	for (size_t i = 0; i < n; i++) {
		snprintf(s, sizeof(s), left_aligned(cols[i]) ? "%-*s " : "%*s ",
			 cols[i]->width, cols[i]->title);
		tui_put(y, x, C_HEADER, s);
		if (cols[i] == sort)
			mvchgat(y, x, cols[i]->width, tui_attr(C_HEADER) | A_BOLD |
				A_UNDERLINE, tui_pair(C_HEADER), NULL);
		x += cols[i]->width + 1;
	}
}

static void draw_task_table(int y, struct view *v,
			    const struct schedstat_snapshot *snap,
			    const struct schedstat_topology *topo)
{
	const struct column *cols[32];
	size_t n = visible_columns(v->table, cols, 32);
	size_t page = LINES - 1 - (y + 1);

	draw_header(y++, cols, n, view_sort_column(v));
	if (v->selected < v->scroll)
		v->scroll = v->selected;
	if (page && v->selected >= v->scroll + page)
		v->scroll = v->selected - page + 1;
	for (size_t r = v->scroll; r < v->nr_rows && y < LINES - 1; r++, y++) {
		const struct view_row *row = &v->rows[r];
		/* Exited, or the emulation's own stealer: not the user's load. */
		enum color c = row->dimmed ||
			schedstat_emulation_is_stealer(v->emul, row->task->pid) ?
			C_DIM : C_NORMAL;

		if (r == v->selected) {
			tui_fill_line(y, C_SELECTED);
			c = C_SELECTED;
		}
		draw_cells(y, cols, n, row->task, topo,
			   schedstat_snapshot_avail(snap), c,
			   v->tree && row->task->pid != row->task->tgid);
	}
}

static void draw_group_table(int y, const struct schedstat_snapshot *snap,
			     const struct schedstat_topology *topo)
{
	const struct column *cols[32];
	size_t n = visible_columns(&group_table, cols, 32), ng;
	const struct schedstat_group *g = schedstat_snapshot_groups(snap, &ng);

	draw_header(y++, cols, n, NULL);
	for (size_t i = 0; i < ng && y < LINES - 1; i++, y++)
		draw_cells(y, cols, n, &g[i], topo, ~0u, C_NORMAL, false);
	if (!ng && y < LINES - 1)
		tui_put(y, 0, C_DIM, "no group entity has been updated yet");
}

static void draw_status(const struct view *v, const struct schedstat_snapshot *snap)
{
	const struct column *sort = view_sort_column(v);
	char s[256], pelt[48];
	size_t nt;

	tui_fill_line(LINES - 1, C_STATUS);
	if (v->input != INPUT_NONE) {
		snprintf(s, sizeof(s), "%s: %s_", v->input == INPUT_FILTER ?
			 "Filter (comm or pid)" : v->input == INPUT_SEEK ?
			 "Go to (seconds, M:SS)" : "Search", v->input_buf);
		tui_put(LINES - 1, 0, C_STATUS, s);
		return;
	}
	if (v->message) {
		tui_put(LINES - 1, 0, C_STATUS, v->message);
		return;
	}
	schedstat_snapshot_tasks(snap, &nt);
	pelt[0] = '\0';
	if (v->pelt)
		snprintf(pelt, sizeof(pelt), " | PELT lost %llu",
			 (unsigned long long)v->pelt_lost);
	snprintf(s, sizeof(s), "%s%s%lu ms | %zu tasks | dropped %llu%s%s | sort %s%s%s%s%s"
		 " | h help  q quit", v->replay_status, v->replay ? " | " : " ",
		 v->interval_ms, nt,
		 (unsigned long long)schedstat_snapshot_dropped(snap), pelt,
		 schedstat_snapshot_avail(snap) & SCHEDSTAT_AVAIL_PELT_ESTIMATED ?
		 " | PELT estimated (no BPF)" : "", sort->title,
		 (sort->sort_desc != v->sort_invert) ? " v" : " ^",
		 v->filter[0] ? " | filter " : "", v->filter,
		 v->paused ? " | PAUSED" : "");
	tui_put(LINES - 1, 0, C_STATUS, s);
}

static void draw_help(const struct view *v)
{
	int y = 0;

	/* From the key table (tui_keys.c): the keys that really work here. */
	tui_put(y++, 0, C_TITLE, "schedtop keys");
	for (size_t i = 0; i < view_nr_bindings && y < LINES - 1; i++) {
		const struct view_binding *b = &view_bindings[i];
		char s[256];

		if (b->where == BIND_REPLAY && !v->replay)
			continue;
		snprintf(s, sizeof(s), "%-14s %s%s", b->names,
			 b->where == BIND_REPLAY ? "replay: " : "", b->help);
		tui_put(y++, 2, C_NORMAL, s);
	}
	y++;
	tui_put(y++, 0, C_TITLE, "Task columns");
	for (size_t i = 0; i < v->table->nr_cols && y < LINES - 1; i++) {
		const struct column *c = &v->table->cols[i];
		char s[512];

		if (c->type == COL_TS)
			continue;
		snprintf(s, sizeof(s), "%-9s %s", c->title, c->desc);
		tui_put(y++, 2, C_NORMAL, s);
	}
}

static const struct schedstat_task *find_task(const struct view *v,
					      const struct schedstat_snapshot *snap)
{
	const struct schedstat_task *t;
	size_t n;

	t = schedstat_snapshot_tasks(snap, &n);
	for (size_t i = 0; i < n; i++)
		if (t[i].pid == v->detail_pid)
			return &t[i];
	return NULL;
}

static void draw_detail(const struct view *v, const struct schedstat_snapshot *snap,
			const struct schedstat_topology *topo,
			const struct tui_style *st)
{
	const struct schedstat_task *t = find_task(v, snap);
	const struct task_hist *h = view_hist(v, v->detail_pid);
	const struct pelt_task *pt;
	int w = COLS - 16, y = 0;
	char s[256], cell[64];
	uint64_t total = 0;

	snprintf(s, sizeof(s), "task %d%s  (Esc back)", v->detail_pid,
		 t ? "" : " has exited");
	tui_put(y++, 0, C_TITLE, s);
	if (!t || !h)
		return;
	snprintf(s, sizeof(s), "%s  tgid %d  state %c  cpu %d", t->comm, t->tgid,
		 t->state, t->cpu);
	tui_put(y++, 0, C_NORMAL, s);
	y++;
	pt = tui_pelt_find(v->pelt, v->detail_pid);
	if (pt) {
		y = tui_draw_pelt_task(y, pt, schedstat_snapshot_ts_ns(snap), w, st);
		y++;
	} else if (v->pelt && v->pelt->untracked) {
		/* Said, not hidden: -c COMM matched more tasks than are kept. */
		snprintf(s, sizeof(s), "(PELT updates are kept for the first %d "
			 "traced tasks; %llu of others not drawn)", PELT_TASKS,
			 (unsigned long long)v->pelt->untracked);
		tui_put(y++, 0, C_DIM, s);
		y++;
	}
	tui_put(y, 0, C_NORMAL, "util_avg");
	tui_sparkline(y++, 14, w, h->util, NULL, h->n, h->head, SCHEDSTAT_CAPACITY_SCALE, st);
	tui_put(y, 0, C_NORMAL, "runnable");
	tui_sparkline(y++, 14, w, h->runnable, NULL, h->n, h->head, SCHEDSTAT_CAPACITY_SCALE, st);
	snprintf(s, sizeof(s), "(last %u samples, %.0f s; full scale 1024)", h->n,
		 h->n * v->interval_ms / 1000.0);
	tui_put(y++, 14, C_DIM, s);
	y++;
	for (int k = 0; k < schedstat_topology_nr_clusters(topo) && k < 4; k++)
		total += h->cluster_ns[k];
	for (int k = 0; k < schedstat_topology_nr_clusters(topo) && k < 4 &&
	     y < LINES - 1; k++) {
		snprintf(s, sizeof(s), "on %-10s %9.1f ms  %5.1f%%",
			 schedstat_topology_cluster_name(topo, k),
			 h->cluster_ns[k] / 1e6,
			 total ? 100.0 * h->cluster_ns[k] / total : 0.0);
		tui_put(y++, 0, C_NORMAL, s);
	}
	s[0] = '\0';
	for (int i = 0; i < h->nr_last; i++)
		snprintf(s + strlen(s), sizeof(s) - strlen(s), "%s%d", i ? " " : "",
			 h->last_cpus[i]);
	tui_put(y, 0, C_NORMAL, "last CPUs ");
	tui_put(y++, 10, C_NORMAL, s);
	y++;
	for (size_t i = 0; i < v->table->nr_cols && y < LINES - 1; i++) {
		const struct column *c = &v->table->cols[i];

		if (c->type == COL_TS)
			continue;
		column_text(c, topo, schedstat_snapshot_avail(snap), t, cell,
			    sizeof(cell));
		snprintf(s, sizeof(s), "%-13s %s", c->name, cell);
		tui_put(y++, 0, C_NORMAL, s);
	}
}

static void draw_cluster_history(const struct view *v,
				 const struct schedstat_snapshot *snap,
				 const struct tui_style *st)
{
	const struct schedstat_cluster *cl;
	const struct schedstat_cpu *cpus;
	size_t nc, nu;
	int y = 0;

	cl = schedstat_snapshot_clusters(snap, &nc);
	cpus = schedstat_snapshot_cpus(snap, &nu);
	tui_put(y++, 0, C_TITLE, "cluster utilization history, full scale 100%  (Esc back)");
	for (size_t k = 0; k < nc && k < 8 && y < LINES - 2; k++) {
		const struct cluster_hist *h = &v->clusters[k];
		char s[128];

		y++;
		snprintf(s, sizeof(s), "%s (cpus %s): now %.1f%%", cl[k].name,
			 cl[k].cpus, cl[k].util_pct);
		tui_put(y++, 0, C_NORMAL, s);
		tui_sparkline(y++, 2, COLS - 4, NULL, h->util_pct, h->n, h->head, 100, st);
		/* --pelt-cpus: the cluster's traced CPUs, every update. */
		for (size_t i = 0; v->pelt && i < nu; i++)
			if (cpus[i].cluster == cl[k].id)
				y = tui_draw_pelt_cpu(y, LINES - 1, v->pelt,
						      cpus[i].cpu,
						      schedstat_snapshot_ts_ns(snap),
						      COLS - 16, st);
	}
}

void tui_draw(struct view *v, const struct schedstat_snapshot *snap,
	      const struct schedstat_topology *topo, const struct tui_style *st)
{
	int y;

	erase();
	if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_ROWS) {
		tui_put(LINES / 2, 0, C_NORMAL, "terminal too small");
		refresh();
		return;
	}
	if (!snap) {
		tui_put(0, 0, C_TITLE, "schedtop: waiting for the first sample...");
		refresh();
		return;
	}
	switch (v->screen) {
	case SCREEN_HELP:
		draw_help(v);
		break;
	case SCREEN_DETAIL:
		draw_detail(v, snap, topo, st);
		break;
	case SCREEN_CLUSTERS:
		draw_cluster_history(v, snap, st);
		break;
	case SCREEN_MAIN:
		draw_title(v, snap);
		y = draw_clusters(1, v, snap, st);
		if (v->show_groups)
			draw_group_table(y, snap, topo);
		else
			draw_task_table(y, v, snap, topo);
		break;
	}
	draw_status(v, snap);
	refresh();
}
