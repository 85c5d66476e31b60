// SPDX-License-Identifier: GPL-2.0
/*
 * The signals a snapshot may hold or lack, once (schedstat_signals()): for
 * each SCHEDSTAT_AVAIL_* bit, the BPF slot's seen bit that gives it, the CPU
 * row's fields it guards and where the BPF slot holds them, where the kernel
 * keeps it and why it can be missing. The BPF source's sample bits
 * (bpf_cpus.c), the model's CPU bits and the zeroing of what is missing
 * (model_cpus.c), the column notes (schedtop/columns/columns.c) and
 * docs/signals.md's "What each kernel keeps" (schedtop --list-signals) are
 * loops over it. Adding a signal: docs/design.md, "A signal".
 */
#include <stddef.h>
#include <string.h>

#include <linux/types.h>

#include "schedtop.h"
#include "signals.h"

/* The BPF side's limits are the rows' (schedtop.h keeps its own names). */
_Static_assert(ST_COMM_LEN == SCHEDSTAT_COMM_LEN, "comm lengths differ");
_Static_assert(ST_MAX_CPUS == SCHEDSTAT_MAX_CPUS, "CPU limits differ");
_Static_assert(ST_PELT_MAX_PIDS == SCHEDSTAT_PELT_MAX_PIDS, "PELT pid limits differ");
_Static_assert(ST_IDLE_STATES == SCHEDSTAT_IDLE_STATES, "idle states differ");

/* A CPU row field computed by the model. */
#define ROW(f)								\
	{ .name = #f, .offset = offsetof(struct schedstat_cpu, f),	\
	  .size = sizeof(((struct schedstat_cpu *)0)->f) }
/* A CPU row field copied from the BPF slot's field @s as it is. */
#define SLOT(f, s)							\
	{ .name = #f, .offset = offsetof(struct schedstat_cpu, f),	\
	  .size = sizeof(((struct schedstat_cpu *)0)->f),		\
	  .slot_offset = offsetof(struct st_cpu_state, s),		\
	  .slot_size = sizeof(((struct st_cpu_state *)0)->s) }

#define RUNQUEUE_NOT_READ "empty if the CPU's runqueue could not be read"

static const struct schedstat_signal signals[] = {
	{
		.name = "cfs",
		.avail = SCHEDSTAT_AVAIL_CFS,
		.seen = ST_SEEN_CFS,
		.flags = SCHEDSTAT_SIGNAL_RUNQUEUE,
		.cpu_fields = { SLOT(util_avg, cfs_util), SLOT(runnable_avg, cfs_runnable),
				SLOT(load_avg, cfs_load) },
		.kernel = "`rq->cfs.avg`, read at the sample (the event sources: schedtop's PELT engine); `nr_running`, `nr_switches` from the same `rq`",
		.versions = "every kernel since 5.10",
		.missing = RUNQUEUE_NOT_READ " (see docs/signals.md)",
	}, {
		.name = "rt",
		.avail = SCHEDSTAT_AVAIL_RT,
		.seen = ST_SEEN_RT,
		.flags = SCHEDSTAT_SIGNAL_RUNQUEUE,
		.cpu_fields = { SLOT(rt_util, rt_util) },
		.kernel = "`rq->avg_rt.util_avg`",
		.versions = "every kernel since 5.10",
		.missing = RUNQUEUE_NOT_READ,
	}, {
		.name = "dl",
		.avail = SCHEDSTAT_AVAIL_DL,
		.seen = ST_SEEN_DL,
		.flags = SCHEDSTAT_SIGNAL_RUNQUEUE,
		.cpu_fields = { SLOT(dl_util, dl_util) },
		.kernel = "`rq->avg_dl.util_avg`",
		.versions = "every kernel since 5.10",
		.missing = RUNQUEUE_NOT_READ,
	}, {
		.name = "irq",
		.avail = SCHEDSTAT_AVAIL_IRQ,
		.seen = ST_SEEN_IRQ,
		.flags = SCHEDSTAT_SIGNAL_RUNQUEUE,
		.cpu_fields = { SLOT(irq_util, irq_util) },
		.kernel = "`rq->avg_irq.util_avg`",
		.config = "`HAVE_SCHED_AVG_IRQ` (`IRQ_TIME_ACCOUNTING` or `PARAVIRT_TIME_ACCOUNTING`)",
		.versions = "every kernel since 5.10 with the option; not Debian's arm64 5.10, 6.1 or 6.12 (no `IRQ_TIME_ACCOUNTING`) unless paravirt time accounting is on",
		.missing = "empty if the kernel keeps no rq->avg_irq (no IRQ_TIME_ACCOUNTING or PARAVIRT_TIME_ACCOUNTING)",
	}, {
		.name = "hw",
		.avail = SCHEDSTAT_AVAIL_HW,
		.seen = ST_SEEN_HW,
		.flags = SCHEDSTAT_SIGNAL_RUNQUEUE,
		.cpu_fields = { SLOT(hw_pressure, hw_pressure) },
		.kernel = "`rq->avg_hw.util_avg` (6.10+), `rq->avg_thermal.util_avg` (5.10 to 6.9)",
		.config = "`SCHED_HW_PRESSURE` (`SCHED_THERMAL_PRESSURE` before 6.10)",
		.versions = "kernels with the option; not this x86 host's",
		.missing = "empty if the kernel keeps no rq->avg_hw (avg_thermal before Linux 6.10): no SCHED_HW_PRESSURE (SCHED_THERMAL_PRESSURE)",
	}, {
		.name = "capacity_cfs",
		.avail = SCHEDSTAT_AVAIL_CAPACITY_CFS,
		.seen = ST_SEEN_CAPACITY,
		.flags = SCHEDSTAT_SIGNAL_RUNQUEUE,
		.cpu_fields = { SLOT(capacity_cfs, capacity) },
		.kernel = "`rq->cpu_capacity`",
		.versions = "every kernel since 5.10",
		.missing = RUNQUEUE_NOT_READ,
	}, {
		.name = "overutilized",
		.avail = SCHEDSTAT_AVAIL_OVERUTILIZED,
		.seen = ST_SEEN_OVERUTILIZED,
		.flags = SCHEDSTAT_SIGNAL_RUNQUEUE | SCHEDSTAT_SIGNAL_EVENTS,
		.kernel = "`rq->rd->overutilized`, read at the sample (the event sources: the overutilized events)",
		.versions = "every kernel since 5.10 (an `int` in 5.10, a `bool` later); recent kernels set it only where EAS runs, so never on SMP kernels",
		.missing = "empty if the runqueue's root domain could not be read",
	}, {
		.name = "wakeups",
		.avail = SCHEDSTAT_AVAIL_WAKEUPS,
		.kernel = "nothing by default (`nr_wakeups` only with `SCHEDSTATS` and `kernel.sched_schedstats=1`): schedtop counts `sched_waking` with `--exact-wakeups`, the event sources their wakeup events",
		.versions = "every kernel",
	}, {
		.name = "util_est",
		.avail = SCHEDSTAT_AVAIL_UTIL_EST,
		.kernel = "`p->se.avg.util_est` of the tasks; the CPU's `rq->cfs.avg.util_est` (an `unsigned int` since 6.8, `util_est.enqueued` before)",
		.versions = "every kernel since 4.17",
		.missing = "empty if the kernel's sched_entity has no util_est",
	}, {
		.name = "hotplug",
		.avail = SCHEDSTAT_AVAIL_HOTPLUG,
		.kernel = "the `cpuhp` tracepoints (`cpuhp_enter`, `cpuhp_multi_enter`, `cpuhp_exit`)",
		.versions = "every kernel since 5.10",
		.missing = "empty if the cpuhp tracepoints are missing",
	}, {
		.name = "freq",
		.avail = SCHEDSTAT_AVAIL_FREQ,
		.seen = ST_SEEN_FREQ,
		.cpu_fields = { ROW(freq_khz), ROW(freq_avg_khz) },
		.kernel = "`power:cpu_frequency`, else the policy's `scaling_cur_freq` read at the sample",
		.config = "`CPU_FREQ` and a cpufreq driver",
		.versions = "every kernel",
		.missing = "empty where neither power:cpu_frequency nor cpufreq's scaling_cur_freq tells the clock (no cpufreq)",
	}, {
		.name = "idle",
		.avail = SCHEDSTAT_AVAIL_IDLE,
		.seen = ST_SEEN_IDLE,
		.kernel = "the cpuidle core, `cpuN/cpuidle/stateK/time` (the event sources: `power:cpu_idle`)",
		.config = "`CPU_IDLE` and a cpuidle driver",
		.versions = "every kernel",
		.missing = "empty where the CPU has no cpuidle states in sysfs (cpuN/cpuidle/stateK/time); from power:cpu_idle for the event sources",
	}, {
		.name = "pelt_estimated",
		.avail = SCHEDSTAT_AVAIL_PELT_ESTIMATED,
		.kernel = "nothing: util, runnable and load computed by schedtop's PELT engine from sched events (tracefs source, trace files)",
		.versions = "every kernel",
	}, {
		.name = "busy",
		.avail = SCHEDSTAT_AVAIL_BUSY,
		.seen = ST_SEEN_IDLE_TIME,
		.flags = SCHEDSTAT_SIGNAL_RUNQUEUE | SCHEDSTAT_SIGNAL_EVENTS,
		.cpu_fields = { ROW(busy_ns) },
		.kernel = "`tick_sched` idle + iowait sleep time (ns, with the period under way) where `tick_cpu_sched` is in kallsyms; else `/proc/stat` idle + iowait, the same accounting in 1/USER_HZ (10 ms) steps (the event sources: the idle task's switches)",
		.versions = "every kernel",
		.missing = "empty if neither tick_sched nor /proc/stat gives the CPU's idle time",
	}, {
		.name = "preempt",
		.avail = SCHEDSTAT_AVAIL_PREEMPT,
		.cpu_fields = { ROW(nr_preempt) },
		.kernel = "nothing: the kernel does not count preemptions per CPU; `sched_switch`'s `preempt` flag with `--exact-wakeups`, and for the event sources",
		.versions = "every kernel",
		.missing = "empty unless --exact-wakeups (the kernel does not count preemptions per CPU)",
	}, {
		.name = "overutilized_ns",
		.avail = SCHEDSTAT_AVAIL_OVERUTILIZED_NS,
		.kernel = "flips from `sched_overutilized_tp`; with no flip since attach, the state read at the sample held throughout",
		.versions = "kernels whose BTF has `btf_trace_sched_overutilized_tp` (6.1, 6.12; not 5.10) for the BPF source; the overutilized events for the event sources",
		.missing = "empty where sched_overutilized_tp cannot be attached (no btf_trace typedef, e.g. 5.10) and the state at the sample is unknown",
	}, {
		.name = "pelt_task",
		.avail = SCHEDSTAT_AVAIL_PELT_TASK,
		.kernel = "`pelt_se_tp` on a task's `sched_entity` (`--pelt-trace`)",
		.versions = "kernels whose BTF has the `pelt_se_tp` tracepoint's type (6.1, 6.12; not 5.10)",
		.missing = "empty for a CPU's entity (cfs, rt, dl, irq)",
	}, {
		.name = "energy",
		.avail = SCHEDSTAT_AVAIL_ENERGY,
		.kernel = "the energy model (debugfs `energy_model/`) or `--energy-model FILE`, with the CPUs' busy time",
		.config = "`ENERGY_MODEL` for the kernel's",
		.versions = "every kernel",
		.missing = "empty without an energy model (debugfs energy_model/ or --energy-model FILE) for the cluster, or when the CPUs' busy time is unknown",
	}, {
		.name = "misfit",
		.avail = SCHEDSTAT_AVAIL_MISFIT_LOAD,
		.seen = ST_SEEN_MISFIT,
		.flags = SCHEDSTAT_SIGNAL_RUNQUEUE,
		.cpu_fields = { SLOT(misfit_task_load, misfit_task_load) },
		.kernel = "`rq->misfit_task_load`, read at the sample: `update_misfit_status()` sets it at each tick and pick to the running fair task's h_load (at least 1) when the task does not fit the CPU and may run on a bigger one, else 0",
		.config = "`SMP`",
		.versions = "every kernel since 4.20; 0 on every CPU where capacities are all equal (`sched_asym_cpucap_active()` false)",
		.missing = "empty if the CPU's runqueue could not be read; the event sources do not compute it",
	}, {
		.name = "task_time",
		.avail = SCHEDSTAT_AVAIL_TASK_TIME,
		.kernel = "the task's `se.sum_exec_runtime` and `sched_info.run_delay`, read at the sample (the event sources: its switches and wakeups)",
		.versions = "every kernel",
		.missing = "empty when read back from schedtop's own Perfetto export made without --task-stats (docs/perfetto.md)",
	}, {
		.name = "activity",
		.avail = SCHEDSTAT_AVAIL_ACTIVITY,
		.kernel = "the tasks' `task_struct` and the runqueue, read at the sample (the event sources: the switches, wakeups and moves)",
		.versions = "every kernel",
		.missing = "empty when read back from schedtop's own Perfetto export, which carries its counter tracks alone (docs/perfetto.md)",
	},
};

const struct schedstat_signal *schedstat_signals(size_t *nr)
{
	*nr = ARRAY_SIZE(signals);
	return signals;
}

uint32_t signal_avail_read(uint32_t seen)
{
	uint32_t avail = 0;

	for (size_t i = 0; i < ARRAY_SIZE(signals); i++)
		if ((signals[i].flags & SCHEDSTAT_SIGNAL_RUNQUEUE) &&
		    (seen & signals[i].seen))
			avail |= signals[i].avail;
	return avail;
}

uint32_t signal_cpu_avail(uint32_t avail, uint32_t seen)
{
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++) {
		const struct schedstat_signal *s = &signals[i];

		if (!s->seen || (seen & s->seen))
			continue;
		/* Given by events without the bit: missing if the rq was read. */
		if ((s->flags & SCHEDSTAT_SIGNAL_EVENTS) && !(seen & ST_SEEN_RQ))
			continue;
		avail &= ~s->avail;
	}
	return avail;
}

/* @n bytes of an unsigned integer, widened or cut to @to bytes. */
static void copy_uint(void *dst, size_t to, const void *src, size_t n)
{
	uint64_t v = 0;

	if (n == sizeof(uint64_t))
		memcpy(&v, src, n);
	else if (n == sizeof(uint32_t)) {
		uint32_t w;

		memcpy(&w, src, n);
		v = w;
	}
	if (to == sizeof(uint64_t)) {
		memcpy(dst, &v, to);
	} else if (to == sizeof(uint32_t)) {
		uint32_t w = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;

		memcpy(dst, &w, to);
	}
}

void signal_copy_slot(struct schedstat_cpu *o, const struct st_cpu_state *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++) {
		for (int k = 0; k < SCHEDSTAT_SIGNAL_FIELDS; k++) {
			const struct schedstat_signal_field *f = &signals[i].cpu_fields[k];

			if (f->name && f->slot_size)
				copy_uint((char *)o + f->offset, f->size,
					  (const char *)c + f->slot_offset, f->slot_size);
		}
	}
}

void signal_clear_missing(struct schedstat_cpu *o)
{
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++) {
		if (o->avail & signals[i].avail)
			continue;
		for (int k = 0; k < SCHEDSTAT_SIGNAL_FIELDS; k++) {
			const struct schedstat_signal_field *f = &signals[i].cpu_fields[k];

			if (f->name)
				memset((char *)o + f->offset, 0, f->size);
		}
	}
}
