#!/usr/bin/env python3
"""Raw ftrace as a tracer to compare with: what a careful tool does at least.

A private tracefs instance with the given sched events enabled (by default
sched_switch and sched_wakeup) and one reader process per CPU copying that CPU's trace_pipe_raw (binary ring
buffer pages, no formatting) into OUTDIR/cpuN, sleeping 1 ms after a page
that was not full, as trace-cmd record does by default. Runs until SIGINT or SIGTERM,
then disables the events and removes the instance.

Usage: bench/ftrace_raw.py OUTDIR [EVENT...]
"""
import os
import signal
import sys
import time

TRACEFS = "/sys/kernel/tracing"


def reader(inst, cpu, outdir):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    src = os.open("%s/per_cpu/cpu%d/trace_pipe_raw" % (inst, cpu), os.O_RDONLY)
    dst = os.open("%s/cpu%d" % (outdir, cpu),
                  os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    while True:
        page = os.read(src, 65536)
        if page:
            os.write(dst, page)
        # A read returns a page as soon as it holds one event: like
        # trace-cmd (-s, 1 ms by default), sleep unless the page was full.
        # The page header is a u64 time stamp and the committed length.
        if len(page) < 16 or (int.from_bytes(page[8:16], "little") &
                              0xfffff) < len(page) // 2:
            time.sleep(0.001)


def main():
    outdir = sys.argv[1]
    events = sys.argv[2:] or ["sched_switch", "sched_wakeup"]
    inst = "%s/instances/schedtop-bench-%d" % (TRACEFS, os.getpid())
    os.mkdir(inst)
    kids = []
    stop = []
    signal.signal(signal.SIGINT, lambda *a: stop.append(1))
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    try:
        for ev in events:
            with open("%s/events/sched/%s/enable" % (inst, ev), "w") as f:
                f.write("1")
        for cpu in range(os.cpu_count()):
            pid = os.fork()
            if pid == 0:
                try:
                    reader(inst, cpu, outdir)
                finally:
                    os._exit(0)
            kids.append(pid)
        while not stop:
            signal.pause()
    finally:
        for pid in kids:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
        with open("%s/tracing_on" % inst, "w") as f:
            f.write("0")
        for ev in events:
            with open("%s/events/sched/%s/enable" % (inst, ev), "w") as f:
                f.write("0")
        os.rmdir(inst)


if __name__ == "__main__":
    main()
