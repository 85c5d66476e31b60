/* SPDX-License-Identifier: GPL-2.0 */
/* --energy-model: which energy model a command uses, and saying so. */
#ifndef SCHEDTOP_ENERGY_OPT_H
#define SCHEDTOP_ENERGY_OPT_H

#include <stdio.h>

#include "schedstat.h"

#define ENERGY_OPT_USAGE \
"      --energy-model FILE  OPPs as CLUSTER KHZ MW lines (CLUSTER idle MW for\n" \
"                         an idle CPU); default: the kernel's, from debugfs\n"

/*
 * The model @path names, else the kernel's (debugfs), else none (*@em
 * NULL, 0): the power columns are then empty. Returns 0 or a negative
 * errno after one line saying what is wrong with @path.
 */
int energy_opt_load(const char *path, struct schedstat_energy_model **em);

/* The model as `schedtop energy` prints it: origin, then a table per domain. */
void energy_opt_print(FILE *f, const struct schedstat_energy_model *em);

#endif /* SCHEDTOP_ENERGY_OPT_H */
