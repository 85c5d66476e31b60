// SPDX-License-Identifier: GPL-2.0
/*
 * CSV output and the column tables: exact headers (a public interface),
 * quoting, values of every type, "not available" as empty fields, and
 * docs/csv.md kept equal to what the tables generate.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "array_size.h"
#include "columns.h"
#include "csv_format.h"
#include "schedstat.h"

#define TASK_HEADER "ts_ns,pid,tgid,comm,cpu,cluster,state,util_avg," \
	"runnable_avg,load_avg,util_est,run_ns,wait_ns,wakeups,migrations"
#define TASK_EXTRA "prio,running,exited,nvcsw,nivcsw,pelt_age_ns,cpu_pct,up_migrations,down_migrations,misfit,pelt_estimated"
#define CPU_HEADER "ts_ns,cpu,cluster,online,capacity,util_avg,runnable_avg," \
	"load_avg,blocked_util,blocked_load,rt_util,dl_util,irq_util,nr_running"
#define CPU_EXTRA "capacity_cfs,util_est,hw_pressure,busy_ns,nr_switches," \
	"nr_preempt,dropped,hotplug_ops,hotplug_ns,hotplug_to,freq_khz,freq_avg_khz," \
	"idle0_ns,idle1_ns,idle2_ns,idle3_ns,pelt_estimated,power_mw,eas_power_mw," \
	"misfit_task_load,emulation"
#define CLUSTER_HEADER "ts_ns,cluster,cpus,capacity,util_pct,nr_running," \
	"overutilized"
#define CLUSTER_EXTRA "nr_online,overutilized_ns,busy_pct,misfit_tasks,up_migrations,down_migrations,freq_khz,freq_avg_khz,power_mw,eas_power_mw,energy_uj,emulation"

#define ALL_AVAIL (0xffffu | SCHEDSTAT_AVAIL_TASK_TIME | SCHEDSTAT_AVAIL_ACTIVITY)

#define DOC_BEGIN "<!-- BEGIN GENERATED: schedtop csv --list-columns -->\n"
#define DOC_END "<!-- END GENERATED -->\n"

static struct schedstat_topology *topo;

/* A memory stream; out() closes it and returns what was written. */
struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	return m->f;
}

static const char *mem_close(struct mem *m)
{
	assert_int_equal(fclose(m->f), 0);
	m->f = NULL;
	return m->buf;
}

static void mem_free(struct mem *m)
{
	free(m->buf);
	m->buf = NULL;
}

static void assert_field(const char *in, const char *want)
{
	struct mem m;

	csv_field(mem_open(&m), in);
	assert_string_equal(mem_close(&m), want);
	mem_free(&m);
}

static void assert_row_emulated(const struct column_table *t, uint32_t avail,
				const void *row, const char *emulation,
				const char *want)
{
	struct csv_ctx ctx = { .topo = topo, .avail = avail, .ts_ns = 123456789012,
			       .emulation = emulation };
	struct mem m;

	assert_int_equal(csv_write_row(mem_open(&m), t, &ctx, row), 0);
	assert_string_equal(mem_close(&m), want);
	mem_free(&m);
}

static void assert_row(const struct column_table *t, uint32_t avail,
		       const void *row, const char *want)
{
	assert_row_emulated(t, avail, row, NULL, want);
}

static int setup(void **state)
{
	/* Capacities in the spec, so nothing is read from this machine's /sys. */
	return schedstat_topology_parse(&topo, "LITTLE:0-3@512,big:4-7@1024", NULL);
}

static int teardown(void **state)
{
	schedstat_topology_free(topo);
	return 0;
}

static void headers(void **state)
{
	static const struct {
		const struct column_table *t;
		const char *want;
	} cases[] = {
		{ &task_table, TASK_HEADER "," TASK_EXTRA "\r\n" },
		{ &cpu_table, CPU_HEADER "," CPU_EXTRA "\r\n" },
		{ &cluster_table, CLUSTER_HEADER "," CLUSTER_EXTRA "\r\n" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct mem m;

		assert_int_equal(csv_write_header(mem_open(&m), cases[i].t), 0);
		assert_string_equal(mem_close(&m), cases[i].want);
		mem_free(&m);
	}
}

static void table_lookup(void **state)
{
	assert_ptr_equal(column_table_find("task"), &task_table);
	assert_ptr_equal(column_table_find("cpu"), &cpu_table);
	assert_ptr_equal(column_table_find("cluster"), &cluster_table);
	assert_null(column_table_find("tasks"));
	assert_null(column_table_find(""));
	assert_null(column_table_find(NULL));
	assert_int_equal(column_find(&cpu_table, "irq_util")->offset,
			 offsetof(struct schedstat_cpu, irq_util));
	assert_null(column_find(&cpu_table, "IRQ"));
}

/* What the TUI, sorting and the docs rely on, for every column. */
static void tables_are_well_formed(void **state)
{
	const struct column_table *tables[] = {
		&task_table, &cpu_table, &cluster_table,
	};

	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		const struct column_table *t = tables[i];

		assert_true(t->nr_cols > 0);
		assert_int_equal(t->cols[0].type, COL_TS);
		for (size_t j = 0; j < t->nr_cols; j++) {
			const struct column *c = &t->cols[j];
			size_t dlen = strlen(c->desc);

			assert_int_equal(strspn(c->name, "abcdefghijklmnopqrstuvwxyz0123456789_"),
					 strlen(c->name));
			assert_int_equal(strspn(c->title, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_%"),
					 strlen(c->title));
			assert_true(strlen(c->title) > 0);
			assert_true((int)strlen(c->title) <= c->width);
			assert_true(dlen > 0 && c->desc[dlen - 1] != '.');
			assert_null(strchr(c->desc, '\n'));
			for (size_t k = 0; k < j; k++)
				assert_string_not_equal(c->name, t->cols[k].name);
			/* Every bit a column needs says why it can be empty. */
			for (int b = 0; b < 32; b++)
				if (c->avail & 1u << b)
					assert_non_null(column_avail_note(1u << b));
			if (c->type == COL_TS || c->type == COL_EMULATION)
				continue;
			assert_true(c->size > 0);
			assert_true(c->offset + c->size <= t->row_size);
		}
	}
	assert_null(column_avail_note(0));
	assert_null(column_avail_note(1u << 31));
}

/*
 * Every field of a row schema is a column of its table (by the schema's
 * name), but for those that are bookkeeping rather than values: a field
 * added to a schema is also shown, or listed here on purpose.
 */
static void schema_fields_are_columns(void **state)
{
#define FIELD_NAME(f, m, t) #f,
	static const char *const task[] = { SCHEDSTAT_TASK_FIELDS(FIELD_NAME, FIELD_NAME) };
	static const char *const cpu[] = { SCHEDSTAT_CPU_FIELDS(FIELD_NAME, FIELD_NAME) };
	static const char *const cluster[] = {
		SCHEDSTAT_CLUSTER_FIELDS(FIELD_NAME, FIELD_NAME)
	};
	static const char *const group[] = { SCHEDSTAT_GROUP_FIELDS(FIELD_NAME, FIELD_NAME) };
	static const char *const migration[] = {
		SCHEDSTAT_MIGRATION_FIELDS(FIELD_NAME, FIELD_NAME)
	};
	static const char *const freq[] = { SCHEDSTAT_FREQ_FIELDS(FIELD_NAME, FIELD_NAME) };
#undef FIELD_NAME
	static const char *const unshown[] = {
		"cpu.avail", "cluster.id", "cluster.avail", "cluster.power_freq_assumed",
	};
	const struct {
		const struct column_table *t;
		const char *const *names;
		size_t nr;
	} rows[] = {
		{ &task_table, task, ARRAY_SIZE(task) },
		{ &cpu_table, cpu, ARRAY_SIZE(cpu) },
		{ &cluster_table, cluster, ARRAY_SIZE(cluster) },
		{ &group_table, group, ARRAY_SIZE(group) },
		{ &migration_table, migration, ARRAY_SIZE(migration) },
		{ &freq_table, freq, ARRAY_SIZE(freq) },
	};
	size_t nr_unshown = 0;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		for (size_t j = 0; j < rows[i].nr; j++) {
			char key[64];
			bool skip = false;

			snprintf(key, sizeof(key), "%s.%s", rows[i].t->name, rows[i].names[j]);
			for (size_t k = 0; k < ARRAY_SIZE(unshown); k++)
				skip |= !strcmp(key, unshown[k]);
			nr_unshown += skip;
			if (!skip && !column_find(rows[i].t, rows[i].names[j]))
				fail_msg("%s is in the schema but no column shows it", key);
		}
	}
	assert_int_equal(nr_unshown, ARRAY_SIZE(unshown));
}

static void quoting(void **state)
{
	assert_field("kworker/0:1", "kworker/0:1");
	assert_field("a,b", "\"a,b\"");
	assert_field("say \"hi\"", "\"say \"\"hi\"\"\"");
	assert_field("\"", "\"\"\"\"");
	assert_field(" lead", "\" lead\"");
	assert_field("trail ", "\"trail \"");
	assert_field("in side", "in side");
	assert_field("", "");
	assert_field(NULL, "");
}

/* A task can name itself anything; no control byte may reach a terminal. */
static void control_characters(void **state)
{
	assert_field("\x1b[2J", "?[2J");
	assert_field("a\r\nb", "a??b");
	assert_field("\t\x7f\x01", "???");
	assert_field("\x1b]0;pwn\x07" "a,\"b", "\"?]0;pwn?a,\"\"b\"");
	/* UTF-8 is not control characters. */
	assert_field("caf\xc3\xa9", "caf\xc3\xa9");
}

static const struct schedstat_task task_row = {
	.pid = 4242,
	.tgid = 4200,
	.comm = "a,b",
	.cpu = 5,
	.cluster = 1,
	.state = 'R',
	.running = true,
	.exited = false,
	.prio = 120,
	.util_avg = 312,
	.runnable_avg = 350,
	.load_avg = 1023,
	.util_est = 330,
	.pelt_age_ns = 250000,
	.run_ns = 734000123,
	.wait_ns = 1500,
	.wakeups = 17,
	.migrations = 3,
	.nvcsw = 16,
	.nivcsw = 2,
};

static void task_rows(void **state)
{
	struct schedstat_task t = task_row;

	assert_row(&task_table, ALL_AVAIL, &t,
		   "123456789012,4242,4200,\"a,b\",5,big,R,312,350,1023,330,"
		   "734000123,1500,17,3,120,1,0,16,2,250000,0.00,0,0,0,0\r\n");

	/* No util_est, CPU in no cluster: empty, not 0. Wakeups always count. */
	t.cluster = -1;
	t.running = false;
	t.exited = true;
	t.state = 'X';
	t.prio = -1;
	assert_row(&task_table, ALL_AVAIL & ~(SCHEDSTAT_AVAIL_UTIL_EST | SCHEDSTAT_AVAIL_WAKEUPS),
		   &t,
		   "123456789012,4242,4200,\"a,b\",5,,X,312,350,1023,,"
		   "734000123,1500,17,3,-1,0,1,16,2,250000,0.00,0,0,0,0\r\n");

	/*
	 * schedtop's own export read back: only its counters (and with
	 * --task-stats the run and wait time, CPU and misfit) are values.
	 */
	t = task_row;
	assert_row(&task_table, SCHEDSTAT_AVAIL_UTIL_EST, &t,
		   "123456789012,4242,4200,\"a,b\",,,,312,350,1023,330,"
		   ",,,,,,0,,,,,,,,\r\n");
	assert_row(&task_table, SCHEDSTAT_AVAIL_TASK_TIME, &t,
		   "123456789012,4242,4200,\"a,b\",5,big,,312,350,1023,,"
		   "734000123,1500,,,,,0,,,,0.00,,,0,\r\n");
}

/* Whole 64-bit values, and a comm filling its array without a NUL. */
static void task_extremes(void **state)
{
	struct schedstat_task t = task_row;

	memcpy(t.comm, "0123456789abcdef", sizeof(t.comm));
	t.pid = INT32_MAX;
	t.util_avg = UINT32_MAX;
	t.load_avg = UINT64_MAX;
	t.run_ns = UINT64_MAX - 1;
	t.cluster = 0;
	t.state = '\0';
	assert_row(&task_table, ALL_AVAIL, &t,
		   "123456789012,2147483647,4200,0123456789abcdef,5,LITTLE,,"
		   "4294967295,350,18446744073709551615,330,18446744073709551614,"
		   "1500,17,3,120,1,0,16,2,250000,0.00,0,0,0,0\r\n");
}

static const struct schedstat_cpu cpu_row = {
	.cpu = 6,
	.cluster = 1,
	.online = true,
	.capacity = 1024,
	.capacity_cfs = 980,
	.util_avg = 501,
	.runnable_avg = 640,
	.load_avg = 2100,
	.util_est = 520,
	.blocked_util = 120,
	.blocked_load = 300,
	.rt_util = 11,
	.dl_util = 2,
	.irq_util = 9,
	.hw_pressure = 30,
	.nr_running = 3,
	.busy_ns = 812345678,
	.nr_switches = 4000,
	.nr_preempt = 250,
	.dropped = 0,
	.hotplug_ops = 2,
	.hotplug_ns = 4100000,
	.hotplug_to = "offline",
	.freq_khz = 1800000,
	.freq_avg_khz = 1500000,
	.idle_state_ns = { 1000, 20000000, 0, 5 },
	.avail = ALL_AVAIL,
};

static void cpu_rows(void **state)
{
	struct schedstat_cpu c = cpu_row;

	assert_row(&cpu_table, ALL_AVAIL, &c,
		   "123456789012,6,big,1,1024,501,640,2100,120,300,11,2,9,3,"
		   "980,520,30,812345678,4000,250,0,2,4100000,offline,1800000,1500000,"
		   "1000,20000000,0,5,0,,,,\r\n");

	/* Only the root cfs_rq and busy time: every other signal is empty. */
	c.online = false;
	c.cluster = 0;
	assert_row(&cpu_table, SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_BUSY |
		   SCHEDSTAT_AVAIL_ACTIVITY, &c,
		   "123456789012,6,LITTLE,0,1024,501,640,2100,120,300,,,,3,"
		   ",,,812345678,4000,,0,,,,,,,,,,0,,,,\r\n");

	/* And without them: those go too, the kernel's counters stay. */
	assert_row(&cpu_table, SCHEDSTAT_AVAIL_ACTIVITY, &c,
		   "123456789012,6,LITTLE,0,1024,,,,,,,,,3,"
		   ",,,,4000,,0,,,,,,,,,,0,,,,\r\n");

	/*
	 * schedtop's own export read back: its counters, no switches, lost
	 * events, blocked load or mean clock (a column needs all its bits).
	 */
	assert_row(&cpu_table, SCHEDSTAT_AVAIL_CFS | SCHEDSTAT_AVAIL_FREQ, &c,
		   "123456789012,6,LITTLE,0,1024,501,640,2100,120,,,,,3,"
		   ",,,,,,,,,,1800000,,,,,,,,,,\r\n");
}

static const struct schedstat_cluster cluster_row = {
	.id = 0,
	.name = "LITTLE",
	.cpus = "0-3,6",
	.nr_online = 5,
	.capacity = 2560,
	.util_pct = 37.4567,
	.nr_running = 4,
	.overutilized = 1,
	.overutilized_ns = 2500000,
	.busy_pct = 42.5,
	.misfit_tasks = 1,
	.up_migrations = 3,
	.down_migrations = 2,
	.freq_khz = 2000000,
	.freq_avg_khz = 1900000,
	.power_mw = 579,
	.eas_power_mw = 161.4414,
	.energy_uj = 1158000,
};

static void cluster_rows(void **state)
{
	struct schedstat_cluster c = cluster_row;

	assert_row(&cluster_table, ALL_AVAIL, &c,
		   "123456789012,LITTLE,\"0-3,6\",2560,37.46,4,1,5,2500000,42.50,1,3,2,2000000,1900000,,,,\r\n");

	/* With an energy model: power, EAS power, energy. */
	assert_row(&cluster_table, ALL_AVAIL | SCHEDSTAT_AVAIL_ENERGY, &c,
		   "123456789012,LITTLE,\"0-3,6\",2560,37.46,4,1,5,2500000,42.50,1,3,2,2000000,1900000,579.00,161.44,1158000.00,\r\n");

	c.overutilized = 0;
	c.util_pct = 100;
	assert_row(&cluster_table, ALL_AVAIL, &c,
		   "123456789012,LITTLE,\"0-3,6\",2560,100.00,4,0,5,2500000,42.50,1,3,2,2000000,1900000,,,,\r\n");

	/* Not reported, by the value or by the mask: empty either way. */
	c.overutilized = -1;
	assert_row(&cluster_table, ALL_AVAIL, &c,
		   "123456789012,LITTLE,\"0-3,6\",2560,100.00,4,,5,2500000,42.50,1,3,2,2000000,1900000,,,,\r\n");
	c.overutilized = 1;
	assert_row(&cluster_table, ALL_AVAIL & ~SCHEDSTAT_AVAIL_OVERUTILIZED, &c,
		   "123456789012,LITTLE,\"0-3,6\",2560,100.00,4,,5,2500000,42.50,1,3,2,2000000,1900000,,,,\r\n");
	/* The derived columns go with what they are made of. */
	assert_row(&cluster_table, ALL_AVAIL & ~(SCHEDSTAT_AVAIL_CFS |
						 SCHEDSTAT_AVAIL_BUSY |
						 SCHEDSTAT_AVAIL_OVERUTILIZED_NS), &c,
		   "123456789012,LITTLE,\"0-3,6\",2560,,4,1,5,,,1,3,2,2000000,1900000,,,,\r\n");

	/* No online CPU, no capacity: no percentage either. */
	c.capacity = 0;
	c.nr_online = 0;
	c.util_pct = NAN;
	assert_row(&cluster_table, ALL_AVAIL, &c,
		   "123456789012,LITTLE,\"0-3,6\",0,,4,1,0,2500000,42.50,1,3,2,2000000,1900000,,,,\r\n");

	/* An emulated run: the method on every row, whatever is available. */
	assert_row_emulated(&cluster_table, 0, &c, "stealer",
		   "123456789012,LITTLE,\"0-3,6\",0,,4,,0,,,1,,,,,,,,stealer\r\n");
}

/* A reader that went away must come back as -EPIPE, not as silence. */
static void closed_pipe_is_epipe(void **state)
{
	struct csv_ctx ctx = { .topo = topo, .avail = ALL_AVAIL };
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	int fds[2];
	FILE *f;

	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	f = fdopen(fds[1], "w");
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(csv_write_header(f, &cluster_table), -EPIPE);
	assert_int_equal(csv_write_row(f, &cluster_table, &ctx, &cluster_row), -EPIPE);
	fclose(f);
	signal(SIGPIPE, old);
}

/* What `schedtop csv --list-columns` prints. */
static char *all_markdown(void)
{
	struct mem m;

	/* Every table there is: a new one cannot be left out of the docs. */
	mem_open(&m);
	for (size_t i = 0; i < column_nr_tables; i++) {
		if (i)
			putc('\n', m.f);
		assert_int_equal(columns_write_markdown(m.f, column_tables[i]), 0);
	}
	mem_close(&m);
	return m.buf;
}

static void markdown_format(void **state)
{
	static const struct column cols[] = {
		{ .name = "a", .desc = "x|y", .type = COL_TS },
		{ .name = "b_c", .desc = "plain", .type = COL_U32,
		  .avail = SCHEDSTAT_AVAIL_RT },
	};
	static const struct column_table t = {
		.name = "demo", .cols = cols, .nr_cols = ARRAY_SIZE(cols),
	};
	struct mem m;

	assert_int_equal(columns_write_markdown(mem_open(&m), &t), 0);
	assert_string_equal(mem_close(&m),
		"## demo table\n\n| column | description |\n|---|---|\n"
		"| `a` | x\\|y |\n"
		"| `b_c` | plain; empty if the CPU's runqueue could not be read |\n");
	mem_free(&m);
}

static void man_format(void **state)
{
	static const struct column cols[] = {
		{ .name = "a", .desc = ".dot -1 back\\slash", .type = COL_TS },
		{ .name = "b", .desc = "'quote", .type = COL_U32,
		  .avail = SCHEDSTAT_AVAIL_OVERUTILIZED },
	};
	static const struct column_table t = {
		.name = "demo", .cols = cols, .nr_cols = ARRAY_SIZE(cols),
	};
	struct mem m;

	assert_int_equal(columns_write_man(mem_open(&m), &t), 0);
	assert_string_equal(mem_close(&m),
		".TP\n.B a\n\\&.dot \\-1 back\\eslash\n"
		".TP\n.B b\n\\&'quote; empty if the runqueue's root domain could "
		"not be read\n");
	mem_free(&m);

	/* The real tables produce one entry per column. */
	assert_int_equal(columns_write_man(mem_open(&m), &task_table), 0);
	mem_close(&m);
	assert_non_null(strstr(m.buf, ".TP\n.B pelt_age_ns\n"));
	mem_free(&m);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	struct mem m;
	char buf[4096];
	size_t n;

	if (!f)
		fail_msg("cannot read %s: %s (set SCHEDTOP_SRCDIR)", path, strerror(errno));
	mem_open(&m);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m.f);
	fclose(f);
	mem_close(&m);
	return m.buf;
}

/* Report the first differing line rather than two pages of text. */
static void assert_same_text(const char *got, const char *want, const char *what,
			     int line)
{
	size_t i;

	for (i = 0; got[i] && got[i] == want[i]; i++)
		if (got[i] == '\n')
			line++;
	if (got[i] != want[i])
		fail_msg("%s:%d differs from the column tables: replace the "
			 "generated part with the output of `schedtop csv "
			 "--list-columns`", what, line);
}

static int lines_before(const char *s, const char *end)
{
	int n = 1;

	for (; s < end; s++)
		n += *s == '\n';
	return n;
}

/* The column docs cannot drift from the tables. */
static void docs_match_tables(void **state)
{
	const char *dir = getenv("SCHEDTOP_SRCDIR");
	char path[4096];
	char *doc, *gen, *begin, *end;

	snprintf(path, sizeof(path), "%s/docs/csv.md", dir ? dir : ".");
	doc = read_file(path);
	gen = all_markdown();
	begin = strstr(doc, DOC_BEGIN);
	assert_non_null(begin);
	begin += strlen(DOC_BEGIN);
	end = strstr(begin, DOC_END);
	assert_non_null(end);
	assert_true(end == begin || end[-1] == '\n');
	*end = '\0';
	assert_same_text(begin, gen, path, lines_before(doc, begin));
	free(gen);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(headers),
		cmocka_unit_test(table_lookup),
		cmocka_unit_test(tables_are_well_formed),
		cmocka_unit_test(schema_fields_are_columns),
		cmocka_unit_test(quoting),
		cmocka_unit_test(control_characters),
		cmocka_unit_test(task_rows),
		cmocka_unit_test(task_extremes),
		cmocka_unit_test(cpu_rows),
		cmocka_unit_test(cluster_rows),
		cmocka_unit_test(closed_pipe_is_epipe),
		cmocka_unit_test(markdown_format),
		cmocka_unit_test(man_format),
		cmocka_unit_test(docs_match_tables),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
