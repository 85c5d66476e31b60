"""Recordings: record, csv --from, report, convert and bad input, for real.

Workloads are rt-app tasks with known duty cycles; the truth for "what was
recorded" is the CSV the same run wrote live (csv --record), byte for byte.
"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time
import zlib

from harness import (SRC, Inconclusive, RtApp, Skip, check, mono_ns,
                     parse_csv, periodic, run, schedstat, schedtop,
                     start_schedtop, steal_ns, test)

TOPO = "LITTLE:0@446,big:1@1024"
# y, PELT's decay per period (y^32 = 1/2), and the period in ns.
Y = 0.5 ** (1 / 32)
PERIOD_NS = 1024 * 1024
TMP = tempfile.mkdtemp(prefix="schedtop-rec-")
ARM_BIN = os.path.join(SRC, "build-arm64", "schedtop")


def path(name):
    return os.path.join(TMP, name)


def ok(r, what):
    check(r.returncode == 0, "%s exited %d: %s" %
          (what, r.returncode, r.stderr.decode(errors="replace")[-800:]))
    return r.stdout


def mover(duty=0.3):
    """An rt-app task that alternates between cpu0 and cpu1 every 100 ms."""
    run_us = int(16000 * duty)
    phase = {"loop": 6, "run": run_us, "timer": {"ref": "t", "period": 16000}}
    return {"loop": -1, "phases": {
        "p0": dict(phase, cpus=[0]), "p1": dict(phase, cpus=[1])}}


# One recording of an rt-app workload, shared by the tests that read it.
_rec = {}


def rtapp_recording():
    if _rec:
        return _rec
    os.sched_setaffinity(0, {0})
    tasks = {"rec_light": periodic(0, 0.25, name="rec_light"),
             "rec_heavy": periodic(1, 0.6, name="rec_heavy"),
             "rec_mover": mover()}
    rt = RtApp(tasks, duration=8)
    cpu_of = {"rec_light": 0, "rec_heavy": 1}
    try:
        time.sleep(1.0)                 # past the first activation's ramp
        s1 = {n: schedstat(t)[0] for n, t in rt.tids.items()}
        st1 = {n: steal_ns(c) for n, c in cpu_of.items()}
        t1 = time.monotonic()
        live = ok(schedtop("csv", "-t", "task", "-i", "100", "-d", "4",
                           "--topology", TOPO, "--record", path("rt.rec")),
                  "csv --record")
        t2 = time.monotonic()
        s2 = {n: schedstat(t)[0] for n, t in rt.tids.items()}
        st2 = {n: steal_ns(c) for n, c in cpu_of.items()}
    finally:
        rt.stop()
    _rec.update(live=live, tids=rt.tids,
                duty={n: (s2[n] - s1[n]) / 1e9 / (t2 - t1) for n in tasks},
                steal={n: (st2[n] - st1[n]) / 1e9 / (t2 - t1) for n in cpu_of})
    return _rec


@test(root=True)
def csv_from_gives_the_rows_the_live_run_gave():
    rec = rtapp_recording()
    again = ok(schedtop("csv", "--from", path("rt.rec"), "-t", "task"),
               "csv --from")
    rows = parse_csv(again)
    check(len(rows) > 1000, "only %d rows" % len(rows))
    check(again == rec["live"], "csv --from differs from the live CSV "
          "(%d vs %d bytes)" % (len(again), len(rec["live"])))
    names = {r["comm"] for r in rows}
    check({"rec_light", "rec_heavy", "rec_mover"} <= names,
          "rt-app tasks missing from the recording")
    print("# %d rows, identical to the live run's" % len(rows))
    # Filters work on recordings as on the live run.
    tid = rec["tids"]["rec_heavy"]
    mine = parse_csv(ok(schedtop("csv", "--from", path("rt.rec"), "-p", str(tid)),
                        "csv --from -p"))
    check(mine and all(int(r["pid"]) == tid for r in mine), "-p on --from")


@test(root=True)
def regrouped_moves_are_the_recorded_ones():
    """--topology on a recording counts the moves between its new clusters
    again from the recorded moves, each of which names its two CPUs. Truth:
    the tables of the live run, which the recording keeps as they were
    (csv_from_gives_the_rows_the_live_run_gave). Regrouped by the clusters
    it was recorded with, every migration count is the live one; with the
    two CPUs' capacities swapped, the moves between the same CPUs are
    counted, each up move now down; in one cluster there are none. A
    recording made as one cluster kept no move at all: split, its table is
    empty and the note names the pair (never a lower bound from the tasks'
    CPUs at samples)."""
    rtapp_recording()

    def table(name, *topo):
        r = schedtop("csv", "--from", path("rt.rec"), *topo, "-t", name)
        ok(r, "csv --from %s -t %s" % (" ".join(topo), name))
        return parse_csv(r.stdout), r.stderr.decode()

    keys = {"migration": ("from_cluster", "to_cluster"), "cluster": ("cluster",),
            "task": ("pid",)}
    fields = {"migration": ("count",), "cluster": ("up_migrations", "down_migrations"),
              "task": ("up_migrations", "down_migrations")}

    def counts(rows, name, rename=None, swap=False):
        out = {}
        for row in rows:
            key = tuple((rename or {}).get(row[k], row[k]) for k in keys[name])
            vals = tuple(row[f] for f in fields[name])
            out[(row["ts_ns"],) + key] = vals[::-1] if swap and name != "migration" else vals
        return out

    same = {}
    for name in keys:
        want, _ = table(name)
        got, err = table(name, "--topology", TOPO)
        check("regrouped by --topology" in err and
              "counted from the recorded ones" in err, "note: %r" % err)
        check(counts(got, name) == counts(want, name),
              "%s: regrouped by the recorded clusters, the counts differ" % name)
        same[name] = want
    moves = sum(int(r["count"]) for r in same["migration"])
    check(moves >= 20, "only %d moves recorded (the mover moves every ~96 ms "
          "for 4 s)" % moves)
    # x is CPU 0 (LITTLE as recorded), y CPU 1 (big), capacities swapped.
    rename = {"LITTLE": "x", "big": "y"}
    for name in keys:
        got, err = table(name, "--topology", "x:0@1024,y:1@446")
        check(counts(got, name) == counts(same[name], name, rename, swap=True),
              "%s: with the capacities swapped, the counts are not the "
              "recorded ones, up for down" % name)
    got, err = table("migration", "--topology", "all:0-1")
    check(not got and "not known" not in err and "counted" not in err,
          "one cluster: %d migration rows, note %r" % (len(got), err))
    ok(schedtop("record", "-o", path("one.rec"), "-i", "50", "-n", "10", "-q"),
       "record as one cluster")
    r = schedtop("csv", "--from", path("one.rec"), "--topology", "a:0,b:1",
                 "-t", "migration")
    err = r.stderr.decode()
    check(r.returncode == 0 and not parse_csv(r.stdout) and
          "moves between a and b are not known" in err,
          "one cluster split: exit %d, %r, note %r" % (r.returncode,
                                                      r.stdout[:200], err))
    print("# %d moves between the recorded clusters, counted alike regrouped"
          % moves)


@test(root=True)
def every_table_round_trips():
    for table in ("cluster", "cpu", "group", "migration", "freq"):
        live = ok(schedtop("csv", "-t", table, "-i", "50", "-n", "12",
                           "--topology", TOPO, "--record", path("t.rec")),
                  "csv -t " + table)
        again = ok(schedtop("csv", "--from", path("t.rec"), "-t", table),
                   "csv --from -t " + table)
        check(again == live, "table %s differs after the round trip" % table)


@test(root=True)
def report_names_the_rtapp_tasks():
    rec = rtapp_recording()
    out = ok(schedtop("report", "-n", "1000", path("rt.rec")), "report").decode()
    print("\n".join("# " + l for l in out.splitlines()[:14]))
    # The file is whole (events the kernel dropped are the dropped line's).
    check("\n  complete   " in out, "report says data was lost")
    check("LITTLE" in out and "big" in out, "clusters missing")
    by_util = out.split("Busiest tasks by util")[1].split("Busiest tasks by run")[0]
    for name in ("rec_light", "rec_heavy"):
        line = next((l for l in by_util.splitlines() if " %s " % name in l), None)
        check(line, "%s not among the busiest by util" % name)
        util = float(line.split()[3])
        duty = rec["duty"][name]
        want = duty * 1024
        # A task running duty of every 16 ms period has a util that rises
        # while it runs and decays while it sleeps, around duty * 1024: the
        # ripple, max - min, is 1024 (1 - y^a)(1 - y^b) / (1 - y^(a+b)) for
        # a ms running and b asleep in PELT periods of 1.024 ms (81 at 60%,
        # 63 at 25%). Samples catch it anywhere in that range, so their
        # mean is within half the ripple of duty * 1024. The hypervisor's
        # steal on the task's CPU stops the PELT clock but not the wall
        # time the duty is measured over: up to its share of 1024 more.
        # One unit for rounding.
        a = duty * 16e6 / PERIOD_NS
        b = (1 - duty) * 16e6 / PERIOD_NS
        ripple = 1024 * (1 - Y ** a) * (1 - Y ** b) / (1 - Y ** (a + b))
        tol = ripple / 2 + 1024 * rec["steal"][name] + 1
        print("# %s: report util_mean %.0f, duty*1024 %.0f, tolerance %.1f "
              "(ripple %.1f, steal %.1f%%)" % (name, util, want, tol, ripple,
                                              100 * rec["steal"][name]))
        check(abs(util - want) <= tol, "%s: util %.0f vs %.0f +- %.1f" %
              (name, util, want, tol))
    # The rt-app tasks rank by run time as their own schedstat run time
    # does (other busy tasks on the machine may rank anywhere among them).
    by_run = out.split("Busiest tasks by run time")[1].split("\n\n")[0]
    runs = {}
    for line in by_run.splitlines()[2:]:
        f = line.split()
        if len(f) >= 4 and f[2] in rec["duty"]:
            runs.setdefault(f[2], float(f[3]))
    check(set(runs) == set(rec["duty"]), "rt-app tasks by run time: %s" % runs)
    duty = rec["duty"]
    for a in duty:
        for b in duty:
            if duty[a] > duty[b] + 0.1:
                check(runs[a] > runs[b], "run time %s %.3f s <= %s %.3f s; "
                      "schedstat duty %.2f vs %.2f" %
                      (a, runs[a], b, runs[b], duty[a], duty[b]))
    mover_line = next(l for l in by_util.splitlines() if " rec_mover " in l)
    up, down = int(mover_line.split()[-2]), int(mover_line.split()[-1])
    check(up >= 10 and down >= 10, "rec_mover: %d up, %d down migrations" % (up, down))


@test(root=True)
def perfetto_trace_has_the_tracks():
    rec = rtapp_recording()
    ok(schedtop("convert", path("rt.rec"), "--json", "-o", path("rt.json")),
       "convert")
    with open(path("rt.json")) as f:
        trace = json.load(f)
    evs = trace["traceEvents"]
    counters = {(e["pid"], e["name"]) for e in evs if e["ph"] == "C"}
    names = {n for _, n in counters}
    check({"cpu0 util", "cpu1 util", "LITTLE", "big"} <= names,
          "CPU/cluster counter tracks missing: %s" % sorted(names)[:10])
    for task in ("rec_light", "rec_heavy"):
        tid = rec["tids"][task]
        track = "%s %d" % (task, tid)
        vals = [e["args"]["util_avg"] for e in evs
                if e["ph"] == "C" and e["name"] == track]
        check(vals, "no util track for %s" % track)
        check(all("runnable_avg" in e["args"] for e in evs
                  if e["ph"] == "C" and e["name"] == track), "runnable missing")
    moves = [e for e in evs if e["ph"] == "i" and e["name"].startswith("migrate")
             and e["args"]["comm"] == "rec_mover"]
    check(len(moves) >= 10, "only %d cluster-change instants for rec_mover" % len(moves))
    ts = [e["ts"] for e in evs if "ts" in e]
    check(min(ts) >= 0 and max(ts) < 10e6, "timestamps out of range")
    print("# %d events, %d counter tracks, %d migrations of rec_mover" %
          (len(evs), len(counters), len(moves)))


def changes(rows, key, fields):
    """{key: [(ts_ns, values)]} of csv rows, a row kept only when its values
    differ from the previous row of its key: what a counter track holds."""
    out = {}
    for r in rows:
        vals = tuple(r[f] for f in fields)
        if "" in vals:
            continue
        seq = out.setdefault(key(r), [])
        if not seq or seq[-1][1] != vals:
            seq.append((int(r["ts_ns"]), vals))
    return out


@test(root=True)
def perfetto_values_equal_csv_from():
    """Every counter of the Perfetto export (task util/runnable, CPU
    cfs/rt/dl/irq and online, cluster util/busy) has the values and times
    that csv --from gives for the same recording, change for change."""
    rtapp_recording()
    ok(schedtop("convert", path("rt.rec"), "--json", "-o", path("rt.json")),
       "convert")
    with open(path("rt.json")) as f:
        evs = [e for e in json.load(f)["traceEvents"] if e["ph"] == "C"]

    def csv_from(table):
        return parse_csv(ok(schedtop("csv", "--from", path("rt.rec"), "-t", table),
                            "csv --from -t " + table))
    tasks, cpus, clusters = csv_from("task"), csv_from("cpu"), csv_from("cluster")
    # Each track: its csv --from changes, and how its args read as csv.
    tracks = [
        (changes(tasks, lambda r: "%s %s" % (r["comm"], r["pid"]),
                 ("util_avg", "runnable_avg")),
         lambda a: (str(a["util_avg"]), str(a["runnable_avg"]))),
        (changes(cpus, lambda r: "cpu%s util" % r["cpu"],
                 ("util_avg", "rt_util", "dl_util", "irq_util")),
         lambda a: tuple(str(a[k]) for k in ("cfs", "rt", "dl", "irq"))),
        (changes(cpus, lambda r: "cpu%s online" % r["cpu"], ("online",)),
         lambda a: (str(a["online"]),)),
        (changes(clusters, lambda r: r["cluster"], ("util_pct", "busy_pct")),
         lambda a: tuple("%.2f" % a[k] for k in ("util_pct", "busy_pct"))),
    ]
    want, reader = {}, {}
    for seqs, read in tracks:
        for name in seqs:
            check(name not in want, "two tracks named %r" % name)
            want[name], reader[name] = seqs[name], read

    # Perfetto's time is in us from its own zero: place it by cpu0's first.
    first = next(e for e in evs if e["name"] == "cpu0 util")
    t0 = want["cpu0 util"][0][0] - round(first["ts"] * 1000)
    got = {}
    for e in evs:
        if e["name"] in want:
            got.setdefault(e["name"], []).append(
                (t0 + round(e["ts"] * 1000), reader[e["name"]](e["args"])))
    missing = sorted(set(want) - set(got))
    check(not missing, "tracks of csv --from missing in Perfetto: %s" % missing[:10])
    for name, seq in want.items():
        # The first change that differs, with one either side of it.
        at = next((k for k, (a, b) in enumerate(zip(got[name], seq)) if a != b),
                  min(len(got[name]), len(seq)))
        lo = max(at - 1, 0)
        check(got[name] == seq, "%s: %d changes in Perfetto, %d in csv --from; "
              "from change %d: Perfetto %s\ncsv --from %s" %
              (name, len(got[name]), len(seq), lo, got[name][lo:at + 2],
               seq[lo:at + 2]))
    print("# %d tracks, %d counter values equal to csv --from's" %
          (len(want), sum(len(v) for v in want.values())))


@test(root=True)
def sigkill_loses_at_most_the_last_chunk():
    """A recorder killed with SIGKILL keeps every chunk it wrote: its
    samples from the first, due once the file existed, to the last chunk.
    When sampling began is the test's own observation: schedtop creates the
    file (recording_out_open()) right before its first sample, and the
    test looks for it every 5 ms from the start; the file's own first
    sample is not taken for it (a file that kept only its last chunk
    would then pass)."""
    rec = path("killed.rec")
    if os.path.exists(rec):
        os.unlink(rec)
    p = start_schedtop("record", "-o", rec, "-i", "100", "--topology", TOPO)
    t_start = mono_ns()
    t_open = None
    while mono_ns() - t_start < 3.6e9:
        if t_open is None and os.path.exists(rec):
            t_open = mono_ns()
        time.sleep(0.005)
    t_kill = mono_ns()
    p.send_signal(signal.SIGKILL)
    p.wait()
    check(t_open is not None, "schedtop record made no file in 3.6 s")
    r = schedtop("report", rec)
    out = ok(r, "report on a killed recording").decode()
    check("did not finish" in out, "report does not say the file is unfinished")
    first = out.split("duration")[1].split()
    samples = int(first[2])
    rows = parse_csv(ok(schedtop("csv", "--from", rec, "-t", "cluster"),
                        "csv --from on a killed recording"))
    check(len(rows) == samples * 2, "%d cluster rows for %d samples" % (len(rows), samples))
    # The samples due by the kill: every 100 ms from when the file was
    # made (ts_ns is CLOCK_MONOTONIC, as mono_ns()), however long schedtop
    # took to start before it. The writer ends a chunk once its samples
    # span a second (ts + interval - first >= CHUNK_SPAN_NS,
    # record_writer.c): the 10th sample at 100 ms, the 11th when the
    # sample times run a little early. A kill loses at most the 10 of an
    # unwritten chunk and the one being taken.
    ts = sorted({int(x["ts_ns"]) for x in rows})
    check(ts, "no sample readable after the kill")
    due = (t_kill - t_open) // 100_000_000 + 1
    print("# killed %.2f s after the start, %.2f s after the file appeared "
          "(its first sample %.1f ms after that): %d samples readable of %d "
          "due" % ((t_kill - t_start) / 1e9, (t_kill - t_open) / 1e9,
                   (ts[0] - t_open) / 1e6, samples, due))
    if due <= 11:
        raise Inconclusive("schedtop made its file %.2f s after its start: "
                           "too few samples due (%d) for a chunk to be "
                           "written" % ((t_open - t_start) / 1e9, due))
    # The first kept sample is the first one taken, one interval after the
    # file appeared (measured: 100.0 ms); a second interval allows for a
    # timer the machine fires late. A file that lost its early chunks
    # starts a second or more later.
    check(ts[0] <= t_open + 200_000_000,
          "the first sample kept is %.1f ms after the file appeared: the "
          "early chunks were lost" % ((ts[0] - t_open) / 1e6))
    check(due - 11 <= samples <= due, "%d samples survived a kill when %d "
          "were due (the last chunk holds at most 10, one more being "
          "taken)" % (samples, due))


@test(root=True)
def sigterm_and_sigint_finish_the_file():
    for sig in (signal.SIGTERM, signal.SIGINT):
        p = start_schedtop("record", "-o", path("term.rec"), "-i", "100", "-q")
        time.sleep(1.5)
        p.send_signal(sig)
        _, err = p.communicate(timeout=10)
        check(p.returncode == 0, "record exited %d on signal %d: %s" %
              (p.returncode, sig, err))
        out = ok(schedtop("report", path("term.rec")), "report").decode()
        check("\n  complete   " in out, "not finished after signal %d" % sig)


# A finished file ends with its END chunk: a 32-byte header (magic,
# lengths, CRC) and 24 bytes (docs/record-format.md). A flip in that header
# can make the chunk read as one a killed recorder cut short: the one place
# where damage cannot be told from an unfinished file.
END_CHUNK, END_HDR = 56, 32


def damaged_variants(data):
    """(kind, bytes, whether the damage may read as an unfinished file)."""
    rnd = random.Random(7)
    tail = range(len(data) - END_CHUNK, len(data) - END_CHUNK + END_HDR)
    for _ in range(60):
        d = bytearray(data)
        where = set()
        for _ in range(rnd.choice([1, 1, 2, 8])):
            pos = rnd.randrange(len(d))
            where.add(pos)
            d[pos] ^= 1 << rnd.randrange(8)
        yield "flip", bytes(d), bool(where & set(tail))
    for _ in range(30):
        yield "cut", data[:rnd.randrange(len(data))], True


@test(root=True)
def damaged_files_give_errors_never_crashes():
    ok(schedtop("record", "-o", path("good.rec"), "-i", "50", "-n", "30", "-q"),
       "record")
    with open(path("good.rec"), "rb") as f:
        data = f.read()
    rcs = {}
    for kind, d, may_look_unfinished in damaged_variants(data):
        with open(path("bad.rec"), "wb") as f:
            f.write(d)
        for cmd in (["csv", "--from", path("bad.rec"), "-t", "cluster"],
                    ["report", path("bad.rec")],
                    ["convert", path("bad.rec"), "--json", "-o", os.devnull]):
            r = schedtop(*cmd)
            err = r.stderr.decode(errors="replace")
            check(r.returncode in (0, 1), "%s on a %s file: exit %d (crash?)\n%s" %
                  (cmd[0], kind, r.returncode, err))
            check(err.startswith("schedtop: "), "%s on a %s file: exit %d, "
                  "no message: %r" % (cmd[0], kind, r.returncode, err))
            if kind == "flip" and not (may_look_unfinished and
                                       r.returncode == 0):
                # Every byte is under a CRC (or is the magic): a changed
                # one is damage, said so, and the command fails.
                check(r.returncode == 1 and ("damaged" in err or
                                             "neither a schedtop recording" in err),
                      "%s on a file with flipped bits: exit %d %r" %
                      (cmd[0], r.returncode, err))
            elif r.returncode == 0:
                # A cut file is what a killed recorder leaves: readable, and
                # said to be unfinished.
                check("did not finish" in err,
                      "%s on a cut file: exit 0 with %r" % (cmd[0], err))
            rcs[r.returncode] = rcs.get(r.returncode, 0) + 1
    print("# 90 damaged files x 3 commands: exit codes %s" % rcs)

    def error_of(content):
        with open(path("odd.rec"), "wb") as f:
            f.write(content)
        r = schedtop("report", path("odd.rec"))
        check(r.returncode == 1, "report accepted a bad file")
        return r.stderr.decode()
    check("neither a schedtop recording nor a trace schedtop reads" in
          error_of(b"ts_ns,pid\r\n1,2\r\n"), "foreign")
    # Ftrace text is read as the kernel and trace-cmd report print it, but
    # not the kernel's latency-format (relative times, no CPU brackets).
    check("latency-format" in error_of(
        b"  sh-6837    1d..2. 1234us : sched_switch: prev_comm=sh prev_pid=6837"
        b" prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0"
        b" next_prio=120\n"), "text trace")
    check("an empty file" in error_of(b""), "empty file")
    check("exec-out" in error_of(data.replace(b"\r\n", b"\n")), "mangled")
    future = bytearray(data)
    future[12] = 9
    import zlib
    future[16:20] = zlib.crc32(bytes(future[:16])).to_bytes(4, "little")
    check("newer schedtop" in error_of(bytes(future)), "future version")


@test(root=True)
def full_disk_is_a_clear_error_and_keeps_the_samples():
    mnt = path("small")
    os.makedirs(mnt)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", mnt], check=True)
    try:
        r = schedtop("record", "-o", os.path.join(mnt, "full.rec"), "-i", "20",
                     "-d", "60", timeout=90)
        err = r.stderr.decode()
        check(r.returncode == 1, "record on a full disk exited %d" % r.returncode)
        check("disk full" in err and "stays readable" in err, "message: %s" % err)
        out = ok(schedtop("report", os.path.join(mnt, "full.rec")),
                 "report on the full-disk recording").decode()
        samples = int(out.split("duration")[1].split()[2])
        check(samples >= 10, "only %d samples kept" % samples)
        print("# disk full after %d samples: %s" % (samples, err.strip().replace("\n", " ")))
    finally:
        subprocess.run(["umount", mnt])
    r = schedtop("record", "-o", "/nonexistent/dir/x.rec", "-n", "1")
    check(r.returncode == 1 and b"cannot write /nonexistent/dir/x.rec" in r.stderr,
          "unwritable path: %r" % r.stderr)


@test(root=True)
def live_view_records_what_it_shows():
    from tmux import Tmux, exited_cleanly, kill_server
    t = Tmux(["-i", "100", "--topology", TOPO, "--record", path("live.rec")])
    try:
        t.wait_for(r"^ +PID ")
        time.sleep(2)
        t.keys("q")
        exited_cleanly(t)
    finally:
        t.close()
        kill_server()
    out = ok(schedtop("report", path("live.rec")), "report").decode()
    check("\n  complete   " in out, "live recording not finished:\n" + out)
    samples = int(out.split("duration")[1].split()[2])
    check(samples >= 15, "only %d samples recorded by the live view" % samples)


@test(root=True)
def arm64_binary_reads_a_host_recording():
    if not shutil.which("qemu-aarch64-static") or not shutil.which("aarch64-linux-gnu-gcc"):
        raise Skip("not installed: qemu-user-static, gcc-aarch64-linux-gnu "
                   "(scripts/install-deps --arm64)")
    b = subprocess.run(["make", "-s", "-C", SRC, "ARCH=arm64"], capture_output=True)
    check(b.returncode == 0, "make ARCH=arm64 failed:\n" + b.stderr.decode()[-2000:])
    ok(schedtop("record", "-o", path("host.rec"), "-i", "50", "-n", "25", "-q",
                "--topology", TOPO), "record")
    for table in ("task", "cluster"):
        host = ok(schedtop("csv", "--from", path("host.rec"), "-t", table), "host")
        arm = subprocess.run(["qemu-aarch64-static", ARM_BIN, "csv", "--from",
                              path("host.rec"), "-t", table], capture_output=True,
                             timeout=120)
        ok(arm, "arm64 csv --from")
        check(arm.stdout == host, "arm64 reads the %s table differently" % table)


@test
def newer_minor_version_reads_with_a_note():
    """A file of a newer minor version reads as before, with one line saying
    that what its version added is skipped (minor versions only add)."""
    src = os.path.join(SRC, "tests", "fuzz", "corpus", "two-samples.rec")
    with open(src, "rb") as f:
        data = bytearray(f.read())
    check(data[14:16] == b"\x00\x00", "fixture is not format 1.0")
    # The same bytes as this version's own (what a reader gives files of
    # before a version, e.g. 1.5's availability bits, it does not give
    # them) and as 1.9's.
    with open(os.path.join(SRC, "include", "schedstat.h")) as f:
        minor = int(re.search(r"SCHEDSTAT_RECORDING_VERSION_MINOR\s+(\d+)", f.read()).group(1))

    def relabel(v):
        out = bytearray(data)
        out[14:16] = v.to_bytes(2, "little")
        out[16:20] = zlib.crc32(bytes(out[:16])).to_bytes(4, "little")
        return out
    with tempfile.TemporaryDirectory() as tmp:
        old_path = os.path.join(tmp, "old.rec")
        cur_path = os.path.join(tmp, "cur.rec")
        new_path = os.path.join(tmp, "new.rec")
        for p, d in ((old_path, data), (cur_path, relabel(minor)), (new_path, relabel(9))):
            with open(p, "wb") as f:
                f.write(d)
        for cmd in (["csv", "--from"], ["report"]):
            old = schedtop(*cmd, old_path)
            cur = schedtop(*cmd, cur_path)
            new = schedtop(*cmd, new_path)
            err = new.stderr.decode()
            check(old.returncode == 0 and new.returncode == 0,
                  "%s: exit %d and %d" % (cmd[0], old.returncode, new.returncode))
            check(b"newer schedtop" not in old.stderr,
                  "%s: a 1.0 file was called newer: %r" % (cmd[0], old.stderr))
            check("made by a newer schedtop (format 1.9" in err and
                  err.count("\n") == 1,
                  "%s: no one-line note for format 1.9: %r" % (cmd[0], err))
            if cmd[0] == "csv":
                check(new.stdout == cur.stdout and new.stdout.count(b"\r\n") > 2,
                      "csv --from of the 1.9 file differs from the 1.%d one" % minor)


@test(root=True)
def topology_override_regroups_a_recording():
    """Recorded live as LITTLE:0,big:1, read with other clusters: the
    cluster rows are the recording's own CPU rows (csv --from -t cpu, as
    recorded) summed by the new clusters, capacities the spec gives taking
    the place of the recorded ones; one line on stderr says so. Without
    --topology the rows and stderr stay as they were."""
    tasks = {"rg_small": periodic(0, 0.3, name="rg_small"),
             "rg_big": periodic(1, 0.6, name="rg_big")}
    rt = RtApp(tasks, duration=6)
    try:
        time.sleep(0.5)
        ok(schedtop("record", "-o", path("rg.rec"), "-i", "100", "-n", "25",
                    "-q", "--topology", TOPO), "record")
    finally:
        rt.stop()
    rec = path("rg.rec")
    plain = schedtop("csv", "--from", rec, "-t", "cluster")
    ok(plain, "csv --from")
    check(plain.stderr == b"", "a note without --topology: %r" % plain.stderr)
    check({r["cluster"] for r in parse_csv(plain.stdout)} == {"LITTLE", "big"},
          "recorded clusters changed without --topology")
    by_ts = {}
    for c in parse_csv(ok(schedtop("csv", "--from", rec, "-t", "cpu"), "cpu rows")):
        by_ts.setdefault(c["ts_ns"], []).append(c)
    compared = 0
    for spec, want in (("one:0-1", {"one": ({0, 1}, None)}),
                       ("b:0,a:1@512", {"b": ({0}, None), "a": ({1}, 512)})):
        r = schedtop("csv", "--from", rec, "-t", "cluster", "--topology", spec)
        ok(r, "csv --from --topology " + spec)
        err = r.stderr.decode()
        check(err.count("\n") == 1 and "regrouped by --topology" in err and
              "LITTLE:0,big:1" in err, "note for %s: %r" % (spec, err))
        rows = parse_csv(r.stdout)
        check({x["cluster"] for x in rows} == set(want) and
              len(rows) == len(want) * len(by_ts),
              "%s: clusters %s in %d rows" % (spec, {x["cluster"] for x in rows}, len(rows)))
        for row in rows:
            cpus, cap_given = want[row["cluster"]]
            mine = [c for c in by_ts[row["ts_ns"]]
                    if int(c["cpu"]) in cpus and c["online"] == "1"]
            cap = sum(cap_given or int(c["capacity"]) for c in mine)
            util = sum(int(c[k] or 0) for c in mine
                       for k in ("util_avg", "rt_util", "dl_util", "irq_util"))
            got = (int(row["capacity"]), int(row["nr_online"]), int(row["nr_running"]))
            check(got == (cap, len(mine), sum(int(c["nr_running"]) for c in mine)),
                  "%s %s at %s: capacity, online, running %s, CPU rows say %s" %
                  (spec, row["cluster"], row["ts_ns"], got,
                   (cap, len(mine), sum(int(c["nr_running"]) for c in mine))))
            if row["util_pct"] != "":
                check(abs(float(row["util_pct"]) - 100.0 * util / cap) < 0.01,
                      "%s %s util_pct %s, CPU rows give %.3f" %
                      (spec, row["cluster"], row["util_pct"], 100.0 * util / cap))
                compared += 1
        for cmd in (["report", rec], ["convert", rec, "--json", "-o", path("rg.json")]):
            r = schedtop(*cmd[:1], "--topology", spec, *cmd[1:])
            ok(r, "%s --topology" % cmd[0])
            check(r.stderr.decode().count("regrouped by --topology") == 1,
                  "%s: no note: %r" % (cmd[0], r.stderr))
    check(compared > 20, "util_pct compared only %d times" % compared)
    r = schedtop("csv", "--from", rec, "--topology", "one:0")
    check(r.returncode == 1 and r.stderr.decode().count("\n") == 1 and
          "leaves out CPUs" in r.stderr.decode(), "a CPU left out: %r" % r.stderr)
    print("# %d regrouped cluster rows agree with the CPU rows" % compared)


if __name__ == "__main__":
    try:
        run()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
