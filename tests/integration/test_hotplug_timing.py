"""schedtop hotplug: operations timed per cpuhp state, and evacuation.

The truths are the kernel's own: a second tracefs instance of the test's
records the same cpuhp events, and the state of cpu1, every affinity and
every IRQ's affinity are read before and after.
"""
import json
import os
import signal
import time

from cpuhp_truth import (TRACING, CpuhpTrace, group_ops, report_states,
                         state_names, state_problems, states_match_kernel)
from harness import Skip, check, parse_csv, run, schedtop, start_schedtop, test

CPU1 = "/sys/devices/system/cpu/cpu1/online"
# schedtop's steps against the test's instance: no fixed slack, but how
# late a probe that runs after the instance's can stamp each event
# (cpuhp_truth.lateness()). Bringing a CPU up, the control vCPU stalls
# right after cpu:kick_ap's exit, before the next state's enter: the
# instance's probe stamps the exit before the stall, schedtop's (a second
# instance, or BPF programs, attached after it) after, so its cpu:kick_ap
# read 0.2-0.6 ms (tracefs) and 0.2-1.64 ms (BPF) longer, the time moved
# from "(between states)". A second instance created after schedtop has
# attached runs its probe after schedtop's: schedtop's stamp of every event
# lies between the two instances' (and before the first one's next event on
# that CPU, and before the write returns): cpuhp_truth.states_match_kernel().


def need_hotplug():
    if not os.path.exists(CPU1):
        raise Skip("cpu1 cannot be taken offline here")
    if not os.path.isdir(TRACING + "/instances"):
        raise Skip("tracefs is not mounted at " + TRACING)


def online():
    with open(CPU1) as f:
        return f.read().strip() == "1"


@test(root=True)
def hotplug_cycles_are_timed_per_state():
    need_hotplug()
    check(online(), "cpu1 is offline before the test")
    names = state_names()
    trace = CpuhpTrace()
    try:
        r = schedtop("hotplug", "1", "-n", "3", "--csv")
        kernel = group_ops(trace.events(), max(names))
    finally:
        trace.close()
    check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
    check(online(), "cpu1 left offline")
    rows = parse_csv(r.stdout)
    check(rows and list(rows[0]) == ["cycle", "op", "state", "ms"],
          "header: %s" % (list(rows[0]) if rows else None))
    totals = [(x["cycle"], x["op"], float(x["ms"])) for x in rows if x["state"] == "total"]
    check([(c, o) for c, o, _ in totals] ==
          [("1", "offline"), ("1", "online"), ("2", "offline"), ("2", "online"),
           ("3", "offline"), ("3", "online")], "operations: %s" % totals)
    # The kernel's own account: six operations, down and up in turn.
    check([up for up, _ in kernel] == [False, True] * 3,
          "the kernel's operations (up?): %s" % [up for up, _ in kernel])
    for k, (cycle, op, total) in enumerate(totals):
        steps = {x["state"]: float(x["ms"]) for x in rows
                 if x["cycle"] == cycle and x["op"] == op and x["state"] != "total"}
        # No instance after schedtop's: each of its stamps is bounded by
        # the test's instance's next event on that CPU (state_problems()).
        problems, _ = state_problems("%s %s" % (cycle, op), total, steps,
                                     kernel[k][1], names, write=True)
        check(not problems, "; ".join(problems))


def recorded_operations_per_state(source):
    """A recording made while cpu1 goes down and up four times: report and
    the Perfetto export split each operation into its cpuhp states as the
    kernel's own events, read from the test's own tracefs instance, time them. Between cycles a
    tracefs instance comes and goes: its multi-instance callbacks on every
    online CPU are no operation."""
    need_hotplug()
    check(online(), "cpu1 is offline before the test")
    names = state_names()
    cycles = 4
    rec = "/tmp/schedtop-hp-states-%d.rec" % os.getpid()
    trace = CpuhpTrace()
    after = None
    p = None
    ends = []
    try:
        # record has no --source: csv --record makes the same recording.
        p = start_schedtop("csv", "-t", "cpu", "-i", "100", "-o", "/dev/null",
                           "--source", source, "--record", rec)
        time.sleep(1.5)
        if p.poll() is not None:
            raise AssertionError("csv --record ended early: %r" % p.communicate()[1])
        # Probes run in the order they attached: this instance's after
        # schedtop's, the first one's before.
        after = CpuhpTrace("-after")
        try:
            for _ in range(cycles):
                for on in ("0", "1"):
                    with open(CPU1, "w") as f:
                        f.write(on)
                        f.flush()
                        # The write has returned: every probe of the
                        # operation's events has run.
                        ends.append(time.clock_gettime(time.CLOCK_MONOTONIC))
                    time.sleep(0.2)
                extra = "%s/instances/test-hp-extra-%d" % (TRACING, os.getpid())
                os.mkdir(extra)
                os.rmdir(extra)
                time.sleep(0.1)
        finally:
            with open(CPU1, "w") as f:
                f.write("1")
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=30)[1]
        check(p.returncode == 0, "csv --record exit %d: %r" % (p.returncode, err))
        kernel = group_ops(trace.events(), max(names))
        later = group_ops(after.events(), max(names))
    finally:
        if p and p.poll() is None:
            p.kill()
            p.wait()
        trace.close()
        if after:
            after.close()
    try:
        r = schedtop("report", rec)
        check(r.returncode == 0, "report: %r" % r.stderr)
        got = report_states(r.stdout.decode())
        js = rec + ".json"
        r = schedtop("convert", rec, "--json", "-o", js)
        check(r.returncode == 0, "convert: %r" % r.stderr)
        with open(js) as f:
            slices = [e for e in json.load(f)["traceEvents"] if e["ph"] == "X"]
        os.unlink(js)
    finally:
        os.unlink(rec)
    check([up for up, _ in kernel] == [False, True] * cycles,
          "the kernel's operations (up?): %s" % [up for up, _ in kernel])
    check([[e[1:4] for e in evs] for _, evs in later] ==
          [[e[1:4] for e in evs] for _, evs in kernel],
          "the two instances saw different steps")
    want = [(1, "offline"), (1, "online")] * cycles
    check([(c, op) for c, op, _, _ in got] == want,
          "report's operations: %s" % [(c, op) for c, op, _, _ in got])
    check([e["name"] for e in slices] == ["cpu%d %s" % w for w in want],
          "perfetto's hotplug slices: %s" % [e["name"] for e in slices])
    perfetto = [(1, e["name"].split()[1], e["dur"] / 1e3, e["args"]) for e in slices]
    for what, ops in (("report", got), ("perfetto", perfetto)):
        for k, (_, op, total, steps) in enumerate(ops):
            states_match_kernel("%s %d %s" % (what, k, op), total, steps,
                                kernel[k][1], names, ends[k], later[k][1])


@test(root=True)
def report_times_recorded_operations_per_state_bpf():
    recorded_operations_per_state("bpf")


@test(root=True)
def report_times_recorded_operations_per_state_tracefs():
    recorded_operations_per_state("tracefs")


@test(root=True)
def sigterm_leaves_the_cpu_online():
    need_hotplug()
    p = start_schedtop("hotplug", "1", "-n", "50", "--csv")
    try:
        for line in p.stdout:
            if line.startswith(b"2,offline,total,"):
                p.send_signal(signal.SIGTERM)
                break
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    check(p.returncode == 0, "exit %d: %s" % (p.returncode, err))
    check(online(), "cpu1 left offline after SIGTERM")


def affinities():
    """{(tid, starttime): cpus} of every thread, and the IRQs' lists."""
    tasks = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for tid in os.listdir("/proc/%s/task" % pid):
                with open("/proc/%s/stat" % tid) as f:
                    start = f.read().rsplit(")", 1)[1].split()[19]
                tasks[(int(tid), start)] = os.sched_getaffinity(int(tid))
        except OSError:
            continue
    irqs = {}
    for irq in os.listdir("/proc/irq"):
        path = "/proc/irq/%s/smp_affinity_list" % irq
        if os.path.exists(path):
            with open(path) as f:
                irqs[irq] = f.read().strip()
    return tasks, irqs


def check_restored(before_tasks, before_irqs, before_sets=None):
    """Every thread's and IRQ's CPU list, and every cpuset's when
    @before_sets is given, is what it was before (affinities(), cpusets())."""
    if before_sets is not None:
        after_sets = cpusets()
        check(after_sets == before_sets, "cpusets not restored: %s" %
              {k: (v, after_sets.get(k)) for k, v in before_sets.items()
               if after_sets.get(k) != v})
    after_tasks, after_irqs = affinities()
    changed = [(t, sorted(m), sorted(after_tasks[t])) for t, m in before_tasks.items()
               if t in after_tasks and after_tasks[t] != m]
    check(not changed, "affinities not restored: %s" % changed[:5])
    check(after_irqs == before_irqs, "IRQ affinities not restored: %s" %
          {k: (v, after_irqs.get(k)) for k, v in before_irqs.items()
           if after_irqs.get(k) != v})


def processor(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[36])


@test(root=True)
def evacuate_moves_every_user_task_and_restores_exactly():
    need_hotplug()
    import subprocess
    pinned = subprocess.Popen(["taskset", "-c", "1", "sh", "-c", "while :; do :; done"])
    free = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    p = None
    try:
        time.sleep(0.3)
        check(processor(pinned.pid) == 1, "the pinned loop is not on cpu1")
        before_tasks, before_irqs = affinities()
        p = start_schedtop("hotplug", "1", "-n", "2", "--via", "evacuate", "--csv")
        seen, lines = [], []
        for line in p.stdout:
            lines.append(line)
            if b",evacuate,total," in line:
                # Restored 100 ms later: look now.
                seen.append((processor(pinned.pid), processor(free.pid),
                             os.sched_getaffinity(pinned.pid)))
        out, err = p.communicate(timeout=30)
        out = b"".join(lines) + out
        check(p.returncode == 0, "exit %d: %s" % (p.returncode, err))
        check(len(seen) == 2, "evacuations seen: %d" % len(seen))
        for cpu_pinned, cpu_free, mask in seen:
            check(cpu_pinned != 1 and cpu_free != 1 and 1 not in mask,
                  "during evacuation: loops on cpus %d and %d, pinned loop's "
                  "affinity %s" % (cpu_pinned, cpu_free, sorted(mask)))
        check_restored(before_tasks, before_irqs)
        rows = parse_csv(out)
        check([(x["cycle"], x["op"]) for x in rows if x["state"] == "total"] ==
              [("1", "evacuate"), ("1", "restore"), ("2", "evacuate"), ("2", "restore")],
              "operations: %s" % rows)
        check(processor(pinned.pid) == 1 or os.sched_getaffinity(pinned.pid) == {1},
              "pinned loop's affinity not back to cpu1")
    finally:
        for q in (pinned, free):
            q.kill()
            q.wait()
        if p and p.poll() is None:
            p.kill()


STATE = "/run/schedtop/cpu-exit.state"


def cpuset_root():
    """(mount point, v2?) of a hierarchy with cpusets, or Skip."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ")
            mnt, (fstype, _, opts) = left.split()[4], right.split()[:3]
            if fstype == "cgroup" and "cpuset" in opts.split(","):
                return mnt, False
            if fstype == "cgroup2" and os.path.exists(mnt + "/cgroup.subtree_control"):
                with open(mnt + "/cgroup.subtree_control") as c:
                    if "cpuset" in c.read().split():
                        return mnt, True
    raise Skip("no cpuset hierarchy is mounted")


def cpusets():
    """{path: cpuset.cpus} of every cgroup of every cpuset hierarchy."""
    out = {}
    with open("/proc/self/mountinfo") as f:
        mounts = [l.split(" - ")[0].split()[4] for l in f
                  if l.split(" - ")[1].split()[0] in ("cgroup", "cgroup2")]
    for mnt in mounts:
        for d, _, files in os.walk(mnt):
            if "cpuset.cpus" in files:
                with open(d + "/cpuset.cpus") as c:
                    out[d] = c.read().strip()
    return out


class HeldCpuset:
    """A cpuset of the test's own that holds a busy loop on cpu1 only:
    no affinity change can move it, only the cpuset."""

    def __init__(self):
        import subprocess
        root, v2 = cpuset_root()
        self.dir = "%s/test-hp-%d" % (root, os.getpid())
        os.mkdir(self.dir)
        if not v2:
            with open(root + "/cpuset.mems") as f:
                mems = f.read().strip()
            with open(self.dir + "/cpuset.mems", "w") as f:
                f.write(mems)
        with open(self.dir + "/cpuset.cpus", "w") as f:
            f.write("1")
        self.loop = subprocess.Popen(["sh", "-c", "while :; do :; done"])
        with open(self.dir + "/cgroup.procs", "w") as f:
            f.write(str(self.loop.pid))

    def cpus(self):
        with open(self.dir + "/cpuset.cpus") as f:
            return f.read().strip()

    def close(self):
        self.loop.kill()
        self.loop.wait()
        for _ in range(50):
            try:
                os.rmdir(self.dir)
                return
            except OSError:
                time.sleep(0.05)	# the killed loop leaves the cgroup


@test(root=True)
def evacuate_rewrites_the_cpuset_that_holds_a_task_and_restores_it():
    need_hotplug()
    held = HeldCpuset()
    p = None
    try:
        time.sleep(0.3)
        check(processor(held.loop.pid) == 1 and held.cpus() == "1",
              "the cpuset's loop is not on cpu1")
        before_sets, (before_tasks, before_irqs) = cpusets(), affinities()
        p = start_schedtop("hotplug", "1", "-n", "2", "--via", "evacuate", "--csv")
        seen = []
        for line in p.stdout:
            if b",evacuate,total," in line:
                seen.append((processor(held.loop.pid), held.cpus(),
                             sorted(os.sched_getaffinity(held.loop.pid))))
        out, err = p.communicate(timeout=30)
        check(p.returncode == 0, "exit %d: %s" % (p.returncode, err))
        check(len(seen) == 2, "evacuations seen: %d" % len(seen))
        for cpu, cpus, mask in seen:
            check(cpu != 1 and "1" not in cpus.split(",") and 1 not in mask,
                  "during evacuation: the cpuset's loop on cpu %d, cpuset.cpus "
                  "'%s', affinity %s" % (cpu, cpus, mask))
        check_restored(before_tasks, before_irqs, before_sets)
        check(os.sched_getaffinity(held.loop.pid) == {1},
              "the cpuset's loop: affinity %s" % os.sched_getaffinity(held.loop.pid))
        check(not os.path.exists(STATE), "%s left after a clean exit" % STATE)
    finally:
        if p and p.poll() is None:
            p.kill()
        held.close()


@test(root=True)
def sigkill_during_evacuation_is_undone_by_restore():
    need_hotplug()
    import subprocess
    pinned = subprocess.Popen(["taskset", "-c", "1", "sh", "-c", "while :; do :; done"])
    held = HeldCpuset()
    p = None
    try:
        time.sleep(0.3)
        before_sets, (before_tasks, before_irqs) = cpusets(), affinities()
        p = start_schedtop("hotplug", "1", "-n", "50", "--via", "evacuate", "--csv")
        for line in p.stdout:
            if line.startswith(b"1,evacuate,total,"):
                p.kill()
                break
        p.wait(timeout=30)
        check(os.path.exists(STATE), "no %s after SIGKILL" % STATE)
        check(1 not in os.sched_getaffinity(pinned.pid) and held.cpus() != "1",
              "the kill came after the restore: nothing to undo")
        r = schedtop("hotplug", "--restore")
        check(r.returncode == 0 and b"put back" in r.stderr,
              "--restore: exit %d: %s" % (r.returncode, r.stderr))
        check_restored(before_tasks, before_irqs, before_sets)
        check(not os.path.exists(STATE), "%s left after --restore" % STATE)
        r = schedtop("hotplug", "--restore")
        check(r.returncode == 0 and not r.stderr, "a second --restore: exit %d: %s"
              % (r.returncode, r.stderr))
    finally:
        if p and p.poll() is None:
            p.kill()
        pinned.kill()
        pinned.wait()
        held.close()


@test(root=True)
def sigkill_while_offline_is_undone_at_the_next_start():
    need_hotplug()
    p = start_schedtop("hotplug", "1", "-n", "50", "--csv")
    try:
        n = 0
        for line in p.stdout:
            n += 1
            # The next operation starts 100 ms after this one's end.
            if line.startswith(b"1,offline,total,"):
                p.kill()
                break
        p.wait(timeout=30)
        check(not online(), "cpu1 online right after the kill: nothing to undo "
              "(%d lines, exit %d, %s)" % (n, p.returncode, p.stderr.read()))
        r = schedtop("hotplug", "1", "-n", "1", "--csv")
        check(r.returncode == 0 and b"put back" in r.stderr,
              "the next run: exit %d: %s" % (r.returncode, r.stderr))
        check(online(), "cpu1 left offline by the next run")
        check(not os.path.exists(STATE), "%s left" % STATE)
    finally:
        if p.poll() is None:
            p.kill()
        if not online():
            with open(CPU1, "w") as f:
                f.write("1")


@test(root=True)
def no_cpuhp_events_is_one_line_and_exit_1():
    """A kernel without the cpuhp events, made here: a private mount
    namespace lays an empty directory over events/cpuhp of every tracefs
    mount, so schedtop finds no cpuhp_enter/cpuhp_exit and must say what
    the kernel lacks in one line, exit 1 and leave cpu1 and tracefs as they
    were."""
    need_hotplug()
    import shutil
    import subprocess
    import tempfile
    if not shutil.which("unshare"):
        raise Skip("no unshare (util-linux)")
    # Where / is no mount point of its own (a chroot) the kernel refuses
    # a private namespace, and without one the events cannot be hidden.
    r = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if r.returncode != 0:
        raise Skip("no private mount namespace to hide events/cpuhp in: %s"
                   % " ".join(r.stderr.decode(errors="replace").split()))
    from harness import BIN
    empty = tempfile.mkdtemp(prefix="schedtop-nocpuhp-")
    # Every tracefs mount: libtracefs takes the first it finds in mounts.
    script = ("n=0; for m in $(awk '$3 == \"tracefs\" {print $2}' /proc/self/mounts); do "
              "[ -d $m/events/cpuhp ] || continue; mount --bind %s $m/events/cpuhp || exit 99; "
              "n=$((n + $(ls $m/events/cpuhp | wc -l))); done; echo hidden $n; "
              "exec %s hotplug 1 -n 1 --csv" % (empty, BIN))
    before = set(os.listdir(TRACING + "/instances"))
    try:
        p = subprocess.Popen(["unshare", "-m", "sh", "-c", script],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = p.communicate(timeout=60)
    finally:
        os.rmdir(empty)
    out, err = out.decode(errors="replace"), err.decode(errors="replace")
    check(p.returncode != 99, "could not bind over events/cpuhp: %s" % err)
    check(out.startswith("hidden 0\n"), "events/cpuhp still visible: %r" % out[:200])
    lines = err.strip().splitlines()
    print("# schedtop said: %s (exit %d)" % (err.strip(), p.returncode))
    check(p.returncode == 1, "exit %d, not 1: %s" % (p.returncode, err))
    check(len(lines) == 1 and lines[0].startswith("schedtop: cpu1: ") and
          "no cpuhp:cpuhp_enter and cpuhp_exit events" in lines[0] and
          "CONFIG_HOTPLUG_CPU" in lines[0],
          "not the one line that names the missing events and the kernel "
          "options: %r" % err)
    check(out == "hidden 0\n", "output besides the error: %r" % out)
    check(online(), "cpu1 left offline")
    left = set(os.listdir(TRACING + "/instances")) - before
    check("schedtop-%d" % p.pid not in left, "its tracefs instance left: %s" % left)

@test
def bad_arguments_get_one_line():
    for args, want in ((["hotplug"], "which CPU"), (["hotplug", "x"], "bad CPU"),
                       (["hotplug", "1", "--via", "nope"], "bad --via"),
                       (["hotplug", "1", "-n", "0"], "bad --cycles"),
                       (["hotplug", "--restore", "1"], "takes no CPU")):
        r = schedtop(*args)
        check(r.returncode == 2 and want in r.stderr.decode(),
              "%s: exit %d, %s" % (args, r.returncode, r.stderr))


@test(root=True)
def boot_cpu_without_online_file_is_refused():
    if os.path.exists("/sys/devices/system/cpu/cpu0/online"):
        raise Skip("cpu0 can be taken offline here")
    r = schedtop("hotplug", "0", "-n", "1")
    check(r.returncode == 1 and "cannot be taken offline" in r.stderr.decode()
          and len(r.stderr.decode().strip().splitlines()) == 1,
          "exit %d: %s" % (r.returncode, r.stderr))


run()
