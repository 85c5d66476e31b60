// SPDX-License-Identifier: GPL-2.0
/*
 * The energy model: the kernel's (debugfs energy_model/, as
 * kernel/power/energy_model.c writes it) or a user's text file.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy_model.h"

#define EM_DEBUGFS	"/sys/kernel/debug/energy_model"
/* EM_PERF_DOMAIN_MICROWATTS (include/linux/energy_model.h): power in uW. */
#define EM_FLAG_MICROWATTS	0x1

static struct schedstat_energy_model *em_new(const char *origin, bool debugfs)
{
	struct schedstat_energy_model *em = calloc(1, sizeof(*em));

	if (!em)
		return NULL;
	snprintf(em->origin, sizeof(em->origin), "%s", origin);
	em->from_debugfs = debugfs;
	return em;
}

static int state_cmp(const void *a, const void *b)
{
	const struct schedstat_em_state *x = a, *y = b;

	return (x->khz > y->khz) - (x->khz < y->khz);
}

static struct em_domain *domain_get(struct schedstat_energy_model *em,
				    const char *name)
{
	struct em_domain *d;

	for (int i = 0; i < em->nr_domains; i++)
		if (!strcmp(em->domains[i].name, name))
			return &em->domains[i];
	if (em->nr_domains == EM_MAX_DOMAINS)
		return NULL;
	d = &em->domains[em->nr_domains++];
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->cluster = -ENOENT;
	return d;
}

static void sort_states(struct schedstat_energy_model *em)
{
	for (int i = 0; i < em->nr_domains; i++)
		qsort(em->domains[i].states, em->domains[i].nr_states,
		      sizeof(em->domains[i].states[0]), state_cmp);
}

/* One "CLUSTER KHZ MW" or "CLUSTER idle MW" line; 0 for a blank line. */
static int parse_line(struct schedstat_energy_model *em, char *line)
{
	char name[64], what[32], extra[2];
	struct em_domain *d;
	double mw;
	char *hash = strchr(line, '#'), *end;
	unsigned long khz;
	int n;

	if (hash)
		*hash = '\0';
	n = sscanf(line, "%63s %31s %lf %1s", name, what, &mw, extra);
	if (n <= 0)
		return 0;
	if (n != 3 || strlen(name) >= SCHEDSTAT_NAME_LEN || !(mw >= 0) || mw > 1e6)
		return -EINVAL;
	d = domain_get(em, name);
	if (!d)
		return -EINVAL;
	if (!strcmp(what, "idle")) {
		d->idle_mw = mw;
		return 0;
	}
	errno = 0;
	khz = strtoul(what, &end, 10);
	if (*end || errno || !khz || khz > 100000000 || !isdigit((unsigned char)*what))
		return -EINVAL;
	for (int i = 0; i < d->nr_states; i++)
		if (d->states[i].khz == khz)
			return -EINVAL;
	if (d->nr_states == EM_MAX_STATES)
		return -EINVAL;
	d->states[d->nr_states++] = (struct schedstat_em_state){
		.khz = khz, .power_mw = mw,
	};
	return 0;
}

int schedstat_energy_model_parse(struct schedstat_energy_model **out,
				 const char *text, int *bad_line)
{
	struct schedstat_energy_model *em;
	const char *p = text;
	int line = 0;

	*out = NULL;
	if (bad_line)
		*bad_line = 0;
	em = em_new("text", false);
	if (!em)
		return -ENOMEM;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char buf[256];

		line++;
		if (len >= sizeof(buf))
			goto bad;
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (parse_line(em, buf))
			goto bad;
		p += len + !!nl;
	}
	/* An idle line alone is no domain: it names no OPP to run at. */
	line = 0;
	if (!em->nr_domains)
		goto bad;
	for (int i = 0; i < em->nr_domains; i++)
		if (!em->domains[i].nr_states)
			goto bad;
	sort_states(em);
	*out = em;
	return 0;
bad:
	if (bad_line)
		*bad_line = line;
	free(em);
	return -EINVAL;
}

int schedstat_energy_model_load(struct schedstat_energy_model **out,
				const char *path, int *bad_line)
{
	char *text = NULL;
	size_t cap = 0, len = 0, n;
	FILE *f;
	int err;

	*out = NULL;
	if (bad_line)
		*bad_line = 0;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	do {
		/* Nobody's model is a megabyte: refuse what is not one. */
		err = len + 4096 + 1 > (1 << 20) ? -EFBIG :
		      schedstat_array_reserve((void **)&text, &cap, len + 4096 + 1, 1);
		if (err) {
			free(text);
			fclose(f);
			return err;
		}
		n = fread(text + len, 1, 4096, f);
		len += n;
	} while (n);
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!err) {
		text[len] = '\0';
		err = schedstat_energy_model_parse(out, text, bad_line);
	}
	free(text);
	if (!err)
		snprintf((*out)->origin, sizeof((*out)->origin), "%s", path);
	return err;
}

/* A small debugfs file's text, without its newline; -errno if missing. */
static int read_str(const char *dir, const char *name, char *buf, size_t size)
{
	char path[512];
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err = util_read_small_file(path, buf, size);
	/* Each file holds one value: an empty one is as bad as no read. */
	if (!err && !buf[0])
		err = -EIO;
	return err;
}

/* The same as a number. */
static int read_num(const char *dir, const char *name, unsigned long long *val)
{
	char buf[64], *end;
	int err = read_str(dir, name, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*val = strtoull(buf, &end, 0);	/* flags are written "%#lx" */
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

/* One pdN directory: its cpus, flags and every ps:KHZ (or cs:KHZ). */
static int read_domain(struct schedstat_energy_model *em, const char *root,
		       const char *pd)
{
	char dir[400], sdir[700];
	unsigned long long flags = 0, v;
	struct em_domain *d;
	struct dirent *de;
	DIR *dp;
	int err = 0;

	snprintf(dir, sizeof(dir), "%s/%s", root, pd);
	d = domain_get(em, pd);
	if (!d)
		return -E2BIG;
	if (read_str(dir, "cpus", d->cpus, sizeof(d->cpus)) ||
	    cpulist_parse(d->cpus, &d->cpuset))
		return -EINVAL;
	/* No flags file (before 5.17): power was always in mW then. */
	read_num(dir, "flags", &flags);
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((de = readdir(dp)) && !err) {
		struct schedstat_em_state *st;

		if (strncmp(de->d_name, "ps:", 3) && strncmp(de->d_name, "cs:", 3))
			continue;
		if (d->nr_states == EM_MAX_STATES) {
			err = -E2BIG;
			break;
		}
		snprintf(sdir, sizeof(sdir), "%s/%s", dir, de->d_name);
		st = &d->states[d->nr_states];
		if (read_num(sdir, "frequency", &v) || !v || v > 100000000) {
			err = -EINVAL;
			break;
		}
		st->khz = v;
		if (read_num(sdir, "power", &v)) {
			err = -EINVAL;
			break;
		}
		st->power_mw = flags & EM_FLAG_MICROWATTS ? v / 1000.0 : (double)v;
		if (!read_num(sdir, "cost", &v))
			st->cost = v;
		/* "performance" since 6.9; before, it follows from the clock. */
		if (!read_num(sdir, "performance", &v)) {
			st->performance = v;
			d->perf_given = true;
		}
		d->nr_states++;
	}
	closedir(dp);
	if (!err && !d->nr_states)
		err = -EINVAL;
	return err;
}

static int pd_cmp(const void *a, const void *b)
{
	const struct em_domain *x = a, *y = b;

	return atoi(x->name + 2) - atoi(y->name + 2);
}

int schedstat_energy_model_read(struct schedstat_energy_model **out,
				const char *dir)
{
	struct schedstat_energy_model *em;
	struct dirent *de;
	DIR *dp;
	int err = 0;

	*out = NULL;
	if (!dir)
		dir = EM_DEBUGFS;
	dp = opendir(dir);
	if (!dp)
		return errno == ENOTDIR ? -ENOENT : -errno;
	em = em_new(dir, true);
	if (!em) {
		closedir(dp);
		return -ENOMEM;
	}
	while ((de = readdir(dp)) && !err)
		if (!strncmp(de->d_name, "pd", 2) && isdigit((unsigned char)de->d_name[2]))
			err = read_domain(em, dir, de->d_name);
	closedir(dp);
	if (!err && !em->nr_domains)
		err = -ENOENT;
	if (err) {
		free(em);
		return err;
	}
	qsort(em->domains, em->nr_domains, sizeof(em->domains[0]), pd_cmp);
	sort_states(em);
	*out = em;
	return 0;
}

void schedstat_energy_model_free(struct schedstat_energy_model *em)
{
	free(em);
}

const char *schedstat_energy_model_origin(const struct schedstat_energy_model *em)
{
	return em->origin;
}

static unsigned int first_cpu(const struct cpuset *set)
{
	for (size_t w = 0; w < ARRAY_SIZE(set->bits); w++)
		if (set->bits[w])
			return w * 64 + __builtin_ctzll(set->bits[w]);
	return SCHEDSTAT_MAX_CPUS;
}

int schedstat_energy_model_bind(struct schedstat_energy_model *em,
				const struct schedstat_topology *topo)
{
	int nr = schedstat_topology_nr_clusters(topo);

	for (int k = 0; k < SCHEDSTAT_MAX_CPUS; k++)
		em->cluster_dom[k] = -1;
	for (int i = 0; i < em->nr_domains; i++) {
		struct em_domain *d = &em->domains[i];
		unsigned int cap, top;

		d->cluster = -ENOENT;
		for (int k = 0; k < nr; k++) {
			bool match;

			if (em->from_debugfs) {
				char list[SCHEDSTAT_CPULIST_LEN];
				struct cpuset set = {};

				if (schedstat_topology_cluster_cpulist(topo, k, list, sizeof(list)) ||
				    cpulist_parse(list, &set))
					continue;
				/* A cluster shares a clock: its first CPU decides. */
				match = cpuset_test(&d->cpuset, first_cpu(&set));
			} else {
				match = !strcmp(d->name, schedstat_topology_cluster_name(topo, k));
			}
			if (match) {
				d->cluster = k;
				snprintf(d->cluster_name, sizeof(d->cluster_name), "%s",
					 schedstat_topology_cluster_name(topo, k));
				em->cluster_dom[k] = i;
				break;
			}
		}
		if (d->cluster < 0)
			return -SCHEDSTAT_ERR_EM_TOPOLOGY;
		if (d->perf_given)
			continue;
		/* em_init_performance(): capacity scales with the clock. */
		cap = schedstat_topology_cluster_capacity(topo, d->cluster);
		top = d->states[d->nr_states - 1].khz;
		for (int s = 0; s < d->nr_states; s++)
			d->states[s].performance =
				(uint32_t)((uint64_t)cap * d->states[s].khz / top);
	}
	em->bound = true;
	return 0;
}

int schedstat_energy_model_nr_domains(const struct schedstat_energy_model *em)
{
	return em->nr_domains;
}

const char *schedstat_energy_model_domain_name(const struct schedstat_energy_model *em,
					       int dom)
{
	return em->domains[dom].name;
}

const char *schedstat_energy_model_domain_cpus(const struct schedstat_energy_model *em,
					       int dom)
{
	return em->domains[dom].cpus;
}

int schedstat_energy_model_domain_cluster(const struct schedstat_energy_model *em,
					  int dom)
{
	return em->domains[dom].cluster;
}

int schedstat_energy_model_nr_states(const struct schedstat_energy_model *em, int dom)
{
	return em->domains[dom].nr_states;
}

const struct schedstat_em_state *
schedstat_energy_model_state(const struct schedstat_energy_model *em, int dom, int i)
{
	return &em->domains[dom].states[i];
}

double schedstat_energy_model_idle_mw(const struct schedstat_energy_model *em, int dom)
{
	return em->domains[dom].idle_mw;
}

int schedstat_energy_model_format(const struct schedstat_energy_model *em,
				  char *buf, size_t size)
{
	size_t len = 0;
	int n;

	if (size)
		buf[0] = '\0';
	for (int i = 0; i < em->nr_domains; i++) {
		const struct em_domain *d = &em->domains[i];
		/* Bound, a debugfs pdN is written as its cluster: the reader's key. */
		const char *name = d->cluster >= 0 ? d->cluster_name : d->name;

		for (int s = 0; s < d->nr_states; s++) {
			n = snprintf(buf + len, size - len, "%s %u %.3f\n", name,
				     d->states[s].khz, d->states[s].power_mw);
			if (n < 0 || (size_t)n >= size - len)
				return -ENOSPC;
			len += n;
		}
		if (!d->idle_mw)
			continue;
		n = snprintf(buf + len, size - len, "%s idle %.3f\n", name, d->idle_mw);
		if (n < 0 || (size_t)n >= size - len)
			return -ENOSPC;
		len += n;
	}
	return 0;
}

int schedstat_energy_model_domain_text(const struct schedstat_energy_model *em,
				       int dom, char *buf, size_t size)
{
	const struct em_domain *d = &em->domains[dom];
	size_t len = 0;
	int n;

	if (size)
		buf[0] = '\0';
	for (int s = 0; s <= d->nr_states; s++) {
		if (s == d->nr_states && !d->idle_mw)
			break;
		if (s < d->nr_states)
			n = snprintf(buf + len, size - len, "%s%u %.3f", s ? ";" : "",
				     d->states[s].khz, d->states[s].power_mw);
		else
			n = snprintf(buf + len, size - len, ";idle %.3f", d->idle_mw);
		if (n < 0 || (size_t)n >= size - len)
			return -ENOSPC;
		len += n;
	}
	return 0;
}

const char *schedstat_energy_model_domain_key(const struct schedstat_energy_model *em,
					      int dom)
{
	const struct em_domain *d = &em->domains[dom];

	return d->cluster >= 0 ? d->cluster_name : d->name;
}

int energy_model_from_meta(struct schedstat_energy_model **out,
			   const char *const *keys, const char *const *values,
			   size_t n, const char *origin)
{
	size_t cap = 1, len = 0;
	char *text, *t;
	int err;

	*out = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strncmp(keys[i], EM_META_PREFIX, strlen(EM_META_PREFIX))) {
			size_t items = 1;

			for (const char *v = values[i]; *v; v++)
				items += *v == ';';
			cap += strlen(values[i]) + items * (strlen(keys[i]) + 2);
		}
	if (cap == 1)
		return -ENOENT;
	text = calloc(1, cap);
	if (!text)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *name = keys[i] + strlen(EM_META_PREFIX), *v = values[i];

		if (strncmp(keys[i], EM_META_PREFIX, strlen(EM_META_PREFIX)))
			continue;
		/* "KHZ MW;KHZ MW;idle MW" -> "NAME KHZ MW\n" per item. */
		while (*v && len < cap) {
			size_t item = strcspn(v, ";");
			int w = snprintf(text + len, cap - len, "%s %.*s\n", name,
					 (int)item, v);

			/* cap counted every item: a short write is a bug, not input. */
			if (w < 0 || (size_t)w >= cap - len)
				break;
			len += w;
			v += item + (v[item] == ';');
		}
	}
	err = schedstat_energy_model_parse(out, text, NULL);
	free(text);
	if (!err && origin) {
		t = (*out)->origin;
		snprintf(t, sizeof((*out)->origin), "%s", origin);
	}
	return err;
}
