// SPDX-License-Identifier: GPL-2.0
/*
 * The live view's terminal description when the system has none for $TERM.
 *
 * ncurses can only read a description from a file, so an embedded entry is
 * written to a fresh directory (under $TMPDIR, else /data/local/tmp where
 * Android's shell may write, else /tmp) and TERMINFO points there while
 * setupterm() and newterm() read it. ncurses keeps what it read, so the
 * directory goes as soon as newterm() returns; atexit() covers the paths
 * that never reach it.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <term.h>
#include <unistd.h>

#include "array_size.h"
#include "cli.h"
#include "terminfo_fallback.h"

/* What a VT100-compatible terminal emulator (every one) understands. */
#define DEFAULT_TERM	"vt100"

static char private_dir[PATH_MAX];
static char entry_path[PATH_MAX + 64];
static char *saved_terminfo;
static bool saved_set, at_exit;

static const struct terminfo_entry *embedded(const char *name)
{
	const struct terminfo_entry *e;

	for (e = terminfo_embedded; name && e->name; e++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= w;
	}
	return 0;
}

/* DIR/X/NAME as ncurses' directory tree lays it out. */
static int materialise_in(const char *base, const struct terminfo_entry *e)
{
	char sub[PATH_MAX + 4];
	int fd, err;

	if (snprintf(private_dir, sizeof(private_dir), "%s/schedtop-terminfo.XXXXXX",
		     base) >= (int)sizeof(private_dir) || !mkdtemp(private_dir))
		goto fail;
	snprintf(sub, sizeof(sub), "%s/%c", private_dir, e->name[0]);
	if (mkdir(sub, 0700))
		goto fail_dir;
	if (snprintf(entry_path, sizeof(entry_path), "%s/%s", sub, e->name) >=
	    (int)sizeof(entry_path))
		goto fail_sub;
	fd = open(entry_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		goto fail_sub;
	err = write_all(fd, e->data, e->size);
	if (close(fd) || err) {
		unlink(entry_path);
		goto fail_sub;
	}
	return 0;
fail_sub:
	rmdir(sub);
fail_dir:
	rmdir(private_dir);
fail:
	private_dir[0] = entry_path[0] = '\0';
	return -1;
}

static int materialise(const struct terminfo_entry *e)
{
	const char *bases[] = { getenv("TMPDIR"), "/data/local/tmp", "/tmp" };
	const char *old = getenv("TERMINFO");

	for (size_t i = 0; i < ARRAY_SIZE(bases); i++) {
		if (!bases[i] || !*bases[i] || materialise_in(bases[i], e))
			continue;
		if (!saved_set) {
			saved_terminfo = old ? strdup(old) : NULL;
			saved_set = true;
		}
		if (!at_exit)
			at_exit = !atexit(terminfo_release);
		setenv("TERMINFO", private_dir, 1);
		return 0;
	}
	return -1;
}

static void remove_private(void)
{
	char *slash;

	if (!private_dir[0])
		return;
	unlink(entry_path);
	slash = strrchr(entry_path, '/');
	if (slash) {
		*slash = '\0';
		rmdir(entry_path);
	}
	rmdir(private_dir);
	private_dir[0] = entry_path[0] = '\0';
}

int terminfo_use_embedded(const char *name)
{
	const struct terminfo_entry *e = embedded(name);

	if (!e)
		return -ENOENT;
	remove_private();
	return materialise(e) ? -EROFS : 0;
}

/*
 * Exact names first: the system's $TERM, then ours. For an unknown or unset
 * TERM, the system's generic entries come before our VT100 because xterm
 * and linux restore the screen (rmcup) on exit and VT100 cannot.
 */
const char *terminfo_setup(const char *term, int fd)
{
	static const char *const system_fallbacks[] = { "xterm", "vt100", "linux", NULL };
	int err = 0;

	if (term && *term) {
		if (setupterm((char *)term, fd, &err) == OK)
			return term;
		if (!terminfo_use_embedded(term)) {
			if (setupterm((char *)term, fd, &err) == OK)
				return term;
			remove_private();
		}
	}
	for (const char *const *f = system_fallbacks; *f; f++)
		if (setupterm((char *)*f, fd, &err) == OK)
			return *f;
	if (!terminfo_use_embedded(DEFAULT_TERM)) {
		if (setupterm(DEFAULT_TERM, fd, &err) == OK)
			return DEFAULT_TERM;
		remove_private();
	}
	cli_error("no terminal description for TERM=%s, and none could be "
		  "written under $TMPDIR, /data/local/tmp or /tmp: set TMPDIR "
		  "to a writable directory, or use 'schedtop csv'",
		  term && *term ? term : "(unset)");
	return NULL;
}

void terminfo_release(void)
{
	remove_private();
	if (!saved_set)
		return;
	if (saved_terminfo)
		setenv("TERMINFO", saved_terminfo, 1);
	else
		unsetenv("TERMINFO");
	free(saved_terminfo);
	saved_terminfo = NULL;
	saved_set = false;
}

const char *terminfo_private_dir(void)
{
	return private_dir[0] ? private_dir : NULL;
}
