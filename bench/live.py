#!/usr/bin/env python3
"""The live view's own cost with ~1,000 tasks: CPU share at the default 1 s
refresh, RSS, time from start to the first full frame; and the cost of one
frame (bench/tui_render) with 1,000 and 10,000 synthetic tasks.

schedtop runs in a real terminal (tmux, 200x50); 1,000 extra threads sleep in
a helper process so the task table has that many rows to sort and draw.
Prints a Markdown section; root only.
"""
import os
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(TOP, "build", "schedtop")
RENDER = os.path.join(TOP, "build", "bench", "tui_render")
SOCK = "schedtop-bench"


def tmux(*args):
    return subprocess.run(["tmux", "-L", SOCK, *args], capture_output=True,
                          text=True).stdout


def sleepers(n):
    """A child process holding n sleeping threads."""
    code = ("import threading,time\n"
            "e=threading.Event()\n"
            "ts=[threading.Thread(target=e.wait,daemon=True) for _ in range(%d)]\n"
            "[t.start() for t in ts]\n"
            "time.sleep(3600)\n" % n)
    return subprocess.Popen([sys.executable, "-c", code])


def task_cpu_ns(pid):
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0])


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def first_frame_ms(binary=BIN, runs=5):
    """Start schedtop in tmux and poll the screen for the task header."""
    times = []
    for _ in range(runs):
        tmux("kill-server")
        t0 = time.monotonic()
        tmux("new-session", "-d", "-s", "ff", "-x", "200", "-y", "50", binary)
        while time.monotonic() - t0 < 10:
            if " PID " in tmux("capture-pane", "-p", "-t", "ff"):
                break
            time.sleep(0.005)
        times.append((time.monotonic() - t0) * 1000)
        tmux("send-keys", "-t", "ff", "q")
        time.sleep(0.5)
    tmux("kill-server")
    return sorted(times)[len(times) // 2], min(times), max(times)


def live_cost(binary=BIN, seconds=20):
    """The live view of @binary in tmux over @seconds, after 3 s: its CPU
    share, RSS and the task count its header shows."""
    try:
        tmux("kill-server")
        tmux("new-session", "-d", "-s", "live", "-x", "200", "-y", "50", binary)
        time.sleep(3.0)
        pid = int(tmux("display", "-p", "-t", "live", "#{pane_pid}").strip())
        with open("/proc/%d/comm" % pid) as f:
            if f.read().strip() != "schedtop":
                sys.exit("live: schedtop is not the pane's process")
        ntasks = tmux("capture-pane", "-p", "-t", "live").split(" tasks |")[0]
        ntasks = ntasks.rsplit("|", 1)[-1].strip()
        c0, t0 = task_cpu_ns(pid), time.monotonic()
        time.sleep(seconds)
        c1, t1 = task_cpu_ns(pid), time.monotonic()
        rss = rss_kb(pid)
        tmux("send-keys", "-t", "live", "q")
        time.sleep(0.5)
    finally:
        tmux("kill-server")
    return {"share": (c1 - c0) / 1e9 / (t1 - t0), "rss_kb": rss,
            "tasks": ntasks}


def main():
    if os.geteuid() != 0:
        sys.exit("live: needs root")
    helper = sleepers(1000)
    time.sleep(1.0)
    try:
        v = live_cost()
        ff = first_frame_ms()
    finally:
        helper.kill()
        helper.wait()
        tmux("kill-server")
    share, rss, ntasks = v["share"], v["rss_kb"], v["tasks"]
    print("### The live view, 200x50 terminal (tmux), default 1 s refresh\n")
    print("| measure | value | target |")
    print("|---|---|---|")
    print("| tasks listed | %s | ~1,000 |" % ntasks)
    print("| schedtop CPU, share of one core over 20 s | %.3f%% | <= 0.5%% |"
          % (100 * share))
    print("| RSS | %.1f MB | <= 10 MB |" % (rss / 1024))
    print("| start to first full frame (median of 5; min, max) | %.0f ms (%.0f, %.0f) "
          "| <= 300 ms |" % ff)
    print()
    print("### One frame: rows (filter, sort) and drawing, synthetic tasks\n")
    print("`bench/tui_render N`: ncurses into a 200x50 screen written to "
          "/dev/null, 8 CPUs in 3 clusters.\n")
    print("| tasks | per frame | rows | draw |")
    print("|---|---|---|---|")
    for n in (1000, 10000):
        out = subprocess.run([RENDER, str(n), "100"], capture_output=True,
                             text=True, check=True).stdout.split()
        print("| %s | %s us | %s us | %s us |" % tuple(out))
    print()


if __name__ == "__main__":
    main()
