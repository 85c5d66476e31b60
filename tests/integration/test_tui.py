"""The live view, driven through tmux: what a person would see and type."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from harness import (BIN, RtApp, bpf_progs_alive, bpf_progs_of, check, mono_ns,
                     parse_csv, periodic, schedtop, test)
from tmux import (Tmux, exited_cleanly, quit_cleanly, run_then_kill_server,
                  task_rows)

TOPO = "LITTLE:0,big:1@1024"


@test(root=True)
def clusters_cpus_and_a_pinned_task():
    rt = RtApp({"tuiduty": periodic(1, 0.5, name="tuiduty")}, duration=20)
    t = Tmux(["--topology", TOPO, "-i", "250", "-f", "tuiduty"])
    try:
        s = t.wait_for(r"^ +\d+ tuiduty", timeout=15)
        time.sleep(2.0)
        s = t.screen()
        lines = s.splitlines()
        check(any(l.startswith("LITTLE") for l in lines) and
              any(l.startswith("big") for l in lines), "cluster header:\n" + s)
        check(re.search(r"^  cpu0 ", s, re.M) and re.search(r"^  cpu1 ", s, re.M),
              "cpu rows:\n" + s)
        row = next(r for r in task_rows(s) if r["COMM"] == "tuiduty")
        check(row["CPU"] == "1" and row["CLUSTER"] == "big",
              "task not on cpu1/big: %s" % row)
        check(400 <= int(row["UTIL"]) <= 640, "UTIL %s for a 50%% task" % row["UTIL"])
        check(35 <= float(row["%CPU"]) <= 65, "%%CPU %s" % row["%CPU"])
        check("\u2588" in s, "UTF-8 bars expected in a UTF-8 locale")
        quit_cleanly(t)
    finally:
        t.close()
        rt.stop()


@test(root=True)
def sort_filter_help_pause():
    t = Tmux(["--topology", TOPO, "-i", "200"])
    try:
        t.wait_for(r"sort UTIL v")
        time.sleep(1.0)
        rows = task_rows(t.screen())
        check(len(rows) > 10, "few tasks listed")
        utils = [int(r["UTIL"]) for r in rows]
        check(utils == sorted(utils, reverse=True), "not sorted by UTIL: %s" % utils)
        t.keys("U")                       # same column again: inverted
        s = t.wait_for(r"sort UTIL \^")
        utils = [int(r["UTIL"]) for r in task_rows(s)]
        check(utils == sorted(utils), "not inverted: %s" % utils)
        t.keys("P")
        s = t.wait_for(r"sort %CPU v")
        cpus = [float(r["%CPU"]) for r in task_rows(s)]
        check(cpus == sorted(cpus, reverse=True), "not sorted by %%CPU: %s" % cpus)

        t.keys("\\", literal=True)
        t.wait_for(r"Filter \(comm or pid\): _")
        t.keys("kworker", literal=True)
        t.keys("Enter")
        s = t.wait_for(r"filter kworker")
        rows = task_rows(s)
        check(rows and all("kworker" in r["COMM"] for r in rows),
              "filter let through: %s" % [r["COMM"] for r in rows])
        t.keys("Escape")
        s = t.wait_for(r"sort %CPU v \| h help")
        check(any("kworker" not in r["COMM"] for r in task_rows(s)),
              "Esc did not clear the filter")

        t.keys("h")
        s = t.wait_for(r"^schedtop keys")
        check("Task columns" in s and "UTIL" in s, "help:\n" + s)
        t.keys("x")
        t.wait_for(r"^LITTLE")

        t.keys("Space")
        t.wait_for(r"PAUSED")
        a = task_rows(t.screen())
        time.sleep(1.0)
        b = task_rows(t.screen())
        check(a == b, "values changed while paused")
        t.keys("Space")
        # The key is read at the next poll, then the screen redrawn.
        deadline = time.monotonic() + 5
        while "PAUSED" in t.screen() and time.monotonic() < deadline:
            time.sleep(0.05)
        check("PAUSED" not in t.screen(), "still paused 5 s after Space")
        quit_cleanly(t, "F10")
    finally:
        t.close()


@test(root=True)
def detail_draws_the_pelt_stream_live():
    """--pelt-trace -p TID: the task detail draws the task's every update of
    the last 2 s under a time axis. Truths: rt-app's 50% duty (util near
    512, so the line's glyphs sit at half height, 4 of 8 eighths, one either
    side for the ripple) and the issue's rate (>= 100 updates a second)."""
    rt = RtApp({"tuipelt": periodic(1, 0.5, name="tuipelt")}, duration=20)
    tid = rt.tids["tuipelt"]
    rec = os.path.join(tempfile.mkdtemp(prefix="schedtop-tui-"), "l.rec")
    t = Tmux(["--topology", TOPO, "-i", "200", "-f", "tuipelt",
              "--pelt-trace", "-p", str(tid), "--record", rec])
    try:
        t.wait_for(r"^ +\d+ tuipelt", timeout=15)
        t.keys("Enter")
        t.wait_for(r"^task %d" % tid)
        time.sleep(3)			# a whole 2 s window of updates
        s = t.wait_for(r"PELT updates in the last 2\.0 s")
        check(re.search(r"^ +-2\.0s .* -1\.0s .* now$", s, re.M),
              "no time axis:\n" + s)
        n = int(re.search(r"\((\d+) PELT updates", s).group(1))
        check(n >= 200, "%d updates in 2 s, want >= 100 a second" % n)
        line = next(l for l in s.splitlines() if l.startswith("util  (all)"))
        glyphs = [c for c in line[14:] if "\u2581" <= c <= "\u2588"]
        half = sum(1 for c in glyphs if c in "\u2583\u2584\u2585")
        check(len(glyphs) >= 60 and half >= 0.9 * len(glyphs),
              "util of a 50%% task not at half height: %r" % line)
        check(re.search(r"\| PELT lost \d+ ", s), "no lost count:\n" + s)
        print("# %d updates in the 2 s window; %d of %d columns at half height"
              % (n, half, len(glyphs)))
        quit_cleanly(t)
        # --record kept the same stream: this task's, in time order.
        rows = parse_csv(schedtop("csv", "--from", rec, "-t", "pelt").stdout)
        ts = [int(r["ts_ns"]) for r in rows]
        check(len(rows) >= n and all(r["pid"] == str(tid) for r in rows) and
              ts == sorted(ts), "--record's PELT updates: %d rows, pids %s"
              % (len(rows), sorted({r["pid"] for r in rows})))
    finally:
        t.close()
        rt.stop()
        shutil.rmtree(os.path.dirname(rec), ignore_errors=True)


def task_cpu_ns(tid):
    """The kernel's own run time of a task (/proc/PID/schedstat), in ns."""
    with open("/proc/%d/schedstat" % tid) as f:
        return int(f.read().split()[0])


def cpu_busy_ticks(cpu):
    """/proc/stat: (busy, total) jiffies of one CPU, busy = not idle/iowait."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu%d " % cpu):
                v = [int(x) for x in line.split()[1:]]
                return sum(v) - v[3] - v[4], sum(v)
    raise AssertionError("cpu%d not in /proc/stat" % cpu)


SCHED_DEBUG = "/sys/kernel/debug/sched/debug"


class RootUtilWatch:
    """cpu @cpu's root cfs_rq util_avg as the kernel keeps it, from the
    scheduler's debug dump (cfs_rq[cpu]:/'s .util_avg) every 20 ms on a
    thread of its own until stop(): .utils."""

    def __init__(self, cpu):
        import threading
        self.head, self.utils = "cfs_rq[%d]:/" % cpu, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll)
        self._thread.start()

    def _poll(self):
        path = SCHED_DEBUG if os.path.exists(SCHED_DEBUG) else "/proc/sched_debug"
        while not self._stop.wait(0.02):
            inside = False
            with open(path) as f:
                for line in f:
                    if line.startswith("cfs_rq["):
                        if inside:
                            break
                        inside = line.strip() == self.head
                    elif inside:
                        m = re.match(r"\s+\.util_avg\s+:\s+(\d+)", line)
                        if m:
                            self.utils.append(int(m.group(1)))
                            break

    def stop(self):
        self._stop.set()
        self._thread.join()


@test(root=True)
def cluster_screen_draws_a_cpus_pelt_stream_live():
    """--pelt-trace --pelt-cpus 1: the cluster screen draws cpu1's every
    cfs/rt/dl/irq update of the last 2 s under a time axis. Truths: the
    count equals what --record kept of cpu1 in that window (csv --from -t
    pelt), and cfs util sits at the height of the busy time on cpu1: at
    least the pinned task's duty from its /proc/PID/schedstat, at most
    cpu1's busy share in /proc/stat (others may run there too), one eighth
    either side for PELT's ripple."""
    rt = RtApp({"tuicpu": periodic(1, 0.5, name="tuicpu")}, duration=20)
    tid = rt.tids["tuicpu"]
    rec = os.path.join(tempfile.mkdtemp(prefix="schedtop-tui-"), "c.rec")
    t = Tmux(["--topology", TOPO, "-i", "200", "--pelt-trace",
              "--pelt-cpus", "1", "--record", rec], height=45)
    try:
        t.wait_for(r"^ +PID ", timeout=15)
        t.keys("c")
        t.wait_for(r"^cluster utilization history")
        time.sleep(1)
        run0, (busy0, all0), t0 = task_cpu_ns(tid), cpu_busy_ticks(1), time.monotonic()
        root = RootUtilWatch(1)
        try:
            time.sleep(2.2)		# a whole 2 s window of updates
        finally:
            root.stop()
        read_ns = mono_ns()
        s = t.screen()
        run1, (busy1, all1), t1 = task_cpu_ns(tid), cpu_busy_ticks(1), time.monotonic()
        duty = (run1 - run0) / ((t1 - t0) * 1e9)
        busy = (busy1 - busy0) / max(all1 - all0, 1)
        check(re.search(r"^  cpu1, every PELT update:", s, re.M) and
              not re.search(r"^  cpu0, every", s, re.M), "cpu1's block:\n" + s)
        check(re.search(r"^ +-2\.0s .* -1\.0s .* now$", s, re.M),
              "no time axis:\n" + s)
        m = re.search(r"\((\d+) PELT updates of cpu1 in the last 2\.0 s", s)
        check(m, "no update count:\n" + s)
        n = int(m.group(1))
        line = next(l for l in s.splitlines() if l.startswith("cfs util"))
        glyphs = [c for c in line[14:] if "\u2581" <= c <= "\u2588"]
        # Above: cpu1's busy share, or the kernel's own root util at its
        # highest in the window (the debug dump every 20 ms): a task
        # attached to cpu1 brings its util in a step, and one asleep there
        # keeps its util in the root, neither bounded by the busy share
        # (CI: a quarter of the columns at 6-8 eighths, busy 0.548).
        top = max(root.utils, default=0)
        lo = int(duty * 8 + 0.5) - 1
        hi = max(int(busy * 8 + 0.5), int(top * 8 / 1024 + 0.5)) + 1
        ok = sum(1 for c in glyphs if lo <= ord(c) - 0x2580 <= hi)
        print("# cpu1: %d updates drawn; task duty %.3f, cpu1 busy %.3f, "
              "the kernel's root util at most %d in %d reads: %d of %d "
              "columns at %d..%d eighths" % (n, duty, busy, top,
                                             len(root.utils), ok,
                                             len(glyphs), lo, hi))
        check(len(root.utils) >= 20, "%d reads of cpu1's root util"
              % len(root.utils))
        check(n >= 200, "%d updates of cpu1 in 2 s" % n)
        check(len(glyphs) >= 60 and ok >= 0.9 * len(glyphs),
              "cfs util of cpu1 (task duty %.3f, busy %.3f) not at %d..%d "
              "eighths: %r" % (duty, busy, lo, hi, line))
        # What the screen counted is what --record kept of cpu1 in the 2 s
        # before the sample it showed (one of those of the second before the
        # screen was read), except what the live stream still held back for
        # ordering: the last PELT_REORDER_NS (20 ms) before the drain,
        # docs/signals.md; 30 ms allowed.
        quit_cleanly(t)
        rows = parse_csv(schedtop("csv", "--from", rec, "-t", "pelt").stdout)
        samples = sorted({int(r["ts_ns"]) for r in parse_csv(
            schedtop("csv", "--from", rec, "-t", "cpu").stdout)})
        check(all(r["cpu"] == "1" and r["entity"] in ("cfs", "rt", "dl", "irq")
                  for r in rows),
              "entities other than cpu1's traced")
        ts = [int(r["ts_ns"]) for r in rows]
        want = [(sum(1 for x in ts if now - 2000000000 < x <= now - 30000000),
                 sum(1 for x in ts if now - 2000000000 < x <= now))
                for now in samples if read_ns - 1000000000 < now <= read_ns]
        check(any(lo <= n <= hi for lo, hi in want), "screen drew %d updates "
              "of cpu1; the recording has %s in the 2 s before each sample of "
              "the second before the screen was read" % (n, want))
    finally:
        t.close()
        rt.stop()
        shutil.rmtree(os.path.dirname(rec), ignore_errors=True)


@test(root=True)
def detail_cluster_history_and_groups():
    rt = RtApp({"tuidetail": periodic(1, 0.3, name="tuidetail")}, duration=20)
    t = Tmux(["--topology", TOPO, "-i", "200", "-f", "tuidetail"])
    try:
        t.wait_for(r"^ +\d+ tuidetail")
        time.sleep(1.5)
        t.keys("Enter")
        s = t.wait_for(r"^task %d" % rt.tids["tuidetail"])
        spark = next(l for l in s.splitlines() if l.startswith("util_avg"))
        check(re.search("[\u2581-\u2588]{5,}", spark), "no sparkline: " + spark)
        check(re.search(r"^on big +[\d.]+ ms +100\.0%", s, re.M),
              "time per cluster:\n" + s)
        check(re.search(r"^last CPUs +1$", s, re.M), "last CPUs:\n" + s)
        t.keys("Escape")
        t.wait_for(r"^ +PID ")
        t.keys("c")
        s = t.wait_for(r"^cluster utilization history")
        check("big (cpus 1)" in s and "LITTLE (cpus 0)" in s, s)
        t.keys("Escape")
        t.keys("g")
        s = t.wait_for(r"CGROUP +CPU +CLUSTER +UTIL")
        check(re.search(r"^autogroup-\d+ +1 big +\d+", s, re.M) or
              re.search(r"^/\S* +1 big", s, re.M), "group rows:\n" + s)
        t.keys("g", "t")
        # Threads under their process: rt-app's thread, indented.
        t.wait_for(r"^ +\d+ +`tuidetail")
        quit_cleanly(t)
    finally:
        t.close()
        rt.stop()


@test(root=True)
def resize_keeps_the_screen_sane():
    t = Tmux(["--topology", TOPO, "-i", "200"])
    try:
        t.wait_for(r"^ +PID ")
        t.resize(60, 20)
        time.sleep(0.6)
        s = t.screen()
        lines = s.splitlines()
        check(len(lines) <= 20 and all(len(l) <= 60 for l in lines),
              "lines overflow 60x20")
        check(lines[0].startswith("schedtop") and "LITTLE" in s and "PID" in s,
              "60x20 lost the header or table:\n" + s)
        t.resize(80, 24)
        time.sleep(0.6)
        s = t.screen()
        head = next(l for l in s.splitlines() if l.lstrip().startswith("PID "))
        for col in ("COMM", "CPU", "CLUSTER", "UTIL", "%CPU"):
            check(col in head.split(), "80x24 lost %s: %r" % (col, head))
        t.resize(30, 8)
        t.wait_for(r"terminal too small")
        t.resize(120, 40)
        s = t.wait_for(r"^ +PID .*%CPU")
        check("LITTLE" in s, "back at 120x40:\n" + s)
        quit_cleanly(t)
    finally:
        t.close()


@test(root=True)
def signals_restore_the_terminal():
    for sig in ("TERM", "INT", "HUP"):
        t = Tmux(["--topology", TOPO, "-i", "200"])
        try:
            t.wait_for(r"^ +PID ")
            pid = t.pid()
            check(pid, "no schedtop process")
            progs = bpf_progs_of(pid)
            check("on_migrate" in progs.values(),
                  "schedtop holds no on_migrate: %s" % progs)
            subprocess.run(["kill", "-" + sig, str(pid)], check=True)
            exited_cleanly(t)
            check(bpf_progs_alive(progs, settle=3) == [],
                  "SIG%s left BPF programs loaded: %s" % (sig, progs))
        finally:
            t.close()


@test(root=True)
def escape_sequences_in_names_stay_inert():
    evil = "\x1b]2;PWNED\x07x"
    child = subprocess.Popen([sys.executable, "-c",
                              "import time; open('/proc/self/comm','w').write(%r);"
                              " time.sleep(30)" % evil])
    t = Tmux(["--topology", TOPO, "-i", "200", "-f", str(child.pid)])
    try:
        s = t.wait_for(r"\?\]2;PWNED\?x")
        title = Tmux.tmux("display", "-p", "-t", t.name, "#{pane_title}").strip()
        check("PWNED" not in title, "the task's name set the pane title")
        check("\x1b" not in s and "\x07" not in s, "raw control bytes on screen")
        quit_cleanly(t)
    finally:
        t.close()
        child.kill()
        child.wait()


@test(root=True)
def no_color_and_ascii():
    t = Tmux(["--topology", TOPO, "-i", "200"],
             env={"NO_COLOR": "1", "LANG": "C", "LC_ALL": "C"})
    try:
        t.wait_for(r"^ +PID ")
        s = t.screen(escapes=True)
        check(not re.search(r"\x1b\[[0-9;]*(3[0-7]|4[0-7]|38;|48;)", s),
              "colour escapes with NO_COLOR")
        plain = t.screen()
        check("\u2588" not in plain and re.search(r"^  cpu0  \[[#.RDI]", plain, re.M),
              "ASCII bars expected in the C locale:\n" + plain)
        quit_cleanly(t)
    finally:
        t.close()


@test
def not_a_terminal_is_a_clear_error():
    r = subprocess.run([BIN], capture_output=True, stdin=subprocess.DEVNULL,
                       timeout=30)
    check(r.returncode == 1 and b"needs a terminal" in r.stderr and
          b"schedtop csv" in r.stderr, "got %d %r" % (r.returncode, r.stderr))


@test
def unknown_terminal_is_a_clear_error():
    t = Tmux(["--topology", TOPO], env={"TERM": "nonexistent-term",
                                         "TERMINFO": "/nonexistent",
                                         "TERMINFO_DIRS": "/nonexistent"})
    try:
        # A fallback entry drives the view: the system's xterm or vt100 if
        # terminfo has them, else the VT100 built into schedtop, written
        # under $TMPDIR (writable here). An error exit is a failure.
        s = t.wait_for(r"^EXITED \d+|^ +PID ")
        check("EXITED" not in s, "unknown TERM did not fall back:\n" + s)
        quit_cleanly(t)
    finally:
        t.close()


if __name__ == "__main__":
    run_then_kill_server()
