#!/usr/bin/env python3
"""A phone stand-in for the real adb client, on loopback.

It speaks the ADB transport protocol (24-byte little-endian headers: command,
arg0, arg1, length, byte sum, command ^ 0xffffffff) like adbd does over TCP,
so the Debian `adb` client and server talk to it after
`adb connect 127.0.0.1:PORT`, exactly as to a phone in "adb tcpip" mode.
No AUTH: adbd built without auth (eng builds) answers CNXN with CNXN.

Services, as adb 29 uses them with the features we announce:
  exec:CMD                  adb exec-out: raw stdout+stderr, no exit status
  shell,v2,raw|pty,...:CMD  adb shell: shell protocol v2 (stdout, stderr,
                            exit status; stdin, close-stdin, window size)
  shell:CMD                 legacy adb shell (only if the client lacks v2)
  sync:                     adb push/pull: STAT, LIST, SEND, RECV, QUIT
We do not announce stat_v2 or ls_v2, so the client sticks to STAT and LIST.
With --qemu, an aarch64 binary pushed here runs through qemu-user, so an
"arm64 phone" can be played on an x86 host without touching its binfmt_misc
(qemu-user has no bpf(), so only what needs no BPF works there).

What is real: every command runs on this host with /bin/sh -c, as this
host's user, and every process it starts is real (a pushed schedtop loads
its BPF programs into this kernel). Paths under /data/local/tmp (in command
lines and sync requests) are rewritten to SANDBOX/data/local/tmp, and
/data/misc/perfetto-traces to SANDBOX/data/misc/perfetto-traces.

What is simulated (the "phone" bits this host does not have), through small
scripts in SANDBOX/bin, first in the commands' PATH:
  getprop   answers ro.product.cpu.abi and ro.product.model from options
  id        answers -u with 2000 (Android's shell uid) unless the device is
            in "root" mode; the command itself still runs as this host's user
  su        in "su" mode runs its command with uid 0 reported, in the two
            forms phones have: Magisk's "su -c CMD" and AOSP's
            "su 0 CMD..." (--su-style picks which one works); in "user" mode
            it is "not found", like on a phone without su
  perfetto  Perfetto's client, as schedtop-adb's perfetto verb runs it: the
            config it read is kept, and the trace SANDBOX/perfetto.trace
            (the test's) is what it "records"
The mode is read from SANDBOX/mode at each command, so a test can switch it.

Like adbd, a closed stream does not kill its process: a raw command gets
EPIPE at its next write (its stdout pipe is closed), a pty command gets
SIGHUP. A process left running is the client's business, which is what the
tests check. Processes still running when this daemon exits are killed.

Usage: fake_adbd.py --sandbox DIR [--port N] [--abi ABI] [--model NAME]
Prints "listening PORT" on stdout once it accepts connections. Every
service opened is appended to SANDBOX/services.log.
"""
import argparse
import fcntl
import os
import pty
import queue
import re
import select
import signal
import socket
import struct
import subprocess
import termios
import threading

A_CNXN = 0x4e584e43
A_OPEN = 0x4e45504f
A_OKAY = 0x59414b4f
A_CLSE = 0x45534c43
A_WRTE = 0x45545257
A_VERSION = 0x01000001		# skips checksums, like adbd since Android 9
MAX_PAYLOAD = 256 * 1024
SYNC_DATA_MAX = 64 * 1024
DEVICE_DIR = "/data/local/tmp"
TRACES_DIR = "/data/misc/perfetto-traces"

# Shell protocol v2 packet ids (adb's shell_protocol.h).
SH_STDIN, SH_STDOUT, SH_STDERR, SH_EXIT, SH_CLOSE_STDIN, SH_WINSIZE = range(6)

opts = None
children = set()
children_lock = threading.Lock()


def sandboxed(text):
    """A device path or command line with /data/local/tmp (and Perfetto's
    /data/misc/perfetto-traces) in the sandbox. Idempotent: a path that a
    command printed (already in the sandbox) and the client sends back
    stays as it is."""
    for d in (DEVICE_DIR, TRACES_DIR):
        text = re.sub("(?<!%s)%s" % (re.escape(opts.sandbox), re.escape(d)),
                      lambda m, d=d: opts.sandbox + d, text)
    return text


def log_service(name):
    with open(os.path.join(opts.sandbox, "services.log"), "a") as f:
        f.write(name + "\n")


def device_env():
    mode = "root"
    try:
        with open(os.path.join(opts.sandbox, "mode")) as f:
            mode = f.read().strip() or "root"
    except OSError:
        pass
    env = {
        "PATH": os.path.join(opts.sandbox, "bin") + ":/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": sandboxed(DEVICE_DIR),
        "TMPDIR": sandboxed(DEVICE_DIR),
        "FAKE_ADBD_MODE": mode,
        "FAKE_ADBD_SU_STYLE": opts.su_style,
        "FAKE_ADBD_ABI": opts.abi,
        "FAKE_ADBD_MODEL": opts.model,
    }
    if mode != "root":
        env["FAKE_UID"] = "2000"
    return env


SCRIPTS = {
    "getprop": r"""#!/bin/sh
# Simulated: the few properties schedtop-adb asks for.
case $1 in
ro.product.cpu.abi) echo "$FAKE_ADBD_ABI" ;;
ro.product.model) echo "$FAKE_ADBD_MODEL" ;;
ro.build.version.release) echo 14 ;;
"") echo "[ro.product.cpu.abi]: [$FAKE_ADBD_ABI]" ;;
*) echo ;;
esac
""",
    "id": r"""#!/bin/sh
# Simulated: the shell uid of an unrooted phone; the real id otherwise.
if [ -n "$FAKE_UID" ] && [ "$1" = -u ]; then
	echo "$FAKE_UID"
	exit 0
fi
exec /usr/bin/id "$@"
""",
    "su": r"""#!/bin/sh
# Simulated: su as Magisk (su -c CMD) or AOSP userdebug (su 0 CMD...) has it.
if [ "$FAKE_ADBD_MODE" != su ]; then
	echo "/system/bin/sh: su: inaccessible or not found" >&2
	exit 127
fi
unset FAKE_UID
if [ "$FAKE_ADBD_SU_STYLE" = magisk ]; then
	[ "$1" = -c ] || { echo "su: use su -c COMMAND" >&2; exit 1; }
	shift
	exec /bin/sh -c "$*"
fi
case $1 in
0|root) shift ;;
*) echo "su: unknown user $1" >&2; exit 1 ;;
esac
[ $# -eq 0 ] && exec /bin/sh
exec "$@"
""",
    "perfetto": r"""#!/bin/sh
# Simulated: Perfetto's command line client as schedtop-adb runs it,
# "perfetto --txt -c - --background -o FILE": keeps the config it read
# (SANDBOX/perfetto.config), prints a pid, and after the config's
# duration_ms writes the trace the test left in SANDBOX/perfetto.trace
# (a SIGTERM ends it early, as it does Perfetto).
out= cfg= bg=
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift ;;
	-c) cfg=$2; shift ;;
	--txt) ;;
	--background|-b) bg=1 ;;
	*) echo "perfetto: unknown option $1" >&2; exit 1 ;;
	esac
	shift
done
[ "$cfg" = - ] || { echo "perfetto: this stand-in reads its config from stdin" >&2; exit 1; }
[ -n "$out" ] || { echo "perfetto: -o FILE" >&2; exit 1; }
sandbox=$(cd "$(dirname "$0")/.." && pwd)
cat >"$sandbox/perfetto.config"
ms=$(sed -n 's/^ *duration_ms: *\([0-9]*\).*/\1/p' "$sandbox/perfetto.config")
run() {
	# Not "run </dev/null >/dev/null &": dash keeps the caller's stdout
	# open in a backgrounded function that way, and adb waits on it.
	[ -n "$bg" ] && exec </dev/null >/dev/null 2>&1
	sleep "$(( ${ms:-10000} / 1000 ))" &
	nap=$!
	trap 'kill $nap 2>/dev/null; cp "$sandbox/perfetto.trace" "$out"; exit 0' TERM
	wait $nap
	cp "$sandbox/perfetto.trace" "$out"
}
if [ -n "$bg" ]; then
	run &
	echo $!
else
	run
fi
""",
}


def make_sandbox():
    os.makedirs(sandboxed(DEVICE_DIR), exist_ok=True)
    os.makedirs(sandboxed(TRACES_DIR), exist_ok=True)
    bindir = os.path.join(opts.sandbox, "bin")
    os.makedirs(bindir, exist_ok=True)
    for name, text in SCRIPTS.items():
        path = os.path.join(bindir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)


class Transport:
    """One TCP connection from the adb server: many streams."""

    def __init__(self, sock):
        self.sock = sock
        self.wlock = threading.Lock()
        self.streams = {}
        self.next_id = 1
        self.max_payload = MAX_PAYLOAD

    def send(self, cmd, arg0, arg1, data=b""):
        hdr = struct.pack("<6I", cmd, arg0, arg1, len(data),
                          sum(data) & 0xffffffff, cmd ^ 0xffffffff)
        with self.wlock:
            self.sock.sendall(hdr + data)

    def recv_exact(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return bytes(buf)

    def banner(self):
        return ("device::ro.product.name=schedtop_fake;ro.product.model=%s;"
                "ro.product.device=fake;features=shell_v2,cmd" %
                opts.model.replace(" ", "_")).encode()

    def run(self):
        try:
            while True:
                cmd, arg0, arg1, length, _sum, magic = struct.unpack(
                    "<6I", self.recv_exact(24))
                if magic != cmd ^ 0xffffffff:
                    raise EOFError("bad magic")
                data = self.recv_exact(length) if length else b""
                self.dispatch(cmd, arg0, arg1, data)
        except (EOFError, OSError):
            pass
        for s in list(self.streams.values()):
            s.remote_closed()
        self.sock.close()

    def dispatch(self, cmd, arg0, arg1, data):
        if cmd == A_CNXN:
            self.max_payload = min(arg1, MAX_PAYLOAD)
            self.send(A_CNXN, A_VERSION, MAX_PAYLOAD, self.banner())
        elif cmd == A_OPEN:
            local = self.next_id
            self.next_id += 1
            service = data.rstrip(b"\0").decode(errors="replace")
            log_service(service)
            s = Stream(self, local, arg0, service)
            self.streams[local] = s
            self.send(A_OKAY, local, arg0)
            threading.Thread(target=s.serve, daemon=True).start()
        elif cmd == A_WRTE:
            s = self.streams.get(arg1)
            self.send(A_OKAY, arg1, arg0)
            if s:
                s.inq.put(data)
        elif cmd == A_OKAY:
            s = self.streams.get(arg1)
            if s:
                s.okq.put(True)
        elif cmd == A_CLSE:
            s = self.streams.pop(arg1, None)
            if s:
                s.remote_closed()


class Stream:
    def __init__(self, transport, local, remote, service):
        self.t = transport
        self.local, self.remote = local, remote
        self.service = service
        self.inq = queue.Queue()	# WRTE payloads from the host
        self.okq = queue.Queue()	# OKAYs for our WRTEs
        self.closed = threading.Event()
        self.proc = None

    def write(self, data):
        """WRTE in payload-sized pieces, each acknowledged before the next."""
        for i in range(0, len(data), self.t.max_payload):
            if self.closed.is_set():
                return False
            self.t.send(A_WRTE, self.local, self.remote,
                        data[i:i + self.t.max_payload])
            if self.okq.get() is None:
                return False
        return True

    def close(self):
        if not self.closed.is_set():
            self.closed.set()
            self.t.streams.pop(self.local, None)
            try:
                self.t.send(A_CLSE, self.local, self.remote)
            except OSError:
                pass

    def remote_closed(self):
        self.closed.set()
        self.okq.put(None)
        self.inq.put(None)

    def serve(self):
        svc = self.service
        try:
            if svc.startswith("exec:"):
                self.run_raw(svc[5:])
            elif svc.startswith("shell,") or svc.startswith("shell:"):
                head, _, cmd = svc.partition(":")
                args = head.split(",")[1:]
                if "v2" not in args:
                    self.run_raw(cmd or "sh")
                elif "pty" in args:
                    self.run_v2_pty(cmd or "sh", args)
                else:
                    self.run_v2_raw(cmd or "sh")
            elif svc.startswith("sync:"):
                self.sync()
            else:
                self.write(b"FAIL unknown service " + svc.encode())
        except (EOFError, OSError, BrokenPipeError):
            pass
        finally:
            self.close()

    def spawn(self, cmd, **kw):
        env = device_env()
        env.update(kw.pop("env", {}))
        p = subprocess.Popen(["/bin/sh", "-c", sandboxed(cmd)], env=env,
                             cwd=sandboxed(DEVICE_DIR), start_new_session=True,
                             **kw)
        with children_lock:
            children.add(p)
        self.proc = p
        return p

    def pump(self, fd, frame, lock=None):
        """Copy fd to the host until EOF; when the host closes the stream,
        close fd so the process sees EPIPE (raw) or SIGHUP (pty) as with
        adbd, and keep running if it ignores that."""
        while True:
            r, _, _ = select.select([fd], [], [], 0.2)
            if self.closed.is_set():
                break
            if not r:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:		# EIO: the pty's slave side is gone
                data = b""
            if not data:
                break
            if lock:
                with lock:
                    self.write(frame(data))
            else:
                self.write(frame(data))
        os.close(fd)

    def run_raw(self, cmd):
        p = self.spawn(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
        self.pump(os.dup(p.stdout.fileno()), lambda d: d)
        p.stdout.close()
        if not self.closed.is_set():
            p.wait()

    def feed_v2(self, on_stdin, on_close, on_winsize):
        """Shell protocol packets from the host to the process."""
        buf = bytearray()
        while True:
            data = self.inq.get()
            if data is None:
                on_close()
                return
            buf += data
            while len(buf) >= 5:
                pid, length = buf[0], struct.unpack("<I", buf[1:5])[0]
                if len(buf) < 5 + length:
                    break
                body = bytes(buf[5:5 + length])
                del buf[:5 + length]
                if pid == SH_STDIN:
                    on_stdin(body)
                elif pid == SH_CLOSE_STDIN:
                    on_close()
                elif pid == SH_WINSIZE:
                    on_winsize(body)

    def exit_v2(self, status):
        if not self.closed.is_set():
            self.write(struct.pack("<BIB", SH_EXIT, 1, status & 0xff))

    def run_v2_raw(self, cmd):
        p = self.spawn(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)

        def to_stdin(body):
            try:
                p.stdin.write(body)
                p.stdin.flush()
            except (OSError, ValueError):
                pass

        def close_stdin():
            try:
                p.stdin.close()
            except (OSError, ValueError):
                pass
        threading.Thread(target=self.feed_v2, daemon=True,
                         args=(to_stdin, close_stdin, lambda b: None)).start()
        lock = threading.Lock()
        pumps = [threading.Thread(target=self.pump, daemon=True, args=(
            os.dup(f.fileno()),
            lambda d, i=i: struct.pack("<BI", i, len(d)) + d, lock))
            for i, f in ((SH_STDOUT, p.stdout), (SH_STDERR, p.stderr))]
        for t in pumps:
            t.start()
        for t in pumps:
            t.join()
        p.stdout.close()
        p.stderr.close()
        if self.closed.is_set():
            return
        status = p.wait()
        self.exit_v2(status if status >= 0 else 128 - status)

    def run_v2_pty(self, cmd, args):
        env = {a.split("=", 1)[0]: a.split("=", 1)[1]
               for a in args if a.startswith("TERM=")}
        master, slave = pty.openpty()

        def set_controlling_tty():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        env_all = device_env()
        env_all.update(env)
        p = subprocess.Popen(["/bin/sh", "-c", sandboxed(cmd)], env=env_all,
                             cwd=sandboxed(DEVICE_DIR), stdin=slave,
                             stdout=slave, stderr=slave,
                             preexec_fn=set_controlling_tty)
        with children_lock:
            children.add(p)
        self.proc = p
        os.close(slave)

        def to_stdin(body):
            try:
                os.write(master, body)
            except OSError:
                pass

        def winsize(body):
            try:	# "ROWSxCOLS,XPIXxYPIX"
                rc, px = body.decode().rstrip("\0").split(",")
                rows, cols = (int(x) for x in rc.split("x"))
                xp, yp = (int(x) for x in px.split("x"))
                fcntl.ioctl(master, termios.TIOCSWINSZ,
                            struct.pack("HHHH", rows, cols, xp, yp))
            except (ValueError, OSError):
                pass
        threading.Thread(target=self.feed_v2, daemon=True,
                         args=(to_stdin, lambda: None, winsize)).start()
        self.pump(master, lambda d: struct.pack("<BI", SH_STDOUT, len(d)) + d)
        if self.closed.is_set():
            return
        status = p.wait()
        self.exit_v2(status if status >= 0 else 128 - status)

    def sync(self):
        buf = bytearray()

        def need(n):
            while len(buf) < n:
                data = self.inq.get()
                if data is None:
                    raise EOFError
                buf.extend(data)
            out = bytes(buf[:n])
            del buf[:n]
            return out

        def fail(msg):
            msg = msg.encode()
            self.write(b"FAIL" + struct.pack("<I", len(msg)) + msg)

        while True:
            rid, length = struct.unpack("<4sI", need(8))
            if rid == b"QUIT":
                return
            arg = need(length).decode(errors="replace")
            if rid == b"STAT":
                try:
                    s = os.stat(sandboxed(arg))
                    self.write(b"STAT" + struct.pack(
                        "<III", s.st_mode, s.st_size & 0xffffffff,
                        int(s.st_mtime)))
                except OSError:
                    self.write(b"STAT" + struct.pack("<III", 0, 0, 0))
            elif rid == b"LIST":
                path = sandboxed(arg)
                try:
                    names = os.listdir(path)
                except OSError:
                    names = []
                for name in names:
                    try:
                        s = os.lstat(os.path.join(path, name))
                    except OSError:
                        continue
                    self.write(b"DENT" + struct.pack(
                        "<IIII", s.st_mode, s.st_size & 0xffffffff,
                        int(s.st_mtime), len(name.encode())) + name.encode())
                self.write(b"DONE" + struct.pack("<IIII", 0, 0, 0, 0))
            elif rid == b"SEND":
                path, _, mode = arg.rpartition(",")
                path = sandboxed(path)
                tmp = path + ".adbtmp"
                try:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    f = open(tmp, "wb")
                except OSError as e:
                    f, err = None, "open %s: %s" % (path, e.strerror)
                while True:
                    cid, clen = struct.unpack("<4sI", need(8))
                    if cid == b"DATA":
                        chunk = need(clen)
                        if f:
                            f.write(chunk)
                    elif cid == b"DONE":
                        break
                    else:
                        raise EOFError
                if not f:
                    fail(err)
                    continue
                f.close()
                os.chmod(tmp, int(mode) & 0o7777)
                os.utime(tmp, (clen, clen))	# DONE carries the mtime
                if opts.qemu and is_aarch64(tmp):
                    os.rename(tmp, path + ".aarch64")
                    with open(tmp, "w") as f:
                        f.write('#!/bin/sh\nexec %s %s.aarch64 "$@"\n' %
                                (opts.qemu, path))
                    os.chmod(tmp, 0o755)
                os.rename(tmp, path)
                self.write(b"OKAY" + struct.pack("<I", 0))
            elif rid == b"RECV":
                path = sandboxed(arg)
                if os.path.exists(path + ".aarch64"):
                    path += ".aarch64"
                try:
                    with open(path, "rb") as f:
                        data = f.read()
                except OSError as e:
                    fail("remote object '%s' does not exist" % arg
                         if e.errno == 2 else e.strerror)
                    continue
                for i in range(0, len(data), SYNC_DATA_MAX):
                    chunk = data[i:i + SYNC_DATA_MAX]
                    self.write(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
                self.write(b"DONE" + struct.pack("<I", 0))
            else:
                fail("unsupported sync request %r" % rid)
                return


def is_aarch64(path):
    with open(path, "rb") as f:
        hdr = f.read(20)
    return hdr[:4] == b"\x7fELF" and hdr[18:20] == b"\xb7\x00"


def kill_children(*_):
    with children_lock:
        for p in children:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
    os._exit(0)


def main():
    global opts
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sandbox", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--abi", default=None,
                    help="ro.product.cpu.abi (default: this host's)")
    ap.add_argument("--model", default="Fake big.LITTLE")
    ap.add_argument("--su-style", choices=("magisk", "aosp"), default="magisk")
    ap.add_argument("--qemu", metavar="QEMU-AARCH64",
                    help="run pushed aarch64 binaries through this, as "
                    "binfmt_misc would (a wrapper script takes the pushed "
                    "file's name; pull returns the pushed bytes)")
    opts = ap.parse_args()
    if not opts.abi:
        opts.abi = {"x86_64": "x86_64", "aarch64": "arm64-v8a"}.get(
            os.uname().machine, os.uname().machine)
    opts.sandbox = os.path.abspath(opts.sandbox)
    make_sandbox()
    signal.signal(signal.SIGTERM, kill_children)
    signal.signal(signal.SIGINT, kill_children)

    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", opts.port))
    ls.listen(8)
    print("listening %d" % ls.getsockname()[1], flush=True)
    while True:
        sock, _ = ls.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=Transport(sock).run, daemon=True).start()


if __name__ == "__main__":
    main()
