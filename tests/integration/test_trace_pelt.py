"""PELT of a kernel before 5.1 (contributions scaled by frequency and CPU
capacity), estimated by schedtop's engine from the Juno trace excerpt
tests/fixtures/trace/juno-pelt.dat, against the util_avg that kernel printed
itself into the same trace (bprint lines of its util_est instrumentation:
"evt=util_est_rq step=pre pid=N ... t_avg=U" and "evt=util_est_se step=pre
pid=N ... avg=U"), parsed here from trace-cmd report's own decoding.

Bounds are LISA's PELT correctness bounds: mean absolute error <= 2% and
maximum <= 5% of 1024, over every task update the kernel printed except
those within START_UP of the task's first switch in the trace (what a task
did before the trace began is not in it; an error in its starting value has
decayed below 0.2% after 300 PELT periods)."""
import bisect
import collections
import os
import re
import shutil
import subprocess
import tempfile

from harness import (OUT, SRC, check, make_in_out, parse_csv, run, schedtop,
                     test, trace_cmd_report)

FIXTURE = os.path.join(SRC, "tests", "fixtures", "trace", "juno-pelt.dat")
TOPO = "LITTLE:0,3-5@446,big:1-2@1024"
TOOL = os.path.join(OUT, "tests", "tools", "trace_pelt")
START_UP = 300 * 10**6
RAMP = 6984     # task_r20_5-60: the rt-app task, flat out on LITTLE CPU 5

TS = r"\s(\d+)\.(\d+):"
KERNEL = re.compile(TS + r" bprint:.*evt=util_est_(?:rq|se) step=pre pid=(\d+) "
                    r".*? (?:t_avg|avg)=(\d+)")
SWITCH = re.compile(TS + r" sched_switch:\s+.*:(\d+) \[-?\d+\] \S+ ==> .*:(\d+) \[")


def ns(sec, frac):
    return int(sec) * 10**9 + int(frac.ljust(9, "0"))


def kernel_values():
    """[(ts, pid, util_avg)] the kernel printed, and {pid: first switch ts}."""
    if not shutil.which("trace-cmd"):
        raise AssertionError("trace-cmd missing: apt-get install trace-cmd")
    r = trace_cmd_report("-i", FIXTURE)
    check(r.returncode == 0, "trace-cmd report: %s" % r.stderr)
    values, first = [], {}
    for line in r.stdout.splitlines():
        m = SWITCH.search(line)
        if m:
            for pid in (int(m.group(3)), int(m.group(4))):
                first.setdefault(pid, ns(m.group(1), m.group(2)))
            continue
        m = KERNEL.search(line)
        if m:
            values.append((ns(m.group(1), m.group(2)), int(m.group(3)),
                           int(m.group(4))))
    check(len(values) > 1000, "only %d kernel values decoded" % len(values))
    return values, first


def engine_values(scheme):
    """{pid: [(ts, util)]} of schedtop's engine, sampled every 100 us."""
    if not os.path.exists(TOOL):
        r = make_in_out("tests/tools/trace_pelt")
        check(r.returncode == 0, "building trace_pelt: %s" % r.stderr)
    r = subprocess.run([TOOL, FIXTURE, TOPO, scheme, "100"],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, "trace_pelt: %s" % r.stderr)
    out = collections.defaultdict(list)
    for line in r.stdout.splitlines():
        ts, pid, util, estimated = line.split(",")
        check(estimated == "1", "a value not marked estimated: %s" % line)
        out[int(pid)].append((int(ts), int(util)))
    return out


def errors(scheme):
    """{pid: [|engine - kernel|]} at the first sample at or after each
    kernel value (100 us later at most: less than one PELT period)."""
    values, first = kernel_values()
    eng = engine_values(scheme)
    err = collections.defaultdict(list)
    for ts, pid, util in values:
        if pid not in first or ts < first[pid] + START_UP:
            continue
        s = eng.get(pid)
        check(s, "pid %d, which the kernel printed, is not among the tasks" % pid)
        i = bisect.bisect_left(s, (ts, -1))
        if i == len(s):
            continue
        check(s[i][0] - ts <= 100000, "no sample within 100 us of %d" % ts)
        err[pid].append(abs(s[i][1] - util))
    return err


@test
def pre_5_1_scheme_meets_lisa_bounds():
    err = errors("4.x")
    every = [e for v in err.values() for e in v]
    mae, worst = sum(every) / len(every) / 1024, max(every) / 1024
    check(len(every) > 800 and len(err[RAMP]) > 100,
          "compared %d values, %d of the rt-app task" % (len(every), len(err[RAMP])))
    check(mae <= 0.02 and worst <= 0.05,
          "over %d values of %d tasks: MAE %.2f%%, max %.2f%% of 1024 "
          "(bounds 2%%, 5%%)" % (len(every), len(err), 100 * mae, 100 * worst))
    ramp = sum(err[RAMP]) / len(err[RAMP]) / 1024
    check(ramp <= 0.02, "rt-app task MAE %.2f%%" % (100 * ramp))


@test
def the_5_1_scheme_does_not_fit_this_kernel():
    """The same engine with the scaled PELT clock: the ramping task, flat out
    on a LITTLE CPU at 450-850 MHz, would near 1024 where the kernel capped
    it at the CPU's current capacity. The scheme is what makes the fit."""
    err = errors("5.0")
    ramp = sum(err[RAMP]) / len(err[RAMP]) / 1024
    check(ramp > 0.2, "rt-app task MAE with the 5.1 scheme only %.2f%%" %
          (100 * ramp))


@test
def auto_says_what_it_assumed():
    """The file names no kernel (no UNAME option), but it stores the format
    of sched_load_avg_task, an event only EAS-era 4.x kernels had: auto
    takes the pre-5.1 scheme and says why, and how to override it, once;
    maximum frequencies come from the trace (850 MHz LITTLE, 1100 big),
    which is said too. Without those formats, 5.1's scheme is assumed, said
    so."""
    r = schedtop("csv", "--trace", FIXTURE, "--topology", TOPO, "-n", "1",
                 "-t", "cpu")
    check(r.returncode == 0, r.stderr)
    # The PELT note, among the others on what the window assumed.
    err = [l for l in r.stderr.decode().splitlines() if "PELT estimated" in l]
    check(len(err) == 1 and "names no kernel" in err[0] and
          "sched_load_avg_task" in err[0] and "--pelt-scheme 5.0" in err[0] and
          err[0].endswith("CPUs 0-5"), "note: %r" % r.stderr)
    if not os.path.exists(TOOL):
        r = make_in_out("tests/tools/trace_pelt")
        check(r.returncode == 0, "building trace_pelt: %s" % r.stderr)
    r = subprocess.run([TOOL, FIXTURE, TOPO, "auto", "1000000"],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and "scheme=2 release=\n" in r.stderr,
          "auto on the Juno excerpt: %r" % r.stderr)
    tool = os.path.join(SRC, "tests", "tools", "trace_dat_excerpt.py")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.dat")
        r = subprocess.run(["python3", tool, FIXTURE, path, "--drop-formats",
                            "sched_load_avg_task,sched_load_avg_cpu"],
                           capture_output=True, text=True)
        check(r.returncode == 0, "excerpt --drop-formats: %s" % r.stderr)
        r = schedtop("csv", "--trace", path, "--topology", TOPO, "-n", "1",
                     "-t", "cpu")
        err = [l for l in r.stderr.decode().splitlines() if "PELT estimated" in l]
        check(r.returncode == 0 and len(err) == 1 and "names no kernel" in err[0]
              and "--pelt-scheme 4.x" in err[0], "without the 4.x formats: %r" % err)
    r = schedtop("csv", "--trace", FIXTURE, "--topology", TOPO, "-n", "1",
                 "-t", "cpu", "--pelt-scheme", "4.x")
    check(r.returncode == 0 and b"names no kernel" not in r.stderr, r.stderr)
    for cmd in (["report"], ["csv", "--from"]):
        r = schedtop(*cmd[:1], "--pelt-scheme", "4.x", "--topology", TOPO,
                     *cmd[1:], FIXTURE)
        check(r.returncode == 0 and b"names no kernel" not in r.stderr,
              "%s: %r" % (cmd, r.stderr))
    r = schedtop("report", "--pelt-scheme", "3.x", FIXTURE)
    err = r.stderr.decode()
    check(r.returncode == 2 and "4.x, 5.0 or auto" in err, "bad scheme: %r" % err)


@test
def auto_picks_by_the_release_the_file_names():
    """The same trace with a UNAME option (written by the excerpt tool, as
    trace-cmd record stores uname(2)): auto takes the scheme of that
    release, says nothing, and fits as 4.x does."""
    tool = os.path.join(SRC, "tests", "tools", "trace_dat_excerpt.py")
    with tempfile.TemporaryDirectory() as d:
        for release, scheme in (("4.14.0-rc4", 2), ("5.0.21", 2),
                                ("5.1.0", 1), ("6.18.0", 1)):
            path = os.path.join(d, "t.dat")
            r = subprocess.run(["python3", tool, FIXTURE, path, "--uname",
                                "Linux juno %s #1 SMP PREEMPT aarch64" % release],
                               capture_output=True, text=True)
            check(r.returncode == 0, "excerpt --uname: %s" % r.stderr)
            r = subprocess.run([TOOL, path, TOPO, "auto", "1000000"],
                               capture_output=True, text=True, timeout=120)
            check(r.returncode == 0 and
                  "scheme=%d release=%s\n" % (scheme, release) in r.stderr,
                  "%s: %r" % (release, r.stderr))
            r = schedtop("csv", "--trace", path, "--topology", TOPO, "-n", "1")
            check(r.returncode == 0 and b"names no kernel" not in r.stderr,
                  "%s: %r" % (release, r.stderr))
            r = schedtop("report", "--topology", TOPO, path)
            # The release and the machine (the uname's last word) the
            # file was given above.
            check(r.returncode == 0 and
                  ("by trace-cmd, kernel %s, aarch64\n" % release)
                  in r.stdout.decode(), "report: %r" % r.stdout[:200])


@test
def rt_app_task_as_the_kernel_capped_it():
    """schedtop csv itself (not only the tool): the ramping task's util_avg
    in the last samples is the kernel's last printed value (capacity 446 at
    850 MHz caps it near 446), not 1024."""
    values, _ = kernel_values()
    r = schedtop("csv", "--trace", FIXTURE, "--topology", TOPO, "--pelt-scheme",
                 "4.x", "-i", "10", "-c", "task_r20_5-60")
    check(r.returncode == 0, r.stderr)
    compared = 0
    rows = [(int(row["ts_ns"]), int(row["util_avg"])) for row in parse_csv(r.stdout)]
    for ts, pid, util in values:
        if pid != RAMP or ts < rows[0][0]:
            continue
        i = bisect.bisect_left(rows, (ts, -1))
        # A sample every 10 ms: the kernel's value moves by at most ~4% of
        # 1024 between two, at 446 of capacity.
        if i < len(rows) and rows[i][0] - ts < 1000000:
            check(abs(rows[i][1] - util) <= 0.05 * 1024,
                  "at %d: schedtop %d, kernel %d" % (ts, rows[i][1], util))
            compared += 1
    check(compared >= 5, "only %d samples within 1 ms of a kernel value" % compared)


if __name__ == "__main__":
    run()
