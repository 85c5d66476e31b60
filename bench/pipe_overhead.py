#!/usr/bin/env python3
"""Tracer overhead on a scheduler-bound benchmark, as ratios to no tracer.

`taskset -c 0 perf bench sched pipe -l N` (pinned: unpinned, this VM's pipe
ping-pong is dominated by idle-exit latency) is timed with no tracer and with
each tracer running, alternating in every round so that drift of a shared,
noisy machine hits all of them alike. Each round's ratio is the tracer's time
over the no-tracer time of the same round; the report gives the median and
range over rounds.

Every tracer must really have run: a tracer that exited early, used no
CPU time or wrote nothing makes the benchmark fail instead of reporting a
ratio of 1.00. trace-cmd is not among them: it cannot record on a kernel
that refuses writes to /proc/sys/kernel/ftrace_enabled (this VM); raw
ftrace (bench/ftrace_raw.py) is what it would do.

Also measured, in separate runs so the measurement does not disturb the
ratios: mean ns per invocation of each schedtop BPF program
(kernel.bpf_stats_enabled on only meanwhile), ring buffer drops, and the
CPU time of one sample with 100, 1,000 and 10,000 extra sleeping threads.

With --set tracefs only the tracefs source is measured (issue #13 item 6):
this build's, another build's (--before BIN, e.g. main's) and raw ftrace of
sched_switch alone, the floor for any ftrace-based source, and of
sched_switch + sched_wakeup, what the source enables of the hot events.
Each schedtop must have seen the benchmark's switches (the nvcsw + nivcsw
of its sched-pipe tasks in its CSV), each raw ftrace reader must have
copied at least 40 bytes per switch.

Usage: bench/pipe_overhead.py [--rounds 15] [--loops 200000]
                              [--set all|tracefs] [--before BIN]
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


def output_bytes(path):
    """Size of a file, or of every file in a directory."""
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(path, f))
                   for f in os.listdir(path))
    return os.path.getsize(path) if os.path.exists(path) else 0


def pipe_switches(path):
    """Switches of perf bench's sched-pipe tasks that a schedtop CSV saw."""
    n = 0
    with open(path) as f:
        hdr = f.readline().strip().split(",")
        comm, vol, invol = (hdr.index(c) for c in ("comm", "nvcsw", "nivcsw"))
        for line in f:
            v = line.rstrip("\n").split(",")
            if len(v) == len(hdr) and v[comm] == "sched-pipe":
                n += int(v[vol] or 0) + int(v[invol] or 0)
    return n


def ftrace_bytes(path):
    """Event bytes in a directory of trace_pipe_raw pages (their commits)."""
    n = 0
    page = os.sysconf("SC_PAGESIZE")
    for name in os.listdir(path):
        with open(os.path.join(path, name), "rb") as f:
            while True:
                p = f.read(page)
                if len(p) < 16:
                    break
                n += int.from_bytes(p[8:16], "little") & 0xfffff
    return n


class Tracer:
    def __init__(self, name, argv, output=None, settle=1.0, seen=None,
                 least=0):
        self.name, self.argv, self.settle = name, argv, settle
        self.output = output
        self.proc = None
        self.cpu = []
        self.bytes = []
        # What it saw of the benchmark, and the least that proves it ran.
        self.seen, self.least, self.counts = seen, least, []

    def start(self, tmp):
        if not self.argv:
            return
        argv = [a.replace("{tmp}", tmp) for a in self.argv]
        self.out_path = self.output.replace("{tmp}", tmp)
        if self.output.endswith("/"):
            shutil.rmtree(self.out_path, ignore_errors=True)
            os.mkdir(self.out_path)
        elif os.path.exists(self.out_path):
            os.unlink(self.out_path)
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        time.sleep(self.settle)
        self.t0 = time.monotonic()
        self.c0 = cpu_seconds(self.proc.pid)

    def stop(self):
        if not self.proc:
            return
        died = self.proc.poll()
        cpu = cpu_seconds(self.proc.pid) - self.c0
        self.cpu.append(cpu / (time.monotonic() - self.t0))
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        self.bytes.append(output_bytes(self.out_path))
        # A tracer that did not run measured nothing: no ratio for it.
        if died is not None:
            sys.exit("pipe_overhead: %s exited (%d) during the benchmark" %
                     (self.name, died))
        if cpu <= 0 or self.bytes[-1] == 0:
            sys.exit("pipe_overhead: %s used %.3f s of CPU and wrote %d "
                     "bytes: it did not trace" % (self.name, cpu,
                                                   self.bytes[-1]))
        if self.seen:
            self.counts.append(self.seen(self.out_path))
            if self.counts[-1] < self.least:
                sys.exit("pipe_overhead: %s saw %d of the benchmark (at "
                         "least %d expected): it did not trace" %
                         (self.name, self.counts[-1], self.least))


def tracers():
    t = [Tracer("none", None),
         Tracer("schedtop csv (task table, 1 s)",
                [SCHEDTOP, "csv", "-o", "{tmp}/schedtop.csv"],
                "{tmp}/schedtop.csv"),
         Tracer("schedtop csv --exact-wakeups",
                [SCHEDTOP, "csv", "--exact-wakeups", "-o", "{tmp}/schedtop2.csv"],
                "{tmp}/schedtop2.csv"),
         Tracer("schedtop csv --source=tracefs",
                [SCHEDTOP, "csv", "--source=tracefs", "-o", "{tmp}/schedtop3.csv"],
                "{tmp}/schedtop3.csv"),
         Tracer("raw ftrace sched_switch+sched_wakeup, trace_pipe_raw per CPU",
                [sys.executable, os.path.join(TOP, "bench", "ftrace_raw.py"),
                 "{tmp}/ftrace"], "{tmp}/ftrace/")]
    if shutil.which("perf"):
        t.append(Tracer("perf sched record",
                        ["perf", "sched", "record", "-o", "{tmp}/perf.data"],
                        "{tmp}/perf.data", settle=2.0))
    return t


def tracefs_tracers(loops, before):
    """The tracefs source before and after, and raw ftrace as its floor."""
    ftrace = os.path.join(TOP, "bench", "ftrace_raw.py")
    switches = 2 * loops
    t = [Tracer("none", None)]
    if before:
        t.append(Tracer("schedtop csv --source=tracefs, before (%s)" % before,
                        [before, "csv", "--source=tracefs", "-o",
                         "{tmp}/before.csv"], "{tmp}/before.csv",
                        seen=pipe_switches, least=switches // 2))
    t += [Tracer("schedtop csv --source=tracefs",
                 [SCHEDTOP, "csv", "--source=tracefs", "-o", "{tmp}/after.csv"],
                 "{tmp}/after.csv", seen=pipe_switches, least=switches // 2),
          Tracer("raw ftrace sched_switch only, trace_pipe_raw per CPU",
                 [sys.executable, ftrace, "{tmp}/ftsw", "sched_switch"],
                 "{tmp}/ftsw/", seen=ftrace_bytes, least=40 * switches),
          Tracer("raw ftrace sched_switch+sched_wakeup, trace_pipe_raw per CPU",
                 [sys.executable, ftrace, "{tmp}/ftrace"], "{tmp}/ftrace/",
                 seen=ftrace_bytes, least=40 * switches)]
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


def schedtop_cpu(args, seconds):
    """(CPU s, wall s) of schedtop ARGS over @seconds, from a second after
    its start (past its setup); it is stopped with SIGINT after."""
    p = subprocess.Popen([SCHEDTOP, *args], start_new_session=True)
    time.sleep(1.0)
    c0, t0 = cpu_seconds(p.pid), time.monotonic()
    time.sleep(seconds)
    c1, t1 = cpu_seconds(p.pid), time.monotonic()
    p.send_signal(signal.SIGINT)
    p.wait(30)
    return c1 - c0, t1 - t0


def own_cpu(interval_ms, seconds=10):
    """schedtop's CPU share and CPU per sample on an otherwise idle machine."""
    tmp = tempfile.mkdtemp()
    cpu, wall = schedtop_cpu(["csv", "-i", str(interval_ms), "-o",
                              tmp + "/t.csv"], seconds)
    with open(tmp + "/t.csv") as f:
        tasks = len({line.split(",")[1] for line in f}) - 1
    shutil.rmtree(tmp)
    return cpu / wall, cpu / (wall * 1000 / interval_ms), tasks


SLEEPERS = """
import sys, threading
threading.stack_size(65536)
ev = threading.Event()
for _ in range(int(sys.argv[1])):
    threading.Thread(target=ev.wait, daemon=True).start()
print("ready", flush=True)
sys.stdin.read()
"""


def sample_cost(threads, interval_ms=100, seconds=5):
    """schedtop's CPU time per sample with that many extra sleeping threads."""
    tmp = tempfile.mkdtemp()
    sl = subprocess.Popen([sys.executable, "-c", SLEEPERS, str(threads)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        sl.stdout.readline()
        cpu, wall = schedtop_cpu(["csv", "-t", "cpu", "-i", str(interval_ms),
                                  "-o", tmp + "/c.csv"], seconds)
        tasks = sum(len(os.listdir("/proc/%s/task" % d))
                    for d in os.listdir("/proc") if d.isdigit() and
                    os.path.isdir("/proc/%s/task" % d))
    finally:
        sl.stdin.close()
        sl.wait(30)
        shutil.rmtree(tmp)
    if cpu <= 0:
        sys.exit("pipe_overhead: schedtop used no CPU time sampling")
    return cpu / (wall * 1000 / interval_ms), tasks


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
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--loops", type=int, default=200000)
    ap.add_argument("--set", choices=("all", "tracefs"), default="all")
    ap.add_argument("--before", help="another schedtop, for --set tracefs")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("pipe_overhead: needs root")

    tmp = tempfile.mkdtemp(prefix="schedtop-bench-")
    ts = tracers() if args.set == "all" else tracefs_tracers(args.loops,
                                                             args.before)
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
            "%s %.3fs" % (t.name, times[t.name][-1]) for t in ts)),
            file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)

    base = times["none"]
    print("### Pinned `perf bench sched pipe -l %d`, %d rounds\n" %
          (args.loops, args.rounds))
    print("Baseline (no tracer): median %.3f s, %.0f switches/s.\n" %
          (statistics.median(base), 2 * args.loops / statistics.median(base)))
    print("| tracer | median ratio | min | max | tracer CPU, median share of one core | output per round | seen per round (median) |")
    print("|---|---|---|---|---|---|---|")
    for t in ts[1:]:
        ratios = [x / b for x, b in zip(times[t.name], base)]
        cpu = statistics.median(t.cpu) if t.cpu else float("nan")
        seen = ""
        if t.counts:
            unit = "switches of sched-pipe" if t.seen is pipe_switches \
                else "kB of events"
            med = statistics.median(t.counts)
            seen = "%d %s" % (med if t.seen is pipe_switches else med / 1e3,
                              unit)
        print("| %s | %.3f | %.3f | %.3f | %.1f%% | %.0f kB | %s |" %
              (t.name, statistics.median(ratios), min(ratios), max(ratios),
               100 * cpu, statistics.median(t.bytes) / 1e3, seen))
    print()
    if args.set == "tracefs":
        print("Per-round ratios: %s\n" % "; ".join(
            "%s: %s" % (t.name, " ".join(
                "%.2f" % (x / b) for x, b in zip(times[t.name], base)))
            for t in ts[1:]))
        return
    print("### CPU time of one sample (cpu table, 100 ms interval, 5 s)\n")
    print("Extra threads sleeping in one process; tasks is what the kernel "
          "listed (every thread).\n")
    print("| extra threads | tasks | CPU per sample | per 1,000 tasks |")
    print("|---|---|---|---|")
    for n in (100, 1000, 10000):
        per, tasks = sample_cost(n)
        print("| %d | %d | %.3f ms | %.3f ms |" % (n, tasks, per * 1e3,
                                                   per * 1e6 / tasks))
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
