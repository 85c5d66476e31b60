// SPDX-License-Identifier: GPL-2.0
/*
 * The cpufreq method: a slowed CPU's policy gets scaling_max_freq capped at
 * N% of cpuinfo_max_freq (the highest available frequency at or below it),
 * every other CPU's policy gets scaling_min_freq raised to cpuinfo_max_freq,
 * so that the clusters differ by N% in speed and schedutil cannot close the
 * gap. What was there before goes into a state file first, under a lock held
 * for the whole emulation: stop puts it back, and when schedtop was killed,
 * the next emulation finds the file unlocked and puts it back then.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emulate.h"

#define STATE_DIR	"/run/schedtop"
const char cpufreq_emul_state_path[] = STATE_DIR "/emulate-cpufreq.state";

#define MAX_POLICIES	256
#define PATH_LEN	1024

/* One value written: the file and what it held before. */
struct saved {
	char path[PATH_LEN + 32];
	unsigned long old;
};

struct emulate_cpufreq {
	struct schedstat_emulation *e;	/* whose error says what failed */
	int state_fd;
	struct saved *saved;
	int nr_saved;
};

struct policy {
	char dir[PATH_LEN];	/* .../cpufreq/policyN */
	int first_cpu;
	unsigned int pct;	/* of its CPUs; 0: none in the spec */
	bool mixed;		/* its CPUs have different percentages */
	bool in_spec;
};

static const char *root_of(const struct schedstat_emulation *e)
{
	return e->sysfs_root ? e->sysfs_root : "/sys";
}

/* The one line saying what failed, into @why. */
static void say(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!why || !size)
		return;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

static int read_ulong(const char *path, unsigned long *v)
{
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, "%lu", v);
	fclose(f);
	return n == 1 ? 0 : -EIO;
}

static int write_ulong(const char *path, unsigned long v)
{
	char buf[32];
	int fd = open(path, O_WRONLY | O_CLOEXEC), len, err = 0;

	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%lu\n", v);
	if (write(fd, buf, len) != len)
		err = -errno;
	/* sysfs reports a refused value at close for some attributes. */
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/*
 * The policies that hold the spec's CPUs, from each policyN/related_cpus
 * (blank-separated CPU numbers). Returns how many, or -errno.
 */
static int find_policies(const struct schedstat_emulation *e, struct policy *pol, int max)
{
	char dir[PATH_LEN - 300];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpufreq", root_of(e));
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		char path[PATH_LEN + 32];
		struct policy *p = &pol[n];
		FILE *f;
		int cpu;

		if (strncmp(de->d_name, "policy", 6))
			continue;
		memset(p, 0, sizeof(*p));
		p->first_cpu = -1;
		snprintf(p->dir, sizeof(p->dir), "%s/%s", dir, de->d_name);
		snprintf(path, sizeof(path), "%s/related_cpus", p->dir);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fscanf(f, "%d", &cpu) == 1) {
			unsigned int pct;

			if (cpu < 0 || cpu >= e->nr_cpus || !e->pct[cpu])
				continue;
			pct = e->pct[cpu];
			if (p->in_spec && p->pct != pct)
				p->mixed = true;
			if (!p->in_spec || cpu < p->first_cpu)
				p->first_cpu = cpu;
			p->in_spec = true;
			p->pct = pct;
		}
		fclose(f);
		if (p->in_spec)
			n++;
	}
	closedir(d);
	return n;
}

static bool has_limits(const struct policy *p)
{
	static const char *const files[] = {
		"scaling_min_freq", "scaling_max_freq", "cpuinfo_min_freq",
		"cpuinfo_max_freq",
	};
	char path[PATH_LEN + 32];

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", p->dir, files[i]);
		if (access(path, F_OK))
			return false;
	}
	return true;
}

bool cpufreq_emul_available(const struct schedstat_emulation *e)
{
	struct policy *pol = calloc(MAX_POLICIES, sizeof(*pol));
	int n, covered = 0, want = 0;
	bool ok = true;

	if (!pol)
		return false;
	n = find_policies(e, pol, MAX_POLICIES);
	for (int i = 0; i < n; i++)
		ok &= has_limits(&pol[i]);
	/* Every CPU of the spec must be in one of them. */
	for (int cpu = 0; cpu < e->nr_cpus; cpu++)
		want += e->pct[cpu] != 0;
	for (int i = 0; i < n; i++) {
		char path[PATH_LEN + 32];
		FILE *f;
		int cpu;

		snprintf(path, sizeof(path), "%s/related_cpus", pol[i].dir);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fscanf(f, "%d", &cpu) == 1)
			covered += cpu >= 0 && cpu < e->nr_cpus && e->pct[cpu];
		fclose(f);
	}
	free(pol);
	return n > 0 && ok && covered == want;
}

/*
 * The highest of scaling_available_frequencies at or below @target (the
 * lowest when none is), or @target itself when the policy lists none
 * (intel_pstate, CPPC take any value).
 */
static unsigned long pick_freq(const struct policy *p, unsigned long target)
{
	char path[PATH_LEN + 48];
	unsigned long f, best = 0, lowest = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/scaling_available_frequencies", p->dir);
	fp = fopen(path, "r");
	if (!fp)
		return target;
	while (fscanf(fp, "%lu", &f) == 1) {
		if (f <= target && f > best)
			best = f;
		if (!lowest || f < lowest)
			lowest = f;
	}
	fclose(fp);
	if (best)
		return best;
	return lowest ? lowest : target;
}

static int save_and_write(struct emulate_cpufreq *cf, const char *dir,
			  const char *file, unsigned long v)
{
	struct saved *s = &cf->saved[cf->nr_saved];
	char line[PATH_LEN + 64];
	int err, len;

	snprintf(s->path, sizeof(s->path), "%s/%s", dir, file);
	err = read_ulong(s->path, &s->old);
	if (err) {
		emul_error(cf->e, "cannot read %s: %s", s->path, strerror(-err));
		return err;
	}
	/* On disk before the change: a kill right after still restores. */
	len = snprintf(line, sizeof(line), "%s %lu\n", s->path, s->old);
	if (write(cf->state_fd, line, len) != len || fsync(cf->state_fd)) {
		err = -errno;
		emul_error(cf->e, "cannot write %s: %s", cpufreq_emul_state_path,
			   strerror(-err));
		return err;
	}
	cf->nr_saved++;
	err = write_ulong(s->path, v);
	if (err)
		emul_error(cf->e, "cannot write %lu to %s: %s", v, s->path, strerror(-err));
	return err;
}

/*
 * Writes every saved value back. Limits constrain each other (a max below
 * the min is refused on some kernels), so a second pass retries what the
 * first could not write; only its failures count, the first said in @why.
 */
static int restore_list(const struct saved *saved, int n, char *why, size_t size)
{
	int err = 0;

	for (int pass = 0; pass < 2; pass++) {
		err = 0;
		for (int i = n - 1; i >= 0; i--) {
			int e = write_ulong(saved[i].path, saved[i].old);

			if (e && pass && !err)
				say(why, size, "cannot restore %s to %lu: %s",
				    saved[i].path, saved[i].old, strerror(-e));
			if (e && !err)
				err = e;
		}
		if (!err)
			break;
	}
	return err;
}

/* The state file, locked: -EWOULDBLOCK when another schedtop holds it. */
static int open_state(bool create, int *fdp, char *why, size_t size)
{
	int fd;

	if (create && mkdir(STATE_DIR, 0755) && errno != EEXIST) {
		int err = -errno;

		say(why, size, "cannot create %s: %s", STATE_DIR, strerror(-err));
		return err;
	}
	fd = open(cpufreq_emul_state_path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = -errno;

		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

static void busy_error(char *why, size_t size)
{
	char line[64] = "";
	FILE *f = fopen(cpufreq_emul_state_path, "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
	say(why, size, "another schedtop is emulating by cpufreq (%s, %s): stop it first",
	    *line ? line : "pid unknown", cpufreq_emul_state_path);
}

int cpufreq_emul_recover(bool busy_is_error, struct schedstat_emulation_recovery *r,
			 char *why, size_t why_size)
{
	struct saved *saved = NULL;
	char line[PATH_LEN + 32], owner[64] = "", failed[PATH_LEN + 96] = "";
	int fd, n = 0, err;
	FILE *f;

	memset(r, 0, sizeof(*r));
	err = open_state(false, &fd, why, why_size);
	if (err == -ENOENT)
		return 0;
	if (err == -EWOULDBLOCK) {
		if (!busy_is_error)
			return 0;
		busy_error(why, why_size);
		return err;
	}
	if (err) {
		say(why, why_size, "cannot open %s: %s", cpufreq_emul_state_path,
		    strerror(-err));
		return err;
	}
	f = fdopen(dup(fd), "r");
	if (!f) {
		err = -errno;
		goto cleanup;
	}
	while (fgets(line, sizeof(line), f)) {
		struct saved *grown;
		char *sp = strrchr(line, ' ');

		if (!strncmp(line, "pid ", 4)) {
			snprintf(owner, sizeof(owner), "%.*s", (int)strcspn(line, "\n"), line);
			continue;
		}
		if (!sp || line[0] != '/')
			continue;
		grown = realloc(saved, (n + 1) * sizeof(*saved));
		if (!grown) {
			err = -ENOMEM;
			break;
		}
		saved = grown;
		*sp = '\0';
		snprintf(saved[n].path, sizeof(saved[n].path), "%s", line);
		if (sscanf(sp + 1, "%lu", &saved[n].old) == 1)
			n++;
	}
	fclose(f);
	if (!err)
		err = restore_list(saved, n, failed, sizeof(failed));
	if (err) {
		say(why, why_size, "could not restore the cpufreq limits in %s%s%s%s; fix them by hand, then remove it",
		    cpufreq_emul_state_path, *failed ? " (" : "", failed,
		    *failed ? ")" : "");
		goto cleanup;
	}
	r->restored = n;
	snprintf(r->owner, sizeof(r->owner), "%s", owner);
	unlink(cpufreq_emul_state_path);
cleanup:
	free(saved);
	close(fd);
	return err;
}

/*
 * One policy at its percentage of cpuinfo_max_freq: a big one (100%) pinned
 * at the top, a little one capped; what was there kept to put back.
 */
static int cap_policy(struct emulate_cpufreq *cf, const struct policy *p)
{
	char path[PATH_LEN + 32];
	unsigned long cmin, cmax, target;
	int err;

	snprintf(path, sizeof(path), "%s/cpuinfo_min_freq", p->dir);
	err = read_ulong(path, &cmin);
	if (!err) {
		snprintf(path, sizeof(path), "%s/cpuinfo_max_freq", p->dir);
		err = read_ulong(path, &cmax);
	}
	if (err) {
		emul_error(cf->e, "cannot read %s: %s", path, strerror(-err));
		return err;
	}
	if (p->pct >= 100) {
		/* Big: always at the top, so the ratio holds under load. */
		err = save_and_write(cf, p->dir, "scaling_max_freq", cmax);
		if (!err)
			err = save_and_write(cf, p->dir, "scaling_min_freq", cmax);
		return err;
	}
	target = cmax * p->pct / 100;
	if (target < cmin) {
		emul_error(cf->e, "cpu%d cannot run at %u%%: %lu kHz is below its cpuinfo_min_freq %lu kHz; give a higher percentage or use --method stealer",
			   p->first_cpu, p->pct, target, cmin);
		return -EINVAL;
	}
	target = pick_freq(p, target);
	err = save_and_write(cf, p->dir, "scaling_min_freq", cmin);
	if (!err)
		err = save_and_write(cf, p->dir, "scaling_max_freq", target);
	return err;
}

int cpufreq_emul_start(struct schedstat_emulation *e)
{
	struct policy *pol = calloc(MAX_POLICIES, sizeof(*pol));
	struct emulate_cpufreq *cf = calloc(1, sizeof(*cf));
	char line[64];
	int n, err, len;

	if (!pol || !cf) {
		free(pol);
		free(cf);
		emul_error(e, "out of memory");
		return -ENOMEM;
	}
	cf->e = e;
	cf->state_fd = -1;
	e->cpufreq = cf;
	n = find_policies(e, pol, MAX_POLICIES);
	err = n < 0 ? n : 0;
	for (int i = 0; i < n && !err; i++) {
		if (pol[i].mixed) {
			emul_error(e, "the CPUs of %s share one clock but not one percentage in '%s': give them one, or use --method stealer",
				   pol[i].dir, e->spec);
			err = -EINVAL;
		}
	}
	cf->saved = calloc(2 * (n > 0 ? n : 1), sizeof(*cf->saved));
	if (!err && !cf->saved) {
		emul_error(e, "out of memory");
		err = -ENOMEM;
	}
	if (err)
		goto cleanup;
	err = open_state(true, &cf->state_fd, e->error, sizeof(e->error));
	if (err == -EWOULDBLOCK) {
		busy_error(e->error, sizeof(e->error));
		goto cleanup;
	}
	if (err && !e->error[0])
		emul_error(e, "cannot open %s: %s", cpufreq_emul_state_path, strerror(-err));
	if (err)
		goto cleanup;
	len = snprintf(line, sizeof(line), "pid %d\n", (int)getpid());
	if (ftruncate(cf->state_fd, 0) || write(cf->state_fd, line, len) != len) {
		err = -errno;
		emul_error(e, "cannot write %s: %s", cpufreq_emul_state_path, strerror(-err));
		goto cleanup;
	}
	for (int i = 0; i < n && !err; i++)
		err = cap_policy(cf, &pol[i]);
cleanup:
	free(pol);
	if (err)
		cpufreq_emul_stop(e);
	return err;
}

int cpufreq_emul_stop(struct schedstat_emulation *e)
{
	struct emulate_cpufreq *cf = e->cpufreq;
	int err = 0;

	if (!cf)
		return 0;
	if (cf->saved)
		err = restore_list(cf->saved, cf->nr_saved, e->error, sizeof(e->error));
	if (cf->state_fd >= 0) {
		/* Restored: nothing for the next start to do. */
		if (!err)
			unlink(cpufreq_emul_state_path);
		close(cf->state_fd);
	}
	free(cf->saved);
	free(cf);
	e->cpufreq = NULL;
	return err;
}
