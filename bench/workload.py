#!/usr/bin/env python3
"""What measuring costs next to each workload's own work, and each
workload's figure of merit on this machine (docs/performance.md).

For every workload: `schedtop workload NAME -d SECONDS --json` with the
two-cluster fixture model. The measuring is schedtop's sampling thread (its
main thread: the sample, the task iterator it runs, the estimate), read
from /proc/PID/task/PID/schedstat, plus the run time of schedtop's BPF
programs that run in other tasks' context (kernel.bpf_stats_enabled on
only meanwhile), the iterator left out as the main thread already pays it.
The work is the workload threads' own CPU time (cpu_ns of --json, which
test_workload.py checks against their schedstat).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEDTOP = os.environ.get("SCHEDTOP_BIN", os.path.join(TOP, "build", "schedtop"))
EM = os.path.join(TOP, "tests/fixtures/energy/two-cluster.em")
TOPO = "LITTLE:0@1024,big:1@1024"


def progs():
    out = subprocess.run(["bpftool", "prog", "show", "--json"],
                         capture_output=True, text=True, check=True).stdout
    return {p["id"]: p for p in json.loads(out)}


def thread_ns(pid):
    """Run time of each thread of @pid by tid, and the main thread's."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                out[int(tid)] = int(f.read().split()[0])
        except (OSError, ValueError):
            pass
    return out


def run(name, seconds, interval, calib):
    before = set(progs())
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    try:
        p = subprocess.Popen([SCHEDTOP, "workload", name, "-d", str(seconds),
                              "-i", str(interval), "--json", "--topology", TOPO,
                              "--energy-model", EM, "--calibration", calib],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # Steady state: from 1.5 s in (BPF loaded, first sample taken) to
        # the last look before the end; opening is reported apart.
        t0 = time.monotonic()
        base = last = None
        seen = {}		# each thread's run time at its last look
        bpf0, bpf = {}, {}
        open_ns = 0
        while p.poll() is None:
            try:
                now = thread_ns(p.pid)
                cur = {i: pr for i, pr in progs().items()
                       if i not in before and "run_cnt" in pr}
                if base is None and time.monotonic() - t0 >= 1.5:
                    base, bpf0 = now, cur
                    seen = dict(now)
                    open_ns = now.get(p.pid, 0)
                elif base is not None:
                    # A thread that has ended keeps its last run time.
                    seen.update(now)
                    last, bpf = now, cur
            except (OSError, subprocess.CalledProcessError, ValueError):
                pass
            time.sleep(0.2)
        out, err = p.communicate()
    finally:
        subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=0"])
    if p.returncode:
        sys.exit("workload %s: %s" % (name, err.decode()))
    s = json.loads(out)
    # The iterator runs inside the sampling thread's read(): counted there.
    bpf_ns = sum(pr.get("run_time_ns", 0) - bpf0.get(i, {}).get("run_time_ns", 0)
                 for i, pr in bpf.items() if "iter" not in pr.get("name", ""))
    main_ns = last[p.pid] - base[p.pid]
    tids = [t["tid"] for t in s["threads"]]
    work = sum(seen.get(t, 0) - base.get(t, 0) for t in tids)
    return s, main_ns, bpf_ns, work, open_ns


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-d", type=float, default=10)
    ap.add_argument("-i", type=int, default=1000)
    args = ap.parse_args()
    if os.geteuid():
        sys.exit("workload.py: needs root")
    calib = tempfile.mktemp(prefix="schedtop-calib-")
    # Calibrate first: it runs in the main thread, once per machine.
    subprocess.run([SCHEDTOP, "workload", "audio", "-d", "0.1", "--calibration",
                    calib, "--topology", TOPO], capture_output=True, check=True)
    rows = []
    try:
        for name in ("audio", "video", "browse", "camera"):
            rows.append((name,) + run(name, args.d, args.i, calib))
    finally:
        if os.path.exists(calib):
            os.unlink(calib)
    print("### Workloads: figure of merit and what measuring costs (bench/workload.py)")
    print()
    print("`schedtop workload NAME -d %g -i %d --json --topology '%s' "
          "--energy-model tests/fixtures/energy/two-cluster.em` (no cpufreq here: "
          "the highest OPP is assumed, so power follows busy time; the power is "
          "the whole machine's, other load included)." % (args.d, args.i, TOPO))
    print()
    print("Cost of measuring, from 1.5 s in to the end: the sampling thread's run "
          "time plus schedtop's BPF programs elsewhere, over the workload threads' "
          "run time in the same window (both from /proc schedstat). Opening "
          "(loading BPF, first sample) is the once-only column.")
    print()
    print("| workload | met | figure of merit | avg power mW | EAS mW | work CPU ms | "
          "sampling thread ms | BPF elsewhere ms | cost of measuring | opening ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, s, main_ns, bpf_ns, work, open_ns in rows:
        cost = (main_ns + bpf_ns) / work * 100 if work else float("nan")
        print("| %s | %s | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f%% | %.0f |" % (
            name, "yes" if s["met"] else "no", s["figure_of_merit"],
            s["avg_power_mw"], s["eas_avg_power_mw"], work / 1e6, main_ns / 1e6,
            bpf_ns / 1e6, cost, open_ns / 1e6))
    print()


if __name__ == "__main__":
    main()
