// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU slots that the task iterator's last call fills from the
 * runqueues (bpf/schedtop.bpf.c read_cpus()): whether the kernel lets it
 * reach them through ksyms, copying them out, and what they hold.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf_cpus.h"
#include "signals.h"

/*
 * The verifier resolves a per-CPU ksym through kallsyms, which lists
 * per-CPU variables only with CONFIG_KALLSYMS_ALL. Names are listed even
 * to users who see zero addresses. The file has a line per symbol (about
 * 200,000): it is searched in large reads for the two names as whole
 * words, " NAME\n", not parsed line by line (fgets() and sscanf() took
 * about 100 ms of the start, before the first sample).
 */
bool bpfsrc_cpus_ksyms_resolvable(void)
{
	static const char *const want[] = { " runqueues\n", " tick_cpu_sched\n" };
	enum { CHUNK = 256 * 1024, KEEP = 32 };
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	char *buf = malloc(CHUNK + KEEP);
	size_t kept = 0;
	int found = 0;
	ssize_t got;

	while (fd >= 0 && buf && found != 3) {
		size_t len;

		got = read(fd, buf + kept, CHUNK);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len = kept + got;
		for (int i = 0; i < 2; i++)
			if (memmem(buf, len, want[i], strlen(want[i])))
				found |= 1 << i;
		/* A name cut at the end of this read is found in the next. */
		kept = len < KEEP ? len : KEEP;
		memmove(buf, buf + len - kept, kept);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return found == 3;
}

/*
 * The event programs left (frequency, preempt) update a slot's fields one
 * after another: a copy taken in between pairs a new value with an old
 * one. Copy each slot until two copies agree; writers are rare enough per
 * slot that this ends at once.
 */
void bpfsrc_cpus_copy(struct st_cpu_state *dst,
		      const volatile struct st_cpu_state *src, int nr)
{
	for (int i = 0; i < nr; i++) {
		struct st_cpu_state again;

		for (int tries = 0; tries < 16; tries++) {
			memcpy(&dst[i], (const void *)&src[i], sizeof(dst[i]));
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			memcpy(&again, (const void *)&src[i], sizeof(again));
			if (!memcmp(&dst[i], &again, sizeof(again)))
				break;
		}
	}
}

/*
 * The signals this kernel keeps per CPU, as read_cpus() found them on the
 * first CPU it read (the fields are the same on every CPU): the signal
 * table's runqueue rows whose seen bit it set.
 */
uint32_t bpfsrc_cpus_avail(const struct st_cpu_state *cpus, int nr)
{
	int cpu = 0;

	while (cpu < nr && !(cpus[cpu].seen & ST_SEEN_RQ))
		cpu++;
	return cpu < nr ? signal_avail_read(cpus[cpu].seen) : 0;
}
