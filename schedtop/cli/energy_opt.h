/* SPDX-License-Identifier: GPL-2.0 */
/* --energy-model: which energy model a command uses, and saying so. */
#ifndef SCHEDTOP_ENERGY_OPT_H
#define SCHEDTOP_ENERGY_OPT_H

#include <stdio.h>

#include "cli.h"
#include "schedstat.h"

/* Its help line is CLI_USAGE_ENERGY_MODEL (cli.h), with the other shared ones. */
#define ENERGY_OPT_USAGE CLI_USAGE_ENERGY_MODEL

/*
 * The model @path names, else the kernel's (debugfs), else none (*@em
 * NULL, 0): the power columns are then empty. Returns 0 or a negative
 * errno after one line saying what is wrong with @path.
 */
int energy_opt_load(const char *path, struct schedstat_energy_model **em);

/* The model as `schedtop energy` prints it: origin, then a table per domain. */
void energy_opt_print(FILE *f, const struct schedstat_energy_model *em);

#endif /* SCHEDTOP_ENERGY_OPT_H */
