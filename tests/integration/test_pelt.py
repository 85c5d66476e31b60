"""PELT values read by schedtop against rt-app workloads with known duty cycles.

Ground truth is the kernel's own CPU-time accounting of each rt-app thread
(/proc/<tid>/schedstat) over the same window the utilization is averaged in.
Acceptance follows LISA: mean util_avg within 5% of 1024 of duty * 1024.
Blocked load is held to the kernel's own root cfs_rq at the instants it
refreshed it, less the tasks runnable then (blocked_truth()).
"""
import bisect
import math
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from harness import (Inconclusive, RtApp, check, cpu_busy_ns, mono_ns,
                     parse_csv, pelt_tolerance, periodic, run, schedstat,
                     schedtop, proc_sched, start_schedtop, steal_ns, test,
                     unlisted_processes)
from pelt_truth import KernelPelt

TOPO = "LITTLE:0,big:1@1024"


def stop(proc):
    proc.send_signal(2)
    out, err = proc.communicate(timeout=20)
    check(proc.returncode == 0, "schedtop exited %d: %s" %
          (proc.returncode, err.decode(errors="replace")))
    return out


def task_cpu(tid):
    """The CPU the task last ran on (/proc/<tid>/stat field 39), or None
    once it is gone."""
    try:
        with open("/proc/%d/stat" % tid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[36])
    except (OSError, IndexError, ValueError):
        return None


class Miss(AssertionError):
    """A value check that failed, with what a witness must explain for the
    failure to be the machine's: @units of util on @cpu, lost in the window
    [@t0, @t1] (CLOCK_MONOTONIC ns) because the task did not run; @how the
    way other work there can account for it ("off": it kept the task off
    its CPU, which decays the task's util; "added": it ran there, which
    adds to the CPU's util), None where nothing can."""

    def __init__(self, msg, cpu=None, t0=None, t1=None, units=0, how=None,
                 base=0):
        super().__init__(msg)
        self.cpu, self.t0, self.t1 = cpu, t0, t1
        self.units, self.how, self.base = units, how, base


class CpuShare:
    """What else ran on the CPUs a task used, from the kernel's own
    accounting read every 10 ms: each CPU's busy and steal time
    (/proc/stat), the task's run time (/proc/<tid>/schedstat), its CPU
    (/proc/<tid>/stat) and its PELT state (/proc/<tid>/sched). A value
    check that fails is judged against it (decide()): inconclusive only
    where the other work measured on that CPU in that window can account
    for the whole miss, a failure otherwise."""

    def __init__(self, cpus, tid):
        self.cpus, self.tid = list(cpus), tid
        self.reads = []         # (t, task run, task cpu, {cpu: (busy, steal)}, sched)

    def _read(self):
        try:
            run = schedstat(self.tid)[0]
            sched = proc_sched(self.tid)
        except (OSError, ValueError):
            return None                     # exited: keep the last reading
        return (mono_ns(), run, task_cpu(self.tid),
                {c: (cpu_busy_ns(c), steal_ns(c)) for c in self.cpus}, sched)

    def follow(self, proc, timeout=60):
        """Read until proc (the rt-app run) exits."""
        deadline = time.monotonic() + timeout
        while proc.poll() is None:
            check(time.monotonic() < deadline,
                  "rt-app still running after %d s" % timeout)
            m = self._read()
            if m is not None:
                self.reads.append(m)
            time.sleep(0.01)

    def others(self, cpu, t0, t1):
        """(ns the kernel accounted to other work on @cpu, ns stolen from
        it) between the reads nearest outside [t0, t1]: its busy time less
        the task's own run time while it was there."""
        rs = self.reads
        a = max([i for i, r in enumerate(rs) if r[0] <= t0] or [0])
        b = min([i for i, r in enumerate(rs) if r[0] >= t1] or [len(rs) - 1])
        own = sum(rs[i][1] - rs[i - 1][1] for i in range(a + 1, b + 1)
                  if rs[i][2] == cpu)
        busy = rs[b][3][cpu][0] - rs[a][3][cpu][0]
        stolen = rs[b][3][cpu][1] - rs[a][3][cpu][1]
        return max(0, busy - own), stolen, rs[b][0] - rs[a][0]

    def kernel_util(self, ts):
        """The kernel's se.avg.util_avg of the task in the reads just before
        and just after @ts, with their times: ((t, util), (t, util)). The
        before's time is that of the last read with another
        last_update_time: a task asleep keeps the value of its dequeue,
        which may be older than the read that shows it (the kernel decays
        it only at its next look; schedtop shows it decayed to the sample:
        448 where the read 5 ms before showed 528, frozen since the task
        slept before it)."""
        before = [r for r in self.reads if r[0] <= ts]
        after = [(r[0], r[4].get("se.avg.util_avg")) for r in self.reads
                 if r[0] >= ts]
        if not before:
            return None, (after[0] if after else None)
        last = before[-1][4]
        lut = last.get("se.avg.last_update_time")
        since = next((r[0] for r in reversed(before)
                      if r[4].get("se.avg.last_update_time") != lut), 0)
        return ((since, last.get("se.avg.util_avg")),
                (after[0] if after else None))

    def explains(self, miss):
        """How many units of @miss the other work measured explains, and
        what it was."""
        other, stolen, span = self.others(miss.cpu, miss.t0, miss.t1)
        if miss.how == "added":
            # Others' work of w ns in the window adds the most to the CPU's
            # util when it all comes last: 1024 * (1 - y^(w/P)). (Not
            # 1024 * w / span, the share of the window: PELT weighs the
            # last 32 ms as much as all before, and 100 ms of others' work
            # in 513 ms, 200 units by the share, can read 900.)
            units = 1024 * (1 - Y ** ((other + stolen) / PERIOD_NS))
        else:
            # Kept off its CPU w, the task's util decays by y^(w/P) at most.
            w = other + stolen
            units = miss.base * (1 - Y ** (w / PERIOD_NS))
        return units, ("cpu%d ran %.1f ms of other work and lost %.1f ms to the "
                       "hypervisor in %.0f ms (/proc/stat)"
                       % (miss.cpu, other / 1e6, stolen / 1e6, span / 1e6))

    def decide(self, checks):
        """Run the value checks; a Miss that the other work measured on its
        CPU in its window can account for in full is inconclusive, naming
        both; any other failure stands."""
        try:
            checks()
        except Miss as e:
            if e.how is None:
                raise
            units, why = self.explains(e)
            failed = " ".join(str(e).split())
            if e.units > units:
                raise AssertionError("%s; the machine explains at most %.0f "
                                     "of the %.0f units: %s"
                                     % (failed, units, e.units, why)) from e
            raise Inconclusive("%s, which explains up to %.0f units, the "
                               "%.0f missed: %.200s" % (why, units, e.units,
                                                        failed)) from e


INTERVAL_MS, PERIOD_MS = 50, 16    # schedtop's samples, rt-app's periods


def voluntary_switches(tid):
    """The kernel's count of the thread's voluntary switches (nvcsw)."""
    with open("/proc/%d/status" % tid) as f:
        for line in f:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches for %d" % tid)


def util_round(tasks):
    """Run rt-app tasks {name: (cpu, duty)}; check util, cpu, run_ns, wakeups."""
    # Keep the harness and schedtop off the measured CPUs' critical path.
    os.sched_setaffinity(0, {0})
    rt = RtApp({n: periodic(c, d, name=n) for n, (c, d) in tasks.items()},
               duration=6)
    try:
        tids = ",".join(str(t) for t in rt.tids.values())
        st = start_schedtop("csv", "-t", "task", "-i", str(INTERVAL_MS),
                            "-p", tids, "--topology", TOPO)
        time.sleep(1.5)                     # PELT settles within ~0.3 s
        t1, s1 = mono_ns(), {n: schedstat(t) for n, t in rt.tids.items()}
        v1 = {n: voluntary_switches(t) for n, t in rt.tids.items()}
        st1 = {c: steal_ns(c) for c, _ in tasks.values()}
        time.sleep(3.0)
        t2, s2 = mono_ns(), {n: schedstat(t) for n, t in rt.tids.items()}
        v2 = {n: voluntary_switches(t) for n, t in rt.tids.items()}
        st2 = {c: steal_ns(c) for c, _ in tasks.values()}
        time.sleep(0.1)
        rows = parse_csv(stop(st))
    finally:
        rt.stop()
    for name, (cpu, duty) in tasks.items():
        tid = rt.tids[name]
        mine = [r for r in rows if int(r["pid"]) == tid and
                t1 <= int(r["ts_ns"]) <= t2]
        check(len(mine) >= 40, "%s: only %d samples in window" %
              (name, len(mine)))
        stolen = st2[cpu] - st1[cpu]
        true_duty = (s2[name][0] - s1[name][0]) / (t2 - t1 - stolen)
        if abs(true_duty - duty) >= 0.1:
            # rt-app misses its duty when something else holds its CPU: the
            # task then waits runnable (schedstat's run_delay). Alone on its
            # CPU it waits next to nothing, so a wrong duty is a failure.
            waited = s2[name][1] - s1[name][1]
            if waited > 0.05 * (t2 - t1):
                raise Inconclusive(
                    "%s ran at duty %.3f (asked %.2f) and waited %.0f ms of "
                    "%.0f ms for cpu%d: another load held it" %
                    (name, true_duty, duty, waited / 1e6, (t2 - t1) / 1e6, cpu))
            check(False, "%s: rt-app ran at duty %.3f, asked %.2f (waited %.1f ms)" %
                  (name, true_duty, duty, waited / 1e6))
        mean_util = sum(int(r["util_avg"]) for r in mine) / len(mine)
        err = mean_util - true_duty * 1024
        print("# %s cpu%d duty %.3f (%.0f ms stolen): mean util_avg %.1f, "
              "expected %.1f, error %+.1f (limit %.1f)" %
              (name, cpu, true_duty, stolen / 1e6, mean_util, true_duty * 1024,
               err, pelt_tolerance()))
        check(abs(err) <= pelt_tolerance(),
              "%s: util_avg %.1f vs duty*1024 %.1f" %
              (name, mean_util, true_duty * 1024))
        check(all(int(r["cpu"]) == cpu for r in mine), "%s left cpu%d" % (name, cpu))
        want_cluster = "LITTLE" if cpu == 0 else "big"
        check(all(r["cluster"] == want_cluster for r in mine),
              "%s: cluster not %s" % (name, want_cluster))
        check(all(r["comm"] == name and r["state"] in "RS" for r in mine),
              "%s: comm/state wrong" % name)
        # run_ns is the per-interval delta of the same kernel counter.
        run_sum = sum(int(r["run_ns"]) for r in mine)
        window_run = s2[name][0] - s1[name][0]
        check(abs(run_sum - window_run) <= 0.1 * window_run,
              "%s: sum(run_ns) %d vs schedstat %d" % (name, run_sum, window_run))
        # Without --exact-wakeups a wakeup is a sleep that ended: the
        # kernel's count of voluntary switches, read at t1 and t2, not
        # rt-app's periods: rt-app does not sleep before a period that is
        # already due, and duty 0.85 once had 150 wakeups in 188 periods
        # (make check, issue 11). The rows cover
        # from one interval before the first sample in [t1, t2] to the last:
        # each end may hold the sleeps of one interval more or less.
        wakeups = sum(int(r["wakeups"]) for r in mine)
        sleeps = v2[name] - v1[name]
        edge = 2 * (math.ceil(INTERVAL_MS / PERIOD_MS) + 1)
        check(abs(wakeups - sleeps) <= edge,
              "%s: %d wakeups, the kernel counted %d voluntary switches "
              "(allowed %d apart)" % (name, wakeups, sleeps, edge))
        check(all(int(r["migrations"]) == 0 for r in mine),
              "%s: pinned task migrated" % name)


@test(root=True)
def util_avg_tracks_duty_low():
    util_round({"duty20": (0, 0.20), "duty60": (1, 0.60)})


@test(root=True)
def util_avg_tracks_duty_high():
    util_round({"duty45": (0, 0.45), "duty85": (1, 0.85)})


def sleep_start(trows):
    """ts_ns of the task's last sample with run time before its longest
    stretch of samples without any: it was asleep from then on."""
    best, run_len, last_run = None, 0, None
    for r in trows:
        if int(r["run_ns"]) > 0:
            last_run, run_len = int(r["ts_ns"]), 0
            continue
        run_len += 1
        if last_run is not None and (best is None or run_len > best[0]):
            best = (run_len, last_run)
    return best[1] if best else None


# y, PELT's decay per period (y^32 = 1/2), and the period: 1024 "us" of
# 1024 ns each.
Y = 0.5 ** (1 / 32)
PERIOD_NS = 1024 * 1024
SAMPLE_NS = 10 * 10**6          # blocked_round()'s -i 10


def record_tables(path, *tables):
    """csv --from PATH -t TABLE, for each table: lists of rows."""
    out = []
    for t in tables:
        p = schedtop("csv", "--from", path, "-t", t)
        check(p.returncode == 0, "csv --from -t %s: %s" %
              (t, p.stderr.decode(errors="replace")))
        out.append(parse_csv(p.stdout))
    return out


# Every ~50 ms a process moves to cpu1, runs ~2 ms there and exits: the
# kernel keeps its util in cpu1's root (cfs_rq.removed) until the root's
# next update, which on an idle CPU may come tens of ms later.
EXITER = ("while :; do taskset -c 1 sh -c "
          "'spin() { i=0; while [ $i -lt $1 ]; do i=$((i+1)); done; }; "
          "spin 500 & spin 1000; wait'; sleep 0.045; done")


def recording(path, rec, timeout=20):
    """Waits until schedtop record has written samples to @path: the file
    grows past what its first write (the header) left."""
    deadline = time.monotonic() + timeout
    first = None
    while time.monotonic() < deadline:
        check(rec.poll() is None, "schedtop record exited %s" % rec.returncode)
        size = os.path.getsize(path) if os.path.exists(path) else 0
        if size and first is None:
            first = size
        elif first is not None and size > first:
            return
        time.sleep(0.02)
    raise AssertionError("schedtop record wrote no sample in %d s" % timeout)


def blocked_round(with_runner, with_exiter=False):
    """A task on cpu1 runs at 50% for 1 s and sleeps; with_runner, a second
    task spins on cpu1 all the while; with_exiter, short-lived processes
    come to cpu1 and exit there (EXITER). The tests' own recorder
    (tests/tools/kpelt, not schedtop's BPF) records every PELT update
    of cpu1's root cfs_rq and of the rt-app tasks (the kernel's values at
    the instants it refreshed them) while schedtop samples; the threads its
    task walk does not list are followed in /proc (UnlistedThreads)."""
    os.sched_setaffinity(0, {0})
    tasks = {"blocker": {"cpus": [1], "loop": 1, "phases": {
        "busy": {"loop": 60, "runtime": 8000,
                 "timer": {"ref": "tb", "period": 16000}},
        "rest": {"loop": 1, "sleep": 1000000}}}}
    if with_runner:
        # rt-app's runtime is wall time: beside an equal spinner the
        # blocker ran half of its 8 ms and slept with util ~250, under
        # thrice the tolerance (~46, most of it the spinner's (1 - y) share)
        # after 22 ms, so two samples held the test's power, and a thread
        # of the hypervisor's agent on cpu1 then skipped the first three:
        # "the blocker left at most 120". At nice -10 it runs most of its
        # 8 ms: 9 runs here read 330-365 at +10 ms against a tolerance of
        # ~50, thrice it to +40 ms or more (once with 3 samples skipped).
        tasks["blocker"]["priority"] = -10
        tasks["runner"] = {"cpus": [1], "loop": 1, "phases": {
            "spin": {"loop": 1, "runtime": 2300000}}}
    unlisted = UnlistedThreads(unlisted_processes())
    kernel = KernelPelt(1, list(tasks))
    kernel.start()
    tmp = tempfile.mkdtemp(prefix="schedtop-blocked-")
    path = os.path.join(tmp, "b.rec")
    # The recorder samples before the blocker's second of work begins: a
    # CI host's hypervisor once held it back past that second, and the
    # recording had none of it ("never saw the blocker run, then sleep").
    rec = start_schedtop("record", "-i", "10", "-q", "-o", path,
                         "--topology", TOPO)
    try:
        recording(path, rec)
        rt = RtApp(tasks, duration=5)
    except BaseException:
        rec.kill()
        rec.wait()
        kernel.stop()
        raise
    tids = rt.tids
    exiter = None
    unlisted.start()
    try:
        if with_exiter:
            exiter = subprocess.Popen(["bash", "-c", EXITER],
                                      start_new_session=True)
        rt.wait()
    finally:
        unlisted.stop()
        if exiter:
            os.killpg(exiter.pid, signal.SIGKILL)
            exiter.wait()
        rt.stop()
        pelt = kernel.stop()
    stop(rec)
    cpus, trows = record_tables(path, "cpu", "task")
    return tids, cpus, trows, pelt, tmp, unlisted


class UnlistedThreads:
    """The kernel's PELT state of the threads schedtop's task walk does not
    list (harness.unlisted_processes()), read from /proc every 4 ms.

    Such a thread is in cpu1's root while it sits there and in no row:
    schedtop cannot count it, and the truth must take it out. Seen here:
    pid 1's tokio-rt-worker (nice -10) woke on cpu1 and ran 4 ms there; the
    root then held 45 more than every listed entity, decaying as the
    blocker did: beyond the tolerance at 3 of 9 samples. The tracepoints
    miss it too: neither its switch out nor its PELT updates after the
    first were traced. /proc/<tid>/sched gives its util_avg and
    last_update_time, /proc/<tid>/stat its CPU."""

    PERIOD_S = 0.004

    def __init__(self, tgids):
        self.tgids = dict(tgids)
        self.rounds = []        # (start_ns, end_ns, {tid: state})
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    @staticmethod
    def read(tid):
        """(cpu, util_avg, last_update_time, nr_migrations, comm) or None."""
        cpu = task_cpu(tid)
        try:
            v = proc_sched(tid)
            with open("/proc/%d/comm" % tid) as f:
                comm = f.read().strip()
        except OSError:
            return None
        if cpu is None or "se.nr_migrations" not in v:
            return None
        return (cpu, v["se.avg.util_avg"], v["se.avg.last_update_time"],
                v["se.nr_migrations"], comm)

    def _poll(self):
        while not self._stop.wait(self.PERIOD_S):
            start, got = mono_ns(), {}
            for tgid in self.tgids:
                try:
                    tids = [int(t) for t in
                            os.listdir("/proc/%d/task" % tgid)]
                except OSError:
                    continue
                for tid in tids:
                    st = self.read(tid)
                    if st:
                        got[tid] = st
            self.rounds.append((start, mono_ns(), got))

    def start(self):
        if self.tgids:
            self._thread.start()

    def stop(self):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def share(self, t, lut, s):
        """(util, comms) the unlisted threads held in cpu1's root at its
        refresh at t (PELT clock lut), from the /proc round done last
        before t and the first begun after s: a thread on cpu1 in both with
        the same update and migration count slept there throughout, holding
        its util_avg decayed from its own update to lut. (None, comms) when
        one came, left or ran on cpu1 in between, or no rounds bracket the
        sample: its part is not known."""
        if not self.tgids:
            return 0.0, set()
        before = [r for r in self.rounds if r[1] < t]
        after = [r for r in self.rounds if r[0] > s]
        if not before or not after:
            return None, {"no /proc round around the sample"}
        a, b = before[-1][2], after[0][2]
        util, comms, unknown = 0.0, set(), set()
        for tid in set(a) | set(b):
            x, y = a.get(tid), b.get(tid)
            if x and y and x[:4] == y[:4]:
                if x[0] == 1:
                    util += x[1] * Y ** (max(0, lut - x[2]) / PERIOD_NS)
                    comms.add(x[4])
            elif (x and x[0] == 1) or (y and y[0] == 1) or \
                    (x and y and x[3] != y[3]):
                unknown.add((x or y)[4])
        if unknown:
            return None, unknown
        return util, comms


# The window blocked_truth() compares in, from the blocker's sleep.
HALF_LIVES = 6


def blocked_truth(tids, cpus, trows, kernel, unlisted=None):
    """schedtop's blocked_util of cpu1 against the kernel's own root cfs_rq.

    At each refresh T of cpu1's root cfs_rq the kernel's util_avg U(T) is
    the sum of every entity attached to it: the runnable tasks' and the
    sleepers' decayed. U(T) less the util of the tasks runnable then, as the
    kernel refreshed them at the same instant, is the blocked part; from T
    to the sample S it only decays, by y per period. That is the truth a
    sample's blocked_util is held to.
    """
    blocker = tids["blocker"]
    brows = [r for r in trows if int(r["pid"]) == blocker and r["state"] != "X"]
    t_sleep = sleep_start(brows)
    check(t_sleep is not None, "never saw the blocker run, then sleep")
    # The kernel's own updates (KernelPelt): cpu1's root, the tasks'.
    cfs, upd = kernel
    cfs_ts = [c[0] for c in cfs]
    by_ts = {}
    for r in trows:
        by_ts.setdefault(int(r["ts_ns"]), []).append(r)
    traced = set(tids.values())
    skipped = {}
    foreign = set()
    got = []
    history = []                # (ts, cpu1's fair tasks) of each sample
    samples = sorted(by_ts)
    for c in cpus:
        if c["cpu"] != "1":
            continue
        s = int(c["ts_ns"])
        tasks = by_ts.get(s, [])
        here = [r for r in tasks if r["cpu"] == "1" and r["state"] != "X" and
                int(r["prio"]) >= 100]
        history.append((s, here))
        # Six half-lives (~19 samples at 10 ms): past three the blocker's
        # part is under 1/8, but the root's blocked part is the truth all
        # along (with EXITER, the exited processes' removals pending), and
        # a sample with another task runnable on cpu1 is skipped. In three
        # half-lives 10 samples held 8 compared with 2 skipped here, and
        # with EXITER 3 runs of 5 skipped 3 (inconclusive, under 8).
        if not t_sleep < s <= t_sleep + HALF_LIVES * 32 * PERIOD_NS:
            continue
        i = bisect.bisect_right(cfs_ts, s) - 1
        if i < 0:
            skipped["no refresh"] = skipped.get("no refresh", 0) + 1
            continue
        t, u, lut = cfs[i]
        # A sample walks the tasks, then reads the runqueues (ts_ns): a
        # task forked onto cpu1 in between (the walk can be preempted for
        # ms) is in the root but in no row. Seen: a shell forked there
        # 2.7 ms before the read, +400 in the root, listed only at the
        # next sample, asleep there. A task asleep on cpu1 at the next
        # sample that no row of this one names may be that (one runnable
        # then is no sleeper here either way).
        k = bisect.bisect_right(samples, s)
        after = by_ts[samples[k]] if k < len(samples) else []
        named = {r["pid"] for r in tasks}
        born = [r["comm"] for r in after if r["cpu"] == "1" and
                r["state"] not in ("X", "R") and r["pid"] not in named]
        if born:
            skipped["a task new and asleep on cpu1 at the next sample"] = \
                skipped.get("a task new and asleep on cpu1 at the next "
                            "sample", 0) + 1
            foreign.update(born)
            continue
        hidden, hidden_comms = unlisted.share(t, lut, s) if unlisted \
            else (0.0, set())
        if hidden is None:
            why = "a thread schedtop's task walk does not list came, " \
                "left or ran on cpu1"
            skipped[why] = skipped.get(why, 0) + 1
            foreign.update("%s (unlisted)" % c for c in hidden_comms)
            continue
        if int(c["util_avg"]) != u:
            # Changed without a refresh that crossed a period: a task
            # attached or removed (migrated) in between.
            skipped["root changed between refreshes"] = \
                skipped.get("root changed between refreshes", 0) + 1
            continue
        runnable = [r for r in here if r["state"] == "R"]
        sub, ok, why = 0, True, "runnable task not refreshed with the root"
        for r in runnable:
            pid = int(r["pid"])
            if pid not in traced:
                foreign.add(r["comm"])
                ok, why = False, "other tasks runnable"
                break
            mine = [x for x in upd.get(pid, []) if x[0] <= s]
            # Refreshed with the root: the same update_load_avg() call,
            # the same PELT clock to the 1024 ns the kernel counts in.
            if not mine or abs(mine[-1][2] - lut) >= 1024:
                ok = False
                break
            sub += mine[-1][1]
        if not ok:
            skipped[why] = skipped.get(why, 0) + 1
            continue
        truth = (u - sub - hidden) * Y ** ((s - t) / PERIOD_NS)
        here_pids = {int(r["pid"]) for r in here}
        # Tasks asleep on cpu1 at the sample before the refresh or since,
        # and not on cpu1 now, woke elsewhere: the kernel takes their util
        # off at its next refresh, keeping it in cfs_rq.removed until then,
        # which schedtop reads. Its walk of the tasks comes before its read
        # of the runqueues: one that left in between is counted in both or
        # neither. At most what they held at their last sample on cpu1.
        left = {}
        for ts, snap in history:
            if t - SAMPLE_NS < ts < s:
                for r in snap:
                    if r["state"] != "R":
                        left[int(r["pid"])] = int(r["util_avg"])
        moved = sum(v for pid, v in left.items() if pid not in here_pids)
        # Sleepers that ran in the last second: one asleep longer holds
        # under 1024 * y^950 (1e-6) of the root's util.
        recent = sum(1 for r in here if r["state"] != "R" and
                     int(r["pelt_age_ns"]) < 10**9)
        # The tolerance, from the quantity:
        # - the blocked part decays at each sleeper's period boundaries in
        #   schedtop (decay_load() by the whole periods since its update,
        #   as the kernel counts them) and at the root's in the kernel: the
        #   grids differ by under a period, y. The truth here decays it
        #   continuously from T: under a period from the root's steps, y.
        #   schedtop's PELT clock at the sample is the reading CPU's rq
        #   clock, refreshed when schedtop was scheduled in to sample: at
        #   most a period short, y. Together (1/y^3 - 1) of the blocked
        #   part, 6.7%;
        # - the root's share of each runnable task accrued on the root's
        #   grid, the task's own util on its own: (1 - y) of the runnable
        #   part;
        # - the kernel floors the root's and each runnable task's util_avg
        #   and decay_load() truncates each recent sleeper's: one unit each;
        # - util of sleepers that woke elsewhere since (moved).
        # - an unlisted sleeper's util decayed from its own update, not on
        #   the root's grid: under a period, (1/y - 1) of it, and a unit.
        tol = ((1 / Y ** 3 - 1) * truth + (1 - Y) * sub + 1 + len(runnable) +
               recent + moved + (1 / Y - 1) * hidden + len(hidden_comms))
        got.append((s - t_sleep, int(c["blocked_util"]), truth, tol, u, sub,
                    s - t, t - lut, hidden))
    print("# cpu1 samples in the %d half-lives after the blocker slept: %d "
          "compared, skipped %s" % (HALF_LIVES, len(got), skipped or "none"))
    for g in got:
        print("# +%5.1f ms blocked_util %4d truth %6.1f (root %d - runnable "
              "%d - unlisted %.0f, refreshed %.2f ms before) tol %.1f" %
              (g[0] / 1e6, g[1], g[2], g[4], g[5], g[8], g[6] / 1e6, g[3]))
    # A compared sample had nothing unknown on cpu1: off is a failure,
    # however few were compared.
    bad = [g for g in got if abs(g[1] - g[2]) > g[3]]
    check(not bad, "blocked_util off the kernel's root cfs_rq at %d of %d "
          "samples: %s" % (len(bad), len(got),
                           ["+%.1f ms: %d vs %.1f +- %.1f" %
                            (g[0] / 1e6, g[1], g[2], g[3]) for g in bad[:8]]))
    if len(got) < 8:
        if foreign:
            raise Inconclusive(
                "other tasks on cpu1 (%s) after the blocker slept: the "
                "root's part of them is unknown at the samples skipped %s" %
                (", ".join(sorted(foreign)), skipped))
        check(False, "only %d samples compared (skipped: %s)" %
              (len(got), skipped))
    worst = max(got, key=lambda g: abs(g[1] - g[2]) / g[3])
    # How far the root's PELT clock at each refresh was behind the event's
    # time, beyond the least: a refresh on a stale rq clock shows here.
    lag = [g[7] for g in got]
    print("# worst: blocked_util %d vs %.1f, %.0f%% of its tolerance %.1f; "
          "refresh time - root's last_update_time spans %.2f ms" %
          (worst[1], worst[2], 100 * abs(worst[1] - worst[2]) / worst[3],
           worst[3], (max(lag) - min(lag)) / 1e6))
    # Else decay and tolerance could not be told apart: at some sample the
    # blocked part must be thrice its tolerance (the first may not be,
    # when tasks that left widen it).
    best = max(got, key=lambda g: g[2] / g[3])
    check(best[2] >= 3 * best[3], "the blocker left at most %.0f on cpu1 "
          "(tolerance %.0f)" % (best[2], best[3]))


def blocked_test(with_runner, with_exiter=False):
    tids, cpus, trows, pelt, tmp, unlisted = blocked_round(with_runner,
                                                           with_exiter)
    try:
        blocked_truth(tids, cpus, trows, pelt, unlisted)
    except AssertionError:
        print("# the recording is kept: %s/b.rec" % tmp)
        raise
    except Exception:
        shutil.rmtree(tmp)
        raise
    shutil.rmtree(tmp)


@test(root=True)
def blocked_util_is_root_cfs_rq_less_runnable():
    blocked_test(with_runner=False)


@test(root=True)
def blocked_util_excludes_runnable_task():
    blocked_test(with_runner=True)


@test(root=True)
def blocked_util_holds_tasks_that_left():
    """A task that exited on cpu1 is in the root's util until its cfs_rq's
    next update (cfs_rq.removed; EXITER runs in a session of its own, so
    in an autogroup's cfs_rq where autogroups are on): blocked_util counts
    it. Reading no
    cfs_rq.removed, 5 of 7 runs here failed (+90 ms: 68 vs 576.2); reading
    the root's only, 2 of 10 (every sample some 12% low)."""
    blocked_test(with_runner=False, with_exiter=True)


@test(root=True)
def migrated_task_carries_its_load():
    os.sched_setaffinity(0, {0})
    task = {"loop": 1, "phases": {
        "on0": {"cpus": [0], "loop": 150, "runtime": 8000,
                "timer": {"ref": "tm", "period": 16000}},
        "on1": {"cpus": [1], "loop": 100, "runtime": 8000,
                "timer": {"ref": "tm", "period": 16000}}}}
    rt = RtApp({"mover": task}, duration=8)
    tid = rt.tids["mover"]
    # Both CPUs are watched from the start: the mover's util on cpu0, cpu1's
    # before and after the move.
    share = CpuShare((0, 1), tid)
    tasks = start_schedtop("csv", "-t", "task", "-i", "20", "-p", str(tid),
                           "--topology", TOPO)
    cpus = start_schedtop("csv", "-t", "cpu", "-i", "20", "--topology", TOPO)
    try:
        share.follow(rt.proc)
    finally:
        rt.stop()
    trows = [r for r in parse_csv(stop(tasks)) if r["state"] != "X"]
    crows = parse_csv(stop(cpus))
    share.decide(lambda: load_carried(trows, crows, share))


def load_carried(trows, crows, share):
    moved = next((i for i, r in enumerate(trows)
                  if r["cpu"] == "1" and i > 0 and trows[i - 1]["cpu"] == "0"),
                 None)
    check(moved is not None, "never saw the task move from cpu0 to cpu1")
    before = [int(r["util_avg"]) for r in trows[max(0, moved - 10):moved]]
    u0 = sum(before) / len(before)
    u1 = int(trows[moved]["util_avg"])
    t_move = int(trows[moved]["ts_ns"])
    t_prev = int(trows[moved - 1]["ts_ns"])
    print("# util_avg %.0f on cpu0 before the move, %d on cpu1 after" % (u0, u1))
    check(int(trows[moved]["migrations"]) >= 1, "migration not counted")
    # The first sample on cpu1 against the kernel's own util of the task in
    # the reads around it (10 ms apart): PELT moves it by no more than a
    # CPU running, or idle, all along would in the time to each read.
    (tb, kb), (ta, ka) = share.kernel_util(t_move)
    tol_b = max(kb, 1024 - kb) * (1 - Y ** ((t_move - tb) / PERIOD_NS + 1)) + 1
    tol_a = max(ka, 1024 - ka) * (1 - Y ** ((ta - t_move) / PERIOD_NS + 1)) + 1
    print("# the kernel's util %d at %+.1f ms, %d at %+.1f ms" %
          (kb, (tb - t_move) / 1e6, ka, (ta - t_move) / 1e6))
    check(abs(u1 - kb) <= tol_b or abs(u1 - ka) <= tol_a,
          "util at the first sample on cpu1 %d; the kernel's %d before "
          "(+-%.0f) and %d after (+-%.0f): util restarted after migration?"
          % (u1, kb, tol_b, ka, tol_a))
    if u0 < 350:
        raise Miss("util before the move %.0f, want ~512" % u0, cpu=0,
                   t0=t_prev - 300_000_000, t1=t_move, units=350 - u0,
                   how="off", base=512)
    if u1 < 0.8 * u0:
        raise Miss("util restarted after migration: %d vs %.0f" % (u1, u0),
                   cpu=1, t0=t_prev, t1=t_move, units=0.8 * u0 - u1,
                   how="off", base=u0)
    cpu1_before = [int(r["util_avg"]) for r in crows if r["cpu"] == "1" and
                   t_move - 600e6 < int(r["ts_ns"]) < t_move - 200e6]
    cpu1_after = [int(r["util_avg"]) for r in crows if r["cpu"] == "1" and
                  t_move + 60e6 < int(r["ts_ns"]) < t_move + 400e6]
    check(cpu1_before and cpu1_after, "no cpu rows around the move")
    print("# cpu1 util_avg %.0f before, %.0f after" %
          (max(cpu1_before), min(cpu1_after)))
    if max(cpu1_before) >= 0.3 * u0:
        # Other work there adds its util: the last ~100 ms weigh most.
        raise Miss("cpu1 was busy before the move: util %d" % max(cpu1_before),
                   cpu=1, t0=int(t_move - 700e6), t1=int(t_move - 200e6),
                   units=max(cpu1_before) - 0.3 * u0, how="added")
    if min(cpu1_after) < 0.6 * u0:
        # The root holds the task's util whatever else runs there; only
        # the task kept off the CPU lets it decay.
        raise Miss("cpu1 root util %d did not take the task's %.0f"
                   % (min(cpu1_after), u0), cpu=1, t0=t_move,
                   t1=int(t_move + 400e6), units=0.6 * u0 - min(cpu1_after),
                   how="off", base=u0)


if __name__ == "__main__":
    run()
