"""The kernel's own account of CPU hotplug, for tests to compare with.

A tracefs instance of the test's records the cpuhp events (cpuhp_enter,
cpuhp_multi_enter, cpuhp_exit) with the "mono" clock, schedtop's; these
helpers read them as text and group them into operations without any of
schedtop's code (test_hotplug_timing.py here, test_vm_matrix.py in guests).
"""
import re

from harness import TRACING, TraceInstance, check

# Stamps print in whole microseconds (0.001 ms); report and Perfetto give ms
# to 0.001 (0.0005 either way).
STAMP_MS = 0.001
PRINT_MS = 0.0005
# A step's bounds no wider than this say something of it (state_problems()).
SHARP_MS = 1.0


def parse_events(lines, cpu):
    """(ts, kind, idx, target, gap, fn) of @cpu's steps in a trace file's
    @lines as the kernel printed them, kind "enter", "multi_enter" or
    "exit", fn the callback an enter names (None for an exit).

    gap (s, None if unknown) bounds how late any other observer of the same
    tracepoint call can stamp it, this instance's probe having run first
    (the test creates it before schedtop starts): tracepoint probes run one
    after another with preemption off, so every later probe of the call,
    another instance's or a BPF program's, stamps it between this one's
    stamp and this instance's next cpuhp event on the same ring-buffer CPU.
    Nothing in the guest need run in between for that to take long: as a
    CPU comes up, the control vCPU stalls right after cpu:kick_ap's exit
    (0.2-0.36 ms here with no interrupt, MSR access or switch traced in it;
    the hypervisor starting the new vCPU), so a later probe stamps that exit
    late and its cpu:kick_ap reads longer by as much."""
    out, last = [], {}
    for line in lines:
        m = re.search(r"(?:\[(\d+)\].*)? ([\d.]+): cpuhp_(enter|multi_enter|exit): +"
                      r"cpu: (\d+) +(?:target|state): *(-?\d+) step: *(\d+)"
                      r"(?: \((\w+)\))?", line)
        if not m:
            continue
        ts = float(m.group(2))
        on = m.group(1)
        if on is not None:
            if on in last:
                last[on][4] = ts - last[on][0]
            last.pop(on, None)
        if int(m.group(4)) == cpu:
            e = [ts, m.group(3), int(m.group(6)), int(m.group(5)), None,
                 m.group(7)]
            out.append(e)
            if on is not None:
                last[on] = e
        elif on is not None:
            last[on] = [ts, None, None, None, None, None]
    # The file is merged in time order already; stamps print in whole
    # microseconds, so an exit and the next enter often tie: keep the
    # kernel's order (a sort by kind would enter before exiting).
    return sorted((tuple(e) for e in out), key=lambda e: e[0])


class CpuhpTrace(TraceInstance):
    """A tracefs instance of the test's own with the cpuhp events."""

    def __init__(self, tag=""):
        super().__init__("hp" + tag, ("cpuhp",))

    def events(self, cpu=1):
        return parse_events(self.lines(), cpu)


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
        ts, kind, idx, target = e[:4]
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
    for ts, kind, idx, *_ in op_events:
        if kind != "exit":
            count[idx] = count.get(idx, 0) + 1
    unique = {n for n in names.values() if list(names.values()).count(n) == 1}
    out = {}
    for i, (ts, kind, idx, *_) in enumerate(op_events[:-1]):
        nxt = op_events[i + 1]
        if (kind != "exit" and count[idx] == 1 and nxt[1] == "exit" and
                nxt[2] == idx and names.get(idx) in unique):
            out[names[idx]] = (nxt[0] - ts) * 1e3
    return out


# The control CPU enters the top state ("online") to run the CPU's own
# states from another: its time is that wait, and schedtop names it by the
# function the kernel prints (docs/hotplug.md), not by the state.
KICK = "cpuhp_kick_ap_work"


BETWEEN = "(between states)"


def stretches(op_events, names):
    """(i, name) for each stretch from op_events[i - 1] to op_events[i]:
    the step innermost open in it by name (index where unnamed; KICK for
    the control CPU's wait), BETWEEN where none is."""
    depth = []
    for i, e in enumerate(op_events):
        if i:
            yield i, depth[-1][1] if depth else BETWEEN
        kind, idx = e[1], e[2]
        if kind != "exit":
            fn = e[5] if len(e) > 5 else None
            depth.append((idx, KICK if fn == KICK else names.get(idx, str(idx))))
        else:
            idxs = [d[0] for d in depth]
            if idx in idxs:
                del depth[len(idxs) - 1 - idxs[::-1].index(idx):]


def exclusive_durations(op_events, names):
    """ms of each state by name (stretches()) while it was the innermost
    step open (on any CPU): every moment of the operation goes to one
    state, entered once or many times (multi-instance states)."""
    out = {}
    for i, name in stretches(op_events, names):
        if name != BETWEEN:
            out[name] = out.get(name, 0.0) + (op_events[i][0] - op_events[i - 1][0]) * 1e3
    return out


# schedtop's names for the write's time outside the kernel's first to last step.
BEFORE = "(before first state)"
AFTER = "(after last state)"


def kernel_inside(op_events):
    """ms of the kernel's operation with some step of it open (on any
    CPU), and its span, first event to last."""
    depth, inside, last = [], 0.0, op_events[0][0]
    for ts, kind, idx, *_ in op_events:
        if depth:
            inside += ts - last
        last = ts
        if kind != "exit":
            depth.append(idx)
        elif idx in depth:
            del depth[len(depth) - 1 - depth[::-1].index(idx):]
    return inside * 1e3, (op_events[-1][0] - op_events[0][0]) * 1e3




def lateness(op_events, until=None, later=None):
    """How late (ms) another observer can have stamped each of @op_events,
    this instance's stamps, its probe having run after this instance's
    (parse_events() says why): each event's gap, bounded by @until (s,
    CLOCK_MONOTONIC: when the write that made the operation returned, after
    every probe of it had run) and by @later, the same operation as a
    second instance created after that observer attached saw it (its probe
    runs after the observer's: the tighter bound)."""
    inf = float("inf")
    if later is not None and len(later) != len(op_events):
        later = None
    out = []
    for i, e in enumerate(op_events):
        g = inf if e[4] is None else e[4]
        if until is not None:
            g = min(g, until - e[0])
        if later is not None:
            g = min(g, later[i][0] - e[0])
        out.append(max(g, 0.0) * 1e3)
    return out


def late_bounds(op_events, names, until=None, later=None):
    """How far another observer's account of one operation can differ from
    this instance's, from how late it can stamp each event (lateness()):
    {"span": (lo, hi), "inside": (lo, hi), "edges": stamps the time inside
    rests on} in ms. A late stamp of the first step shortens the first to
    last step, of the last one lengthens it; a late enter that opens the
    first state shortens the time inside states, a late exit that leaves
    none open lengthens it."""
    late = lateness(op_events, until, later)
    out = {"span": (-late[0], late[-1])}
    depth, lo, hi, edges = [], 0.0, 0.0, 0
    for e, lt in zip(op_events, late):
        kind, idx = e[1], e[2]
        if kind != "exit":
            if not depth:
                lo -= lt
                edges += 1
            depth.append(idx)
        elif idx in depth:
            del depth[len(depth) - 1 - depth[::-1].index(idx):]
            if not depth:
                hi += lt
                edges += 1
    out["inside"] = (lo, hi)
    out["edges"] = edges
    return out


def exclusive_bounds(op_events, names, until=None, later=None):
    """For each step exclusive_durations() names, and BETWEEN: how far
    another observer's time for it can differ from this instance's, (lo,
    hi, n) in ms with n the stamps it rests on. Each stretch a step is
    innermost open starts at one event and ends at the next: the
    observer's stretch is shorter by the start's lateness at most and
    longer by the end's (lateness()). A leaf state's bounds are its enter's
    and its exit's; a step open many times sums its stretches'."""
    late = lateness(op_events, until, later)
    out = {}
    for i, name in stretches(op_events, names):
        lo, hi, n = out.get(name, (0.0, 0.0, 0))
        out[name] = (lo - late[i - 1], hi + late[i], n + 2)
    return out


def report_states(out):
    """The per-state section of schedtop report: [(cpu, op, total, {state: ms})]."""
    ops, inside = [], False
    for line in out.splitlines():
        if line.startswith("CPU hotplug per cpuhp state:"):
            inside = True
            continue
        if not inside:
            continue
        m = re.match(r"  at +[\d.]+ s +cpu(\d+) +(offline|online) +([\d.]+) ms", line)
        if m:
            ops.append((int(m.group(1)), m.group(2), float(m.group(3)), {}))
            continue
        m = re.match(r" {6} *([\d.]+) ms  (.+)$", line)
        if m and ops:
            ops[-1][3][m.group(2)] = float(m.group(1))
        elif not line.strip():
            break
    return ops


def state_problems(what, total, steps, k_events, names, until=None,
                   later=None, write=False):
    """One operation timed first to last step, per step, against the
    kernel's own events of it: what falls outside how late schedtop's
    probes can have stamped the events (late_bounds(), exclusive_bounds():
    no fixed slack), as a list of problems. @total and @steps (ms, by
    name) are schedtop's; @until is when the write returned, @later a
    second instance's stamps (None where unknown). @write: @total is the
    write's, start to return (schedtop hotplug), not a recording's first
    to last step. Every step the kernel ran is compared, each leaf state
    and the time between states included; what was stamped apart is
    printed, with how late it could be. Also returns how many steps were held to bounds under SHARP_MS
    wide (a step whose stamps' next events came long after, such as the
    control CPU's wait, can read almost anything)."""
    out, sharp = [], 0
    k_inside, k_span = kernel_inside(k_events)
    before = steps.get(BEFORE, 0)
    after = steps.get(AFTER, 0)
    between = steps.get(BETWEEN, 0)
    bounds = late_bounds(k_events, names, until, later)
    print("# %s: %.3f ms, before the first state %.3f, first to last step "
          "%.3f, in states %.3f; kernel %.3f, %.3f"
          % (what, total, before, total - before - after,
             total - before - after - between, k_span, k_inside))
    if abs(sum(steps.values()) - total) > PRINT_MS * (len(steps) + 1):
        out.append("%s: steps sum to %.3f, total %.3f"
                   % (what, sum(steps.values()), total))
    # The write encloses the kernel's operation.
    if write and k_span > total + 2 * STAMP_MS + PRINT_MS:
        out.append("%s: the kernel's steps span %.3f ms, the write %.3f"
                   % (what, k_span, total))

    def within(name, got, want, lo_hi, stamps, prints):
        lo, hi = lo_hi[:2]
        eps = STAMP_MS * stamps + PRINT_MS * prints
        if not lo - eps <= got - want <= hi + eps:
            out.append("%s: %s %.3f ms, the kernel's %.3f: %+.3f, but its "
                       "stamps can only be %.3f to %+.3f ms off"
                       % (what, name, got, want, got - want, lo - eps, hi + eps))
        return got - want

    within("first to last step", total - before - after, k_span,
           bounds["span"], 4, 2)
    within("time in states", total - before - after - between, k_inside,
           bounds["inside"], 2 * bounds["edges"], 3)
    want = exclusive_durations(k_events, names)
    want[BETWEEN] = k_span - k_inside
    xb = exclusive_bounds(k_events, names, until, later)
    for name in sorted(set(steps) - set(want) - {BEFORE, AFTER}):
        if steps[name] > PRINT_MS:
            out.append("%s: %s %.3f ms, a step the kernel did not run"
                       % (what, name, steps[name]))
    off = {}
    for name, w in sorted(want.items()):
        if name not in steps and name != BETWEEN:
            out.append("%s: no step %s (the kernel's took %.3f ms)"
                       % (what, name, w))
            continue
        lo, hi, n = xb.get(name, (0.0, 0.0, 0))
        d = within(name, steps.get(name, 0.0), w, (lo, hi), n, 1)
        sharp += hi - lo <= SHARP_MS
        if abs(d) > 0.005:
            off[name] = (round(w, 3), steps.get(name, 0.0), round(lo, 3),
                         round(hi, 3))
    if off:
        print("# %s: stamped apart (kernel, schedtop, how late its stamps "
              "could make it, ms): %s" % (what, off))
    leaves = leaf_durations(k_events, names)
    if len(leaves) < 5:
        out.append("%s: only %d leaf states" % (what, len(leaves)))
    return out, sharp


def states_match_kernel(what, total, steps, k_events, names, until, later):
    """state_problems(), each a failure."""
    problems, _ = state_problems(what, total, steps, k_events, names, until,
                                 later)
    check(not problems, "; ".join(problems))
