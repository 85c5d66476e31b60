#!/usr/bin/env python3
"""Tasks that sleep are not read again, and still show the kernel's values.

Where the kernel allows it (6.4+), the BPF source keeps a table of the
tasks and sends a task's record only when what it was made from changed
(bpf/task_table.bpf.h, docs/performance.md). These tests hold what it
shows of sleeping threads to /proc, read by the test:

- every sample's util_avg, runnable_avg and load_avg of a thread asleep
  throughout (/proc/TID/sched the same before and after) are the kernel's
  values there decayed as the kernel's decay_load() does (its table,
  written out below) by the whole PELT periods from the kernel's
  last_update_time to the sample's PELT clock; the periods count the
  entity's period_contrib, which /proc does not print but its sums and
  averages bound (avg = sum / (LOAD_AVG_MAX - 1024 + period_contrib)): a
  comparison is exact where that bound gives one count, else counted as
  open. And the sample's PELT clock, the kernel's last_update_time plus
  schedtop's pelt_age_ns, is one instant for every thread of a CPU;
- what changes in a thread that does not run is seen at the next sample:
  its nice (prio, and load_avg, which the kernel reweights at once) and
  its name (written to /proc/PID/task/TID/comm by another thread);
- the records the table's path leaves the model with are those a full walk
  of the task iterator reads (the way every task is read before 6.4), byte
  for byte, for every task that did not change while the sample was
  taken, while threads are renamed, reniced, moved, made and ended and
  processes forked and exec'd (tests/tools/task_walk_check.c).
"""
import os
import re
import subprocess
import sys
import threading
import time

from harness import (OUT, check, mono_ns, parse_csv, proc_sched, run,
                     schedtop, start_schedtop, test)

# kernel/sched/sched-pelt.h, runnable_avg_yN_inv[]: y^n * 2^32, y^32 = 1/2.
YN_INV = [
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6,
    0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
    0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
    0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
    0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
    0x85aac367, 0x82cd8698,
]
LOAD_AVG_MAX = 47742
THREADS = 120


def decay_load(val, n):
    """kernel/sched/pelt.c decay_load(); no periods, no change (schedtop
    shows the stored value then, as the kernel's next look finds it)."""
    if n == 0:
        return val
    if n > 32 * 63:
        return 0
    if n >= 32:
        val >>= n // 32
        n %= 32
    return (val * YN_INV[n]) >> 32


def contrib_bounds(v):
    """period_contrib's possible range from /proc's sums and averages."""
    lo, hi = 0, 1023
    weight = v.get("se.load.weight", 1 << 20) >> 10
    for s, a, w in (("util_sum", "util_avg", 1),
                    ("runnable_sum", "runnable_avg", 1),
                    ("load_sum", "load_avg", weight)):
        s, a = v["se.avg." + s] * w, v["se.avg." + a]
        if a <= 0 or s <= 0:
            continue
        # a = s // d: d in (s / (a + 1), s / a].
        dlo, dhi = s // (a + 1) + 1, s // a
        lo = max(lo, dlo - (LOAD_AVG_MAX - 1024))
        hi = min(hi, dhi - (LOAD_AVG_MAX - 1024))
    # The averages are made at period boundaries only: when the last
    # update crossed none they are older than the sums, and the bounds
    # say nothing.
    return (lo, hi) if lo <= hi else (0, 1023)


def sched_full(tid):
    """/proc/TID/sched's se.avg.* and se.load.weight."""
    v = proc_sched(tid)
    with open("/proc/%d/sched" % tid) as f:
        for line in f:
            if line.startswith("se.load.weight"):
                v["se.load.weight"] = int(line.split(":")[1])
    return v


def task_cpu(tid):
    with open("/proc/%d/stat" % tid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[36])


class Sleepers:
    """A process of THREADS threads, each of which runs a little (so that
    its PELT values are not zero) and then sleeps until told to end."""

    # A thread's name can be written only from its own process: "rename
    # TID NAME" on stdin does it from the main thread.
    CODE = r"""
import os, sys, threading, time
threading.stack_size(65536)
ev = threading.Event()
tids = []
lock = threading.Lock()
def body():
    t = time.monotonic()
    while time.monotonic() - t < 0.004:
        pass
    with lock:
        tids.append(threading.get_native_id())
    ev.wait()
for _ in range(int(sys.argv[1])):
    threading.Thread(target=body, daemon=True).start()
while len(tids) < int(sys.argv[1]):
    time.sleep(0.01)
print(" ".join(map(str, tids)), flush=True)
for line in sys.stdin:
    _, tid, name = line.split()
    with open("/proc/self/task/%s/comm" % tid, "w") as f:
        f.write(name)
    print("done", flush=True)
"""

    def __enter__(self):
        import subprocess
        import sys
        self.p = subprocess.Popen([sys.executable, "-c", self.CODE,
                                   str(THREADS)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        self.tids = [int(t) for t in self.p.stdout.readline().split()]
        check(len(self.tids) == THREADS, "helper gave %d tids" %
              len(self.tids))
        return self

    def rename(self, tid, name):
        self.p.stdin.write(b"rename %d %s\n" % (tid, name.encode()))
        self.p.stdin.flush()
        check(self.p.stdout.readline().strip() == b"done", "rename failed")

    def __exit__(self, *exc):
        self.p.stdin.close()
        self.p.wait(30)


def table_expected():
    """The kernel has what the task table needs (bpf_iter_num, 6.4+)."""
    with open("/sys/kernel/btf/vmlinux", "rb") as f:
        return b"bpf_iter_num_new\0" in f.read()


@test(root=True)
def sleepers_show_the_kernels_values():
    with Sleepers() as sl:
        time.sleep(0.3)
        before = {t: sched_full(t) for t in sl.tids}
        cpus = {t: task_cpu(t) for t in sl.tids}
        p = schedtop("-v", "csv", "-t", "task", "-i", "100", "-n", "10",
                     "-p", str(sl.p.pid))
        after = {t: sched_full(t) for t in sl.tids}
    check(p.returncode == 0, "csv: %s" % p.stderr.decode(errors="replace"))
    if table_expected():
        check(b"tasks read from the task table" in p.stderr,
              "the kernel has the task table's kfuncs, schedtop walked")
    asleep = {t for t in sl.tids if before[t] == after[t]}
    print("# %d of %d threads asleep throughout" % (len(asleep), THREADS))
    check(len(asleep) >= THREADS // 2, "only %d threads stayed asleep" %
          len(asleep))
    exact = open_ = 0
    nows = {}
    for r in parse_csv(p.stdout):
        tid = int(r["pid"])
        if tid not in asleep or r["exited"] == "1":
            continue
        v = before[tid]
        check(r["state"] in "SI", "tid %d state %s" % (tid, r["state"]))
        age = int(r["pelt_age_ns"])
        lut = v["se.avg.last_update_time"]
        nows.setdefault((r["ts_ns"], cpus[tid]), set()).add(lut + age)
        lo, hi = contrib_bounds(v)
        ns = {(pc + (age >> 10)) >> 10 for pc in (lo, hi)}
        for col in ("util_avg", "runnable_avg", "load_avg"):
            kv = v["se.avg." + col]
            want = {decay_load(kv, n) for n in ns}
            check(int(r[col]) in want, "tid %d %s %s, the kernel's %d "
                  "decayed by %s periods: %s (age %d ns)" %
                  (tid, col, r[col], kv, sorted(ns), sorted(want), age))
            if len(want) == 1:
                exact += 1
            else:
                open_ += 1
    split = [k for k, s in nows.items() if len(s) != 1]
    print("# %d values equal the kernel's decayed exactly, %d within the "
          "two period counts period_contrib allows; %d (sample, CPU) "
          "instants, one each" % (exact, open_, len(nows)))
    check(not split, "threads of one CPU at different PELT clocks in one "
          "sample (a record older than the kernel's): %s" % split[:3])
    check(exact >= 1000, "only %d exact comparisons" % exact)


@test(root=True)
def changes_while_asleep_are_seen():
    with Sleepers() as sl:
        renice, rename = sl.tids[0], sl.tids[1]
        time.sleep(0.3)
        p = start_schedtop("csv", "-t", "task", "-i", "100", "-n", "12",
                           "-p", str(sl.p.pid))
        time.sleep(0.6)
        # Its nice before: the suite's own (make check may run under nice).
        before = 120 + os.getpriority(os.PRIO_PROCESS, renice)
        t_change = mono_ns()
        os.setpriority(os.PRIO_PROCESS, renice, 5)
        sl.rename(rename, "renamed-asleep")
        t_done = mono_ns()
        post = sched_full(renice)
        out, err = p.communicate(timeout=60)
        end = sched_full(renice)
    check(p.returncode == 0, "csv: %s" % err.decode(errors="replace"))
    check(post == end, "the reniced thread ran: its PELT state moved")
    rows = parse_csv(out)
    later = [r for r in rows if int(r["ts_ns"]) > t_done]
    earlier = [r for r in rows if int(r["ts_ns"]) < t_change]
    check(len(later) >= 2 * THREADS and earlier, "samples: %d before, "
          "%d after the changes" % (len(earlier), len(later)))
    seen = 0
    for r in later:
        tid = int(r["pid"])
        if tid == renice:
            check(r["prio"] == "125", "reniced while asleep, prio %s" %
                  r["prio"])
            lo, hi = contrib_bounds(post)
            age = int(r["pelt_age_ns"])
            want = {decay_load(post["se.avg.load_avg"],
                               (pc + (age >> 10)) >> 10) for pc in (lo, hi)}
            check(int(r["load_avg"]) in want, "reniced load_avg %s, the "
                  "kernel's %d decayed: %s" % (r["load_avg"],
                                               post["se.avg.load_avg"],
                                               sorted(want)))
            seen += 1
        if tid == rename:
            check(r["comm"] == "renamed-asleep", "renamed while asleep, "
                  "comm %s" % r["comm"])
            seen += 1
    for r in earlier:
        if int(r["pid"]) == renice:
            check(r["prio"] == str(before), "prio %s before renice, the kernel's %d"
                  % (r["prio"], before))
    check(seen >= 4, "the changed threads were in %d later rows" % seen)
    print("# %d rows after the changes carried them" % seen)


# Threads that sleep while others change them: renamed, reniced, their
# affinity set; threads made and ended; processes forked and exec'd.
CHURN = r"""
import os, random, subprocess, sys, threading, time
threading.stack_size(65536)
ev = threading.Event()
tids = []
lock = threading.Lock()
def sleeper():
    with lock:
        tids.append(threading.get_native_id())
    ev.wait()
for _ in range(200):
    threading.Thread(target=sleeper, daemon=True).start()
def changer():
    rnd = random.Random(37)
    n = 0
    while not ev.is_set():
        tid = rnd.choice(tids)
        n += 1
        try:
            if n % 3 == 0:
                with open("/proc/self/task/%d/comm" % tid, "w") as f:
                    f.write("churn-%d" % (n % 1000))
            elif n % 3 == 1:
                os.setpriority(os.PRIO_PROCESS, tid, rnd.randrange(-5, 10))
            else:
                os.sched_setaffinity(tid, rnd.choice([{0}, {0, 1}]))
        except OSError:
            pass
        time.sleep(0.002)
def spawner():
    while not ev.is_set():
        t = threading.Thread(target=time.sleep, args=(0.003,))
        t.start()
        t.join()
        subprocess.run(["true"])
for f in (changer, spawner):
    threading.Thread(target=f, daemon=True).start()
print("ready", flush=True)
sys.stdin.read()
ev.set()
"""


@test(root=True)
def table_holds_what_a_walk_reads():
    tool = os.path.join(OUT, "tests", "tools", "task_walk_check")
    churn = subprocess.Popen([sys.executable, "-c", CHURN],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        check(churn.stdout.readline().strip() == b"ready", "churn helper")
        p = subprocess.run([tool, "40", "50"], capture_output=True,
                           timeout=120)
    finally:
        churn.stdin.close()
        churn.wait(30)
    out = p.stdout.decode()
    err = p.stderr.decode(errors="replace")
    if p.returncode == 77:
        check(not table_expected(), "the kernel has the task table's "
              "kfuncs, the source walked: %s" % out.strip())
        print("# skip: %s" % out.strip())
        return
    print("# %s" % out.strip())
    m = dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", out))
    check(m, "task_walk_check printed no counts: %s %s" % (out, err[-2000:]))
    check(p.returncode == 0 and not m["mismatched"] and not m["missing"] and
          not m["extra"], "the table's records are not the walk's: %s\n%s" %
          (out.strip(), err[:3000]))
    # 40 samples of the machine's tasks and the helper's 200 sleepers.
    check(m["compared"] >= 40 * 200, "only %d records compared" %
          m["compared"])
    check(m["changed_asleep"] >= 40, "only %d sleeping threads changed "
          "between checks were compared" % m["changed_asleep"])


if __name__ == "__main__":
    run()
