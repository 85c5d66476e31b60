// SPDX-License-Identifier: GPL-2.0
/* Messages for the errors this library returns, saying what to do next. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "schedstat-local.h"

static const char *const messages[SCHEDSTAT_ERR_END - SCHEDSTAT_ERR_START] = {
	[SCHEDSTAT_ERR_NO_BTF - SCHEDSTAT_ERR_START] =
		"kernel has no BTF (/sys/kernel/btf/vmlinux missing): schedtop's "
		"BPF programs need a kernel built with CONFIG_DEBUG_INFO_BTF=y",
	[SCHEDSTAT_ERR_KERNEL_TOO_OLD - SCHEDSTAT_ERR_START] =
		"kernel too old: schedtop needs BPF ring buffers, tp_btf programs "
		"and task iterators (Linux 5.8 or newer; --exact-wakeups needs "
		"task storage for tracing programs too)",
	[SCHEDSTAT_ERR_NO_PRIV - SCHEDSTAT_ERR_START] =
		"permission denied loading BPF programs: run as root, or give the "
		"binary CAP_BPF and CAP_PERFMON (setcap cap_bpf,cap_perfmon+ep schedtop)",
	[SCHEDSTAT_ERR_TOPOLOGY_SPEC - SCHEDSTAT_ERR_START] =
		"bad --topology spec: expected NAME:CPULIST[@CAPACITY],... "
		"e.g. LITTLE:0-3,big:4-7@1024",
	[SCHEDSTAT_ERR_NO_SCHED_TP - SCHEDSTAT_ERR_START] =
		"this kernel has no sched_switch BTF tracepoint: schedtop cannot attach",
	[SCHEDSTAT_ERR_BPF_LOAD - SCHEDSTAT_ERR_START] =
		"the kernel refused schedtop's BPF programs: run 'schedtop -v ...' "
		"to see libbpf's and the verifier's messages",
	[SCHEDSTAT_ERR_REC_FOREIGN - SCHEDSTAT_ERR_START] =
		"not a schedtop recording (make one with 'schedtop record -o FILE')",
	[SCHEDSTAT_ERR_REC_MANGLED - SCHEDSTAT_ERR_START] =
		"recording damaged in transit: its line endings were translated "
		"(copied with 'adb shell'?): use 'adb exec-out' or 'adb pull'",
	[SCHEDSTAT_ERR_REC_VERSION - SCHEDSTAT_ERR_START] =
		"recording made by a newer schedtop in a format this one cannot "
		"read: upgrade schedtop",
	[SCHEDSTAT_ERR_REC_CORRUPT - SCHEDSTAT_ERR_START] =
		"recording damaged: its header, its topology or every chunk of "
		"samples fails its check (if the file was copied, copy it again)",
	[SCHEDSTAT_ERR_REC_EMPTY - SCHEDSTAT_ERR_START] =
		"recording holds no whole sample (stopped within its first second?)",
	[SCHEDSTAT_ERR_NO_TRACEFS - SCHEDSTAT_ERR_START] =
		"tracefs is not mounted and could not be mounted: "
		"mount -t tracefs nodev /sys/kernel/tracing (needs root), or "
		"build the kernel with CONFIG_FTRACE",
	[SCHEDSTAT_ERR_TRACEFS_EVENTS - SCHEDSTAT_ERR_START] =
		"tracefs has no sched:sched_switch event: the kernel needs "
		"CONFIG_TRACEPOINTS and CONFIG_EVENT_TRACING (or use --source=bpf)",
	[SCHEDSTAT_ERR_NO_TRACECMD - SCHEDSTAT_ERR_START] =
		"this schedtop was built without libtracecmd and cannot read "
		"trace-cmd files: rebuild with libtracecmd-dev installed",
	[SCHEDSTAT_ERR_TRACE_FILE - SCHEDSTAT_ERR_START] =
		"a trace without sched_switch events: record one with "
		"'trace-cmd record -e sched -e power ...', or Perfetto with "
		"sched/sched_switch (docs/android.md)",
	[SCHEDSTAT_ERR_TRACEFS_PRIV - SCHEDSTAT_ERR_START] =
		"permission denied on tracefs: run as root (schedtop makes a "
		"tracing instance under /sys/kernel/tracing/instances)",
	[SCHEDSTAT_ERR_NO_HOTPLUG - SCHEDSTAT_ERR_START] =
		"this CPU cannot be taken offline (no "
		"/sys/devices/system/cpu/cpuN/online: the boot CPU on most "
		"machines, or a kernel without CONFIG_HOTPLUG_CPU): pick another",
	[SCHEDSTAT_ERR_HOTPLUG_FAILED - SCHEDSTAT_ERR_START] =
		"the kernel refused the hotplug operation (a cpuhp callback "
		"failed; see dmesg)",
	[SCHEDSTAT_ERR_TOPOLOGY_TRACE - SCHEDSTAT_ERR_START] =
		"the topology leaves out CPUs that the trace has: name every CPU "
		"of the trace in --topology (trace-cmd report --stat shows them)",
	[SCHEDSTAT_ERR_TRACE_DAMAGED - SCHEDSTAT_ERR_START] =
		"a damaged or truncated trace-cmd file (a length, offset or header in it "
		"that cannot be right): copy it again, or record it again",
	[SCHEDSTAT_ERR_NO_PELT_TP - SCHEDSTAT_ERR_START] =
		"this kernel's BTF has no pelt_*_tp tracepoints (Debian's 5.10 "
		"has none, docs/kernel-matrix.md): the --pelt-trace stream is "
		"unavailable here; sample without it",
	[SCHEDSTAT_ERR_PELT_SOURCE - SCHEDSTAT_ERR_START] =
		"--pelt-trace reads the kernel's PELT updates through BPF: use it "
		"with the BPF source (not --source tracefs, --trace or --from)",
	[SCHEDSTAT_ERR_EM_TOPOLOGY - SCHEDSTAT_ERR_START] =
		"the energy model names a cluster that the topology lacks: name "
		"its lines as the clusters are named (schedtop topology), or give "
		"--topology",
	[SCHEDSTAT_ERR_NO_CPUHP_TP - SCHEDSTAT_ERR_START] =
		"this kernel's tracefs has no cpuhp:cpuhp_enter and cpuhp_exit "
		"events, which time a hotplug operation per state (they need "
		"CONFIG_HOTPLUG_CPU and CONFIG_EVENT_TRACING)",
	[SCHEDSTAT_ERR_PELT_CGROUP - SCHEDSTAT_ERR_START] =
		"--pelt-cgroup takes a cgroup's directory (e.g. /sys/fs/cgroup/NAME, "
		"on the hierarchy with the cpu controller)",
	[SCHEDSTAT_ERR_TRACE_FORMAT - SCHEDSTAT_ERR_START] =
		"not a trace file schedtop reads: it reads trace-cmd's trace.dat "
		"('trace-cmd record -e sched -e power'), Perfetto traces, ftrace "
		"text (the kernel's trace, atrace, trace-cmd report) and systrace "
		"HTML (docs/android.md)",
	[SCHEDSTAT_ERR_TRACE_SPAN - SCHEDSTAT_ERR_START] =
		"the trace's events span more than a million sample intervals: "
		"give a longer interval (-i), or look at its timestamps (one far "
		"from the others stretches it)",
	[SCHEDSTAT_ERR_TRACE_EXPORT - SCHEDSTAT_ERR_START] =
		"schedtop's own Perfetto export (convert --perfetto) holds its "
		"counters, not the sched events a trace is read from: open it in "
		"Perfetto's UI, or read the recording it was made from (csv --from "
		"FILE.rec)",
};

/* Front ends may report errors from several threads; strerror() is not safe. */
static __thread char errno_buf[128];

const char *schedstat_strerror(int err)
{
	const char *msg;

	/* -INT_MIN overflows; no errno is that large anyway. */
	if (err == INT_MIN)
		err = INT_MAX;
	if (err < 0)
		err = -err;
	if (err >= SCHEDSTAT_ERR_START && err < SCHEDSTAT_ERR_END &&
	    messages[err - SCHEDSTAT_ERR_START])
		return messages[err - SCHEDSTAT_ERR_START];
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
	msg = strerror_r(err, errno_buf, sizeof(errno_buf));
#else
	if (strerror_r(err, errno_buf, sizeof(errno_buf)))
		snprintf(errno_buf, sizeof(errno_buf), "Unknown error %d", err);
	msg = errno_buf;
#endif
	return msg;
}
