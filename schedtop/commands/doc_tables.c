// SPDX-License-Identifier: GPL-2.0
/*
 * The library's tables as the docs show them, in Markdown; scripts/regen-docs
 * writes each into its doc (make docs), test_docs checks they are there:
 *   --list-tracepoints  which tracepoint gives which signal
 *                       (schedstat_tracepoints(), docs/signals.md)
 *   --list-signals      what each kernel keeps (schedstat_signals(), with
 *                       the columns each signal guards; docs/signals.md)
 *   --list-fields       the fields a recording stores, in bit order (the
 *                       row schemas; docs/record-format.md)
 */
#include <stdio.h>

#include "array_size.h"
#include "cli.h"
#include "columns.h"

static const char *bpf_when(uint32_t flags)
{
	if (!(flags & SCHEDSTAT_TP_BPF))
		return "";
	if (flags & SCHEDSTAT_TP_EXACT_WAKEUPS)
		return "with `--exact-wakeups`";
	if (flags & SCHEDSTAT_TP_PELT_TRACE)
		return "with `--pelt-trace`";
	if (flags & SCHEDSTAT_TP_TASK_TABLE)
		return "where the kernel has the task table (6.4+)";
	return "always";
}

static const char *events_when(uint32_t flags)
{
	if (!(flags & SCHEDSTAT_TP_EVENTS))
		return "";
	if (flags & SCHEDSTAT_TP_FILES_ONLY)
		return "trace files only";
	return "always";
}

int cli_list_tracepoints(void)
{
	size_t nr;
	const struct schedstat_tracepoint *tp = schedstat_tracepoints(&nr);

	printf("| tracepoint | BPF source | tracefs, trace files | gives |\n");
	printf("|---|---|---|---|\n");
	for (size_t i = 0; i < nr; i++)
		printf("| `%s:%s` | %s | %s | %s |\n", tp[i].system, tp[i].name,
		       bpf_when(tp[i].flags), events_when(tp[i].flags),
		       tp[i].gives);
	return fflush(stdout) ? EXIT_FAIL : 0;
}

/* The columns of every table that show signal @avail: "cpu `a`, `b`; ...". */
static void print_columns(uint32_t avail)
{
	const char *sep = "";

	for (size_t t = 0; t < column_nr_tables; t++) {
		const struct column_table *tab = column_tables[t];
		const char *next = "";

		for (size_t i = 0; i < tab->nr_cols; i++) {
			if (!(tab->cols[i].avail & avail))
				continue;
			if (!*next)
				printf("%s%s ", sep, tab->name);
			printf("%s`%s`", next, tab->cols[i].name);
			next = ", ";
			sep = "; ";
		}
	}
}

int cli_list_signals(void)
{
	size_t nr;
	const struct schedstat_signal *sig = schedstat_signals(&nr);

	printf("| signal | columns | kept by | needs | kernels | empty |\n");
	printf("|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < nr; i++) {
		printf("| `%s` | ", sig[i].name);
		print_columns(sig[i].avail);
		printf(" | %s | %s | %s | %s |\n", sig[i].kernel,
		       sig[i].config ? sig[i].config : "",
		       sig[i].versions, sig[i].missing ? sig[i].missing : "");
	}
	return fflush(stdout) ? EXIT_FAIL : 0;
}

struct field_doc {
	const char *name;
	enum schedstat_field_type type;
	bool stored;
};

#define STORED(f, m, t)		{ .name = #f, .type = SCHEDSTAT_FIELD_##t, .stored = true },
#define DERIVED(f, m, t)	{ .name = #f, .type = SCHEDSTAT_FIELD_##t },

static const struct field_doc task_fields[] = {
	SCHEDSTAT_TASK_FIELDS(STORED, DERIVED)
};
static const struct field_doc cpu_fields[] = {
	SCHEDSTAT_CPU_FIELDS(STORED, DERIVED)
};
static const struct field_doc cluster_fields[] = {
	SCHEDSTAT_CLUSTER_FIELDS(STORED, DERIVED)
};
static const struct field_doc group_fields[] = {
	SCHEDSTAT_GROUP_FIELDS(STORED, DERIVED)
};
static const struct field_doc migration_fields[] = {
	SCHEDSTAT_MIGRATION_FIELDS(STORED, DERIVED)
};
static const struct field_doc freq_fields[] = {
	SCHEDSTAT_FREQ_FIELDS(STORED, DERIVED)
};

/* The tables of a sample, in the order a recording stores them. */
static const struct {
	const char *name;
	const struct field_doc *fields;
	size_t nr;
} field_tables[] = {
	{ .name = "task", .fields = task_fields, .nr = ARRAY_SIZE(task_fields) },
	{ .name = "cpu", .fields = cpu_fields, .nr = ARRAY_SIZE(cpu_fields) },
	{ .name = "cluster", .fields = cluster_fields, .nr = ARRAY_SIZE(cluster_fields) },
	{ .name = "group", .fields = group_fields, .nr = ARRAY_SIZE(group_fields) },
	{ .name = "migration", .fields = migration_fields, .nr = ARRAY_SIZE(migration_fields) },
	{ .name = "freq", .fields = freq_fields, .nr = ARRAY_SIZE(freq_fields) },
};

/* Only the types a reader must decode apart from integers are named. */
static const char *type_note(enum schedstat_field_type t)
{
	switch (t) {
	case SCHEDSTAT_FIELD_STR:
		return " (str)";
	case SCHEDSTAT_FIELD_CHAR:
		return " (char)";
	case SCHEDSTAT_FIELD_F64:
		return " (F64)";
	default:
		return "";
	}
}

int cli_list_fields(void)
{
	printf("| table | stored fields, bit 0 first | derived, not stored |\n");
	printf("|---|---|---|\n");
	for (size_t t = 0; t < ARRAY_SIZE(field_tables); t++) {
		const char *sep = "";

		printf("| %s | ", field_tables[t].name);
		for (size_t i = 0; i < field_tables[t].nr; i++) {
			const struct field_doc *f = &field_tables[t].fields[i];

			if (!f->stored)
				continue;
			printf("%s%s%s", sep, f->name, type_note(f->type));
			sep = ", ";
		}
		printf(" | ");
		sep = "";
		for (size_t i = 0; i < field_tables[t].nr; i++) {
			const struct field_doc *f = &field_tables[t].fields[i];

			if (f->stored)
				continue;
			printf("%s%s%s", sep, f->name, type_note(f->type));
			sep = ", ";
		}
		printf(" |\n");
	}
	return fflush(stdout) ? EXIT_FAIL : 0;
}
