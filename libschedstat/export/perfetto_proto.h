/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Field numbers of the Perfetto trace messages schedtop writes, from
 * Perfetto's public protos (protos/perfetto/trace/trace.proto,
 * trace_packet.proto, trace_packet_defaults.proto, clock_snapshot.proto,
 * common/builtin_clock.proto and track_event/{track_event,track_descriptor,
 * process_descriptor,thread_descriptor,counter_descriptor,debug_annotation}
 * .proto). Numbers are the wire contract and never change there; only
 * those written are named. tests/fixtures/perfetto/schedtop_trace.proto is
 * the same subset as a .proto, for protoc --decode in the tests: keep the
 * two in step.
 */
#ifndef SCHEDSTAT_PERFETTO_PROTO_H
#define SCHEDSTAT_PERFETTO_PROTO_H

/* Trace */
#define PF_TRACE_PACKET			1

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
#define PF_CS_CLOCKS			1
#define PF_CS_PRIMARY_TRACE_CLOCK	2
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

#endif /* SCHEDSTAT_PERFETTO_PROTO_H */
