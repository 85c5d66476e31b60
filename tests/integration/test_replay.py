"""schedtop replay in a real terminal (tmux): the recording's tasks on screen,
stepping, seeking, speed, the recording's position on the status line, and
a clean exit."""
import re
import shutil
import tempfile
import os
import time

from harness import (Inconclusive, RtApp, check, parse_csv, periodic, schedstat,
                     schedtop, steal_ns, test)
from tmux import Tmux, quit_cleanly, run_then_kill_server, task_rows

TOPO = "LITTLE:0@446,big:1@1024"


def position(screen):
    m = re.search(r"REPLAY (\d+)/(\d+) ([\d.]+)/([\d.]+) s x([\d.]+)", screen)
    check(m, "no replay position on the status line:\n" + screen)
    return int(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(5))


@test(root=True)
def replay_steps_seeks_and_shows_the_recorded_tasks():
    tmp = tempfile.mkdtemp(prefix="schedtop-replay-")
    rec = os.path.join(tmp, "r.rec")
    rt = RtApp({"replayed": periodic(1, 0.5, name="replayed")}, duration=6)
    tid = rt.tids["replayed"]
    try:
        time.sleep(0.5)
        (s1, w1, _), t1, st1 = schedstat(tid), time.monotonic_ns(), steal_ns(1)
        r = schedtop("record", "-q", "-o", rec, "-i", "100", "-d", "4",
                     "--topology", TOPO)
        (s2, w2, _), t2, st2 = schedstat(tid), time.monotonic_ns(), steal_ns(1)
        check(r.returncode == 0, "record failed: %s" % r.stderr)
    finally:
        rt.stop()
    # What replay shows is what was recorded: csv --from's last sample.
    last = [row for row in parse_csv(schedtop("csv", "--from", rec).stdout)
            if row["pid"] == str(tid)][-1]
    # Filtered to it: other load recorded alongside (another engineer's
    # build: 139 tasks, cc1 at util 500-700) sorts above a 50% task and
    # off a 40-line screen.
    t, s = paused_at_the_end(["-f", "replayed", rec], 40,
                             first=r"REPLAY 1/40 ")
    try:
        rows = [row for row in task_rows(s) if row["COMM"] == "replayed"]
        check(rows, "the rt-app task is not on screen:\n" + s)
        check(rows[0]["UTIL"] == last["util_avg"],
              "replay shows util %s at the last sample, csv --from %s" %
              (rows[0]["UTIL"], last["util_avg"]))
        check(rows[0]["CLUSTER"] == "big", "replayed is not on big: %s" % rows[0])
        t.keys(",")
        t.wait_for(r"REPLAY 39/40 ")
        t.keys(".")
        t.wait_for(r"REPLAY 40/40 ")
        t.keys("{")
        t.wait_for(r"REPLAY 1/40 ")
        # 10 s steps in a 4 s recording: to either end.
        t.keys("]")
        t.wait_for(r"REPLAY 40/40 ")
        t.keys("[")
        t.wait_for(r"REPLAY 1/40 ")
        t.keys(":")
        t.keys("1.5", literal=True)
        t.keys("Enter")
        idx, n, at, _ = position(t.wait_for(r"REPLAY 1[56]/40 "))
        check(abs(at - 1.5) <= 0.11, "went to %.2f s, not 1.5" % at)
        t.keys("+", "+")
        t.wait_for(r" x1 ")
        t.keys("space")
        t.wait_for(r"end of the recording", timeout=15)
        t.keys("h")
        t.wait_for(r"replay: one sample forward")
        quit_cleanly(t)
    finally:
        t.close()
        shutil.rmtree(tmp, ignore_errors=True)
    # And what was recorded is the kernel's util of a task of this duty
    # (its own schedstat run time over the recording): a 16 ms square wave
    # of duty d holds PELT util between u_min and u_max, with a = d*P on and
    # b = P - a off, in 1024 us periods: u_max = 1024 (1 - y^a) / (1 - y^P),
    # u_min = u_max y^b; 16 more (LISA's 5% of 1024 less this ripple's
    # half-width at 50%) for the duty measured over 4 s, not each period.
    # PELT's clock skips time the hypervisor stole from cpu1.
    d = (s2 - s1) / (t2 - t1 - (st2 - st1))
    wait = (w2 - w1) / (t2 - t1)
    if wait > 0.05:
        # Another load held its CPU: it ran late, not as a square wave.
        raise Inconclusive("the rt-app task waited on the runqueue %.0f%% "
                           "of the recording (schedstat run_delay)" % (100 * wait))
    y, period = 0.5 ** (1 / 32), 16000 / 1024
    a, b = d * period, (1 - d) * period
    u_max = 1024 * (1 - y ** a) / (1 - y ** period)
    u_min = u_max * y ** b
    print("# recorded util %s, duty %.3f (run_delay %.1f%%): PELT band %.0f..%.0f"
          % (last["util_avg"], d, 100 * wait, u_min, u_max))
    check(u_min - 16 <= int(last["util_avg"]) <= u_max + 16,
          "recorded util %s for duty %.3f: PELT holds it in %.0f..%.0f" %
          (last["util_avg"], d, u_min, u_max))


@test
def replay_errors_are_clear():
    r = schedtop("replay", "/nonexistent.rec")
    check(r.returncode == 1 and b"cannot read /nonexistent.rec" in r.stderr,
          "missing file: %r" % r.stderr)
    r = schedtop("replay", "-s", "x3", "x.rec")
    check(r.returncode == 2 and b"bad speed" in r.stderr, "bad speed: %r" % r.stderr)


def record_pelt_trace(rec, name, *opts):
    """A 4 s record --pelt-trace (-i 100, @opts, "{tid}" standing for the
    task's) of a 50% rt-app task @name on cpu1, begun 1 s into it; its tid."""
    rt = RtApp({name: periodic(1, 0.5, name=name)}, duration=8)
    tid = rt.tids[name]
    try:
        time.sleep(1)
        r = schedtop("record", "-q", "-o", rec, "-i", "100", "-d", "4",
                     "--topology", TOPO, "--pelt-trace",
                     *(o.format(tid=tid) for o in opts))
        check(r.returncode == 0, "record failed: %s" % r.stderr)
    finally:
        rt.stop()
    return tid


def recorded_updates(rec, table, keep):
    """The truth a PELT block is held to: csv --from's sample times (of
    @table) and the times of the pelt rows @keep takes."""
    samples = sorted({int(row["ts_ns"]) for row in
                      parse_csv(schedtop("csv", "--from", rec, "-t", table).stdout)})
    pelt = [int(row["ts_ns"]) for row in
            parse_csv(schedtop("csv", "--from", rec, "-t", "pelt").stdout)
            if keep(row)]
    check(len(samples) == 40, "%d samples recorded, not 40" % len(samples))
    return samples, pelt


def in_window(pelt, now):
    """Updates in the 2 s the screen draws before @now."""
    return sum(1 for ts in pelt if now - 2000000000 < ts <= now)


def paused_at_the_end(args, height, first=r"REPLAY \d+/40 "):
    """replay @args (slow: only where it stops is looked at) in tmux,
    paused and moved to its last sample; (Tmux, screen)."""
    t = Tmux(["replay", "-s", "x0.25", *args], width=150, height=height)
    try:
        t.wait_for(first)
        t.keys("space")
        t.wait_for(r"PAUSED")
        t.keys("}")
        return t, t.wait_for(r"REPLAY 40/40 ")
    except BaseException:
        t.close()
        raise


def drawn_count(screen, lines, count):
    """The count a full-resolution PELT block says it draws, the block
    checked to have its sparkline @lines and a 2 s time axis under them."""
    for line in lines:
        check(re.search(line, screen, re.M),
              "no %r line:\n%s" % (line, screen))
    check(re.search(r"^ +-2\.0s .* -1\.0s .* now$", screen, re.M),
          "no time axis under it:\n" + screen)
    m = re.search(count, screen)
    check(m, "no update count:\n" + screen)
    return int(m.group(1))


def check_drawn_counts(t, lines, count, samples, pelt, what):
    """The block on @t's screen counts every recorded update of @what in
    the 2 s before the sample shown: at the last sample, and a sample back
    (the window moves back with it, still the file's); then a clean exit."""
    want = in_window(pelt, samples[-1])
    check(want >= 200, "only %d recorded updates of %s in the last 2 s" %
          (want, what))
    for back in (1, 2):
        if back == 2:
            t.keys(",")
            t.wait_for(r"REPLAY 39/40 ")
        now = samples[-back]
        got = drawn_count(t.wait_for(count), lines, count)
        want = in_window(pelt, now)
        print("# %d sample(s) from the end, the screen shows %d updates of %s,"
              " csv --from has %d in (%d, %d]" %
              (back - 1, got, what, want, now - 2000000000, now))
        check(got == want, "%d sample(s) from the end, the screen says %d "
              "updates of %s, the recording has %d in the 2 s before it" %
              (back - 1, got, what, want))
    quit_cleanly(t)


@test(root=True)
def replay_draws_the_pelt_stream_of_a_recording():
    """replay of record --pelt-trace: the task detail draws every recorded
    update of the last 2 s before the sample shown. Truth: csv --from's
    pelt rows of that pid in that window, and its last sample's time."""
    with tempfile.TemporaryDirectory(prefix="schedtop-replay-") as tmp:
        rec = os.path.join(tmp, "p.rec")
        tid = record_pelt_trace(rec, "rp_pelt", "-p", "{tid}")
        samples, pelt = recorded_updates(
            rec, "task", lambda row: row["pid"] == str(tid))
        t, s = paused_at_the_end(["-f", "rp_pelt", rec], 45)
        try:
            check(re.search(r"\| PELT lost 0 ", s), "no lost count:\n" + s)
            t.wait_for(r"^ +\d+ rp_pelt")
            t.keys("Enter")
            check_drawn_counts(
                t, [r"^util  \(all\) .*[\u2581-\u2588]{5,}"],
                r"\((\d+) PELT updates in the last 2\.0 s",
                samples, pelt, "pid %d" % tid)
        finally:
            t.close()


@test(root=True)
def replay_draws_a_cpus_pelt_stream():
    """replay of record --pelt-trace --pelt-cpus 1: the cluster screen draws
    cpu1's every recorded cfs/rt/dl/irq update of the 2 s before the sample
    shown; the count must be the csv --from -t pelt rows of cpu1 in that
    window, at the last sample and one back."""
    with tempfile.TemporaryDirectory(prefix="schedtop-replay-") as tmp:
        rec = os.path.join(tmp, "c.rec")
        record_pelt_trace(rec, "rp_cpu", "--pelt-cpus", "1")
        samples, pelt = recorded_updates(
            rec, "cpu",
            lambda row: row["cpu"] == "1" and row["entity"] != "task")
        t, _ = paused_at_the_end([rec], 45)
        try:
            t.keys("c")
            check_drawn_counts(
                t, [r"^  cpu1, every PELT update:",
                    r"^cfs util .*[\u2581-\u2588]{5,}"],
                r"\((\d+) PELT updates of cpu1 in the last 2\.0 s",
                samples, pelt, "cpu1")
        finally:
            t.close()


if __name__ == "__main__":
    run_then_kill_server()
