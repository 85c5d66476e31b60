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
"""
import os
import struct

TRACEFS = "/sys/kernel/tracing"


class TracefsRecording:
    def __init__(self, events, clock="mono", buffer_kb=8192, root=TRACEFS):
        self.root, self.events = root, events
        self.inst = os.path.join(root, "instances", "schedtop-rec-%d" % os.getpid())
        self.clock, self.buffer_kb = clock, buffer_kb
        self.pages, self.lost = {}, 0

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
            for ev in self.events:
                self._put(os.path.join("events", ev, "enable"), "1")
            self._put("tracing_on", "1")
        except BaseException:
            os.rmdir(self.inst)
            raise
        return self

    def __exit__(self, *exc):
        try:
            self._put("tracing_on", "0")
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
        b += struct.pack("<I", 0)                       # ftrace formats
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

