"""trace-cmd files made on other machines: the Juno excerpt of ARM LISA's
example trace (tests/fixtures/trace/README.md), read by report, replay,
convert and csv --from, against trace-cmd report's own decoding of the same
file."""
import collections
import json
import os
import re
import shutil
import tempfile

from harness import SRC, check, parse_csv, run, schedtop, test, trace_cmd_report

JUNO = os.path.join(SRC, "tests", "fixtures", "trace", "juno-excerpt.dat")
TOPO = "LITTLE:0,3-5@446,big:1-2@1024"
SWITCH = re.compile(r"\[(\d+)\]\s+(\d+\.\d+): sched_switch:\s+(.*):(\d+) "
                    r"\[-?\d+\] (\S+) ==> (.*):(\d+) \[")
STAMP = re.compile(r"\[\d+\]\s+(\d+)\.(\d+): ")


def trace_cmd_switches(with_ts=False):
    """(cpu, prev_pid, prev_state, next_pid) per switch, as trace-cmd reads
    them (with the timestamp in ns first if @with_ts)."""
    if not shutil.which("trace-cmd"):
        raise AssertionError("trace-cmd missing: apt-get install trace-cmd")
    r = trace_cmd_report("-i", JUNO, timeout=60)
    check(r.returncode == 0, "trace-cmd report: %s" % r.stderr)
    out = []
    for line in r.stdout.splitlines():
        m = SWITCH.search(line)
        if m:
            sw = (int(m.group(1)), int(m.group(4)), m.group(5), int(m.group(7)))
            if with_ts:
                sec, frac = m.group(2).split(".")
                sw = (int(sec) * 10**9 + int(frac.ljust(9, "0")),) + sw
            out.append(sw)
    check(len(out) > 200, "trace-cmd decoded only %d switches; it printed "
          "%d lines, first %r, stderr %r" % (len(out), len(r.stdout.splitlines()),
                                            r.stdout.splitlines()[:3], r.stderr[-300:]))
    return out


def trace_run_ns():
    """({pid: ns}, {cpu: head ns}): each task's time on a CPU by the trace's
    own events (trace-cmd report -t: every stamp in ns), as
    docs/signals.md's window says: a CPU's head, from the trace's first
    event to its first switch, is the time of the task that switch names
    as previous; each switch hands the CPU from prev to next; the last
    runs to the trace's last event. A task switched in on one CPU while
    still on another left the other then (the trace lost that switch out:
    1 in this excerpt)."""
    r = trace_cmd_report("-t", "-i", JUNO, timeout=60)
    check(r.returncode == 0, "trace-cmd report -t: %s" % r.stderr)
    first = last = None
    sw = []
    for line in r.stdout.splitlines():
        m = STAMP.search(line)
        if not m:
            continue
        t = int(m.group(1)) * 10**9 + int(m.group(2).ljust(9, "0"))
        first = t if first is None else min(first, t)
        last = t if last is None else max(last, t)
        m = SWITCH.search(line)
        if m:
            sw.append((t, int(m.group(1)), int(m.group(4)), int(m.group(7))))
    sw.sort()
    run, cur, since, heads = collections.Counter(), {}, {}, {}
    for t, cpu, prev, nxt in sw:
        if cpu not in cur:
            cur[cpu], since[cpu], heads[cpu] = prev, first, t - first
        for other, pid in cur.items():
            if other != cpu and pid == nxt and nxt > 0:
                run[pid] += t - since[other]
                cur[other], since[other] = 0, t
        run[cur[cpu]] += t - since[cpu]
        cur[cpu], since[cpu] = nxt, t
    for cpu, pid in cur.items():
        run[pid] += last - since[cpu]
    return run, heads


@test
def csv_from_has_every_cpu_task_and_switch():
    sw = trace_cmd_switches()
    want_cpus = {c for c, _, _, _ in sw}
    check(want_cpus == set(range(6)), "excerpt CPUs %s" % sorted(want_cpus))
    outs = collections.Counter(p for _, p, _, _ in sw if p)
    pids = {p for _, p, _, n in sw if p} | {n for _, _, _, n in sw if n}
    names = trace_cmd_report("-i", JUNO).stdout
    check("sudo" in names and "task_r20_5-60" in names, "excerpt lacks its tasks")
    r = schedtop("csv", "--from", JUNO, "--topology", TOPO, "-t", "task")
    check(r.returncode == 0, "csv --from: %s" % r.stderr)
    check(b"one cluster" not in r.stderr,
          "a topology note although --topology was given: %r" % r.stderr)
    rows = parse_csv(r.stdout)
    got = collections.Counter()
    comms = set()
    for row in rows:
        got[int(row["pid"])] += int(row["nvcsw"]) + int(row["nivcsw"])
        comms.add(row["comm"])
    check(set(got) == pids, "tasks: missing %s, extra %s" %
          (sorted(pids - set(got)), sorted(set(got) - pids)))
    # sudo's pids (6988, 6995) exec'ed into sh within the excerpt: the
    # name they end with is the one shown, as the kernel names them.
    check("task_r20_5-60" in comms and {6988, 6995} <= set(got),
          "comms %s, pids %s" % (sorted(comms), sorted(got)))
    bad = {p: (outs[p], got[p]) for p in pids if outs[p] != got[p]}
    check(not bad, "switches out per pid (trace-cmd, schedtop): %s" % bad)
    by_cluster = {int(row["pid"]): row["cluster"] for row in rows}
    check(by_cluster[6984] == "LITTLE", "rt-app task on %s" % by_cluster[6984])
    # Run time, to the ns: what the trace's own switches (trace-cmd's
    # decoding, its ns stamps) had each task on a CPU. A CPU's first
    # switch is where its head ends (the counts above hold even where it
    # is lost: the next switch closes the head instead, and the wrong task
    # carries the time between them).
    want_run, firsts = trace_run_ns()
    got_run = collections.Counter()
    for row in rows:
        got_run[int(row["pid"])] += int(row["run_ns"])
    off = {p: (want_run[p], got_run[p]) for p in set(want_run) | set(got_run)
           if p > 0 and want_run[p] != got_run[p]}
    compared = len([p for p in want_run if p > 0])
    print("# run time of %d tasks held to the trace's switches (heads of %d "
          "CPUs, up to %.1f ms), %d differ" % (compared, len(firsts),
                                               max(firsts.values()) / 1e6,
                                               len(off)))
    check(not off, "run_ns per pid (the trace's switches, schedtop): %s"
          % dict(sorted(off.items())[:8]))
    check(compared >= 20, "only %d tasks' run time compared" % compared)

    r = schedtop("csv", "--from", JUNO, "--topology", TOPO, "-t", "cpu")
    check(r.returncode == 0, "csv --from -t cpu: %s" % r.stderr)
    cpus = {}
    for row in parse_csv(r.stdout):
        cpus[int(row["cpu"])] = (row["cluster"], int(row["capacity"]))
    check(cpus == {0: ("LITTLE", 446), 1: ("big", 1024), 2: ("big", 1024),
                   3: ("LITTLE", 446), 4: ("LITTLE", 446), 5: ("LITTLE", 446)},
          "CPUs: %s" % cpus)


@test
def report_and_convert_take_the_topology():
    r = schedtop("report", "-n", "100", "--topology", TOPO, JUNO)
    check(r.returncode == 0, "report: %s" % r.stderr)
    out = r.stdout.decode()
    check(re.search(r"^\s+LITTLE\s+0,3-5\s+446\s", out, re.M) and
          re.search(r"^\s+big\s+1-2\s+1024\s", out, re.M), "clusters:\n" + out)
    check("recorded   by trace-cmd, kernel not named in the file" in out,
          "what the trace says of itself:\n" + out[:300])
    # The Juno kernel traced no overutilized event: the report says that
    # of the trace, not of this machine's kernel.
    check("overutilized not available (the trace has no sched_overutilized"
          in out, "overutilized line:\n" + out)
    for task in ("6988 ", "6995 ", "task_r20_5-60"):
        check(task in out, "%s missing from the report:\n%s" % (task, out))
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "juno.json")
        r = schedtop("convert", "--topology", TOPO, JUNO, "--json", "-o", js)
        check(r.returncode == 0, "convert: %s" % r.stderr)
        with open(js) as f:
            text = f.read()
        json.loads(text)
        check("LITTLE" in text and "big" in text and "task_r20_5-60" in text,
              "convert lacks the clusters or the task")
    r = schedtop("replay", "--topology", "bad", JUNO)
    check(r.returncode == 1 and r.stderr.count(b"\n") == 1 and
          b"--topology" in r.stderr, "replay with a bad spec: %r" % r.stderr)


@test
def without_topology_one_cluster_and_a_note():
    r = schedtop("csv", "--from", JUNO, "-t", "cpu", "-n", "1")
    check(r.returncode == 0, r.stderr)
    err = [l for l in r.stderr.decode().splitlines() if "one cluster" in l]
    check(len(err) == 1 and "note:" in err[0] and "--topology" in err[0] and
          "6 CPUs" in err[0], "note: %r" % r.stderr)
    cl = {(row["cpu"], row["cluster"]) for row in parse_csv(r.stdout)}
    check(cl == {(str(c), "all") for c in range(6)}, "CPUs: %s" % sorted(cl))


@test
def topology_must_cover_the_trace():
    for cmd in (["report"], ["csv", "--from"]):
        r = schedtop(*cmd[:1], "--topology", "LITTLE:0-3", *cmd[1:], JUNO)
        err = r.stderr.decode()
        check(r.returncode == 1 and err.count("\n") == 1 and
              "leaves out CPUs" in err, "%s: %d %r" % (cmd, r.returncode, err))


@test
def a_recording_takes_another_topology_with_a_note():
    with tempfile.TemporaryDirectory() as d:
        rec = os.path.join(d, "juno.csv")
        # A recording made from the trace with its clusters, read with one.
        r = schedtop("csv", "--trace", JUNO, "--topology", TOPO, "-n", "3",
                     "-t", "cpu", "--record", os.path.join(d, "j.rec"), "-o", rec)
        check(r.returncode == 0, "csv --trace --record: %s" % r.stderr)
        r = schedtop("report", os.path.join(d, "j.rec"))
        check(r.returncode == 0 and b"LITTLE" in r.stdout and not r.stderr,
              "report: %s" % r.stderr)
        r = schedtop("report", "--topology", "all:0-5", os.path.join(d, "j.rec"))
        err = r.stderr.decode()
        check(r.returncode == 0 and err.count("\n") == 1 and
              "regrouped by --topology" in err and b"LITTLE" not in r.stdout and
              b"all" in r.stdout, "override of a recording: %r %r" % (err, r.stdout[:300]))


@test
def states_read_as_trace_cmd_reads_them():
    """A task off its CPU at a sample is in the state of its last switch out,
    decoded with the format stored in the file (4.x: 64 is 'x', a task that
    died; today's kernel would call it 'P')."""
    sw = trace_cmd_switches(with_ts=True)
    letters = {s for _, _, _, s, _ in sw}
    check("x" in letters and "D" in letters, "excerpt states %s" % letters)
    r = schedtop("csv", "--from", JUNO, "--topology", TOPO, "-t", "task")
    check(r.returncode == 0, "csv --from: %s" % r.stderr)
    compared = collections.Counter()
    for row in parse_csv(r.stdout):
        pid, ts = int(row["pid"]), int(row["ts_ns"])
        last = None
        for t, _, prev, state, nxt in sw:
            if t > ts:
                break
            if prev == pid:
                last = state
            elif nxt == pid:
                last = None
        if last is None:
            continue
        # W (waking), K (wakekill), N (noload) have no letter of their own;
        # "R+" is preempted: runnable.
        want = [c for c in last.split("|") if c not in "WKN+"][0][0]
        check(row["state"] == want, "pid %d at %d: %s, trace-cmd says %s" %
              (pid, ts, row["state"], last))
        compared[want] += 1
    check(compared["x"] and compared["S"] and compared["R"] and compared["D"],
          "states compared: %s" % dict(compared))


def check_refused_as_damaged(path, out):
    """Every command that reads a trace (convert writing @out) says @path
    is damaged in one line, exits 1 and prints nothing."""
    for cmd in (["report", path], ["replay", path],
                ["convert", path, "--json", "-o", out],
                ["csv", "--from", path], ["csv", "--trace", path]):
        r = schedtop(*cmd)
        err = r.stderr.decode()
        check(r.returncode == 1 and err.count("\n") == 1 and
              "damaged or truncated" in err and not r.stdout,
              "%s: exit %d, %r" % (cmd, r.returncode, err))


@test
def a_damaged_trace_is_one_line_and_exit_1():
    """Cut short (as a copy interrupted leaves it) or with a damaged
    ring-buffer page, the trace gives every command one line saying so, and
    exit 1: never a crash inside libtracecmd, never a made-up row."""
    with open(JUNO, "rb") as f:
        data = f.read()
    with tempfile.TemporaryDirectory() as d:
        cut = os.path.join(d, "cut.dat")
        with open(cut, "wb") as f:
            f.write(data[:len(data) * 2 // 3])
        # The last page of the last CPU (the file ends page-aligned with
        # it): its committed size says 1 MiB, past the 4 KiB page.
        page = os.path.join(d, "page.dat")
        bad = bytearray(data)
        check(len(data) % 4096 == 0, "fixture not page-aligned")
        bad[-4096 + 8:-4096 + 16] = (1 << 20).to_bytes(8, "little")
        with open(page, "wb") as f:
            f.write(bad)
        out = os.path.join(d, "out.json")
        for path in (cut, page):
            check_refused_as_damaged(path, out)


@test
def formats_libtraceevent_cannot_parse_are_refused():
    """Two fuzzer findings (tests/fuzz/trace-corpus/README.md): an event
    format whose array length holds a control character, or a NUL, made
    libtraceevent's tep_parse_event() strcmp() a NULL token (a segfault in
    every command). They are damage, said in one line, exit 1. So is a
    third, from the run that checked the fix: a v7 BUFFER option turned
    into a HOOK option of binary bytes, which libtracecmd's hook parser
    (tracecmd_create_event_hook()) dereferences NULL on."""
    corpus = os.path.join(SRC, "tests", "fuzz", "trace-corpus")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.json")
        for name in ("field-array-control-char.dat", "field-array-nul.dat",
                     "hook-option-garbage.dat"):
            check_refused_as_damaged(os.path.join(corpus, name), out)


if __name__ == "__main__":
    run()
