"""schedtop's own --atrace counters read back: a capture that holds them
(ftrace text, trace.dat, a Perfetto trace of the same events) read with
csv --trace gives, at each row's time, the value of the latest counter line
of that row's field, not the engine's estimate. The truth is the capture's
raw text, parsed here (C|PID|NAME|VALUE lines of tracing_mark_write), never
schedtop: a field is compared where its latest line at or before the row is
less than one of its own intervals old (unambiguous), and the count of what
was compared must reach a minimum. The same capture without the counter
lines must give other values (the engine's), marked pelt_estimated.

Root: a capture recorded here (a private tracefs instance that takes a
copy of every top-level trace_marker write, options/copy_trace_marker, 6.17+)
while csv --atrace runs. Without root: the committed excerpt of such a
capture (tests/fixtures/trace-text/atrace-counters.txt.xz, README beside it),
as text and as a Perfetto trace built here from its lines."""
import lzma
import os
import re
import subprocess
import sys
import tempfile
import time

from harness import (BIN, SRC, Skip, check, parse_csv, run, schedtop, test)

sys.path.insert(0, os.path.join(SRC, "tests", "tools"))
from perfetto_bytes import field  # noqa: E402
from trace_dat_from_tracefs import TracefsRecording, mounted  # noqa: E402

TMP = tempfile.mkdtemp(prefix="schedtop-atrace-read-")
TOPO = "LITTLE:0@446,big:1@1024"
EVENTS = ["sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
          "sched/sched_wakeup_new", "sched/sched_process_exit"]
FIXTURE = os.path.join(SRC, "tests", "fixtures", "trace-text", "atrace-counters.txt.xz")
LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): (\w+): (.*)$")
COUNTER = re.compile(r"^C\|(\d+)\|([ -{}~]+)\|(-?\d+)$")
SWITCH = re.compile(r"prev_comm=(.*) prev_pid=(\d+) prev_prio=(\d+) prev_state=(\S+) "
                    r"==> next_comm=(.*) next_pid=(\d+) next_prio=(\d+)")
WAKE = re.compile(r"comm=(.*) pid=(\d+) prio=(\d+) target_cpu=(\d+)")
# Two busy tasks: one name with a space (a COMM may hold them).
SPIN = ("import ctypes,time\n"
        "ctypes.CDLL(None).prctl(15, %r, 0, 0, 0)\n"
        "end=time.monotonic()+30\n"
        "while time.monotonic()<end:\n"
        "    t=time.perf_counter()+%s\n"
        "    while time.perf_counter()<t: pass\n"
        "    time.sleep(0.02)\n")


def path(name):
    return os.path.join(TMP, name)


def events(text):
    """(ns, cpu, pid, event, body) of each event line of the kernel's text."""
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            out.append((int(m.group(4)) * 10**9 + int(m.group(5)) * 1000,
                        int(m.group(3)), int(m.group(2)), m.group(6), m.group(7)))
    return out


def counters(text):
    """{(table, subject, column): [(ns, line value, x100)]} of the counter
    lines, as atrace's grammar and docs/perfetto.md's names say."""
    out = {}
    for ts, _, _, ev, body in events(text):
        m = COUNTER.match(body) if ev == "tracing_mark_write" else None
        if not m:
            continue
        _, name, value = m.groups()
        subject, sig = name.rsplit(" ", 1)
        words = subject.rsplit(" ", 1)
        if len(words) == 2 and words[1].isdigit():
            key = ("task", words[1])
        elif re.fullmatch(r"cpu\d+", subject):
            key = ("cpu", subject[3:])
        else:
            key = ("cluster", subject)
        x100 = sig.endswith("_x100")
        col = sig[:-5] if x100 else sig
        out.setdefault(key + (col,), []).append((ts, int(value), x100))
    return out


def rows(trace, table, *extra):
    r = schedtop("csv", "--trace", trace, "-i", "40", "--topology", TOPO, "-t", table,
                 *extra)
    check(r.returncode == 0, "csv --trace %s -t %s: exit %d\n%s" %
          (os.path.basename(trace), table, r.returncode, r.stderr.decode()[-800:]))
    return parse_csv(r.stdout), r.stderr.decode()


SUBJECT = {"task": "pid", "cpu": "cpu", "cluster": "cluster"}
MARGIN = 2000   # ns: the text's times are the kernel's to the µs


def compare(trace, lines, want_min):
    """Rows of @trace against the counter lines @lines (counters()); the
    number of values compared, and the note's count."""
    compared, differ, notes, hidden = 0, [], set(), 0
    pelt_rows = 0
    for table in ("task", "cpu", "cluster"):
        got, err = rows(trace, table)
        notes.update(re.findall(r"(\d+) counters of schedtop's --atrace taken as the "
                                r"values", err))
        for row in got:
            t = int(row["ts_ns"])
            pelt = False
            for (tab, subject, col), series in lines.items():
                if tab != table or row[SUBJECT[table]] != subject:
                    continue
                before = [i for i, s in enumerate(series) if s[0] <= t]
                if not before or before[-1] == 0:
                    continue
                i = before[-1]
                ts, value, x100 = series[i]
                gap = ts - series[i - 1][0]
                nxt = series[i + 1][0] if i + 1 < len(series) else None
                if t - ts > gap or t - ts < MARGIN or (nxt and nxt - t < MARGIN):
                    continue
                cell = row[col]
                # A task's util_est: written into the row, but a trace
                # session has no util_est for tasks (docs/perfetto.md).
                if cell == "" and (table, col) == ("task", "util_est"):
                    hidden += 1
                    continue
                have = int(cell.replace(".", "")) if x100 else cell
                if have != (value if x100 else str(value)):
                    differ.append((table, subject, col, t, cell, value))
                compared += 1
                pelt = pelt or col == "util_avg"
            if pelt and table != "cluster":
                pelt_rows += 1
                check(row["pelt_estimated"] == "0", "%s %s at %d: util_avg is the "
                      "counter's, yet pelt_estimated %r" % (table, row[SUBJECT[table]],
                                                           t, row["pelt_estimated"]))
    check(not differ, "%s: %d of %d values are not the counter lines': %s" %
          (os.path.basename(trace), len(differ), compared, differ[:5]))
    check(compared >= want_min, "%s: only %d values compared (want %d)" %
          (os.path.basename(trace), compared, want_min))
    return compared, pelt_rows, notes, hidden


def without_counters(text):
    return "\n".join(line for line in text.splitlines()
                     if "tracing_mark_write: C|" not in line) + "\n"


def engine_differs(trace_text, lines):
    """The same events without the counter lines: the engine's estimates,
    which must differ from the counters somewhere, marked estimated."""
    bare = path("bare.txt")
    with open(bare, "w") as f:
        f.write(without_counters(trace_text))
    got, err = rows(bare, "cpu")
    check("--atrace taken" not in err, "a note of counters in a trace without them")
    util = {k: v for k, v in lines.items() if k[0] == "cpu" and k[2] == "util_avg"}
    other = 0
    for row in got:
        check(row["pelt_estimated"] == "1", "engine rows not marked estimated")
        series = util.get(("cpu", row["cpu"], "util_avg"), [])
        before = [s for s in series if s[0] <= int(row["ts_ns"])]
        if before and str(before[-1][1]) != row["util_avg"]:
            other += 1
    check(other > 0, "without the counters the engine gives the same util_avg: "
          "the test proves nothing")
    return other


# ---- a Perfetto trace of the same text (the truth stays the text) ----

STATES = {"R": 0, "R+": 0x100, "S": 1, "D": 2, "T": 4, "t": 8, "X": 16, "Z": 32,
          "P": 64, "I": 128}


def perfetto_of(text):
    """The text's switches, wakings and prints as full FtraceEvents in one
    bundle per CPU (TracePacket 1, FtraceEventBundle cpu 1 / event 2)."""
    per_cpu = {}
    for ts, cpu, pid, ev, body in events(text):
        if ev == "sched_switch":
            m = SWITCH.match(body)
            state = STATES.get(m.group(4), 0)
            b = field(4, b"".join([
                field(1, m.group(1).encode()), field(2, int(m.group(2))),
                field(3, int(m.group(3))), field(4, state),
                field(5, m.group(5).encode()), field(6, int(m.group(6))),
                field(7, int(m.group(7)))]))
        elif ev in ("sched_waking", "sched_wakeup"):
            m = WAKE.match(body)
            b = field(20 if ev == "sched_waking" else 17, b"".join([
                field(1, m.group(1).encode()), field(2, int(m.group(2))),
                field(3, int(m.group(3))), field(5, int(m.group(4)))]))
        elif ev == "tracing_mark_write":
            b = field(3, field(2, (body + "\n").encode()))
        else:
            continue
        per_cpu.setdefault(cpu, []).append(field(1, ts) + field(2, pid) + b)
    out = b""
    for cpu, evs in sorted(per_cpu.items()):
        bundle = field(1, cpu) + b"".join(field(2, e) for e in evs)
        out += field(1, field(1, bundle))
    return out


def check_trace(name, trace, text, lines, want_min):
    compared, pelt_rows, notes, hidden = compare(trace, lines, want_min)
    nr = sum(len(s) for s in lines.values())
    check(notes == {str(nr)}, "%s: the note counts %s, the text has %d counter lines"
          % (name, notes, nr))
    print("# %s: %d values equal to the counter lines (%d lines; %d task/CPU rows "
          "with util_avg read, not estimated; %d task util_est not shown)" %
          (name, compared, nr, pelt_rows, hidden))
    return compared


@test
def the_committed_excerpt_reads_its_counters():
    with lzma.open(FIXTURE, "rt") as f:
        text = f.read()
    txt = path("excerpt.txt")
    with open(txt, "w") as f:
        f.write(text)
    lines = counters(text)
    check(len(lines) >= 40, "the excerpt holds %d counter series" % len(lines))
    check_trace("excerpt (text)", txt, text, lines, 100)
    pf = path("excerpt.perfetto-trace")
    with open(pf, "wb") as f:
        f.write(perfetto_of(text))
    check_trace("excerpt (perfetto)", pf, text, lines, 100)
    print("# without the counter lines: %d CPU rows of the engine's own util_avg"
          % engine_differs(text, lines))


@test
def schedtop_s_own_export_reads_back_with_a_note():
    """convert --perfetto of a trace.dat, read back: its counters are the
    rows (test_perfetto_export holds the values to the recording's CSV),
    and report does not claim that nothing was lost."""
    juno = os.path.join(SRC, "tests", "fixtures", "trace", "juno-excerpt.dat")
    pf = path("juno.perfetto-trace")
    topo = "LITTLE:0,3-5@446,big:1-2@1024"
    r = schedtop("convert", juno, "--perfetto", "-o", pf, "--topology", topo)
    check(r.returncode == 0, "convert --perfetto: %s" % r.stderr.decode()[-400:])
    for cmd in (("csv", "--trace", pf, "--topology", topo), ("report", pf, "--topology", topo)):
        r = schedtop(*cmd)
        err = r.stderr.decode()
        check(r.returncode == 0 and "schedtop's own export read back" in err,
              "%s: exit %d, %r" % (cmd[0], r.returncode, err[-400:]))
    # The export carries no count of what the trace's events lost: the
    # report says it does not know, not that nothing was lost.
    out = r.stdout.decode()
    check("nothing lost" not in out and "complete   not known" in out,
          "report on the export: %r" % out[:600])
    print("# %s" % [l for l in err.splitlines() if "own export" in l][0])


@test(root=True)
def a_capture_of_csv_atrace_reads_its_counters():
    if not mounted():
        raise Skip("tracefs not mounted")
    names = [b"cb spin", b"cbwork"]
    tasks = [subprocess.Popen([sys.executable, "-c", SPIN % (n, d)])
             for n, d in zip(names, ("0.01", "0.004"))]
    try:
        time.sleep(0.3)
        try:
            with TracefsRecording(EVENTS, clock="boot", options=["copy_trace_marker"],
                                  captures=[("text", {}, "trace")], markers=True) as rec:
                p = subprocess.run(
                    [BIN, "csv", "-t", "task", "--atrace", "-p",
                     ",".join(str(t.pid) for t in tasks), "-i", "100", "-n", "15",
                     "--topology", TOPO], capture_output=True, timeout=60)
        except OSError as e:
            raise Skip("no options/copy_trace_marker in an instance (6.17+): %s" % e)
    finally:
        for t in tasks:
            t.kill()
            t.wait()
    check(p.returncode == 0, "csv --atrace: %s" % p.stderr.decode())
    check(rec.lost == 0, "the ring buffer lost %d events" % rec.lost)
    text = rec.captured["text"].decode(errors="replace")
    txt, dat = path("capture.txt"), path("capture.dat")
    with open(txt, "w") as f:
        f.write(text)
    # Where the committed excerpt came from: SCHEDTOP_KEEP_CAPTURE=FILE.
    if os.environ.get("SCHEDTOP_KEEP_CAPTURE"):
        with open(os.environ["SCHEDTOP_KEEP_CAPTURE"], "w") as f:
            f.write(text)
    rec.write(dat)
    lines = counters(text)
    tids = {k[1] for k in lines if k[0] == "task"}
    check(tids == {str(t.pid) for t in tasks}, "counter lines of tasks %s" % tids)
    # 15 samples at 100 ms read at 40 ms: ~30 rows a series can be compared in.
    total = check_trace("capture (text)", txt, text, lines, 1000)
    total += check_trace("capture (trace.dat)", dat, text, lines, 1000)
    pf = path("capture.perfetto-trace")
    with open(pf, "wb") as f:
        f.write(perfetto_of(text))
    total += check_trace("capture (perfetto)", pf, text, lines, 1000)
    print("# %d values compared in all; without the counter lines %d CPU rows "
          "differ (the engine's)" % (total, engine_differs(text, lines)))


if __name__ == "__main__":
    try:
        run()
    finally:
        import shutil
        shutil.rmtree(TMP, ignore_errors=True)
