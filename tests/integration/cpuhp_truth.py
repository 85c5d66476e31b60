"""The kernel's own account of CPU hotplug, for tests to compare with.

A tracefs instance of the test's records the cpuhp events (cpuhp_enter,
cpuhp_multi_enter, cpuhp_exit) with the "mono" clock, schedtop's; these
helpers read them as text and group them into operations without any of
schedtop's code (test_hotplug_timing.py here, test_vm_matrix.py in guests).
"""
import os
import re

TRACING = "/sys/kernel/tracing"


def parse_events(lines, cpu):
    """(ts, kind, idx, target) of @cpu's steps in a trace file's @lines as
    the kernel printed them, kind "enter", "multi_enter" or "exit"."""
    out = []
    for line in lines:
        m = re.search(r" ([\d.]+): cpuhp_(enter|multi_enter|exit): +cpu: (\d+) +"
                      r"(?:target|state): *(-?\d+) step: *(\d+)", line)
        if m and int(m.group(3)) == cpu:
            out.append((float(m.group(1)), m.group(2), int(m.group(5)),
                        int(m.group(4))))
    # The file is merged in time order already; stamps print in whole
    # microseconds, so an exit and the next enter often tie: keep the
    # kernel's order (a sort by kind would enter before exiting).
    return sorted(out, key=lambda e: e[0])


class CpuhpTrace:
    """A tracefs instance of the test's own with the cpuhp events."""

    def __init__(self):
        self.dir = "%s/instances/test-hp-%d" % (TRACING, os.getpid())
        os.mkdir(self.dir)
        self.write("trace_clock", "mono")
        self.write("events/cpuhp/enable", "1")

    def write(self, name, value):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(value)

    def events(self, cpu=1):
        with open(os.path.join(self.dir, "trace")) as f:
            return parse_events(f, cpu)

    def close(self):
        self.write("events/cpuhp/enable", "0")
        os.rmdir(self.dir)


def state_names(lines=None):
    """{number: name} of /sys/devices/system/cpu/hotplug/states, or of its
    @lines as read elsewhere (a guest)."""
    if lines is None:
        with open("/sys/devices/system/cpu/hotplug/states") as f:
            lines = f.read().splitlines()
    names = {}
    for line in lines:
        n, sep, name = line.partition(":")
        if sep and n.strip().isdigit():
            names[int(n)] = name.strip()
    return names


def group_ops(events, top):
    """The kernel's events split into operations: [(up, events)].

    An operation starts with a plain cpuhp_enter (offline with
    cpuhp_kick_ap_work at the top state, online with the first prepare
    state), whose target tells the way: CPUHP_ONLINE (the highest state)
    is up. Creating a tracefs instance (schedtop's own, at start, or
    anyone's) adds a ring buffer instance to the multi-instance state
    trace/RB:prepare, which runs its callback for every online CPU: a lone
    cpuhp_multi_enter/cpuhp_exit pair, part of no operation. Counted as
    one, it made seven operations of six. Such pairs come when no operation
    is open: an online one ends with the exit that reaches the top state
    (bringup's, on the control CPU), and while the CPU is offline no
    instance callback runs for it."""
    ops, open_ = [], False
    for e in events:
        ts, kind, idx, target = e
        if kind == "enter" and (not ops or not open_ or ops[-1][0] != (target == top)):
            ops.append((target == top, []))
            open_ = True
        if not open_:
            continue
        ops[-1][1].append(e)
        if ops[-1][0] and kind == "exit" and target == top:
            open_ = False
    return ops


def leaf_durations(op_events, names):
    """ms of each state the kernel entered once, with no other step of the
    CPU in between (on any CPU), by its unique name."""
    count = {}
    for ts, kind, idx, _ in op_events:
        if kind != "exit":
            count[idx] = count.get(idx, 0) + 1
    unique = {n for n in names.values() if list(names.values()).count(n) == 1}
    out = {}
    for i, (ts, kind, idx, _) in enumerate(op_events[:-1]):
        nxt = op_events[i + 1]
        if (kind != "exit" and count[idx] == 1 and nxt[1] == "exit" and
                nxt[2] == idx and names.get(idx) in unique):
            out[names[idx]] = (nxt[0] - ts) * 1e3
    return out


def kernel_inside(op_events):
    """ms of the kernel's operation with some step of it open (on any
    CPU), and its span, first event to last."""
    depth, inside, last = [], 0.0, op_events[0][0]
    for ts, kind, idx, _ in op_events:
        if depth:
            inside += ts - last
        last = ts
        if kind != "exit":
            depth.append(idx)
        elif idx in depth:
            del depth[len(depth) - 1 - depth[::-1].index(idx):]
    return inside * 1e3, (op_events[-1][0] - op_events[0][0]) * 1e3


