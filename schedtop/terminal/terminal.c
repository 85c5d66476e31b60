// SPDX-License-Identifier: GPL-2.0
/*
 * The terminal of the full-screen views (live and replay): ncurses started
 * with a description that works even with no terminfo database, and given
 * back on every way out, fatal signals included.
 */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

#include "cli.h"
#include "terminal.h"
#include "terminfo_fallback.h"

static SCREEN *screen;

/* Also reached from atexit() and fatal signals: leave the terminal usable. */
void restore_terminal(void)
{
	if (screen && !isendwin())
		endwin();
}

static void on_fatal_signal(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * The terminal description: $TERM if terminfo knows it, else one built into
 * schedtop (terminfo_fallback.c), so a phone with no terminfo database still
 * gets the live view. setupterm() is asked first because newterm() would
 * print its own error and exit.
 */
int open_terminal(struct tui_style *style)
{
	const char *term = getenv("TERM");

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cli_error("the live view needs a terminal; 'schedtop csv' writes to pipes and files");
		return -ENOTTY;
	}
	term = terminfo_setup(term, STDOUT_FILENO);
	if (!term)
		return -ENOENT;
	del_curterm(cur_term);
	screen = newterm(term, stdout, stdin);
	terminfo_release();
	if (!screen) {
		cli_error("cannot start the terminal '%s': use 'schedtop csv'", term);
		return -EIO;
	}
	atexit(restore_terminal);
	signal(SIGSEGV, on_fatal_signal);
	signal(SIGABRT, on_fatal_signal);
	signal(SIGBUS, on_fatal_signal);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	style->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	style->color = has_colors() && !getenv("NO_COLOR");
	tui_draw_init(style);
	return 0;
}

void close_terminal(void)
{
	restore_terminal();
	if (screen) {
		delscreen(screen);
		screen = NULL;
	}
}
