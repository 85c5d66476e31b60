"""Shared pieces of schedtop's integration tests.

Each test file registers functions with @test and calls run(); results are
printed as TAP lines ("ok N name", "not ok N name", "# SKIP") that tests/run
counts. Only the Python standard library is used.
"""
import atexit
import contextlib
import csv
import io
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

SRC = os.environ.get("SCHEDTOP_SRCDIR",
                     os.path.dirname(os.path.dirname(os.path.dirname(
                         os.path.abspath(__file__)))))
# The build under test (make OUT=dir check: dir), and its schedtop.
OUT = os.environ.get("SCHEDTOP_OUT", os.path.join(SRC, "build"))
BIN = os.environ.get("SCHEDTOP_BIN", os.path.join(OUT, "schedtop"))


def make_in_out(target):
    """Build OUT/target with the project's Makefile; CompletedProcess."""
    return subprocess.run(["make", "-s", "-C", SRC, "OUT=" + OUT,
                           os.path.join(OUT, target)], capture_output=True)

_tests = []


class Skip(Exception):
    pass


class Inconclusive(Skip):
    """The test measured the machine and found it could not decide.

    Raise it only with the measurement that says so (steal, a competing
    load): it is reported as "# SKIP inconclusive: <reason>", counted as
    skipped and listed by name in tests/run's summary. Any other failure
    fails; nothing is run again.
    """

    def __str__(self):
        return "inconclusive: " + super().__str__()


def guest_kernel_crash(console):
    """If a guest's @console (the end vm_boot printed) shows its kernel
    oopsed, or panicked, in code of no BPF program's (no bpf frame in the
    call trace, not schedtop's own thread): one line saying where, for an
    Inconclusive; else None. A crash with a bpf frame, or in schedtop,
    is schedtop's to answer for and fails as it is."""
    lines = console.splitlines()
    start = next((i for i, l in enumerate(lines) if re.search(
        r"Internal error: Oops|Unable to handle kernel|Kernel panic|"
        r"BUG: kernel NULL pointer", l)), None)
    if start is None:
        return None
    crash = lines[start:]
    if any(re.search(r"\bbpf|Comm: schedtop", l) for l in crash):
        return None
    pc = next((l.split("]", 1)[-1].strip() for l in crash
               if re.search(r"\] pc : |RIP: ", l)), "")
    comm = next((re.sub(r".*Comm: (\S+).*", r"\1", l) for l in crash
                 if "Comm: " in l), "?")
    return "%s (%s, task %s)" % (lines[start].split("]", 1)[-1].strip(),
                                 pc or "no pc", comm)


def test(fn=None, *, root=False):
    """Register a test; root=True skips it when not run as root."""
    def wrap(f):
        _tests.append((f, root))
        return f
    return wrap(fn) if fn else wrap


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


class Terminated(BaseException):
    """SIGTERM or SIGHUP (a CI job cancelled, a terminal closed): raised
    in the test under way so that its finally clauses run; not an
    Exception, so that no test's except clause takes it."""


def _terminated(signum, frame):
    # Once: a second signal must not cut short the clean-up the first
    # started.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    raise Terminated(signal.Signals(signum).name)


def cpulist(text):
    """The CPUs of a kernel CPU list ("0-3,6") in order."""
    out = []
    for part in text.strip().split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def online_cpus():
    with open("/sys/devices/system/cpu/online") as f:
        return cpulist(f.read())


TRACING = "/sys/kernel/tracing"


class TraceInstance:
    """A tracefs instance of the test's own, test-<tag>-PID (the harness
    removes any left when the file ends), stamped with the "mono" clock:
    CLOCK_MONOTONIC, schedtop's. @events ("group/name" or a group) are
    enabled, each after its filter in @filters if any; with @cpus, on
    those CPUs only."""

    def __init__(self, tag, events, filters=None, buffer_kb=None, cpus=None):
        if not os.path.isdir(TRACING + "/instances"):
            raise Skip("no tracefs at %s" % TRACING)
        self.dir = "%s/instances/test-%s-%d" % (TRACING, tag, os.getpid())
        self.enabled = []
        os.mkdir(self.dir)
        try:
            self.write("trace_clock", "mono")
            if buffer_kb:
                self.write("buffer_size_kb", str(buffer_kb))
            if cpus is not None:
                # Before any event: only these CPUs' events are kept.
                self.write("tracing_cpumask", "%x" % sum(1 << c for c in cpus))
            for ev in events:
                if filters and ev in filters:
                    self.write("events/%s/filter" % ev, filters[ev])
                self.write("events/%s/enable" % ev, "1")
                self.enabled.append(ev)
        except OSError:
            self.close()
            raise

    def write(self, name, value):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(value)

    def lines(self):
        """The trace so far, as the kernel prints it."""
        with open(os.path.join(self.dir, "trace")) as f:
            return f.read().splitlines()

    def close(self):
        for ev in self.enabled:
            try:
                self.write("events/%s/enable" % ev, "0")
            except OSError:
                pass
        os.rmdir(self.dir)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _restore_machine(online):
    """What a test that ended without its own clean-up (killed, or a bug)
    leaves: CPUs offline that were online when the file started, and this
    process's tracefs instances (*-PID). Each is put back and named."""
    for cpu in sorted(online - set(online_cpus())):
        try:
            with open("/sys/devices/system/cpu/cpu%d/online" % cpu, "w") as f:
                f.write("1")
            print("# the harness brought cpu%d back online" % cpu)
        except OSError as e:
            print("# cpu%d left offline: %s" % (cpu, e))
    inst = TRACING + "/instances"
    for name in (os.listdir(inst) if os.path.isdir(inst) else []):
        if name.endswith("-%d" % os.getpid()):
            try:
                os.rmdir(os.path.join(inst, name))
                print("# the harness removed tracefs instance %s" % name)
            except OSError as e:
                print("# tracefs instance %s left: %s" % (name, e))


def run():
    print("1..%d" % len(_tests))
    failed = 0
    online = set(online_cpus())
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _terminated)
    try:
        failed = _run_tests()
    except Terminated as e:
        print("# terminated by %s" % e)
        failed = 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        sys.stdout.flush()
        if os.geteuid() == 0:
            _restore_machine(online)
        sys.stdout.flush()
    sys.exit(1 if failed else 0)


def _run_tests():
    failed = 0
    # SCHEDTOP_TESTS=word,word: only the tests whose name holds a word (the
    # others skip), to repeat one test without its file's others; =name
    # is that name alone (kernel_6_1 also holds in kernel_6_12).
    only = [w for w in os.environ.get("SCHEDTOP_TESTS", "").split(",") if w]
    for i, (fn, root) in enumerate(_tests, 1):
        name = fn.__name__
        try:
            if only and not any(name == w[1:] if w.startswith("=")
                                else w in name for w in only):
                raise Skip("not in SCHEDTOP_TESTS")
            if root and os.geteuid() != 0:
                raise Skip("needs root")
            fn()
            print("ok %d %s" % (i, name))
        except Skip as e:
            print("ok %d %s # SKIP %s" % (i, name, e))
        except Terminated as e:
            print("not ok %d %s: terminated by %s" % (i, name, e))
            raise
        except Exception as e:  # report and go on with the next test
            failed += 1
            print("not ok %d %s: %s" % (i, name, e))
            for line in traceback.format_exc().splitlines():
                print("# " + line)
        sys.stdout.flush()
    return failed


def mono_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def schedtop(*args, **kw):
    """Run schedtop to completion; returns CompletedProcess (bytes)."""
    kw.setdefault("timeout", 120)
    return subprocess.run([BIN, *args], capture_output=True, **kw)


def start_schedtop(*args, **kw):
    return subprocess.Popen([BIN, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kw)


def first_sample(proc, timeout=60):
    """Wait until schedtop csv PROC has written its header and a row: its
    session is open and it has taken its first sample (it writes each
    sample's rows as it takes it). What must come after that waits for it;
    a fixed sleep assumed a start-up time (BPF load, /proc seeded, a cold
    page cache in a fresh clone) instead. Returns what was read, which goes
    before communicate()'s output."""
    fd = proc.stdout.fileno()
    got = b""
    deadline = time.monotonic() + timeout
    while got.count(b"\n") < 2:
        left = deadline - time.monotonic()
        check(left > 0, "no sample from schedtop in %d s" % timeout)
        if select.select([fd], [], [], left)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                proc.wait()
                raise AssertionError("schedtop ended (exit %d) before its "
                                     "first sample: %s" % (proc.returncode,
                                                           proc.stderr.read()))
            got += chunk
    return got


def parse_csv(data):
    """Rows of a CSV as dicts; checks the RFC 4180 line ending."""
    text = data.decode() if isinstance(data, bytes) else data
    if text:
        check(text.endswith("\r\n"), "CSV does not end with CRLF")
    return list(csv.DictReader(io.StringIO(text, newline="")))


@contextlib.contextmanager
def sysfs_copy(tree, prefix):
    """A writable copy of the sysfs tree @tree (a fixture), removed after."""
    root = tempfile.mkdtemp(prefix=prefix)
    try:
        shutil.copytree(tree, root, dirs_exist_ok=True)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def schedtop_while_writing(write, period_s, *args):
    """schedtop ARGS to completion while write(k) moves files as a kernel
    counter would: write(0) before it starts, then write(1), write(2), ...
    every period_s until it ends (never after)."""
    stop = threading.Event()

    def writer():
        k = 0
        while not stop.wait(period_s):
            k += 1
            write(k)

    write(0)
    th = threading.Thread(target=writer)
    th.start()
    try:
        return schedtop(*args)
    finally:
        stop.set()
        th.join()


def schedstat(tid):
    """(run_ns, wait_ns, timeslices) from /proc/<tid>/schedstat."""
    with open("/proc/%d/schedstat" % tid) as f:
        run_ns, wait_ns, slices = f.read().split()
    return int(run_ns), int(wait_ns), int(slices)


def unlisted_processes():
    """{tgid: comm} of processes in /proc that schedtop's task walk (the
    kernel's BPF task iterator) does not list. On a usual machine none.
    On this VM the hypervisor agent (pid 1, process_api, about 20 threads)
    is left out by the iterator itself (a bare iter/task program gives the
    same). Its threads still run on every CPU and their util is in the
    root cfs_rq. The tracepoints miss part of what they do (a switch out of
    one, and its PELT updates then, were not traced); /proc/<tid>/sched
    still shows their PELT state."""
    p = schedtop("csv", "-t", "task", "-n", "1", "-i", "100")
    check(p.returncode == 0, "csv -t task: %s" %
          p.stderr.decode(errors="replace"))
    listed = {int(r["tgid"]) for r in parse_csv(p.stdout)}
    with open("/proc/uptime") as f:
        up = float(f.read().split()[0])
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) in listed:
            continue
        try:
            with open("/proc/%s/comm" % d) as f:
                comm = f.read().strip()
            # Started after the walk: not left out, only new.
            with open("/proc/%s/stat" % d) as f:
                start = int(f.read().rsplit(")", 1)[1].split()[19])
        except OSError:
            continue
        if start / os.sysconf("SC_CLK_TCK") < up - 5:
            out[int(d)] = comm
    return out


def proc_sched(tid):
    """se.avg.* and se.nr_migrations of /proc/<tid>/sched as ints: the
    kernel's PELT state of a task as of its last update."""
    vals = {}
    with open("/proc/%d/sched" % tid) as f:
        for line in f:
            m = re.match(r"(se\.(?:avg\.\w+|nr_migrations))\s+:\s+(\d+)$",
                         line)
            if m:
                vals[m.group(1)] = int(m.group(2))
    return vals


def task_clock_skip_ns(cpu):
    """What the scheduler's task clock (and PELT's) may skip on this CPU
    (/proc/stat, in ns): time stolen by the hypervisor and, on kernels
    with IRQ_TIME_ACCOUNTING, in interrupts. Each of the three counters
    is kept in USER_HZ ticks: a difference of readings is short by up
    to three of them."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu%d " % cpu):
                v = line.split()
                return (int(v[6]) + int(v[7]) + int(v[8])) * 1e9 / \
                    os.sysconf("SC_CLK_TCK")
    raise AssertionError("cpu%d not in /proc/stat" % cpu)


def rq_clock_skips_ns():
    """{cpu: ns} the scheduler's task clock has skipped on each CPU so far,
    from its own debug dump: rq.clock less rq.clock_task, as of the CPU's
    last clock update. That is time stolen by the hypervisor (and, with
    IRQ_TIME_ACCOUNTING, in interrupts), to the ns where /proc/stat gives
    10 ms ticks: a stall of a few ms shows."""
    path = "/sys/kernel/debug/sched/debug"
    if not os.path.exists(path):
        path = "/proc/sched_debug"
    out, cpu, clock = {}, None, None
    with open(path) as f:
        for line in f:
            m = re.match(r"cpu#(\d+)", line)
            if m:
                cpu, clock = int(m.group(1)), None
                continue
            m = re.match(r"\s+\.(clock|clock_task)\s+:\s+(\d+)\.(\d+)", line)
            if m and cpu is not None:
                ns = int(m.group(2)) * 1000000 + int(m.group(3).ljust(6, "0"))
                if m.group(1) == "clock":
                    clock = ns
                elif clock is not None:
                    out[cpu] = clock - ns
    return out


def _proc_stat_ns(cpu, fields):
    """The sum of @fields (indices: user 0, nice 1, system 2, idle 3,
    iowait 4, irq 5, softirq 6, steal 7) of this CPU's /proc/stat line, in
    ns."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu%d " % cpu):
                v = [int(x) for x in line.split()[1:]]
                return sum(v[i] for i in fields) * 1e9 / os.sysconf("SC_CLK_TCK")
    raise AssertionError("cpu%d not in /proc/stat" % cpu)


def cpu_busy_ns(cpu):
    """Time this online CPU ran anything, neither idle nor stolen by the
    hypervisor, as a running count in ns: only its differences mean
    anything (CLOCK_MONOTONIC less /proc/stat's idle, iowait and steal).
    Not /proc/stat's busy fields (user, nice, system, irq, softirq): they
    count ticks (TICK_CPU_ACCOUNTING, HZ 250), so a task whose period is a
    multiple of the tick is charged where the tick lands (test_tracefs's
    tf50, 16 ms: 0.69 of the time busy by ticks, 0.51 by idle time)."""
    return mono_ns() - _proc_stat_ns(cpu, (3, 4, 7))


def cpu_idle_ns(cpu):
    """Time this CPU was idle (/proc/stat idle and iowait), in ns. With
    NO_HZ (as here and on Debian's kernels) the kernel measures it at each
    idle entry and exit (get_cpu_idle_time_us()), not by ticks: a task
    whose period is a multiple of the tick does not bias it."""
    return _proc_stat_ns(cpu, (3, 4))


def steal_ns(cpu):
    """Time the hypervisor took from this CPU (/proc/stat), in ns.

    The scheduler's task clock, and PELT's clock with it, skip stolen time, so
    a duty cycle comparable to util_avg is run time over wall time less steal.
    """
    return _proc_stat_ns(cpu, (7,))


class RtApp:
    """An rt-app workload: dict of tasks, started in the background.

    Calibration is fixed (its start-up calibration is slow and unreliable in
    a VM) and tasks use 'runtime' events so that each period burns a known
    amount of CPU time.
    """

    def __init__(self, tasks, duration):
        self.dir = tempfile.mkdtemp(prefix="schedtop-rtapp-")
        # Tests read rt-app's logs after stop(): the directory goes when
        # the test file's process ends (a thousand were left in /tmp).
        atexit.register(shutil.rmtree, self.dir, True)
        conf = {
            "global": {"duration": duration, "calibration": 23,
                       "default_policy": "SCHED_OTHER",
                       "logdir": self.dir, "log_basename": "rt"},
            "tasks": tasks,
        }
        self.path = os.path.join(self.dir, "rt.json")
        with open(self.path, "w") as f:
            json.dump(conf, f)
        self.names = list(tasks)
        self.log = os.path.join(self.dir, "rt-app.out")
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(["rt-app", self.path],
                                         stdout=log, stderr=log)
        self.tids = self._find_threads()

    def _find_threads(self, timeout=10):
        deadline = time.monotonic() + timeout
        found = {}
        while time.monotonic() < deadline:
            for tid in os.listdir("/proc/%d/task" % self.proc.pid):
                try:
                    with open("/proc/%d/task/%s/comm" %
                              (self.proc.pid, tid)) as f:
                        comm = f.read().strip()
                except OSError:
                    continue
                if comm in self.names:
                    found[comm] = int(tid)
            if len(found) == len(self.names):
                return found
            time.sleep(0.02)
        self.stop()
        with open(self.log, errors="replace") as f:
            out = f.read()[-300:]
        with open("/sys/devices/system/cpu/online") as f:
            online = f.read().strip()
        raise AssertionError("rt-app threads %s did not start (rt-app exit "
                             "%s, CPUs online %s): %r" %
                             (self.names, self.proc.returncode, online, out))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def wait(self):
        self.proc.wait(60)


def periodic(cpu, duty, period_us=16000, name=None):
    """An rt-app task definition: duty of period_us, pinned to cpu."""
    return {"cpus": [cpu], "loop": -1,
            "runtime": int(period_us * duty),
            "timer": {"ref": "t_%s" % (name or cpu), "period": period_us}}


def pelt_tolerance():
    """LISA's criterion: within 5% of 1024."""
    return 0.05 * 1024


def bpf_progs_loaded(names, settle=0):
    """Which of the given BPF program names are loaded in the kernel.

    With settle, waits up to that many seconds for them to go: the kernel
    frees a program after an RCU grace period, not at the close().
    """
    deadline = time.monotonic() + settle
    while True:
        out = subprocess.run(["bpftool", "prog", "show", "--json"],
                             capture_output=True, text=True, check=True).stdout
        loaded = {p.get("name") for p in json.loads(out)}
        found = sorted(n for n in names if n in loaded)
        if not found or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


def bpf_progs_of(pid):
    """{id: name} of the BPF programs process PID holds (its fds' fdinfo
    name them by prog_id: program and link fds alike)."""
    ids = set()
    d = "/proc/%d/fdinfo" % pid
    for fd in os.listdir(d):
        try:
            with open(os.path.join(d, fd)) as f:
                for line in f:
                    if line.startswith("prog_id:"):
                        ids.add(int(line.split()[1]))
        except OSError:
            continue
    out = subprocess.run(["bpftool", "prog", "show", "--json"],
                         capture_output=True, text=True, check=True).stdout
    return {p["id"]: p.get("name") for p in json.loads(out) if p["id"] in ids}


def bpf_progs_alive(ids, settle=0):
    """Which of the BPF program ids are still loaded, waiting up to settle
    seconds for them to go (the kernel frees a program after an RCU grace
    period). By id, so that another schedtop running on the machine (other
    tests, other users) cannot make it fail."""
    deadline = time.monotonic() + settle
    while True:
        out = subprocess.run(["bpftool", "prog", "show", "--json"],
                             capture_output=True, text=True, check=True).stdout
        alive = sorted(p["id"] for p in json.loads(out) if p["id"] in ids)
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.05)


# What this machine has: tests assert what follows from it, on this VM
# (no cpufreq, no energy model, cpuidle haltpoll, capacities all 1024) and
# on a phone or board alike.
SYS_CPU = "/sys/devices/system/cpu"


def read_sys(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def cpu_capacity(cpu, root="/sys"):
    """The CPU's original capacity: cpu_capacity, 1024 where the kernel
    keeps none (as arch_scale_cpu_capacity() defaults)."""
    v = read_sys(os.path.join(root, "devices/system/cpu/cpu%d/cpu_capacity"
                              % cpu))
    return int(v) if v else 1024


def cpufreq_policy(cpu, root="/sys"):
    """(name, dir) of the cpufreq policy holding cpu, or None without
    cpufreq for it."""
    base = os.path.join(root, "devices/system/cpu/cpufreq")
    try:
        names = sorted(n for n in os.listdir(base) if n.startswith("policy"))
    except OSError:
        return None
    for n in names:
        cpus = read_sys(os.path.join(base, n, "related_cpus"), "")
        if str(cpu) in cpus.split():
            return n, os.path.join(base, n)
    return None


def cpuidle_states(cpu):
    """Number of cpuidle states the CPU keeps residency for (stateK/time)."""
    n = 0
    while os.path.exists(os.path.join(SYS_CPU, "cpu%d/cpuidle/state%d/time"
                                      % (cpu, n))):
        n += 1
    return n


def eas_active():
    """Why EAS runs here (asymmetric capacities, an energy model, not
    switched off), or None with what is missing, as (bool, reason)."""
    online = [c for c in range(os.cpu_count() or 1)
              if read_sys(os.path.join(SYS_CPU, "cpu%d/online" % c), "1") == "1"]
    caps = {cpu_capacity(c) for c in online}
    em = "/sys/kernel/debug/energy_model"
    has_em = os.path.isdir(em) and bool(os.listdir(em))
    knob = read_sys("/proc/sys/kernel/sched_energy_aware")
    if len(caps) < 2:
        return False, "capacities all %s" % caps.pop()
    if not has_em:
        return False, "no energy model in %s" % em
    if knob == "0":
        return False, "kernel.sched_energy_aware is 0"
    return True, "capacities %s and an energy model" % sorted(caps)


def busy_pinned(cpu):
    """A CFS busy loop pinned to cpu: kill() and wait() it."""
    return subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c",
                             "while :; do :; done"])


# trace-cmd report prints a timestamp as seconds ("[003] 259445.759309:"),
# or, in a run of make check where it did not take the file's clock for
# one in ns (the Juno excerpt's TRACECLOCK option is empty), as the raw
# count glued to the CPU ("[003]259445759309040:"). Both are ns here.
_RAW_TS = __import__("re").compile(r"\[(\d+)\](\d+):")


def trace_cmd_report(*args, timeout=120):
    """trace-cmd report ARGS, its timestamps always as seconds.fraction."""
    r = subprocess.run(["trace-cmd", "report"] + list(args),
                       capture_output=True, text=True, timeout=timeout)
    r.stdout = _RAW_TS.sub(lambda m: "[%s] %d.%09d:" % (
        m.group(1), int(m.group(2)) // 10**9, int(m.group(2)) % 10**9),
        r.stdout)
    return r
