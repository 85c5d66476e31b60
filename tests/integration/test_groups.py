"""Group entities: a cgroup's sched_entity per CPU, told apart from tasks.

The truth is the kernel's own group entity: the scheduler debug dump's
cfs_rq[CPU]:/NAME section (.se->avg.*), read every 10 ms while schedtop
samples (pelt_truth.GroupWatch)."""
import os
import re
import subprocess
import time

from harness import (Inconclusive, RtApp, Skip, check, parse_csv, periodic, run,
                     start_schedtop, test)
from pelt_truth import GroupWatch, drift


def cpu_cgroup_root():
    """A mounted cgroup hierarchy with the cpu controller, and its version."""
    with open("/proc/mounts") as f:
        for line in f:
            dev, path, fstype, opts = line.split()[:4]
            if fstype == "cgroup" and "cpu" in opts.split(","):
                return path, 1
            if fstype == "cgroup2":
                with open(os.path.join(path, "cgroup.controllers")) as c:
                    if "cpu" in c.read().split():
                        return path, 2
    raise Skip("no cgroup hierarchy with the cpu controller is mounted")


def rmdir_when_empty(path):
    """Removes a cgroup once the kernel has let go of its killed tasks
    (up to 5 s)."""
    for _ in range(50):
        try:
            os.rmdir(path)
            return
        except OSError:
            time.sleep(0.1)


def stop(proc):
    proc.send_signal(2)
    out, err = proc.communicate(timeout=20)
    check(proc.returncode == 0, err.decode(errors="replace"))
    return out


@test(root=True)
def cgroup_entity_carries_its_task_util():
    root, version = cpu_cgroup_root()
    name = "schedtop-test-%d" % os.getpid()
    path = os.path.join(root, name)
    os.mkdir(path)
    ino = os.stat(path).st_ino
    os.sched_setaffinity(0, {0})
    # 50 ms of every 200: asleep, its group's entity stands still between
    # the blocked-load updates, so that reads 10 ms apart often agree.
    rt = RtApp({"grouped": periodic(1, 0.25, period_us=200000,
                                    name="grouped")}, duration=4)
    try:
        if version == 2:
            with open(os.path.join(root, "cgroup.subtree_control"), "w") as f:
                f.write("+cpu")
        procs = "tasks" if version == 1 else "cgroup.threads"
        with open(os.path.join(path, procs), "w") as f:
            f.write(str(rt.tids["grouped"]))
        # Rows every 50 ms and the kernel's every 5: 40-odd rows, and
        # reads close enough around them that the entity often stood
        # still between the two (at 100 ms and 10 ms, 4 of 42 values in
        # one run of six).
        st = start_schedtop("csv", "-t", "group", "-i", "50",
                            "--topology", "LITTLE:0,big:1@1024")
        watch = GroupWatch(name, 1, period_s=0.005)
        try:
            time.sleep(2.5)
        finally:
            watch.stop()
        groups = parse_csv(stop(st))
    finally:
        rt.stop()
        rmdir_when_empty(path)
    mine = [g for g in groups if g["cgroup"] == "/" + name and g["cpu"] == "1"]
    check(len(mine) >= 20, "group /%s on cpu1 in %d rows" % (name, len(mine)))
    check(all(g["cluster"] == "big" and int(g["depth"]) == 0 for g in mine),
          "cluster or depth wrong")
    check(all(int(g["cgroup_id"]) == ino for g in mine),
          "cgroup_id is not the inode of the cgroup directory (%d)" % ino)
    # A task's own row is never mistaken for a group entity.
    check(not any(g["cgroup"] == "grouped" for g in groups), "task in group table")
    # Each row against the kernel's group entity in the dump reads around
    # it: the same value in both, nothing changed it between them, and the
    # row (the entity's last update) must be that value; else within what
    # PELT can move in the time to the nearer read.
    exact = near = 0
    bad = []
    for g in mine:
        ts = int(g["ts_ns"])
        rb, ra = watch.bracket(ts)
        if not (rb and ra and rb[2] and ra[2]):
            continue
        for col in ("util_avg", "runnable_avg"):
            v, vb, va = int(g[col]), rb[2][col], ra[2][col]
            if vb == va:
                exact += 1
                if v != vb:
                    bad.append("%s %d at %d, the kernel's %d before and after"
                               % (col, v, ts, vb))
            else:
                near += 1
                if not (abs(v - vb) <= drift(ts - rb[0]) + 1 or
                        abs(v - va) <= drift(ra[1] - ts) + 1):
                    bad.append("%s %d at %d, the kernel's %d (%.1f ms before) "
                               "and %d (%.1f ms after)"
                               % (col, v, ts, vb, (ts - rb[0]) / 1e6, va,
                                  (ra[1] - ts) / 1e6))
    print("# group /%s on cpu1: %d rows; %d values equal to the kernel's where "
          "it stood still, %d within PELT's drift of the reads around them"
          % (name, len(mine), exact, near))
    check(not bad, "group entity against the kernel's (cfs_rq[1]:/%s): %s"
          % (name, bad[:5]))
    if exact < 5:
        raise Inconclusive("only %d group values compared exactly (the "
                           "kernel's stood still around %d of %d rows; want "
                           "5)" % (exact, exact, len(mine)))


# bpf/schedtop.h ST_MAX_LEAF_CFS_RQS: the task groups' cfs_rqs of a CPU read
# for pending removals at each sample.
LEAF_BOUND = 32


def debug_leaf_groups(cpu):
    """How many task groups' cfs_rqs @cpu has on rq->leaf_cfs_rq_list, as
    the kernel's debug dump lists them (print_cfs_stats() walks that list):
    the cfs_rq[cpu]:/path headers but the root's."""
    path = "/sys/kernel/debug/sched/debug"
    if not os.path.exists(path):
        path = "/proc/sched_debug"
    with open(path) as f:
        return sum(1 for line in f
                   if re.match(r"cfs_rq\[%d\]:/\S+" % cpu, line))


def crowd_cpu1(root, version, nr):
    """Runs schedtop csv -t cpu for 3 s with @nr task groups (a parent and
    nr - 1 children) each running a little every 50 ms on cpu1, so that
    none decays off its leaf list, once the kernel lists no more than
    those (up to 3 s: the groups of an earlier call take a moment to go).
    Returns (the kernel's count of cpu1's task groups at each 0.2 s read,
    cpu1's dropped per sample)."""
    base = os.path.join(root, "schedtop-test-leaf-%d" % os.getpid())
    os.mkdir(base)
    kids, procs = [], []
    loop = "while :; do i=0; while [ $i -lt 300 ]; do i=$((i+1)); done; sleep 0.05; done"
    try:
        if version == 2:
            for d in (root, base):
                with open(os.path.join(d, "cgroup.subtree_control"), "w") as f:
                    f.write("+cpu")
        for n in range(nr):
            kid = os.path.join(base, "g%d" % n) if n else base
            if n:
                os.mkdir(kid)
                kids.append(kid)
            p = subprocess.Popen(["taskset", "-c", "1", "sh", "-c", loop])
            procs.append(p)
            with open(os.path.join(kid, "cgroup.procs"), "w") as f:
                f.write(str(p.pid))
        time.sleep(0.5)
        for _ in range(30):
            if debug_leaf_groups(1) <= nr:
                break
            time.sleep(0.1)
        st = start_schedtop("csv", "-t", "cpu", "-i", "200", "-d", "3")
        seen = []
        while st.poll() is None:
            seen.append(debug_leaf_groups(1))
            time.sleep(0.2)
        out, err = st.communicate(timeout=20)
        check(st.returncode == 0, err.decode(errors="replace"))
    finally:
        for p in procs:
            p.kill()
            p.wait()
        for d in kids + [base]:
            rmdir_when_empty(d)
    rows = [r for r in parse_csv(out) if r["cpu"] == "1"]
    check(len(rows) >= 10 and seen, "%d rows of cpu1, %d reads" % (len(rows), len(seen)))
    return seen, [int(r["dropped"]) for r in rows]


@test(root=True)
def groups_past_the_bound_count_as_dropped():
    """With more task groups active on a CPU than schedtop reads, blocked
    load misses the others' pending removals: that was silent. Each such
    sample now counts in the CPU's dropped; with as many as it reads, none
    does (the root cfs_rq, at the list's tail, is not one more)."""
    root, version = cpu_cgroup_root()
    if not os.path.exists("/sys/devices/system/cpu/cpu1"):
        raise Skip("no cpu1 to crowd with task groups")
    if not (os.path.exists("/sys/kernel/debug/sched/debug") or
            os.path.exists("/proc/sched_debug")):
        raise Skip("no scheduler debug dump (debugfs not mounted)")
    seen, dropped = crowd_cpu1(root, version, LEAF_BOUND + 8)
    check(min(seen) > LEAF_BOUND,
          "the kernel listed %s task groups on cpu1, not all over %d"
          % (seen, LEAF_BOUND))
    # Every sample after the first (a delta from open) read 32 of them.
    check(all(d >= 1 for d in dropped[1:]),
          "cpu1 had %d..%d task groups listed; dropped per sample: %s"
          % (min(seen), max(seen), dropped))
    seen, dropped = crowd_cpu1(root, version, LEAF_BOUND)
    if max(seen) != LEAF_BOUND:
        # Another cgroup's task ran on cpu1 meanwhile, or one of ours
        # decayed off the list.
        raise Inconclusive("the kernel listed %s task groups on cpu1, at "
                           "most %d wanted" % (seen, LEAF_BOUND))
    check(not any(dropped), "exactly %d task groups on cpu1; dropped per "
          "sample: %s" % (LEAF_BOUND, dropped))


if __name__ == "__main__":
    run()
