"""--atrace: schedtop's counters written into trace_marker, captured as the
kernel keeps them. A tracefs instance of the test's own takes a copy of every
top-level trace_marker write (its options/copy_trace_marker, Linux 6.17+):
nothing of anyone else's tracing is touched. The truth for the values is
the CSV of the same samples (csv --from of the run's own --record, which
test_record holds to the live CSV byte for byte); every line is parsed
here, by the test, as atrace's grammar says (C|PID|NAME|VALUE), and tasks
with hostile names (a '|', a newline, an escape sequence) must not break or
forge a line."""
import ctypes
import os
import re
import shutil
import subprocess
import tempfile
import time

from harness import (BIN, Skip, TraceInstance, check, parse_csv, run, schedtop, test)
from tmux import Tmux, kill_server, quit_cleanly

TMP = tempfile.mkdtemp(prefix="schedtop-atrace-")
HOSTILE = [b"x|1|y\nC|9|z", b"\x1b[2J|E|1"]
LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[\d+\]\s+\S+\s+(\d+)\.(\d+): tracing_mark_write: (.*)$")
COUNTER = re.compile(r"^C\|(\d+)\|([ -{}~]+)\|(-?\d+)$")


def path(name):
    return os.path.join(TMP, name)


def hostile_task(name):
    """A thread named @name that runs 10 ms every 30 ms; its Popen."""
    code = ("import ctypes,time\n"
            "ctypes.CDLL(None).prctl(15, %r, 0, 0, 0)\n"
            "end=time.monotonic()+20\n"
            "while time.monotonic()<end:\n"
            "    t=time.perf_counter()+0.01\n"
            "    while time.perf_counter()<t: pass\n"
            "    time.sleep(0.02)\n" % name)
    return subprocess.Popen(["python3", "-c", code])


class Capture(TraceInstance):
    """A private instance holding a copy of every trace_marker write."""

    def __init__(self, tag):
        super().__init__(tag, [])
        if not os.path.exists(os.path.join(self.dir, "options", "copy_trace_marker")):
            self.close()
            raise Skip("this kernel's instances have no copy_trace_marker (6.17+)")
        self.write("trace_clock", "boot")
        self.write("options/copy_trace_marker", "1")

    def marks(self, writer):
        """(boot ns, payload) of each trace_marker write by pid @writer."""
        out = []
        for line in self.lines():
            m = LINE.match(line)
            if m and int(m.group(2)) == writer:
                out.append((int(m.group(3)) * 10**9 + int(m.group(4)) * 1000,
                            m.group(5)))
        return out


def batches(marks):
    """Lines grouped by sample: one writev() a sample, 100 ms apart."""
    out = []
    for ts, text in marks:
        if not out or ts - out[-1][-1][0] > 20000000:
            out.append([])
        out[-1].append((ts, text))
    return out


def expect_of(rows, key):
    """{subject: {column: csv text}} of one sample's rows."""
    return {key(r): r for r in rows}


@test(root=True)
def csv_atrace_lines_are_the_csv_values():
    tasks = [hostile_task(n) for n in HOSTILE]
    rec = path("a.rec")
    try:
        time.sleep(0.3)
        with Capture("atrace") as cap:
            p = subprocess.Popen(
                [BIN, "csv", "-t", "task", "--atrace", "-p",
                 ",".join(str(t.pid) for t in tasks), "-i", "100", "-n", "20",
                 "--topology", "LITTLE:0@446,big:1@1024", "--record", rec],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            out, err = p.communicate(timeout=60)
            check(p.returncode == 0, "csv --atrace: %s" % err.decode(errors="replace"))
            marks = cap.marks(p.pid)
    finally:
        for t in tasks:
            t.kill()
            t.wait()
    offset = time.clock_gettime_ns(time.CLOCK_BOOTTIME) - time.monotonic_ns()
    # Every line one print event of four fields; nothing else from schedtop.
    bad = [t for _, t in marks if not COUNTER.match(t)]
    check(not bad, "lines that are no atrace counter: %r" % bad[:5])
    groups = batches(marks)
    tables = {t: parse_csv(schedtop("csv", "--from", rec, "-t", t).stdout)
              for t in ("task", "cpu", "cluster")}
    samples = sorted({int(r["ts_ns"]) for r in tables["cpu"]})
    check(len(groups) == len(samples) == 20, "%d batches of lines, %d samples"
          % (len(groups), len(samples)))
    compared, seen_signals = 0, {}
    names = {}
    for k, (group, ts) in enumerate(zip(groups, samples)):
        # Written right after the sample: its kernel time just after ts_ns.
        lag = group[0][0] - (ts + offset)
        check(0 <= lag < 50000000, "sample %d's lines %.3f ms after it" % (k, lag / 1e6))
        rows = {("cpu", "cpu" + r["cpu"]): r for r in tables["cpu"] if int(r["ts_ns"]) == ts}
        rows.update({("cluster", r["cluster"]): r for r in tables["cluster"]
                     if int(r["ts_ns"]) == ts})
        rows.update({("task", int(r["pid"])): r for r in tables["task"]
                     if int(r["ts_ns"]) == ts})
        got = set()
        for _, text in group:
            pid, name, value = COUNTER.match(text).groups()
            subject, sig = name.rsplit(" ", 1)
            words = subject.rsplit(" ", 1)
            if len(words) == 2 and words[1].isdigit():
                key = ("task", int(words[1]))
                names[key[1]] = words[0]
                check(int(pid) == int(rows[key]["tgid"]), "task %s under pid %s" % (key, pid))
            elif subject.startswith("cpu"):
                key = ("cpu", subject)
            else:
                key = ("cluster", subject)
            row = rows.get(key)
            check(row is not None, "a line for %s, which csv --from lacks at %d" % (key, ts))
            col = sig[:-5] if sig.endswith("_x100") else sig
            want = row[col].replace(".", "") if sig.endswith("_x100") else row[col]
            check(want != "" and int(value) == int(want),
                  "%s %s at sample %d: line says %s, CSV %r" % (key, sig, k, value, row[col]))
            got.add((key, sig))
            seen_signals.setdefault(key[0], set()).add(sig)
            compared += 1
        # And every CSV value of a signal written is there (of the tasks
        # asked for: the others are not written).
        chosen = {t.pid for t in tasks}
        for key, row in rows.items():
            if key[0] == "task" and key[1] not in chosen:
                continue
            for sig in seen_signals.get(key[0], ()):
                col = sig[:-5] if sig.endswith("_x100") else sig
                if row.get(col, "") != "":
                    check((key, sig) in got, "%s %s missing at sample %d" % (key, sig, k))
    for t, raw in zip(tasks, HOSTILE):
        want = "".join(chr(c) if 0x20 <= c < 0x7f and c != 0x7c else "?" for c in raw)
        check(names.get(t.pid) == want, "task %d written as %r, not %r" %
              (t.pid, names.get(t.pid), want))
    print("# %d lines in %d samples equal to the CSV; hostile names as %s" %
          (compared, len(groups), sorted(names.values())))
    check(compared >= 20 * 30, "only %d values compared" % compared)


@test(root=True)
def record_and_the_live_view_write_too():
    with Capture("atrace2") as cap:
        r = subprocess.Popen([BIN, "record", "-q", "-o",
                              path("r.rec"), "--atrace", "-i", "100", "-n", "5"],
                             stderr=subprocess.PIPE)
        _, err = r.communicate(timeout=60)
        check(r.returncode == 0, "record --atrace: %s" % err)
        rec_groups = batches(cap.marks(r.pid))
        t = Tmux(["--atrace", "-i", "200"])
        try:
            t.wait_for("LITTLE|all", timeout=15)
            pid = t.pid()
            time.sleep(1.2)
            live_groups = batches(cap.marks(pid))
            quit_cleanly(t)
        finally:
            t.close()
            kill_server()
    check(len(rec_groups) == 5, "record: %d samples of lines, not 5" % len(rec_groups))
    check(len(live_groups) >= 4, "live view: %d samples of lines in 1.2 s at 200 ms"
          % len(live_groups))
    print("# record wrote %d samples' lines, the live view %d" %
          (len(rec_groups), len(live_groups)))


@test(root=True)
def an_unwritable_trace_marker_is_one_line():
    def nobody():
        os.setgid(65534)
        os.setuid(65534)
    # A copy nobody can run: the build may be where only root can go (the
    # README's set-up, cloned into /root in a fresh Debian root, failed
    # here with EACCES on build/schedtop itself).
    d = tempfile.mkdtemp(prefix="schedtop-nobody-")
    try:
        os.chmod(d, 0o755)
        exe = os.path.join(d, "schedtop")
        shutil.copy(BIN, exe)
        os.chmod(exe, 0o755)
        r = subprocess.run([exe, "csv", "--atrace", "-n", "1"],
                           capture_output=True, preexec_fn=nobody, timeout=30)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    lines = r.stderr.decode().strip().splitlines()
    check(r.returncode == 1 and len(lines) == 1 and "--atrace" in lines[0] and
          "trace_marker" in lines[0], "exit %d, stderr %r" % (r.returncode, lines))
    print("# %s" % lines[0])


if __name__ == "__main__":
    try:
        run()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
