// SPDX-License-Identifier: GPL-2.0
/*
 * A use case: read from an rt-app file (gzip-compressed too, as Debian
 * keeps its larger documentation), and what a front end asks of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "rtapp_json.h"
#include "workload_local.h"

/* "/usr/share/doc/rt-app/examples/video-short.json.gz" -> "video-short" */
static char *name_of(const char *origin)
{
	const char *base = strrchr(origin, '/');
	size_t len;
	char *s;

	base = base ? base + 1 : origin;
	s = strdup(base);
	if (!s)
		return NULL;
	len = strlen(s);
	if (len > 3 && !strcmp(s + len - 3, ".gz"))
		s[len -= 3] = '\0';
	if (len > 5 && !strcmp(s + len - 5, ".json"))
		s[len - 5] = '\0';
	return s;
}

/* A gzip member inflated, at most RJ_MAX_TEXT bytes. */
static int inflate_all(const unsigned char *in, size_t len, char **out, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = 64 << 10, n = 0;
	char *buf = malloc(cap);
	int ret;

	if (!buf)
		return -ENOMEM;
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(buf);
		return -ENOMEM;
	}
	z.next_in = (unsigned char *)in;
	z.avail_in = len;
	do {
		if (n == cap) {
			char *p;

			if (cap >= RJ_MAX_TEXT + 1) {
				ret = Z_BUF_ERROR;
				break;
			}
			cap *= 2;
			p = realloc(buf, cap);
			if (!p) {
				inflateEnd(&z);
				free(buf);
				return -ENOMEM;
			}
			buf = p;
		}
		z.next_out = (unsigned char *)buf + n;
		z.avail_out = cap - n;
		ret = inflate(&z, Z_NO_FLUSH);
		n = cap - z.avail_out;
	} while (ret == Z_OK);
	inflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(buf);
		return -EINVAL;
	}
	*out = buf;
	*out_len = n;
	return 0;
}

static void workload_init_free(struct schedstat_workload *wl)
{
	for (size_t t = 0; wl->tasks && t < wl->nr_tasks; t++) {
		struct wl_task *task = &wl->tasks[t];

		for (size_t p = 0; task->phases && p < task->nr_phases; p++) {
			free(task->phases[p].name);
			free(task->phases[p].ev);
			free(task->phases[p].cpus);
		}
		free(task->phases);
		free(task->name);
		free(task->cpus);
	}
	for (size_t r = 0; r < wl->nr_res; r++)
		free(wl->res[r].name);
	free(wl->res);
	free(wl->tasks);
	free(wl->thread_task);
	free(wl->cons);
	free(wl->judge);
	free(wl->thread_phase);
	free(wl->resume_judge);
	free(wl->name);
	free(wl->origin);
	free(wl->description);
	free(wl->log_basename);
	free(wl->io_device);
}

int schedstat_workload_parse(struct schedstat_workload **out, const void *text,
			     size_t len, const char *origin, char *err,
			     size_t errlen)
{
	struct schedstat_workload *wl;
	const unsigned char *b = text;
	char *plain = NULL;
	size_t plain_len;
	int ret;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
		ret = inflate_all(b, len, &plain, &plain_len);
		if (ret) {
			snprintf(err, errlen, "%s: %s", origin, ret == -EINVAL ?
				 "a damaged gzip file, or one above 8 MiB inflated" :
				 strerror(-ret));
			return ret;
		}
		text = plain;
		len = plain_len;
	}
	wl = calloc(1, sizeof(*wl));
	if (!wl) {
		free(plain);
		return -ENOMEM;
	}
	wl->origin = strdup(origin);
	wl->name = name_of(origin);
	if (!wl->origin || !wl->name)
		ret = -ENOMEM;
	else
		ret = wl_parse(wl, text, len, origin, err, errlen);
	free(plain);
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "%s: out of memory", origin);
		/* One line, whatever the file's names hold ("\n" in a key). */
		for (char *p = err; errlen && *p; p++)
			if (schedstat_text_unsafe(*p, false))
				*p = '?';
		schedstat_workload_free(wl);
		return ret;
	}
	*out = wl;
	return 0;
}

int schedstat_workload_load(struct schedstat_workload **out, const char *path,
			    char *err, size_t errlen)
{
	size_t cap = 64 << 10, len = 0;
	char *buf = NULL;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	for (;;) {
		ssize_t n;

		if (len == cap || !buf) {
			char *p;

			if (buf)
				cap *= 2;
			if (cap > RJ_MAX_TEXT + (64 << 10)) {
				snprintf(err, errlen, "%s: larger than %u bytes: not a use case schedtop reads",
					 path, RJ_MAX_TEXT);
				ret = -EFBIG;
				goto out;
			}
			p = realloc(buf, cap);
			if (!p) {
				ret = -ENOMEM;
				snprintf(err, errlen, "%s: out of memory", path);
				goto out;
			}
			buf = p;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
			goto out;
		}
		if (!n)
			break;
		len += n;
	}
	ret = schedstat_workload_parse(out, buf, len, path, err, errlen);
out:
	free(buf);
	close(fd);
	return ret;
}

void schedstat_workload_free(struct schedstat_workload *wl)
{
	if (!wl)
		return;
	workload_init_free(wl);
	free(wl);
}

const char *schedstat_workload_name(const struct schedstat_workload *wl)
{
	return wl->name;
}

const char *schedstat_workload_description(const struct schedstat_workload *wl)
{
	return wl->description ? wl->description : "";
}

double schedstat_workload_duration(const struct schedstat_workload *wl)
{
	return wl->duration_s;
}

const char *schedstat_workload_log_basename(const struct schedstat_workload *wl)
{
	return wl->log_basename;
}

int schedstat_workload_calibration(const struct schedstat_workload *wl,
				   double *ns_per_loop)
{
	*ns_per_loop = wl->calib_cpu < 0 ? wl->calib_ns_per_loop : 0;
	return wl->calib_cpu;
}

size_t schedstat_workload_nr_threads(const struct schedstat_workload *wl)
{
	return wl->nr_threads;
}

const char *schedstat_workload_thread_comm(const struct schedstat_workload *wl,
					   size_t thread)
{
	return thread < wl->nr_threads ? wl->tasks[wl->thread_task[thread]].comm : "";
}

const char *schedstat_workload_thread_task(const struct schedstat_workload *wl,
					   size_t thread)
{
	return thread < wl->nr_threads ? wl->tasks[wl->thread_task[thread]].name : "";
}

size_t schedstat_workload_nr_constraints(const struct schedstat_workload *wl)
{
	return wl->nr_cons;
}

const struct schedstat_workload_constraint *
schedstat_workload_constraint(const struct schedstat_workload *wl, size_t i)
{
	return i < wl->nr_cons ? &wl->cons[i] : NULL;
}
