"""Perfetto traces read as they are (issue 32): a real Pixel 6a's warm start
(tests/fixtures/perfetto/README.md) through report, csv --from, replay and
convert, its tables against the trace's own events as protoc decodes them
(perfetto_truth.py, switch_truth.py); the same events as full FtraceEvents,
in zlib- and zstd-compressed packets; every trace file's window; and damaged
files, each said in one line naming the offset."""
import collections
import hashlib
import json
import lzma
import os
import re
import shutil
import subprocess
import tempfile
import zlib

import sys

from harness import SRC, check, parse_csv, run, schedtop, test
import perfetto_truth
import switch_truth

sys.path.insert(0, os.path.join(SRC, "tests", "tools"))
from perfetto_bytes import field, fields, top_packets, varint  # noqa: E402

FIXTURE = os.path.join(SRC, "tests", "fixtures", "perfetto",
                       "pixel6a-startup.perfetto-trace.xz")
SHA256 = "776122b5660c5d6e738950031fdb4992a64e3224e9e82bbaed474a0a281ed7e3"
TOPO = "LITTLE:0-3@160,mid:4-5@498,big:6-7@1024"
DATS = [(os.path.join(SRC, "tests", "fixtures", "trace", name),
         "LITTLE:0,3-5@446,big:1-2@1024")
        for name in ("juno-excerpt.dat", "juno-pelt.dat")]


def cluster(cpu):
    return "LITTLE" if cpu < 4 else "mid" if cpu < 6 else "big"


_tmp = tempfile.mkdtemp(prefix="schedtop-perfetto-")
_cache = {}


def path(name):
    return os.path.join(_tmp, name)


def pixel():
    """The trace inflated into a file, checked against Perfetto's hash."""
    if "pixel" not in _cache:
        with lzma.open(FIXTURE) as f:
            data = f.read()
        check(hashlib.sha256(data).hexdigest() == SHA256,
              "the fixture is not Perfetto's api32_startup_warm trace")
        with open(path("pixel.perfetto-trace"), "wb") as f:
            f.write(data)
        _cache["pixel"] = path("pixel.perfetto-trace")
    return _cache["pixel"]


def truth(trace):
    if trace not in _cache:
        _cache[trace] = perfetto_truth.truth(trace)
    return _cache[trace]


def csv_rows(trace, table, *args, topo=TOPO):
    r = schedtop("csv", "--from", trace, "-t", table, *(("--topology", topo) if topo else ()),
                 *args)
    check(r.returncode == 0, "csv --from %s -t %s: %s" % (trace, table, r.stderr))
    return parse_csv(r.stdout), r.stderr.decode()


# ---- variants of the trace, and damaged ones ----

def compressed(data, how):
    """@data's packets in compressed_packets (how "zlib") or
    zstd_compressed_packets ("zstd") of about 100 KB each."""
    out, group = bytearray(), bytearray()

    def flush():
        if not group:
            return
        if how == "zlib":
            pkt = field(50, zlib.compress(bytes(group), 9))
        else:
            z = subprocess.run(["zstd", "-q", "-c", "-"], input=bytes(group),
                               capture_output=True, check=True).stdout
            pkt = field(133, z)
        out.extend(field(1, pkt + field(10, 1)))
        group.clear()

    for _, _, p in top_packets(data):
        group.extend(field(1, p))
        if len(group) > 100_000:
            flush()
    flush()
    return bytes(out)


def text_of(node, indent=""):
    """protoc's text format of a parsed node, unknown (numbered) fields left out."""
    lines = []
    for k, v in node:
        if k[0].isdigit():
            continue
        if isinstance(v, list):
            lines.append("%s%s {" % (indent, k))
            lines.append(text_of(v, indent + "  "))
            lines.append(indent + "}")
        else:
            lines.append("%s%s: %s" % (indent, k, v))
    return "\n".join(l for l in lines if l)


def full_events_variant(ev, heads):
    """The trace with CompactSched's switches and wakings written as full
    FtraceEvents (a switch's previous task: the CPU's previous next task,
    the first's the head the truth found), merged by time into each
    bundle's event list; system_info, process_tree and the full events the
    schema knows (those of other kinds keep their time and pid)."""
    get, num = perfetto_truth._get, perfetto_truth._int
    last = dict(heads)
    comm = {}
    packets = []
    for packet in get(ev["tree"], "packet"):
        keep = [(k, v) for k, v in packet
                if k in ("system_info", "process_tree")]
        for b in get(packet, "ftrace_events"):
            cpu = num(b, "cpu", 0)
            items = []
            for e in get(b, "event"):
                body = [(k, v) for k, v in e if not k[0].isdigit()]
                items.append((num(e, "timestamp"), 0, body))
            for c in get(b, "compact_sched"):
                names = get(c, "intern_table")
                acc = 0
                for dt, pid, prio, tcpu, ci in zip(*(get(c, k) for k in (
                        "waking_timestamp", "waking_pid", "waking_prio",
                        "waking_target_cpu", "waking_comm_index"))):
                    acc += int(dt)
                    items.append((acc, 1, [("timestamp", str(acc)), ("sched_waking", [
                        ("comm", names[int(ci)]), ("pid", pid), ("prio", prio),
                        ("target_cpu", tcpu)])]))
                acc = 0
                for dt, st, pid, prio, ci in zip(*(get(c, k) for k in (
                        "switch_timestamp", "switch_prev_state", "switch_next_pid",
                        "switch_next_prio", "switch_next_comm_index"))):
                    acc += int(dt)
                    prev, pprio = last.get(cpu, (0, "120"))
                    items.append((acc, 2, [("timestamp", str(acc)), ("pid", str(prev)), (
                        "sched_switch", [
                            ("prev_comm", comm.get(prev, '""')), ("prev_pid", str(prev)),
                            ("prev_prio", pprio), ("prev_state", st),
                            ("next_comm", names[int(ci)]), ("next_pid", pid),
                            ("next_prio", prio)])]))
                    last[cpu] = (int(pid), prio)
                    comm[int(pid)] = names[int(ci)]
            items.sort(key=lambda x: (x[0], x[1]))
            keep.append(("ftrace_events", [("cpu", str(cpu))] +
                         [("event", body) for _, _, body in items]))
        if keep:
            packets.append(("packet", keep))
    return perfetto_truth.protoc("encode", text_of(packets).encode())


def packet_fields(p):
    """TracePacket @p's fields, each as its bytes on the wire, with
    (number, wire type, value or (start, end))."""
    for f, w, v, at in fields(p, 0, len(p)):
        if w == 2:
            yield f, w, v, field(f, p[v[0]:v[1]])
        elif w == 0:
            yield f, w, v, varint(f << 3) + varint(v)
        else:
            yield f, w, v, varint(f << 3 | w) + p[at:at + (8 if w == 1 else 4)]


def bundle_cpu(b):
    return next((v for f, w, v, _ in fields(b, 0, len(b)) if f == 1 and w == 0), 0)


def with_lost_events(data, cpus, per_cpu):
    """@data with lost_events (FtraceEventBundle field 3) set on the first
    @per_cpu bundles of each CPU in @cpus."""
    out, marked = bytearray(), collections.Counter()
    for _, _, p in top_packets(data):
        pkt = bytearray()
        for f, w, v, raw in packet_fields(p):
            if f == 1 and w == 2:
                b = p[v[0]:v[1]]
                cpu = bundle_cpu(b)
                if cpu in cpus and marked[cpu] < per_cpu:
                    marked[cpu] += 1
                    raw = field(1, b + field(3, 1))
            pkt += raw
        out += field(1, bytes(pkt))
    return bytes(out)


def full_variant():
    """full_events_variant() of the Pixel trace, in a file (made once)."""
    if "full" not in _cache:
        ev, tr = truth(pixel())
        with open(path("full.perfetto-trace"), "wb") as f:
            f.write(full_events_variant(ev, {c: (p, "120") for c, p in tr.head.items()}))
        _cache["full"] = path("full.perfetto-trace")
    return _cache["full"]


def map_events(data, fn):
    """@data with each bundle's FtraceEvents replaced by fn(cpu, event
    bytes), a list of events; everything else as it is."""
    out = bytearray()
    for _, _, p in top_packets(data):
        pkt = bytearray()
        for f, w, v, raw in packet_fields(p):
            if f == 1 and w == 2:
                b = p[v[0]:v[1]]
                cpu, nb = bundle_cpu(b), bytearray()
                for g, gw, gv, graw in packet_fields(b):
                    if g == 2 and gw == 2:
                        nb += b"".join(field(2, e) for e in fn(cpu, b[gv[0]:gv[1]]))
                    else:
                        nb += graw
                raw = field(1, bytes(nb))
            pkt += raw
        out += field(1, bytes(pkt))
    return bytes(out)


def event_parts(e):
    """An FtraceEvent's timestamp, common pid (None if absent) and its
    event (field number, bytes)."""
    ts, pid, body = None, None, (None, b"")
    for f, w, v, _ in fields(e, 0, len(e)):
        if f == 1 and w == 0:
            ts = v
        elif f == 2 and w == 0:
            pid = v
        elif w == 2:
            body = (f, e[v[0]:v[1]])
    return ts, pid, body


def event_bytes(ts, pid, num, body):
    return field(1, ts) + (field(2, pid) if pid is not None else b"") + field(num, body)


def events_of(ev, name):
    """(timestamp, bundle CPU, fields) of each full event @name as protoc
    decoded the trace (perfetto_truth's schema names it)."""
    get, num = perfetto_truth._get, perfetto_truth._int
    for packet in get(ev["tree"], "packet"):
        for b in get(packet, "ftrace_events"):
            for e in get(b, "event"):
                for x in get(e, name):
                    yield num(e, "timestamp"), num(b, "cpu", 0), x


def task_sums(trace, column):
    rows, _ = csv_rows(trace, "task")
    got = collections.Counter()
    for r in rows:
        got[int(r["pid"])] += int(r[column] or 0)
    return got


def differ(got, want):
    return {p: (got[p], want[p]) for p in set(got) | set(want) if got[p] != want[p]}


# ---- the tests ----

def check_tables(trace, what, tr=None):
    """csv --from's cpu, task, freq and migration tables of @trace against
    the trace's own events: busy, run and frequency time to the ns, moves
    between clusters exactly; nothing past the last event. The count of
    what was compared."""
    ev, tr = tr or truth(trace)
    cpus, err = csv_rows(trace, "cpu")
    busy, stamps = collections.Counter(), sorted({int(r["ts_ns"]) for r in cpus})
    for r in cpus:
        busy[int(r["cpu"])] += int(r["busy_ns"])
    check(stamps and stamps[-1] == tr.last, "%s: last row at %s, the trace's last "
          "event at %d" % (what, stamps[-1:], tr.last))
    steps = [b - a for a, b in zip([tr.first] + stamps, stamps)]
    check(all(s == 100_000_000 for s in steps[:-1]) and 0 < steps[-1] <= 100_000_000,
          "%s: sample steps %s" % (what, sorted(set(steps))))
    check(busy == tr.busy, "%s: busy ns per CPU (schedtop, the switches): %s" % (
        what, {c: (busy[c], tr.busy[c]) for c in set(busy) | set(tr.busy)
               if busy[c] != tr.busy[c]}))
    tasks, _ = csv_rows(trace, "task")
    run_ns, tgid = collections.Counter(), {}
    for r in tasks:
        run_ns[int(r["pid"])] += int(r["run_ns"])
        tgid[int(r["pid"])] = int(r["tgid"])
    bad = {p: (run_ns[p], tr.run[p]) for p in set(run_ns) | set(tr.run)
           if run_ns[p] != tr.run[p]}
    check(not bad, "%s: run ns per pid (schedtop, the switches), %d of %d differ: "
          "%s" % (what, len(bad), len(tr.run), dict(list(bad.items())[:10])))
    # Threads the process_tree names get their process.
    named = {p: g for p, g in ev["tgid"].items() if p in tgid}
    check(all(tgid[p] == g for p, g in named.items()), "%s: tgids differ: %s" % (
        what, {p: (tgid[p], g) for p, g in named.items() if tgid[p] != g}))
    freqs, _ = csv_rows(trace, "freq")
    got = collections.defaultdict(collections.Counter)
    for r in freqs:
        got[r["cluster"]][int(r["freq_khz"])] += int(r["time_ns"])
    n_freq = 0
    for name, first_cpu in (("LITTLE", 0), ("mid", 4), ("big", 6)):
        want = tr.freq[first_cpu]
        check(+got[name] == +want, "%s: %s residency (schedtop, the events): %s" % (
            what, name, {k: (got[name][k], want[k]) for k in set(want) | set(got[name])
                         if got[name][k] != want[k]}))
        n_freq += len(want)
    moves, _ = csv_rows(trace, "migration")
    mv = collections.Counter()
    for r in moves:
        mv[(r["from_cluster"], r["to_cluster"])] += int(r["count"])
    want = switch_truth.moves(ev["switch"], tr, cluster)
    check(+mv == want, "%s: moves between clusters %s, the switches' %s" % (
        what, dict(+mv), dict(want)))
    n = len(tr.busy) + len(tr.run) + n_freq + len(want) + len(named)
    check(len(tr.busy) == 8 and len(tr.run) > 300 and n_freq > 10 and
          sum(want.values()) > 100 and len(named) > 100,
          "%s: too little compared: %d CPUs, %d tasks, %d frequencies, %d moves, "
          "%d tgids" % (what, len(tr.busy), len(tr.run), n_freq, sum(want.values()),
                        len(named)))
    return n, err


@test
def pixel_tables_equal_the_traces_own_events():
    n, err = check_tables(pixel(), "pixel")
    ev, tr = truth(pixel())
    check("one cluster" not in err, "a topology note with --topology: %r" % err)
    # Compact sched names no previous task: the heads come from events.
    check(re.search(r"as the events before it name it on CPUs 1-7", err) and
          tr.head[2] == 7773, "head note: %r (heads %s)" % (err, tr.head))
    check(re.search(r"CPUs 0-7: clock not known until the first cpu_frequency "
                    r"event \(up to 27\.3 ms", err), "clock note: %r" % err)
    print("# %d switches, %d wakings; %d values equal to the ns (busy per CPU, run "
          "per task, residency per cluster and frequency, moves per cluster pair, "
          "tgids)" % (tr.nr_switches, ev["waking"], n))


@test
def pixel_report_lists_clusters_and_busiest_tasks():
    ev, tr = truth(pixel())
    r = schedtop("report", "-n", "5", "--topology", TOPO, pixel())
    check(r.returncode == 0, "report: %s" % r.stderr)
    out = r.stdout.decode()
    for line in (r"^\s+LITTLE\s+0-3\s+160\s", r"^\s+mid\s+4-5\s+498\s",
                 r"^\s+big\s+6-7\s+1024\s",
                 r"recorded\s+by perfetto \(compact sched\), kernel 5\.10\.107-android13-4"):
        check(re.search(line, out, re.M), "no %r in the report:\n%s" % (line, out))
    part = out.split("Busiest tasks by run time")[1]
    rows = re.findall(r"^\s+(\d+)\s+(\d+)\s+(\S+)\s+([\d.]+)\s", part, re.M)[:5]
    top = sorted(tr.run.items(), key=lambda x: -x[1])[:5]
    check([int(p) for p, _, _, _ in rows] == [p for p, _ in top] and
          all(abs(float(s) - ns / 1e9) < 0.0005 for (_, _, _, s), (_, ns) in zip(rows, top)),
          "busiest by run time %s, the switches' %s" % (rows, top))
    check(rows[0][2] == "traced_probes", "busiest: %s" % (rows[0],))


@test
def a_recording_made_from_the_trace_names_the_traces_machine():
    """csv --trace --record: the recording says what the trace says of its
    machine (system_info's utsname, as protoc decodes it), not this
    machine's name, kernel or clock, and no date (a trace's clock is not
    wall time)."""
    ev, _ = truth(pixel())
    get = perfetto_truth._get
    uts = [u for packet in get(ev["tree"], "packet")
           for si in get(packet, "system_info") for u in get(si, "utsname")]
    check(len(uts) == 1, "%d utsnames in the trace" % len(uts))
    release, machine = (json.loads(get(uts[0], k)[0]) for k in ("release", "machine"))
    check(release.startswith("5.10.") and machine == "aarch64", "utsname %s %s" % (
        release, machine))
    rec = path("pixel.rec")
    r = schedtop("csv", "--trace", pixel(), "--topology", TOPO, "-t", "cpu",
                 "--record", rec, "-o", os.devnull)
    check(r.returncode == 0, "csv --trace --record: %s" % r.stderr)
    for what, cmd in (("the recording", rec), ("the trace", pixel())):
        r = schedtop("report", cmd)
        out = r.stdout.decode()
        line = next((l for l in out.splitlines() if "recorded" in l), "")
        check(r.returncode == 0 and line == "  recorded   by perfetto (compact sched), "
              "kernel %s, %s" % (release, machine), "%s: %r" % (what, line))
        check(os.uname().release not in out and os.uname().nodename not in out,
              "%s names this machine:\n%s" % (what, out[:400]))


@test
def pixel_replay_shows_it_and_convert_exports_it():
    from tmux import Tmux, quit_cleanly, task_rows
    if not shutil.which("tmux"):
        raise AssertionError("tmux missing: apt-get install tmux")
    t = Tmux(["replay", "-s", "x0.25", "--topology", TOPO, pixel()],
             width=160, height=40)
    try:
        t.wait_for(r"REPLAY 1/20 ")
        t.keys("space")
        t.wait_for(r"PAUSED")
        t.keys("}")
        screen = t.wait_for(r"REPLAY 20/20 ")
        for name in ("LITTLE", "mid", "big"):
            check(name in screen, "no cluster %s on screen:\n%s" % (name, screen))
        check(any(r["COMM"] for r in task_rows(screen)), "no task rows:\n" + screen)
        quit_cleanly(t)
    finally:
        t.close()
    out = path("pixel.json")
    r = schedtop("convert", "--topology", TOPO, pixel(), "--json", "-o", out)
    check(r.returncode == 0, "convert: %s" % r.stderr)
    with open(out) as f:
        events = json.load(f)["traceEvents"]
    names = {e.get("name", "") for e in events}
    check(any("traced_probes" in n for n in names) and
          any("LITTLE" in n for n in names), "convert lacks tasks or clusters: %s" %
          sorted(names)[:20])


@test
def full_events_and_compressed_packets_read_alike():
    """The same events as full FtraceEvents, and the trace in zlib and zstd
    compressed packets: the same tables, equal to their own events."""
    ev, tr = truth(pixel())
    with open(pixel(), "rb") as f:
        data = f.read()
    full = full_variant()
    fev, ftr = truth(full)
    check(ftr.busy == tr.busy and ftr.run == tr.run and not any(
        p is None for _, _, p, _ in fev["switch"]), "the full variant's own sums differ")
    check_tables(full, "full FtraceEvents")
    base = schedtop("csv", "--from", pixel(), "-t", "cpu", "--topology", TOPO).stdout
    for how in ("zlib", "zstd"):
        p = path("%s.perfetto-trace" % how)
        with open(p, "wb") as f:
            f.write(compressed(data, how))
        r = schedtop("csv", "--from", p, "-t", "cpu", "--topology", TOPO)
        check(r.returncode == 0 and r.stdout == base,
              "%s packets: exit %d, %s" % (how, r.returncode, r.stderr))
        print("# %s: %d bytes, rows as the plain trace's" % (how, os.path.getsize(p)))


@test
def cpu_info_gives_the_clusters():
    """A trace with cpu_info (Perfetto v47 and later record each CPU's
    capacity and frequencies): its clusters without --topology, one per
    capacity, and each CPU's highest frequency the 1024 of invariance."""
    with open(pixel(), "rb") as f:
        data = f.read()
    caps = [160] * 4 + [498] * 2 + [1024] * 2
    khz = [1803000] * 4 + [2253000] * 2 + [2802000] * 2
    info = b"".join(field(1, field(1, b"cpu%d" % c) + field(2, 300000) +
                          field(2, khz[c]) + field(3, caps[c])) for c in range(8))
    p = damaged("cpu-info", field(1, field(67, info)) + data)
    rows, err = csv_rows(p, "cpu", topo=None)
    # Named by rank as detect.c names sysfs's: LITTLE, big, prime.
    got = {(int(r["cpu"]), r["cluster"], int(r["capacity"])) for r in rows}
    want = {(c, "LITTLE" if c < 4 else "big" if c < 6 else "prime", caps[c])
            for c in range(8)}
    check(got == want, "CPUs %s, want %s" % (sorted(got), sorted(want)))
    check("clusters from the CPU capacities the trace gives" in err and
          "one cluster" not in err, "notes: %r" % err)
    # The maxima are cpu_info's: the trace's own highest is not used.
    check("highest the trace shows" not in err, "PELT note: %r" % err)


@test
def cpuhp_steps_are_hotplug_operations():
    """cpuhp_enter and cpuhp_exit events (ftrace_event.proto 345, 343):
    CPU 3 taken offline (steps down from state 3 to 0) and brought back (up
    to 230), after the trace's other events (a bundle of CPU 0 appended to
    the file, in CPU 0's time order): two operations on CPU 3."""
    ev, tr = truth(pixel())
    with open(pixel(), "rb") as f:
        data = f.read()
    t = tr.last + 1_000_000
    steps = []
    for i, (target, idx) in enumerate([(0, 3), (0, 2), (0, 1), (230, 1), (230, 2)]):
        ts = t + i * 1_000_000
        steps.append(field(2, field(1, ts) + field(2, 0) + field(345, field(1, 3) +
                           field(3, idx) + field(4, target))))
        steps.append(field(2, field(1, ts + 500_000) + field(2, 0) + field(343, field(1, 3) +
                           field(2, idx) + field(4, idx - (target == 0)))))
    p = damaged("cpuhp", data + field(1, field(1, field(1, 0) + b"".join(steps))))
    rows, err = csv_rows(p, "cpu")
    check("out of time order" not in err, err)
    ops = sum(int(r["hotplug_ops"] or 0) for r in rows if r["cpu"] == "3")
    to = [r["hotplug_to"] for r in rows if r["cpu"] == "3" and r["hotplug_to"]]
    check(ops == 2 and to and to[-1] == "online", "CPU 3: %d operations, %s" % (ops, to))


@test
def every_traces_window_head_and_tail():
    """On every trace file, busy and run time over the whole window, head
    and tail included, equal the trace's own switches; no row past its
    last event (the Perfetto trace: above)."""
    for dat, topo in DATS:
        sw, tr = switch_truth.trace_cmd_window(dat)
        cpus, err = csv_rows(dat, "cpu", topo=topo)
        tasks, _ = csv_rows(dat, "task", topo=topo)
        busy, run_ns = collections.Counter(), collections.Counter()
        for r in cpus:
            busy[int(r["cpu"])] += int(r["busy_ns"])
        for r in tasks:
            run_ns[int(r["pid"])] += int(r["run_ns"])
        last = max(int(r["ts_ns"]) for r in cpus)
        window = tr.last - tr.first
        worst = max([abs(busy[c] - tr.busy[c]) for c in tr.busy] +
                    [abs(run_ns[p] - tr.run[p]) for p in tr.run])
        name = os.path.basename(dat)
        check(last == tr.last, "%s: last row %d, last event %d" % (name, last, tr.last))
        check(worst <= window // 1000, "%s: off by %d ns, more than 0.1%% of the "
              "window (%d ns): busy %s, run %s" % (name, worst, window, dict(busy),
                                                   dict(tr.busy)))
        check(len(tr.busy) == 6 and len(tr.run) >= 30, "%s: %d CPUs, %d tasks "
              "compared" % (name, len(tr.busy), len(tr.run)))
        check("charged to the task on it then, as the switch names it" in err,
              "%s: no head note: %r" % (name, err))
        print("# %s: %d CPUs and %d tasks over %.3f s, off by at most %d ns; "
              "%d lost switches out" % (name, len(tr.busy), len(tr.run), window / 1e9,
                                        worst, tr.lost_switches))


@test
def lost_events_are_dropped_and_said():
    """Bundles with lost_events set (Perfetto sets it where the kernel's
    buffer overran): each counts one in its CPU's dropped, as many as
    protoc finds set; one note names the CPUs; report's header agrees."""
    with open(pixel(), "rb") as f:
        data = f.read()
    p = damaged("lost.perfetto-trace", with_lost_events(data, (2, 5), 3))
    ev = perfetto_truth.decode(p)
    get, num = perfetto_truth._get, perfetto_truth._int
    want = collections.Counter()
    for packet in get(ev["tree"], "packet"):
        for b in get(packet, "ftrace_events"):
            if get(b, "lost_events") == ["true"]:
                want[num(b, "cpu", 0)] += 1
    check(want == {2: 3, 5: 3}, "protoc finds lost_events set on %s" % dict(want))
    rows, err = csv_rows(p, "cpu")
    got = collections.Counter()
    for r in rows:
        got[int(r["cpu"])] += int(r["dropped"] or 0)
    check(+got == want, "dropped per CPU %s, protoc's lost_events %s" % (
        dict(+got), dict(want)))
    notes = [l for l in err.splitlines() if "lost events" in l]
    check(len(notes) == 1 and "the trace lost events on CPUs 2,5 (6 times said "
          "without a count" in notes[0], "the lost note: %r" % err)
    r = schedtop("report", "--topology", TOPO, p)
    out = r.stdout.decode()
    check(r.returncode == 0 and "complete   the file is whole, but 6 events were "
          "lost" in out and "nothing lost" not in out and
          re.search(r"^  dropped    6 events the trace lost", out, re.M),
          "report: exit %d\n%s" % (r.returncode, out[:600]))
    # The whole trace: no note, nothing dropped.
    rows, err = csv_rows(pixel(), "cpu")
    check("lost events" not in err and not any(int(r["dropped"] or 0) for r in rows),
          "the trace as it is: %r" % err)
    print("# dropped per CPU %s, as protoc's lost_events" % dict(+got))


@test
def a_file_cut_in_its_first_packet_is_a_damaged_perfetto_trace():
    """Cut inside its first packet, the file is still told a Perfetto
    trace by what it has of that packet, and the cut is said at offset 0;
    a first packet of one field longer than the 1 MB the probe reads is
    read whole."""
    with open(pixel(), "rb") as f:
        data = f.read()
    first = top_packets(data)[0]
    size = first[1] + len(first[2])
    n = 0
    for cut in (3, 4, size // 2, size - 1):
        check_damage(damaged("cut%d" % cut, data[:cut]), 0, "a packet of %d bytes, "
                     "and only %d left in the file: cut short" % (len(first[2]),
                                                                  cut - first[1]), False)
        n += 1
    # A bundle of CPU 0 with an unknown field of 1.1 MB (skipped) first.
    pad = field(1, field(1, 0) + field(999, b"\0" * (1 << 20) + b"\0" * 100_000))
    big = field(1, pad)
    base = schedtop("csv", "--from", pixel(), "-t", "cpu", "--topology", TOPO).stdout
    r = schedtop("csv", "--from", damaged("big", big + data), "-t", "cpu", "--topology",
                 TOPO)
    check(r.returncode == 0 and r.stdout == base, "a 1.1 MB first packet: exit %d, "
          "%r" % (r.returncode, r.stderr[-300:]))
    cut = 1_100_000
    check_damage(damaged("bigcut", (big + data)[:cut]), 0, "a packet of %d bytes, and "
                 "only %d left in the file: cut short" % (len(pad), cut - 1 - len(
                     varint(len(pad)))), False)
    print("# %d cuts of the first packet (%d bytes) and one of a 1.1 MB one: "
          "damaged at offset 0" % (n, size))


@test
def sched_wakeup_and_wakeup_new_as_full_events():
    """Wakeups as the trace has them: full sched_waking events, the same
    as sched_wakeup (field 17: trace-cmd's and older Perfetto configs'
    event, counted where it lands), and the first waking of every task the
    trace names first there as sched_wakeup_new (114: a fork, not counted
    as a wakeup, as the kernel's nr_wakeups does not). The task table's
    wakeups per pid equal the events protoc decodes, run and busy times
    the switches'. A wakeup at the trace's first instant belongs to the
    state the first interval starts from (a sample holds the events up to
    its instant), so none is counted: 1 of the trace's 6,857."""
    get, num = perfetto_truth._get, perfetto_truth._int
    full = full_variant()
    with open(full, "rb") as f:
        data = f.read()
    ev, tr = truth(full)
    first = {}
    for ts, _, prev, nxt in ev["switch"]:
        for pid in (prev, nxt):
            first[pid] = min(first.get(pid, (ts, 0)), (ts, 0))
    for ts, _, w in events_of(ev, "sched_waking"):
        pid = num(w, "pid")
        first[pid] = min(first.get(pid, (ts, 1)), (ts, 1))
    for ts, _, pid in ev["event"]:
        if pid is not None:
            first[pid] = min(first.get(pid, (ts, 0)), (ts, 0))
    fork = {(ts, pid) for pid, (ts, kind) in first.items() if kind == 1}

    def as_wakeup(cpu, e):
        ts, pid, (f, body) = event_parts(e)
        return [event_bytes(ts, pid, 17, body) if f == 20 else e]

    def as_fork(cpu, e):
        ts, pid, (f, body) = event_parts(e)
        if f == 20:
            woken = next(v for g, w, v, _ in fields(body, 0, len(body)) if g == 2)
            if (ts, woken) in fork:
                return [event_bytes(ts, pid, 114, body)]
        return [e]

    n = 0
    for name, fn, counted in (("sched_waking", None, "sched_waking"),
                              ("sched_wakeup", as_wakeup, "sched_wakeup"),
                              ("sched_wakeup_new", as_fork, "sched_waking")):
        p = full if fn is None else damaged(name, map_events(data, fn))
        vev, vtr = truth(p)
        if fn:
            check_tables(p, name, (vev, vtr))
        want = collections.Counter(num(w, "pid") for ts, _, w in events_of(vev, counted)
                                   if ts > vtr.first)
        at_first = sum(1 for ts, _, _ in events_of(vev, counted) if ts == vtr.first)
        got = task_sums(p, "wakeups")
        bad = differ(got, want)
        check(not bad and sum(want.values()) > 5000 and at_first <= 1,
              "%s: wakeups per pid (schedtop, the events), %d of %d differ: %s" % (
                  name, len(bad), len(want), dict(list(bad.items())[:8])))
        forks = sum(1 for _ in events_of(vev, "sched_wakeup_new"))
        check(forks == (len(fork) if fn is as_fork else 0), "%s: %d sched_wakeup_new" % (
            name, forks))
        n += len(want)
        print("# %s: %d wakeups of %d tasks equal the events (%d at the first instant)%s"
              % (name, sum(want.values()), len(want), at_first,
                 ", %d sched_wakeup_new" % forks if forks else ""))
    check(len(fork) > 50, "only %d tasks first named by a waking" % len(fork))


@test
def sched_migrate_task_as_full_events():
    """sched_migrate_task events (full, field 491) where the switches show a
    task moved (before its switch in on another CPU): the migration
    table's moves between clusters and each task's migrations equal the
    events protoc decodes; run and busy times stay the switches'."""
    num = perfetto_truth._int
    full = full_variant()
    with open(full, "rb") as f:
        data = f.read()
    ev, tr = truth(full)
    last, need = {p: c for c, p in tr.head.items() if p}, {}
    for ts, cpu, prev, nxt in sorted(ev["switch"], key=lambda s: s[0]):
        if nxt and last.get(nxt, cpu) != cpu:
            need[(ts, cpu, nxt)] = last[nxt]
        if nxt:
            last[nxt] = cpu

    def with_moves(cpu, e):
        ts, pid, (f, body) = event_parts(e)
        if f != 4:
            return [e]
        sw = {g: v for g, w, v, _ in fields(body, 0, len(body)) if w == 0}
        orig = need.get((ts, cpu, sw.get(6)))
        if orig is None:
            return [e]
        mg = field(1, b"moved") + field(2, sw[6]) + field(3, sw.get(7, 120)) + \
            field(4, orig) + field(5, cpu)
        return [event_bytes(ts, sw.get(2, 0), 491, mg), e]

    p = damaged("migrate", map_events(data, with_moves))
    mev, mtr = truth(p)
    moves = list(events_of(mev, "sched_migrate_task"))
    check(len(moves) == len(need) > 500, "%d moves inserted, %d wanted" % (
        len(moves), len(need)))
    check_tables(p, "sched_migrate_task", (mev, mtr))
    want = collections.Counter((cluster(num(m, "orig_cpu")), cluster(num(m, "dest_cpu")))
                               for _, _, m in moves)
    rows, _ = csv_rows(p, "migration")
    got = collections.Counter()
    for r in rows:
        got[(r["from_cluster"], r["to_cluster"])] += int(r["count"])
    check(+got == +collections.Counter({k: v for k, v in want.items() if k[0] != k[1]}),
          "moves between clusters %s, the events' %s" % (dict(+got), dict(want)))
    per_task = collections.Counter(num(m, "pid") for ts, _, m in moves if ts > mtr.first)
    bad = differ(task_sums(p, "migrations"), per_task)
    check(not bad, "migrations per pid (schedtop, the events), %d of %d differ: %s" % (
        len(bad), len(per_task), dict(list(bad.items())[:8])))
    print("# %d sched_migrate_task events of %d tasks: moves and migrations per task "
          "equal" % (len(moves), len(per_task)))


@test
def process_stats_gives_the_threads_processes():
    """The threads' processes from process_stats (linux.process_stats:
    ProcessStats' processes and their threads) where the trace has no
    process_tree: the task table's tgid of every thread it names is the
    process protoc decodes it under."""
    get, num = perfetto_truth._get, perfetto_truth._int
    with open(pixel(), "rb") as f:
        data = f.read()
    ev, _ = truth(pixel())
    procs = collections.defaultdict(list)
    for tid, tgid in ev["tgid"].items():
        procs[tgid].append(tid)
    stats = b"".join(field(1, field(1, pid) + b"".join(field(11, field(1, t))
                                                      for t in sorted(tids) if t != pid))
                     for pid, tids in sorted(procs.items()))
    out = bytearray()
    for _, _, pkt in top_packets(data):
        out += field(1, b"".join(field(9, stats) if f == 2 else raw
                                 for f, w, v, raw in packet_fields(pkt)))
    p = damaged("process-stats", bytes(out))
    sev, _ = truth(p)
    check(not sev["tgid"], "the variant still has a process_tree")
    want = {}
    for packet in get(sev["tree"], "packet"):
        for ps in get(packet, "process_stats"):
            for pr in get(ps, "processes"):
                pid = num(pr, "pid")
                want[pid] = pid
                for th in get(pr, "threads"):
                    want[num(th, "tid")] = pid
    rows, _ = csv_rows(p, "task")
    tgid = {int(r["pid"]): int(r["tgid"]) for r in rows}
    named = {t: g for t, g in want.items() if t in tgid}
    bad = {t: (tgid[t], g) for t, g in named.items() if tgid[t] != g}
    check(not bad and len(named) > 100 and sum(1 for t, g in named.items() if t != g) > 50,
          "tgids (schedtop, process_stats): %d of %d differ: %s" % (
              len(bad), len(named), dict(list(bad.items())[:8])))
    print("# %d threads' processes as process_stats names them (%d not their own)" % (
        len(named), sum(1 for t, g in named.items() if t != g)))


@test
def idle_residency_equals_the_cpu_idle_intervals():
    """Idle-state residency per CPU: each cpu_idle event of a state to the
    next cpu_idle of its cpu_id (the exit, state 4294967295, or another
    state), the last to the trace's end, as protoc decodes the events."""
    num = perfetto_truth._int
    ev, tr = truth(pixel())
    idle = collections.defaultdict(list)
    for ts, _, ci in events_of(ev, "cpu_idle"):
        idle[num(ci, "cpu_id", 0)].append((ts, num(ci, "state", 0)))
    want = collections.defaultdict(collections.Counter)
    for cpu, evs in idle.items():
        evs.sort()
        for (t, st), (t2, _) in zip(evs, evs[1:] + [(tr.last, 0)]):
            if st != 4294967295:
                want[cpu][st] += t2 - t
    rows, _ = csv_rows(pixel(), "cpu")
    got = collections.defaultdict(collections.Counter)
    for r in rows:
        for st in range(4):
            if r["idle%d_ns" % st]:
                got[int(r["cpu"])][st] += int(r["idle%d_ns" % st])
    for cpu in range(8):
        check(+got[cpu] == +want[cpu], "CPU %d idle ns per state (schedtop, the events): "
              "%s, %s" % (cpu, dict(got[cpu]), dict(want[cpu])))
    n = sum(len(+want[c]) for c in want)
    check(len(want) == 8 and n >= 16, "only %d CPUs, %d states compared" % (len(want), n))
    print("# %d cpu_idle events: %d CPU states' residency equal to the ns" % (
        sum(len(v) for v in idle.values()), n))


def damaged(name, data):
    p = path(name)
    with open(p, "wb") as f:
        f.write(data)
    return p


def check_damage(p, offset, what, rows_wanted):
    """One line naming @p, the offset and @what; exit 1; the rows up to there."""
    r = schedtop("csv", "--from", p, "-t", "cpu", "--topology", TOPO)
    err = [l for l in r.stderr.decode().splitlines() if "note:" not in l]
    check(r.returncode == 1 and len(err) == 1 and
          err[0].startswith("schedtop: %s: damaged at offset %d: " % (p, offset)) and
          what in err[0], "%s: exit %d, %r (want offset %d, %r)" % (
              os.path.basename(p), r.returncode, r.stderr.decode(), offset, what))
    rows = parse_csv(r.stdout)
    check(bool(rows) == rows_wanted, "%s: %d rows" % (os.path.basename(p), len(rows)))
    return rows


@test
def damage_is_said_where_and_the_rest_read():
    with open(pixel(), "rb") as f:
        data = f.read()
    packets = top_packets(data)
    ev, tr = truth(pixel())
    # Cut short in the middle of a packet: read up to the packet before.
    start, body, pkt = packets[len(packets) // 2]
    rows = check_damage(damaged("cut", data[:body + len(pkt) // 2]), start,
                        "only %d left in the file: cut short" % (len(pkt) // 2), True)
    last = max(int(r["ts_ns"]) for r in rows)
    check(tr.first < last < tr.last, "a cut trace's rows end at %d" % last)
    # Before the cut, the whole trace's busy times: up to the last drain
    # of each CPU's bundles (Perfetto writes them in turn, so a cut leaves
    # some CPUs' last ~100 ms out; 300 ms kept clear of it).
    whole = {(r["ts_ns"], r["cpu"]): r["busy_ns"] for r in csv_rows(pixel(), "cpu")[0]}
    before = [r for r in rows if int(r["ts_ns"]) <= last - 300_000_000]
    check(len(before) > 8 * 10 and all(whole[(r["ts_ns"], r["cpu"])] == r["busy_ns"]
                                        for r in before),
          "the cut trace's %d rows before its end differ from the whole's" % len(before))
    # A varint that runs past the end of its packet.
    bad = field(1, field(8, 5) + b"\x40\xff\xff")
    check_damage(damaged("varint", data + bad), len(data) + 2 + 2,
                 "a varint runs past the end of its message", True)
    # A length past the end of its parent: a bundle longer than its packet.
    bad = field(1, b"\x0a\x64" + b"\x08\x01")
    check_damage(damaged("length", data + bad), len(data) + 2,
                 "a length runs past the end of its parent", True)
    # Compressed packets inside compressed packets: deeper than the schema.
    inner = field(1, field(50, zlib.compress(field(1, field(8, 1)))))
    outer = field(50, zlib.compress(inner))
    check_damage(damaged("nested", data + field(1, outer)), len(data) + 2 + 3,
                 "compressed packets inside compressed packets", True)
    # A deflate bomb: 1 GB of zeros in a few hundred KB.
    z = zlib.compressobj(9)
    bomb = z.compress(b"\0" * (1 << 20)) if False else b""
    chunk = b"\0" * (1 << 20)
    for _ in range(1024):
        bomb += z.compress(chunk)
    bomb += z.flush()
    check(len(bomb) < 2 << 20, "the bomb is %d bytes" % len(bomb))
    p = damaged("bomb", field(1, field(50, bomb)) + data)
    check_damage(p, 2 + len(varint(len(field(50, bomb)))) + 1 + len(varint(len(bomb))),
                 "inflate past 64 MB", False)
    # Nesting deeper than anything is skipped where no field is read.
    deep = field(8, 1)
    for _ in range(2000):
        deep = field(999, deep)
    r = schedtop("csv", "--from", damaged("deep", field(1, deep) + data), "-t", "cpu",
                 "--topology", TOPO)
    check(r.returncode == 0, "a deep unknown field: %s" % r.stderr)
    # One event 11 days after the others: a million samples and more, refused.
    far = field(1, field(1, field(1, 0) + field(2, field(1, tr.last + 10**15) +
                                                  field(2, 0) + field(13, field(1, 1)))))
    r = schedtop("csv", "--from", damaged("far", data + far), "-t", "cpu")
    check(r.returncode == 1 and b"more than a million sample intervals" in r.stderr,
          "a trace of 11 days at 100 ms: exit %d, %r" % (r.returncode, r.stderr))
    # Not a trace: one line, what schedtop reads.
    r = schedtop("report", damaged("text", b"\n# tracer: nop\n#\n"))
    check(r.returncode == 1 and b"damaged" not in r.stderr, "a short text: %r" % r.stderr)
    r = schedtop("report", damaged("junk", b"\x0a\x05hello world\n"))
    check(r.returncode == 1 and b"neither a schedtop recording nor a trace" in r.stderr,
          "junk: %r" % r.stderr)


if __name__ == "__main__":
    try:
        run()
    finally:
        shutil.rmtree(_tmp, ignore_errors=True)
