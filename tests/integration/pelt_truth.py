"""The kernel's PELT, computed by the tests from the kernel's own raw values.

Nothing here is schedtop's: the arithmetic is kernel/sched/pelt.c's
(decay_load(), accumulate_sum(), ___update_load_avg()), written again from
the kernel source, with its table generated here as the kernel's generator
(Documentation/scheduler/sched-pelt.c) does; the inputs are the kernel's
own numbers: an entity's se.avg.* and last_update_time from
/proc/PID/sched, and the clocks of the scheduler's debug dump. A test that
holds schedtop's engine to these values cannot have a decay or clock bug
cancel out, as it could against schedtop's own decayed BPF values.

The PELT clock. An entity's last_update_time is on its CPU's
rq_clock_pelt(); on a CPU without capacity or frequency invariance (every
CPU at 1024, no cpufreq: this machine) that clock advances with the task
clock while the CPU works and is set to it when the CPU idles, so it is
rq->clock_task less rq->lost_idle_time (0 there). rq->clock_task is
rq->clock (sched_clock_cpu(), local_clock()) less what the kernel took out
(steal, and irq time with IRQ_TIME_ACCOUNTING): the dump's .clock less
.clock_task per CPU. The dump's header prints ktime (CLOCK_MONOTONIC, the
clock of trace stamps and of schedtop's samples) and cpu_clk (local_clock())
read together, which maps one onto the other: ClockMap. (Not sched_clk:
sched_clock() without __sched_clock_offset, 20 ms apart here.)

The period alignment. The kernel counts an entity's periods from its
period_contrib, which /proc does not print; an entity attached to a
cfs_rq takes the cfs_rq's (attach_entity_load_avg()), and a root cfs_rq's
periods fall on whole 1024 * 1024 ns of its clock, so period_contrib is
(last_update_time >> 10) & 1023 (measured here: 1247 of 1250 reads of a
task allow that phase; the sleepers test_vm_matrix compares exactly on
5.10, 6.1, 6.12 and this host would differ were it another).
"""
import math
import os
import re

Y = 0.5 ** (1 / 32)
PERIOD_NS = 1 << 20                     # 1024 "us" of 1024 ns
LOAD_AVG_MAX = 47742
MIN_DIVIDER = LOAD_AVG_MAX - 1024
# runnable_avg_yN_inv[]: (u32)((2^32 - 1) * y^n), as the kernel generates it.
YN_INV = [int(((1 << 32) - 1) * Y ** n) for n in range(32)]

SCHED_DEBUG = "/sys/kernel/debug/sched/debug"


def decay_load(val, n):
    """decay_load(): val * y^n in the kernel's integer arithmetic."""
    if n > 32 * 63:
        return 0
    if n >= 32:
        val >>= n // 32
        n %= 32
    return (val * YN_INV[n]) >> 32


def contrib_segments(periods, d1, d3):
    """__accumulate_pelt_segments(): a segment crossing @periods period
    boundaries, d1 the rest of the first period, d3 the start of the last."""
    c1 = decay_load(d1, periods)
    c2 = LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, periods) - 1024
    return c1 + c2 + d3


def period_contrib(lut):
    """An entity's period_contrib from its last_update_time (see above)."""
    return (lut >> 10) & 1023


def avg_at(sum_, avg, lut, now, running=False, weight=None, queued=False):
    """The average the kernel's next update of an entity at PELT time @now
    gives, from its @sum_, stored @avg and @lut: asleep (nothing added), or
    @running (and queued) throughout since @lut, or, for load_sum, @queued
    throughout (its contribution unscaled, not <<10 as util's and
    runnable's: a task EEVDF left queued with se.sched_delayed, asleep for
    util and runnable). The stored average stands where no period boundary
    is crossed (___update_load_avg() only runs then). load_avg is the sum
    times the entity's @weight (its se.load.weight scaled down by 1024)
    over the divider."""
    if now <= lut:
        return avg
    delta = (now - lut) >> 10
    pc = period_contrib(lut)
    d = delta + pc
    periods = d // 1024
    contrib = delta
    if periods:
        sum_ = decay_load(sum_, periods)
        d %= 1024
        if running or queued:
            contrib = contrib_segments(periods, 1024 - pc, d)
    if running:
        sum_ += contrib << 10
    elif queued:
        sum_ += contrib
    if not periods:
        return avg
    return (sum_ * weight if weight else sum_) // (MIN_DIVIDER + d)


_FIELD = re.compile(r"^(\S+)\s+:\s+(-?\d+)(?:\.(\d+))?\s*$")


def read_sched(tid):
    """/proc/<tid>/sched as {field: int} (a "ms.frac" value in ns), with
    "state" from /proc/<tid>/stat; None once the task is gone."""
    out = {}
    try:
        with open("/proc/%d/sched" % tid) as f:
            for line in f:
                m = _FIELD.match(line)
                if m:
                    if m.group(3) is None:
                        out[m.group(1)] = int(m.group(2))
                    else:
                        out[m.group(1)] = (int(m.group(2)) * 1000000 +
                                           int(m.group(3).ljust(6, "0")[:6]))
        with open("/proc/%d/stat" % tid) as f:
            st = f.read().rsplit(")", 1)[1].split()
        out["state"] = st[0]
        out["cpu"] = int(st[36])
    except (OSError, IndexError, ValueError):
        return None
    return out


def _dump_clocks():
    """(ktime, cpu_clk, {cpu: clock - clock_task}) in ns from the debug
    dump: its header, and each CPU's section up to its clock_task."""
    path = SCHED_DEBUG if os.path.exists(SCHED_DEBUG) else "/proc/sched_debug"
    ns = lambda v: int(v.split(".")[0]) * 1000000 + int(
        v.split(".")[1].ljust(6, "0")[:6])
    head, skip, cpu, clock = {}, {}, None, None
    with open(path) as f:
        for line in f:
            k, sep, v = line.partition(":")
            k, v = k.strip(), v.strip()
            if k in ("ktime", "cpu_clk") and sep:
                head[k] = ns(v)
            m = re.match(r"cpu#(\d+)", line)
            if m:
                cpu = int(m.group(1))
            elif cpu is not None and k == ".clock":
                clock = ns(v)
            elif cpu is not None and k == ".clock_task" and clock is not None:
                skip[cpu] = clock - ns(v)
                cpu = clock = None
    return head["ktime"], head["cpu_clk"], skip


class ClockMap:
    """CLOCK_MONOTONIC ns -> a CPU's PELT clock, from the debug dump read
    by mark() (at least twice: around the time it maps). Between two
    marks, local_clock() - ktime is interpolated and the skip (steal, irq)
    taken as the later mark's where it moved: skip_moved() says by how
    much, the uncertainty of any instant between them."""

    def __init__(self):
        self.marks = []
        self._thread = None

    def mark(self):
        kt, sc, skip = _dump_clocks()
        self.marks.append((kt, sc - kt, skip))

    def follow(self, period_s=0.02):
        """mark() every @period_s on a thread of its own until stop(): a
        skip (the hypervisor holding a vCPU back some ms) is then placed
        within that much, where two marks placed it anywhere in a round
        and the rounds' truths before it were off by all of it."""
        import threading
        self._stop = threading.Event()

        def run():
            while not self._stop.wait(period_s):
                self.mark()
        self._thread = threading.Thread(target=run)
        self._thread.start()

    def stop(self):
        """Ends follow(), with a last mark."""
        if self._thread:
            self._stop.set()
            self._thread.join()
            self._thread = None
        self.mark()
        self.marks.sort(key=lambda m: m[0])

    def skip_unsure(self, t, cpu):
        """How much the skip moved between the marks around @t: how far
        off pelt() can be at @t."""
        (ta, oa, sa), (tb, ob, sb) = self._around(t)
        return sb.get(cpu, 0) - sa.get(cpu, 0)

    def skipped(self, t0, t1, cpu):
        """The most the skip of @cpu can have moved from @t0 to @t1: from
        the last mark at or before @t0 to the first at or after @t1."""
        a, _ = self._around(t0)
        _, b = self._around(t1)
        return b[2].get(cpu, 0) - a[2].get(cpu, 0)

    def _around(self, t):
        a = [m for m in self.marks if m[0] <= t]
        b = [m for m in self.marks if m[0] >= t]
        return (a[-1] if a else self.marks[0]), (b[0] if b else self.marks[-1])

    def pelt(self, t, cpu):
        (ta, oa, sa), (tb, ob, sb) = self._around(t)
        off = oa if tb == ta else oa + (ob - oa) * (t - ta) / (tb - ta)
        return int(t + off - sb.get(cpu, 0))

    def drift_ns(self):
        """How far local_clock() - ktime moved over the marks."""
        offs = [m[1] for m in self.marks]
        return max(offs) - min(offs)

    def skip_moved(self, cpu):
        sk = [m[2].get(cpu, 0) for m in self.marks]
        return max(sk) - min(sk)


def implied_periods(a, b):
    """The PELT time (periods) in which a value decays from @a to @b, each
    floored by the kernel's division: (estimate, its uncertainty)."""
    est = math.log((a + 0.5) / (b + 0.5)) / -math.log(Y)
    unc = (0.5 / (a + 0.5) + 0.5 / (b + 0.5)) / -math.log(Y)
    return est, unc


def asleep_between(kb, ka):
    """Two reads of /proc/PID/sched and stat (read_sched()) show the task
    asleep, on one CPU, with the same PELT state and switch count: it did
    not run, and was not woken, between them (a wakeup updates se.avg at
    enqueue)."""
    return (kb is not None and ka is not None and
            kb["state"] in "SDI" and ka["state"] in "SDI" and
            kb["cpu"] == ka["cpu"] and
            kb["se.avg.last_update_time"] == ka["se.avg.last_update_time"] and
            kb["nr_switches"] == ka["nr_switches"] and
            kb["se.avg.util_sum"] == ka["se.avg.util_sum"])


# A sample this soon after the kernel's last update of a sleeping task may
# fall on either side of the switch for the trace and the reads.
SETTLED_NS = 2_000_000


def sleeping_truth(kb, ka, ts, clocks):
    """The kernel's util_avg of a task at @ts (CLOCK_MONOTONIC), when the
    reads @kb before and @ka after it show it asleep throughout and 2 ms
    or more into its sleep by the kernel's clock: (truth, the sleep's
    last_update_time, the PELT clock at @ts); else None."""
    if not asleep_between(kb, ka):
        return None
    lut = ka["se.avg.last_update_time"]
    now = clocks.pelt(ts, ka["cpu"])
    if now - lut < SETTLED_NS:
        return None
    return (avg_at(ka["se.avg.util_sum"], ka["se.avg.util_avg"], lut, now),
            lut, now)


class KernelReads:
    """/proc/<tid>/sched and stat of some threads, read every @period_s
    from start() to stop() on a thread of its own, each read stamped with
    CLOCK_MONOTONIC before and after: bracket() gives the reads around an
    instant."""

    def __init__(self, tids, period_s=0.005):
        import threading
        self.tids, self.period_s = list(tids), period_s
        self.reads = {t: [] for t in self.tids}      # [(start, end, read)]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll)

    def _poll(self):
        import time
        while not self._stop.wait(self.period_s):
            for t in self.tids:
                a = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                v = read_sched(t)
                b = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                if v is not None:
                    self.reads[t].append((a, b, v))

    def start(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def bracket(self, tid, ts):
        """(the last read ended by ts, the first begun after it), None
        where there is none."""
        rs = self.reads.get(tid, [])
        before = [r for r in rs if r[1] <= ts]
        after = [r for r in rs if r[0] >= ts]
        return (before[-1][2] if before else None,
                after[0][2] if after else None)


def group_se(name, cpu):
    """The kernel's own group entity of cgroup /@name on @cpu, from the
    debug dump's cfs_rq[cpu]:/name section: {"util_avg", "runnable_avg",
    "load_avg", "weight"} (se->avg.* and se->load.weight), and the group's
    own cfs_rq's fields as "cfs.FIELD" (.util_avg, .removed.util_avg, ...);
    None where the dump lists no such cfs_rq (fully decayed, off the leaf
    list)."""
    path = SCHED_DEBUG if os.path.exists(SCHED_DEBUG) else "/proc/sched_debug"
    head = "cfs_rq[%d]:/%s" % (cpu, name)
    vals, inside = {}, False
    with open(path) as f:
        for line in f:
            if line.startswith("cfs_rq["):
                if inside:
                    break
                inside = line.strip() == head
            elif inside:
                m = re.match(r"\s+\.se->(avg\.(\w+)|load\.weight)\s+:\s+(\d+)",
                             line)
                if m:
                    vals[m.group(2) or "weight"] = int(m.group(3))
                    continue
                m = re.match(r"\s+\.([\w.]+)\s+:\s+(-?\d+)$", line)
                if m:
                    vals["cfs." + m.group(1)] = int(m.group(2))
    return vals or None


class GroupWatch:
    """group_se() of one group on one CPU, read every @period_s on a thread
    of its own until stop(), each read stamped with CLOCK_MONOTONIC before
    and after: [(start, end, values or None)]."""

    def __init__(self, name, cpu, period_s=0.01):
        import threading
        self.name, self.cpu, self.period_s = name, cpu, period_s
        self.reads = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll)
        self._thread.start()

    def _poll(self):
        import time
        while not self._stop.wait(self.period_s):
            a = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            v = group_se(self.name, self.cpu)
            self.reads.append((a, time.clock_gettime_ns(time.CLOCK_MONOTONIC),
                               v))

    def stop(self):
        self._stop.set()
        self._thread.join()

    def bracket(self, ts):
        before = [r for r in self.reads if r[1] <= ts]
        after = [r for r in self.reads if r[0] >= ts]
        return (before[-1] if before else None), (after[0] if after else None)


def drift(t_ns, vmax=1024):
    """The most a PELT signal of at most @vmax moves in @t_ns: a whole
    period more than the time, for the period its update is rounded to."""
    return vmax * (1 - Y ** (max(t_ns, 0) / 1024000 + 1))


class KernelPelt:
    """Every PELT update of a CPU's root cfs_rq and of the tasks of some
    comms, as the kernel made it, from the tests' own recorder
    (tests/tools/kpelt, its BPF apart from schedtop's): start() waits
    until it is attached; stop() returns ([(ts, util, lut)] of the root,
    {pid: [(ts, util, lut)]}), ts on CLOCK_MONOTONIC. And the birth of
    every task (by pid: a thread is born with its parent's comm, and
    named after), born, {pid: (ts, cpu, in_group, util, cfs_rq util, lut)}
    (post_init_entity_util_avg()'s util, from the cfs_rq the task joined,
    a group's if in_group). @programs: attach only those of kpelt's."""

    def __init__(self, cpu, comms, programs=()):
        import subprocess
        import tempfile
        out = os.environ.get("SCHEDTOP_OUT", os.path.join(
            os.path.dirname(os.path.dirname(os.path.dirname(
                os.path.abspath(__file__)))), "build"))
        tool = os.path.join(out, "tests", "tools", "kpelt")
        if not os.path.exists(tool):
            raise AssertionError("build it: make unit (%s)" % tool)
        self.cpu, self.comms = cpu, set(comms)
        self.out = tempfile.TemporaryFile("w+")
        self.born = {}
        self.proc = subprocess.Popen([tool, tool + ".bpf.o", *programs],
                                     stdout=self.out,
                                     stderr=subprocess.PIPE, text=True)

    def start(self):
        ready = self.proc.stderr.readline()
        if ready.strip() != "ready":
            self.proc.kill()
            raise AssertionError("kpelt: %s%s" % (ready,
                                                  self.proc.communicate()[1]))

    def stop(self):
        import signal
        self.proc.send_signal(signal.SIGINT)
        err = self.proc.communicate(timeout=30)[1]
        lost = [int(l.split()[1]) for l in err.splitlines()
                if l.startswith("lost ")]
        if self.proc.returncode or not lost or lost[0]:
            raise AssertionError("kpelt exited %d: %s" % (self.proc.returncode,
                                                          err[-300:]))
        self.out.seek(0)
        cfs, tasks = [], {}
        for line in self.out:
            f = line.split()
            if f[0] == "cfs" and int(f[2]) == self.cpu:
                cfs.append((int(f[1]), int(f[3]), int(f[5])))
            elif f[0] == "se" and len(f) == 8 and f[7] in self.comms:
                tasks.setdefault(int(f[3]), []).append(
                    (int(f[1]), int(f[4]), int(f[6])))
            elif f[0] == "born" and len(f) == 9:
                self.born[int(f[4])] = (int(f[1]), int(f[2]),
                                        f[3] == "group", int(f[5]),
                                        int(f[6]), int(f[7]))
        return cfs, tasks
