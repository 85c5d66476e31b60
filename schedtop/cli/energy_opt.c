// SPDX-License-Identifier: GPL-2.0
/* Choosing and describing the energy model (docs/signals.md, "Energy"). */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "energy_opt.h"

int energy_opt_load(const char *path, struct schedstat_energy_model **em)
{
	int err, line = 0;

	*em = NULL;
	if (!path) {
		/* No model is no error: most machines (this one) have none. */
		err = schedstat_energy_model_read(em, NULL);
		if (err)
			*em = NULL;
		return 0;
	}
	err = schedstat_energy_model_load(em, path, &line);
	if (err == -EINVAL && line)
		cli_error("%s:%d: not an OPP: write CLUSTER KHZ MW or CLUSTER idle MW",
			  path, line);
	else if (err == -EINVAL)
		cli_error("%s: no OPP in it: write one CLUSTER KHZ MW line per OPP", path);
	else if (err)
		cli_error("cannot read energy model %s: %s", path, strerror(-err));
	return err;
}

void energy_opt_print(FILE *f, const struct schedstat_energy_model *em)
{
	int nr = schedstat_energy_model_nr_domains(em);

	fprintf(f, "energy model: %s\n", schedstat_energy_model_origin(em));
	for (int d = 0; d < nr; d++) {
		int k = schedstat_energy_model_domain_cluster(em, d);
		const char *cpus = schedstat_energy_model_domain_cpus(em, d);

		fprintf(f, "\n%s", schedstat_energy_model_domain_name(em, d));
		if (*cpus)
			fprintf(f, " (cpus %s)", cpus);
		if (k >= 0)
			fprintf(f, " -> cluster %s",
				schedstat_energy_model_domain_key(em, d));
		fprintf(f, "\n%10s %10s %12s %8s\n", "KHZ", "MW", "PERFORMANCE", "COST");
		for (int i = 0; i < schedstat_energy_model_nr_states(em, d); i++) {
			const struct schedstat_em_state *st =
				schedstat_energy_model_state(em, d, i);

			fprintf(f, "%10u %10.3f %12u %8llu\n", st->khz, st->power_mw,
				st->performance, (unsigned long long)st->cost);
		}
		fprintf(f, "%10s %10.3f\n", "idle", schedstat_energy_model_idle_mw(em, d));
	}
}
