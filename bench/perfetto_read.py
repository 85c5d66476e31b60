#!/usr/bin/env python3
"""Reading Perfetto traces (issue 32 item 5): events per second and memory
of `schedtop csv --from FILE -t cpu -o /dev/null`, against the trace.dat
reader and the ftrace text reader on the same events, in the same run.

Built here, not committed: a ~200 MB Perfetto trace made of the Pixel 6a
trace (tests/fixtures/perfetto) repeated, each copy shifted in time after
the one before (only timestamps change: every FtraceEvent's, the first of
each CompactSched array, each packet's), and a trace.dat of the same
sched_switch, sched_waking, cpu_frequency and cpu_idle events repeated the
same way (the kernel's own 6.18 event formats, tests/fixtures/trace-formats;
one copy's ring-buffer pages written with tests/tools/trace_dat_write.py's
layout, then copied with shifted page timestamps). Each file is read with
one copy and with all of them: RSS must not grow with the file, and the
whole file must go at 2 M events/s or more.

  bench/perfetto_read.py [--copies N] [--rounds R] [--keep DIR]

Prints a Markdown section (bench/run puts it into docs/performance.md).
"""
import argparse
import lzma
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("SCHEDTOP_BIN", os.path.join(TOP, "build", "schedtop"))
PIXEL = os.path.join(TOP, "tests", "fixtures", "perfetto",
                     "pixel6a-startup.perfetto-trace.xz")
FORMATS = os.path.join(TOP, "tests", "fixtures", "trace-formats", "linux-6.18")
TOPO = "LITTLE:0-3@160,mid:4-5@498,big:6-7@1024"
sys.path.insert(0, os.path.join(TOP, "tests", "tools"))
import trace_dat_write as tdw  # noqa: E402
from perfetto_bytes import fields, read_varint as varint  # noqa: E402


# ---- the trace's timestamps and sched events ----

def packed(b, rng):
    i, end, out = rng[0], rng[1], []
    while i < end:
        v, i = varint(b, i)
        out.append(v)
    return out


def s32(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def scan(b):
    """The timestamp slots (start of each varint) and the sched and power
    events, per CPU: ("switch", ts, prev, prio, state, comm, next, prio,
    comm), ("waking", ts, waker, pid, prio, cpu, comm), ("freq"|"idle", ts,
    common_pid, state, cpu_id)."""
    slots, events, counts = [], {}, {"ftrace events": 0}
    last = {}
    for f, w, rng, _ in fields(b, 0, len(b)):
        if f != 1:
            continue
        for pf, pw, pv, pat in fields(b, *rng):
            if pf == 8 and pw == 0:
                slots.append(pat)
            if pf != 1 or pw != 2:
                continue
            bundle = list(fields(b, *pv))
            cpu = next((v for bf, bw, v, _ in bundle if bf == 1 and bw == 0), 0)
            evs = events.setdefault(cpu, [])
            for bf, bw, bv, _ in bundle:
                if bf == 2 and bw == 2:
                    counts["ftrace events"] += 1
                    ts = pid = None
                    body = None
                    for ef, ew, ev, eat in fields(b, *bv):
                        if ef == 1 and ew == 0:
                            ts = ev
                            slots.append(eat)
                        elif ef == 2 and ew == 0:
                            pid = ev
                        elif ew == 2 and body is None:
                            body = (ef, ev)
                    if body and body[0] in (11, 13):	# cpu_frequency, cpu_idle
                        vals = {k: v for k, w2, v, _ in fields(b, *body[1]) if w2 == 0}
                        evs.append(("freq" if body[0] == 11 else "idle", ts, pid or 0,
                                    s32(vals.get(1, 0)), vals.get(2, 0)))
                elif bf == 4 and bw == 2:
                    arr, names = {}, []
                    for cf, cw, cv, cat in fields(b, *bv):
                        if cf == 5:
                            names.append(b[cv[0]:cv[1]].decode(errors="replace"))
                        elif cw == 2:
                            arr[cf] = packed(b, cv)
                            if cf in (1, 7) and cv[1] > cv[0]:
                                slots.append(cv[0])
                    acc = 0
                    for d, st, nxt, prio, ci in zip(*(arr.get(k, []) for k in (1, 2, 3, 4, 6))):
                        acc += d
                        prev = last.get(cpu, (0, 120, "swapper/%d" % cpu))
                        nxt, prio = s32(nxt), s32(prio)
                        evs.append(("switch", acc, prev[0], prev[1], st, prev[2],
                                    nxt, prio, names[ci]))
                        last[cpu] = (nxt, prio, names[ci])
                        counts["ftrace events"] += 1
                    acc = 0
                    for d, pid, tcpu, prio, ci in zip(*(arr.get(k, []) for k in (7, 8, 9, 10, 11))):
                        acc += d
                        evs.append(("waking", acc, last.get(cpu, (0,))[0], s32(pid),
                                    s32(prio), s32(tcpu), names[ci]))
                        counts["ftrace events"] += 1
    for evs in events.values():
        evs.sort(key=lambda e: e[1])
    return slots, events, counts


def perfetto_copies(data, slots, period, copies, path):
    """@copies of @data, copy k with every timestamp + k * @period."""
    with open(path, "wb") as out:
        for k in range(copies):
            b = bytearray(data)
            for at in slots:
                v, end = varint(b, at)
                v += k * period
                enc = bytearray()
                while True:
                    c, v = v & 0x7f, v >> 7
                    enc.append(c | 0x80 if v else c)
                    if not v:
                        break
                if len(enc) != end - at:
                    raise ValueError("a shifted timestamp changed its length")
                b[at:end] = enc
            out.write(b)


def dat_copies(events, period, copies, path):
    """A trace.dat of @events (scan()'s), @copies times, shifted by @period."""
    fmts, texts = {}, []
    for name in ("sched_switch", "sched_waking", "cpu_frequency", "cpu_idle"):
        with open(os.path.join(FORMATS, name + ".format")) as f:
            text = f.read()
        fmts[name] = tdw.parse_format(text)
        texts.append(("sched" if name.startswith("sched") else "power", text.encode()))
    cpus = 1 + max(events)
    one = []
    for cpu in range(cpus):
        recs = []
        for e in events.get(cpu, []):
            if e[0] == "switch":
                _, ts, pp, ppr, st, pc, np_, npr, nc = e
                recs.append((ts, tdw.record(fmts["sched_switch"], {
                    "common_pid": pp, "prev_comm": pc, "prev_pid": pp, "prev_prio": ppr,
                    "prev_state": st, "next_comm": nc, "next_pid": np_, "next_prio": npr})))
            elif e[0] == "waking":
                _, ts, waker, pid, prio, tcpu, comm = e
                recs.append((ts, tdw.record(fmts["sched_waking"], {
                    "common_pid": waker, "comm": comm, "pid": pid, "prio": prio,
                    "target_cpu": tcpu})))
            else:
                kind, ts, cpid, state, cpu_id = e
                recs.append((ts, tdw.record(fmts["cpu_frequency" if kind == "freq" else
                                                 "cpu_idle"], {
                    "common_pid": cpid, "state": state & 0xffffffff, "cpu_id": cpu_id})))
        one.append(tdw.pages(recs))
    systems = {}
    for system, text in texts:
        systems.setdefault(system.encode(), []).append(text)
    b = bytearray(b"\x17\x08\x44tracing6\0\0\x08" + struct.pack("<I", tdw.PAGE))
    for name, text in ((b"header_page", tdw.HEADER_PAGE), (b"header_event", tdw.HEADER_EVENT)):
        b += name + b"\0" + struct.pack("<Q", len(text)) + text
    b += struct.pack("<I", 0) + struct.pack("<I", len(systems))
    for name, ts in systems.items():
        b += name + b"\0" + struct.pack("<I", len(ts))
        for t in ts:
            b += struct.pack("<Q", len(t)) + t
    b += struct.pack("<I", 0) + struct.pack("<I", 0) + struct.pack("<Q", 0)
    b += struct.pack("<I", cpus) + b"options  \0" + struct.pack("<H", 0) + b"flyrecord\0"
    table = len(b)
    b += bytes(16 * cpus)
    with open(path, "wb") as out:
        out.write(bytes(len(b)))		# the header, written again below
        offset = len(b)
        for cpu in range(cpus):
            pad = -offset % tdw.PAGE
            out.write(bytes(pad))
            offset += pad
            start = offset
            for k in range(copies):
                pages = bytearray(one[cpu])
                for p in range(0, len(pages), tdw.PAGE):
                    base = struct.unpack_from("<Q", pages, p)[0]
                    struct.pack_into("<Q", pages, p, base + k * period)
                out.write(pages)
                offset += len(pages)
            struct.pack_into("<QQ", b, table + 16 * cpu, start, offset - start)
        out.seek(0)
        out.write(b)


STATE_LETTERS = "SDTtXZPI"


def state_text(st):
    """prev_state as 6.x prints it: R, R+ (preempted) or its letter."""
    if st & 0x100 or not st & 0xff:
        return "R+" if st & 0x100 else "R"
    return "|".join(c for i, c in enumerate(STATE_LETTERS) if st >> i & 1)


def text_copies(events, period, copies, path):
    """The kernel's trace text (6.18's lines: the irq-info flags, times to
    the µs) of @events (scan()'s), @copies times, shifted by @period: the
    buffers merged in time order, as the kernel prints them."""
    import heapq
    merged = list(heapq.merge(*[[(e[1], cpu, e) for e in evs]
                                for cpu, evs in sorted(events.items())],
                              key=lambda x: (x[0], x[1])))
    comm = {0: "<idle>"}
    with open(path, "w") as out:
        out.write("# tracer: nop\n#\n# entries-in-buffer/entries-written: %d/%d   "
                  "#P:%d\n#\n" % (len(merged) * copies, len(merged) * copies,
                                    1 + max(events)))
        for k in range(copies):
            lines = []
            for ts, cpu, e in merged:
                ts += k * period
                us = (ts + 500) // 1000
                if e[0] == "switch":
                    _, _, pp, ppr, st, pc, np_, npr, nc = e
                    if np_:
                        comm[np_] = nc
                    lines.append("%16s-%-7d [%03d] d..2. %5d.%06d: sched_switch: "
                                 "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s "
                                 "==> next_comm=%s next_pid=%d next_prio=%d\n" % (
                                     comm.get(pp, pc), pp, cpu, us // 10**6, us % 10**6, pc, pp, ppr,
                                     state_text(st), nc, np_, npr))
                elif e[0] == "waking":
                    _, _, waker, pid, prio, tcpu, c = e
                    lines.append("%16s-%-7d [%03d] d..4. %5d.%06d: sched_waking: "
                                 "comm=%s pid=%d prio=%d target_cpu=%03d\n" % (
                                     comm.get(waker, "<...>"), waker, cpu, us // 10**6,
                                     us % 10**6, c, pid, prio, tcpu))
                else:
                    kind, _, cpid, state, cpu_id = e
                    lines.append("%16s-%-7d [%03d] d..1. %5d.%06d: %s: state=%d "
                                 "cpu_id=%d\n" % (
                                     comm.get(cpid, "<idle>"), cpid, cpu, us // 10**6,
                                     us % 10**6, "cpu_frequency" if kind == "freq" else
                                     "cpu_idle", state & 0xffffffff, cpu_id))
            out.writelines(lines)


def measure(cmd):
    """Wall seconds, CPU seconds and peak RSS (KiB) of @cmd, run alone, as
    GNU time measures them (its own small process forks it: a fork of this
    Python would count Python's pages in the peak)."""
    r = subprocess.run(["/usr/bin/time", "-f", "TIME %e %U %S %M", *cmd],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        raise SystemExit("%s failed: %s" % (" ".join(cmd), r.stderr))
    line = [l for l in r.stderr.splitlines() if l.startswith("TIME ")][-1].split()
    return float(line[1]), float(line[2]) + float(line[3]), int(line[4])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", metavar="DIR")
    args = ap.parse_args()
    with lzma.open(PIXEL) as f:
        data = f.read()
    slots, events, counts = scan(data)
    stamps = [e[1] for evs in events.values() for e in evs]
    period = max(stamps) - min(stamps) + 10_000_000
    applied = sum(len(v) for v in events.values())
    tmp = args.keep or tempfile.mkdtemp(prefix="schedtop-bench-perfetto-")
    os.makedirs(tmp, exist_ok=True)
    files = {}
    try:
        for n in (1, args.copies):
            print("# building %d cop%s" % (n, "y" if n == 1 else "ies"), file=sys.stderr)
            files[("perfetto", n)] = os.path.join(tmp, "pixel-x%d.perfetto-trace" % n)
            perfetto_copies(data, slots, period, n, files[("perfetto", n)])
            files[("trace.dat", n)] = os.path.join(tmp, "pixel-x%d.dat" % n)
            dat_copies(events, period, n, files[("trace.dat", n)])
            files[("ftrace text", n)] = os.path.join(tmp, "pixel-x%d.txt" % n)
            text_copies(events, period, n, files[("ftrace text", n)])
        rows = []
        for (kind, n), path in sorted(files.items()):
            nev = (counts["ftrace events"] if kind == "perfetto" else applied) * n
            for what, cmd in (
                    ("csv --from", [BIN, "csv", "--from", path, "-t", "cpu", "-o",
                                    os.devnull, "--topology", TOPO]),
                    ("csv --trace", [BIN, "csv", "--trace", path, "-t", "cpu", "-i",
                                     "100", "-o", os.devnull, "--topology", TOPO])):
                best = min((measure(cmd) for _ in range(args.rounds)), key=lambda r: r[0])
                rows.append((kind, n, os.path.getsize(path), nev, n * applied, what,
                             best[0], best[1], best[2]))
        print("### Reading Perfetto traces (bench/perfetto_read.py)\n")
        print("The Pixel 6a trace (%d ftrace events, %d of them sched_switch, "
              "sched_waking, cpu_frequency and cpu_idle, the events schedtop "
              "applies) once and %d times over, as Perfetto protobuf, as a "
              "trace.dat of those %d events, and as the kernel's trace text of "
              "them (one line each, as 6.18 prints them); each command alone, "
              "best of %d; RSS is the process's peak.\n" % (
                  counts["ftrace events"], applied, args.copies, applied, args.rounds))
        print("| file | copies | MB | events in it | command | wall s | CPU s | "
              "events/s | applied events/s | peak RSS MiB |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for kind, n, size, nev, napp, what, wall, cpu, rss in rows:
            print("| %s | %d | %.1f | %d | %s | %.2f | %.2f | %.2f M | %.2f M | %.1f |" % (
                kind, n, size / 1e6, nev, what, wall, cpu, nev / wall / 1e6,
                napp / wall / 1e6, rss / 1024))
        print()
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
