// SPDX-License-Identifier: GPL-2.0
/* Small sysfs files, read below a root that tests point at fixture trees. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "schedstat-local.h"

static int sysfs_path(const char *root, const char *rel, char *path, size_t size)
{
	int n = snprintf(path, size, "%s/%s", root ? root : "/sys", rel);

	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

int sysfs_read(const char *root, const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX];
	size_t len = 0;
	int fd, err;

	if (!size)
		return -EINVAL;
	err = sysfs_path(root, rel, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/*
	 * Read one byte more than fits: a file cut short would parse as a
	 * valid but wrong value (a CPU list missing its tail), so say so.
	 */
	for (;;) {
		char extra;
		ssize_t n;

		if (len < size - 1)
			n = read(fd, buf + len, size - 1 - len);
		else
			n = read(fd, &extra, 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			close(fd);
			return err;
		}
		if (!n)
			break;
		if (len == size - 1) {
			close(fd);
			return -ENOSPC;
		}
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return len;
}

/* A whole decimal number, surrounded by nothing but white space. */
int sysfs_parse_u64(const char *buf, uint64_t *val)
{
	const char *s;
	uint64_t v = 0;

	for (s = buf; isspace((unsigned char)*s); s++)
		;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int d = *s - '0';

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	for (; isspace((unsigned char)*s); s++)
		;
	if (*s)
		return -EINVAL;
	*val = v;
	return 0;
}

int sysfs_read_u64(const char *root, const char *rel, uint64_t *val)
{
	char buf[32];
	int len;

	len = sysfs_read(root, rel, buf, sizeof(buf));
	if (len < 0)
		return len;
	return sysfs_parse_u64(buf, val);
}

int sysfs_open(const char *root, const char *rel)
{
	char path[PATH_MAX];
	int fd, err;

	err = sysfs_path(root, rel, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * An attribute is produced anew at each read from offset 0, so a sampler
 * keeps the file open instead of walking its path every time. Filled up to
 * @size: -ENOSPC, the file may be longer (see sysfs_read()).
 */
int sysfs_pread(int fd, char *buf, size_t size)
{
	ssize_t n;

	if (!size)
		return -EINVAL;
	do
		n = pread(fd, buf, size - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* Filled: the file may be longer than @buf (see sysfs_read()). */
	if ((size_t)n == size - 1)
		return -ENOSPC;
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return n;
}

int sysfs_read_kept(const char *root, const char *rel, int *fd, char *buf,
		    size_t size)
{
	int len;

	if (root)
		return sysfs_read(root, rel, buf, size);
	for (int tries = 0; tries < 2; tries++) {
		if (*fd < 0)
			*fd = sysfs_open(NULL, rel);
		if (*fd < 0)
			return *fd;
		len = sysfs_pread(*fd, buf, size);
		if (len >= 0 || len == -ENOSPC)
			return len;
		/* A file of a CPU or policy that went away and came back. */
		close(*fd);
		*fd = -1;
	}
	return len;
}

/*
 * Read a file opened by sysfs_open() again from its start. A file whose
 * object went away (its CPU offline) fails with -ENODEV.
 */
int sysfs_pread_u64(int fd, uint64_t *val)
{
	char buf[32];
	ssize_t n;

	do
		n = pread(fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n == sizeof(buf) - 1)
		return -ENOSPC;
	buf[n] = '\0';
	return sysfs_parse_u64(buf, val);
}
