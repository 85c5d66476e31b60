/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The field numbers of Perfetto's trace format that schedtop reads, as
 * Perfetto's public protos define them (google/perfetto, protos/perfetto/
 * trace/: trace.proto, trace_packet.proto, ftrace/ftrace_event_bundle.proto,
 * ftrace/ftrace_event.proto, ftrace/sched.proto, ftrace/power.proto,
 * ftrace/task.proto, ftrace/cpuhp.proto, ftrace/ftrace.proto,
 * ps/process_tree.proto, ps/process_stats.proto, system_info/cpu_info.proto;
 * protos/perfetto/common/system_info.proto). Numbers only: a field that is
 * not here is skipped, so newer traces read.
 */
#ifndef SCHEDSTAT_PERFETTO_FIELDS_H
#define SCHEDSTAT_PERFETTO_FIELDS_H

/* Trace */
enum { PF_TRACE_PACKET = 1 };

/* TracePacket */
enum {
	PF_PACKET_FTRACE_EVENTS = 1,		/* FtraceEventBundle */
	PF_PACKET_PROCESS_TREE = 2,
	PF_PACKET_PROCESS_STATS = 9,
	PF_PACKET_SYSTEM_INFO = 45,
	PF_PACKET_COMPRESSED = 50,		/* bytes: a Trace, deflated (zlib) */
	PF_PACKET_CPU_INFO = 67,
	PF_PACKET_TRACK_DESCRIPTOR = 60,	/* schedtop's own export has them */
	PF_PACKET_ZSTD_COMPRESSED = 133,	/* bytes: a Trace, zstd */
};

/* FtraceEventBundle */
enum {
	PF_BUNDLE_CPU = 1,
	PF_BUNDLE_EVENT = 2,			/* repeated FtraceEvent */
	PF_BUNDLE_LOST_EVENTS = 3,		/* bool */
	PF_BUNDLE_COMPACT_SCHED = 4,
};

/* FtraceEventBundle.CompactSched: packed arrays, one value per event */
enum {
	PF_CS_SWITCH_TIMESTAMP = 1,		/* delta from the previous switch */
	PF_CS_SWITCH_PREV_STATE = 2,
	PF_CS_SWITCH_NEXT_PID = 3,
	PF_CS_SWITCH_NEXT_PRIO = 4,
	PF_CS_INTERN_TABLE = 5,			/* repeated string */
	PF_CS_SWITCH_NEXT_COMM_INDEX = 6,
	PF_CS_WAKING_TIMESTAMP = 7,		/* delta from the previous waking */
	PF_CS_WAKING_PID = 8,
	PF_CS_WAKING_TARGET_CPU = 9,
	PF_CS_WAKING_PRIO = 10,
	PF_CS_WAKING_COMM_INDEX = 11,
};

/* FtraceEvent: common fields, then one event (a oneof, by its number) */
enum {
	PF_EVENT_TIMESTAMP = 1,
	PF_EVENT_PID = 2,			/* common_pid */
	PF_EV_PRINT = 3,
	PF_EV_SCHED_SWITCH = 4,
	PF_EV_CPU_FREQUENCY = 11,
	PF_EV_CPU_IDLE = 13,
	PF_EV_SCHED_WAKEUP = 17,
	PF_EV_SCHED_WAKING = 20,
	PF_EV_SCHED_WAKEUP_NEW = 114,
	PF_EV_TASK_NEWTASK = 235,
	PF_EV_TASK_RENAME = 236,
	PF_EV_SCHED_PROCESS_EXIT = 238,
	PF_EV_SCHED_PROCESS_FREE = 240,
	PF_EV_CPUHP_EXIT = 343,
	PF_EV_CPUHP_MULTI_ENTER = 344,
	PF_EV_CPUHP_ENTER = 345,
	PF_EV_SCHED_MIGRATE_TASK = 491,
};

/* SchedSwitchFtraceEvent */
enum { PF_SW_PREV_COMM = 1, PF_SW_PREV_PID, PF_SW_PREV_PRIO, PF_SW_PREV_STATE,
       PF_SW_NEXT_COMM, PF_SW_NEXT_PID, PF_SW_NEXT_PRIO };
/* SchedWaking-, SchedWakeup-, SchedWakeupNewFtraceEvent */
enum { PF_WK_COMM = 1, PF_WK_PID, PF_WK_PRIO, PF_WK_SUCCESS, PF_WK_TARGET_CPU };
/* SchedMigrateTaskFtraceEvent */
enum { PF_MG_COMM = 1, PF_MG_PID, PF_MG_PRIO, PF_MG_ORIG_CPU, PF_MG_DEST_CPU };
/* SchedProcessExit- and SchedProcessFreeFtraceEvent */
enum { PF_EX_COMM = 1, PF_EX_PID };
/* TaskNewtaskFtraceEvent, TaskRenameFtraceEvent */
enum { PF_NT_PID = 1, PF_NT_COMM = 2 };
enum { PF_RN_PID = 1, PF_RN_OLDCOMM = 2, PF_RN_NEWCOMM = 3 };
/* CpuFrequencyFtraceEvent, CpuIdleFtraceEvent */
enum { PF_PW_STATE = 1, PF_PW_CPU_ID = 2 };
/* CpuhpEnter-, CpuhpMultiEnterFtraceEvent; CpuhpExitFtraceEvent */
enum { PF_HP_CPU = 1, PF_HP_FUN = 2, PF_HP_IDX = 3, PF_HP_TARGET = 4 };
enum { PF_HPX_CPU = 1, PF_HPX_IDX = 2, PF_HPX_RET = 3, PF_HPX_STATE = 4 };
/* PrintFtraceEvent */
enum { PF_PRINT_BUF = 2 };

/* ProcessTree, its Process and Thread */
enum { PF_TREE_PROCESSES = 1, PF_TREE_THREADS = 2 };
enum { PF_TREE_PROC_PID = 1, PF_TREE_PROC_CMDLINE = 3 };
enum { PF_TREE_THREAD_TID = 1, PF_TREE_THREAD_NAME = 2, PF_TREE_THREAD_TGID = 3 };
/* ProcessStats, its Process and Thread */
enum { PF_STATS_PROCESSES = 1 };
enum { PF_STATS_PROC_PID = 1, PF_STATS_PROC_THREADS = 11 };
enum { PF_STATS_THREAD_TID = 1 };

/* SystemInfo and its Utsname */
enum { PF_TD_NAME = 2 };

enum { PF_SYSINFO_UTSNAME = 1 };
enum { PF_UTS_RELEASE = 3 };

/* CpuInfo and its Cpu */
enum { PF_CPUINFO_CPUS = 1 };
enum { PF_CPU_FREQUENCIES = 2, PF_CPU_CAPACITY = 3 };

#endif /* SCHEDSTAT_PERFETTO_FIELDS_H */
