#!/usr/bin/env python3
"""What --pelt-trace costs, and whether it keeps up (issue 17).

1. ns per tracepoint call, from the kernel's own BPF statistics
   (kernel.bpf_stats_enabled=1 for that run only, then set back to what it
   was): pelt_trace_se while only a sleeping task is selected (every call
   during the pipe benchmark is an unselected entity), and while the
   benchmark's own tasks are selected (-c sched-pipe: every call sends a record);
   pelt_trace_cfs with CPU 0 selected and _rt/_dl/_irq where they fire.
2. The pinned `taskset -c 0 perf bench sched pipe -l N` with nothing
   attached, with the default collection, with one selected (sleeping) task,
   and with the benchmark's tasks selected: alternated in every round, ratio
   to the no-tracer run of the same round; median and range.
3. A UI thread and a render thread, each waking every 1 ms (rt-app), traced
   for 5 s by `record --pelt-trace`: updates a second and updates lost.

Every traced configuration must have traced: run_cnt > 0 of its programs,
updates > 0 where records are expected, else the benchmark fails.

Usage: bench/pelt_trace.py [--rounds 7] [--loops 200000]; root; prints
Markdown. Run it under flock /tmp/schedtop-kernel.lock on a shared machine.
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEDTOP = os.environ.get("SCHEDTOP_BIN", os.path.join(TOP, "build", "schedtop"))
PROGS = ["pelt_trace_se", "pelt_trace_cfs", "pelt_trace_rt", "pelt_trace_dl",
         "pelt_trace_irq"]


def pipe_bench(loops):
    out = subprocess.run(["taskset", "-c", "0", "perf", "bench", "sched",
                          "pipe", "-l", str(loops)],
                         capture_output=True, text=True, check=True).stdout
    return float(re.search(r"Total time:\s+([\d.]+)", out).group(1))


def prog_stats():
    out = subprocess.run(["bpftool", "prog", "show", "--json"],
                         capture_output=True, text=True, check=True).stdout
    res = {}
    for p in json.loads(out):
        if p.get("name") in PROGS:
            ns, cnt = res.get(p["name"], (0, 0))
            res[p["name"]] = (ns + p.get("run_time_ns", 0),
                              cnt + p.get("run_cnt", 0))
    return res


def sleeper():
    """A task that wakes twice a second: selected, it adds almost nothing."""
    return subprocess.Popen([sys.executable, "-c",
                             "import time\nwhile True: time.sleep(0.5)"])


class Tracer:
    def __init__(self, name, args, records):
        self.name, self.args, self.records = name, args, records
        self.proc = None

    def start(self, tmp):
        if self.args is None:
            return
        self.err = open(os.path.join(tmp, "err"), "w+")
        self.proc = subprocess.Popen([SCHEDTOP, *self.args, "-o",
                                      os.path.join(tmp, "out")],
                                     stdout=subprocess.DEVNULL, stderr=self.err)
        time.sleep(1.0)

    def stop(self):
        if not self.proc:
            return None
        died = self.proc.poll()
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(30)
        self.proc = None
        self.err.seek(0)
        err = self.err.read()
        self.err.close()
        if died is not None:
            sys.exit("pelt_trace: %s exited (%d): %s" % (self.name, died, err))
        m = re.search(r"(\d+) PELT updates, (\d+) lost", err)
        if self.records and (not m or int(m.group(1)) == 0):
            sys.exit("pelt_trace: %s traced nothing: %r" % (self.name, err))
        return (int(m.group(1)), int(m.group(2))) if m else None


def prog_ns(args, loops, tmp):
    """ns per run of each pelt program while the benchmark runs."""
    with open("/proc/sys/kernel/bpf_stats_enabled") as f:
        was = f.read().strip()
    t = Tracer("stats", args, False)
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    try:
        t.start(tmp)
        before = prog_stats()
        pipe_bench(loops)
        after = prog_stats()
        t.stop()
    finally:
        subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=" + was],
                       check=True)
    res = {}
    for name, (ns, cnt) in after.items():
        ns0, cnt0 = before.get(name, (0, 0))
        if cnt > cnt0:
            res[name] = ((ns - ns0) / (cnt - cnt0), cnt - cnt0)
    if "pelt_trace_se" not in res:
        sys.exit("pelt_trace: pelt_trace_se never ran (run_cnt 0)")
    return res


def burst(seconds, tmp):
    """Two threads waking every 1 ms, traced: updates/s and lost."""
    conf = {"global": {"duration": seconds + 3, "calibration": 23,
                       "default_policy": "SCHED_OTHER", "logdir": tmp},
            "tasks": {n: {"loop": -1, "runtime": rt,
                          "timer": {"ref": "t_" + n, "period": 1000}}
                      for n, rt in (("ui_thread", 300), ("render_thread", 500))}}
    path = os.path.join(tmp, "burst.json")
    with open(path, "w") as f:
        json.dump(conf, f)
    app = subprocess.Popen(["rt-app", path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        tids = []
        for tid in os.listdir("/proc/%d/task" % app.pid):
            with open("/proc/%d/task/%s/comm" % (app.pid, tid)) as f:
                if f.read().strip() in ("ui_thread", "render_thread"):
                    tids.append(tid)
        out = subprocess.run([SCHEDTOP, "record", "--pelt-trace", "-p",
                              ",".join(tids), "-d", str(seconds), "-o",
                              os.path.join(tmp, "burst.rec")],
                             capture_output=True, text=True)
    finally:
        app.send_signal(signal.SIGINT)
        app.wait(10)
    m = re.search(r"(\d+) PELT updates, (\d+) lost", out.stderr)
    if len(tids) != 2 or not m or int(m.group(1)) == 0:
        sys.exit("pelt_trace: burst traced nothing: %r" % out.stderr)
    return int(m.group(1)) / seconds, int(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--loops", type=int, default=200000)
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("pelt_trace: needs root")
    tmp = tempfile.mkdtemp(prefix="schedtop-pelt-bench-")
    idle = sleeper()
    try:
        sel = str(idle.pid)
        tracers = [
            Tracer("none", None, False),
            Tracer("schedtop csv (default collection)", ["csv", "-t", "cpu"],
                   False),
            Tracer("--pelt-trace -p SLEEPER (benchmark unselected)",
                   ["csv", "-t", "pelt", "-p", sel], False),
            Tracer("--pelt-trace -c sched-pipe (benchmark's tasks selected)",
                   ["csv", "-t", "pelt", "-c", "sched-pipe"], True),
        ]
        unsel = prog_ns(["csv", "-t", "pelt", "-p", sel, "--pelt-cpus", "0"],
                        args.loops, tmp)
        selected = prog_ns(["csv", "-t", "pelt", "-c", "sched-pipe"], args.loops, tmp)
        times = {t.name: [] for t in tracers}
        got = {t.name: [] for t in tracers}
        for r in range(args.rounds):
            for t in tracers:
                t.start(tmp)
                times[t.name].append(pipe_bench(args.loops))
                got[t.name].append(t.stop())
        rate, lost = burst(5, tmp)
    finally:
        idle.kill()
        idle.wait()
        shutil.rmtree(tmp, ignore_errors=True)

    print("### --pelt-trace cost (bench/pelt_trace.py)\n")
    print("Mean ns per run, `kernel.bpf_stats_enabled=1` for these two runs "
          "only, during one pinned `perf bench sched pipe -l %d`:\n" % args.loops)
    print("| program | selection | mean ns | runs |")
    print("|---|---|---|---|")
    for name, (ns, cnt) in sorted(unsel.items()):
        what = ("a sleeping task (calls are unselected)"
                if name == "pelt_trace_se" else "CPU 0 selected")
        print("| %s | %s | %.0f | %d |" % (name, what, ns, cnt))
    for name, (ns, cnt) in sorted(selected.items()):
        print("| %s | -c sched-pipe: the benchmark's tasks | %.0f | %d |"
              % (name, ns, cnt))
    base = times["none"]
    print("\n%d rounds, alternated; baseline median %.3f s. The machine was "
          "shared with other sessions while this ran.\n" % (args.rounds,
                                                         statistics.median(base)))
    print("| tracer | median ratio | min | max | updates per round |")
    print("|---|---|---|---|---|")
    for t in tracers[1:]:
        ratios = [a / b for a, b in zip(times[t.name], base)]
        ups = [g[0] for g in got[t.name] if g]
        lost_r = sum(g[1] for g in got[t.name] if g)
        print("| %s | %.3f | %.3f | %.3f | %s |" % (
            t.name, statistics.median(ratios), min(ratios), max(ratios),
            ("%d (lost %d)" % (statistics.median(ups), lost_r)) if ups else "-"))
    print("\nUI thread + render thread waking every 1 ms, 5 s, "
          "`record --pelt-trace -p both`: %.0f updates/s, %d lost.\n"
          % (rate, lost))


if __name__ == "__main__":
    main()
