"""A trace.dat recorded on this machine, read by schedtop's own PELT engine
(csv --trace), against /proc/PID/schedstat: the mean util_avg of an rt-app
task of known duty is 1024 x its run time over wall time, within a
tolerance derived from PELT below.

trace-cmd cannot record here (writing ftrace_enabled is refused), so the
file is written from a private tracefs instance's raw ring-buffer pages and
the kernel's own format files (tests/tools/trace_dat_from_tracefs.py). The
instance's clock is CLOCK_MONOTONIC, so that trace timestamps and the
moments schedstat was read are on one clock.

Five runs: four quiet, then one with the machine busy, a CPU hog on each
CPU (util, which counts only running time, must still follow what
schedstat says the task ran, on CPUs that never idle). The hogs run at nice
19: the task preempts them when it wakes (EEVDF), so its runs keep their
pattern. Behind a hog of its own nice level the task waited up to 5.5 ms
here, which the bound below turns into a tolerance of 126 units: the run
would only ever be inconclusive."""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from harness import (SRC, Inconclusive, RtApp, Skip, check, parse_csv,
                     periodic, run, schedstat, schedtop, test,
                     trace_cmd_report)

sys.path.insert(0, os.path.join(SRC, "tests", "tools"))
from trace_dat_from_tracefs import TracefsRecording, mounted  # noqa: E402

EVENTS = ["sched/sched_switch", "sched/sched_wakeup", "sched/sched_wakeup_new",
          "sched/sched_waking", "sched/sched_migrate_task",
          "sched/sched_process_exit"]
CPU, DUTY, PERIOD_US = 1, 0.3, 4000
WINDOW_S = 4.0          # schedstat read at both ends of it
SETTLE_S = 0.4          # traced before the window: the engine's start-up
INTERVAL_MS = 10        # csv --trace sample interval (its least)

# The tolerance, in util units (1024 = always running), derived from PELT.
#
# util_avg is a geometric average of "running" x 1024 over 1024 us
# segments, each weighing y = 2^(-1/32) of the one after it, divided by
# about LOAD_AVG_MAX: a decaying kernel k(s) = e^(-s/tau) / tau with
# tau = 1.024 ms / (1 - y) = 47.8 ms. Write x(t) for "the task is running"
# (0 or 1) and d for its duty, and G(s) for the integral of x - d over the
# last s before t. Summing by parts,
#   u(t) - 1024 d = 1024 * integral k(s) dG(s)
#                 = 1024 / tau^2 * integral e^(-s/tau) G(s) ds,
# so |u(t) - 1024 d| <= 1024 * max|G| / tau at every instant: for the
# samples' mean too, however they fall on the task's periods. max|G| is at
# most max C - min C, with C(t) the integral of x - d since the task
# started: how far its runs ever lead or lag their own mean. It is taken
# from the trace as trace-cmd report decodes it, not from schedtop: about
# r (1 - d) = 0.84 ms for 1.2 ms runs every 4 ms, more when the task waits
# behind a hog (hence the short period; the bound grows with it).
TAU_MS = 1.024 / (1 - 0.5 ** (1 / 32))
# The kernel divides util_sum by LOAD_AVG_MAX - 1024 + period_contrib
# (get_pelt_divider()), which differs from the sum of the weights by at
# most 1024 of 46718, relative to the value.
DIVIDER = 1024 * DUTY * 1024 / 46718
# What the engine starts the new task at has decayed by e^(-t/tau).
START = 1024 * math.exp(-SETTLE_S * 1000 / TAU_MS)
# The trace's duty d is over the task's whole life; schedstat's over the
# window W: they differ by at most max|G| / W (a term added below).
# One more term is measured: schedstat's run time is the task clock, which
# skips time stolen by the hypervisor and time in interrupts; the trace's
# switches are wall time. The most that can add to the task's running in
# the trace is its CPU's steal + irq + softirq time (/proc/stat).
# Beyond 10% of 1024 altogether, the run cannot decide anything.
DECIDABLE = 102

SWITCH = re.compile(r"\s(\d+)\.(\d+): sched_switch:\s+.*:(\d+) \[-?\d+\] \S+ "
                    r"==> .*:(\d+) \[")


def lost_ns(cpu):
    """Steal, irq and softirq time of @cpu so far (/proc/stat), ns."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu%d " % cpu):
                v = [int(x) for x in line.split()[1:]]
                return (v[5] + v[6] + v[7]) * 1e9 / os.sysconf("SC_CLK_TCK")
    raise AssertionError("cpu%d not in /proc/stat" % cpu)


def hogs():
    """A spinning process pinned to each CPU, at nice 19."""
    return [subprocess.Popen([sys.executable, "-c",
                              "import os\nos.sched_setaffinity(0, {%d})\n"
                              "os.nice(19)\nwhile True: pass" % cpu])
            for cpu in sorted(os.sched_getaffinity(0))]


def lead_lag_ms(dat, tid, t2):
    """max C - min C (see above) of @tid up to @t2, and its duty, from
    trace-cmd report's decoding of the file."""
    if not shutil.which("trace-cmd"):
        raise AssertionError("trace-cmd missing: apt-get install trace-cmd")
    r = trace_cmd_report("-t", "-i", dat)
    check(r.returncode == 0, "trace-cmd report: %s" % r.stderr[-300:])
    runs, since = [], None
    for line in r.stdout.splitlines():
        m = SWITCH.search(line)
        if not m:
            continue
        ts = int(m.group(1)) * 10**9 + int(m.group(2).ljust(9, "0"))
        if ts > t2:
            break
        if int(m.group(3)) == tid and since is not None:
            runs.append((since, ts))
            since = None
        if int(m.group(4)) == tid:
            since = ts
    check(len(runs) > 100, "trace-cmd decoded %d runs of %d" % (len(runs), tid))
    start, ran = runs[0][0], sum(b - a for a, b in runs)
    d = ran / (t2 - start)
    c = lo = hi = 0.0
    last = start
    for a, b in runs:
        c -= d * (a - last)         # idle: falls behind
        lo = min(lo, c)
        c += (1 - d) * (b - a)      # running: catches up
        hi = max(hi, c)
        last = b
    c -= d * (t2 - last)
    lo = min(lo, c)
    return (hi - lo) / 1e6, d


def one_run(busy):
    if not mounted():
        r = subprocess.run([os.path.join(SRC, "scripts", "mount-tracefs")],
                           capture_output=True, text=True)
        if r.returncode:
            raise Skip("tracefs not mounted: %s" % r.stderr.strip())
    work = tempfile.mkdtemp(prefix="schedtop-tu-")
    dat = os.path.join(work, "t.dat")
    loads = hogs() if busy else []
    rt = None
    try:
        with TracefsRecording(EVENTS) as rec:
            rt = RtApp({"tu_task": periodic(CPU, DUTY, PERIOD_US, name="tu")},
                       duration=int(SETTLE_S + WINDOW_S + 3))
            tid = rt.tids["tu_task"]
            time.sleep(SETTLE_S)
            lost1 = lost_ns(CPU)
            run1, t1 = schedstat(tid)[0], time.monotonic_ns()
            time.sleep(WINDOW_S)
            run2, t2 = schedstat(tid)[0], time.monotonic_ns()
            lost2 = lost_ns(CPU)
            rt.stop()
        rec.write(dat)
        if rec.lost:
            raise Inconclusive("the ring buffer lost %d events" % rec.lost)
        duty = (run2 - run1) / (t2 - t1)
        lead_lag, trace_duty = lead_lag_ms(dat, tid, t2)
        lost = 1024 * (lost2 - lost1) / (t2 - t1)
        tolerance = (1024 * lead_lag / TAU_MS + DIVIDER + START + lost +
                     1024 * lead_lag / (WINDOW_S * 1000))
        if tolerance > DECIDABLE:
            raise Inconclusive("the task's runs led or lagged their mean by "
                               "%.2f ms and cpu%d lost %.1f units to steal and "
                               "interrupts: tolerance %.0f of 1024" %
                               (lead_lag, CPU, lost, tolerance))
        r = schedtop("csv", "--trace", dat, "-t", "task", "-p", str(tid),
                     "-i", str(INTERVAL_MS))
        check(r.returncode == 0, "csv --trace: %s" % r.stderr.decode()[-500:])
    finally:
        if rt:
            rt.stop()
        for p in loads:
            p.kill()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)
    rows = [x for x in parse_csv(r.stdout)
            if t1 <= int(x["ts_ns"]) <= t2 and int(x["pid"]) == tid]
    expected = (t2 - t1) / 1e6 / INTERVAL_MS
    check(len(rows) >= 0.95 * expected, "%d samples in the window, %d "
          "expected" % (len(rows), expected))
    check(all(x["pelt_estimated"] == "1" for x in rows), "not the engine's")
    mean = sum(int(x["util_avg"]) for x in rows) / len(rows)
    print("# %s: schedstat duty %.4f (%.1f units; the trace's %.4f), mean "
          "util %.1f over %d samples, off by %.1f, tolerance %.1f (runs lead "
          "or lag %.2f ms; %.1f of it steal and irq)" %
          ("busy" if busy else "quiet", duty, 1024 * duty, trace_duty, mean,
           len(rows), mean - 1024 * duty, tolerance, lead_lag, lost))
    check(abs(mean - 1024 * duty) <= tolerance,
          "mean util %.1f, schedstat says %.1f (duty %.4f): off by %.1f, "
          "tolerance %.1f" % (mean, 1024 * duty, duty, mean - 1024 * duty,
                              tolerance))


@test(root=True)
def trace_util_follows_schedstat_quiet():
    for _ in range(4):
        one_run(busy=False)


@test(root=True)
def trace_util_follows_schedstat_busy():
    one_run(busy=True)


if __name__ == "__main__":
    run()
