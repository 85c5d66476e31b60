"""The live view on a machine with no terminfo database, as on a phone.

A private mount namespace (unshare -m) lays empty directories over this
host's terminfo directories, so the system's ncurses finds nothing, as a
static ncurses finds nothing on Android; the rest of the machine is
untouched. schedtop then runs in a pty (OUT/ptyrun, build/ by default) with TERM set to an
entry it carries, unset, and unknown.
"""
import os
import re
import shutil
import subprocess
import tempfile

from harness import BIN, OUT, SRC, make_in_out, Skip, check, run, test

PTYRUN = os.path.join(OUT, "ptyrun")
TOPO = "LITTLE:0@512,big:1@1024"
DIRS = ["/etc/terminfo", "/lib/terminfo", "/usr/lib/terminfo",
        "/usr/share/terminfo"]


def colours(screen):
    """Whether any SGR sequence sets a foreground or background colour."""
    for params in re.findall(rb"\x1b\[([0-9;]*)m", screen):
        for p in params.split(b";"):
            if p and (30 <= int(p) <= 48 or 90 <= int(p) <= 107):
                return True
    return False


def live_without_terminfo(term):
    """The raw output of schedtop's live view, once ptyrun says it drew
    both clusters, exited 0 and restored the terminal."""
    if not shutil.which("unshare"):
        raise Skip("no unshare (util-linux)")
    # unshare -m makes every mount private first; where / is no mount point
    # of its own (a chroot) the kernel refuses, and without a private
    # namespace the host's terminfo cannot be hidden.
    r = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if r.returncode != 0:
        raise Skip("no private mount namespace to hide terminfo in: %s" %
                   " ".join(r.stderr.decode(errors="replace").split()))
    r = make_in_out("ptyrun")
    check(r.returncode == 0, "make ptyrun: %s" % r.stderr.decode())
    empty = tempfile.mkdtemp(prefix="schedtop-noterminfo-")
    tmp = tempfile.mkdtemp(prefix="schedtop-tmp-")
    hide = "".join("[ -d %s ] && mount --bind %s %s; " % (d, empty, d)
                   for d in DIRS)
    raw = os.path.join(tmp, "..", os.path.basename(tmp) + ".raw")
    script = (hide + "find %s -mindepth 1 | wc -l; exec %s -o %s -t 30 "
              "-e LITTLE -e big -- %s --topology %s" % (" ".join(
                  d for d in DIRS if os.path.isdir(d)), PTYRUN, raw, BIN, TOPO))
    env = {k: v for k, v in os.environ.items()
           if k not in ("TERM", "TERMINFO", "TERMINFO_DIRS")}
    env.update(TMPDIR=tmp, LANG="C.UTF-8")
    if term is not None:
        env["TERM"] = term
    try:
        r = subprocess.run(["unshare", "-m", "sh", "-c", script], env=env,
                           capture_output=True, timeout=60)
        left = os.listdir(tmp)
        with open(raw, "rb") as f:
            screen = f.read()
    finally:
        if os.path.exists(raw):
            os.unlink(raw)
        shutil.rmtree(tmp, ignore_errors=True)
        os.rmdir(empty)
    out = r.stdout.decode(errors="replace")
    check(out.split("\n", 1)[0].strip() == "0",
          "terminfo still visible in the namespace: %r" % out[:200])
    for line in ("ptyrun: found 'LITTLE'", "ptyrun: found 'big'",
                 "ptyrun: exit status 0", "ptyrun: terminal restored"):
        check(line in out, "TERM=%s: %s missing:\n%s" % (term, line, out[-3000:]))
    check(r.returncode == 0, "ptyrun exit %d" % r.returncode)
    check(left == [], "private terminfo left in TMPDIR: %s" % left)
    return screen


@test(root=True)
def carried_xterm_256color_gives_colours():
    out = live_without_terminfo("xterm-256color")
    check(colours(out), "no colour sequences with "
          "TERM=xterm-256color: the built-in entry was not used")


@test(root=True)
def unset_term_is_vt100_without_colours():
    out = live_without_terminfo(None)
    check(not colours(out),
          "colour sequences on a VT100")


@test(root=True)
def unknown_term_is_vt100():
    out = live_without_terminfo("schedtop-no-such-terminal")
    check(not colours(out),
          "colour sequences on a VT100")


if __name__ == "__main__":
    run()
