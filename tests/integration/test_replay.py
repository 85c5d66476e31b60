"""schedtop replay in a real terminal (tmux): the recording's tasks on screen,
stepping, seeking, speed, the recording's position on the status line, and
a clean exit."""
import re
import shutil
import tempfile
import os
import time

from harness import RtApp, check, periodic, run, schedtop, test
from tmux import Tmux, exited_cleanly, kill_server, task_rows

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
    try:
        time.sleep(0.5)
        r = schedtop("record", "-q", "-o", rec, "-i", "100", "-d", "4",
                     "--topology", TOPO)
        check(r.returncode == 0, "record failed: %s" % r.stderr)
    finally:
        rt.stop()
    t = Tmux(["replay", "-s", "x0.25", rec], width=150, height=40)
    try:
        s = t.wait_for(r"REPLAY 1/40 ")
        t.keys("space")
        s = t.wait_for(r"PAUSED")
        t.keys("}")
        s = t.wait_for(r"REPLAY 40/40 ")
        rows = [row for row in task_rows(s) if row["COMM"] == "replayed"]
        check(rows, "the rt-app task is not on screen:\n" + s)
        util = int(rows[0]["UTIL"])
        check(300 <= util <= 700, "replayed util %d for a 50%% task" % util)
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
        t.keys("q")
        exited_cleanly(t)
    finally:
        t.close()
        shutil.rmtree(tmp, ignore_errors=True)


@test
def replay_errors_are_clear():
    r = schedtop("replay", "/nonexistent.rec")
    check(r.returncode == 1 and b"cannot read /nonexistent.rec" in r.stderr,
          "missing file: %r" % r.stderr)
    r = schedtop("replay", "-s", "x3", "x.rec")
    check(r.returncode == 2 and b"bad speed" in r.stderr, "bad speed: %r" % r.stderr)


if __name__ == "__main__":
    try:
        run()
    finally:
        kill_server()
