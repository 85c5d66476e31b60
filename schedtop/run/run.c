// SPDX-License-Identifier: GPL-2.0
/* One run of a command that samples: set up in one order, torn down in one (run.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy_opt.h"
#include "run.h"

/* A failure said in one line, after the screen is given back. */
static void say(const struct run_opts *o, const char *what)
{
	if (o->leave_screen)
		o->leave_screen(o->ctx);
	cli_error("%s", what);
}

/* What a killed schedtop had left changed and the start put back. */
void run_say_recovered(const struct schedstat_emulation_recovery *rc)
{
	if (rc->restored)
		fprintf(stderr, "schedtop: restored %u cpufreq limits that a killed schedtop (%s) had changed\n",
			rc->restored, *rc->owner ? rc->owner : "pid unknown");
}

void run_say_emulation(const struct schedstat_emulation *e)
{
	fprintf(stderr, "schedtop: emulating %s by %s:", schedstat_emulation_spec(e),
		schedstat_emulate_method_name(schedstat_emulation_method(e)));
	for (int cpu = 0; cpu < schedstat_emulation_nr_cpus(e); cpu++) {
		unsigned int pct = schedstat_emulation_cpu_pct(e, cpu);

		if (pct && pct < 100)
			fprintf(stderr, " cpu%d at %u%%", cpu, pct);
	}
	fputs("\n", stderr);
}

/* --emulate SPEC: parsed (a bad one is the user's), its topology given, started. */
static int open_emulation(struct run *r, const struct run_opts *o)
{
	char why[320];
	int err;

	err = schedstat_emulation_new(&r->emul, o->args->emulate,
				      o->args->sysfs_root, why, sizeof(why));
	if (err == -EINVAL) {
		say(o, why);
		return EXIT_USAGE;
	}
	if (err) {
		say(o, strerror(-err));
		return EXIT_FAIL;
	}
	r->sopts.topology = schedstat_emulation_topology_spec(r->emul);
	/* The stealers inherit the mask: Ctrl-C is the event loop's. */
	cli_block_ending_signals();
	err = schedstat_emulation_start(r->emul, SCHEDSTAT_EMULATE_AUTO);
	run_say_recovered(schedstat_emulation_recovered(r->emul));
	if (err) {
		say(o, schedstat_emulation_error(r->emul));
		return EXIT_FAIL;
	}
	schedstat_emulation_describe(r->emul, r->emulation, sizeof(r->emulation));
	r->rec.emulation = r->emulation;
	if (o->say_emulation)
		run_say_emulation(r->emul);
	return EXIT_OK;
}

int run_open(struct run *r, const struct run_opts *o)
{
	char damage[512] = "";
	int err, ret;

	if (cli_session_args_apply(o->cmd, o->args, &r->sopts, &r->topology_spec))
		return EXIT_USAGE;
	if (energy_opt_load(o->args->energy_model, &r->em))
		return EXIT_USAGE;
	r->sopts.energy_model = r->em;
	r->rec.em = r->em;
	if (o->pelt && atrace_out_open(&r->atrace, o->pelt))
		return EXIT_FAIL;
	if (o->args->emulate) {
		ret = open_emulation(r, o);
		if (ret != EXIT_OK)
			return ret;
	}
	if (o->before_session) {
		ret = o->before_session(o->ctx);
		if (ret != EXIT_OK)
			return ret;
	}
	if (o->record) {
		r->sopts.on_event = recording_out_event;
		r->sopts.event_ctx = &r->rec;
	}
	err = cli_session_open(&r->session, &r->sopts);
	/* A damaged trace reads up to the damage: said here, whether or not it opened. */
	if (r->sopts.trace_file && r->sopts.trace_info &&
	    trace_damage_text(r->sopts.trace_file, r->sopts.trace_info,
			      damage, sizeof(damage)))
		say(o, damage);
	if (err && r->sopts.trace_file) {
		if (!damage[0]) {
			if (o->leave_screen)
				o->leave_screen(o->ctx);
			cli_error("%s: %s", r->sopts.trace_file, schedstat_strerror(err));
		}
		return EXIT_FAIL;
	}
	if (err) {
		say(o, schedstat_strerror(err));
		return EXIT_FAIL;
	}
	if (o->record) {
		r->rec.extra_meta = o->extra_meta;
		if (r->sopts.trace_file && r->sopts.trace_info) {
			r->rec.trace_file = r->sopts.trace_file;
			r->rec.trace = r->sopts.trace_info;
		}
		if (recording_out_open(&r->rec, o->record,
				       schedstat_session_topology(r->session),
				       o->interval_ms, o->argc, o->argv))
			return EXIT_FAIL;
	}
	return EXIT_OK;
}

int run_close(struct run *r)
{
	int ret = EXIT_OK;

	/* Detach first: the file's end marker is the last thing written. */
	schedstat_session_close(r->session);
	r->session = NULL;
	atrace_out_close(&r->atrace);
	if (recording_out_close(&r->rec))
		ret = EXIT_FAIL;
	/* A full-screen view kept its recording's failure: said now. */
	if (r->rec.defer_errors && r->rec.error[0]) {
		cli_error("%s", r->rec.error);
		r->rec.error[0] = '\0';
		ret = EXIT_FAIL;
	}
	if (schedstat_emulation_stop(r->emul)) {
		cli_error("%s", schedstat_emulation_error(r->emul));
		ret = EXIT_FAIL;
	}
	schedstat_emulation_free(r->emul);
	r->emul = NULL;
	schedstat_energy_model_free(r->em);
	r->em = NULL;
	free(r->topology_spec);
	r->topology_spec = NULL;
	return ret;
}
