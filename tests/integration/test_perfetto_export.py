"""convert --perfetto: the native trace, decoded by protoc (not by schedtop),
against csv --from of the same recording, sample by sample; its structure
(every track described once before use and used, every sequence's time
growing); hotplug, workload and --pelt-trace recordings; damage; and, as
root, a fresh recording's clock snapshot lined up with the kernel's own
timestamps in a tracefs capture (trace_clock boot)."""
import os
import re
import shutil
import subprocess
import tempfile
import time

from harness import (SRC, Inconclusive, TraceInstance, check, parse_csv, run,
                     schedtop, test)
from perfetto_trace import Trace, one

CORPUS = os.path.join(SRC, "tests", "fuzz", "corpus")
TMP = tempfile.mkdtemp(prefix="schedtop-perfetto-")


def path(name):
    return os.path.join(TMP, name)


def ok(r, what):
    check(r.returncode == 0, "%s exited %d: %s" %
          (what, r.returncode, r.stderr.decode(errors="replace")[-800:]))
    return r


def export(rec, name=None, *opts):
    out = path((name or os.path.basename(rec)) + ".perfetto-trace")
    r = schedtop("convert", rec, "--perfetto", *opts, "-o", out)
    return r, out


def csv_from(rec, table):
    return parse_csv(ok(schedtop("csv", "--from", rec, "-t", table),
                        "csv --from -t " + table).stdout)


def held(seq, ts):
    """A counter's value at @ts: the last one written at or before it."""
    v = None
    for t, x in seq:
        if t > ts:
            break
        v = x
    return v


def as_csv(v, text):
    """@v (a counter value) written as the CSV writes the column's @text."""
    if "." in text:
        return "%.2f" % v
    return str(int(v))


def counters_equal_csv(rec, minimum, *opts):
    """Every counter track's value at every sample of csv --from, for every
    non-empty cell of the columns traced; returns the Trace."""
    r, out = export(rec, os.path.basename(rec) + "".join(opts), *opts)
    ok(r, "convert --perfetto " + rec)
    tr = Trace(out)
    unused = [tr.name(u) for u in tr.tracks
              if u not in tr.referenced and u not in defaults_uuids(tr)]
    check(not unused, "tracks described and never used: %s" % unused[:5])
    by_key = counter_tracks(tr)
    compared, kinds = 0, set()
    for table, subject in (("task", lambda row: int(row["pid"])),
                           ("cpu", lambda row: "cpu" + row["cpu"]),
                           ("cluster", lambda row: row["cluster"])):
        cols = {k[2] for k in by_key if k[0] == table and " " not in k[2]}
        for row in csv_from(rec, table):
            ts = int(row["ts_ns"])
            for c in sorted(cols):
                if row[c] == "":
                    continue
                key = (table, subject(row), c)
                u = by_key.get(key)
                check(u is not None, "no track for %s at %d" % (key, ts))
                got = held(tr.counters.get(u, []), ts)
                check(got is not None and as_csv(got, row[c]) == row[c],
                      "%s at %d: the trace holds %s, csv --from %s" %
                      (key, ts, got, row[c]))
                compared += 1
                kinds.add((table, c))
    tracks = len(kinds)
    print("# %s: %d values of %d kinds of counter equal to csv --from's, "
          "%d tracks, %d packets" % (os.path.basename(rec), compared, tracks,
                                      len(tr.tracks), len(tr.packets)))
    check(compared >= minimum, "only %d values compared (want %d): inconclusive"
          % (compared, minimum))
    return tr


def counter_tracks(tr):
    """(table, subject, column) -> uuid of the export's counter tracks, as
    protoc decodes them: a task's by its tid, a CPU's or a cluster's by
    "cpuN" or its name, from where the track hangs."""
    by_key = {}
    for u, td in tr.tracks.items():
        if "counter" not in td or not tr.parent(u):
            continue
        name = tr.name(u)
        tid = tr.thread_of(tr.parent(u))
        root = tr.parent(tr.parent(u))
        if tid:
            key = ("task", tid[0], name)
        elif root and tr.name(root) in ("schedtop CPUs", "schedtop clusters"):
            subject, _, col = name.partition(" ")
            key = ("cpu" if tr.name(root) == "schedtop CPUs" else "cluster", subject, col)
        else:
            continue
        check(key not in by_key, "two counter tracks for %s" % (key,))
        by_key[key] = u
    return by_key


def defaults_uuids(tr):
    out = set()
    for d in tr.defaults.values():
        ted = one(d, "track_event_defaults", {})
        out.update(ted.get("track_uuid", []))
        out.update(ted.get("extra_counter_track_uuids", []))
        out.update(ted.get("extra_double_counter_track_uuids", []))
    return out


@test
def counters_equal_csv_from_sample_by_sample():
    for name, minimum, opts in (("two-samples.rec", 900, ()),
                                ("cpuhp.rec", 5000, ("--task-stats",))):
        tr = counters_equal_csv(os.path.join(CORPUS, name), minimum, *opts)
        stats = {tr.name(u) for u in tr.tracks if tr.name(u) in ("cpu_pct", "wait_ns")}
        check(bool(stats) == bool(opts), "task stats %s with options %s" % (stats, opts))


@test
def a_phones_perfetto_trace_comes_back_as_counters():
    """The Pixel 6a's own Perfetto trace (tests/fixtures/perfetto, Apache-2.0)
    in, a native Perfetto trace out: every counter of every sample equal to
    csv --from's row of the same trace, as protoc decodes the export."""
    import lzma
    src = os.path.join(SRC, "tests", "fixtures", "perfetto",
                       "pixel6a-startup.perfetto-trace.xz")
    trace = path("pixel6a.perfetto-trace")
    with lzma.open(src) as f, open(trace, "wb") as out:
        out.write(f.read())
    tr = counters_equal_csv(trace, 5000)
    names = {tr.name(u) for u in tr.tracks}
    check("traced_probes" in " ".join(str(n) for n in names),
          "the export names no thread of the phone's: %s" % sorted(map(str, names))[:20])


@test
def pelt_trace_updates_each_one():
    pelt_updates_equal_csv(os.path.join(CORPUS, "pelt.rec"), 20)


def pelt_updates_equal_csv(rec, minimum):
    """record --pelt-trace: every update csv --from -t pelt lists, at its
    time, on its task's (or CPU entity's) pelt tracks."""
    tr = counters_equal_csv(rec, 200)
    updates = csv_from(rec, "pelt")
    tracks = {}
    for u, td in tr.tracks.items():
        name = tr.name(u)
        if "counter" in td and " pelt " in " " + name:
            thread = tr.thread_of(tr.parent(u))
            tracks[(thread[0] if thread else None, name)] = u
    pos, n = {}, 0
    for row in updates:
        task = row["entity"] == "task"
        for f in ("util_avg", "runnable_avg", "load_avg", "util_est"):
            if row[f] == "":
                continue
            key = ((int(row["pid"]), "pelt " + f) if task else
                   (None, "cpu%s %s pelt %s" % (row["cpu"], row["entity"], f)))
            u = tracks.get(key)
            check(u is not None, "no track for the update %s" % (key,))
            i = pos.get(u, 0)
            ts, v = tr.counters[u][i]
            check((ts, v) == (int(row["ts_ns"]), int(row[f])),
                  "%s: update %d is %s, csv --from -t pelt %s %s" %
                  (key, i, (ts, v), row["ts_ns"], row[f]))
            pos[u] = i + 1
            n += 1
    extra = {tr.name(u): len(tr.counters[u]) - i for u, i in pos.items()
             if len(tr.counters[u]) != i}
    check(not extra, "updates in the trace csv --from does not list: %s" % extra)
    print("# %d PELT values, each update at its own time" % n)
    check(n >= minimum, "only %d values compared (want %d)" % (n, minimum))


def report_hotplug(rec):
    """(cpu, online, total_ms, [(state, ms)]) per operation, as report
    splits it among cpuhp states."""
    text = ok(schedtop("report", rec), "report").stdout.decode()
    ops, cur = [], None
    part = text.split("CPU hotplug per cpuhp state", 1)[-1]
    for line in part.splitlines()[1:]:
        m = re.match(r"\s+at\s+[\d.]+ s\s+cpu(\d+)\s+(online|offline)\s+([\d.]+) ms", line)
        if m:
            cur = (int(m.group(1)), m.group(2), float(m.group(3)), [])
            ops.append(cur)
            continue
        m = re.match(r"\s+([\d.]+) ms\s+(\S.*)$", line)
        if m and cur:
            cur[3].append((m.group(2).strip(), float(m.group(1))))
        elif line.strip() == "" and ops:
            break
    return ops


@test
def hotplug_operations_are_slices_with_their_states_nested():
    rec = os.path.join(CORPUS, "cpuhp.rec")
    r, out = export(rec, "hp")
    ok(r, "convert")
    tr = Trace(out)
    want = report_hotplug(rec)
    check(len(want) >= 4, "report lists %d operations" % len(want))
    # Slices per hotplug track: begin/end pairs, nested by a stack.
    got, stacks = [], {}
    for uuid, kind, ts, name, ann in tr.slices:
        if not (tr.name(uuid) or "").endswith(" hotplug"):
            continue
        st = stacks.setdefault(uuid, [])
        if kind == 1:
            st.append((ts, name, []))
        elif kind == 2:
            check(st, "a slice end with no begin on %s" % tr.name(uuid))
            t0, nm, kids = st.pop()
            if st:
                st[-1][2].append((nm, (ts - t0) / 1e6))
            else:
                cpu = int(tr.name(uuid).split()[0][3:])
                got.append((cpu, nm.split()[1], (ts - t0) / 1e6, kids))
    check(len(got) == len(want), "%d operations in the trace, report %d" %
          (len(got), len(want)))
    for g, w in zip(got, want):
        check(g[:2] == w[:2] and abs(g[2] - w[2]) < 0.0015,
              "operation %s, report %s" % (g[:3], w[:3]))
        check(len(g[3]) == len(w[3]) and all(
            a[0] == b[0] and abs(a[1] - b[1]) < 0.0015 for a, b in zip(g[3], w[3])),
            "states %s, report %s" % (g[3][:4], w[3][:4]))
    print("# %d operations, %d cpuhp states nested, as report splits them" %
          (len(got), sum(len(g[3]) for g in got)))


@test
def workload_activations_are_slices():
    rec = os.path.join(CORPUS, "workload.rec")
    tr = counters_equal_csv(rec, 1000)
    text = ok(schedtop("report", rec), "report").stdout.decode()
    m = re.search(r"\((\d+) late, (\d+) dropped of (\d+)\)", text)
    check(m, "report scores no activation:\n" + text[-600:])
    late, dropped, total = map(int, m.groups())
    begins = [s for s in tr.slices if s[1] == 1 and s[3].startswith("activation")]
    drops = [s for s in tr.slices if s[1] == 3 and s[3] == "activation dropped"]
    lates = [s for s in begins if s[3] == "activation late"]
    check(len(begins) + len(drops) == total and len(drops) == dropped and
          len(lates) == late,
          "%d activations (%d late), %d dropped; report %d (%d late, %d dropped)" %
          (len(begins), len(lates), len(drops), total, late, dropped))
    for s in begins:
        a = s[4]
        check(a["slack_ns"] >= 0 or s[3] == "activation late",
              "an activation past its deadline not marked late: %s" % (a,))
    print("# %d activation slices, %d late, %d dropped: report's tally" %
          (len(begins), len(lates), len(drops)))


@test
def a_recording_without_clocks_says_it_cannot_be_aligned():
    r, out = export(os.path.join(CORPUS, "two-samples.rec"), "old")
    ok(r, "convert")
    check(b"cannot be lined up" in r.stderr, "no note: %r" % r.stderr)
    tr = Trace(out)
    primary = [one(s, "primary_trace_clock") for s in tr.snapshots]
    check(primary == [3], "an unaligned trace's clock: %s, not MONOTONIC (3) once"
          % primary)


@test
def a_damaged_recording_exports_what_it_can():
    src = os.path.join(CORPUS, "cpuhp.rec")
    bad = path("bad.rec")
    data = bytearray(open(src, "rb").read())
    data[len(data) // 2] ^= 0x55
    open(bad, "wb").write(data)
    r, out = export(bad, "bad")
    check(r.returncode == 1 and b"damaged" in r.stderr,
          "damage not said: %d %r" % (r.returncode, r.stderr[-300:]))
    tr = Trace(out)
    n = sum(len(v) for v in tr.counters.values())
    check(n > 100, "only %d values kept" % n)
    # The note is the one the other readers give.
    rc = schedtop("csv", "--from", bad, "-t", "cpu")
    line = [l for l in r.stderr.decode().splitlines() if "damaged" in l]
    other = [l for l in rc.stderr.decode().splitlines() if "damaged" in l]
    check(line and other and line[-1] == other[-1],
          "convert says %s, csv --from %s" % (line, other))
    print("# %d values kept; %s" % (n, line[-1]))


@test
def convert_refuses_a_missing_format_and_keeps_json():
    r = schedtop("convert", os.path.join(CORPUS, "two-samples.rec"), "-o", os.devnull)
    check(r.returncode == 2 and b"--perfetto" in r.stderr, "%r" % r.stderr)
    r = schedtop("convert", os.path.join(CORPUS, "two-samples.rec"), "--json",
                 "-o", path("j.json"))
    ok(r, "convert --json")
    check(open(path("j.json")).read().startswith('{"displayTimeUnit"'), "not JSON")


def boot_ns():
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME)


def mover(seconds):
    """A thread that sleeps a second, then hops between cpu0 and cpu1 every
    50 ms, running 5 ms each time; its tid."""
    code = ("import os,time\n"
            "time.sleep(1)\n"
            "end=time.monotonic()+%f\n"
            "i=0\n"
            "while time.monotonic()<end:\n"
            "    os.sched_setaffinity(0,{i%%2}); i+=1\n"
            "    t=time.perf_counter()+0.005\n"
            "    while time.perf_counter()<t: pass\n"
            "    time.sleep(0.045)\n" % seconds)
    return subprocess.Popen(["python3", "-c", code])


@test(root=True)
def export_lines_up_with_a_boot_clock_capture():
    """A fresh recording's export and a tracefs capture in trace_clock boot
    of the same seconds: each move of a task between clusters is stamped
    by the kernel twice, by BPF (CLOCK_MONOTONIC, in the recording) and by
    ftrace (CLOCK_BOOTTIME); mapped through the export's clock snapshot,
    each lands within 50 us of its twin. And the first sample whose
    interval saw the task run holds its first switch-in."""
    rec = path("fresh.rec")
    with TraceInstance("pftrace", ["sched/sched_migrate_task",
                                   "sched/sched_switch"]) as inst:
        inst.write("trace_clock", "boot")
        p = mover(2.5)
        try:
            time.sleep(0.3)
            ok(schedtop("record", "-q", "-o", rec, "-i", "100", "-d", "2.5",
                        "--topology", "LITTLE:0@446,big:1@1024", "--pelt-trace",
                        "-p", str(p.pid), "--pelt-cpus", "1"), "record")
        finally:
            p.wait()
        inst.write("tracing_on", "0")
        lines = inst.lines()
    pelt_updates_equal_csv(rec, 400)
    r, out = export(rec, "fresh")
    ok(r, "convert")
    check(b"cannot be lined up" not in r.stderr, "a fresh recording unaligned")
    tr = Trace(out)
    snaps = [s for s in tr.snapshots if one(s, "primary_trace_clock") == 6]
    check(snaps, "no snapshot making BOOTTIME the trace's clock")
    clocks = {one(c, "clock_id"): one(c, "timestamp") for c in snaps[0]["clocks"]}
    offset = clocks[6] - clocks[3]
    check(abs(offset - (boot_ns() - time.monotonic_ns())) < 1000000,
          "the snapshot's BOOTTIME - MONOTONIC %d, now %d" %
          (offset, boot_ns() - time.monotonic_ns()))
    # ftrace's moves of the task, in boot ns: "sched_migrate_task: comm=... pid=N ... orig_cpu=A dest_cpu=B"
    pat = re.compile(r"\s(\d+)\.(\d{6}): sched_migrate_task: .*pid=%d .*orig_cpu=(\d+) dest_cpu=(\d+)"
                     % p.pid)
    ftrace = [(int(m.group(1)) * 10**9 + int(m.group(2)) * 1000, int(m.group(3)),
               int(m.group(4))) for m in map(pat.search, lines) if m]
    moves = [(ts + offset, a) for uuid, kind, ts, name, a in tr.slices
             if kind == 3 and name.startswith("migrate") and
             tr.tid_of(uuid) == p.pid]
    check(len(moves) >= 10, "only %d moves of the task in the export" % len(moves))
    matched = 0
    for ts, a in moves:
        near = [f for f in ftrace if (f[1], f[2]) == (a["from_cpu"], a["to_cpu"])]
        best = min(near, key=lambda f: abs(f[0] - ts)) if near else None
        check(best and abs(best[0] - ts) <= 50000,
              "move at boot %d (%d->%d): ftrace's nearest %s" %
              (ts, a["from_cpu"], a["to_cpu"], best))
        matched += 1
    print("# %d moves lined up within 50 us (offset %.6f s)" % (matched, offset / 1e9))
    # The run: the first sample whose interval saw the task run after its
    # second of sleep holds the kernel's first switch-in of it after the
    # sample before, on the boot clock.
    r, out = export(rec, "fresh-stats", "--task-stats")
    ok(r, "convert --task-stats")
    tr = Trace(out)
    u = next(u for u in tr.tracks if tr.name(u) == "cpu_pct" and
             tr.thread_of(tr.parent(u)) and tr.thread_of(tr.parent(u))[0] == p.pid)
    times = sorted(int(row["ts_ns"]) for row in csv_from(rec, "task")
                   if int(row["pid"]) == p.pid)
    pct = [(ts, held(tr.counters[u], ts)) for ts in times]
    k = next((i for i in range(1, len(pct)) if pct[i][1] > 0 and pct[i - 1][1] == 0),
             None)
    if k is None:
        raise Inconclusive("the task never went from idle to running between samples")
    sw = re.compile(r"\s(\d+)\.(\d{6}): sched_switch: .*next_pid=%d " % p.pid)
    ins = sorted(int(m.group(1)) * 10**9 + int(m.group(2)) * 1000
                 for m in map(sw.search, lines) if m)
    first_in = next(t for t in ins if t > pct[k - 1][0] + offset)
    check(first_in <= pct[k][0] + offset,
          "the export has the task start running in (%d, %d] (boot), the kernel "
          "switched it in first at %d" % (pct[k - 1][0] + offset, pct[k][0] + offset,
                                          first_in))
    print("# its first run after sleeping: in sample %d's interval in both, "
          "%.3f ms before the sample" % (k, (pct[k][0] + offset - first_in) / 1e6))


def topology_of(rec):
    """The recording's clusters as a --topology spec (csv -t cluster)."""
    seen = {}
    for row in csv_from(rec, "cluster"):
        seen.setdefault(row["cluster"], row["cpus"])
    return ",".join("%s:%s" % kv for kv in seen.items())


def readback_equals_csv_from(rec, minimum, minimum_empty, minimum_renamed, *opts):
    """schedtop's own export read back (csv --from EXPORT) against two
    truths: csv --from of the recording it was made from, sample by sample,
    on every column the export carries; and protoc's decoding of the same
    export (the value each counter track holds at the row's time)."""
    tr = counters_equal_csv(rec, 1, *opts)
    out = path(os.path.basename(rec) + "".join(opts) + ".perfetto-trace")
    topo = topology_of(rec)
    # The clusters as the export's cluster tracks describe them (protoc).
    described = {
        "%s:%s" % (tr.name(u), re.match(r"cpus (\S+) capacity \d+$", one(td, "description")).group(1))
        for u, td in tr.tracks.items()
        if tr.parent(u) and tr.name(tr.parent(u)) == "schedtop clusters" and "counter" not in td}
    check(described == set(topo.split(",")), "cluster tracks describe %s, the recording %s"
          % (sorted(described), topo))
    # What the export carries, cell by cell, is decided by protoc's
    # decoding alone: a counter track of the row's subject named as the
    # column (run_ns is made from cpu_pct, a task's cluster from its cpu)
    # holding a value at the row's time. Those cells equal csv --from of
    # the recording; every other cell is empty. Who a row is about comes
    # from the track descriptors (a thread's, a CPU's, a cluster's
    # description) and a task's exit from its "exit" instant: those equal
    # the recording's too.
    by_key = counter_tracks(tr)
    identity = {"task": ("ts_ns", "pid", "tgid", "comm", "exited"),
                "cpu": ("ts_ns", "cpu", "cluster"),
                "cluster": ("ts_ns", "cluster", "cpus")}
    made_from = {("task", "run_ns"): "cpu_pct", ("task", "cluster"): "cpu"}
    subject_of = {"task": lambda row: int(row["pid"]),
                  "cpu": lambda row: "cpu" + row["cpu"],
                  "cluster": lambda row: row["cluster"]}
    keyf = {"task": lambda row: row["pid"], "cpu": lambda row: row["cpu"],
            "cluster": lambda row: row["cluster"]}
    # A thread's names as its descriptors give them, in order: a thread
    # renamed in the recording (prctl, exec) is described again.
    thread_names = {}
    for td in tr.tracks.values():
        th = one(td, "thread")
        if th:
            thread_names[str(one(th, "tid"))] = [one(th, "thread_name")]
    for _, _, td in tr.renames:
        th = one(td, "thread")
        if th:
            thread_names[str(one(th, "tid"))].append(one(th, "thread_name"))
    compared, empties, rows, renamed = 0, 0, 0, 0
    carried_cols, empty_cols = set(), set()
    for table in ("task", "cpu", "cluster"):
        # No --topology: the export's own clusters.
        r = ok(schedtop("csv", "--from", out, "-t", table),
               "csv --from the export -t " + table)
        note = r.stderr.decode()
        check("schedtop's own export read back" in note, "no note: %r" % note[-300:])
        back_rows = parse_csv(r.stdout)
        back = {(row["ts_ns"], keyf[table](row)): row for row in back_rows}
        src = csv_from(rec, table)
        first = src[0]["ts_ns"] if src else None
        want = {(row["ts_ns"], keyf[table](row)) for row in src}
        # Every row, exited ones too, and no other (an export's instants are
        # its recording's samples that changed a value: here, every sample).
        check(set(back) == want, "%s rows: %d read back not in the recording "
              "(%s), %d of it missing (%s)" % (table, len(set(back) - want),
                                             sorted(set(back) - want)[:3],
                                             len(want - set(back)),
                                             sorted(want - set(back))[:3]))
        cols = list(back_rows[0].keys()) if back_rows else []
        for row in src:
            key = (row["ts_ns"], keyf[table](row))
            got = back[key]
            ts = int(row["ts_ns"])
            rows += 1
            for c in cols:
                if table == "task" and c == "comm":
                    # The export describes the thread again under every
                    # name the recording gives it (protoc's descriptors),
                    # and the reader takes each from its sample on.
                    names = thread_names.get(row["pid"], [])
                    check(row[c] in names and got[c] == row[c], "task %s comm: "
                          "read back %r, the recording's %r, the export's thread %r"
                          % (key, got[c], row[c], names))
                    renamed += row[c] != names[0]
                    compared += 1
                    continue
                if c in identity[table]:
                    check(got[c] == row[c], "%s %s %s: read back %r, csv --from REC %r"
                          % (table, key, c, got[c], row[c]))
                    compared += 1
                    continue
                u = by_key.get((table, subject_of[table](row),
                                made_from.get((table, c), c)))
                value = held(tr.counters.get(u, []), ts) if u else None
                if value is None:
                    check(got[c] == "", "%s %s %s: the export has no counter for "
                          "it (protoc), read back %r" % (table, key, c, got[c]))
                    empties += 1
                    empty_cols.add((table, c))
                    continue
                check(got[c] != "", "%s %s %s: the export holds %s (protoc), read "
                      "back empty" % (table, key, c, value))
                carried_cols.add((table, c))
                # The first sample's interval lies before the export.
                if c in ("cpu_pct", "run_ns") and row["ts_ns"] == first:
                    continue
                check(got[c] == row[c], "%s %s %s: read back %r, csv --from REC %r"
                      % (table, key, c, got[c], row[c]))
                compared += 1
    # The tables of which the export carries no counter (every counter
    # track is a task's, a CPU's or a cluster's, or a PELT update's): no
    # task group, no frequency residency, no count of moves between
    # clusters (moves are instants, not read back). Every value empty.
    others = [tr.name(u) for u, td in tr.tracks.items() if "counter" in td and
              u not in by_key.values() and "pelt " not in str(tr.name(u))]
    check(not others, "counter tracks of no task, CPU or cluster: %s" % others[:5])
    for table, who in (("group", ()), ("migration", ("from_cluster", "to_cluster")),
                       ("freq", ())):
        r = ok(schedtop("csv", "--from", out, "-t", table), "csv --from the export -t " + table)
        for row in parse_csv(r.stdout):
            for c, v in row.items():
                if c == "ts_ns" or c in who:
                    continue
                check(v == "", "-t %s %s: %r read back from an export with no "
                      "counter of it" % (table, c, v))
                empties += 1
                empty_cols.add((table, c))
    # protoc's decoding: each CPU counter track's value at each row's time.
    by_cpu = {}
    for u, td in tr.tracks.items():
        p = tr.parent(u)
        if "counter" in td and p and tr.parent(p) and \
                tr.name(tr.parent(p)) == "schedtop CPUs" and " " not in tr.name(u)[5:]:
            by_cpu[tuple(tr.name(u).split(" ", 1))] = u
    r = ok(schedtop("csv", "--from", out, "-t", "cpu"), "csv cpu")
    oracle = 0
    for row in parse_csv(r.stdout):
        for (cpu, col), u in by_cpu.items():
            if cpu != "cpu" + row["cpu"]:
                continue
            want = held(tr.counters.get(u, []), int(row["ts_ns"]))
            if want is None:
                continue
            check(as_csv(want, row[col]) == row[col], "cpu%s %s at %s: protoc %s, read back %s"
                  % (row["cpu"], col, row["ts_ns"], want, row[col]))
            oracle += 1
    print("# %s%s read back: %d values in %d rows equal to csv --from the recording "
          "(%d columns carried), %d cells empty where protoc finds no counter "
          "(%d columns), %d CPU values to protoc's decoding" %
          (os.path.basename(rec), "".join(opts), compared, rows, len(carried_cols),
           empties, len(empty_cols), oracle))
    print("#   %d task rows under a name their thread was given after its first, "
          "which the export describes again" % renamed)
    print("#   empty: %s" % ", ".join("%s.%s" % k for k in sorted(empty_cols - carried_cols)))
    check(compared >= minimum and empties >= minimum_empty and oracle >= 20 and
          renamed >= minimum_renamed,
          "only %d values (want %d), %d empties (want %d), %d protoc (want 20), %d rows "
          "renamed (want %d): inconclusive" % (compared, minimum, empties, minimum_empty,
                                               oracle, renamed, minimum_renamed))


@test
def the_export_reads_back_as_its_recordings_values():
    # cpuhp.rec's thread 4880 execs (bash to python3) at its last sample
    # but one: its last two rows are under a name that is not its first.
    for name, minimum, empty, renamed, opts in (("two-samples.rec", 700, 700, 0, ()),
                                                ("cpuhp.rec", 5000, 5000, 2, ()),
                                                ("cpuhp.rec", 5000, 5000, 2, ("--task-stats",)),
                                                ("pelt.rec", 200, 200, 0, ())):
        readback_equals_csv_from(os.path.join(CORPUS, name), minimum, empty, renamed, *opts)


if __name__ == "__main__":
    try:
        run()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
