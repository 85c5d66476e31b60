// SPDX-License-Identifier: GPL-2.0
/*
 * ktruth: the kernel's own numbers around each of schedtop's samples.
 *
 *   ktruth CSV FILE...
 *
 * Reads every FILE (/proc/PID/sched, the scheduler debug dump) over and
 * over, each pass stamped with CLOCK_MONOTONIC before and after, and keeps
 * the passes in memory, until CSV.done exists (the payload touches it when
 * `schedtop csv -o CSV` has ended) or 120 s have passed. Then, for each
 * sample in CSV (its ts_ns, the first field, on the same clock), it prints
 * the last pass that ended before the sample and the first that began after
 * it:
 *
 *   @@ TS BEFORE_START BEFORE_END AFTER_START AFTER_END
 *   @B FILE          the before pass, FILE by FILE
 *   ...lines...
 *   @A FILE          the after pass
 *   ...lines...
 *
 *   ktruth --walks TRACE CSV FILE...
 *
 * TRACE: a tracefs instance's trace of sys_enter_bpf filtered on cmd 33
 * (BPF_ITER_CREATE) and 10 (BPF_PROG_TEST_RUN) and of
 * sys_enter_clock_gettime filtered on CLOCK_THREAD_CPUTIME_ID, read once
 * CSV.done exists: schedtop asks its run time (which brings its CPU's rq
 * clock up to date, the clock its sched_clock estimate starts from), then
 * makes the task iterator (the walk) or runs the task table's scan (its
 * syscall program) right before it reads the tasks, before the sample's
 * ts_ns (its end). The walk began at the first such call after the sample
 * before. The before pass is then the last that ended before the walk
 * began (a pass that ended inside the walk may have read a task after the
 * walk did), and the @@ line ends with that instant and with the
 * clock_gettime before it (0 where the trace has none before the sample):
 *
 *   @@ TS BEFORE_START BEFORE_END AFTER_START AFTER_END WALK CLOCK
 *
 * A FILE written HEAD:PATH is read to its first 2048 bytes only: the debug
 * dump's header (ktime and cpu_clk read together, which map
 * CLOCK_MONOTONIC onto the scheduler's clock) and CPU 0's rq clock and
 * task clock (what the task clock has skipped there) without the cost of
 * the whole dump.
 *
 * Only the passes next to a sample go out over the guest's serial console.
 * The debug dump's per-CPU task lists are left out: nothing is compared
 * with them and they are most of its bytes.
 *
 *   ktruth --periodic RUN_US PERIOD_US
 *
 * Runs RUN_US out of every PERIOD_US, forever: a periodic task that forks
 * nothing, as a fork or an exit moves a CPU's load in a step (a new task
 * starts with its full weight) where the comparison expects PELT's drift.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PASSES 20000
#define TIMEOUT_NS (120 * 1000000000ULL)
/* Between passes: the reader must not become the load it measures. */
#define PAUSE_NS 2000000

struct pass {
	uint64_t start, end;
	char *text;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int read_file(const char *path, char **buf, size_t *len, size_t *cap)
{
	size_t limit = (size_t)-1, start = *len;
	int fd;
	ssize_t n;

	if (!strncmp(path, "HEAD:", 5)) {
		path += 5;
		limit = 2048;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (*cap - *len < 65536) {
			char *p = realloc(*buf, *cap * 2);

			if (!p) {
				close(fd);
				return -ENOMEM;
			}
			*buf = p;
			*cap *= 2;
		}
		n = read(fd, *buf + *len, *cap - *len - 1);
		if (n <= 0)
			break;
		*len += n;
		if (*len - start >= limit) {
			/* Whole lines only: the pass's next marker starts a line. */
			*len = start + limit;
			while (*len > start && (*buf)[*len - 1] != '\n')
				(*len)--;
			n = 0;
			break;
		}
	}
	close(fd);
	(*buf)[*len] = 0;
	return n < 0 ? -errno : 0;
}

/* Drops the debug dump's "runnable tasks:" tables, up to their blank line. */
static void strip_task_lists(char *s)
{
	char *out = s, *line = s;
	int skip = 0;

	while (*line) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line + 1) : strlen(line);

		if (!strncmp(line, "runnable tasks:", 15))
			skip = 1;
		else if (skip && n == 1)
			skip = 0;
		if (!skip) {
			memmove(out, line, n);
			out += n;
		}
		line += n;
	}
	*out = 0;
}

/*
 * The instants (ns, CLOCK_MONOTONIC: the instance's mono clock, printed to
 * the us and so no later than the call) schedtop made an iterator, in
 * time order as the trace file prints them.
 */
/* One kind of schedtop's syscalls in the trace, by its event's text. */
static size_t read_walks(const char *path, const char *event, uint64_t **out)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!f) {
		fprintf(stderr, "ktruth: %s: %s\n", path, strerror(errno));
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long sec, usec;
		char *p = strstr(line, event);

		if (line[0] == '#' || !p || !strstr(line, "schedtop-"))
			continue;
		/* "... [001] ..... 123.456789: sys_bpf(cmd: 0x21, ..." */
		while (p > line && p[-1] != ' ')
			p--;
		if (sscanf(p, "%llu.%6llu", &sec, &usec) != 2)
			continue;
		if (n == cap) {
			uint64_t *q = realloc(*out, (cap = cap ? cap * 2 : 256) * sizeof(**out));

			if (!q)
				break;
			*out = q;
		}
		(*out)[n++] = sec * 1000000000ULL + usec * 1000;
	}
	fclose(f);
	return n;
}

static int periodic(long run_us, long period_us)
{
	struct timespec pause = { 0, (period_us - run_us) * 1000 };

	if (run_us <= 0 || period_us <= run_us || period_us >= 1000000) {
		fprintf(stderr, "ktruth: --periodic RUN_US PERIOD_US, 0 < RUN_US < PERIOD_US < 1 s\n");
		return 2;
	}
	for (;;) {
		uint64_t end = now_ns() + run_us * 1000;

		while (now_ns() < end)
			;
		nanosleep(&pause, NULL);
	}
}

int main(int argc, char **argv)
{
	static struct pass passes[MAX_PASSES];
	size_t nr = 0, cap = 1 << 20, len;
	char done[4096], line[256], *buf;
	uint64_t t0 = now_ns(), last = 0, *walks = NULL, *clocks = NULL;
	const char *walks_path = NULL;
	size_t nr_walks = 0, nr_clocks = 0;
	FILE *csv;
	int err;

	if (argc == 4 && !strcmp(argv[1], "--periodic"))
		return periodic(atol(argv[2]), atol(argv[3]));
	if (argc > 2 && !strcmp(argv[1], "--walks")) {
		walks_path = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: ktruth [--walks TRACE] CSV FILE... | ktruth --periodic RUN_US PERIOD_US\n");
		return 2;
	}
	snprintf(done, sizeof(done), "%s.done", argv[1]);
	/*
	 * Real-time, so that a pass starts when its pause ends and not when
	 * the flat-out tasks and schedtop leave it a turn: the gap around a
	 * sample is what the comparison's tolerance is made of. Not fatal
	 * without the privilege; the gaps are then only wider.
	 */
	struct sched_param sp = { .sched_priority = 1 };

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		fprintf(stderr, "ktruth: SCHED_FIFO: %s\n", strerror(errno));
	buf = malloc(cap);
	if (!buf)
		return 1;
	while (access(done, F_OK) && now_ns() - t0 < TIMEOUT_NS && nr < MAX_PASSES) {
		struct timespec pause = { 0, PAUSE_NS };
		struct pass *p = &passes[nr];

		len = 0;
		p->start = now_ns();
		for (int i = 2; i < argc; i++) {
			if (len && buf[len - 1] != '\n')
				buf[len++] = '\n';
			/* A marker line per file, then its text. */
			len += snprintf(buf + len, cap - len, "@X %s\n", argv[i]);
			err = read_file(argv[i], &buf, &len, &cap);
			if (err) {
				fprintf(stderr, "ktruth: %s: %s\n", argv[i], strerror(-err));
				return 1;
			}
		}
		p->end = now_ns();
		strip_task_lists(buf);
		p->text = strdup(buf);
		if (!p->text)
			return 1;
		nr++;
		nanosleep(&pause, NULL);
	}
	if (walks_path) {
		nr_walks = read_walks(walks_path, ": sys_bpf(", &walks);
		nr_clocks = read_walks(walks_path, ": sys_clock_gettime(", &clocks);
	}
	csv = fopen(argv[1], "r");
	if (!csv) {
		fprintf(stderr, "ktruth: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (!fgets(line, sizeof(line), csv)) {
		fprintf(stderr, "ktruth: %s is empty\n", argv[1]);
		return 1;
	}
	while (fgets(line, sizeof(line), csv)) {
		uint64_t ts = strtoull(line, NULL, 10), walk = 0, clock = 0;
		size_t b = nr, a = nr;

		if (ts == last)
			continue;
		/*
		 * The sample's first call after the sample before's stamp: a
		 * scan of the task table may take several (BPF_PROG_RUN, one
		 * per ST_TASK_OUT changed tasks), the walk one iterator.
		 */
		for (size_t i = 0; i < nr_walks && walks[i] <= ts; i++) {
			if (walks[i] > last) {
				walk = walks[i];
				break;
			}
		}
		last = ts;
		for (size_t i = 0; walk && i < nr_clocks && clocks[i] <= walk; i++)
			clock = clocks[i];
		for (size_t i = 0; i < nr; i++) {
			if (passes[i].end <= (walk ? walk : ts))
				b = i;
			if (passes[i].start >= ts) {
				a = i;
				break;
			}
		}
		if (b == nr || a == nr) {
			printf("@@ %llu none\n", (unsigned long long)ts);
			continue;
		}
		printf("@@ %llu %llu %llu %llu %llu %llu %llu\n", (unsigned long long)ts,
		       (unsigned long long)passes[b].start,
		       (unsigned long long)passes[b].end,
		       (unsigned long long)passes[a].start,
		       (unsigned long long)passes[a].end,
		       (unsigned long long)walk, (unsigned long long)clock);
		printf("@B\n");
		fputs(passes[b].text, stdout);
		printf("@A\n");
		fputs(passes[a].text, stdout);
	}
	fclose(csv);
	free(walks);
	free(clocks);
	fprintf(stderr, "ktruth: %zu passes, %zu walks and %zu clock reads traced\n",
		nr, nr_walks, nr_clocks);
	return 0;
}
