/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event engine: rebuilds, from sched trace events alone, what the BPF
 * source reads from the kernel: one st_task_rec per task and one
 * st_cpu_state per CPU, with PELT util/load/runnable computed the way
 * kernel/sched/fair.c and pelt.c do (pelt.h). Pure computation, no I/O:
 * the tracefs and trace-file sources parse events and call it, unit tests
 * feed it synthetic streams. docs/signals.md, "Estimated PELT", says where
 * its values can differ from the kernel's.
 */
#ifndef SCHEDSTAT_ENGINE_H
#define SCHEDSTAT_ENGINE_H

#include <linux/types.h>

#include "pelt.h"
#include "schedstat-local.h"
#include "schedtop.h"
#include "model.h"

struct engine;

struct engine_hooks {
	/* A task's final record, at sched_process_exit. */
	void (*exit)(void *ctx, const struct st_task_rec *rec, uint64_t ts);
	void (*migrate)(void *ctx, const struct st_task_rec *rec,
			int32_t orig_cpu, int32_t dest_cpu, uint64_t ts);
	/* The process of a thread first seen; NULL or <= 0: its own pid. */
	int32_t (*tgid)(void *ctx, int32_t pid);
	/*
	 * The kernel's own run time of @pid in ns (se.sum_exec_runtime, on
	 * the task clock that skips steal and irq time), read now; 0 or
	 * -errno (gone). Used by engine_task_clocks() only.
	 */
	int (*task_clock)(void *ctx, int32_t pid, uint64_t *ns);
	/*
	 * The kernel's task clock of @pid's CPU when @pid last stopped
	 * running (se.exec_start: update_curr() sets it to rq_clock_task()),
	 * in ns, read now; 0 or -errno. Used by engine_task_clocks() only.
	 */
	int (*exec_start)(void *ctx, int32_t pid, uint64_t *ns);
	/*
	 * The CPUs @pid may run on (p->cpus_mask), read now; 0 or -errno.
	 * Asked by engine_fill() only of a task that could be misfit, for
	 * what update_misfit_status() reads (st_task_rec.nr_cpus_allowed);
	 * with @max_allowed_capacity (the running kernel is 6.10 or later)
	 * also the capacity of its biggest allowed CPU. NULL: not known.
	 */
	int (*affinity)(void *ctx, int32_t pid, struct cpuset *allowed);
	bool max_allowed_capacity;
	void *ctx;
};

/* A task that existed before the first event, as /proc describes it. */
struct engine_seed {
	int32_t pid;
	int32_t tgid;
	char comm[ST_COMM_LEN];
	int32_t cpu;
	int32_t prio;
	bool runnable;		/* state R */
	uint64_t start_time;
	/* se.avg from /proc/PID/sched; util_sum 0 when unknown. */
	bool have_avg;
	struct pelt_avg avg;
};

int engine_new(struct engine **out, const struct schedstat_topology *topo,
	       const struct engine_hooks *hooks);
void engine_free(struct engine *e);
int engine_seed(struct engine *e, const struct engine_seed *seed, uint64_t ts);

/*
 * sched:sched_stat_runtime: @pid ran @runtime_ns of the task clock since
 * it was last accounted. Where that is less than the trace time that went
 * by, the hypervisor (steal) or interrupts took the rest, which the kernel's
 * PELT clock skips: the engine's does too from then on.
 */
void engine_runtime(struct engine *e, uint64_t ts, int cpu, int32_t pid,
		    uint64_t runtime_ns);

/*
 * Where sched_stat_runtime is not read. With hooks.exec_start, each CPU's
 * last fair task switched out since the last call, still off it, is asked
 * the kernel's task clock at that switch: against the switch's own trace
 * time it says all the CPU lost so far, idle or busy, which the PELT clock
 * skips from then on, as engine_runtime() does. Otherwise, or where that
 * read is refused, each task that ran since the last call and is off its
 * CPU now is asked its kernel run time (hooks.task_clock), and what its
 * switches spanned beyond that (steal, irq) is lost time of its CPU.
 */
void engine_task_clocks(struct engine *e);
/*
 * What the kernel accounted to steal and irq on @cpu so far (/proc/stat),
 * cumulative: the most that engine_task_clocks() credits there. A task
 * whose switches were not all traced (some processes' never are, on some
 * kernels) seems to have run longer than the kernel counted, with no steal.
 */
void engine_lost_budget(struct engine *e, int cpu, uint64_t total_ns);

/* sched:sched_switch. @prev_state as the event reports it (0x100: preempted). */
int engine_switch(struct engine *e, uint64_t ts, int cpu,
		  int32_t prev_pid, int32_t prev_prio, uint64_t prev_state,
		  const char *prev_comm, int32_t next_pid, int32_t next_prio,
		  const char *next_comm);
/*
 * @pid was current on @cpu when it recorded an event (common_pid): a
 * switch the trace lacks is made up if the engine thought otherwise.
 */
int engine_current(struct engine *e, uint64_t ts, int cpu, int32_t pid);
/*
 * The task on @cpu left it at @ts without a switch in the trace (its
 * switch out lost: it was just switched in on another CPU). Its run ends
 * there and @cpu is idle until its next switch; no switch is counted.
 */
int engine_left_unseen(struct engine *e, uint64_t ts, int cpu);
/*
 * @pid (0: idle) is on @cpu from @ts, with no switch seen: what a trace's
 * first switch on a CPU names as its previous task ran from the trace's
 * start (traces/, the head of the window). Not a switch: counts nothing.
 */
int engine_set_running(struct engine *e, uint64_t ts, int cpu, int32_t pid,
		       int32_t prio, const char *comm);
/* sched_waking: counted as a wakeup (of a task first seen there too). */
int engine_waking(struct engine *e, uint64_t ts, int32_t pid, int32_t prio,
		  const char *comm);
/* sched_wakeup(_new): the task is enqueued on @cpu. */
int engine_wakeup(struct engine *e, uint64_t ts, int32_t pid, int32_t prio,
		  int cpu, const char *comm, bool new_task);
int engine_migrate(struct engine *e, uint64_t ts, int32_t pid, int32_t prio,
		   int orig_cpu, int dest_cpu, const char *comm);
int engine_exit(struct engine *e, uint64_t ts, int32_t pid, const char *comm);
/*
 * task_rename: a live task's name from now on (an unknown one waits for
 * its events). @pid 0 (an event without its pid field, as a 6.14 change
 * made it; the writer need not be the task renamed): nothing, the task's
 * next event that names it does.
 */
void engine_rename(struct engine *e, int32_t pid, const char *comm);
void engine_freq(struct engine *e, uint64_t ts, int cpu, uint32_t khz);
void engine_idle(struct engine *e, uint64_t ts, int cpu, int32_t state);
/*
 * The root domain's overutilized flag as the kernel evaluated it (the
 * sched_overutilized trace events): from the first one on, the cluster
 * rows' overutilized and overutilized_ns are the kernel's, as the BPF
 * source has them from sched_overutilized_tp.
 */
void engine_overutilized(struct engine *e, uint64_t ts, bool overutilized);
enum engine_hp_event { ENGINE_HP_ENTER, ENGINE_HP_MULTI_ENTER, ENGINE_HP_EXIT };
/* cpuhp_enter/cpuhp_multi_enter (step @idx towards @target_or_state) or
 * cpuhp_exit (step @idx left the CPU at state @target_or_state). */
void engine_hotplug(struct engine *e, uint64_t ts, int cpu,
		    int32_t target_or_state, int32_t idx,
		    enum engine_hp_event ev);
/*
 * The kernel's own PELT values of a task's entity or a CPU's root cfs_rq,
 * from a trace event that has them (EAS-era, Android and LISA's module):
 * the engine's state takes them as of @ts and goes on from there, so a
 * sample between two such events shows them brought forward as the kernel
 * would. A value the event does not give (NULL) stays the engine's.
 * From then on the rows are not marked pelt_estimated.
 */
struct engine_kernel_pelt {
	const uint64_t *util, *load, *runnable;
};
void engine_kernel_task_pelt(struct engine *e, uint64_t ts, int32_t pid,
			     const struct engine_kernel_pelt *k);
void engine_kernel_cpu_pelt(struct engine *e, uint64_t ts, int cpu,
			    const struct engine_kernel_pelt *k);
/*
 * Before the first event. @scaled_contrib: PELT as kernels before 5.0 did
 * it (each contribution scaled by cur/max frequency and, for util, by the
 * CPU's capacity; the task clock), else 5.0's scaled PELT clock (default).
 */
void engine_set_pelt_scheme(struct engine *e, bool scaled_contrib);
/*
 * @cpu's highest frequency, the 1024 of frequency invariance (default: the
 * topology's, else none: no frequency scaling). 0 leaves it as it is.
 */
void engine_set_max_freq(struct engine *e, int cpu, uint32_t khz);
uint32_t engine_max_freq(const struct engine *e, int cpu);
/* Ring buffer records the kernel overwrote on @cpu, cumulative. */
void engine_set_dropped(struct engine *e, int cpu, uint64_t dropped);

/*
 * What the kernel would hold at @ts: every task's record and every CPU's
 * state, PELT values brought forward to @ts (the model's pelt_now() then
 * finds nothing left to decay). Arrays stay owned by the engine and valid
 * until its next call. Tasks gone are dropped from the table.
 */
int engine_fill(struct engine *e, uint64_t ts, struct model_input *in);
/* Switches made up by engine_current(). */
uint64_t engine_implicit_switches(const struct engine *e);

#endif /* SCHEDSTAT_ENGINE_H */
