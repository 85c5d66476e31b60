// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU slots that the task iterator's last call fills from the
 * runqueues (bpf/schedtop.bpf.c read_cpus()): whether the kernel lets it
 * reach them through ksyms, copying them out, and what they hold.
 */
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>

#include "bpf_cpus.h"
#include "signals.h"

/*
 * Whether the verifier resolves vmlinux BTF's variable @name to an address:
 * a program of three instructions that loads it. The verifier looks a
 * typed ksym up in kallsyms (check_pseudo_btf_id()), which lists per-CPU
 * variables only with CONFIG_KALLSYMS_ALL; asking it is what the programs'
 * load will do. Searching /proc/kallsyms ourselves (about 200,000 lines,
 * read whole where the names are missing, as on the test VM) took 14% of
 * the start's CPU time, some 57 ms.
 */
static bool ksym_resolvable(const struct btf *vmlinux, const char *name)
{
	int id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_VAR);
	struct bpf_insn insns[] = {
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_BTF_ID, .imm = id },
		{ 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	if (id <= 0)
		return false;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, NULL, "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

bool bpfsrc_cpus_ksyms_resolvable(const struct btf *vmlinux)
{
	return ksym_resolvable(vmlinux, "runqueues") &&
	       ksym_resolvable(vmlinux, "tick_cpu_sched");
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
