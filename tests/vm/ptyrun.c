// SPDX-License-Identifier: GPL-2.0
/*
 * Runs a command in a fresh pseudo-terminal, as a person at a terminal
 * would: waits until its output shows every expected text (or a timeout),
 * types some keys, and checks that it exited 0 and gave the terminal back
 * in the state it found it. For the live view in the arm64 guest, whose
 * busybox has no 'script' and no tmux; built static by 'make ARCH=arm64
 * build-arm64/ptyrun'.
 *
 *   ptyrun [-t SECONDS] [-k KEYS] [-e TEXT]... [-o FILE] [-v] -- COMMAND [ARG]...
 *
 * -t  give up waiting for the texts after this long (default 20)
 * -k  what to type once they are all seen (default "q")
 * -e  a text the output must contain (raw bytes, escape sequences and all)
 * -o  also write the raw output to FILE
 * -v  also print the output, escape sequences blanked out
 * Prints one "ptyrun: ..." line per finding; exits 0 only if all is well.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_EXPECT	8
#define OUT_MAX		(4 << 20)
#define EXIT_WAIT_MS	10000

static char *out;
static size_t out_len;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* What the command wrote within @ms: bytes read, 0 for none, -1 at EOF. */
static int drain(int master, int ms)
{
	struct pollfd p = { .fd = master, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return 0;
	n = read(master, buf, sizeof(buf));
	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0)		/* EIO once no process has the slave open */
		return -1;
	if (out_len + n <= OUT_MAX) {
		memcpy(out + out_len, buf, n);
		out_len += n;
	}
	return n;
}

static bool seen(const char *text)
{
	return memmem(out, out_len, text, strlen(text)) != NULL;
}

static bool all_seen(char **expect, int n)
{
	for (int i = 0; i < n; i++)
		if (!seen(expect[i]))
			return false;
	return true;
}

/* The output as text: ESC [ ... final byte and other controls as spaces. */
static void print_plain(void)
{
	for (size_t i = 0; i < out_len; i++) {
		unsigned char c = out[i];

		if (c == 0x1b) {
			if (i + 1 < out_len && out[i + 1] == '[') {
				for (i += 2; i < out_len && (out[i] < 0x40 || out[i] > 0x7e); i++)
					;
			} else {
				i++;
			}
			putchar(' ');
		} else if (c == '\n' || (c >= 0x20 && c != 0x7f) || c >= 0x80) {
			putchar(c);
		} else if (c == '\r') {
			putchar('\n');
		}
	}
	putchar('\n');
}

static int usage(void)
{
	fprintf(stderr, "usage: ptyrun [-t SECONDS] [-k KEYS] [-e TEXT]... [-o FILE] [-v] -- COMMAND [ARG]...\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_row = 40, .ws_col = 120 };
	struct termios before, after;
	char *expect[MAX_EXPECT], *slave_name;
	const char *keys = "q", *raw = NULL;
	int n_expect = 0, timeout_s = 20, master, slave, status, c;
	bool verbose = false, ok = true;
	long long deadline;
	pid_t pid;

	while ((c = getopt(argc, argv, "+t:k:e:o:v")) != -1) {
		switch (c) {
		case 't':
			timeout_s = atoi(optarg);
			break;
		case 'k':
			keys = optarg;
			break;
		case 'e':
			if (n_expect == MAX_EXPECT)
				return usage();
			expect[n_expect++] = optarg;
			break;
		case 'o':
			raw = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			return usage();
		}
	}
	if (optind >= argc || timeout_s <= 0)
		return usage();
	out = malloc(OUT_MAX);
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (!out || master < 0 || grantpt(master) || unlockpt(master) ||
	    !(slave_name = ptsname(master))) {
		perror("ptyrun: pseudo-terminal");
		return 1;
	}
	/* Held open: the slave's termios outlive the command, to compare. */
	slave = open(slave_name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0 || ioctl(slave, TIOCSWINSZ, &ws) || tcgetattr(slave, &before)) {
		perror("ptyrun: pseudo-terminal slave");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("ptyrun: fork");
		return 1;
	}
	if (!pid) {
		int fd;

		setsid();
		fd = open(slave_name, O_RDWR);	/* becomes the controlling tty */
		if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0) {
			perror("ptyrun: controlling terminal");
			_exit(127);
		}
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
		execvp(argv[optind], argv + optind);
		perror("ptyrun: exec");
		_exit(127);
	}

	deadline = now_ms() + timeout_s * 1000LL;
	while (!all_seen(expect, n_expect) && now_ms() < deadline)
		drain(master, 100);
	/* One more moment of output, then the keys. */
	for (long long t = now_ms() + 500; now_ms() < t;)
		drain(master, 50);
	if (write(master, keys, strlen(keys)) < 0)
		perror("ptyrun: typing");

	deadline = now_ms() + EXIT_WAIT_MS;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ms() > deadline) {
			printf("ptyrun: still running %d s after '%s': killed\n",
			       EXIT_WAIT_MS / 1000, keys);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			ok = false;
			break;
		}
		drain(master, 50);
	}
	while (drain(master, 50) > 0)
		;

	if (verbose)
		print_plain();
	if (raw) {
		FILE *f = fopen(raw, "wb");

		if (!f || fwrite(out, 1, out_len, f) != out_len || fclose(f)) {
			perror(raw);
			ok = false;
		}
	}
	printf("ptyrun: %zu bytes of output\n", out_len);
	for (int i = 0; i < n_expect; i++) {
		printf("ptyrun: %s '%s'\n", seen(expect[i]) ? "found" : "MISSING", expect[i]);
		ok &= seen(expect[i]);
	}
	if (WIFEXITED(status)) {
		printf("ptyrun: exit status %d\n", WEXITSTATUS(status));
		ok &= WEXITSTATUS(status) == 0;
	} else {
		printf("ptyrun: killed by signal %d\n", WTERMSIG(status));
		ok = false;
	}
	if (tcgetattr(slave, &after)) {
		perror("ptyrun: tcgetattr");
		ok = false;
	} else if (after.c_iflag != before.c_iflag || after.c_oflag != before.c_oflag ||
		   after.c_lflag != before.c_lflag || after.c_cflag != before.c_cflag) {
		printf("ptyrun: terminal NOT restored (lflag %#x, was %#x)\n",
		       after.c_lflag, before.c_lflag);
		ok = false;
	} else {
		printf("ptyrun: terminal restored\n");
	}
	return ok ? 0 : 1;
}
