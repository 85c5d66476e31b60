"""scripts/schedtop-adb with the real adb client and server.

The "phone" is tests/adb/fake_adbd.py on loopback: the adb server connects
to it as to a device in tcpip mode and speaks the real transport and sync
protocols. Commands run on this host for real (the pushed schedtop loads
its BPF programs into this kernel); /data/local/tmp is a temporary
directory, and getprop, the shell uid and su are simulated (see the fake's
docstring). The adb server runs on a private port with a private HOME and
is killed at the end.
"""
import csv
import io
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from harness import BIN, OUT, SRC, make_in_out, Skip, check, parse_csv, run, test

HELPER = os.path.join(SRC, "scripts", "schedtop-adb")
FAKE = os.path.join(SRC, "tests", "adb", "fake_adbd.py")
ARM_BIN = os.path.join(SRC, "build-arm64", "schedtop")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Phone:
    """One fake adbd and its sandbox."""

    def __init__(self, top, name, *args):
        self.dir = os.path.join(top, name)
        os.makedirs(self.dir)
        self.proc = subprocess.Popen(
            ["python3", FAKE, "--sandbox", self.dir, *args],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        check(line.startswith("listening "), "fake adbd: %r" % line)
        self.serial = "127.0.0.1:" + line.split()[1]
        self.tmp = os.path.join(self.dir, "data", "local", "tmp")

    def mode(self, mode):
        with open(os.path.join(self.dir, "mode"), "w") as f:
            f.write(mode)

    def services(self):
        with open(os.path.join(self.dir, "services.log")) as f:
            return f.read().splitlines()

    def processes(self):
        """Live processes started from the sandbox (the device's schedtop)."""
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if self.tmp + "/schedtop" in cmd and "sh -c" not in cmd:
                found.append("%s %s" % (pid, cmd))
        return found

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


class Env:
    def __init__(self):
        self.top = tempfile.mkdtemp(prefix="schedtop-adb-")
        home = os.path.join(self.top, "home")
        os.makedirs(home)
        self.env = dict(os.environ, HOME=home,
                        ANDROID_ADB_SERVER_PORT=str(free_port()))
        self.env.pop("ANDROID_SERIAL", None)
        self.phones = []

    def adb(self, *args, **kw):
        return subprocess.run(["adb", *args], env=self.env, text=True,
                              capture_output=True, timeout=30, **kw)

    def phone(self, name, *args):
        p = Phone(self.top, name, *args)
        self.phones.append(p)
        r = self.adb("connect", p.serial)
        check("connected to" in r.stdout, "adb connect: %s %s" %
              (r.stdout, r.stderr))
        deadline = time.monotonic() + 10
        while "%s\tdevice" % p.serial not in self.adb("devices").stdout:
            check(time.monotonic() < deadline, "%s never came online" %
                  p.serial)
            time.sleep(0.1)
        return p

    def helper(self, *args, env=None, **kw):
        return subprocess.run([HELPER, *args], env=dict(self.env, **(env or {})),
                              text=True, capture_output=True, timeout=120, **kw)

    def close(self):
        self.adb("kill-server")
        for p in self.phones:
            p.stop()
        shutil.rmtree(self.top, ignore_errors=True)


E = None
PHONE = None


def setup():
    """The adb server and one phone, shared by the tests below."""
    global E, PHONE
    if not shutil.which("adb"):
        raise Skip("adb not installed (scripts/install-deps)")
    if E is None:
        E = Env()
    if PHONE is None:
        PHONE = E.phone("phone")
    PHONE.mode("root")
    return E, PHONE


def push(e, p):
    if not os.path.exists(os.path.join(p.tmp, "schedtop")):
        r = e.helper("-s", p.serial, "push", BIN)
        check(r.returncode == 0, "push: %s" % r.stderr)


@test
def no_device_or_several_devices_are_explained():
    if not shutil.which("adb"):
        raise Skip("adb not installed (scripts/install-deps)")
    global E
    E = Env()
    r = E.helper("check")
    check(r.returncode == 1 and "no device attached" in r.stderr and
          "adb connect" in r.stderr, "no device: %r" % r.stderr)
    e, p = setup()
    other = e.phone("other")
    r = e.helper("check")
    check(r.returncode == 1, "two devices: exit %d" % r.returncode)
    check("2 devices attached" in r.stderr and p.serial in r.stderr and
          other.serial in r.stderr and "-s SERIAL" in r.stderr,
          "two devices: %r" % r.stderr)
    r = e.helper("check", env={"ANDROID_SERIAL": other.serial})
    check(other.serial in r.stdout, "ANDROID_SERIAL: %r" % r.stdout)
    r = e.helper("-s", "127.0.0.1:1", "check")
    check(r.returncode == 1 and "127.0.0.1:1 is not attached" in r.stderr,
          "unknown serial: %r" % r.stderr)
    e.adb("disconnect", other.serial)
    r = e.helper("check")
    check(p.serial in r.stdout, "back to one device: %r" % (r.stdout + r.stderr))


@test
def push_copies_the_binary_for_the_abi():
    e, p = setup()
    r = e.helper("-s", p.serial, "push")
    check(r.returncode == 0, "push: %s" % r.stderr)
    pushed = os.path.join(p.tmp, "schedtop")
    with open(pushed, "rb") as a, open(BIN, "rb") as b:
        check(a.read() == b.read(), "pushed file differs from build/schedtop")
    check(os.stat(pushed).st_mode & 0o777 == 0o755, "not chmod 755")
    version = subprocess.run([BIN, "--version"], capture_output=True,
                             text=True).stdout.strip()
    check(version in r.stdout, "push does not show the version: %r" % r.stdout)
    check("sync:" in p.services(), "push did not use the sync service")
    # An arm64 phone: the x86_64 build is refused before anything is copied.
    arm = e.phone("arm64", "--abi", "arm64-v8a")
    r = e.helper("-s", arm.serial, "push", BIN)
    check(r.returncode == 1 and "not a binary for this device's ABI "
          "arm64-v8a" in r.stderr, "arm64 ABI: %r" % r.stderr)
    check(not os.path.exists(os.path.join(arm.tmp, "schedtop")),
          "a wrong binary was pushed")
    e.adb("disconnect", arm.serial)


@test
def arm64_phone_gets_the_static_arm64_build():
    """An arm64-v8a stand-in that runs aarch64 binaries through qemu-user:
    push picks build-arm64/schedtop and it runs there. qemu-user has no
    bpf(): by default schedtop falls back to tracefs and the CSV arrives,
    marked estimated; with --source=bpf the failure is reported with
    schedtop's own message and a failing exit status, nothing in the CSV."""
    if not shutil.which("qemu-aarch64-static") or not shutil.which("aarch64-linux-gnu-gcc"):
        raise Skip("not installed: qemu-user-static, gcc-aarch64-linux-gnu "
                   "(scripts/install-deps --arm64)")
    b = subprocess.run(["make", "-s", "-C", SRC, "ARCH=arm64"], capture_output=True)
    check(b.returncode == 0, "make ARCH=arm64 failed:\n" + b.stderr.decode()[-2000:])
    e, _ = setup()
    arm = e.phone("arm64q", "--abi", "arm64-v8a", "--qemu",
                  shutil.which("qemu-aarch64-static"))
    try:
        r = e.helper("-s", arm.serial, "push")
        check(r.returncode == 0, "push: %s" % r.stderr)
        check("pushed build-arm64/schedtop " in r.stdout, r.stdout)
        check("dynamically linked" not in r.stderr, r.stderr)
        pulled = os.path.join(e.top, "pulled")
        e.adb("-s", arm.serial, "pull", "/data/local/tmp/schedtop", pulled)
        with open(pulled, "rb") as a, open(ARM_BIN, "rb") as b:
            check(a.read() == b.read(), "pushed file is not build-arm64/schedtop")
        version = subprocess.run(["qemu-aarch64-static", ARM_BIN, "--version"],
                                 capture_output=True, text=True).stdout.strip()
        r = e.helper("-s", arm.serial, "check")
        check("schedtop  /data/local/tmp/schedtop: %s" % version in r.stdout,
              "check: %r" % r.stdout)
        out = os.path.join(e.top, "arm.csv")
        r = e.helper("-s", arm.serial, "csv", "-o", out, "--", "-n", "2", "-i", "200",
                     "-t", "cpu")
        check(r.returncode == 0, "csv through tracefs on the arm64 stand-in: exit %d: %s"
              % (r.returncode, r.stderr))
        with open(out, "rb") as f:
            rows = list(csv.DictReader(io.StringIO(f.read().decode(), newline="")))
        check(rows and all(x["pelt_estimated"] == "1" for x in rows),
              "no estimated rows from the tracefs fallback: %r" % rows[:2])
        r = e.helper("-s", arm.serial, "csv", "-o", out, "--", "-n", "1",
                     "--source=bpf")
        check(r.returncode == 1, "csv --source=bpf without bpf(): exit %d" % r.returncode)
        check(r.stderr.startswith("schedtop: ") and "BPF" in r.stderr,
              "schedtop's message is not shown: %r" % r.stderr)
        with open(out, "rb") as f:
            data = f.read()
        check(b"schedtop:" not in data, "stderr in the CSV: %r" % data)
    finally:
        e.adb("disconnect", arm.serial)


@test
def check_says_what_is_missing():
    e, p = setup()
    push(e, p)
    r = e.helper("-s", p.serial, "check")
    check(r.returncode == 0, "root: %s %s" % (r.stdout, r.stderr))
    check(re.search(r"^root +yes: adbd runs as root$", r.stdout, re.M),
          r.stdout)
    check(re.search(r"^BTF +yes", r.stdout, re.M), r.stdout)
    check(re.search(r"^schedtop +/data/local/tmp/schedtop: schedtop ",
                    r.stdout, re.M), r.stdout)
    p.mode("su")
    r = e.helper("-s", p.serial, "check")
    check(r.returncode == 0 and "root      via su: adb shell is uid 2000, "
          "'su -c' gives uid 0" in r.stdout, "magisk su: %r" % r.stdout)
    p.mode("user")
    r = e.helper("-s", p.serial, "check")
    check(r.returncode == 1, "no root: exit %d" % r.returncode)
    check("root      NO: adb shell is uid 2000" in r.stdout, r.stdout)
    check("adb root" in r.stderr and "su -c id -u" in r.stderr, r.stderr)
    # AOSP's su takes a user, not -c.
    aosp = e.phone("aosp", "--su-style", "aosp")
    aosp.mode("su")
    r = e.helper("-s", aosp.serial, "check")
    check("'su 0' gives uid 0" in r.stdout, "aosp su: %r" % r.stdout)
    check(r.returncode == 1 and "not pushed: run 'schedtop-adb push'" in
          r.stdout, "nothing pushed: %r" % r.stdout)
    r = e.helper("-s", aosp.serial, "csv")
    check(r.returncode == 1 and "no /data/local/tmp/schedtop on the device: "
          "run 'schedtop-adb push' first" in r.stderr, "csv: %r" % r.stderr)
    e.adb("disconnect", aosp.serial)


@test
def csv_without_root_refuses_clearly():
    e, p = setup()
    push(e, p)
    p.mode("user")
    before = len(p.services())
    r = e.helper("-s", p.serial, "csv", "--", "-t", "cluster")
    check(r.returncode == 1 and "schedtop needs root" in r.stderr,
          "no root: %r" % r.stderr)
    check(not [s for s in p.services()[before:] if s.startswith("exec:")],
          "schedtop was started anyway")


SCHED_DEBUG = "/sys/kernel/debug/sched/debug"


def expand(cpulist):
    out = []
    for part in cpulist.split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


class RootCfsWatch:
    """Each CPU's root cfs_rq util_avg from the scheduler's debug dump,
    read every 10 ms from now until stop(): the kernel's own numbers."""

    def __init__(self):
        if not os.path.exists(SCHED_DEBUG):
            raise Skip("no %s (CONFIG_SCHED_DEBUG, debugfs): the kernel's "
                       "root cfs_rq util cannot be read" % SCHED_DEBUG)
        self.sums = []          # [{cpu: util}] per read
        self.times = []
        self.done = threading.Event()
        self.read()
        self.th = threading.Thread(target=self.loop)
        self.th.start()

    def read(self):
        util, cpu = {}, None
        with open(SCHED_DEBUG) as f:
            for line in f:
                if line.startswith("cfs_rq["):
                    c = line[7:line.index("]")]
                    cpu = int(c) if line.rstrip().endswith("]:/") else None
                elif cpu is not None and line.startswith("  .util_avg "):
                    util[cpu] = int(line.split(":")[1])
                    cpu = None
        self.sums.append(util)
        self.times.append(time.monotonic())

    def loop(self):
        while not self.done.wait(0.01):
            self.read()

    def stop(self):
        if not self.done.is_set():
            self.done.set()
            self.th.join()
            self.read()

    def range(self, cpus):
        """The least and the most the kernel's root cfs_rq util summed over
        cpus can have been between the first read and the last: a value
        between two reads lies within what PELT moves in half the gap,
        1024 * (1 - y^(gap/2)) per CPU, of the nearer."""
        sums = [sum(u.get(c, 0) for c in cpus) for u in self.sums]
        gap = max(b - a for a, b in zip(self.times, self.times[1:]))
        y = 0.5 ** (1 / 32)
        move = len(cpus) * 1024 * (1 - y ** (gap / 2 / 1.048576e-3))
        return min(sums) - move, max(sums) + move


@test(root=True)
def csv_streams_to_the_host_and_ctrl_c_stops_the_device_side():
    e, p = setup()
    push(e, p)
    p.mode("su")		# the Magisk path: every device command via su -c
    out = os.path.join(e.top, "cluster.csv")
    # The kernel's own root cfs_rq util of every CPU, read all along: the
    # truth util_pct is held to below.
    cfs = RootCfsWatch()
    h = subprocess.Popen([HELPER, "-s", p.serial, "csv", "-o", out, "--",
                          "-t", "cluster", "-i", "200"], env=e.env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # Rows reach the host file while the device side still runs.
        deadline = time.monotonic() + 30
        rows = 0
        while rows < 6:
            if h.poll() is not None:
                raise AssertionError("helper ended early: %s" %
                                     h.stderr.read().decode())
            check(time.monotonic() < deadline, "only %d lines in 30 s" % rows)
            time.sleep(0.1)
            if os.path.exists(out):	# the helper creates it
                with open(out, "rb") as f:
                    rows = f.read().count(b"\n") - 1
        running = p.processes()
        check(len(running) == 1, "device schedtop processes: %s" % running)
        t_int = time.monotonic()
        h.send_signal(signal.SIGINT)
        rc = h.wait(30)
        stop_s = time.monotonic() - t_int
    finally:
        if h.poll() is None:	# a failed check: still stop the device side
            h.send_signal(signal.SIGINT)
            try:
                h.wait(20)
            except subprocess.TimeoutExpired:
                h.kill()
        cfs.stop()
    err = h.stderr.read().decode()
    check(rc == 0, "helper exit %d: %s" % (rc, err))
    print("# stopped %.2f s after SIGINT" % stop_s)
    check("stopping schedtop on the device" in err, err)
    check(p.processes() == [], "left on the device: %s" % p.processes())
    leftovers = [f for f in os.listdir(p.tmp) if f != "schedtop"]
    check(leftovers == [], "files left on the device: %s" % leftovers)
    check(any(s.startswith("exec:su -c ") for s in p.services()),
          "not streamed through exec: with su")

    with open(out, "rb") as f:
        data = f.read()
    # The CSV's own CRLF line ends (RFC 4180) arrive untouched: no \r added
    # by a pty, no stray \r, no stderr mixed in.
    check(b"\r\r" not in data and data.count(b"\r") == data.count(b"\n") and
          data.count(b"\r\n") == data.count(b"\n"), "line ends: %r" % data[:300])
    check(data.startswith(b"ts_ns,cluster,"), "header %r" % data[:80])
    rows = parse_csv(data)
    topo = subprocess.run([BIN, "topology", "--csv"], capture_output=True)
    topo = {r["name"]: r for r in parse_csv(topo.stdout)}
    clusters = set(topo)
    check({r["cluster"] for r in rows} == clusters,
          "clusters %s, topology says %s" %
          ({r["cluster"] for r in rows}, clusters))
    ts = sorted({int(r["ts_ns"]) for r in rows})
    check(len(ts) >= 6, "%d samples" % len(ts))
    steps = [(b - a) / 1e6 for a, b in zip(ts, ts[1:])]
    check(all(150 < s < 400 for s in steps), "sample steps (ms) %s" % steps)
    for r in rows:
        # util_pct is the cluster's cfs + rt + dl + irq util over its
        # capacity. The root cfs_rq's util, as the kernel kept it between
        # the first and the last read around the run, bounds the cfs part:
        # at least its smallest sum over the cluster's CPUs, at most its
        # largest (a root's util can pass its capacity: tasks that
        # migrated in bring theirs, the old CPU drops it at its next
        # update). rt, dl and irq util each average their own share of a
        # CPU's time, disjoint from each other: together at most 1024 per
        # CPU. Rounding: a unit per value.
        u = float(r["util_pct"])
        t = topo[r["cluster"]]
        cpus = expand(t["cpus"])
        cap = int(r["capacity"])
        lo, hi = cfs.range(cpus)
        lo_pct = 100.0 * (lo - 4 * len(cpus)) / cap
        hi_pct = 100.0 * (hi + 1024 * len(cpus) + 4 * len(cpus)) / cap
        check(lo_pct <= u <= hi_pct, "%s util_pct %s, the kernel's root "
              "cfs_rq util of cpus %s gives %.1f..%.1f" %
              (r["cluster"], u, t["cpus"], lo_pct, hi_pct))
        check(int(r["capacity"]) == int(t["capacity"]) * ncpus(t["cpus"]),
              "cluster capacity %s, topology %s" % (r["capacity"], t))


@test(root=True)
def live_view_over_adb_shell_t():
    """The helper's 'live': adb shell -t, a pty on the device (the fake
    gives a real one), keys from the host, the exit status back."""
    e, p = setup()
    push(e, p)
    p.mode("su")
    ptyrun = os.path.join(OUT, "ptyrun")
    r = make_in_out("ptyrun")
    check(r.returncode == 0, "make ptyrun: %s" % r.stderr.decode())
    env = dict(e.env)
    env.pop("TERM", None)
    r = subprocess.run([ptyrun, "-t", "30", "-e", "LITTLE", "-e", "big", "--",
                        HELPER, "-s", p.serial, "live", "--", "--topology",
                        "LITTLE:0@512,big:1@1024"], env=env, text=True,
                       capture_output=True, timeout=60)
    check(r.returncode == 0, "ptyrun:\n%s%s" % (r.stdout, r.stderr))
    for line in ("found 'LITTLE'", "found 'big'", "exit status 0",
                 "terminal restored"):
        check("ptyrun: " + line in r.stdout, r.stdout)
    check(any(s.startswith("shell,v2,pty:su -c ") for s in p.services()),
          "not through adb shell -t with su")
    check(p.processes() == [], "left on the device: %s" % p.processes())


def ncpus(cpulist):
    n = 0
    for part in cpulist.split(","):
        a, _, b = part.partition("-")
        n += int(b or a) - int(a) + 1
    return n


@test(root=True)
def record_detached_survives_disconnect_then_stop_and_pull():
    r = subprocess.run([BIN, "record", "--help"], capture_output=True)
    check(r.returncode == 0, "record --help: exit %d %r" % (r.returncode, r.stderr))
    e, p = setup()
    r = e.helper("-s", p.serial, "push", BIN)	# the newest binary
    check(r.returncode == 0, "push: %s" % r.stderr)
    p.mode("su")
    r = e.helper("-s", p.serial, "record", "-o", "/data/local/tmp/t.rec",
                 "--", "-i", "100")
    check(r.returncode == 0, "record: %s" % r.stderr)
    check(len(p.processes()) == 1, "recording: %s" % p.processes())
    # "Unplug": the adb connection goes; the recording stays.
    e.adb("disconnect", p.serial)
    time.sleep(1)
    check(len(p.processes()) == 1, "recording died with the connection")
    e.adb("connect", p.serial)
    time.sleep(0.5)
    r = e.helper("-s", p.serial, "stop")
    check(r.returncode == 0, "stop: %s" % r.stderr)
    check(p.processes() == [], "left running: %s" % p.processes())
    host = os.path.join(e.top, "t.rec")
    r = e.helper("-s", p.serial, "pull", "", host)
    check(r.returncode == 0 and os.path.getsize(host) > 0, "pull: %s" % r.stderr)
    r = subprocess.run([BIN, "csv", "--from", host, "-t", "cluster"],
                       capture_output=True)
    check(r.returncode == 0, "csv --from: %s" % r.stderr)
    check(len(parse_csv(r.stdout)) > 0, "no rows from the recording")


if __name__ == "__main__":
    try:
        run()
    finally:
        if E:
            E.close()
