"""Ftrace text read as the trace it is: one capture recorded here from a
private tracefs instance, read as the trace.dat of its ring-buffer pages
(tests/tools/trace_dat_from_tracefs.py) and as the instance's own "trace"
text, must give the same rows in every table (task, cpu, cluster, freq,
migration), with and without the TGID column, with and without
sched_waking; and so must that text in a systrace HTML (plain, legacy,
trace2html's gzip), in atrace -z's zlib, and trace-cmd report -t of the
trace.dat. Counted: the rows and the events compared, failing on none.

Exact equality needs the text's times exact: the kernel prints a clock in
ns to the µs (rounded), so these captures use x86-tsc, a clock it prints
as counted (its count is what the trace.dat holds). A capture in the mono
clock is read against an independent parser of its own switch lines
instead: per-CPU busy and per-task run time within 0.1% of the window,
head and tail included, no row past the last event.

Events that cannot fire here are not recorded (no cpufreq, no hotplug): a
trace.dat stores the formats of the events recorded, text only the events
that fired, so such a column reads 0 from one and empty from the other.
devlib's trace_marker lines give the frequency table its rows.
"""
import base64
import collections
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

from harness import (SRC, Inconclusive, Skip, check, parse_csv, run, schedtop,
                     test, trace_cmd_report)

sys.path.insert(0, os.path.join(SRC, "tests", "tools"))
from trace_dat_from_tracefs import TracefsRecording, mounted  # noqa: E402

EVENTS = ["sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
          "sched/sched_wakeup_new", "sched/sched_migrate_task",
          "sched/sched_process_exit", "sched/sched_process_free",
          "sched/sched_stat_runtime", "task/task_newtask", "task/task_rename",
          "power/cpu_idle"]
TABLES = ["task", "cpu", "cluster", "freq", "migration"]
TOPO = "a:0@512,b:1@1024"
JUNO = os.path.join(SRC, "tests", "fixtures", "trace", "juno-excerpt.dat")
JUNO_TOPO = "LITTLE:0,3-5@446,big:1-2@1024"
FIXTURE = os.path.join(SRC, "tests", "fixtures", "trace-text", "linux-6.18-trace.txt")
EXIT_AFTER_GAP = os.path.join(SRC, "tests", "fixtures", "trace-text",
                              "exit-after-unrecorded-switch.txt")

# 0.6 s: a process moving between the CPUs (migrations across clusters)
# with a thread of its own (a TGID that is not its pid), short children that
# exec (task_rename) and exit, and devlib's frequency lines, changed midway.
WORKLOAD = r"""
import os, subprocess, sys, threading, time
marker = sys.argv[1]
def mark(cpu, khz):
    with open(marker, "w") as f:
        f.write("cpu_frequency: state=%d cpu_id=%d" % (khz, cpu))
mark(0, 1000000)
mark(1, 1500000)
pid = os.fork()
if pid == 0:
    def spin(t):
        end = time.time() + t
        while time.time() < end:
            pass
    th = threading.Thread(target=spin, args=(0.2,))
    th.start()
    end, i = time.time() + 0.5, 0
    while time.time() < end:
        os.sched_setaffinity(0, {i % 2})
        i += 1
        spin(0.01)
    th.join()
    os._exit(0)
for _ in range(4):
    subprocess.run(["sleep", "0.02"])
time.sleep(0.15)
mark(0, 2000000)
time.sleep(0.15)
mark(1, 1000000)
os.waitpid(pid, 0)
"""


def tracefs():
    if not mounted():
        r = subprocess.run([os.path.join(SRC, "scripts", "mount-tracefs")],
                           capture_output=True, text=True)
        if r.returncode:
            raise Skip("tracefs not mounted: %s" % r.stderr.strip())


def record(d, clock, waking=True, tgid=False, workload=WORKLOAD):
    """The capture of @workload: its trace.dat, its text (and with the TGID
    column, and the kernel's pid -> tgid map, saved_tgids)."""
    tracefs()
    with open("/sys/kernel/tracing/trace_clock") as f:
        if clock not in f.read().replace("[", " ").replace("]", " ").split():
            raise Skip("no %s trace clock here" % clock)
    events = [e for e in EVENTS if waking or e != "sched/sched_waking"]
    captures = [("text", {"record-tgid": "0"}, "trace")]
    if tgid:
        # saved_tgids is tracefs's own, not an instance's.
        captures = [("tgid", {}, "trace"), ("saved_tgids", {}, "../../saved_tgids")] + captures
    with TracefsRecording(events, clock=clock, options=["record-tgid"] if tgid else [],
                          captures=captures, markers=True) as rec:
        p = subprocess.run([sys.executable, "-c", workload,
                            os.path.join(rec.inst, "trace_marker")])
    check(p.returncode == 0, "the workload exited %d" % p.returncode)
    check(rec.lost == 0, "the ring buffer lost %d events" % rec.lost)
    check(rec.unread == 0, "the pages lack %d events the kernel held" % rec.unread)
    out = {"dat": os.path.join(d, "capture.dat")}
    rec.write(out["dat"])
    for name, data in rec.captured.items():
        out[name] = os.path.join(d, name + ".txt")
        with open(out[name], "wb") as f:
            f.write(data)
    return out


def tables(path, *extra):
    """Every table of csv --from PATH, as rows."""
    out = {}
    for t in TABLES:
        r = schedtop("csv", "--from", path, "--topology", TOPO, "-t", t, *extra)
        check(r.returncode == 0, "csv --from %s -t %s: exit %d\n%s" %
              (os.path.basename(path), t, r.returncode, r.stderr.decode()[-800:]))
        out[t] = parse_csv(r.stdout)
    return out


def same_rows(want, got, what, skip=()):
    """The rows of every table equal (but the columns in @skip); their number."""
    n = 0
    for t in TABLES:
        a = [{k: v for k, v in row.items() if k not in skip} for row in want[t]]
        b = [{k: v for k, v in row.items() if k not in skip} for row in got[t]]
        check(a, "%s: no %s rows to compare" % (what, t))
        for i, (x, y) in enumerate(zip(a, b)):
            check(x == y, "%s, table %s, row %d: %s" % (
                what, t, i, {k: (x[k], y.get(k)) for k in x if x[k] != y.get(k)}))
        check(len(a) == len(b), "%s: %d %s rows, the trace.dat's %d" %
              (what, len(b), t, len(a)))
        n += len(a)
    return n


def event_lines(text):
    return sum(1 for line in text.splitlines() if line.strip() and
               not line.startswith("#"))


def dat_records(dat):
    """The trace.dat's records, as trace-cmd itself decodes them."""
    r = trace_cmd_report("-t", "-i", dat)
    check(r.returncode == 0, "trace-cmd report: %s" % r.stderr)
    return [line for line in r.stdout.splitlines()
            if re.search(r"\[\d+\]\s*\d+(\.\d+)?:", line)]


# ---- the containers systrace and atrace put the text in ----

HTML_HEAD = ("<!DOCTYPE html>\n<html>\n<head i18n-values=\"dir:textdirection;\">\n"
             "<meta charset=\"utf-8\"/>\n<title>Android System Trace</title>\n"
             "<script>var traceData = document.querySelectorAll("
             "'script[class=\"trace-data\"]');</script>\n</head>\n<body>\n")


def systrace_html(text, how):
    """@text as catapult's systrace writes it: in a trace-data block after
    a Chrome JSON one ("plain"); each line ending in a JavaScript "\\n\\"
    (the legacy systrace, "legacy"); or, as trace2html (systrace with more
    than four agents) does, base64 of gzip in a viewer-data block."""
    if how == "plain":
        body = ('<!-- BEGIN TRACE -->\n  <script class="trace-data" '
                'type="application/text">\n{"traceEvents": []}  </script>\n'
                '  <script class="trace-data" type="application/text">\n'
                + text.decode() + '  </script>\n<!-- END TRACE -->\n')
    elif how == "legacy":
        body = ('<!-- BEGIN TRACE -->\n  <script class="trace-data" '
                'type="application/text">\n' + text.decode().replace("\n", "\\n\\\n")
                + '  </script>\n<!-- END TRACE -->\n')
    else:
        body = ('<script id="viewer-data" type="text/plain">\n' +
                base64.b64encode(gzip.compress(text)).decode() + '\n</script>\n')
    return (HTML_HEAD + body + "</body>\n</html>\n").encode()


def containers(d, text):
    """The text in each container; {name: path}."""
    out = {}
    for how in ("plain", "legacy", "gzip"):
        out["systrace-" + how] = os.path.join(d, "systrace-%s.html" % how)
        with open(out["systrace-" + how], "wb") as f:
            f.write(systrace_html(text, how))
    out["atrace-z"] = os.path.join(d, "atrace-z.txt")
    with open(out["atrace-z"], "wb") as f:
        f.write(b"capturing trace... done\nTRACE:\n" + zlib.compress(text))
    return out


@test(root=True)
def text_reads_as_its_trace_dat():
    with tempfile.TemporaryDirectory() as d:
        cap = record(d, "x86-tsc", tgid=True)
        with open(cap["text"], "rb") as f:
            text = f.read()
        records = dat_records(cap["dat"])
        check(event_lines(text.decode()) == len(records),
              "the text has %d events, the trace.dat %d (trace-cmd)" %
              (event_lines(text.decode()), len(records)))
        want = tables(cap["dat"])
        n = same_rows(want, tables(cap["text"]), "the kernel's text")
        # trace-cmd report -t: its own line format, in ns.
        rep = os.path.join(d, "report.txt")
        r = subprocess.run(["trace-cmd", "report", "-t", "-i", cap["dat"]],
                           capture_output=True)
        check(r.returncode == 0, "trace-cmd report -t: %s" % r.stderr.decode())
        with open(rep, "wb") as f:
            f.write(r.stdout)
        same_rows(want, tables(rep), "trace-cmd report -t")
        # The same text in systrace's and atrace's containers.
        for name, path in containers(d, text).items():
            same_rows(want, tables(path), name)
        # With the TGID column: the same but for the thread's process,
        # which only the text says (a trace.dat has no tgids).
        got = tables(cap["tgid"])
        same_rows(want, got, "the text with TGIDs", skip=("tgid",))
        # The tgids the column shows (a thread whose own events the kernel
        # never recorded is not in it), each the kernel's saved_tgids one.
        with open(cap["saved_tgids"]) as f:
            kernel = dict(map(int, line.split()) for line in f if line.strip())
        with open(cap["tgid"]) as f:
            shown = {int(m.group(1)): int(m.group(2)) for m in
                     re.finditer(r"-(\d+)\s+\(\s*(\d+)\)\s+\[", f.read())}
        wrong = {p: (t, kernel.get(p)) for p, t in shown.items() if kernel.get(p) != t}
        check(not wrong, "the TGID column against saved_tgids: %s" % wrong)
        rows = [row for row in got["task"] if int(row["pid"]) in shown]
        bad = {row["pid"]: (row["tgid"], shown[int(row["pid"])]) for row in rows
               if int(row["tgid"]) != shown[int(row["pid"])]}
        check(rows and not bad, "tgid (schedtop, the TGID column) of %d rows "
              "differ: %s" % (len(bad), bad))
        threads = {row["pid"] for row in rows if row["pid"] != row["tgid"]}
        check(threads, "no thread with a TGID apart from its pid in the text")
        print("# %d events, %d rows identical from the trace.dat, the text, "
              "trace-cmd report -t, systrace (plain, legacy, gzip) and atrace "
              "-z; with the TGID column, the tgids of %d rows are the kernel's "
              "(%d threads)" % (len(records), n, len(rows), len(threads)))


@test(root=True)
def text_without_sched_waking():
    with tempfile.TemporaryDirectory() as d:
        cap = record(d, "x86-tsc", waking=False)
        with open(cap["text"]) as f:
            text = f.read()
        check("sched_waking:" not in text and "sched_wakeup:" in text,
              "the capture has sched_waking, or no sched_wakeup")
        n = same_rows(tables(cap["dat"]), tables(cap["text"]), "sched_wakeup only")
        wakeups = sum(int(r["wakeups"]) for r in parse_csv(schedtop(
            "csv", "--from", cap["text"], "-t", "task").stdout))
        check(wakeups, "no wakeups counted from sched_wakeup")
        print("# %d rows identical, %d wakeups from sched_wakeup alone" % (n, wakeups))


# A thread renamed while it sleeps: its sibling writes its comm (as Java's
# Thread.setName() on another thread does), and it wakes 0.4 s later.
RENAMED_ASLEEP = r"""
import threading, time
ev, tid = threading.Event(), []
def sleeper():
    tid.append(threading.get_native_id())
    ev.wait()
t = threading.Thread(target=sleeper)
t.start()
time.sleep(0.15)
with open("/proc/self/task/%d/comm" % tid[0], "w") as f:
    f.write("renamed-asleep")
time.sleep(0.4)
ev.set()
t.join()
"""
RENAME_LINE = re.compile(r"\s(\d+)\.(\d{6}): task_rename: pid=(\d+) oldcomm=(.*) "
                         r"newcomm=renamed-asleep ")


@test(root=True)
def a_thread_renamed_asleep_is_named_from_then():
    """Its rows are under its new name from the capture's own task_rename
    on, while it sleeps (no switch or wakeup names it until it wakes), and
    under its old one before: in the text and in the trace.dat."""
    with tempfile.TemporaryDirectory() as d:
        cap = record(d, "mono", workload=RENAMED_ASLEEP)
        with open(cap["text"]) as f:
            text = f.read()
        m = RENAME_LINE.search(text)
        check(m, "no task_rename to renamed-asleep in the capture")
        renamed_at = int(m.group(1)) * 1_000_000_000 + int(m.group(2)) * 1000
        tid, old = m.group(3), m.group(4)
        woke = [int(a) * 1_000_000_000 + int(b) * 1000 for a, b in re.findall(
            r"\s(\d+)\.(\d{6}): sched_wak\w+: comm=\S+ pid=%s " % tid, text)]
        woke = [w for w in woke if w > renamed_at]
        check(woke, "thread %s: no wakeup after its rename in the capture" % tid)
        woke_at = min(woke)
        for what in ("text", "dat"):
            rows = [r for r in parse_csv(schedtop("csv", "--from", cap[what], "-t", "task",
                                                  "-i", "50").stdout) if r["pid"] == tid]
            before = [r["comm"] for r in rows if int(r["ts_ns"]) < renamed_at]
            asleep = [r["comm"] for r in rows if renamed_at <= int(r["ts_ns"]) < woke_at]
            check(set(before) == {old} and set(asleep) == {"renamed-asleep"},
                  "%s: thread %s's rows before its rename %s, asleep after it %s"
                  % (what, tid, collections.Counter(before), collections.Counter(asleep)))
            check(len(before) >= 1 and len(asleep) >= 4, "%s: %d rows before the rename, "
                  "%d after it asleep: too few" % (what, len(before), len(asleep)))
            print("# %s: thread %s, %d rows as %s before its rename, %d as renamed-asleep "
                  "from it to its wakeup %.3f s later" % (what, tid, len(before), old,
                                                          len(asleep),
                                                          (woke_at - renamed_at) / 1e9))


# ---- an independent reading of the kernel's text ----

LINE = re.compile(r"^\s*(.*?)-(\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(\d+)\]\s+(?:\S+\s+)?"
                  r"(\d+)\.(\d{6}):\s+(\w+):\s*(.*)$")
SWITCH = re.compile(r"prev_pid=(\d+) .* ==> next_comm=.* next_pid=(\d+) next_prio=")


class OwnSwitches:
    """The window, each CPU's busy time and each task's run time from the
    text's own lines: before a CPU's first switch its previous task ran
    from the window's start; after the last, its next task to the window's
    end; in between, the switches. Where the switches do not chain (the
    kernel recorded nothing while some of this sandbox's threads ran:
    TracefsRecording.silent), the task current by the switches was last
    seen at one event and another task is named by the next (its common
    pid, or the switch's previous task): the switch between them went
    unrecorded, somewhere in that gap. A task switched in while another
    CPU's switches still have it left that CPU then, likewise. .busy and
    .run count what is certain; .slack_busy and .slack_run the gaps a CPU
    or a task may have run in; .breaks how many."""

    def __init__(self, text):
        lines = []
        for line in text.splitlines():
            m = LINE.match(line)
            if not m:
                continue
            ts = int(m.group(4)) * 10**9 + int(m.group(5)) * 1000
            cpu, pid = int(m.group(3)), int(m.group(2))
            if m.group(6) == "sched_switch":
                s = SWITCH.search(m.group(7))
                lines.append((ts, cpu, int(s.group(1)), int(s.group(2))))
            else:
                lines.append((ts, cpu, pid, None))
        self.first, self.last = lines[0][0], max(t for t, _, _, _ in lines)
        self.switches = sum(1 for line in lines if line[3] is not None)
        self.busy, self.run = collections.Counter(), collections.Counter()
        self.slack_busy, self.slack_run = collections.Counter(), collections.Counter()
        self.breaks = 0
        current = {}            # cpu -> [pid, since, last seen]
        for ts, cpu, named, nxt in lines:
            if nxt is not None and cpu not in current:
                current[cpu] = [named, self.first, self.first]
        for ts, cpu, named, nxt in lines:
            if cpu not in current:
                continue        # before the CPU's first switch: its head
            if named != current[cpu][0]:
                self._unrecorded(cpu, current, ts, named)
            current[cpu][2] = ts
            if nxt is None:
                continue
            self._close(cpu, current, ts)
            for other, cur in current.items():
                if nxt and other != cpu and cur[0] == nxt:
                    self._unrecorded(other, current, ts, 0)
            current[cpu] = [nxt, ts, ts]
        for cpu in current:
            self._close(cpu, current, self.last)

    def _close(self, cpu, current, end):
        pid, since, _ = current[cpu]
        if pid:
            self.busy[cpu] += end - since
            self.run[pid] += end - since

    def _unrecorded(self, cpu, current, ts, pid):
        gone, _, seen = current[cpu]
        self._close(cpu, current, seen)
        self.breaks += 1
        for p in (gone, pid):
            if p:
                self.slack_run[p] += ts - seen
        if gone or pid:
            self.slack_busy[cpu] += ts - seen
        current[cpu] = [pid, ts, ts]


def within(mine, low, slack, tol):
    """{key: (mine, low, high)} of those outside [low - tol, low + slack + tol]."""
    return {k: (mine[k], low[k], low[k] + slack[k]) for k in set(low) | set(mine)
            if not low[k] - tol <= mine[k] <= low[k] + slack[k] + tol}


@test
def exit_after_an_unrecorded_switch_runs_to_its_last_switch():
    """A task runs on after its sched_process_exit until its last switch,
    and schedtop holds the exit until then, also when the switch that put
    it on its CPU is not in the trace (the fixture: python3 30269 back on
    CPU 1 unseen, then 1.013 ms from its exit to its last switch; schedtop
    ended its run at the exit, text_times_are_its_own_switches failed on
    it). Truths: the text's own switches, and the kernel's own account of
    its run (sched_stat_runtime, update_curr()'s deltas)."""
    with open(EXIT_AFTER_GAP) as f:
        text = f.read()
    own = OwnSwitches(text)
    low, high = own.run[30269], own.run[30269] + own.slack_run[30269]
    kernel = sum(int(n) for n in re.findall(
        r"sched_stat_runtime: comm=\S+ pid=30269 runtime=(\d+)", text))
    check(low <= kernel <= high, "the fixture's truths disagree: switches "
          "%d..%d ns, sched_stat_runtime %d" % (low, high, kernel))
    rows = [r for r in parse_csv(schedtop("csv", "--from", EXIT_AFTER_GAP,
                                          "-t", "task").stdout)
            if r["pid"] == "30269"]
    ran = sum(int(r["run_ns"]) for r in rows)
    check(rows and rows[-1]["state"] == "X", "no exit row: %s" % rows)
    check(low <= ran <= high, "python3 30269 ran %d ns by schedtop, %d..%d "
          "by the switches (the kernel's sched_stat_runtime: %d)"
          % (ran, low, high, kernel))
    print("# python3 30269: %d ns by schedtop, %d..%d by the switches, %d "
          "by sched_stat_runtime" % (ran, low, high, kernel))


@test(root=True)
def text_times_are_its_own_switches():
    with tempfile.TemporaryDirectory() as d:
        cap = record(d, "mono")
        with open(cap["text"]) as f:
            own = OwnSwitches(f.read())
        window = own.last - own.first
        check(own.switches > 100, "only %d switches" % own.switches)
        cpu_rows = parse_csv(schedtop("csv", "--from", cap["text"], "-t", "cpu").stdout)
        task_rows = parse_csv(schedtop("csv", "--from", cap["text"], "-t", "task").stdout)
        busy, ran = collections.Counter(), collections.Counter()
        for row in cpu_rows:
            busy[int(row["cpu"])] += int(row["busy_ns"])
        for row in task_rows:
            ran[int(row["pid"])] += int(row["run_ns"])
        late = max(int(row["ts_ns"]) for row in cpu_rows + task_rows)
        check(late <= own.last, "a row at %d ns, past the last event at %d" %
              (late, own.last))
        check(late == own.last, "the last row at %d ns, the last event at %d" %
              (late, own.last))
        tol = window // 1000
        off_busy = within(busy, own.busy, own.slack_busy, tol)
        off_run = within(ran, own.run, own.slack_run, tol)
        if off_busy or off_run:
            # Once in a repeat of 5 (7 Dec): pid 16194 1.2 ms short of its
            # switches. Kept from then on; a kept one (8 Dec) was an exit
            # after an unrecorded switch
            # (exit_after_an_unrecorded_switch_runs_to_its_last_switch).
            kept = tempfile.mkdtemp(prefix="schedtop-text-times-")
            shutil.copy(cap["text"], kept)
            print("# the capture is kept: %s" % kept)
        check(busy and not off_busy, "busy time (schedtop, the switches' low, "
              "high) more than 0.1%% of the %d ns window outside the text's own "
              "on CPUs %s" % (window, off_busy))
        check(ran and not off_run, "run time (schedtop, the switches' low, high) "
              "more than 0.1%% of the window outside the text's own for pids %s"
              % off_run)
        print("# %d switches over %.3f s: busy time of %d CPUs and run time of "
              "%d tasks within %d ns (0.1%%) of the text's own; %d switches "
              "unrecorded, in gaps of %d us in all; the last row at the last "
              "event" % (own.switches, window / 1e9, len(own.busy), len(own.run),
                         tol, own.breaks, sum(own.slack_busy.values()) // 1000))


@test
def juno_report_text_reads_as_its_trace_dat():
    """trace-cmd report -t of the Juno excerpt (a 4.x kernel's trace.dat):
    libtraceevent's own sched_switch words and prev_state bits, the 4.x
    kernel told from them. Its wakeups column is left out: the trace.dat
    stores sched_wakeup's format though none fired (0), the text cannot
    say it was recorded (then a wakeup is a sleep that ended)."""
    if subprocess.run(["which", "trace-cmd"], capture_output=True).returncode:
        raise Skip("no trace-cmd")
    with tempfile.TemporaryDirectory() as d:
        rep = os.path.join(d, "juno.txt")
        r = trace_cmd_report("-t", "-i", JUNO)
        check(r.returncode == 0, "trace-cmd report: %s" % r.stderr)
        with open(rep, "w") as f:
            f.write(r.stdout)
        global TOPO
        topo, TOPO = TOPO, JUNO_TOPO
        try:
            n = same_rows(tables(JUNO), tables(rep), "the Juno report",
                          skip=("wakeups",))
        finally:
            TOPO = topo
        print("# %d rows identical (but wakeups)" % n)


# ---- bad input: one line, exit 1, read up to the damage ----

def damaged(path, *, line=None):
    """csv --from PATH: exit 1 with one line naming PATH and the place;
    the rows before the damage written. Returns that line."""
    r = schedtop("csv", "--from", path, "-t", "cpu")
    err = r.stderr.decode(errors="replace").splitlines()
    said = [e for e in err if "damaged at" in e or not e.startswith("schedtop: note:")]
    check(r.returncode == 1, "%s: exit %d (crash?)\n%s" % (path, r.returncode, err))
    check(len(said) == 1 and path in said[0], "%s: not one line naming it: %s" % (path, said))
    if line:
        check("damaged at line %d:" % line in said[0], "%s: not at line %d: %s" %
              (path, line, said[0]))
    return said[0], parse_csv(r.stdout) if r.stdout else []


@test
def bad_text_is_one_line_and_exit_1():
    with open(FIXTURE, "rb") as f:
        good = f.read()
    lines = good.split(b"\n")
    events = [i for i, line in enumerate(lines) if line and not line.startswith(b"#")]
    check(len(events) > 100, "the fixture has %d events" % len(events))
    cases = 0
    with tempfile.TemporaryDirectory() as d:
        def put(name, data):
            path = os.path.join(d, name)
            with open(path, "wb") as f:
                f.write(data)
            return path

        # Cut anywhere in a line: that line is named, what came before read.
        for i in (events[3], events[len(events) // 2], events[-2]):
            for cut in (1, 20, 60, len(lines[i]) - 1):
                data = b"\n".join(lines[:i]) + b"\n" + lines[i][:cut]
                _, rows = damaged(put("cut.txt", data), line=i + 1)
                check(i < events[len(events) // 2] or rows, "nothing read before line %d" % (i + 1))
                cases += 1
        # A line that is no ftrace line, one cut short inside, one too long,
        # a NUL byte: each named by its line.
        mid = events[len(events) // 2]
        sw = next(i for i in events[mid - events[0]:] if b"sched_switch:" in lines[i])
        for bad in (b"hello world", lines[sw][:lines[sw].index(b"next_pid=") + 9] + b" x",
                    b"a" * 5000, lines[mid][:30] + b"\0" + lines[mid][30:]):
            data = b"\n".join(lines[:mid] + [bad] + lines[mid:])
            msg, rows = damaged(put("bad.txt", data), line=mid + 1)
            check(rows and "read up to there" in msg, "no rows before the damage: %s" % msg)
            cases += 1
        # Compressed data cut short, changed, or inflating without end.
        b64 = base64.b64encode(gzip.compress(good)).decode()
        html = (HTML_HEAD + '<script id="viewer-data" type="text/plain">\n' +
                b64[:len(b64) // 2] + '\n</script>\n').encode()
        damaged(put("cut.html", html))
        z = bytearray(zlib.compress(good))
        z[len(z) // 2] ^= 0x55
        damaged(put("changed.txt", b"TRACE:\n" + bytes(z)))
        msg, _ = damaged(put("bomb.txt", b"TRACE:\n" + zlib.compress(b"#\n" * (50 << 20), 9)))
        check("256 times" in msg, "the deflate bomb: %s" % msg)
        # A trace-data block the file ends inside.
        damaged(put("open.html", systrace_html(good, "plain")[:-60]))
        cases += 4
    print("# %d damaged texts: each one line at its place, exit 1" % cases)


if __name__ == "__main__":
    run()
