"""A Perfetto trace's own numbers, decoded by protoc (Debian's
protobuf-compiler), not by schedtop: the test oracle of test_perfetto.py.

protoc --decode_raw cannot tell a packed array (CompactSched's) from a
nested message, so protoc decodes with a schema of its own: only the
messages and fields schedtop's numbers come from, each field number as
Perfetto's public .proto files give it (google/perfetto, protos/perfetto/
trace/trace.proto, trace_packet.proto, ftrace/ftrace_event_bundle.proto,
ftrace/ftrace_event.proto, ftrace/sched.proto, ftrace/power.proto), written
here by hand. Every other field is left to protoc's unknown-field printing.

From the decoded events the truths are plain sums:
- the window: the first and the last ftrace event of the trace;
- each CPU's timeline of switches; before the first, the task the switch
  names as previous (a full sched_switch), or, where it names none
  (CompactSched), the common pid of the CPU's last full event before it,
  else idle; after the last, its next task up to the window's end;
- busy time per CPU (time not in pid 0), run time per pid;
- frequency residency per CPU: each cpu_frequency event to the next one of
  that cpu_id, the last to the window's end.
"""
import collections
import os

from switch_truth import Window
import subprocess
import tempfile

SCHEMA = """
syntax = "proto2";
package truth;
// trace.proto: Trace.packet = 1
message Trace { repeated Packet packet = 1; }
// trace_packet.proto
message Packet {
  optional Bundle ftrace_events = 1;
  optional ProcessTree process_tree = 2;
  optional ProcessStats process_stats = 9;
  optional uint32 trusted_packet_sequence_id = 10;
  optional SystemInfo system_info = 45;
  optional bytes compressed_packets = 50;
}
// ps/process_tree.proto
message ProcessTree {
  repeated Process processes = 1;
  repeated Thread threads = 2;
}
message Process { optional int32 pid = 1; optional int32 ppid = 2; repeated string cmdline = 3; }
message Thread { optional int32 tid = 1; optional string name = 2; optional int32 tgid = 3; }
// ps/process_stats.proto: ProcessStats, its Process (threads = 11) and Thread
message ProcessStats { repeated StatsProcess processes = 1; }
message StatsProcess { optional int32 pid = 1; repeated StatsThread threads = 11; }
message StatsThread { optional int32 tid = 1; }
// common/system_info.proto
message SystemInfo { optional Utsname utsname = 1; }
message Utsname {
  optional string sysname = 1;
  optional string version = 2;
  optional string release = 3;
  optional string machine = 4;
}
// ftrace/ftrace_event_bundle.proto
message Bundle {
  optional uint32 cpu = 1;
  repeated Event event = 2;
  optional bool lost_events = 3;
  optional Compact compact_sched = 4;
}
message Compact {
  repeated string intern_table = 5;
  repeated uint64 switch_timestamp = 1 [packed = true];
  repeated int64 switch_prev_state = 2 [packed = true];
  repeated int32 switch_next_pid = 3 [packed = true];
  repeated int32 switch_next_prio = 4 [packed = true];
  repeated uint32 switch_next_comm_index = 6 [packed = true];
  repeated uint64 waking_timestamp = 7 [packed = true];
  repeated int32 waking_pid = 8 [packed = true];
  repeated int32 waking_target_cpu = 9 [packed = true];
  repeated int32 waking_prio = 10 [packed = true];
  repeated uint32 waking_comm_index = 11 [packed = true];
}
// ftrace/ftrace_event.proto: timestamp 1, pid 2; the events by number
message Event {
  optional uint64 timestamp = 1;
  optional uint32 pid = 2;
  optional Switch sched_switch = 4;
  optional Power cpu_frequency = 11;
  optional Power cpu_idle = 13;
  optional Wake sched_wakeup = 17;
  optional Wake sched_waking = 20;
  optional Wake sched_wakeup_new = 114;
  optional Migrate sched_migrate_task = 491;
}
// ftrace/sched.proto: SchedMigrateTaskFtraceEvent
message Migrate {
  optional string comm = 1;
  optional int32 pid = 2;
  optional int32 prio = 3;
  optional int32 orig_cpu = 4;
  optional int32 dest_cpu = 5;
}
// ftrace/sched.proto: SchedWakingFtraceEvent
message Wake {
  optional string comm = 1;
  optional int32 pid = 2;
  optional int32 prio = 3;
  optional int32 success = 4;
  optional int32 target_cpu = 5;
}
// ftrace/sched.proto: SchedSwitchFtraceEvent
message Switch {
  optional string prev_comm = 1;
  optional int32 prev_pid = 2;
  optional int32 prev_prio = 3;
  optional int64 prev_state = 4;
  optional string next_comm = 5;
  optional int32 next_pid = 6;
  optional int32 next_prio = 7;
}
// ftrace/power.proto: CpuFrequencyFtraceEvent, CpuIdleFtraceEvent
message Power { optional uint32 state = 1; optional uint32 cpu_id = 2; }
"""


def _parse(text):
    """protoc's text format as nested lists of (name, value or list)."""
    root = []
    stack = [root]
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s == "}":
            stack.pop()
        elif s.endswith("{"):
            node = []
            stack[-1].append((s[:-1].strip(), node))
            stack.append(node)
        else:
            k, v = s.split(":", 1)
            stack[-1].append((k.strip(), v.strip()))
    return root


def _get(node, name):
    return [v for k, v in node if k == name]


def _int(node, name, default=None):
    v = _get(node, name)
    return int(v[0]) if v else default


def protoc(mode, data, schema=SCHEMA, message="truth.Trace"):
    """protoc --decode or --encode of @message of @schema (this file's, by
    default)."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "truth.proto"), "w") as f:
            f.write(schema)
        r = subprocess.run(["protoc", "-I", d, "--%s=%s" % (mode, message),
                            "truth.proto"], input=data, capture_output=True,
                           timeout=120)
    if r.returncode:
        raise AssertionError("protoc --%s: %s" % (mode, r.stderr.decode()[-300:]))
    return r.stdout


def decode(path):
    """protoc's decoding of @path: a dict of lists of events, the threads'
    processes (tgid), and the decoded tree."""
    with open(path, "rb") as f:
        tree = _parse(protoc("decode", f.read()).decode("utf-8", "replace"))
    ev = {"switch": [], "event": [], "freq": [], "waking": 0,
          "compressed": 0, "tgid": {}, "tree": tree}
    for packet in _get(tree, "packet"):
        ev["compressed"] += len(_get(packet, "compressed_packets"))
        for pt in _get(packet, "process_tree"):
            for th in _get(pt, "threads"):
                ev["tgid"][_int(th, "tid")] = _int(th, "tgid")
            for pr in _get(pt, "processes"):
                ev["tgid"].setdefault(_int(pr, "pid"), _int(pr, "pid"))
        for b in _get(packet, "ftrace_events"):
            cpu = _int(b, "cpu", 0)
            for e in _get(b, "event"):
                ts = _int(e, "timestamp")
                pid = _int(e, "pid")
                ev["event"].append((ts, cpu, pid))
                for sw in _get(e, "sched_switch"):
                    ev["switch"].append((ts, cpu, _int(sw, "prev_pid", 0),
                                         _int(sw, "next_pid", 0)))
                for fr in _get(e, "cpu_frequency"):
                    ev["freq"].append((ts, _int(fr, "cpu_id", 0),
                                       _int(fr, "state", 0)))
            for c in _get(b, "compact_sched"):
                acc = 0
                deltas = [int(x) for x in _get(c, "switch_timestamp")]
                pids = [int(x) for x in _get(c, "switch_next_pid")]
                assert len(deltas) == len(pids), "compact arrays differ"
                for dt, pid in zip(deltas, pids):
                    acc += dt
                    # None: CompactSched names no previous task.
                    ev["switch"].append((acc, cpu, None, pid))
                acc = 0
                for dt in (int(x) for x in _get(c, "waking_timestamp")):
                    acc += dt
                    ev["event"].append((acc, cpu, None))
                    ev["waking"] += 1
    return ev


def truth(path):
    """decode(@path) and its Window (switch_truth.py), compact heads included."""
    ev = decode(path)
    return ev, Window(ev["switch"], ev["event"], ev["freq"])
