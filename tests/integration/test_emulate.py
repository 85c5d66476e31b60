"""schedtop emulate: big.LITTLE made on this symmetric machine.

The truth for how much of cpu0 a CFS task gets is the kernel's own account
of it, /proc/PID/schedstat; for what the scheduler thinks cpu0 can give CFS,
rq->cpu_capacity (capacity_cfs, read by BPF). Neither is schedtop's
arithmetic: the stealer only burns time, the kernel does the rest.
"""
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time

from harness import (SRC, Inconclusive, Skip, check, cpu_capacity,
                     cpufreq_policy, mono_ns, parse_csv, run, schedstat,
                     schedtop, start_schedtop, test)

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


def cpu0_busy_ns():
    """Time the kernel accounted to anything on cpu0 (/proc/stat user,
    nice, system, irq, softirq, steal), ns."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu0 "):
                v = [int(x) for x in line.split()[1:]]
                return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * 1e9 / \
                    os.sysconf("SC_CLK_TCK")
    raise AssertionError("cpu0 not in /proc/stat")


def check_given_back(loop, what):
    """The pinned loop has cpu0 back, 90% of it over 2 s, unless other
    tasks measurably ran there over 5% of that time meanwhile (cpu0's
    /proc/stat, to its 10 ms ticks: 0.5% of 2 s at each end): then the
    loop's share cannot decide. Returns (loop's share, others')."""
    b0, t0, r0 = cpu0_busy_ns(), mono_ns(), schedstat(loop.pid)[0]
    time.sleep(2)
    r1, t1, b1 = schedstat(loop.pid)[0], mono_ns(), cpu0_busy_ns()
    after = (r1 - r0) / (t1 - t0)
    others = (b1 - b0) / (t1 - t0) - after
    if after < 0.9 and others > 0.05:
        raise Inconclusive("%s the loop got %.1f%% of cpu0 and other tasks "
                           "%.1f%%, with no stealer left" %
                           (what, 100 * after, 100 * others))
    check(after >= 0.9, "%s the loop got %.1f%% of cpu0 (other tasks "
          "%.1f%%)" % (what, 100 * after, 100 * others))
    return after, others


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
                 ["emulate", SPEC, "-d", "0"], ["emulate", SPEC, "extra"],
                 ["csv", "--emulate", SPEC, "--topology", "a:0"],
                 ["csv", "--emulate", "LITTLE:0@5%", "-n", "1"],
                 ["record", "-o", "/dev/null", "--emulate", "big:1"],
                 ["--emulate", SPEC, "--topology", "a:0"]):
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
        emul = start_schedtop("emulate", SPEC, "-m", "stealer", "-d", "9")
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
        # cpu1 is not slowed: what CFS has of it is its own capacity (1024
        # on this VM) less its own rt/irq pressure, a few percent.
        cap1 = cpu_capacity(1)
        check(c1 >= 0.88 * cap1, "capacity_cfs of cpu1 %d, want about its "
              "capacity %d" % (c1, cap1))

        print("# loop %.1f%%, stealer %.1f%% of cpu0; capacity_cfs median "
              "cpu0 %d cpu1 %d" % (100 * got, 100 * stolen, c0, c1))
        # Given back: the whole CPU again.
        after, others = check_given_back(loop, "after emulate ended")
        print("# loop after %.1f%% (others %.1f%%)" %
              (100 * after, 100 * others))
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
        emul = start_schedtop("emulate", SPEC, "-m", "stealer")
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
        # The stealers are gone (above).
        after, others = check_given_back(loop, "after SIGKILL of emulate")
        print("# loop %.1f%% of cpu0 during, %.1f%% after SIGKILL (others "
              "%.1f%%)" % (100 * during, 100 * after, 100 * others))
    finally:
        if emul and emul.poll() is None:
            emul.kill()
            emul.wait()
        loop.kill()
        loop.wait()


@test(root=True)
def csv_and_record_carry_the_emulation():
    d = tempfile.mkdtemp(prefix="schedtop-emul-")
    try:
        out, rec = os.path.join(d, "cpu.csv"), os.path.join(d, "run.rec")
        r = schedtop("csv", "-t", "cpu", "--emulate", SPEC, "-i", "200", "-n",
                     "5", "-o", out, "--record", rec)
        err = r.stderr.decode(errors="replace")
        check(r.returncode == 0, "csv --emulate: exit %d %s" % (r.returncode, err))
        # auto: cpufreq where every CPU has it, else the stealer (this VM).
        cpus = range(os.cpu_count() or 1)
        method = "cpufreq" if all(cpufreq_policy(c) for c in cpus) else "stealer"
        check("emulating %s by %s" % (SPEC, method) in err,
              "method %s not said: %r" % (method, err))
        with open(out, "rb") as f:
            rows = parse_csv(f.read())
        # The spec is the topology: capacity 50% of 1024, and 1024.
        seen = {(r["cpu"], r["cluster"], r["capacity"]) for r in rows}
        check(seen == {("0", "LITTLE", "512"), ("1", "big", "1024")},
              "cpu rows %s" % sorted(seen))
        r = schedtop("report", rec)
        check(r.returncode == 0 and
              ("emulated   %s by %s" % (SPEC, method)).encode() in r.stdout,
              "report: %r" % r.stdout[:400])
    finally:
        shutil.rmtree(d, ignore_errors=True)


STATE = "/run/schedtop/emulate-cpufreq.state"
# The phone-4+4 fixture with the limits cpufreq would have: LITTLE 0-3 up to
# 1766400 kHz, big 4-7 up to 2803200 kHz (cpuinfo_*_freq of the fixture).
AVAILABLE = {"policy0": "300000 576000 748800 1017600 1324800 1766400",
             "policy4": "825600 1209600 1708800 2208000 2803200"}
ORIGINAL = {("policy0", "scaling_min_freq"): 300000,
            ("policy0", "scaling_max_freq"): 1766400,
            ("policy4", "scaling_min_freq"): 825600,
            ("policy4", "scaling_max_freq"): 2803200}
# 40% of 1766400 is 706560 kHz: the highest available at or below is 576000;
# big is held at its top, 2803200.
EMULATED = {("policy0", "scaling_min_freq"): 300000,
            ("policy0", "scaling_max_freq"): 576000,
            ("policy4", "scaling_min_freq"): 2803200,
            ("policy4", "scaling_max_freq"): 2803200}
CPUFREQ_SPEC = "LITTLE:0-3@40%,big:4-7"


def cpufreq_fixture():
    root = tempfile.mkdtemp(prefix="schedtop-emul-sysfs-")
    shutil.copytree(os.path.join(SRC, "tests", "fixtures", "sysfs", "phone-4+4"),
                    root, dirs_exist_ok=True)
    for pol, freqs in AVAILABLE.items():
        d = os.path.join(root, "devices/system/cpu/cpufreq", pol)
        with open(os.path.join(d, "scaling_available_frequencies"), "w") as f:
            f.write(freqs + "\n")
    for (pol, name), v in ORIGINAL.items():
        with open(os.path.join(root, "devices/system/cpu/cpufreq", pol, name), "w") as f:
            f.write("%d\n" % v)
    return root


def limits(root):
    got = {}
    for pol, name in ORIGINAL:
        with open(os.path.join(root, "devices/system/cpu/cpufreq", pol, name)) as f:
            got[(pol, name)] = int(f.read())
    return got


def wait_limits(root, want, proc, timeout=5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if limits(root) == want:
            return
        if proc and proc.poll() is not None:
            raise AssertionError("emulate exited %d: %s" % (
                proc.returncode, proc.stderr.read().decode(errors="replace")))
        time.sleep(0.02)
    raise AssertionError("limits %s, want %s" % (limits(root), want))


@test(root=True)
def cpufreq_caps_and_restores_on_a_fixture():
    if os.path.exists(STATE):
        raise Skip("%s exists: another emulation is running or was killed" % STATE)
    root = cpufreq_fixture()
    emul = None
    try:
        # Ended by a signal: back to exactly what was there.
        emul = start_schedtop("emulate", CPUFREQ_SPEC, "--sysfs-root", root)
        wait_limits(root, EMULATED, emul)
        with open(STATE) as f:
            check(f.readline() == "pid %d\n" % emul.pid, "state file owner")
        # A second emulation while this one runs: one clear line, no change.
        r = schedtop("emulate", CPUFREQ_SPEC, "--sysfs-root", root, "-d", "1")
        check(r.returncode == 1 and r.stderr.count(b"\n") == 1 and
              b"another schedtop is emulating" in r.stderr,
              "second emulation: exit %d %r" % (r.returncode, r.stderr))
        check(limits(root) == EMULATED, "the second emulation changed limits")
        emul.send_signal(signal.SIGTERM)
        err = emul.communicate(timeout=10)[1].decode(errors="replace")
        check(emul.returncode == 0, "exit %d: %s" % (emul.returncode, err))
        check("by cpufreq" in err, "method not said: %r" % err)
        check(limits(root) == ORIGINAL, "after SIGTERM: %s" % limits(root))
        check(not os.path.exists(STATE), "state file left after a clean end")

        # -d: the same at the end of the time.
        r = schedtop("emulate", CPUFREQ_SPEC, "--sysfs-root", root, "-d", "0.5")
        check(r.returncode == 0, r.stderr)
        check(limits(root) == ORIGINAL, "after -d: %s" % limits(root))

        # SIGKILL: the state file says what to put back, --restore does.
        emul = start_schedtop("emulate", CPUFREQ_SPEC, "--sysfs-root", root)
        wait_limits(root, EMULATED, emul)
        emul.kill()
        emul.wait()
        check(limits(root) == EMULATED, "SIGKILL cannot have restored")
        check(os.path.exists(STATE), "no state file after SIGKILL")
        r = schedtop("emulate", "--restore")
        check(r.returncode == 0 and b"restored 4 cpufreq limits" in r.stderr,
              "--restore: exit %d %r" % (r.returncode, r.stderr))
        check(limits(root) == ORIGINAL, "after --restore: %s" % limits(root))
        check(not os.path.exists(STATE), "state file left after --restore")

        # SIGKILL again: the next emulation restores first, then emulates.
        emul = start_schedtop("emulate", CPUFREQ_SPEC, "--sysfs-root", root)
        wait_limits(root, EMULATED, emul)
        emul.kill()
        emul.wait()
        emul = None
        r = schedtop("emulate", CPUFREQ_SPEC, "--sysfs-root", root, "-d", "0.5")
        check(r.returncode == 0 and b"restored 4 cpufreq limits" in r.stderr,
              "next start: exit %d %r" % (r.returncode, r.stderr))
        check(limits(root) == ORIGINAL, "after the next start: %s" % limits(root))

        # A percentage the policy cannot reach: one line, nothing changed.
        r = schedtop("emulate", "LITTLE:0-3@10%,big:4-7", "--sysfs-root", root,
                     "-d", "0.5")
        check(r.returncode == 1 and r.stderr.count(b"\n") == 1 and
              b"cpuinfo_min_freq" in r.stderr, "10%%: %r" % r.stderr)
        check(limits(root) == ORIGINAL and not os.path.exists(STATE),
              "a refused emulation left changes")
    finally:
        if emul and emul.poll() is None:
            emul.kill()
            emul.wait()
        if os.path.exists(STATE):
            schedtop("emulate", "--restore")
        shutil.rmtree(root, ignore_errors=True)


def policy_fifo(tid):
    """Whether thread @tid runs SCHED_FIFO, by /proc/TID/stat's policy."""
    with open("/proc/%d/stat" % tid) as f:
        # Field 41, policy; the fields after the comm start at 3.
        return f.read().rsplit(")", 1)[1].split()[41 - 3] == "1"


def emulation_column(path, table):
    """The emulation values of a CSV file's rows, with the row count."""
    with open(path, "rb") as f:
        rows = parse_csv(f.read())
    check(rows and "emulation" in rows[0], "%s: no emulation column" % table)
    return {r["emulation"] for r in rows}


@test(root=True)
def csv_emulation_column_names_the_method():
    """The method is what the machine shows while the CSV is written: SCHED_FIFO
    emul-steal threads in schedtop's process (stealer), or the fixture's
    cpufreq limits changed (cpufreq); live, and again from the recording."""
    if os.path.exists(STATE):
        raise Skip("%s exists: another emulation is running or was killed" % STATE)
    d = tempfile.mkdtemp(prefix="schedtop-emul-col-")
    root = cpufreq_fixture()
    procs = []
    try:
        plain = os.path.join(d, "plain.csv")
        r = schedtop("csv", "-t", "cpu", "-i", "100", "-n", "2", "-o", plain)
        check(r.returncode == 0, r.stderr)
        check(emulation_column(plain, "cpu") == {""}, "not emulated, not empty")

        out, rec = os.path.join(d, "cpu.csv"), os.path.join(d, "run.rec")
        p = start_schedtop("csv", "-t", "cpu", "--emulate", SPEC, "-i", "200",
                           "-n", "8", "-o", out, "--record", rec)
        procs.append(p)
        steal = wait_stealers(p, 1)
        check(policy_fifo(steal[0]), "emul-steal/0 is not SCHED_FIFO")
        err = p.communicate(timeout=30)[1]
        check(p.returncode == 0, "csv --emulate: exit %d %r" % (p.returncode, err))
        check(emulation_column(out, "cpu") == {"stealer"}, "live cpu rows: %s"
              % emulation_column(out, "cpu"))
        for table in ("cpu", "cluster"):
            got = os.path.join(d, "from-%s.csv" % table)
            r = schedtop("csv", "--from", rec, "-t", table, "-o", got)
            check(r.returncode == 0, r.stderr)
            check(emulation_column(got, table) == {"stealer"},
                  "csv --from -t %s: %s" % (table, emulation_column(got, table)))

        out = os.path.join(d, "cluster.csv")
        p = start_schedtop("csv", "-t", "cluster", "--emulate", CPUFREQ_SPEC,
                           "--sysfs-root", root, "-i", "200", "-n", "5",
                           "-o", out)
        procs.append(p)
        wait_limits(root, EMULATED, p)
        err = p.communicate(timeout=30)[1]
        check(p.returncode == 0, "cpufreq: exit %d %r" % (p.returncode, err))
        check(limits(root) == ORIGINAL, "limits not restored")
        check(emulation_column(out, "cluster") == {"cpufreq"},
              "cpufreq cluster rows: %s" % emulation_column(out, "cluster"))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        if os.path.exists(STATE):
            schedtop("emulate", "--restore")
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(d, ignore_errors=True)


run()
