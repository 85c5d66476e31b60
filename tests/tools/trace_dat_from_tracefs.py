#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Record a trace-cmd file (format version 6) from this kernel without
trace-cmd, whose recorder cannot run here (writing ftrace_enabled is
refused): a private tracefs instance, the ring-buffer pages as the kernel
wrote them (per_cpu/cpuN/trace_pipe_raw), and the kernel's own header and
event format files, laid out as trace-cmd's Documentation
trace-cmd.dat.v6.5.txt says.

  with TracefsRecording(["sched/sched_switch", ...], clock="mono") as rec:
      ...                     # the workload
  rec.write("out.dat")        # after the with block: tracing stopped
  rec.lost                    # events the ring buffer overwrote or dropped
  rec.unread                  # events the kernel held that the pages lack
  rec.silent                  # (cpu, from_ns, to_ns): stretches unrecorded

The same capture as text: captures=[(name, {option: value}, file), ...]
reads each instance file (its "trace", "saved_tgids") with those options/
set, in that order, after tracing stops and before the pages are drained:
rec.captured[name]. options=[...] are set to 1 while recording (e.g.
"record-tgid"). markers=True stores ftrace's print format, so that lines
written with rec.marker(text) (devlib's "cpu_frequency: state=KHZ
cpu_id=N") read back from the trace.dat too.

rec.silent: on this machine the kernel records no event in task context
while some of the sandbox's own threads (PID 1's tokio-rt-worker) are
current, the switch away from them included, with overrun and dropped at
0 and no lost-events mark on the page. A CPU's sched_switch events then stop
chaining (a switch's prev is not the one before's next): from that last
switch to the one that breaks the chain, which tasks ran is unknown.
"""
import os
import re
import struct

TRACEFS = "/sys/kernel/tracing"


class TracefsRecording:
    def __init__(self, events, clock="mono", buffer_kb=8192, root=TRACEFS,
                 options=(), captures=(), markers=False):
        self.root, self.events = root, events
        self.inst = os.path.join(root, "instances", "schedtop-rec-%d" % os.getpid())
        self.clock, self.buffer_kb = clock, buffer_kb
        self.options, self.captures, self.markers = options, captures, markers
        self.pages, self.lost, self.unread, self.silent = {}, 0, 0, []
        self.captured = {}

    def _put(self, rel, text):
        with open(os.path.join(self.inst, rel), "w") as f:
            f.write(text)

    def __enter__(self):
        # A recorder killed mid-run (SIGKILL skips __exit__) leaves its
        # instance tracing; the next one removes those of dead pids.
        inst = os.path.join(self.root, "instances")
        for name in os.listdir(inst):
            pid = name[len("schedtop-rec-"):]
            if name.startswith("schedtop-rec-") and pid.isdigit() and \
                    not os.path.exists("/proc/%s" % pid):
                try:
                    os.rmdir(os.path.join(inst, name))
                except OSError:
                    pass
        os.mkdir(self.inst)
        try:
            self._put("tracing_on", "0")
            self._put("trace_clock", self.clock)
            self._put("buffer_size_kb", str(self.buffer_kb))
            for opt in self.options:
                self._put(os.path.join("options", opt), "1")
            for ev in self.events:
                self._put(os.path.join("events", ev, "enable"), "1")
            self._put("tracing_on", "1")
        except BaseException:
            os.rmdir(self.inst)
            raise
        return self

    def marker(self, text):
        """A trace_marker line of this instance (ftrace's print event)."""
        self._put("trace_marker", text)

    def __exit__(self, *exc):
        try:
            self._put("tracing_on", "0")
            for name, opts, rel in self.captures:
                for opt, value in opts.items():
                    self._put(os.path.join("options", opt), value)
                with open(os.path.join(self.inst, rel), "rb") as f:
                    self.captured[name] = f.read()
            self._drain()
            for ev in self.events:
                self._put(os.path.join("events", ev, "enable"), "0")
        finally:
            os.rmdir(self.inst)
        return False

    def _drain(self):
        per_cpu = os.path.join(self.inst, "per_cpu")
        for name in sorted(os.listdir(per_cpu), key=lambda n: int(n[3:])):
            cpu = int(name[3:])
            with open(os.path.join(per_cpu, name, "stats")) as f:
                stats = dict(l.split(":", 1) for l in f if ":" in l)
            self.lost += int(stats["overrun"]) + int(stats.get("dropped events", 0))
            held = int(stats["entries"])
            data = bytearray()
            fd = os.open(os.path.join(per_cpu, name, "trace_pipe_raw"),
                         os.O_RDONLY | os.O_NONBLOCK)
            try:
                while True:
                    try:
                        page = os.read(fd, os.sysconf("SC_PAGE_SIZE"))
                    except BlockingIOError:
                        break
                    if not page:
                        break
                    data += page
            finally:
                os.close(fd)
            self.pages[cpu] = bytes(data)
            # What the kernel said it held against what was read: a page
            # the drain missed or cut short would show here.
            self.unread += held - sum(1 for _ in self._events(cpu))
        self.silent = self._silent()

    def _events(self, cpu):
        """(ns, payload) of each event in @cpu's pages, as the header_event
        format says entries are laid out (type_len 29 padding, 30 time
        extend, 31 absolute stamp, 0 a length word, else 4 x type_len)."""
        data, page = self.pages[cpu], os.sysconf("SC_PAGE_SIZE")
        for p in range(0, len(data), page):
            ts, commit = struct.unpack_from("<QQ", data, p)
            pos, end = p + 16, p + 16 + (commit & ((1 << 27) - 1))
            while pos < end:
                h, arg = struct.unpack_from("<II", data, pos)
                kind, delta = h & 31, h >> 5
                if kind == 29:
                    if not delta:       # the rest of the page is empty
                        break
                    pos += 4 + arg      # a discarded event
                elif kind in (30, 31):
                    ts = (ts if kind == 30 else 0) + delta + (arg << 27)
                    pos += 8
                else:
                    ts += delta
                    at, n = ((pos + 8, arg - 4) if kind == 0 else
                             (pos + 4, 4 * kind))
                    yield ts, data[at:at + n]
                    pos = at + n

    def _silent(self):
        if "sched/sched_switch" not in self.events:
            return []
        fmt = self._read("events/sched/sched_switch/format").decode()
        sid = int(re.search(r"^ID: (\d+)", fmt, re.M).group(1))
        off = {f: int(re.search(r"pid_t %s;\s*offset:(\d+)" % f, fmt).group(1))
               for f in ("prev_pid", "next_pid")}
        out = []
        for cpu in self.pages:
            last = None
            for ts, e in self._events(cpu):
                if struct.unpack_from("<H", e)[0] != sid:
                    continue
                prev, nxt = (struct.unpack_from("<i", e, off[f])[0]
                             for f in ("prev_pid", "next_pid"))
                if last and last[1] != prev:
                    out.append((cpu, last[0], ts))
                last = (ts, nxt)
        return out

    def _read(self, rel):
        with open(os.path.join(self.root, rel), "rb") as f:
            return f.read()

    def write(self, path):
        page = os.sysconf("SC_PAGE_SIZE")
        b = bytearray(b"\x17\x08\x44tracing6\0" + b"\0" + bytes([8]) +
                      struct.pack("<I", page))
        for name in ("header_page", "header_event"):
            text = self._read(os.path.join("events", name))
            b += name.encode() + b"\0" + struct.pack("<Q", len(text)) + text
        if self.markers:                                # ftrace formats
            text = self._read("events/ftrace/print/format")
            b += struct.pack("<I", 1) + struct.pack("<Q", len(text)) + text
        else:
            b += struct.pack("<I", 0)
        systems = {}
        for ev in self.events:
            system, _ = ev.split("/")
            systems.setdefault(system, []).append(
                self._read(os.path.join("events", ev, "format")))
        b += struct.pack("<I", len(systems))
        for system, texts in systems.items():
            b += system.encode() + b"\0" + struct.pack("<I", len(texts))
            for t in texts:
                b += struct.pack("<Q", len(t)) + t
        b += struct.pack("<I", 0) + struct.pack("<I", 0)    # kallsyms, printk
        b += struct.pack("<Q", 0)                           # saved cmdlines
        cpus = 1 + max(self.pages)
        b += struct.pack("<I", cpus) + b"options  \0" + struct.pack("<H", 0)
        b += b"flyrecord\0"
        table = len(b)
        b += bytes(16 * cpus)
        for cpu in range(cpus):
            b += bytes(-len(b) % page)
            data = self.pages.get(cpu, b"")
            struct.pack_into("<QQ", b, table + 16 * cpu, len(b), len(data))
            b += data
        with open(path, "wb") as f:
            f.write(b)


def mounted(root=TRACEFS):
    return os.path.exists(os.path.join(root, "instances"))

