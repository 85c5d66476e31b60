#!/usr/bin/env python3
"""What one sample costs, before and after, side by side in one run (issue 37).

For each task count (1,000, 3,000 and 10,000 tasks on the machine: extra
threads sleep in one helper process), two schedtop builds are run in turn,
`csv -t cpu -i 100` for 5 s after a settling second, the order swapped
every round so that drift of this shared machine hits both alike:

- CPU per sample, from /proc/PID/task/*/schedstat (ns), split into user and
  kernel time by /proc/PID/stat's utime and stime (tick-sampled, so a
  share, not a measure), and the kernel's part split again into BPF (the
  run time of the build's own programs, kernel.bpf_stats_enabled=1 in a
  separate run of each build: the stats add a clock read or two to every
  program run) and the rest (system calls, the task iterator);
- instructions of the user part (callgrind, 20 samples of the same
  command; perf cannot count instructions in this VM): per sample and per
  task. valgrind counts one instruction per byte that `rep movs`/`rep
  stos` move (glibc's large memcpy/memset): the before's calloc()s count
  in full;
- the BPF part is given as time only: nothing counts a program's
  instructions without hardware counters, which this VM lacks.

Then the fixed part: the same at the machine's own tasks, less those tasks
at the per-task cost of the 1,000-task point; and the live view at 3,000
tasks (bench/live.py): CPU share at 1 s over 20 s, RSS, first frame.

Usage: bench/sample_cost.py --before BIN [--after BIN] [--rounds 3]
       [--tasks 1000,3000,10000] [--no-callgrind] [--no-live]
Prints a Markdown section; root only; run under the kernel lock.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import live  # noqa: E402
from pipe_overhead import SLEEPERS  # noqa: E402
from record import nr_tasks as machine_tasks  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INTERVAL_MS = 100
SECONDS = 5


class Threads:
    """Extra sleeping threads, so that the machine has about @total tasks."""

    def __init__(self, total):
        self.extra = max(0, total - machine_tasks())

    def __enter__(self):
        self.p = subprocess.Popen([sys.executable, "-c", SLEEPERS,
                                   str(self.extra)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        self.p.stdout.readline()
        time.sleep(0.5)
        return self

    def __exit__(self, *exc):
        self.p.stdin.close()
        self.p.wait(60)


def proc_cpu(pid):
    """(total ns from schedstat, utime ticks, stime ticks) of a process."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return total, int(fields[11]), int(fields[12])


def progs():
    out = subprocess.run(["bpftool", "prog", "show", "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def prog_stats(old):
    """{name: (run_time_ns, run_cnt)} of the BPF programs loaded since the
    ids @old were listed: the schedtop started then (under the kernel lock
    nothing else loads any; Debian's bpftool lists no pids)."""
    res = {}
    for p in progs():
        if p["id"] not in old:
            ns, cnt = res.get(p["name"], (0, 0))
            res[p["name"]] = (ns + p.get("run_time_ns", 0),
                              cnt + p.get("run_cnt", 0))
    return res


def one_run(binary, stats=False):
    """(CPU ms per sample, user share, BPF ms per sample or None, tasks)."""
    if stats:
        subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"],
                       check=True)
    old = {p["id"] for p in progs()}
    p = subprocess.Popen([binary, "csv", "-t", "cpu", "-i", str(INTERVAL_MS),
                          "-o", "/dev/null"], start_new_session=True)
    try:
        time.sleep(1.0)
        c0, b0, t0 = proc_cpu(p.pid), prog_stats(old) if stats else {}, \
            time.monotonic()
        time.sleep(SECONDS)
        c1, b1, t1 = proc_cpu(p.pid), prog_stats(old) if stats else {}, \
            time.monotonic()
        tasks = machine_tasks()
    finally:
        p.send_signal(signal.SIGINT)
        p.wait(30)
        if stats:
            subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=0"])
    if p.returncode:
        sys.exit("sample_cost: %s exited %d" % (binary, p.returncode))
    samples = (t1 - t0) * 1000 / INTERVAL_MS
    cpu = (c1[0] - c0[0]) / 1e6 / samples
    ticks = (c1[1] - c0[1]) + (c1[2] - c0[2])
    user = (c1[1] - c0[1]) / ticks if ticks else float("nan")
    bpf = None
    if stats:
        bpf = sum(ns - b0.get(name, (0, 0))[0]
                  for name, (ns, _) in b1.items()) / 1e6 / samples
    return cpu, user, bpf, tasks


def callgrind_ir(binary, samples=20):
    """Instructions of the user part per sample (the sample loop's tick)."""
    tmp = tempfile.mkdtemp(prefix="schedtop-cg-")
    out = os.path.join(tmp, "cg.out")
    try:
        r = subprocess.run(["valgrind", "--tool=callgrind",
                            "--callgrind-out-file=" + out, binary, "csv",
                            "-t", "cpu", "-i", str(INTERVAL_MS), "-n",
                            str(samples), "-o", "/dev/null"],
                           capture_output=True, text=True)
        if r.returncode:
            return None
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                             capture_output=True, text=True).stdout
        m = re.search(r"^\s*([\d,]+) .*sample_loop\.c:on_tick", ann, re.M)
        # The first tick is the first sample with rows; every tick is one.
        return int(m.group(1).replace(",", "")) / samples if m else None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure(builds, total, rounds, callgrind):
    res = {name: {"cpu": [], "user": [], "tasks": []} for name, _ in builds}
    with Threads(total):
        for r in range(rounds):
            order = builds if r % 2 == 0 else builds[::-1]
            for name, binary in order:
                cpu, user, _, tasks = one_run(binary)
                res[name]["cpu"].append(cpu)
                res[name]["user"].append(user)
                res[name]["tasks"].append(tasks)
                print("# %d tasks round %d %s: %.3f ms" % (tasks, r + 1, name,
                                                            cpu),
                      file=sys.stderr)
        for name, binary in builds:
            res[name]["bpf"] = one_run(binary, stats=True)[2]
            res[name]["ir"] = callgrind_ir(binary) if callgrind else None
    for name, _ in builds:
        v = res[name]
        v["tasks"] = int(statistics.median(v["tasks"]))
        v["med"] = statistics.median(v["cpu"])
    return res


def hook_cost(binary, n=500):
    """ns per run of the build's programs on fork and exec (the task
    table's, run by the forking task, not by schedtop), while @n processes
    start (fork and exec) and @n threads: {name: (ns, runs)}."""
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    old = {p["id"] for p in progs()}
    p = subprocess.Popen([binary, "csv", "-t", "cpu", "-i", "1000", "-o",
                          "/dev/null"], start_new_session=True)
    try:
        time.sleep(1.5)
        b0 = prog_stats(old)
        for _ in range(n):
            subprocess.run(["true"])
        subprocess.run([sys.executable, "-c",
                        "import threading\n"
                        "for _ in range(%d):\n"
                        "    t = threading.Thread(target=lambda: None)\n"
                        "    t.start(); t.join()\n" % n])
        b1 = prog_stats(old)
    finally:
        p.send_signal(signal.SIGINT)
        p.wait(30)
        subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=0"])
    res = {}
    for name in ("track_new", "track_exec"):
        if name in b1:
            ns = b1[name][0] - b0.get(name, (0, 0))[0]
            runs = b1[name][1] - b0.get(name, (0, 0))[1]
            res[name] = (ns / runs if runs else float("nan"), runs)
    return res


def fmt_ir(ir, tasks):
    if ir is None:
        return "-", "-"
    return "%.2fM" % (ir / 1e6), "%.0f" % (ir / tasks)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", default=os.path.join(TOP, "build", "schedtop"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tasks", default="1000,3000,10000")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--no-live", action="store_true")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("sample_cost: needs root")
    builds = [("before", args.before), ("after", args.after)]
    counts = [int(x) for x in args.tasks.split(",")]
    own = measure(builds, 0, args.rounds, False)
    rows = [(n, measure(builds, n, args.rounds, not args.no_callgrind))
            for n in counts]

    print("### One sample's CPU time, before and after (bench/sample_cost.py)\n")
    print("`csv -t cpu -i %d`, %d s after a settling second, %d rounds of "
          "each build in turn, medians; extra threads sleep in one process. "
          "BPF: the build's programs' run time (kernel.bpf_stats_enabled, "
          "its own run); user: utime's share of utime + stime; instructions: "
          "callgrind, user space only.\n" % (INTERVAL_MS, SECONDS,
                                              args.rounds))
    print("| tasks | build | CPU per sample | per 1,000 tasks | ratio | "
          "rounds | BPF | user | other kernel | user instructions per "
          "sample | per task |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n, res in rows:
        base = res["before"]["med"]
        for name, _ in builds:
            v = res[name]
            tasks = v["tasks"]
            user = statistics.median(v["user"]) * v["med"]
            bpf = v["bpf"] or 0
            ir, per = fmt_ir(v.get("ir"), tasks)
            print("| %d | %s | %.3f ms | **%.3f ms** | %.2f | %s | %.3f ms | "
                  "%.3f ms | %.3f ms | %s | %s |" %
                  (tasks, name, v["med"], v["med"] * 1000 / tasks,
                   v["med"] / base, " ".join("%.2f" % x for x in v["cpu"]),
                   bpf, user, max(0.0, v["med"] - user - bpf), ir, per))
    print()
    print("The fixed part: a sample at the machine's own tasks, less those "
          "tasks at the cost of a task (the slope between the two smallest "
          "counts):\n")
    print("| build | tasks | CPU per sample | cost of a task | fixed part |")
    print("|---|---|---|---|---|")
    (n1, r1), (n2, r2) = rows[0], rows[min(1, len(rows) - 1)]
    for name, _ in builds:
        v = own[name]
        a, b = r1[name], r2[name]
        per_task = ((b["med"] - a["med"]) / (b["tasks"] - a["tasks"])
                    if b["tasks"] != a["tasks"] else a["med"] / a["tasks"])
        print("| %s | %d | %.3f ms | %.3f us | **%.3f ms** |" %
              (name, v["tasks"], v["med"], per_task * 1000,
               v["med"] - per_task * v["tasks"]))
    print()
    hooks = hook_cost(args.after)
    if hooks:
        print("What the task table adds elsewhere: its programs on fork and "
              "exec run in the forking task (kernel.bpf_stats_enabled, "
              "while 500 processes and 500 threads started):\n")
        print("| program | mean ns | runs |")
        print("|---|---|---|")
        for name, (ns, runs) in sorted(hooks.items()):
            print("| %s | %.0f | %d |" % (name, ns, runs))
        print()
    if args.no_live:
        return
    print("### The live view at 3,000 tasks, 200x50 terminal (tmux), 1 s "
          "refresh\n")
    print("| build | tasks listed | CPU, share of one core over 20 s | RSS | "
          "first full frame (median of 5; min, max) |")
    print("|---|---|---|---|---|")
    with Threads(3000):
        for name, binary in builds:
            v = live.live_cost(binary, 20)
            ff = live.first_frame_ms(binary)
            print("| %s | %s | %.3f%% | %.1f MB | %.0f ms (%.0f, %.0f) |" %
                  (name, v["tasks"], 100 * v["share"], v["rss_kb"] / 1024,
                   *ff))
    print()


if __name__ == "__main__":
    main()
