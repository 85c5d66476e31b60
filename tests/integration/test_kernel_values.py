#!/usr/bin/env python3
"""What schedtop attaches by default, and per-CPU values against the kernel.

- By default no schedtop program runs on a per-switch or per-wakeup
  tracepoint (bpftool's list of links); --exact-wakeups adds them.
- The CPU table's root cfs_rq values equal the scheduler's debug dump
  (/sys/kernel/debug/sched/debug), read again and again meanwhile, where
  the dumps just before and just after a sample agree. The dump
  prints no rq->avg_rt, avg_dl, avg_irq or cpu_capacity: those are not
  compared here.
- A task asleep since a known moment has that age (pelt_age_ns), though
  the reader was busy since its CPU's last tick.
"""
import json
import os
import select
import subprocess
import threading
import time

from harness import (OUT, Inconclusive, RtApp, check, mono_ns, parse_csv,
                     periodic, rq_clock_skips_ns, run, schedtop, start_schedtop, test)

# Tracepoints hit on every context switch, wakeup, idle entry or
# enqueue/dequeue: nothing of schedtop's may be on them by default.
HOT = {"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
       "cpu_idle", "sched_util_est_cfs_tp", "sched_util_est_se_tp",
       "sched_stat_runtime", "sched_enqueue_task", "sched_dequeue_task"}
EXACT = {"sched_switch", "sched_waking", "sched_wakeup_new"}
DEBUG = "/sys/kernel/debug/sched/debug"


def links():
    out = subprocess.run(["bpftool", "link", "show", "--json"],
                         capture_output=True, text=True, check=True).stdout
    return {lk["id"]: lk for lk in json.loads(out)}


def new_links(*args):
    """The links that appear while schedtop runs with args: its own."""
    before = links()
    p = start_schedtop("csv", "-t", "cluster", "-i", "100", *args)
    try:
        # Its first row is written after attach and the first sample.
        select.select([p.stdout], [], [], 10)
        mine = {i: lk for i, lk in links().items() if i not in before}
    finally:
        p.terminate()
        out, err = p.communicate(timeout=10)
    check(p.returncode == 0, "schedtop %s: exit %d %s" %
          (" ".join(args), p.returncode, err))
    check(mine, "no link of schedtop's seen")
    return {lk.get("tp_name") for lk in mine.values() if lk.get("tp_name")}


@test(root=True)
def default_has_no_hot_path_link():
    tps = new_links()
    check(not tps & HOT, "by default on %s" % sorted(tps & HOT))
    # Discrete events stay.
    check({"sched_process_exit", "sched_migrate_task"} <= tps,
          "exit/migration tracepoints missing: %s" % sorted(tps))
    tps = new_links("--exact-wakeups")
    check(EXACT <= tps, "--exact-wakeups attached only %s" % sorted(tps))


def debug_root_cfs(text, cpu):
    """The root cfs_rq block of cpu in the debug dump: field -> int."""
    out, inside = {}, False
    for line in text.splitlines():
        if line.startswith("cfs_rq[%d]:/" % cpu) and line.strip().endswith(":/"):
            inside = True
            continue
        if inside:
            if not line.startswith("  ."):
                break
            key, _, val = line.strip()[1:].partition(":")
            try:
                out[key.strip()] = int(val.strip())
            except ValueError:
                pass
    return out


def read_debug_loop(cpu, out, stop):
    """Read the dump again and again: (start, end, root cfs_rq of cpu)."""
    while not stop.is_set():
        t0 = mono_ns()
        with open(DEBUG) as f:
            text = f.read()
        out.append((t0, mono_ns(), debug_root_cfs(text, cpu)))


@test(root=True)
def cpu_values_match_sched_debug():
    if not os.path.exists(DEBUG):
        subprocess.run(["mount", "-t", "debugfs", "none", "/sys/kernel/debug"],
                       capture_output=True)
    check(os.path.exists(DEBUG), "no %s (CONFIG_SCHED_DEBUG?)" % DEBUG)
    ncpu = os.cpu_count()
    cpu = ncpu - 1
    # A 40% load on the CPU compared, everything of ours on another one, so
    # the values move but are not moved by the test itself.
    os.sched_setaffinity(0, {0})
    app = RtApp({"kv": periodic(cpu, 0.4, name="kv")}, 30)
    reads, stop = [], threading.Event()
    reader = threading.Thread(target=read_debug_loop, args=(cpu, reads, stop))
    try:
        time.sleep(0.5)
        reader.start()
        r = schedtop("csv", "-t", "cpu", "-i", "100", "-n", "30")
    finally:
        stop.set()
        if reader.is_alive():
            reader.join()
        app.stop()
        os.sched_setaffinity(0, set(range(ncpu)))
    check(r.returncode == 0, r.stderr.decode())
    rows = [x for x in parse_csv(r.stdout) if x["cpu"] == str(cpu)]
    check(len(rows) == 30, "%d samples" % len(rows))
    check(reads and reads[0][2], "no cfs_rq[%d]:/ in the debug dump" % cpu)
    # PELT values are as of the cfs_rq's last update. Where the kernel's
    # own dump shows the same values just before and just after schedtop's
    # read, no update happened in between: schedtop must show exactly them.
    cols = ("util_avg", "runnable_avg", "load_avg", "util_est")
    exact, moved, loaded = 0, 0, 0
    for row in rows:
        ts = int(row["ts_ns"])
        before = [x for x in reads if x[1] < ts]
        after = [x for x in reads if x[0] > ts]
        if not before or not after:
            continue
        b, a = before[-1], after[0]
        loaded += b[2]["util_avg"] > 100
        if any(b[2][c] != a[2][c] for c in cols):
            moved += 1
            continue
        exact += 1
        for c in cols:
            check(int(row[c]) == b[2][c],
                  "cpu%d %s: schedtop %s, sched debug %d both %.2f ms before "
                  "and %.2f ms after" % (cpu, c, row[c], b[2][c],
                                         (ts - b[1]) / 1e6, (a[0] - ts) / 1e6))
    # Not a vacuous 0 == 0: the load showed up.
    check(loaded >= len(rows) // 2, "util_avg above 100 in only %d of %d "
          "samples under a 40%% load" % (loaded, len(rows)))
    if exact < 5:
        raise Inconclusive("cpu%d's cfs_rq was updated between the dumps "
                           "around %d of %d samples" % (cpu, moved, len(rows)))
    print("# %d samples equal to the dumps around them, %d with an update "
          "in between not compared, %d dumps" % (exact, moved, len(reads)))


PELT_AGE = os.path.join(OUT, "tests", "tools", "pelt_age")
TOPO = "LITTLE:0,big:1@1024"
# Runs 20 ms, says when it stops, sleeps.
SLEEPER = """
import sys, time
now = lambda: time.clock_gettime_ns(time.CLOCK_MONOTONIC)
end = now() + 20000000
while now() < end:
    pass
sys.stdout.write("%d\\n" % now())
sys.stdout.flush()
time.sleep(600)
"""


def proc_state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def start_sleeper():
    """The sleeper on CPU 1, and when it went to sleep: after the time it
    printed, before the first moment /proc shows it asleep; and CPU 1's
    task clock skips (rq_clock_skips_ns()) while it spun, before its
    sleep. The test runs on CPU 0 meanwhile: woken on CPU 1 it could
    preempt the sleeper between the two (seen: 0.3 ms)."""
    child = subprocess.Popen(["taskset", "-c", "1", "python3", "-c", SLEEPER],
                             stdout=subprocess.PIPE, text=True)
    time.sleep(0.01)
    skipped = rq_clock_skips_ns()[1]
    early = int(child.stdout.readline())
    deadline = time.monotonic() + 5
    while proc_state(child.pid) != "S":
        check(time.monotonic() < deadline, "the sleeper never slept")
    return child, early, mono_ns(), skipped


@test(root=True)
def sleeping_task_pelt_age_is_its_time_asleep():
    """The BPF source's pelt_age_ns of a task asleep since a known moment
    is the time since, though the reader spun 3 ms after it woke: its
    CPU's rq clock is then as old as its last tick (up to 4 ms at HZ=250),
    and the decay of every sleeping task's util was that much short.

    Less what CPU 1's task clock, and PELT's with it, skipped meanwhile:
    time stolen by the hypervisor (PARAVIRT_TIME_ACCOUNTING) while the
    vCPU waited to run, which the kernel's debug dump gives to the ns
    (rq.clock less rq.clock_task). /proc/stat's steal counts 10 ms ticks:
    in 20 runs here the task clock skipped 0.6 and 0.9 ms in the two whose
    sleep came out 0.3 and 0.6 ms past /proc's moment, where /proc/stat
    said 0."""
    check(os.path.exists(PELT_AGE), "build it: make unit")
    ncpu = os.cpu_count()
    os.sched_setaffinity(0, {0})
    try:
        child, early, late, skipped0 = start_sleeper()
        try:
            r = subprocess.run(["taskset", "-c", "0", PELT_AGE, TOPO,
                                str(child.pid), "40", "3"],
                               capture_output=True, text=True, timeout=60)
            skipped = rq_clock_skips_ns()[1] - skipped0
        finally:
            child.kill()
            child.wait()
    finally:
        os.sched_setaffinity(0, set(range(ncpu)))
    check(r.returncode == 0, r.stderr)
    rows = [l.split(",") for l in r.stdout.split()]
    check(len(rows) == 40 and all(st == "S" for _, st, _ in rows),
          "sleeper not seen asleep in 40 samples: %s" % rows[:3])
    # When each sample says the sleep began: its time less the PELT age.
    # The kernel's clock skips steal, which moves that later by as much.
    slept = [(int(ts) - int(age)) for ts, _, age in rows]
    print("# sleep began per pelt_age_ns: %.3f..%.3f ms after the printed "
          "time; /proc saw it asleep %.3f ms after; cpu1's task clock "
          "skipped %.3f ms (its debug dump)"
          % ((min(slept) - early) / 1e6, (max(slept) - early) / 1e6,
             (late - early) / 1e6, skipped / 1e6))
    # The iterator counts from the rq clock user space brought up to date
    # just before it (microseconds): 0.05 ms covers that many times.
    check(min(slept) >= early - 50000 and
          max(slept) <= late + 50000 + skipped,
          "pelt age puts the sleep %.3f..%.3f ms after its printed time, "
          "/proc saw it asleep %.3f ms after, cpu1's task clock skipped %.3f ms"
          % ((min(slept) - early) / 1e6, (max(slept) - early) / 1e6,
             (late - early) / 1e6, skipped / 1e6))


if __name__ == "__main__":
    run()
