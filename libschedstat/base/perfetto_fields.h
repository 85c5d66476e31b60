/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The field numbers of Perfetto's trace format that schedtop reads and
 * writes, as Perfetto's public protos define them (google/perfetto,
 * protos/perfetto/). Numbers only, and only those used: the wire contract,
 * which never changes there. A field a reader does not name is skipped, so
 * newer traces read.
 *
 * Read (traces/perfetto_reader.c): trace/trace.proto, trace_packet.proto,
 * ftrace/ftrace_event_bundle.proto, ftrace/ftrace_event.proto,
 * ftrace/{sched,power,task,cpuhp,ftrace}.proto, ps/process_tree.proto,
 * ps/process_stats.proto, system_info/cpu_info.proto,
 * common/system_info.proto.
 *
 * Written (export/perfetto_*.c): trace_packet_defaults.proto,
 * clock_snapshot.proto, common/builtin_clock.proto and
 * track_event/{track_event,track_descriptor,process_descriptor,
 * thread_descriptor,counter_descriptor,debug_annotation}.proto.
 * tests/fixtures/perfetto/schedtop_trace.proto is the written subset as a
 * .proto, for protoc --decode in the tests: keep the two in step.
 */
#ifndef SCHEDSTAT_PERFETTO_FIELDS_H
#define SCHEDSTAT_PERFETTO_FIELDS_H

/* Trace */
#define PF_TRACE_PACKET			1

/* ---- What the readers take from a capture ---- */
/* TracePacket */
enum {
	PF_PKT_FTRACE_EVENTS = 1,		/* FtraceEventBundle */
	PF_PKT_PROCESS_TREE = 2,
	PF_PKT_PROCESS_STATS = 9,
	PF_PKT_SYSTEM_INFO = 45,
	PF_PKT_COMPRESSED = 50,		/* bytes: a Trace, deflated (zlib) */
	PF_PKT_CPU_INFO = 67,
	PF_PKT_ZSTD_COMPRESSED = 133,	/* bytes: a Trace, zstd */
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
enum { PF_SYSINFO_UTSNAME = 1 };
enum { PF_UTS_RELEASE = 3, PF_UTS_MACHINE = 4 };

/* CpuInfo and its Cpu */
enum { PF_CPUINFO_CPUS = 1 };
enum { PF_CPU_FREQUENCIES = 2, PF_CPU_CAPACITY = 3 };

/* ---- What the export writes (TracePacket fields as PF_PKT_ too) ---- */
/* Trace */

/* TracePacket */
#define PF_PKT_CLOCK_SNAPSHOT		6
#define PF_PKT_TIMESTAMP		8
#define PF_PKT_SEQUENCE_ID		10	/* trusted_packet_sequence_id */
#define PF_PKT_TRACK_EVENT		11
#define PF_PKT_SEQUENCE_FLAGS		13
#define PF_PKT_TIMESTAMP_CLOCK_ID	58
#define PF_PKT_DEFAULTS			59	/* trace_packet_defaults */
#define PF_PKT_TRACK_DESCRIPTOR		60
#define PF_PKT_FIRST_ON_SEQUENCE	87	/* first_packet_on_sequence */
/* TracePacket.SequenceFlags */
#define PF_SEQ_INCREMENTAL_STATE_CLEARED	1

/* TracePacketDefaults */
#define PF_DEF_TRACK_EVENT		11	/* track_event_defaults */
#define PF_DEF_TIMESTAMP_CLOCK_ID	58
/* TrackEventDefaults */
#define PF_TED_TRACK_UUID		11
#define PF_TED_EXTRA_COUNTER_UUIDS	31
#define PF_TED_EXTRA_DOUBLE_UUIDS	45

/* ClockSnapshot */
#define PF_CSNAP_CLOCKS			1
#define PF_CSNAP_PRIMARY_TRACE_CLOCK	2
/* ClockSnapshot.Clock */
#define PF_CLK_ID			1
#define PF_CLK_TIMESTAMP		2
#define PF_CLK_IS_INCREMENTAL		3
/* BuiltinClock */
#define PF_CLOCK_REALTIME		1
#define PF_CLOCK_MONOTONIC		3
#define PF_CLOCK_BOOTTIME		6
/* The first sequence-scoped clock id (64-127: a sequence's own clocks). */
#define PF_CLOCK_SEQUENCE		64

/* TrackDescriptor */
#define PF_TD_UUID			1
#define PF_TD_NAME			2
#define PF_TD_PROCESS			3
#define PF_TD_THREAD			4
#define PF_TD_PARENT_UUID		5
#define PF_TD_COUNTER			8
#define PF_TD_CHILD_ORDERING		11
#define PF_TD_SIBLING_ORDER_RANK	12
#define PF_TD_DESCRIPTION		14
/* TrackDescriptor.ChildTracksOrdering */
#define PF_ORDER_LEXICOGRAPHIC		1
#define PF_ORDER_EXPLICIT		3
/* ProcessDescriptor */
#define PF_PD_PID			1
#define PF_PD_PROCESS_NAME		6
/* ThreadDescriptor */
#define PF_THD_PID			1
#define PF_THD_TID			2
#define PF_THD_THREAD_NAME		5
/* CounterDescriptor */
#define PF_CD_UNIT			3
#define PF_CD_UNIT_NAME			6
#define PF_CD_Y_AXIS_SHARE_KEY		7
/* CounterDescriptor.Unit */
#define PF_UNIT_TIME_NS			1
#define PF_UNIT_COUNT			2

/* TrackEvent */
#define PF_TE_DEBUG_ANNOTATIONS		4
#define PF_TE_TYPE			9
#define PF_TE_TRACK_UUID		11
#define PF_TE_EXTRA_COUNTER_VALUES	12
#define PF_TE_NAME			23
#define PF_TE_COUNTER_VALUE		30
#define PF_TE_EXTRA_COUNTER_UUIDS	31
#define PF_TE_DOUBLE_COUNTER_VALUE	44
#define PF_TE_EXTRA_DOUBLE_UUIDS	45
#define PF_TE_EXTRA_DOUBLE_VALUES	46
/* TrackEvent.Type */
#define PF_TYPE_SLICE_BEGIN		1
#define PF_TYPE_SLICE_END		2
#define PF_TYPE_INSTANT			3
#define PF_TYPE_COUNTER			4
/* The trace processor takes at most this many extra counters per event. */
#define PF_MAX_EXTRA_COUNTERS		8

/* DebugAnnotation */
#define PF_DA_INT_VALUE			4
#define PF_DA_DOUBLE_VALUE		5
#define PF_DA_STRING_VALUE		6
#define PF_DA_NAME			10

#endif /* SCHEDSTAT_PERFETTO_FIELDS_H */
