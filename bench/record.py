#!/usr/bin/env python3
"""What a recording costs: bytes per second at 100 ms with ~500 tasks, and
the recorder's CPU time, each against `schedtop csv -t task` writing the
same samples as CSV in the same run (the baseline).

A helper process holds enough threads to bring the machine to ~500 tasks;
a quarter of them wake every 10-200 ms and spin briefly, so utils, run
times and states change from sample to sample as on a phone. The recorder
and the CSV writer run side by side over the same 30 s. Prints a Markdown
section; root only.
"""
import os
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(TOP, "build", "schedtop")
SECONDS = 30
TARGET_TASKS = 500


def nr_tasks():
    n = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                n += len(os.listdir("/proc/%s/task" % pid))
            except OSError:
                pass
    return n


def workers(n):
    code = ("import random,threading,time\n"
            "def busy(i):\n"
            "    r = random.Random(i)\n"
            "    while True:\n"
            "        time.sleep(r.uniform(0.01, 0.2))\n"
            "        t = time.perf_counter() + r.uniform(0.0001, 0.002)\n"
            "        while time.perf_counter() < t: pass\n"
            "e = threading.Event()\n"
            "for i in range(%d):\n"
            "    f = (lambda i=i: busy(i)) if i %% 4 == 0 else e.wait\n"
            "    threading.Thread(target=f, daemon=True).start()\n"
            "time.sleep(3600)\n" % n)
    return subprocess.Popen([sys.executable, "-c", code])


def cpu_s(usage):
    return usage.ru_utime + usage.ru_stime


def main():
    extra = max(0, TARGET_TASKS - nr_tasks())
    helper = workers(extra)
    tmp = tempfile.mkdtemp(prefix="schedtop-bench-")
    rec, csv = os.path.join(tmp, "b.rec"), os.path.join(tmp, "b.csv")
    try:
        time.sleep(2)
        tasks = nr_tasks()
        procs = {
            "record": subprocess.Popen([BIN, "record", "-q", "-o", rec, "-i", "100",
                                        "-d", str(SECONDS)]),
            "csv": subprocess.Popen([BIN, "csv", "-t", "task", "-o", csv, "-i", "100",
                                     "-d", str(SECONDS)]),
        }
        usage = {}
        for name, p in procs.items():
            _, status, ru = os.wait4(p.pid, 0)
            if status:
                sys.exit("bench: %s failed (%d)" % (name, status))
            usage[name] = ru
    finally:
        helper.kill()
        helper.wait()
    rec_bytes, csv_bytes = os.path.getsize(rec), os.path.getsize(csv)
    report = subprocess.run([BIN, "report", rec], capture_output=True, text=True).stdout
    samples = int(report.split("duration")[1].split()[2])
    rec_rate, csv_rate = rec_bytes / SECONDS, csv_bytes / SECONDS
    print("### Recording (bench/record.py)\n")
    print("%d s at 100 ms with %d tasks on the machine (%d samples recorded), "
          "recorder and `csv -t task` side by side:\n" % (SECONDS, tasks, samples))
    print("| | bytes/s | bytes per task-sample | CPU time | CPU per sample |")
    print("|---|---|---|---|---|")
    for name, size in (("record", rec_bytes), ("csv -t task (baseline)", csv_bytes)):
        ru = usage[name.split()[0]]
        print("| %s | %.1f KB/s | %.1f | %.2f s (%.2f%% of a core) | %.2f ms |" %
              (name, size / SECONDS / 1000, size / samples / tasks, cpu_s(ru),
               100 * cpu_s(ru) / SECONDS, 1000 * cpu_s(ru) / samples))
    print("\nRecording / CSV: %.3f of the bytes, %.2f of the CPU time. "
          "Target: at most 100 KB/s." %
          (rec_rate / csv_rate, cpu_s(usage["record"]) / cpu_s(usage["csv"])))
    for f in (rec, csv):
        os.unlink(f)
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
