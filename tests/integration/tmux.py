"""A schedtop live view in a tmux pane, for the tests that drive it."""
import os
import re
import shlex
import subprocess
import time

from harness import BIN, check, run

SOCKET = "schedtop-tests-%d" % os.getpid()


class Tmux:
    """schedtop in a tmux pane; the pane's shell reports how it exited."""

    def __init__(self, args, width=120, height=40, env=None):
        self.name = "st%d" % time.monotonic_ns()
        env = {"LANG": "C.UTF-8", **(env or {})}
        envs = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())
        cmd = ("env %s %s %s; echo EXITED $?; stty -a | tr ' ' '\\n' | "
               "grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' ';"
               " echo; sleep 60" % (envs, shlex.quote(BIN),
                                    " ".join(map(shlex.quote, args))))
        # A server whose last session just closed may still be exiting and
        # refuse the new session: try again.
        for attempt in range(20):
            try:
                self.tmux("new-session", "-d", "-s", self.name, "-x",
                          str(width), "-y", str(height), cmd)
                break
            except subprocess.CalledProcessError:
                if attempt == 19:
                    raise
                time.sleep(0.1)

    @staticmethod
    def tmux(*args):
        return subprocess.run(["tmux", "-L", SOCKET, *args], check=True,
                              capture_output=True, text=True).stdout

    def screen(self, escapes=False):
        return self.tmux("capture-pane", "-p", *(["-e"] if escapes else []),
                         "-t", self.name)

    def keys(self, *keys, literal=False):
        self.tmux("send-keys", "-t", self.name, *(["-l"] if literal else []),
                  *keys)

    def wait_for(self, pattern, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            s = self.screen()
            if re.search(pattern, s, re.M):
                return s
            time.sleep(0.1)
        raise AssertionError("screen never showed %r:\n%s" % (pattern, s))

    def resize(self, width, height):
        self.tmux("resize-window", "-t", self.name, "-x", str(width),
                  "-y", str(height))

    def pid(self):
        """schedtop's pid: the pane runs env, which execs it."""
        shell = int(self.tmux("display", "-p", "-t", self.name,
                              "#{pane_pid}").strip())
        out = subprocess.run(["pgrep", "-P", str(shell), "-x", "schedtop"],
                             capture_output=True, text=True).stdout.split()
        return int(out[0]) if out else None

    def close(self):
        subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", self.name],
                       capture_output=True)


def task_rows(screen):
    """Rows of the task table below its PID header, split in fields.

    COMM is cut by position: names may hold spaces ("tmux: server").
    """
    lines = screen.splitlines()
    start = next(i for i, l in enumerate(lines) if l.lstrip().startswith("PID "))
    head = lines[start]
    comm_at = head.index("COMM")
    after = head[comm_at + 16:].split()
    rows = []
    for line in lines[start + 1:-1]:
        pid = line[:comm_at].strip()
        rest = line[comm_at + 16:].split()
        if pid.isdigit() and len(rest) >= len(after):
            row = dict(zip(after, rest))
            row.update(PID=pid, COMM=line[comm_at:comm_at + 15].rstrip())
            rows.append(row)
    return rows


def exited_cleanly(t):
    s = t.wait_for(r"^-?icanon -?echo")
    check("EXITED 0" in s, "schedtop's exit status:\n" + s)
    check(re.search(r"^icanon echo", s, re.M) is not None,
          "terminal not restored (stty):\n" + s)
    check("LITTLE" not in s, "the view was left on the screen:\n" + s)


def quit_cleanly(t, key="q"):
    """Quit the view with @key: it exits 0 and gives the terminal back."""
    t.keys(key)
    exited_cleanly(t)


def kill_server():
    subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)


def run_then_kill_server():
    """harness.run() for a file of tmux tests; its tmux server goes after."""
    try:
        run()
    finally:
        kill_server()
