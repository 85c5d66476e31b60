"""A trace's own numbers over its whole window, from its switches alone,
whoever decoded them (protoc for Perfetto, perfetto_truth.py; trace-cmd
report for a trace.dat, trace_cmd_switches() here): the truths schedtop's
busy, run, frequency and migration tables must give.

- the window: the trace's first and last event;
- each CPU's switches in time order; before the first, the task that switch
  names as previous, or where it names none (Perfetto's CompactSched), the
  common pid of the CPU's last event up to it, else idle; after the last,
  its next task up to the window's end;
- busy time per CPU (time not in pid 0), run time per pid;
- frequency residency per cpu_id: each cpu_frequency event to the next one
  of that CPU, the last to the window's end;
- moves between clusters: a task switched in on a CPU of another cluster
  than the one it last ran on.
"""
import collections
import re


class Window:
    """@switches: (ts, cpu, prev_pid or None, next_pid); @events: (ts, cpu,
    common pid or None) of every other event; @freqs: (ts, cpu_id, khz).
    .first, .last, .busy[cpu], .run[pid], .freq[cpu][khz], .head[cpu]."""

    def __init__(self, switches, events, freqs=()):
        ev = {"switch": switches, "event": events, "freq": freqs}
        stamps = [t for t, _, _, _ in ev["switch"]] + [t for t, _, _ in ev["event"]]
        self.first, self.last = min(stamps), max(stamps)
        self.nr_switches = len(ev["switch"])
        events = collections.defaultdict(list)
        for t, cpu, pid in ev["event"]:
            if pid is not None:
                events[cpu].append((t, pid))
        self.busy = collections.Counter()
        self.run = collections.Counter()
        self.head = {}
        self.lost_switches = 0
        current = {}            # cpu -> (pid, since)
        firsts = {}
        for s in switches:
            if s[1] not in firsts or s[0] < firsts[s[1]][0]:
                firsts[s[1]] = s
        for cpu, (t0, _, prev, _) in firsts.items():
            if prev is None:
                # The common pid of the CPU's last event up to it.
                before = [p for t, p in sorted(events[cpu]) if t <= t0]
                prev = before[-1] if before else 0
            self.head[cpu] = prev
            current[cpu] = (prev, self.first)

        def close(cpu, end):
            pid, since = current[cpu]
            if pid:
                self.busy[cpu] += end - since
                self.run[pid] += end - since

        # In time order, a CPU's own switches in its order.
        for ts, cpu, _, nxt in sorted(switches, key=lambda s: s[0]):
            close(cpu, ts)
            # Switched in here while still on another CPU: its switch out
            # there is missing; that CPU is idle from now.
            for other, (pid, _) in current.items():
                if nxt and other != cpu and pid == nxt:
                    close(other, ts)
                    current[other] = (0, ts)
                    self.lost_switches += 1
            current[cpu] = (nxt, ts)
        for cpu in current:
            close(cpu, self.last)
        self.freq = collections.defaultdict(collections.Counter)
        by_id = collections.defaultdict(list)
        for t, cpu, khz in ev["freq"]:
            by_id[cpu].append((t, khz))
        for cpu, fs in by_id.items():
            fs.sort()
            for (t, khz), (t2, _) in zip(fs, fs[1:] + [(self.last, 0)]):
                self.freq[cpu][khz] += t2 - t


def moves(switches, truth, cluster_of):
    """Moves between clusters as the switches show them: a task switched in
    on a CPU of another cluster than the one it last ran on (its first
    stint may be a CPU's head). {(from, to): count} by cluster_of(cpu)."""
    ins = [(truth.first, cpu, pid) for cpu, pid in truth.head.items() if pid]
    ins += [(t, cpu, nxt) for t, cpu, _, nxt in switches if nxt]
    ins.sort(key=lambda x: x[0])
    last, out = {}, collections.Counter()
    for _, cpu, pid in ins:
        if pid in last and cluster_of(last[pid]) != cluster_of(cpu):
            out[(cluster_of(last[pid]), cluster_of(cpu))] += 1
        last[pid] = cpu
    return out


LINE = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d{9}): (\w+):\s+(.*)")
SWITCH = re.compile(r"(.*):(-?\d+) \[-?\d+\] \S+ ==> (.*):(-?\d+) \[")
FREQ = re.compile(r"state=(\d+) cpu_id=(\d+)")


def trace_cmd_window(path, timeout=120):
    """A trace.dat's Window as trace-cmd report -t (ns timestamps) decodes it.
    Through harness.trace_cmd_report(): trace-cmd 3.1.6 now and then prints
    a timestamp as the raw count glued to the CPU, which LINE does not
    match (3 times in ~360 reports: test_perfetto then found no switch)."""
    from harness import trace_cmd_report
    r = trace_cmd_report("-t", "-i", path, timeout=timeout)
    if r.returncode:
        raise AssertionError("trace-cmd report: %s" % r.stderr[-300:])
    switches, events, freqs = [], [], []
    for line in r.stdout.splitlines():
        m = LINE.search(line)
        if not m:
            continue
        cpu, ts = int(m.group(1)), int(m.group(2)) * 10**9 + int(m.group(3))
        name, rest = m.group(4), m.group(5)
        if name == "sched_switch":
            s = SWITCH.match(rest)
            switches.append((ts, cpu, int(s.group(2)), int(s.group(4))))
            continue
        pid = re.match(r"\s*.*-(\d+)\s+\[", line)
        events.append((ts, cpu, int(pid.group(1)) if pid else None))
        if name == "cpu_frequency":
            f = FREQ.search(rest)
            freqs.append((ts, int(f.group(2)), int(f.group(1))))
    return switches, Window(switches, events, freqs)
