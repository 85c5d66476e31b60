// SPDX-License-Identifier: GPL-2.0
/*
 * The live view's built-in terminal descriptions: what the build embedded,
 * and the private TERMINFO directory an unknown TERM falls back to.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <curses.h>
#include <term.h>

#include "terminfo_fallback.h"

static const struct terminfo_entry *find(const char *name)
{
	for (const struct terminfo_entry *e = terminfo_embedded; e->name; e++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

/*
 * The compiled format: a 16-bit magic (0432, or 01036 with 32-bit numbers)
 * then five sizes; the names section after the 12-byte header starts with
 * the entry's own name.
 */
static void embedded_entries_are_compiled_terminfo(void **state)
{
	static const char *const required[] = { "vt100", "xterm-256color" };

	for (size_t i = 0; i < 2; i++) {
		const struct terminfo_entry *e = find(required[i]);
		size_t n = strlen(required[i]);
		unsigned int magic;

		assert_non_null(e);
		assert_true(e->size > 200 && e->size < 8192);
		magic = e->data[0] | e->data[1] << 8;
		assert_true(magic == 0432 || magic == 01036);
		assert_memory_equal(e->data + 12, required[i], n);
		assert_int_equal(e->data[12 + n], '|');
	}
}

static int fd_null(void)
{
	int fd = open("/dev/null", O_RDWR);

	assert_true(fd >= 0);
	return fd;
}

static void embedded_entry_is_written_for_ncurses(void **state)
{
	const struct terminfo_entry *vt100 = find("vt100");
	char dir[1024], path[1100], *buf;
	struct stat st;
	int fd = fd_null(), err = 0;
	FILE *f;

	setenv("TMPDIR", "/tmp", 1);
	setenv("TERMINFO", "/nonexistent-before", 1);
	assert_int_equal(terminfo_use_embedded("vt100"), 0);
	assert_non_null(terminfo_private_dir());
	snprintf(dir, sizeof(dir), "%s", terminfo_private_dir());
	assert_int_equal(strncmp(dir, "/tmp/schedtop-terminfo.", 23), 0);
	assert_string_equal(getenv("TERMINFO"), dir);

	/* What ncurses reads is the embedded entry, byte for byte. */
	snprintf(path, sizeof(path), "%s/v/vt100", dir);
	f = fopen(path, "rb");
	assert_non_null(f);
	buf = malloc(vt100->size + 1);
	assert_int_equal(fread(buf, 1, vt100->size + 1, f), vt100->size);
	assert_memory_equal(buf, vt100->data, vt100->size);
	fclose(f);
	free(buf);
	assert_int_equal(setupterm("vt100", fd, &err), OK);

	terminfo_release();
	assert_null(terminfo_private_dir());
	assert_int_equal(stat(dir, &st), -1);
	assert_string_equal(getenv("TERMINFO"), "/nonexistent-before");
	unsetenv("TERMINFO");
	close(fd);
}

static void not_embedded_changes_nothing(void **state)
{
	unsetenv("TERMINFO");
	assert_int_equal(terminfo_use_embedded("schedtop-no-such-terminal"), -ENOENT);
	assert_int_equal(terminfo_use_embedded(NULL), -ENOENT);
	assert_null(terminfo_private_dir());
	assert_null(getenv("TERMINFO"));
}

static void unwritable_tmpdir_falls_through(void **state)
{
	const char *dir;

	setenv("TMPDIR", "/proc", 1);
	assert_int_equal(terminfo_use_embedded("xterm-256color"), 0);
	dir = terminfo_private_dir();
	assert_non_null(dir);
	assert_true(!strncmp(dir, "/data/local/tmp/schedtop-terminfo.", 34) ||
		    !strncmp(dir, "/tmp/schedtop-terminfo.", 23));
	terminfo_release();
	assert_null(getenv("TERMINFO"));
}

/* The build host has xterm-256color (the build embedded it from there). */
static void system_entry_needs_no_private_copy(void **state)
{
	int fd = fd_null();
	const char *name;

	unsetenv("TERMINFO");
	name = terminfo_setup("xterm-256color", fd);
	assert_non_null(name);
	assert_string_equal(name, "xterm-256color");
	assert_null(terminfo_private_dir());
	assert_null(getenv("TERMINFO"));
	terminfo_release();
	close(fd);
}

/* Unknown, empty or unset TERM: some description, never a failure. */
static void unknown_term_gets_a_generic_entry(void **state)
{
	static const char *const terms[] = { "schedtop-no-such-terminal", "",
					     "../../etc/passwd", NULL };
	int fd = fd_null();

	setenv("TMPDIR", "/tmp", 1);
	for (size_t i = 0; i < 4; i++) {
		const char *name = terminfo_setup(terms[i], fd);

		assert_non_null(name);
		assert_true(!strcmp(name, "xterm") || !strcmp(name, "vt100") ||
			    !strcmp(name, "linux"));
		terminfo_release();
	}
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(embedded_entries_are_compiled_terminfo),
		cmocka_unit_test(embedded_entry_is_written_for_ncurses),
		cmocka_unit_test(not_embedded_changes_nothing),
		cmocka_unit_test(unwritable_tmpdir_falls_through),
		cmocka_unit_test(system_entry_needs_no_private_copy),
		cmocka_unit_test(unknown_term_gets_a_generic_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
