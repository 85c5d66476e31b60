#!/usr/bin/env python3
"""Tracer overhead on a scheduler-bound benchmark, as ratios to no tracer.

`taskset -c 0 perf bench sched pipe -l N` (pinned: unpinned, this VM's pipe
ping-pong is dominated by idle-exit latency) is timed with no tracer and with
each tracer running, alternating in every round so that drift of a shared,
noisy machine hits all of them alike. Each round's ratio is the tracer's time
over the no-tracer time of the same round; the report gives the median and
range over rounds.

Also measured, in separate runs so the measurement does not disturb the
ratios: mean ns per invocation of each schedtop BPF program
(kernel.bpf_stats_enabled on only meanwhile) and ring buffer drops.

Usage: bench/pipe_overhead.py [--rounds 9] [--loops 100000] [--out FILE]
Prints a Markdown section; root only.
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


def pipe_bench(loops):
    out = subprocess.run(["taskset", "-c", "0", "perf", "bench", "sched",
                          "pipe", "-l", str(loops)],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"Total time:\s+([\d.]+)", out)
    return float(m.group(1))


def cpu_seconds(pgid):
    """CPU time of every thread of every process in a process group, in s.

    /proc/<pid>/task/<tid>/schedstat counts in ns; tracers such as trace-cmd
    fork a reader per CPU, so the whole group is summed.
    """
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                if int(f.read().rsplit(")", 1)[1].split()[2]) != pgid:
                    continue
            for tid in os.listdir("/proc/%s/task" % pid):
                with open("/proc/%s/task/%s/schedstat" % (pid, tid)) as f:
                    total += int(f.read().split()[0])
        except (OSError, ValueError):
            continue
    return total / 1e9


class Tracer:
    def __init__(self, name, argv, settle=1.0):
        self.name, self.argv, self.settle = name, argv, settle
        self.proc = None
        self.cpu = []

    def start(self, tmp):
        if not self.argv:
            return
        argv = [a.replace("{tmp}", tmp) for a in self.argv]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        time.sleep(self.settle)
        self.t0 = time.monotonic()
        self.c0 = cpu_seconds(self.proc.pid)

    def stop(self):
        if not self.proc:
            return
        self.cpu.append((cpu_seconds(self.proc.pid) - self.c0) /
                        (time.monotonic() - self.t0))
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


def tracers():
    t = [Tracer("none", None),
         Tracer("schedtop csv (task table, 1 s)",
                [SCHEDTOP, "csv", "-o", "{tmp}/schedtop.csv"]),
         Tracer("schedtop csv --exact-wakeups",
                [SCHEDTOP, "csv", "--exact-wakeups", "-o", "{tmp}/schedtop2.csv"]),
         Tracer("schedtop csv --source=tracefs",
                [SCHEDTOP, "csv", "--source=tracefs", "-o", "{tmp}/schedtop3.csv"])]
    if shutil.which("trace-cmd"):
        t.append(Tracer("trace-cmd record sched_switch+sched_wakeup",
                        ["trace-cmd", "record", "-q", "-o", "{tmp}/trace.dat",
                         "-e", "sched:sched_switch", "-e", "sched:sched_wakeup"],
                        settle=2.0))
    if shutil.which("perf"):
        t.append(Tracer("perf sched record",
                        ["perf", "sched", "record", "-o", "{tmp}/perf.data"],
                        settle=2.0))
    return t


def bpf_prog_ns(loops):
    """Mean ns per run of each schedtop program during the pipe benchmark."""
    tmp = tempfile.mkdtemp()
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    st = subprocess.Popen([SCHEDTOP, "csv", "-t", "cpu", "-i", "500",
                           "--exact-wakeups", "-o", tmp + "/cpu.csv"])
    try:
        time.sleep(1.0)
        before = prog_stats()
        pipe_bench(loops)
        after = prog_stats()
    finally:
        subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=0"])
        st.send_signal(signal.SIGINT)
        st.wait(30)
    res = {}
    for name, (ns, cnt) in after.items():
        ns0, cnt0 = before.get(name, (0, 0))
        if cnt - cnt0 > 0:
            res[name] = ((ns - ns0) / (cnt - cnt0), cnt - cnt0)
    dropped = 0
    with open(tmp + "/cpu.csv") as f:
        hdr = f.readline().strip().split(",")
        col = hdr.index("dropped")
        for line in f:
            v = line.strip().split(",")[col]
            dropped += int(v or 0)
    shutil.rmtree(tmp)
    return res, dropped


def own_cpu(interval_ms, seconds=10):
    """schedtop's CPU share and CPU per sample on an otherwise idle machine."""
    tmp = tempfile.mkdtemp()
    p = subprocess.Popen([SCHEDTOP, "csv", "-i", str(interval_ms), "-o",
                          tmp + "/t.csv"], start_new_session=True)
    time.sleep(1.0)
    c0, t0 = cpu_seconds(p.pid), time.monotonic()
    time.sleep(seconds)
    c1, t1 = cpu_seconds(p.pid), time.monotonic()
    p.send_signal(signal.SIGINT)
    p.wait(30)
    with open(tmp + "/t.csv") as f:
        tasks = len({line.split(",")[1] for line in f}) - 1
    shutil.rmtree(tmp)
    share = (c1 - c0) / (t1 - t0)
    return share, (c1 - c0) / ((t1 - t0) * 1000 / interval_ms), tasks


def prog_stats():
    out = subprocess.run(["bpftool", "prog", "show", "--json"],
                         capture_output=True, text=True, check=True).stdout
    res = {}
    for p in json.loads(out):
        if p.get("type") == "tracing" and "run_cnt" in p:
            res[p["name"]] = (p.get("run_time_ns", 0), p["run_cnt"])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--loops", type=int, default=100000)
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("pipe_overhead: needs root")

    tmp = tempfile.mkdtemp(prefix="schedtop-bench-")
    ts = tracers()
    times = {t.name: [] for t in ts}
    pipe_bench(args.loops)                  # warm up caches and the CPU
    for r in range(args.rounds):
        order = ts[r % len(ts):] + ts[:r % len(ts)]
        for t in order:
            t.start(tmp)
            try:
                times[t.name].append(pipe_bench(args.loops))
            finally:
                t.stop()
        print("round %d: %s" % (r + 1, ", ".join(
            "%s %.3fs" % (t.name.split()[0], times[t.name][-1]) for t in ts)),
            file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)

    base = times["none"]
    print("### Pinned `perf bench sched pipe -l %d`, %d rounds\n" %
          (args.loops, args.rounds))
    print("Baseline (no tracer): median %.3f s, %.0f switches/s.\n" %
          (statistics.median(base), 2 * args.loops / statistics.median(base)))
    print("| tracer | median ratio | min | max | tracer CPU, mean share of one core |")
    print("|---|---|---|---|---|")
    for t in ts[1:]:
        ratios = [x / b for x, b in zip(times[t.name], base)]
        cpu = statistics.mean(t.cpu) if t.cpu else float("nan")
        print("| %s | %.3f | %.3f | %.3f | %.1f%% |" %
              (t.name, statistics.median(ratios), min(ratios), max(ratios),
               100 * cpu))
    print()
    print("### schedtop's own CPU time, task table to a file, idle machine\n")
    print("| interval | CPU, share of one core | CPU per sample | tasks |")
    print("|---|---|---|---|")
    for ms in (1000, 100):
        share, per, tasks = own_cpu(ms)
        print("| %d ms | %.3f%% | %.2f ms | %d |" % (ms, 100 * share,
                                                  per * 1e3, tasks))
    print()
    progs, dropped = bpf_prog_ns(args.loops)
    print("### Mean cost per BPF program run during the same benchmark\n")
    print("`kernel.bpf_stats_enabled=1` only for this run (the stats add a "
          "clock read or two per run); schedtop ran with --exact-wakeups so "
          "that on_waking is measured too.\n")
    print("| program | mean ns | runs |")
    print("|---|---|---|")
    for name, (ns, cnt) in sorted(progs.items(), key=lambda x: -x[1][1]):
        print("| %s | %.0f | %d |" % (name, ns, cnt))
    print("\nRing buffer drops during that run: %d\n" % dropped)


if __name__ == "__main__":
    main()
