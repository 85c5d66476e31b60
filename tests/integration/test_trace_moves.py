"""Moves and exits in a trace.dat recorded on this machine, read by
csv --from and report with clusters given by --topology, against
trace-cmd report's own decoding of the same file (every sched_migrate_task
event, by CPU pair and by task) and against the moving task's
/proc/PID/schedstat run time read just before it exits.

trace-cmd cannot record here: the file is written from a private tracefs
instance's raw ring-buffer pages (tests/tools/trace_dat_from_tracefs.py).
The task moves itself between the two CPUs every 20 ms of spinning for 2
s, then exits, all within the trace. The kernel records no event while
some of the sandbox's own threads run (TracefsRecording.silent): a stint
of the mover begun then has no switch in; each such one must end one of
those stretches, and bounds what schedtop may count beyond trace-cmd."""
import collections
import os
import re
import subprocess
import sys
import tempfile

from harness import (SRC, Inconclusive, Skip, check, parse_csv, run,
                     schedtop, test, trace_cmd_report)

sys.path.insert(0, os.path.join(SRC, "tests", "tools"))
from trace_dat_from_tracefs import TracefsRecording, mounted  # noqa: E402

EVENTS = ["sched/sched_switch", "sched/sched_wakeup", "sched/sched_wakeup_new",
          "sched/sched_migrate_task", "sched/sched_process_exit"]
TOPO = "a:0@512,b:1@1024"
MOVER = """
import os, time
end = time.time() + 2
i = 0
while time.time() < end:
    os.sched_setaffinity(0, {i % 2})
    i += 1
    t = time.time() + 0.02
    while time.time() < t:
        pass
"""
EVENT = re.compile(r"\s(\d+)\.(\d{9}): (sched_switch|sched_process_exit):"
                   r"(?:.* pid=(\d+) |.*:(\d+) \[-?\d+\] \S+ ==> .*:(\d+) \[)")
MIGRATE = re.compile(r"sched_migrate_task:.* pid=(\d+) prio=-?\d+ "
                     r"orig_cpu=(\d+) dest_cpu=(\d+)")


def record(d):
    if not mounted():
        r = subprocess.run([os.path.join(SRC, "scripts", "mount-tracefs")],
                           capture_output=True, text=True)
        if r.returncode:
            raise Skip("tracefs not mounted: %s" % r.stderr.strip())
    with TracefsRecording(EVENTS) as rec:
        p = subprocess.Popen([sys.executable, "-c", MOVER])
        # Exited but not reaped: its schedstat is final, through its exit.
        os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
        with open("/proc/%d/schedstat" % p.pid) as f:
            run_ns, _, stints = map(int, f.read().split())
        p.wait()
    check(p.returncode == 0, "mover exited %d" % p.returncode)
    dat = os.path.join(d, "moves.dat")
    rec.write(dat)
    check(rec.lost == 0, "the ring buffer lost %d events" % rec.lost)
    check(rec.unread == 0, "the pages lack %d events the kernel held" %
          rec.unread)
    return dat, p.pid, run_ns, stints, rec.silent


def run_until_exit(dat, pid, silent):
    """@pid's time on a CPU by trace-cmd's decoding, its last stint ended
    by its sched_process_exit; its time from that to its last switch (None
    without an exit event); and, for its switches out that follow no
    switch in, the unrecorded stretch (of @silent) each ends, whose
    length bounds the stint whose start the trace lacks."""
    r = trace_cmd_report("-t", "-i", dat)
    check(r.returncode == 0, "trace-cmd report -t: %s" % r.stderr)
    since = exit_ts = last_out = None
    ran, hidden = 0, []
    ends = {b: b - a for _, a, b in silent}
    for m in EVENT.finditer(r.stdout):
        ts = int(m.group(1)) * 10**9 + int(m.group(2))
        if m.group(3) == "sched_process_exit":
            if int(m.group(4)) == pid and since is not None:
                ran += ts - since
                since, exit_ts = None, ts
            continue
        if int(m.group(5)) == pid:
            if since is not None:
                ran += ts - since
            elif exit_ts is None:
                # None: a switch missing with every CPU's chain whole,
                # which only a reader or writer of ours could lose.
                hidden.append(ends.get(ts))
            since, last_out = None, ts
        if int(m.group(6)) == pid and exit_ts is None:
            since = ts
    return ran, (last_out - exit_ts if exit_ts else None), hidden


@test(root=True)
def moves_and_exits_as_trace_cmd_reads_them():
    with tempfile.TemporaryDirectory() as d:
        dat, mover, run_ns, stints, silent = record(d)
        r = trace_cmd_report("-i", dat)
        check(r.returncode == 0, "trace-cmd report: %s" % r.stderr)
        pairs, by_pid = collections.Counter(), collections.Counter()
        for m in MIGRATE.finditer(r.stdout):
            pid, orig, dest = map(int, m.groups())
            if orig != dest:
                pairs[(orig, dest)] += 1
                by_pid[(pid, dest > orig)] += 1
        check(sum(pairs.values()) >= 50, "trace-cmd decoded only %d moves"
              % sum(pairs.values()))
        r = schedtop("csv", "--from", dat, "--topology", TOPO, "-t", "migration")
        check(r.returncode == 0, "csv --from -t migration: %s" % r.stderr)
        got = collections.Counter()
        for row in parse_csv(r.stdout):
            got[(row["from_cluster"], row["to_cluster"])] += int(row["count"])
        want = {("a", "b"): pairs[(0, 1)], ("b", "a"): pairs[(1, 0)]}
        check(dict(got) == want, "cluster moves %s, trace-cmd's %s" %
              (dict(got), want))
        r = schedtop("csv", "--from", dat, "--topology", TOPO, "-t", "task")
        check(r.returncode == 0, "csv --from -t task: %s" % r.stderr)
        up, down, ran = collections.Counter(), collections.Counter(), {}
        for row in parse_csv(r.stdout):
            pid = int(row["pid"])
            up[pid] += int(row["up_migrations"])
            down[pid] += int(row["down_migrations"])
            ran[pid] = ran.get(pid, 0) + int(row["run_ns"])
        # CPU 1 (b) has the greater capacity: a move to it is up.
        bad = {pid: (up[pid], down[pid], by_pid[(pid, True)], by_pid[(pid, False)])
               for pid in {p for p, _ in by_pid} | set(up) | set(down)
               if (up[pid], down[pid]) != (by_pid[(pid, True)], by_pid[(pid, False)])}
        check(not bad, "up/down per pid (schedtop, trace-cmd): %s" % bad)
        # The mover's run time through its exit, as the trace's own
        # switches time it (exactly: trace-cmd report -t prints them in
        # ns): its stints, the last one up to its last switch out, after
        # sched_process_exit (do_exit() runs on; schedtop holds the exit
        # until that switch, docs/signals.md "A trace's window").
        check(by_pid[(mover, True)] > 20, "the mover %d made %d up moves" %
              (mover, by_pid[(mover, True)]))
        traced, after_exit, hidden = run_until_exit(dat, mover, silent)
        check(None not in hidden, "%d of the mover's switches out follow no "
              "switch in where no CPU's switches break their chain" %
              hidden.count(None))
        if after_exit is None:
            raise Inconclusive("the mover's sched_process_exit is missing")
        # The kernel records nothing while some of the sandbox's threads
        # run (TracefsRecording.silent): a stint begun in such a stretch
        # has no switch in. trace-cmd's decoding does not count it;
        # schedtop makes the switch up, dated within the stretch
        # (engine_current(): no earlier than the CPU's last event before
        # the mover's, no later than that), so it counts at most the
        # stretch. Without such stints the two agree to the ns.
        mine = ran.get(mover, 0)
        whole = traced + after_exit
        check(whole <= mine <= whole + sum(hidden),
              "mover %d ran %d ns by schedtop, %d ns by trace-cmd's switches "
              "(%d of them after its exit event) and at most %d ns more in %d "
              "stints begun unrecorded" %
              (mover, mine, whole, after_exit, sum(hidden), len(hidden)))
        print("# %d moves (a->b %d, b->a %d); the mover ran %d ns to its "
              "exit event as trace-cmd's switches say; its final schedstat "
              "(%d stints) is %+d ns beside that, %d ns of which it ran "
              "after the exit event; %d stints begun in unrecorded stretches "
              "(%d ns long; %d stretches on both CPUs), schedtop %+d ns beside "
              "its switches through the last" % (
                  sum(pairs.values()), want[("a", "b")], want[("b", "a")],
                  traced, stints, run_ns - traced, after_exit, len(hidden),
                  sum(hidden), len(silent), mine - whole))


if __name__ == "__main__":
    run()
