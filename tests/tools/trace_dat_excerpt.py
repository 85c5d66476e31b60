#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cut a small excerpt of a trace-cmd file (file format version 6) for a test
fixture: keep only the event systems named, drop kallsyms (the largest part,
and nothing schedtop reads), and keep per CPU only the ring-buffer pages that
hold events of the time window given. Pages are copied byte for byte, so the
events in them are the ones the kernel wrote.

  trace_dat_excerpt.py IN OUT --systems sched,power --from TS --to TS
  trace_dat_excerpt.py IN --pages        # list each CPU's pages (start ts)
  trace_dat_excerpt.py IN OUT --uname "Linux host 4.14.0 #1 SMP aarch64"

--uname sets the file's UNAME option (as trace-cmd record stores uname(2):
sysname nodename release version machine), for a test of what a reader does
with the kernel release a file names.
"""
import argparse
import struct
import sys

# trace-cmd's enum tracecmd_file_options
OPTION_UNAME = 5


class Reader:
    def __init__(self, data):
        self.d = data
        self.p = 0

    def take(self, n):
        b = self.d[self.p:self.p + n]
        if len(b) != n:
            raise ValueError("truncated at %d" % self.p)
        self.p += n
        return b

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def cstr(self):
        end = self.d.index(b"\0", self.p)
        s = self.d[self.p:end]
        self.p = end + 1
        return s


def parse(data):
    r = Reader(data)
    f = {}
    if r.take(10) != b"\x17\x08\x44tracing":
        raise ValueError("not a trace-cmd file")
    f["version"] = r.cstr()
    if f["version"] != b"6":
        raise ValueError("only file version 6 (trace-cmd convert --file-version 6)")
    f["endian"], f["long"] = r.take(1), r.take(1)
    if f["endian"] != b"\0":
        raise ValueError("only little-endian files")
    f["page_size"] = r.u32()
    for name in (b"header_page", b"header_event"):
        if r.cstr() != name:
            raise ValueError("no %s" % name.decode())
        f[name] = r.take(r.u64())
    f["ftrace"] = [r.take(r.u64()) for _ in range(r.u32())]
    systems = []
    for _ in range(r.u32()):
        name = r.cstr()
        systems.append((name, [r.take(r.u64()) for _ in range(r.u32())]))
    f["systems"] = systems
    f["kallsyms"] = r.take(r.u32())
    f["printk"] = r.take(r.u32())
    f["cmdlines"] = r.take(r.u64())
    f["cpus"] = r.u32()
    if r.take(10) != b"options  \0":
        raise ValueError("no options section")
    opts = []
    while True:
        oid = r.u16()
        if oid == 0:
            break
        opts.append((oid, r.take(r.u32())))
    f["options"] = opts
    if r.take(10) != b"flyrecord\0":
        raise ValueError("not a flyrecord file")
    f["cpu_data"] = []
    for _ in range(f["cpus"]):
        off, size = r.u64(), r.u64()
        f["cpu_data"].append(data[off:off + size])
    return f


def pages(f, cpu):
    ps = f["page_size"]
    buf = f["cpu_data"][cpu]
    return [(struct.unpack_from("<Q", buf, i)[0], buf[i:i + ps])
            for i in range(0, len(buf), ps)]


def write(f, out):
    b = bytearray(b"\x17\x08\x44tracing" + f["version"] + b"\0")
    b += f["endian"] + f["long"] + struct.pack("<I", f["page_size"])
    for name in (b"header_page", b"header_event"):
        b += name + b"\0" + struct.pack("<Q", len(f[name])) + f[name]
    b += struct.pack("<I", len(f["ftrace"]))
    for ev in f["ftrace"]:
        b += struct.pack("<Q", len(ev)) + ev
    b += struct.pack("<I", len(f["systems"]))
    for name, evs in f["systems"]:
        b += name + b"\0" + struct.pack("<I", len(evs))
        for ev in evs:
            b += struct.pack("<Q", len(ev)) + ev
    b += struct.pack("<I", len(f["kallsyms"])) + f["kallsyms"]
    b += struct.pack("<I", len(f["printk"])) + f["printk"]
    b += struct.pack("<Q", len(f["cmdlines"])) + f["cmdlines"]
    b += struct.pack("<I", f["cpus"]) + b"options  \0"
    for oid, val in f["options"]:
        b += struct.pack("<HI", oid, len(val)) + val
    b += struct.pack("<H", 0) + b"flyrecord\0"
    ps = f["page_size"]
    table = len(b)
    b += bytes(16 * f["cpus"])
    offsets = []
    for data in f["cpu_data"]:
        b += bytes(-len(b) % ps)
        offsets.append((len(b), len(data)))
        b += data
    for i, (off, size) in enumerate(offsets):
        struct.pack_into("<QQ", b, table + 16 * i, off, size)
    with open(out, "wb") as fh:
        fh.write(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("output", nargs="?")
    ap.add_argument("--systems", default="sched,power")
    ap.add_argument("--from", dest="start", type=float, default=0)
    ap.add_argument("--to", dest="end", type=float, default=float("inf"))
    ap.add_argument("--pages", action="store_true")
    ap.add_argument("--uname")
    ap.add_argument("--drop-formats", default="",
                    help="event names whose formats to leave out (comma-separated)")
    a = ap.parse_args()
    try:
        with open(a.input, "rb") as fh:
            f = parse(fh.read())
    except (OSError, ValueError) as e:
        sys.exit("trace_dat_excerpt: %s: %s" % (a.input, e))
    if a.pages:
        for cpu in range(f["cpus"]):
            print(cpu, " ".join("%.6f" % (ts / 1e9) for ts, _ in pages(f, cpu)))
        return
    if not a.output:
        sys.exit("trace_dat_excerpt: give an output file")
    keep = set(s.encode() for s in a.systems.split(","))
    f["systems"] = [(n, e) for n, e in f["systems"] if n in keep]
    drop = set(b"name: " + x.encode() + b"\n" for x in a.drop_formats.split(",") if x)
    f["systems"] = [(n, [e for e in evs if not any(e.startswith(d) for d in drop)])
                    for n, evs in f["systems"]]
    f["kallsyms"] = b""
    if a.uname is not None:
        f["options"] = [(o, v) for o, v in f["options"] if o != OPTION_UNAME]
        f["options"].append((OPTION_UNAME, a.uname.encode() + b"\0"))
    lo, hi = a.start * 1e9, a.end * 1e9
    for cpu in range(f["cpus"]):
        ps = pages(f, cpu)
        # A page holds events from its own start to the next page's start.
        kept = [p for i, (ts, p) in enumerate(ps)
                if ts <= hi and (i + 1 == len(ps) or ps[i + 1][0] >= lo)]
        f["cpu_data"][cpu] = b"".join(kept)
    write(f, a.output)


if __name__ == "__main__":
    main()
