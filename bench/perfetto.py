#!/usr/bin/env python3
"""What the Perfetto exports cost (issue 33's targets).

1. convert: a 60 s recording at 100 ms with ~500 tasks on the machine (a
   helper holds the threads, a quarter of them waking every 10-200 ms as in
   bench/record.py), exported by convert --perfetto and by convert --json
   (the baseline, same run): wall time (best of 3), file size, peak RSS
   (wait4's ru_maxrss); and a 6 s recording of the same machine exported
   alike, so that the memory of the two lengths can be compared (streamed:
   the same).
2. --atrace: csv -t cpu at 100 ms for 30 s with and without --atrace (the
   default selection: every CPU and cluster), side by side, seven rounds;
   the CPU time of each, the difference per sample and per counter line
   (--atrace-only; --atrace-before BIN adds another build's --atrace run
   beside them).

Prints a Markdown section; root only (records and loads BPF).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "bench"))
from record import cpu_s, nr_tasks, workers  # noqa: E402
from sample_cost import proc_cpu  # noqa: E402

BIN = os.path.join(TOP, "build", "schedtop")
TARGET_TASKS = 500
ATRACE_S = 30
ROUNDS = 7
# The samples' steady cost is read from here on (after the BPF load).
STEADY_FROM = 4


def run(args):
    """(wall s, peak RSS KB) of schedtop @args run to its end. The peak is
    GNU time's (%M): a child of this Python would count Python's own pages,
    copied at fork, as its peak."""
    t = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", BIN, *args],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - t
    if p.returncode:
        sys.exit("bench: %s failed: %s" % (" ".join(args), p.stderr[-300:]))
    return wall, int(p.stderr.decode().split()[-1])


def record(path, seconds):
    run(["record", "-q", "-o", path, "-i", "100", "-d", str(seconds)])


def export(rec, fmt, out):
    best, rss = None, 0
    for _ in range(3):
        wall, peak = run(["convert", rec, "--" + fmt, "-o", out])
        best = wall if best is None else min(best, wall)
        rss = max(rss, peak)
    return best, os.path.getsize(out), rss


def convert_bench(tmp):
    helper = workers(max(0, TARGET_TASKS - nr_tasks()))
    try:
        time.sleep(2)
        tasks = nr_tasks()
        long_rec, short_rec = os.path.join(tmp, "60s.rec"), os.path.join(tmp, "6s.rec")
        record(long_rec, 60)
        record(short_rec, 6)
    finally:
        helper.kill()
        helper.wait()
    rows = {}
    for name, rec in (("60 s", long_rec), ("6 s", short_rec)):
        for fmt in ("perfetto", "json"):
            rows[(name, fmt)] = export(rec, fmt, os.path.join(tmp, "out." + fmt))
    print("### convert --perfetto (bench/perfetto.py)\n")
    print("A recording of 60 s at 100 ms with %d tasks on the machine (%.1f MB), "
          "exported three times each way; time the best round, RSS the peak:\n"
          % (tasks, os.path.getsize(long_rec) / 1e6))
    print("| recording | format | time | file | peak RSS |")
    print("|---|---|---|---|---|")
    for (name, fmt), (wall, size, rss) in rows.items():
        print("| %s | %s | %.2f s | %.1f MB | %.1f MB |" %
              (name, "--" + fmt, wall, size / 1e6, rss / 1024))
    p, j = rows[("60 s", "perfetto")], rows[("60 s", "json")]
    ps = rows[("6 s", "perfetto")]
    print("\nNative / JSON: %.2f of the size, %.2f of the time. Peak RSS of "
          "the 60 s export / the 6 s one: %.2f (streamed by sample: memory "
          "follows the tasks alive, not the length; the RSS includes the "
          "recording's pages, mapped as read). Targets: at most 2 s, at most "
          "1/3 of the JSON's size." % (p[1] / j[1], p[0] / j[0], p[2] / ps[2]))
    for f in (long_rec, short_rec):
        os.unlink(f)


def atrace_bench(before=None):
    """Each round runs both side by side. A run's CPU time from its start
    holds loading the BPF programs (the verifier: a few hundred ms, as much
    as the 30 s of samples and as variable), so the steady cost is read as
    the scheduler's own sum from STEADY_FROM s to ATRACE_S - 1 s. With
    @before (another build's binary), its --atrace run goes beside them."""
    rounds = []
    for _ in range(ROUNDS):
        cmd = ["csv", "-t", "cpu", "-i", "100", "-d", str(ATRACE_S)]
        procs = {
            "plain": subprocess.Popen([BIN] + cmd, stdout=subprocess.DEVNULL),
            "atrace": subprocess.Popen([BIN] + cmd + ["--atrace"],
                                       stdout=subprocess.DEVNULL),
        }
        if before:
            procs["before"] = subprocess.Popen([before] + cmd + ["--atrace"],
                                               stdout=subprocess.DEVNULL)
        t0 = time.monotonic()
        time.sleep(STEADY_FROM)
        first = {n: proc_cpu(p.pid)[0] for n, p in procs.items()}
        t1 = time.monotonic()
        time.sleep(max(0, t0 + ATRACE_S - 1 - time.monotonic()))
        last = {n: proc_cpu(p.pid)[0] for n, p in procs.items()}
        t2 = time.monotonic()
        usage = {}
        for name, p in procs.items():
            _, status, ru = os.wait4(p.pid, 0)
            if status:
                sys.exit("bench: csv %s failed" % name)
            usage[name] = cpu_s(ru)
            usage[name + "_steady"] = (last[name] - first[name]) / 1e9
        usage["span"] = t2 - t1
        rounds.append(usage)
    # Lines a sample writes: count them once through a private instance.
    lines = count_lines()
    print("\n### --atrace (bench/perfetto.py)\n")
    print("`csv -t cpu -i 100` for %d s with and without `--atrace` (every "
          "CPU's and cluster's counters, %d lines a sample), run side by "
          "side, %d rounds. The steady part: each one's CPU time as the "
          "scheduler sums it (/proc/PID/task/*/schedstat) from %d s to %d s "
          "after the start (the BPF load before it, the exit after it); the "
          "whole run's (rusage) beside it:\n" %
          (ATRACE_S, lines, ROUNDS, STEADY_FROM, ATRACE_S - 1))
    print("| round | steady without | steady with --atrace | ratio | extra "
          "per sample | per line | whole run without | with | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for i, u in enumerate(rounds, 1):
        samples = u["span"] * 10
        extra = u["atrace_steady"] - u["plain_steady"]
        print("| %d | %.3f s | %.3f s | %.3f | %.1f us | %.2f us | %.3f s | "
              "%.3f s | %.3f |" %
              (i, u["plain_steady"], u["atrace_steady"],
               u["atrace_steady"] / u["plain_steady"],
               1e6 * extra / samples, 1e6 * extra / samples / lines,
               u["plain"], u["atrace"], u["atrace"] / u["plain"]))
    ratio = sorted(u["atrace_steady"] / u["plain_steady"]
                   for u in rounds)[ROUNDS // 2]
    whole = sorted(u["atrace"] / u["plain"] for u in rounds)[ROUNDS // 2]
    print("\nMedian steady ratio %.3f, whole runs %.3f: target at most 1.02."
          % (ratio, whole))
    if before:
        print("\n%s's --atrace beside them, steady: %s; median ratio %.3f, "
              "extra per sample %.1f us (this build's: %.1f us)" %
              (before, ", ".join("%.3f s" % u["before_steady"] for u in rounds),
               sorted(u["before_steady"] / u["plain_steady"]
                      for u in rounds)[ROUNDS // 2],
               sorted(1e6 * (u["before_steady"] - u["plain_steady"]) / (u["span"] * 10)
                      for u in rounds)[ROUNDS // 2],
               sorted(1e6 * (u["atrace_steady"] - u["plain_steady"]) / (u["span"] * 10)
                      for u in rounds)[ROUNDS // 2]))


def count_lines():
    inst = "/sys/kernel/tracing/instances/bench-atrace-%d" % os.getpid()
    os.mkdir(inst)
    try:
        with open(inst + "/options/copy_trace_marker", "w") as f:
            f.write("1")
        p = subprocess.Popen([BIN, "csv", "-t", "cpu", "-n", "1", "--atrace"],
                             stdout=subprocess.DEVNULL)
        p.wait()
        with open(inst + "/trace") as f:
            return sum(1 for line in f if "-%d " % p.pid in line and
                       "tracing_mark_write: C|" in line)
    finally:
        os.rmdir(inst)


def main():
    tmp = tempfile.mkdtemp(prefix="schedtop-bench-")
    try:
        if "--atrace-only" not in sys.argv:
            convert_bench(tmp)
        if "--convert-only" not in sys.argv:
            # --atrace-before BIN: another build's --atrace run beside them.
            before = (sys.argv[sys.argv.index("--atrace-before") + 1]
                      if "--atrace-before" in sys.argv else None)
            atrace_bench(before)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
