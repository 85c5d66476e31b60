// SPDX-License-Identifier: GPL-2.0
/*
 * The emulation (schedstat_emulation_*): the spec and the choice of method;
 * the methods themselves are emulate_stealer.c and emulate_cpufreq.c. What
 * each does and does not reproduce: docs/emulation.md. Nothing here prints:
 * a failure's one line is kept for the caller (schedstat_emulation_error()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emulate.h"

/*
 * Below 10% a stealer burns over 90% of its CPU, more than RT throttling
 * (sched_rt_runtime_us, 95% by default) lets through with any margin.
 */
#define MIN_PCT	10

static const char spec_example[] = "e.g. LITTLE:0@50%,big:1 or LITTLE:0-3@40%,big:4-7";

static int bad_spec(struct schedstat_emulation *e, const char *spec, const char *why)
{
	emul_error(e, "bad emulation spec '%s': %s (%s)", spec, why, spec_example);
	return -EINVAL;
}

/*
 * "LITTLE:0@50%,big:1" -> "LITTLE:0@512,big:1@1024" and the percent of each
 * cluster in order: every cluster gets an explicit capacity, so that the
 * topology is the emulated one whatever sysfs says.
 */
static int translate(struct schedstat_emulation *e, const char *spec,
		     char *out, size_t size, unsigned int *pcts, int *nr)
{
	size_t o = 0;
	int k = -1;

	*nr = 0;
	for (const char *p = spec; *p; p++) {
		if (o + 8 >= size)
			return bad_spec(e, spec, "too long");
		if (*p == ':') {
			/* One ':' per cluster: CPU lists hold none. */
			if (k >= 0 && pcts[k] == 0) {
				pcts[k] = 100;
				o += snprintf(out + o, size - o, "@1024");
			}
			if (++k >= SCHEDSTAT_MAX_CPUS)
				return bad_spec(e, spec, "too many clusters");
			pcts[k] = 0;
			out[o++] = *p;
			continue;
		}
		if (*p == '@') {
			unsigned long v = 0;
			const char *d = p + 1;

			if (k < 0)
				return bad_spec(e, spec, "a cluster is NAME:CPULIST@N%");
			while (*d >= '0' && *d <= '9' && v <= 1000)
				v = v * 10 + (*d++ - '0');
			if (d == p + 1 || *d != '%')
				return bad_spec(e, spec, "a capacity is a percentage of this machine's CPU, N%");
			if (v < MIN_PCT || v > 100)
				return bad_spec(e, spec, "a cluster runs at 10% to 100% of a CPU");
			if (pcts[k])
				return bad_spec(e, spec, "one capacity per cluster");
			pcts[k] = v;
			o += snprintf(out + o, size - o, "@%lu",
				      (v * SCHEDSTAT_CAPACITY_SCALE + 50) / 100);
			p = d;		/* the '%' */
			continue;
		}
		out[o++] = *p;
	}
	if (k < 0)
		return bad_spec(e, spec, "no cluster");
	if (pcts[k] == 0) {
		pcts[k] = 100;
		o += snprintf(out + o, size - o, "@1024");
	}
	out[o] = '\0';
	*nr = k + 1;
	return 0;
}

int schedstat_emulation_new(struct schedstat_emulation **out, const char *spec,
			    const char *sysfs_root, char *why, size_t why_size)
{
	struct schedstat_emulation *e;
	unsigned int *pcts = NULL;
	size_t size = strlen(spec) * 3 + 64;
	bool slowed = false;
	int nr, err;

	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->sysfs_root = sysfs_root;
	e->spec = strdup(spec);
	e->topology_spec = malloc(size);
	pcts = calloc(SCHEDSTAT_MAX_CPUS, sizeof(*pcts));
	if (!e->spec || !e->topology_spec || !pcts) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (!*spec) {
		err = bad_spec(e, spec, "empty");
		goto cleanup;
	}
	err = translate(e, spec, e->topology_spec, size, pcts, &nr);
	if (err)
		goto cleanup;
	err = schedstat_topology_parse(&e->topo, e->topology_spec, sysfs_root);
	if (err && err != -ENOMEM)
		err = bad_spec(e, spec, "clusters are NAME:CPULIST[@N%],... with distinct names and each CPU in one cluster");
	if (err)
		goto cleanup;
	e->nr_cpus = schedstat_topology_nr_cpus(e->topo);
	for (int cpu = 0; cpu < e->nr_cpus; cpu++) {
		int k = schedstat_topology_cpu_cluster(e->topo, cpu);

		if (k < 0 || k >= nr)
			continue;
		e->pct[cpu] = pcts[k];
		slowed |= pcts[k] < 100;
	}
	if (!slowed)
		err = bad_spec(e, spec, "no cluster below 100%: nothing to slow down");
cleanup:
	free(pcts);
	if (err) {
		if (why && why_size)
			snprintf(why, why_size, "%s", e->error);
		schedstat_emulation_free(e);
		return err;
	}
	*out = e;
	return 0;
}

static const char *const method_names[] = {
	[SCHEDSTAT_EMULATE_AUTO] = "auto",
	[SCHEDSTAT_EMULATE_STEALER] = "stealer",
	[SCHEDSTAT_EMULATE_CPUFREQ] = "cpufreq",
};

int schedstat_emulate_method_parse(const char *arg, enum schedstat_emulate_method *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(method_names); i++) {
		if (!strcmp(arg, method_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *schedstat_emulate_method_name(enum schedstat_emulate_method m)
{
	return (unsigned int)m < ARRAY_SIZE(method_names) ? method_names[m] : NULL;
}

int schedstat_emulation_start(struct schedstat_emulation *e,
			      enum schedstat_emulate_method method)
{
	struct timespec ts;
	int err;

	e->error[0] = '\0';
	if (method == SCHEDSTAT_EMULATE_AUTO)
		method = cpufreq_emul_available(e) ? SCHEDSTAT_EMULATE_CPUFREQ :
						     SCHEDSTAT_EMULATE_STEALER;
	/* A killed schedtop's frequencies come back before anything else. */
	err = cpufreq_emul_recover(method == SCHEDSTAT_EMULATE_CPUFREQ, &e->recovered,
				   e->error, sizeof(e->error));
	if (err)
		return err;
	if (method == SCHEDSTAT_EMULATE_CPUFREQ && !cpufreq_emul_available(e)) {
		emul_error(e, "no cpufreq scaling limits for every CPU of '%s' under %s/devices/system/cpu/cpufreq: use --method stealer",
			   e->spec, e->sysfs_root ? e->sysfs_root : "/sys");
		return -ENOENT;
	}
	e->method = method;
	err = method == SCHEDSTAT_EMULATE_CPUFREQ ? cpufreq_emul_start(e) : stealer_start(e);
	if (err)
		return err;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->start_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	e->started = true;
	return 0;
}

const char *schedstat_emulation_describe(const struct schedstat_emulation *e,
					 char *buf, size_t size)
{
	snprintf(buf, size, "%s by %s", e->spec, schedstat_emulate_method_name(e->method));
	return buf;
}

const char *schedstat_emulation_recorded_method(const char *desc)
{
	const char *by = desc ? strrchr(desc, ' ') : NULL;

	if (!by || by - desc < 3 || strncmp(by - 3, " by", 3))
		return NULL;
	for (size_t m = 0; m < ARRAY_SIZE(method_names); m++)
		if (m != SCHEDSTAT_EMULATE_AUTO && !strcmp(by + 1, method_names[m]))
			return method_names[m];
	return NULL;
}

bool schedstat_emulation_is_stealer(const struct schedstat_emulation *e, int tid)
{
	return e && e->started && e->method == SCHEDSTAT_EMULATE_STEALER &&
	       stealer_is(e, tid);
}

bool schedstat_emulation_stealer_cpu(const struct schedstat_emulation *e, int cpu)
{
	return e && e->started && e->method == SCHEDSTAT_EMULATE_STEALER &&
	       cpu >= 0 && cpu < e->nr_cpus && e->pct[cpu] && e->pct[cpu] < 100;
}

int schedstat_emulation_measure(const struct schedstat_emulation *e, int *cpu,
				double *pct, int max)
{
	if (!e->started || e->method != SCHEDSTAT_EMULATE_STEALER)
		return 0;
	return stealer_measure(e, cpu, pct, max);
}

int schedstat_emulation_stop(struct schedstat_emulation *e)
{
	int err = 0;

	if (!e || !e->started)
		return 0;
	if (e->method == SCHEDSTAT_EMULATE_CPUFREQ)
		err = cpufreq_emul_stop(e);
	else
		stealer_stop(e);
	e->started = false;
	return err;
}

void schedstat_emulation_free(struct schedstat_emulation *e)
{
	if (!e)
		return;
	schedstat_emulation_stop(e);
	schedstat_topology_free(e->topo);
	free(e->spec);
	free(e->topology_spec);
	free(e);
}

const char *schedstat_emulation_error(const struct schedstat_emulation *e)
{
	return e->error;
}

const struct schedstat_emulation_recovery *
schedstat_emulation_recovered(const struct schedstat_emulation *e)
{
	return &e->recovered;
}

const char *schedstat_emulation_spec(const struct schedstat_emulation *e)
{
	return e->spec;
}

const char *schedstat_emulation_topology_spec(const struct schedstat_emulation *e)
{
	return e->topology_spec;
}

enum schedstat_emulate_method
schedstat_emulation_method(const struct schedstat_emulation *e)
{
	return e->method;
}

int schedstat_emulation_nr_cpus(const struct schedstat_emulation *e)
{
	return e->nr_cpus;
}

unsigned int schedstat_emulation_cpu_pct(const struct schedstat_emulation *e, int cpu)
{
	return cpu >= 0 && cpu < e->nr_cpus ? e->pct[cpu] : 0;
}

int schedstat_emulation_recover(bool busy_is_error,
				struct schedstat_emulation_recovery *r,
				char *why, size_t why_size)
{
	return cpufreq_emul_recover(busy_is_error, r, why, why_size);
}

const char *schedstat_emulation_state_path(void)
{
	return cpufreq_emul_state_path;
}
