#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a small trace-cmd file (format version 6, little-endian, 64-bit,
4 KiB pages) holding given events, for tests of events this machine's kernel
does not have: the formats are given as the kernel's tracefs `format` text,
the events as field values, and each record is laid out at the offsets the
format says, in ring-buffer pages as the kernel writes them.

  trace_dat_write.py SPEC.json OUT.dat

SPEC: {"formats": [[SYSTEM, FORMAT_TEXT], ...],
       "events": [[CPU, TS_NS, EVENT_NAME, {FIELD: VALUE, ...}], ...]}
(common_pid among the fields: the task current on that CPU.)
Events of one CPU must be in time order (gaps of 2^27 ns and more get a
time extend).
"""
import json
import re
import struct
import sys

PAGE = 4096
HEADER_PAGE = (b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
               b"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
               b"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
               b"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n")
HEADER_EVENT = (b"# compressed entry header\n\ttype_len    :    5 bits\n"
                b"\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
                b"\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                b"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")
FIELD = re.compile(r"field:(.*?)\s+(\w+)(\[\d+\])?;\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d)")


# The fields every event's format begins with (include/trace/trace_events.h).
COMMON = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")


def format_text(name, eid, fields, printk):
    """An event's tracefs format file as the kernel writes it: the common
    fields, then @fields as (declaration, offset, size, signed)."""
    lines = "".join("\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n" % f
                    for f in fields)
    return "name: %s\nID: %d\nformat:\n%s%s\nprint fmt: %s\n" % (
        name, eid, COMMON, lines, printk)


def parse_format(text):
    name = re.search(r"^name: (\S+)", text, re.M).group(1)
    eid = int(re.search(r"^ID: (\d+)", text, re.M).group(1))
    fields = {}
    for m in FIELD.finditer(text):
        fields[m.group(2)] = (int(m.group(4)), int(m.group(5)),
                              m.group(3) is not None, m.group(6) == "1")
    size = max(o + s for o, s, _, _ in fields.values())
    return name, eid, fields, size


def record(fmt, values):
    _, eid, fields, size = fmt
    b = bytearray(size)
    values = dict(values, common_type=eid)
    for name, v in values.items():
        off, sz, array, signed = fields[name]
        if array:
            raw = v.encode()[:sz - 1]
            b[off:off + len(raw)] = raw
        else:
            b[off:off + sz] = int(v).to_bytes(sz, "little", signed=signed)
    return bytes(b)


def event(data, delta):
    """The ring buffer's event header and payload, padded to words; a delta
    of 2^27 ns or more goes first in a time extend (type_len 30: its low 27
    bits in the header, the rest in the next word), as the kernel writes it."""
    data += bytes(-len(data) % 4)
    head = b""
    if delta >= 1 << 27:
        head = struct.pack("<II", 30 | (delta & ((1 << 27) - 1)) << 5, delta >> 27)
        delta = 0
    if len(data) <= 28 * 4:
        return head + struct.pack("<I", (len(data) // 4) | (delta << 5)) + data
    return head + struct.pack("<II", delta << 5, len(data) + 4) + data


def pages(events):
    out, page, base, last = [], bytearray(), None, None
    for ts, data in events:
        if base is None:
            base = last = ts
        ev = event(data, ts - last)
        if 16 + len(page) + len(ev) > PAGE:
            out.append(struct.pack("<QQ", base, len(page)) + page +
                       bytes(PAGE - 16 - len(page)))
            page, base = bytearray(), ts
            ev = event(data, 0)
        page += ev
        last = ts
    if page or not out:
        out.append(struct.pack("<QQ", base or 0, len(page)) + page +
                   bytes(PAGE - 16 - len(page)))
    return b"".join(out)


def main():
    spec = json.load(open(sys.argv[1]))
    fmts, systems = {}, {}
    for system, text in spec["formats"]:
        f = parse_format(text)
        fmts[f[0]] = f
        systems.setdefault(system.encode(), []).append(text.encode())
    cpus = 1 + max(e[0] for e in spec["events"])
    per_cpu = [[] for _ in range(cpus)]
    for cpu, ts, name, values in spec["events"]:
        per_cpu[cpu].append((ts, record(fmts[name], values)))
    b = bytearray(b"\x17\x08\x44tracing6\0\0\x08" + struct.pack("<I", PAGE))
    for name, text in ((b"header_page", HEADER_PAGE), (b"header_event", HEADER_EVENT)):
        b += name + b"\0" + struct.pack("<Q", len(text)) + text
    b += struct.pack("<I", 0)				# ftrace formats
    b += struct.pack("<I", len(systems))
    for name, texts in systems.items():
        b += name + b"\0" + struct.pack("<I", len(texts))
        for t in texts:
            b += struct.pack("<Q", len(t)) + t
    b += struct.pack("<I", 0) + struct.pack("<I", 0)	# kallsyms, printk
    b += struct.pack("<Q", 0)				# cmdlines
    b += struct.pack("<I", cpus) + b"options  \0" + struct.pack("<H", 0)
    b += b"flyrecord\0"
    table = len(b)
    b += bytes(16 * cpus)
    for cpu, evs in enumerate(per_cpu):
        b += bytes(-len(b) % PAGE)
        data = pages(evs)
        struct.pack_into("<QQ", b, table + 16 * cpu, len(b), len(data))
        b += data
    with open(sys.argv[2], "wb") as f:
        f.write(b)


if __name__ == "__main__":
    main()
