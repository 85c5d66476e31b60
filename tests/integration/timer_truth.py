"""The kernel's own account of when a thread's sleep timers were due and
when they fired, for tests to tell a late wakeup from a scheduling delay.

A tracefs instance of the test's records, with the "mono" clock (the
CLOCK_MONOTONIC that schedtop's activations are stamped with):
- timer:hrtimer_start, filtered on the sleeping thread's comm (the timer of
  an absolute clock_nanosleep is armed in the sleeper's own context): the
  timer's address and the instant it was asked to fire (expires);
- timer:hrtimer_expire_entry, unfiltered (it runs in interrupt context, on
  behalf of whoever was on the CPU): the timer's address and the kernel's
  "now" as it ran the timer's function, i.e. woke the thread.
fired - expires is how late the timer interrupt was handled. On a VM a
halted vCPU is woken for its timer by the host; a host busy elsewhere
delays that, and no steal time is counted for a vCPU that was halted.
"""
import re

from harness import TraceInstance

# Fields by name: kernels print them in different orders (6.18 puts
# function= before now=). The head: the task on the CPU (an idle CPU's is
# "<idle>-0"), the CPU, flags, and the stamp in s to the us.
HEAD = re.compile(r"^\s*(.*)-(\d+)\s+\[\d+\].*?\s(\d+)\.(\d+): ")
START = re.compile(r"hrtimer_start: hrtimer=(\w+) .*\bexpires=(\d+)")
EXPIRE = re.compile(r"hrtimer_expire_entry: hrtimer=(\w+) .*\bnow=(\d+)")


def parse_timers(lines):
    """[(expires_ns, fired_ns, armed_ns, idle)] of the filtered thread's
    timers in the order they were armed, from a trace file's @lines:
    when it was due, when its function ran (None if never: cancelled by a
    signal or the run's end), when it was armed (to the us), and whether
    its CPU was idle when it ran (pid 0: the CPU was halted, not running
    code with interrupts off)."""
    out, armed = [], {}
    for line in lines:
        h = HEAD.match(line)
        if not h:
            continue
        m = START.search(line)
        if m:
            armed[m.group(1)] = len(out)
            out.append([int(m.group(2)), None,
                        int(h.group(3)) * 1000000000 + int(h.group(4).ljust(9, "0")),
                        None])
            continue
        m = EXPIRE.search(line)
        if m and m.group(1) in armed:
            t = out[armed.pop(m.group(1))]
            t[1] = int(m.group(2))
            t[3] = h.group(2) == "0"
    return [tuple(t) for t in out]


class TimerTrace(TraceInstance):
    """A tracefs instance of the test's with the hrtimers @comm arms."""

    def __init__(self, comm):
        # ~1000 starts a second and every CPU's ticks: 2 MB a CPU holds a
        # run of tens of seconds.
        super().__init__("timer", ("timer/hrtimer_start", "timer/hrtimer_expire_entry"),
                         {"timer/hrtimer_start": 'comm == "%s"' % comm}, 2048)

    def timers(self):
        """What parse_timers() gives of the trace so far; also whether
        events were lost (an overrun ring buffer)."""
        lines = self.lines()
        lost = any("LOST" in l and "EVENTS" in l for l in lines)
        return parse_timers(lines), lost


def timer_behind(timers, release_ns):
    """The timer a thread slept on to wake for @release_ns: of those armed
    to fire at or before it (a sleep longer than the poll interval is cut
    in pieces), the one due last, the latest armed of equals. None when it
    armed none."""
    best = None
    for t in timers:
        if t[0] <= release_ns and (best is None or t[0] >= best[0]):
            best = t
    return best
