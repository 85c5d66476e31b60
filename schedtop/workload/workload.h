/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedtop workload's front end: the built-in use cases (rt-app files
 * compiled in), and the score as text, JSON and CSV. The use cases, their
 * threads and the score itself are the library's (schedstat_workload_*,
 * docs/workloads.md).
 */
#ifndef SCHEDTOP_WORKLOAD_H
#define SCHEDTOP_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "schedstat.h"

/* A built-in: an rt-app file of workloads/, embedded by scripts/embed-workloads. */
struct workload_builtin {
	const char *name;
	const unsigned char *text;
	size_t size;
};

/* Generated; ends with a NULL name. In --list order. */
extern const struct workload_builtin workload_builtins[];

/* "audio, video, browse or camera", for messages. */
const char *workload_builtin_names(void);
/*
 * The use case @arg names: a built-in's name, else a file (a path, or a
 * name ending in .json or .json.gz). Says why not, in one line; returns 0
 * or an exit code.
 */
int workload_open(const char *arg, struct schedstat_workload **out);
/* The built-in @name, parsed; NULL if there is none (said). */
struct schedstat_workload *workload_builtin(const char *name);

/* --list and --list=man (the man page's WORKLOADS): every built-in, parsed. */
int workload_list(bool man);

void workload_score_print(FILE *f, const char *name,
			  const struct schedstat_workload_score *s);
/* A JSON string, escaped: names come from a file the user gave. */
void workload_json_str(FILE *f, const char *s);
/*
 * The score as one JSON object; @more (if not NULL) writes members of its
 * own after the score's (", \"threads\": [...]").
 */
void workload_score_json(FILE *f, const char *name,
			 const struct schedstat_workload_score *s,
			 void (*more)(FILE *f, void *ctx), void *ctx);

#endif /* SCHEDTOP_WORKLOAD_H */
