"""schedtop workload FILE against the real rt-app, on the field's own files.

Debian's rt-app 1.0 (through workgen, as Debian's files need) runs a use
case from /usr/share/doc/rt-app/examples/ on this machine, then schedtop
runs the same file unchanged, both on CPU 1 (taskset, --cpus; mp3's
AudioTick names CPU 0 itself, in both), each for the same 10 s (less a
part of a period: a whole number of its timer's cycles) from its use
case's first pass (rt-app twice, schedtop twice: RUN_TWICE), with
CPU 1 kept busy by a loop in a SCHED_IDLE cgroup (Spinner: no thread
wakes a halted vCPU, which costs the woken thread 25-35 us here).
Per thread, the kernel's account
(/proc/PID/task/TID/schedstat read every 20 ms during the run) gives each
one's run time and the times it ran, and each one's log (rt-app's own;
schedtop's --rt-app-log, in rt-app's format) its activations: the passes
that began in the window.

Each program calibrates its own loops, and rt-app's is rough: its pLoad is
a whole number of ns per loop (10 or 11 for a loop of ~10.7 ns), measured
on whatever CPU 0 is doing then. Run time is compared in each program's
own unit: one thread's (the most work per pass) CPU time per us its file
asked, which also takes out this VM's CPUs running faster or slower as the
host's other work comes and goes. Threads whose passes the file leaves to
chance (a resume lost when its thread is not back in its suspend yet) are
shown and not compared: RACES says which and why.

Also: every file of Debian's examples directory runs or is refused with
its one line, as docs/workloads.md lists them; the built-in browse runs in
rt-app as it is (it is an rt-app file); mp3-short meets quiet and report
scores its recording alike, and misses beside a SCHED_FIFO hog; bad input
gets one line before anything runs; a deadline policy the kernel refuses
stops the run before any pass.
"""
import bisect
import gzip
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import time

from harness import (BIN, SRC, TRACING, Inconclusive, Skip, TraceInstance, check,
                     cpu_idle_ns, mono_ns, run, schedtop, test)

EXAMPLES = "/usr/share/doc/rt-app/examples"
WINDOW_NS = 10_000_000_000
# Both on one CPU: the same preemptions, no migration. mp3's AudioTick
# names CPU 0 itself, in both.
CPUS = "1"
TOPO = "LITTLE:0@1024,big:1@1024"
CALIB = tempfile.NamedTemporaryFile(prefix="schedtop-calib-", delete=False).name
os.unlink(CALIB)
# A thread whose run time is within 3% of rt-app's: one whose file asks
# this much run of it in the window. The others are woken and go back to
# sleep, their CPU time the syscalls' and the wakeups' of each program
# (not compared to 3%).
MIN_RUN_NS = 50_000_000
# Other work on CPUS beyond this (5% of the window) makes a difference
# inconclusive, naming it: this machine's other tests and builds preempt
# either program's threads and cool their caches (with 5.3 s of other work
# on CPU 1 rt-app's NPDecoder did 95 passes of its 99 in 10 s here).
MAX_OTHER_NS = 500_000_000


def need_rtapp():
    if not shutil.which("rt-app") or not shutil.which("workgen"):
        raise Skip("rt-app not installed (Debian's rt-app package)")
    if not os.path.isdir(EXAMPLES):
        raise Skip("no %s" % EXAMPLES)


def tasks_of(path):
    """The task names of an rt-app file, in order (json-c keeps it), with
    their instances: rt-app's thread index order."""
    with open(path) as f:
        text = f.read()
    # Debian's files are not JSON (bare "suspend", repeated keys): the
    # task names are the keys one level inside "tasks".
    out, depth, in_tasks = [], 0, False
    for m in re.finditer(r'"([^"]*)"\s*:\s*\{|\{|\}', text):
        tok = m.group(0)
        if tok.endswith("{"):
            if in_tasks and depth == 2 and m.group(1) is not None:
                out.append(m.group(1))
            if m.group(1) == "tasks" and depth == 1:
                in_tasks = True
            depth += 1
        else:
            depth -= 1
            if in_tasks and depth == 1:
                in_tasks = False
    return out


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def comm_of(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return None


def tids_of(pid):
    try:
        return sorted(int(t) for t in os.listdir("/proc/%d/task" % pid) if int(t) != pid)
    except OSError:
        return []


def run_ns(pid, tid):
    """(run ns, times run on a CPU) of a thread, its schedstat."""
    try:
        with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
            v = f.read().split()
            return int(v[0]), int(v[2])
    except OSError:
        return None


def watch(pid_of, nthreads, proc, spin):
    """Waits until the process pid_of() has @nthreads threads besides its
    main one, then reads each one's schedstat every 20 ms for a window and
    a little more (the use case may begin after its threads exist:
    schedtop's 20 ms after). Returns [(t_ns, {tid: (run ns, times run)},
    CPUS's busy ns less the spinner's run)]."""
    deadline = time.monotonic() + 60
    pid = tids = None
    while time.monotonic() < deadline and proc.poll() is None:
        pid = pid_of()
        tids = tids_of(pid) if pid else []
        if len(tids) >= nthreads:
            break
        time.sleep(0.005)
    check(pid and len(tids) >= nthreads, "only %s threads of %d appeared (exit %s)"
          % (len(tids or []), nthreads, proc.poll()))
    reads = []
    end = mono_ns() + WINDOW_NS + 300_000_000
    while mono_ns() < end:
        t = mono_ns()
        reads.append((t, {tid: run_ns(pid, tid) for tid in tids},
                      mono_ns() - cpu_idle_ns(int(CPUS)) - spin.run_ns()))
        time.sleep(0.02)
    return reads


def idle_cgroup():
    """A new cpu cgroup whose entity is SCHED_IDLE (cpu.idle, 5.15+), and
    the file its tasks go in; None without one (cgroup v1's cpu controller
    or v2's)."""
    name = "schedtop-test-spin-%d" % os.getpid()
    v1 = "/sys/fs/cgroup/cpu"
    if os.path.exists(os.path.join(v1, "cpu.idle")):
        path, procs = os.path.join(v1, name), "cgroup.procs"
    else:
        try:
            with open("/sys/fs/cgroup/cgroup.controllers") as f:
                if "cpu" not in f.read().split():
                    return None, None
            with open("/sys/fs/cgroup/cgroup.subtree_control", "w") as f:
                f.write("+cpu")
        except OSError:
            return None, None
        path, procs = os.path.join("/sys/fs/cgroup", name), "cgroup.procs"
    try:
        os.mkdir(path)
        with open(os.path.join(path, "cpu.idle"), "w") as f:
            f.write("1")
    except OSError:
        try:
            os.rmdir(path)
        except OSError:
            pass
        return None, None
    return path, os.path.join(path, procs)


class Spinner:
    """CPU 1 kept busy at the lowest priority while a program runs, so that
    neither program's threads wake a halted vCPU. This machine is a PVM
    guest (HLT is a hypercall): a thread woken on an idle CPU is charged
    ~25 us more of CPU time per wakeup than one woken on a busy CPU (run
    100 us every 5 ms, CPU time beyond the run per activation: rt-app 29,
    schedtop 47 us with CPU 1 idle between; 17 and 18 us with it kept
    busy), and how often CPU 1 goes idle depends on which of the file's
    racing chains are alive (rt-app's own second run of video, its
    NuPlayerDriver chain dead after 98 of 300 passes: hwc_eventmon 54 us
    beyond its runs per pass against 21 us in its first, 1.246 of it in
    rt-app's own unit). The loop is in a cgroup of its own whose entity is
    SCHED_IDLE (cpu.idle): every wakeup of any other group preempts it,
    and the program's group still sleeps between its threads' runs. (A
    SCHED_IDLE loop inside the program's own autogroup keeps that group
    always runnable: it then shares CPU 1 with another session's build by
    weight, with no credit for its sleeps, and its threads wait behind it:
    hwc_eventmon 0.696 of rt-app's with 3.8 s of others' work on CPU 1.)
    Its run time is not other work. Without cpu.idle, no loop: said."""

    def __init__(self):
        self.cgroup, procs = idle_cgroup()
        self.p = None
        if not self.cgroup:
            print("# no cgroup with cpu.idle: CPU %s goes idle between the threads' runs" % CPUS)
            return
        self.p = subprocess.Popen(["taskset", "-c", CPUS, "sh", "-c", "while :; do :; done"])
        with open(procs, "w") as f:
            f.write(str(self.p.pid))

    def run_ns(self):
        if not self.p:
            return 0
        try:
            with open("/proc/%d/schedstat" % self.p.pid) as f:
                return int(f.read().split()[0])
        except OSError:
            return 0

    def stop(self):
        if self.p:
            self.p.kill()
            self.p.wait()
        if self.cgroup:
            os.rmdir(self.cgroup)


class Log:
    """A thread's rt-app log: its passes (start ns, end ns, c_duration us)."""

    def __init__(self, logdir, basename, task, ind):
        self.passes = []
        with open(os.path.join(logdir, "%s-%s-%d.log" % (basename, task, ind))) as f:
            for line in f:
                if not line.startswith("#"):
                    v = line.split()
                    self.passes.append((int(v[4]) * 1000, int(v[5]) * 1000, int(v[8])))

    def within(self, t0, t1):
        """Passes begun in [t0, t1), and the us of run they asked."""
        p = [x for x in self.passes if t0 <= x[0] < t1]
        return len(p), sum(x[2] for x in p)


# The timer threads of each file and their periods (us). rt-app's timers
# are "relative" by default (rt-app.c, run_event(), rtapp_timer, in 1.0 as
# today): a thread that comes to its timer after the next release starts
# its timer again from then, and the passes the late time held are lost,
# in rt-app and in schedtop alike.
TIMERS = {"mp3": {"AudioTick": 6000}, "video": {"hwc_eventmon": 16667, "waker": 33333}}
# The chains a timer thread drives: it resumes their head once every so
# many of its releases (the last of them, here), and their passes follow
# the resumes that woke the head. A resume is missing when the timer thread lost the release to a
# late wake (mp3: AudioTick woken 98 ms late lost 15 releases, and with
# them 3 resumes of AudioOut and 3 passes of each of its chain), or lost
# when the head is not yet back in its suspend (video: NuPlayerRenderer's
# fourth pass sleeps 27 ms and runs 580 us against the waker's 33.3 ms,
# 5.5 ms to spare). The chain's passes are compared per resume the timer's
# grid holds in the window: (timer, head, releases per resume, chain).
CHAINS = {"video": ("waker", "NuPlayerRenderer", 1,
                    ("NuPlayerRenderer", "NPDecoder", "NPDecoder-CL", "gle.aac.decoder",
                     "OMXCallbackDisp1")),
          "mp3": ("AudioTick", "AudioOut", 5,
                  ("AudioOut", "AudioTrack", "mp3.decoder", "OMXCall"))}
TRACE_LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[\d+\]\s+\S+\s+(\d+)\.(\d+): (\w+): (.*)$")


class Timeline:
    """The kernel's own timeline of a file's timer threads while a program
    runs (a tracefs instance, CLOCK_MONOTONIC): each timer sleep's release
    (hrtimer_start of hrtimer_wakeup from the thread: its softexpires is
    the time the program asked, to the ns), when the kernel woke the
    thread (sched_wakeup) and when it ran (sched_switch)."""

    def __init__(self, name):
        # The kernel keeps 15 bytes of a thread's name.
        comms = [c[:15] for c in TIMERS[name]]
        self.trace = TraceInstance(
            "rtapp-timeline", ["timer/hrtimer_start", "sched/sched_wakeup", "sched/sched_switch"],
            {"timer/hrtimer_start": " || ".join('COMM == "%s"' % c for c in comms),
             # ... and every wakeup a timer thread makes (rt-app 1.0
             # leaves a thread of a longer name unnamed: its resumes'
             # target is known by its tid).
             "sched/sched_wakeup": " || ".join('comm == "%s" || COMM == "%s"' % (c, c)
                                               for c in comms),
             "sched/sched_switch": " || ".join('prev_comm == "%s" || next_comm == "%s"' % (c, c)
                                               for c in comms)},
            buffer_kb=4096)
        self.lines = None

    def stop(self):
        if self.lines is None:
            self.lines = self.trace.lines()
            self.trace.close()

    def woken_by(self, tid, comm):
        """When thread @tid was woken by a task named @comm."""
        out = []
        for line in self.lines:
            m = TRACE_LINE.match(line)
            if m and m.group(5) == "sched_wakeup" and m.group(1).strip() == comm[:15] and \
                    re.search(r" pid=%d " % tid, m.group(6)):
                out.append(int(m.group(3)) * 1_000_000_000 + int(m.group(4)) * 1000)
        return out

    def of(self, tid):
        """(releases asked: [ns], wakeups: [ns], runs: [(on ns, off ns)],
        {on ns: the task that ran before}) of thread @tid."""
        rel, wake, runs, on, after = [], [], [], None, {}
        for line in self.lines:
            m = TRACE_LINE.match(line)
            if not m:
                continue
            pid, ts = int(m.group(2)), int(m.group(3)) * 1_000_000_000 + int(m.group(4)) * 1000
            ev, body = m.group(5), m.group(6)
            if ev == "hrtimer_start" and pid == tid and "function=hrtimer_wakeup " in body:
                soft = int(re.search(r"softexpires=(\d+)", body).group(1))
                # A CLOCK_MONOTONIC release, near the stamp; not a futex's
                # CLOCK_REALTIME timeout (schedtop's mutexes poll its stop).
                if abs(soft - ts) < 60_000_000_000:
                    rel.append(soft)
            elif ev == "sched_wakeup" and re.search(r" pid=%d " % tid, body):
                wake.append(ts)
            elif ev == "sched_switch":
                if re.search(r" next_pid=%d " % tid, body):
                    on = ts
                    after[ts] = re.search(r"prev_comm=(.*) prev_pid=", body).group(1)
                elif re.search(r" prev_pid=%d " % tid, body) and on is not None:
                    runs.append((on, ts))
                    on = None
        return rel, wake, runs, after


TICK_EVENT = "irq_vectors/local_timer_entry"


class Slices:
    """Every switch on CPUS while a program runs (a tracefs instance of
    that CPU alone): each thread's times on it, so that each pass's CPU
    time is the kernel's too, not only the window's sum (schedstat); and
    the timer interrupts there (x86's local_timer_entry), each charged to
    the thread it comes in."""

    def __init__(self):
        events = ["sched/sched_switch"]
        if os.path.isdir(os.path.join(TRACING, "events", TICK_EVENT)):
            events.append(TICK_EVENT)
        self.trace = TraceInstance("rtapp-slices", events, buffer_kb=8192, cpus=[int(CPUS)])
        self.on = None
        self.ticks = []

    def stop(self):
        if self.on is not None:
            return
        lines = self.trace.lines()
        self.trace.close()
        self.on, cur = {}, None
        for line in lines:
            m = TRACE_LINE.match(line)
            if not m:
                continue
            ts = int(m.group(3)) * 1_000_000_000 + int(m.group(4)) * 1000
            if m.group(5) == "local_timer_entry":
                self.ticks.append(ts)
                continue
            pids = re.search(r" prev_pid=(\d+) .* next_pid=(\d+) ", m.group(6))
            if m.group(5) != "sched_switch" or not pids:
                continue
            prev, nxt = int(pids.group(1)), int(pids.group(2))
            if cur and cur[0] == prev:
                self.on.setdefault(prev, []).append((cur[1], ts))
            cur = (nxt, ts)

    def per_pass(self, tid, passes):
        """[(CPU ns, timer interrupts)] of thread @tid on CPUS in each of
        @passes [(start ns, end ns, ...)]; None where it never ran there."""
        runs = self.on.get(tid)
        if not runs:
            return None
        ends = [b for _, b in runs]
        out = []
        for p in passes:
            ns, ticks, i = 0, 0, bisect.bisect_right(ends, p[0])
            while i < len(runs) and runs[i][0] < p[1]:
                on, off = max(runs[i][0], p[0]), min(runs[i][1], p[1])
                ns += off - on
                ticks += bisect.bisect_left(self.ticks, off) - bisect.bisect_left(self.ticks, on)
                i += 1
            out.append((ns, ticks))
        return out


def late_timers(timeline, name, tasks, tids, stats, t0, t1):
    """Per timer thread: the passes lost to releases come to late, as the
    kernel saw them. After a release at D the thread sleeps next until
    D + period; when it came to its next timer at A >= D + period, that
    pass went without a sleep and its timer started again from A: the next
    sleep is until A + period. Such a gap G between two asked releases
    cost (G - 2 period) / period passes against the timer's grid. The loss
    is the machine's when the kernel shows the thread off its CPU for the
    time (its wake late, or queued, or preempted): on its CPU between D and
    A no more than its run asked per pass and 1 ms. {task: (passes lost
    to such late wakes, [what each was])}; a gap the kernel does not
    explain so is not accounted and stays a difference."""
    out = {}
    for task, period_us in TIMERS[name].items():
        i = tasks.index(task)
        period = period_us * 1000
        rel, wake, runs, after = timeline.of(tids[i])
        lost, said = 0.0, []
        for d, nxt in zip(rel, rel[1:]):
            if not t0 <= d < t1 or nxt - d == period:
                continue
            arrive = nxt - period
            w = next((x for x in wake if x >= d - 1000), None)
            on_cpu = sum(max(0, min(b, arrive) - max(a, d)) for a, b in runs)
            r = next((a for a, _ in runs if w is not None and a >= w), None)
            what = ("release at +%.3f s: came to its next timer %.1f ms after it (woken "
                    "%s ms after it, ran at %s, %.2f ms on CPU)"
                    % ((d - t0) / 1e9, (arrive - d) / 1e6,
                       "%.2f" % ((w - d) / 1e6) if w is not None else "?",
                       "+%.2f ms after %s" % ((r - d) / 1e6, after[r]) if r is not None else "?",
                       on_cpu / 1e6))
            per_pass = stats[i]["asked_us"] * 1000 // max(1, stats[i]["passes"])
            if nxt - d >= 2 * period and on_cpu <= per_pass + 1_000_000:
                lost += (nxt - d - 2 * period) / period
                said.append(what)
            else:
                said.append(what + ", not the machine's")
        out[task] = (lost, said)
    return out


def resumes(timeline, name, tasks, tids, t0, t1, late):
    """(the resumes of CHAINS' timer thread in the window: its releases
    asked there and those late wakes cost it (@late), over its releases a
    resume; those the kernel saw wake the chain's head: its wakeups by the
    timer thread after such a release, one a release at most)."""
    if name not in CHAINS:
        return None
    timer, head, per, _ = CHAINS[name]
    rel = [d for d in timeline.of(tids[tasks.index(timer)])[0] if t0 <= d < t1]
    woke = timeline.woken_by(tids[tasks.index(head)], timer)
    made = [(d, nxt) for d, nxt in zip(rel, rel[1:] + [t1])]
    # A late release's pass went without a sleep: one more each.
    period = TIMERS[name][timer] * 1000
    passes = len(rel) + sum(1 for d, nxt in zip(rel, rel[1:]) if nxt - d != period)
    return ((passes + late[timer][0]) / per,
            sum(1 for d, nxt in made if any(d <= w < nxt for w in woke)))


def pass_cpu(cpu):
    """(median CPU ns of the passes no timer interrupt came in, of those
    one came in, and how many those were) of a thread's passes."""
    clean = [ns for ns, t in cpu if not t]
    ticked = [ns for ns, t in cpu if t]
    return (statistics.median(clean) if clean else 0,
            statistics.median(ticked) if ticked else 0, len(ticked))


def chain_window(timeline, name, tasks, tids, start):
    """The window from @start on, laid on the grid of CHAINS' timer: it
    opens at the first release whose resume woke the chain's head and
    holds a whole number of the head's resumes (video: 300 of the waker's
    33.333 ms releases, 9.9999 s; mp3: 333 of AudioTick's 30 ms, 9.99 s).
    A window opened anywhere cuts each of a thread's pass streams at its
    own point: NuPlayerRenderer makes 4 passes a 100 ms cycle (three
    resumes and a sleep), each stream 100 or 101 in 10 s as the edges
    fall. Opened at the use case's first pass, schedtop's runs here gave
    395 to 401 in the 18 of 25 with under 0.5 s of other work (401 with
    299 of 300 resumes seen waking it: 402.3 scaled), and one CI run 402
    against rt-app's 398 and 399 (not reproduced). On the grid every pass of the chain starts after the
    release that set it off, so each stream is cut at the same point of
    its cycle in every run: 400 in 5 runs of 5, mp3's AudioOut 333 in 4
    of 4. (t0, t1)."""
    timer, head, per, _ = CHAINS[name]
    rel = timeline.of(tids[tasks.index(timer)])[0]
    woke = timeline.woken_by(tids[tasks.index(head)], timer)
    span = WINDOW_NS // (per * TIMERS[name][timer] * 1000) * per * TIMERS[name][timer] * 1000
    for d, nxt in zip(rel, rel[1:]):
        if d >= start and any(d <= w < nxt for w in woke):
            return d, d + span
    check(False, "%s: no release of %s after the use case's first pass woke %s"
          % (name, timer, head))


def in_window(reads, logs, tids, slices, timeline, name, tasks):
    """The window: from the use case's first pass (its logs), or from the
    first read if that came later (rt-app 1.0 starts each thread as it
    makes it: video's first passes run before its 16th thread exists),
    on its chain's grid (chain_window()); each thread's run time and
    times run in it (the reads around its ends), and its passes and
    asked us; and the other work CPUS ran meanwhile (its busy time less
    the threads' run time)."""
    t0, t1 = chain_window(timeline, name, tasks, tids,
                          max(min(l.passes[0][0] for l in logs if l.passes), reads[0][0]))
    r0 = [r for r in reads if r[0] <= t0]
    r1 = [r for r in reads if r[0] >= t1]
    check(r0 and r1, "no read around the window")
    (_, r0, busy0), (_, r1, busy1) = r0[-1], r1[0]
    out = []
    for log, tid in zip(logs, tids):
        n, asked = log.within(t0, t1)
        cpu = slices.per_pass(tid, [p for p in log.passes if t0 <= p[0] < t1])
        # Ran on CPUS in the window (mp3's AudioTick did not).
        cpu = cpu if cpu and any(ns for ns, _ in cpu) else None
        clean, ticked, n_ticked = pass_cpu(cpu) if cpu else (0, 0, 0)
        out.append({"run": r1[tid][0] - r0[tid][0], "slices": r1[tid][1] - r0[tid][1],
                    "passes": n, "asked_us": asked, "on_cpus": cpu is not None,
                    "clean_ns": clean, "ticked_ns": ticked, "ticked": n_ticked})
    # Other work: CPUS's busy time less that of the threads that ran there
    # (mp3's AudioTick runs on CPU 0).
    return out, busy1 - busy0 - sum(x["run"] for x in out if x["on_cpus"]), t0, t1


# rt-app turns the top-level tracing_on off at its end when a use case has
# "ftrace": true (Debian's files it runs here have false; a file changed
# later may not): put back as it was after every rt-app run.
TRACING_ON = "/sys/kernel/tracing/tracing_on"


def tracing_on():
    try:
        with open(TRACING_ON) as f:
            return f.read().strip()
    except OSError:
        return None


def put_back_tracing_on(was):
    if was is not None and tracing_on() != was:
        with open(TRACING_ON, "w") as f:
            f.write(was)


def rtapp_run(name, path, tasks, basename, work):
    """rt-app (workgen) on @path for a window: each thread's numbers in it,
    the other work on CPUS and the passes late timers cost."""
    log = open(os.path.join(work, "rt-app.out"), "wb")
    was = tracing_on()
    timeline = Timeline(name)
    slices = Slices()
    spin = Spinner()
    p = subprocess.Popen(["taskset", "-c", CPUS, "workgen", path], cwd=work,
                         stdout=log, stderr=log, start_new_session=True)
    try:
        reads = watch(lambda: next((c for c in children(p.pid) if comm_of(c) == "rt-app"), None),
                      len(tasks), p, spin)
    finally:
        spin.stop()
        timeline.stop()
        slices.stop()
        # workgen ignores the signal; rt-app stops its threads and writes
        # its logs.
        try:
            os.killpg(p.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        p.wait(60)
        log.close()
        put_back_tracing_on(was)
    # rt-app 1.0 makes its threads in index order: their tids in order.
    tids = sorted(reads[0][1])
    logs = [Log(work, basename, t, i) for i, t in enumerate(tasks)]
    stats, other, t0, t1 = in_window(reads, logs, tids, slices, timeline, name, tasks)
    late = late_timers(timeline, name, tasks, tids, stats, t0, t1)
    return stats, other, (late, resumes(timeline, name, tasks, tids, t0, t1, late))


def schedtop_run(name, path, tasks, basename, logdir):
    timeline = Timeline(name)
    slices = Slices()
    spin = Spinner()
    # Its own session, as rt-app's: its own autogroup, not the test's.
    p = subprocess.Popen([BIN, "workload", path, "--cpus", CPUS, "--json",
                          "--rt-app-log", logdir, "--calibration", CALIB,
                          "--topology", TOPO, "-d", "120"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        reads = watch(lambda: p.pid, len(tasks), p, spin)
    finally:
        spin.stop()
        timeline.stop()
        slices.stop()
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    check(p.returncode == 0, err)
    tids = [t["tid"] for t in json.loads(out)["threads"]]
    logs = [Log(logdir, basename, t, i) for i, t in enumerate(tasks)]
    stats, other, t0, t1 = in_window(reads, logs, tids, slices, timeline, name, tasks)
    late = late_timers(timeline, name, tasks, tids, stats, t0, t1)
    return stats, other, (late, resumes(timeline, name, tasks, tids, t0, t1, late))


# Threads whose passes the file leaves to chance: a resume is lost when
# its thread is not yet back in its suspend, and the chain it would have
# woken does not run. Two rt-app runs of video here: DispSync 1447 and
# 1489 passes in 10 s, EventThread1 442 and 464, NuPlayerDriver1 23 and
# 51, CodecLooper1 24 and 52. Their counts and run times are shown, not
# compared. The NuPlayerDriver chain can die for good by the file's design,
# in rt-app as in schedtop: its two threads share one condition and mutex
# ("NuPlayerDriver": suspend, resume and the three syncs each), and a sync
# signals whoever waits at that instant; when the other is not yet in its
# wait (NuPlayerDriver1 not back in its suspend within NuPlayerDriver2's
# 2.5 ms sleep, or NuPlayerDriver2 not yet in its first suspend when
# NuPlayerDriver1's first sync comes) the signal is lost and both then wait
# on it. The kernel's trace of one schedtop run that did no pass: at the
# start NuPlayerDriver1 blocked in its first sync at +0.82 ms, and
# NuPlayerDriver2 first ran at +0.92 ms; from then on both woke only for
# schedtop's 50 ms stop polls.
RACES = {
    "video": ("surfaceflinger", "DispSync", "EventThread1", "EventThread2",
              "NuPlayerDriver1", "NuPlayerDriver2", "CodecLooper1", "CodecLooper2",
              "OMXCallbackDisp2", "CodecLooper3"),
    "mp3": (),
}
def cost_model(name, tasks, runs):
    """Each program's CPU time in the kernel's account as k ns a ns of run
    asked plus c ns each time a thread is run, fitted by least squares on
    relative errors over the threads of no race: (k, c). The speed k:
    each program calibrates its loops on its own (rt-app's pLoad is a whole
    number of ns, taken on CPU 0 by the wall clock: it ran video's threads
    at 0.61 ns a ns asked and mp3's at 1.86 in two runs minutes apart), and
    this VM's CPUs run faster or slower as the host's other work comes and
    goes. The fixed part c: a wakeup on this PVM guest costs the woken
    thread 25-35 us (HLT, CR3 loads and TLB flushes are hypercalls), and
    each program's own event loop its own; dividing by k alone scaled it
    with the speed (rt-app's hwc_eventmon 280.6 us a pass = 115 x 2.09 +
    40, schedtop's 147.9 = 115 x 1.03 + 30)."""
    sxx = sxy = syy = sxz = syz = 0.0
    for i, task in enumerate(tasks):
        r = runs[i]
        if task in RACES[name] or not r["run"] or not r["asked_us"]:
            continue
        w = 1.0 / r["run"] ** 2
        x, y, z = r["asked_us"] * 1000, r["slices"], r["run"]
        sxx += w * x * x
        sxy += w * x * y
        syy += w * y * y
        sxz += w * x * z
        syz += w * y * z
    det = sxx * syy - sxy * sxy
    check(det > 0, "%s: no fit of the run times (%d threads)" % (name, len(tasks)))
    return (sxz * syy - syz * sxy) / det, (syz * sxx - sxz * sxy) / det


def per_asked(r, model):
    """A thread's CPU time less the fixed part, in the program's speed, a
    ns of run asked: 1 where its work is what its file asked."""
    k, c = model
    return (r["run"] - c * r["slices"]) / k / (r["asked_us"] * 1000)


def adjusted(name, task, passes, kernel):
    """A thread's passes with what the kernel saw the machine cost it
    counted back in: a timer thread's passes lost to late wakes, and a
    chain's passes scaled to every resume of its timer thread delivered;
    and that scale (a pass more or less at a window's end is that many
    once scaled)."""
    late, res = kernel
    if task in late:
        return passes + late[task][0], 1.0
    if res and task in CHAINS[name][3] and res[1]:
        return passes * res[0] / res[1], res[0] / res[1]
    return passes, 1.0


def alive(name, tasks, who, run):
    """@run(dir) until no thread outside the races made no pass in the
    window, at most 3 times. The files' chains can die at the start by
    their design, in rt-app as in schedtop (RACES): rt-app's own run of mp3
    once made no pass of mp3.decoder and OMXCall in 10 s, its decoder's
    signal on "queue" given before OMXCall waited. A run after 3 such is
    rt-app's (inconclusive) or schedtop's (a failure)."""
    for attempt in range(3):
        d = tempfile.mkdtemp(prefix="schedtop-rtapp-")
        try:
            res = run(d)
        finally:
            shutil.rmtree(d, ignore_errors=True)
        dead = [t for i, t in enumerate(tasks)
                if t not in RACES[name] and not res[0][i]["passes"]]
        if not dead:
            return res
        print("# %s's run %d: %s made no pass (a chain dead at the start)"
              % (who, attempt + 1, ", ".join(dead)))
    if who.startswith("rt-app"):
        raise Inconclusive("rt-app's own runs: %s made no pass, 3 runs of 3"
                           % ", ".join(dead))
    check(False, "schedtop's runs: %s made no pass, 3 runs of 3" % ", ".join(dead))


# RUN_TWICE: rt-app runs the file twice and schedtop twice, and a thread's
# run time misses only when every pair of a schedtop run and an rt-app run
# misses on the same side (rt-app's runs have their phases too: against
# its first run alone both of schedtop's missed video's OMXCallbackDisp1
# at 1.043 and 1.039 in one run of five here, and at 0.960 and 0.969 in
# another).
# What a pass's CPU costs in this guest depends on what lands in it, and
# in a periodic use case that is set for a whole run by the run's phase:
# mp3's cycle of 30 ms is 7.5 jiffies (HZ 250), so the tick comes at the
# same two points of every cycle and hits the same thread's run, or none.
# Traced here (schedtop's runs, the kernel's switches and timer
# interrupts on CPU 1): OMXCall had a timer interrupt in 147 of its 335
# passes, those passes 393 us against 331, its run time 1.015 in one run
# and 0.981 in the next; the handler took 31-36 us in some minutes and
# 5-16 in others. The host's own takes of the vCPU, which the guest does
# not see, do the same: in one run AudioTrack's passes with no interrupt
# took 345 us and OMXCall's 364, both asked 300 us of the same loop. Over
# some 35 schedtop runs of mp3 here its 300 us threads came out 0.934 to
# 1.077 in its own cost model, over 20 of rt-app's 0.961 to 1.049: a miss in one run is
# that run's phase, one in every pair is schedtop's.
def compare_with_rtapp(name):
    """@name-long.json (the -short one's twin, 600 s long), 10 s of each:
    rt-app, schedtop, rt-app again and schedtop again (RUN_TWICE)."""
    need_rtapp()
    path = os.path.join(EXAMPLES, name + "-long.json")
    tasks = tasks_of(path)
    with open(path) as f:
        basename = re.search(r'"log_basename"\s*:\s*"([^"]*)"', f.read()).group(1)
    runs = []
    for who in ("rt-app", "schedtop", "rt-app again", "schedtop again"):
        if who.startswith("rt-app"):
            fn = lambda d: rtapp_run(name, path, tasks, basename, d)
        else:
            fn = lambda d: schedtop_run(name, path, tasks, basename, d)
        stats, other, kernel = alive(name, tasks, who, fn)
        runs.append((who, stats, other, kernel, cost_model(name, tasks, stats)))
    (_, rt, rt_other, rt_k, m_rt), (_, st, st_other, st_k, m_st), \
        (_, rt2, rt2_other, rt2_k, m_rt2), (_, st2, st2_other, st2_k, m_st2) = runs
    rt_other, st_other = max(rt_other, rt2_other), max(st_other, st2_other)
    print("# %s: CPU = k x run asked + c x times run: %s" % (name, ", ".join(
        "%s k %.3f c %.1f us" % (who, m[0], m[1] / 1e3) for who, _, _, _, m in runs)))
    print("# %-18s %9s %9s %9s %6s %6s %7s %7s %7s %7s" % (
        "thread", "asked ms", "rt-app ms", "schedtop", "ratio", "again", "passes", "rt-app",
        "ran on", "rt-app"))
    bad, bad_run, compared, counted = [], [], 0, 0
    sq_ours, sq_self = 0.0, 0.0
    for i, task in enumerate(tasks):
        a, b, b2 = rt[i], st[i], st2[i]
        # CPU time a ns asked, less each program's fixed part and in its
        # speed: the same work asked, the same number.
        if a["asked_us"] and b["asked_us"] and b2["asked_us"] and rt2[i]["asked_us"]:
            ratio = per_asked(b, m_st) / per_asked(a, m_rt)
            ratio2 = per_asked(b2, m_st2) / per_asked(a, m_rt)
            self_ratio = per_asked(rt2[i], m_rt2) / per_asked(a, m_rt)
        else:
            ratio = ratio2 = self_ratio = float("nan")
        race = task in RACES[name]
        print("# %-18s %9.2f %9.2f %9.2f %6.3f %6.3f %7d %7d %7d %7d%s" % (
            task, a["asked_us"] / 1e3, a["run"] / 1e6, b["run"] / 1e6, ratio, ratio2,
            b["passes"], a["passes"], b["slices"], a["slices"],
            "  (a race: not compared)" if race else ""))
        if a["on_cpus"]:
            print("#   a pass's CPU, median without / with a timer interrupt in it (how "
                  "many): %s" % ", ".join(
                      "%s %.0f / %.0f us (%d)" % (who, x[i]["clean_ns"] / 1e3,
                                                 x[i]["ticked_ns"] / 1e3, x[i]["ticked"])
                      for who, x, _, _, _ in runs))
        if race:
            continue
        counted += 1
        # Within one period at each end of what rt-app itself does in its
        # two runs (a timer thread of 25 ms made 402 passes in one 10 s
        # window of rt-app's and 399 in schedtop's: a thread on a grid of
        # its own, not the window's, chain_window()).
        # A timer thread's passes lost to late wakes (the kernel's
        # timeline, late_timers()) counted back in, in each program.
        (n_rt, s_rt), (n_rt2, s_rt2) = (adjusted(name, task, x["passes"], k)
                                        for x, k in ((a, rt_k), (rt2[i], rt2_k)))
        # A chain's passes with every resume delivered lie between its
        # count and its count scaled: a resume the kernel shows waking no
        # head may still have been delivered (it came after the head had
        # entered its wait, before it slept in the futex: the head's wait
        # returns without a sleep, so without a wakeup: schedtop's
        # NuPlayerRenderer made 401 passes, 402.3 scaled by 300 / 299
        # resumes seen waking it, against rt-app's 400 and 399). Within 2
        # passes, in each run's own scale: AudioTrack's 331 passes scaled
        # by 333.3 / 329 resumes came out 335.3, against rt-app's 333.3 + 2.
        # Each of schedtop's runs.
        for x, k in ((b, st_k), (b2, st2_k)):
            n_st, s_st = adjusted(name, task, x["passes"], k)
            tol = 2 * max(s_rt, s_rt2, s_st)
            lo = min(n_rt / s_rt, n_rt2 / s_rt2) - tol
            hi = max(n_rt, n_rt2) + tol
            if n_st < lo or n_st / s_st > hi:
                bad.append("%s: %d passes, rt-app %d and %d%s" % (
                    task, x["passes"], a["passes"], rt2[i]["passes"],
                    " (%.1f, %.1f and %.1f with those lost to late wakes)" % (n_st, n_rt, n_rt2)
                    if (n_st, n_rt, n_rt2) != (x["passes"], a["passes"], rt2[i]["passes"])
                    else ""))
        if a["asked_us"] * 1000 >= MIN_RUN_NS and ratio == ratio:
            compared += 1
            # Each of schedtop's runs against each of rt-app's, in rt-app's
            # first run's unit: the nearest pair (RUN_TWICE).
            ours, theirs = (ratio, ratio2), (1.0, self_ratio)
            near = min((x / y for x in ours for y in theirs), key=lambda r: abs(r - 1))
            sq_ours += (near - 1) ** 2
            sq_self += (self_ratio - 1) ** 2
            print("#   %s: rt-app's second run %.3f of its first" % (task, self_ratio))
            if min(ours) > 1.03 * max(theirs) or max(ours) < 0.97 * min(theirs):
                bad_run.append("%s: ran %.1f and %.1f ms, rt-app %.1f and %.1f ms (%.3f and "
                               "%.3f a ns asked, rt-app's second %.3f, in each one's cost "
                               "model)" % (task, b["run"] / 1e6, b2["run"] / 1e6,
                                           a["run"] / 1e6, rt2[i]["run"] / 1e6, ratio,
                                           ratio2, self_ratio))
    for who, _, _, (late, res), _ in runs:
        for task, (lost, said) in late.items():
            print("# %s's %s: %.1f passes lost to late wakes%s" % (who, task, lost, "".join(
                "\n#   " + x for x in said)))
        if res:
            print("# %s's %s: %.1f resumes of %s in the window, %d woke it"
                  % (who, CHAINS[name][0], res[0], CHAINS[name][1], res[1]))
    print("# other work on CPU %s in the window: %.0f ms beside rt-app, %.0f ms beside "
          "schedtop" % (CPUS, rt_other / 1e6, st_other / 1e6))
    check(compared >= 3 and counted >= 5, "only %d threads compared, %d counted"
          % (compared, counted))
    # The run times' misses weighed against rt-app's own between its two
    # runs (root mean square over the threads compared): a miss within 3
    # times what rt-app does against itself is this machine's spread, not
    # schedtop's; beyond it, it fails. Passes are held to 2 whatever.
    rms_ours = (sq_ours / compared) ** 0.5 if compared else 0.0
    rms_self = (sq_self / compared) ** 0.5 if compared else 0.0
    print("# run time off by %.1f%% (rms, the nearest pair of runs), rt-app against "
          "itself %.1f%%" % (rms_ours * 100, rms_self * 100))
    if bad_run and not bad and rms_ours <= 3 * rms_self:
        raise Inconclusive("rt-app's second run lies %.1f%% (rms) from its first, "
                           "schedtop %.1f%%: %s" % (rms_self * 100, rms_ours * 100,
                                                    "; ".join(bad_run)))
    bad += bad_run
    if bad and max(rt_other, st_other) > MAX_OTHER_NS:
        raise Inconclusive("other work on CPU %s: %.0f ms beside rt-app, %.0f ms beside "
                           "schedtop: %s" % (CPUS, rt_other / 1e6, st_other / 1e6,
                                             "; ".join(bad)))
    check(not bad, "; ".join(bad))


@test(root=True)
def video_short_as_rtapp_runs_it():
    compare_with_rtapp("video")


@test(root=True)
def mp3_short_as_rtapp_runs_it():
    compare_with_rtapp("mp3")


def documented_examples():
    """{path below EXAMPLES: "runs" or the start of its refusal} from the
    table of docs/workloads.md ("Debian's rt-app examples")."""
    out = {}
    with open(os.path.join(SRC, "docs", "workloads.md")) as f:
        for line in f:
            m = re.match(r"\| `([^`]+)` \| (runs|refused: `([^`]*)`)", line)
            if m:
                out[m.group(1)] = "runs" if m.group(2) == "runs" else m.group(3)
    return out


@test(root=True)
def every_debian_example_runs_or_is_refused():
    """Each file of the examples directory: a run of it ends well, or one
    line says why not, as docs/workloads.md says file by file."""
    need_rtapp()
    files = sorted(os.path.relpath(os.path.join(d, f), EXAMPLES)
                   for d, _, fs in os.walk(EXAMPLES) for f in fs)
    doc = documented_examples()
    check(sorted(doc) == files, "docs/workloads.md lists %s, the directory holds %s"
          % (sorted(set(doc) ^ set(files)), len(files)))
    ran = refused = 0
    with tempfile.TemporaryDirectory() as logs:
        for rel in files:
            path = os.path.join(EXAMPLES, rel)
            r = schedtop("workload", path, "-d", "0.3", "-i", "100", "--json",
                         "--calibration", CALIB, "--topology", TOPO,
                         "--rt-app-log", os.path.join(logs, rel.replace("/", "_")))
            err = r.stderr.decode(errors="replace")
            if doc[rel] == "runs":
                check(r.returncode == 0, "%s: exit %d: %s" % (rel, r.returncode, err))
                s = json.loads(r.stdout)
                check(s["threads"] and all(t["tid"] > 0 for t in s["threads"]),
                      "%s: threads %s" % (rel, s["threads"]))
                ran += 1
            else:
                lines = [l for l in err.splitlines() if not l.startswith("schedtop: calibrated")]
                check(r.returncode in (1, 2) and len(lines) == 1 and
                      lines[0].startswith("schedtop: " + path + ":") and doc[rel] in lines[0],
                      "%s: exit %d, want one line with %r: %r" % (rel, r.returncode, doc[rel], err))
                refused += 1
    print("# %d files run, %d refused with one line" % (ran, refused))


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


BAD = [
    ("malformed.json", '{ "tasks": { "a": { "run": 1000 }\n', "2: the file ends inside an object"),
    ("unknown-event.json", '{ "tasks": { "a": {\n "run": 1000, "spin": 5 } } }',
     "2: task 'a': key 'spin': schedtop does not support this key in a task"),
    ("resume-nobody.json", '{ "tasks": { "a": {\n "run": 1000, "resume": "b" } } }',
     "2: task 'a': key 'resume': no task suspends on 'b'"),
    ("loop-0.json", '{ "tasks": { "a": {\n "loop": 0, "run": 1000 } } }',
     "2: task 'a': key 'loop': a loop of 0"),
    ("negative.json", '{ "tasks": { "a": { "run": 1000,\n "sleep": -20 } } }',
     "2: task 'a': key 'sleep': a negative value (-20)"),
    ("tasks-10000.json", '{ "tasks": {\n' +
     ",\n".join('"t%d": { "run": 10 }' % i for i in range(10000)) + "\n} }",
     "1026: task 't1024': more than 1024 threads (10000 tasks)"),
]


@test(root=True)
def bad_input_one_line_before_anything_runs():
    with tempfile.TemporaryDirectory() as d:
        for name, text, want in BAD:
            path = write(d, name, text)
            t0 = time.monotonic()
            r = schedtop("workload", path, "--calibration", CALIB, "--topology", TOPO)
            err = r.stderr.decode()
            check(r.returncode == 1 and err.count("\n") == 1 and
                  err.startswith("schedtop: %s:%s" % (path, want)),
                  "%s: exit %d, stderr %r" % (name, r.returncode, err))
            # Refused before the session: no BPF loaded, no thread made.
            check(time.monotonic() - t0 < 2, "%s took %.1f s to refuse" % (name, time.monotonic() - t0))


@test(root=True)
def deadline_refused_by_the_kernel_stops_before_any_pass():
    """Three threads asking 90% of a CPU each under SCHED_DEADLINE: the
    kernel's admission control (95% of the CPUs' time for RT and DL,
    sched_rt_runtime_us) takes the first two and refuses the third
    (EBUSY). The run stops before any thread began: rt-app's logs hold
    their headers only, and no thread of schedtop's is left."""
    text = """{ "tasks": { "dl": { "instance": 3, "policy": "SCHED_DEADLINE",
        "dl-runtime": 9000, "dl-period": 10000, "loop": -1,
        "run": 100, "timer": { "ref": "unique", "period": 10000 } } },
      "global": { "duration": 2 } }"""
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "dl.json", text)
        logs = os.path.join(d, "logs")
        r = schedtop("workload", path, "--calibration", CALIB, "--topology", TOPO,
                     "--rt-app-log", logs)
        err = r.stderr.decode()
        lines = [l for l in err.splitlines() if not l.startswith("schedtop: calibrated")]
        check(r.returncode == 1 and len(lines) == 1 and
              "task 'dl': the kernel refused SCHED_DEADLINE (runtime 9000, deadline 10000, period 10000 µs)" in lines[0] and
              "Device or resource busy" in lines[0], "exit %d: %r" % (r.returncode, err))
        for f in os.listdir(logs):
            with open(os.path.join(logs, f)) as lf:
                body = [l for l in lf if not l.startswith("#")]
            check(not body, "%s: passes ran before the refusal: %s" % (f, body[:3]))


@test(root=True)
def builtin_browse_is_an_rtapp_file():
    """rt-app runs the built-in browse as it is (workgen, as Debian's
    files): every thread of it does its passes, and rt-app complains of
    no key (it ignores "schedtop"). browse has them all: phases, repeated
    keys, barriers, a timer, a sleep."""
    need_rtapp()
    work = tempfile.mkdtemp(prefix="schedtop-rtapp-")
    try:
        path = os.path.join(work, "browse.json")
        shutil.copy(os.path.join(SRC, "workloads", "browse.json"), path)
        tasks = tasks_of(path)
        log = open(os.path.join(work, "rt-app.out"), "wb")
        was = tracing_on()
        p = subprocess.Popen(["workgen", path], cwd=work, stdout=log, stderr=log,
                             start_new_session=True)
        try:
            window_end = time.monotonic() + 60
            while len(tids_of(next(iter(children(p.pid)), 0) or 0)) < len(tasks):
                check(time.monotonic() < window_end and p.poll() is None,
                      "rt-app's threads did not start")
                time.sleep(0.01)
            time.sleep(1)
        finally:
            os.killpg(p.pid, signal.SIGINT)
            p.wait(60)
            log.close()
            put_back_tracing_on(was)
        with open(os.path.join(work, "rt-app.out"), errors="replace") as f:
            out = f.read()
        check("Unknown" not in out and "Invalid" not in out and "rror" not in out, out[-2000:])
        for i, task in enumerate(tasks):
            n = len(Log(work, "browse", task, i).passes)
            check(n >= 1, "rt-app's %s did no pass in 1 s" % task)
        print("# rt-app ran %s: %s" % (", ".join(tasks), out.count("starting thread")))
    finally:
        shutil.rmtree(work, ignore_errors=True)


EM = os.path.join(SRC, "tests/fixtures/energy/two-cluster.em")


def mp3_short(seconds, *extra):
    """mp3-short.json as Debian ships it, its threads on CPU 1 but AudioTick
    (which names CPU 0 itself); the summary."""
    need_rtapp()
    r = schedtop("workload", os.path.join(EXAMPLES, "mp3-short.json"), "--cpus", "1",
                 "-d", str(seconds), "--json", "--energy-model", EM, "--topology", TOPO,
                 "--calibration", CALIB, *extra)
    check(r.returncode == 0, r.stderr)
    return json.loads(r.stdout)


@test(root=True)
def mp3_short_meets_and_report_scores_it_alike():
    """A quiet run meets (AudioTick alone on CPU 0, woken every 6 ms), and
    its figure of merit is the energy estimate of its own recording:
    report prints the same number, from the samples and activations the
    recording kept."""
    with tempfile.TemporaryDirectory() as d:
        rec = os.path.join(d, "mp3.rec")
        s = mp3_short(4, "--record", rec)
        c = s["constraints"]
        check([k["name"] for k in c] == ["AudioTick deadline"], c)
        # 4 s of 6 ms periods, less the first sample's second.
        check(c[0]["activations"] > 400, c)
        if not s["met"]:
            raise Inconclusive("a quiet mp3 missed: %s" % c)
        check(s["figure_of_merit"] == s["avg_power_mw"] < 1e6, s)
        r = schedtop("report", rec)
        check(r.returncode == 0, r.stderr)
        out = r.stdout.decode()
        check("workload mp3-short: " in out and
              "figure of merit %.1f (= average power, mW)" % s["figure_of_merit"] in out,
              "run %s; report: %s" % (s["figure_of_merit"], out[-600:]))
        # The same judgement, of the activations the recording kept: all
        # but those a thread handed over after the last sample's drain
        # (its end before the sample, its hand-over after), which the run
        # took at its end and no sample carried into the file: at most
        # the one AudioTick had in hand.
        m = re.search(r"AudioTick deadline +[0-9.]+% missed \((\d+) late, (\d+) dropped "
                      r"of (\d+)\)", out)
        check(m, out[-600:])
        late, dropped, acts = (int(x) for x in m.groups())
        print("# run: %d activations, %d late, %d dropped; report: %d, %d, %d"
              % (c[0]["activations"], c[0]["late"], c[0]["dropped"], acts, late, dropped))
        gone = c[0]["activations"] - acts
        check(0 <= gone <= 1 and 0 <= c[0]["late"] + c[0]["dropped"] - late - dropped <= gone and
              late <= c[0]["late"] and dropped <= c[0]["dropped"], out[-600:])


@test(root=True)
def mp3_short_misses_beside_a_fifo_hog():
    """A SCHED_FIFO busy loop on CPU 0, AudioTick's: RT throttling leaves
    the others 5% of it, AudioTick misses its timers and the figure of
    merit is 1e6 per missed constraint plus the power."""
    with open("/proc/sys/kernel/sched_rt_runtime_us") as f:
        if int(f.read()) < 0:
            raise Skip("sched_rt_runtime_us is -1: a SCHED_FIFO hog would take cpu0 for good")
    hog = subprocess.Popen(["taskset", "-c", "0", "chrt", "-f", "50", "sh", "-c",
                            "while :; do :; done"])
    try:
        time.sleep(0.1)
        s = mp3_short(3)
    finally:
        hog.kill()
        hog.wait()
    c = s["constraints"][0]
    # How many it misses depends on where the kernel's 50 ms a second for
    # the others falls among its releases: 0.37, 0.50, 0.73 and 0.79 in
    # four runs here. The claim is that it misses, by far: ten times its
    # limit.
    check(c["name"] == "AudioTick deadline" and c["met"] is False and
          c["miss_ratio"] > 10 * c["limit"], c)
    check(s["met"] is False and s["figure_of_merit"] >= 1e6, s)
    check(abs(s["figure_of_merit"] - (1e6 + s["avg_power_mw"])) < 1e-6, s)


@test
def report_of_an_older_recording():
    """A recording made before the workloads were rt-app files names its
    built-in only: report judges it by the built-in's file, as the run
    did (tests/fuzz/corpus/workload.rec: 1 s of audio)."""
    r = schedtop("report", os.path.join(SRC, "tests", "fuzz", "corpus", "workload.rec"))
    check(r.returncode == 0, r.stderr)
    out = r.stdout.decode()
    check("workload audio: 1.0 s, every constraint met" in out and
          "audio-tick deadline      0.00% missed (0 late, 0 dropped of 246)" in out and
          "figure of merit 39.5 (= average power, mW)" in out, out[-800:])


def uclamp_in_kernel():
    """CONFIG_UCLAMP_TASK, as the kernel's config says (None: no config)."""
    try:
        with gzip.open("/proc/config.gz", "rt") as f:
            return any(l.strip() == "CONFIG_UCLAMP_TASK=y" for l in f)
    except OSError:
        return None


@test(root=True)
def uclamp_without_the_kernels_is_one_line():
    """util_min and util_max go through sched_setattr(); a kernel without
    uclamp refuses them, and the run goes on with one line saying so."""
    have = uclamp_in_kernel()
    if have is None:
        raise Skip("no /proc/config.gz: cannot tell whether this kernel has uclamp")
    text = """{ "tasks": { "clamped": { "instance": 2, "util_min": 512, "util_max": 800,
        "loop": -1, "run": 100, "timer": { "ref": "unique", "period": 10000 } } } }"""
    with tempfile.TemporaryDirectory() as d:
        r = schedtop("workload", write(d, "uclamp.json", text), "-d", "0.5", "-i", "100",
                     "--calibration", CALIB, "--topology", TOPO)
    err = r.stderr.decode()
    lines = [l for l in err.splitlines() if "uclamp" in l]
    check(r.returncode == 0, err)
    if have:
        check(not lines, err)
    else:
        check(lines == ["schedtop: warning: util_min/util_max of 2 threads not applied: "
                        "this kernel has no uclamp (CONFIG_UCLAMP_TASK)"], err)


if __name__ == "__main__":
    try:
        run()
    finally:
        if os.path.exists(CALIB):
            os.unlink(CALIB)
