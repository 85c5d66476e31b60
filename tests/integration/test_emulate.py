"""schedtop emulate: big.LITTLE made on this symmetric machine.

The truth for how much of cpu0 a CFS task gets is the kernel's own account
of it, /proc/PID/schedstat; for what the scheduler thinks cpu0 can give CFS,
rq->cpu_capacity (capacity_cfs, read by BPF). Neither is schedtop's
arithmetic: the stealer only burns time, the kernel does the rest.
"""
import os
import signal
import statistics
import subprocess
import time

from harness import (BIN, Inconclusive, check, mono_ns, parse_csv, run,
                     schedstat, schedtop, start_schedtop, test)

SPEC = "LITTLE:0@50%,big:1"


def busy_loop(cpu):
    """A CFS task that wants all of @cpu, pinned there."""
    return subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c",
                             "while :; do :; done"])


def share(tid, seconds):
    """Fraction of the wall time @tid ran over the next @seconds."""
    r0, t0 = schedstat(tid)[0], mono_ns()
    time.sleep(seconds)
    return (schedstat(tid)[0] - r0) / (mono_ns() - t0)


def stealer_tids(pid):
    """Threads of process @pid named emul-steal/N, by CPU."""
    found = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except FileNotFoundError:
        return found
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm.startswith("emul-steal/"):
            found[int(comm.split("/")[1])] = int(tid)
    return found


def wait_stealers(proc, n, timeout=5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = stealer_tids(proc.pid)
        if len(found) == n:
            return found
        if proc.poll() is not None:
            raise AssertionError("emulate exited %d: %s" % (
                proc.returncode, proc.stderr.read().decode(errors="replace")))
        time.sleep(0.02)
    raise AssertionError("no stealer thread after %d s" % timeout)


def whole_cpu(loop, what):
    """The loop must have the CPU to itself before we can measure halving."""
    got = share(loop.pid, 2)
    if got < 0.9:
        raise Inconclusive("%s: the pinned loop had only %.1f%% of cpu0 "
                           "without emulation (another load)" % (what, 100 * got))
    return got


@test
def bad_specs_say_one_line():
    cases = ["", "LITTLE", "LITTLE:0@50", "LITTLE:0@5%", "LITTLE:0@101%",
             "LITTLE:0@50%,LITTLE:1", "LITTLE:0@50%,big:0", "big:1",
             "LITTLE:0@50%@60%", "LITTLE:x@50%", "LITTLE:0@%"]
    for spec in cases:
        r = schedtop("emulate", spec, "-d", "1")
        err = r.stderr.decode(errors="replace")
        check(r.returncode == 2, "%r: exit %d, want 2 (%s)" %
              (spec, r.returncode, err.strip()))
        check(err.startswith("schedtop: bad emulation spec") and
              err.count("\n") == 1, "%r: not one clear line: %r" % (spec, err))
    for args in (["emulate"], ["emulate", SPEC, "-m", "bogus"],
                 ["emulate", SPEC, "-d", "0"], ["emulate", SPEC, "extra"]):
        r = schedtop(*args)
        check(r.returncode == 2 and r.stderr.startswith(b"schedtop: "),
              "%s: exit %d %r" % (args, r.returncode, r.stderr))


@test(root=True)
def stealer_halves_cpu0_for_cfs():
    loop = busy_loop(0)
    csv = emul = None
    try:
        time.sleep(0.5)
        whole_cpu(loop, "before")
        csv = start_schedtop("csv", "-t", "cpu", "-i", "250", "-d", "11")
        time.sleep(1)
        emul = start_schedtop("emulate", SPEC, "-d", "9")
        steal = wait_stealers(emul, 1)[0]
        # PELT's rt average needs ~100 ms to rise; the balancer then updates
        # rq->cpu_capacity: measure from 2 s in, for 5 s.
        time.sleep(2)
        t0 = mono_ns()
        l0, s0 = schedstat(loop.pid)[0], schedstat(steal)[0]
        time.sleep(5)
        wall = mono_ns() - t0
        got = (schedstat(loop.pid)[0] - l0) / wall
        stolen = (schedstat(steal)[0] - s0) / wall
        t1 = mono_ns()
        out, err = emul.communicate(timeout=15)
        check(emul.returncode == 0, "emulate exit %d: %s" %
              (emul.returncode, err.decode(errors="replace")))
        emul = None
        # The loop and the stealer are all that runs on cpu0; a third load
        # taking over 5% of it makes the loop's share undecidable.
        other = 1 - got - stolen
        if not 0.42 <= got <= 0.58 and other > 0.05:
            raise Inconclusive("another load took %.1f%% of cpu0" % (100 * other))
        check(0.42 <= got <= 0.58, "the pinned CFS loop got %.1f%% of cpu0 "
              "under LITTLE at 50%% (stealer %.1f%%), want 50 +- 8" %
              (100 * got, 100 * stolen))

        rows = parse_csv(csv.communicate(timeout=30)[0])
        csv = None
        cap = {0: [], 1: []}
        for row in rows:
            if t0 <= int(row["ts_ns"]) <= t1 and row["capacity_cfs"]:
                cap[int(row["cpu"])].append(int(row["capacity_cfs"]))
        check(len(cap[0]) >= 10, "only %d capacity_cfs samples of cpu0" % len(cap[0]))
        c0, c1 = statistics.median(cap[0]), statistics.median(cap[1])
        # scale_rt_capacity(): 1024 less rq->avg_rt (about half here).
        check(400 <= c0 <= 640, "capacity_cfs of cpu0 %d under LITTLE at 50%%, "
              "want about 512 (%s)" % (c0, cap[0]))
        check(c1 >= 900, "capacity_cfs of cpu1 %d, want about 1024" % c1)

        # Given back: the whole CPU again.
        after = share(loop.pid, 2)
        print("# loop %.1f%%, stealer %.1f%% of cpu0; capacity_cfs median "
              "cpu0 %d cpu1 %d; loop after %.1f%%" %
              (100 * got, 100 * stolen, c0, c1, 100 * after))
        check(after >= 0.9, "after emulate ended the loop got %.1f%% of cpu0"
              % (100 * after))
    finally:
        for p in (emul, csv):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        loop.kill()
        loop.wait()


@test(root=True)
def sigkill_gives_the_cpu_back():
    loop = busy_loop(0)
    emul = None
    try:
        time.sleep(0.5)
        whole_cpu(loop, "before")
        emul = start_schedtop("emulate", SPEC)
        wait_stealers(emul, 1)
        time.sleep(0.5)
        during = share(loop.pid, 2)
        check(during <= 0.6, "the loop got %.1f%% of cpu0 during emulation"
              % (100 * during))
        emul.kill()
        emul.wait()
        check(not os.path.exists("/proc/%d" % emul.pid) or
              not stealer_tids(emul.pid), "a stealer outlived SIGKILL")
        emul = None
        after = share(loop.pid, 2)
        print("# loop %.1f%% of cpu0 during, %.1f%% after SIGKILL" %
              (100 * during, 100 * after))
        check(after >= 0.9, "after SIGKILL of emulate the loop got %.1f%% of "
              "cpu0" % (100 * after))
    finally:
        if emul and emul.poll() is None:
            emul.kill()
            emul.wait()
        loop.kill()
        loop.wait()


run()
