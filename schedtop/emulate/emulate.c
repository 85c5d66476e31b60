// SPDX-License-Identifier: GPL-2.0
/*
 * The emulation spec and the choice of method; the methods themselves are
 * emulate_stealer.c and emulate_cpufreq.c. What each does and does not
 * reproduce: docs/emulation.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "array_size.h"
#include "cli.h"
#include "emulate.h"

/*
 * Below 10% a stealer burns over 90% of its CPU, more than RT throttling
 * (sched_rt_runtime_us, 95% by default) lets through with any margin.
 */
#define MIN_PCT	10
const struct emulation *emulation_current;

static const char spec_example[] = "e.g. LITTLE:0@50%,big:1 or LITTLE:0-3@40%,big:4-7";

static int bad_spec(const char *spec, const char *why)
{
	cli_error("bad emulation spec '%s': %s (%s)", spec, why, spec_example);
	return -EINVAL;
}

/*
 * "LITTLE:0@50%,big:1" -> "LITTLE:0@512,big:1@1024" and the percent of each
 * cluster in order: every cluster gets an explicit capacity, so that the
 * topology is the emulated one whatever sysfs says.
 */
static int translate(const char *spec, char *out, size_t size,
		     unsigned int *pcts, int *nr)
{
	size_t o = 0;
	int k = -1;

	*nr = 0;
	for (const char *p = spec; *p; p++) {
		if (o + 8 >= size)
			return bad_spec(spec, "too long");
		if (*p == ':') {
			/* One ':' per cluster: CPU lists hold none. */
			if (k >= 0 && pcts[k] == 0) {
				pcts[k] = 100;
				o += snprintf(out + o, size - o, "@1024");
			}
			if (++k >= SCHEDSTAT_MAX_CPUS)
				return bad_spec(spec, "too many clusters");
			pcts[k] = 0;
			out[o++] = *p;
			continue;
		}
		if (*p == '@') {
			unsigned long v = 0;
			const char *d = p + 1;

			if (k < 0)
				return bad_spec(spec, "a cluster is NAME:CPULIST@N%");
			while (*d >= '0' && *d <= '9' && v <= 1000)
				v = v * 10 + (*d++ - '0');
			if (d == p + 1 || *d != '%')
				return bad_spec(spec, "a capacity is a percentage of this machine's CPU, N%");
			if (v < MIN_PCT || v > 100)
				return bad_spec(spec, "a cluster runs at 10% to 100% of a CPU");
			if (pcts[k])
				return bad_spec(spec, "one capacity per cluster");
			pcts[k] = v;
			o += snprintf(out + o, size - o, "@%lu",
				      (v * SCHEDSTAT_CAPACITY_SCALE + 50) / 100);
			p = d;		/* the '%' */
			continue;
		}
		out[o++] = *p;
	}
	if (k < 0)
		return bad_spec(spec, "no cluster");
	if (pcts[k] == 0) {
		pcts[k] = 100;
		o += snprintf(out + o, size - o, "@1024");
	}
	out[o] = '\0';
	*nr = k + 1;
	return 0;
}

int emulation_parse(struct emulation *e, const char *spec, const char *sysfs_root)
{
	unsigned int *pcts = NULL;
	size_t size = strlen(spec) * 3 + 64;
	bool slowed = false;
	int nr, err;

	memset(e, 0, sizeof(*e));
	e->sysfs_root = sysfs_root;
	e->spec = strdup(spec);
	e->topology_spec = malloc(size);
	pcts = calloc(SCHEDSTAT_MAX_CPUS, sizeof(*pcts));
	if (!e->spec || !e->topology_spec || !pcts) {
		err = -ENOMEM;
		cli_error("out of memory");
		goto cleanup;
	}
	if (!*spec) {
		err = bad_spec(spec, "empty");
		goto cleanup;
	}
	err = translate(spec, e->topology_spec, size, pcts, &nr);
	if (err)
		goto cleanup;
	err = schedstat_topology_parse(&e->topo, e->topology_spec, sysfs_root);
	if (err == -ENOMEM) {
		cli_error("out of memory");
		goto cleanup;
	}
	if (err) {
		err = bad_spec(spec, "clusters are NAME:CPULIST[@N%],... with distinct names and each CPU in one cluster");
		goto cleanup;
	}
	e->nr_cpus = schedstat_topology_nr_cpus(e->topo);
	for (int cpu = 0; cpu < e->nr_cpus; cpu++) {
		int k = schedstat_topology_cpu_cluster(e->topo, cpu);

		if (k < 0 || k >= nr)
			continue;
		e->pct[cpu] = pcts[k];
		slowed |= pcts[k] < 100;
	}
	if (!slowed)
		err = bad_spec(spec, "no cluster below 100%: nothing to slow down");
cleanup:
	free(pcts);
	if (err)
		emulation_free(e);
	return err;
}

static const char *const method_names[] = {
	[EMULATE_AUTO] = "auto",
	[EMULATE_STEALER] = "stealer",
	[EMULATE_CPUFREQ] = "cpufreq",
};

int emulation_parse_method(const char *arg, enum emulate_method *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(method_names); i++) {
		if (!strcmp(arg, method_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *emulation_method_name(enum emulate_method m)
{
	return method_names[m];
}

int emulation_start(struct emulation *e, enum emulate_method method)
{
	struct timespec ts;
	int err;

	cli_block_ending_signals();
	if (method == EMULATE_AUTO)
		method = cpufreq_emul_available(e) ? EMULATE_CPUFREQ : EMULATE_STEALER;
	/* A killed schedtop's frequencies come back before anything else. */
	err = cpufreq_emul_recover(method == EMULATE_CPUFREQ);
	if (err)
		return err;
	if (method == EMULATE_CPUFREQ && !cpufreq_emul_available(e)) {
		cli_error("no cpufreq scaling limits for every CPU of '%s' under %s/devices/system/cpu/cpufreq: use --method stealer",
			  e->spec, e->sysfs_root ? e->sysfs_root : "/sys");
		return -ENOENT;
	}
	e->method = method;
	err = method == EMULATE_CPUFREQ ? cpufreq_emul_start(e) : stealer_start(e);
	if (err)
		return err;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->start_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	e->started = true;
	emulation_current = e;
	return 0;
}

void emulation_print_start(const struct emulation *e)
{
	fprintf(stderr, "schedtop: emulating %s by %s:", e->spec,
		emulation_method_name(e->method));
	for (int cpu = 0; cpu < e->nr_cpus; cpu++)
		if (e->pct[cpu] && e->pct[cpu] < 100)
			fprintf(stderr, " cpu%d at %u%%", cpu, e->pct[cpu]);
	fputs("\n", stderr);
}

const char *emulation_describe(const struct emulation *e, char *buf, size_t size)
{
	snprintf(buf, size, "%s by %s", e->spec, emulation_method_name(e->method));
	return buf;
}

const char *emulation_recorded_method(const char *desc)
{
	const char *by = desc ? strrchr(desc, ' ') : NULL;

	if (!by || by - desc < 3 || strncmp(by - 3, " by", 3))
		return NULL;
	for (size_t m = 0; m < ARRAY_SIZE(method_names); m++)
		if (m != EMULATE_AUTO && !strcmp(by + 1, method_names[m]))
			return method_names[m];
	return NULL;
}

bool emulation_is_stealer(const struct emulation *e, int tid)
{
	return e && e->started && e->method == EMULATE_STEALER && stealer_is(e, tid);
}

bool emulation_stealer_cpu(const struct emulation *e, int cpu)
{
	return e && e->started && e->method == EMULATE_STEALER && cpu >= 0 &&
	       cpu < e->nr_cpus && e->pct[cpu] && e->pct[cpu] < 100;
}

int emulation_measure(const struct emulation *e, int *cpu, double *pct, int max)
{
	if (!e->started || e->method != EMULATE_STEALER)
		return 0;
	return stealer_measure(e, cpu, pct, max);
}

int emulation_open(struct emulation *e, const char *spec, const char *sysfs_root,
		   struct schedstat_session_opts *so)
{
	if (emulation_parse(e, spec, sysfs_root))
		return EXIT_USAGE;
	so->topology = e->topology_spec;
	return emulation_start(e, EMULATE_AUTO) ? EXIT_FAIL : EXIT_OK;
}

int emulation_stop(struct emulation *e)
{
	int err = 0;

	if (!e->started)
		return 0;
	if (e->method == EMULATE_CPUFREQ)
		err = cpufreq_emul_stop(e);
	else
		stealer_stop(e);
	e->started = false;
	if (emulation_current == e)
		emulation_current = NULL;
	return err;
}

void emulation_free(struct emulation *e)
{
	emulation_stop(e);
	schedstat_topology_free(e->topo);
	free(e->spec);
	free(e->topology_spec);
	e->topo = NULL;
	e->spec = e->topology_spec = NULL;
}
