/* SPDX-License-Identifier: GPL-2.0 */
/* The terminal of the live view and of replay (terminal.c). */
#ifndef SCHEDTOP_TERMINAL_H
#define SCHEDTOP_TERMINAL_H

#include "tui_draw.h"

/*
 * Starts ncurses on standard input/output with a usable terminal
 * description (see terminal.c), and arranges for the terminal to be
 * restored on exit and fatal signals. Reports failures itself.
 */
int open_terminal(struct tui_style *style);
/* Leaves curses mode; safe to call more than once. */
void restore_terminal(void);
/* Restores and frees the screen. */
void close_terminal(void);

#endif /* SCHEDTOP_TERMINAL_H */
