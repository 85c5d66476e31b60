"""The test machinery itself: tests/run, the harness and scripts/install-deps.

tests/run is run on stand-in test files in a temporary tree (a copy of
tests/run with the real harness beside it), so what it counts is known:

- a file that fails on its first run and would pass on a second fails the
  run: nothing is run again (a rerun hid regressions that show in half the
  runs, and a random fuzz crash the rerun missed);
- a test reported inconclusive is a skip, listed with its measured reason
  in the summary of a run that passes, and so is one that skips for want
  of a facility, under its own heading;
- with SCHEDTOP_OUT set (make OUT=dir check), the unit tests and the
  harness's binary are those of that directory, not build/.

test_terminfo, where no private mount namespace can be made (a chroot),
skips with unshare's own error (it failed for want of its raw output file).

And every command the integration tests run is installed, here, by a package
that scripts/install-deps brings (a listed one or one it depends on) or that
a minimal Debian root has (Essential or Priority required): a minbase root
has no procps, and test_tui's pgrep failed there.
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

from harness import SRC, Skip, check, run, test


def tree(files):
    """A temporary tree with tests/run, the harness and @files
    ({relative path: text}); its path."""
    top = tempfile.mkdtemp(prefix="schedtop-runner-")
    os.makedirs(os.path.join(top, "tests", "integration"))
    shutil.copy(os.path.join(SRC, "tests", "run"), os.path.join(top, "tests"))
    shutil.copy(os.path.join(SRC, "tests", "integration", "harness.py"),
                os.path.join(top, "tests", "integration"))
    for rel, text in files.items():
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    return top


def run_tree(top, *args, **env):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("SCHEDTOP_")}
    e["SCHEDTOP_OUT"] = os.path.join(top, "out")
    e.update(env)
    r = subprocess.run([os.path.join(top, "tests", "run"), *args], env=e,
                       capture_output=True, text=True, timeout=120)
    return r, (r.stdout.strip().splitlines() or [""])[-1]


FLIP = '''import os, sys
n = os.path.join(os.path.dirname(__file__), "runs")
k = int(open(n).read()) + 1 if os.path.exists(n) else 1
open(n, "w").write(str(k))
print("1..1")
print("ok 1 flip" if k > 1 else "not ok 1 flip: fails on its first run only")
sys.exit(0 if k > 1 else 1)
'''


@test
def failure_on_the_first_run_fails_the_run():
    top = tree({"tests/integration/test_flip.py": FLIP})
    try:
        r, last = run_tree(top)
        with open(os.path.join(top, "tests", "integration", "runs")) as f:
            runs = int(f.read())
        check(r.returncode != 0 and last == "0 passed, 1 failed, 0 skipped"
              and runs == 1,
              "a file failing on its first try: exit %d, ran %d times, "
              "summary %r:\n%s" % (r.returncode, runs, last, r.stdout))
    finally:
        shutil.rmtree(top)


INCONCLUSIVE = '''from harness import Inconclusive, Skip, run, test

@test
def decides():
    pass

@test
def cannot_decide():
    raise Inconclusive("cpu1 busy 37% beside the task (/proc/stat)")

@test
def needs_eas():
    raise Skip("no energy model (/sys/kernel/debug/energy_model absent)")

run()
'''


@test
def skips_are_listed_with_their_reasons_in_a_green_run():
    top = tree({"tests/integration/test_machine.py": INCONCLUSIVE})
    try:
        r, last = run_tree(top)
        out = r.stdout
        want = ("Inconclusive (skipped: the machine's measured state kept "
                "them from deciding):\n"
                "  integration/test_machine: 2 cannot_decide # SKIP "
                "inconclusive: cpu1 busy 37% beside the task (/proc/stat)")
        lacks = ("Skipped, with their reasons:\n"
                 "  integration/test_machine: 3 needs_eas # SKIP no energy "
                 "model (/sys/kernel/debug/energy_model absent)")
        check(r.returncode == 0 and last == "1 passed, 0 failed, 2 skipped"
              and want in out and lacks in out,
              "exit %d, summary %r, want the reasons listed (%r, %r):\n%s"
              % (r.returncode, last, want, lacks, out))
    finally:
        shutil.rmtree(top)


# Inconclusive on its first and third runs, and a test that passes.
SOMETIMES = '''import os
from harness import Inconclusive, run, test
n = os.path.join(os.path.dirname(__file__), "runs")
k = int(open(n).read()) + 1 if os.path.exists(n) else 1
open(n, "w").write(str(k))

@test
def steady():
    pass

@test
def sometimes():
    if k % 2:
        raise Inconclusive("run %d: cpu1 busy 20%% (/proc/stat)" % k)

run()
'''


@test
def repeat_counts_each_tests_outcomes():
    """tests/run --repeat N runs the selection N times and prints, per
    test, how often it passed, failed and was inconclusive; one that was
    inconclusive in more than 1 run of 10 is named, and the closing line
    stays the totals."""
    top = tree({"tests/integration/test_rep.py": SOMETIMES,
                "tests/integration/test_other.py": FLIP})
    try:
        r, last = run_tree(top, "--repeat", "3", "test_rep")
        out = r.stdout
        with open(os.path.join(top, "tests", "integration", "runs")) as f:
            runs = int(f.read())
        table = ("Per test over 3 runs (passed, failed, inconclusive, "
                 "skipped):\n"
                 "     3    0    0    0  integration/test_rep: steady\n"
                 "     1    0    2    0  integration/test_rep: sometimes\n")
        often = ("Inconclusive in more than 1 run of 10 (a defect to fix):\n"
                 "  integration/test_rep: sometimes\n")
        check(r.returncode == 0 and runs == 3 and
              last == "4 passed, 0 failed, 2 skipped" and table in out and
              often in out and out.count("=== run ") == 3,
              "exit %d, %d runs, summary %r; want the table %r and %r:\n%s"
              % (r.returncode, runs, last, table, often, out))
        r, _ = run_tree(top, "--repeat", "x")
        check(r.returncode == 2 and "--repeat" in r.stderr,
              "--repeat x: exit %d, %r" % (r.returncode, r.stderr))
    finally:
        shutil.rmtree(top)


OUT_UNIT = '''#!/bin/sh
echo 1..1
echo "ok 1 unit test of $(basename "$(dirname "$(dirname "$0")")")"
'''

OUT_HARNESS = '''import os
from harness import BIN, OUT, check, run, test

@test
def harness_points_at_out():
    want = os.environ["SCHEDTOP_OUT"]
    check(OUT == want and BIN == os.path.join(want, "schedtop"),
          "harness OUT %s, BIN %s; want %s" % (OUT, BIN, want))

run()
'''


@test
def out_dir_is_what_gets_tested():
    top = tree({"out/tests/test_unit_in_out": OUT_UNIT,
                "tests/integration/test_out.py": OUT_HARNESS})
    try:
        r, last = run_tree(top)
        check(r.returncode == 0 and last == "2 passed, 0 failed, 0 skipped"
              and "unit/test_unit_in_out" in r.stdout,
              "SCHEDTOP_OUT=%s/out: exit %d, summary %r:\n%s"
              % (top, r.returncode, last, r.stdout))
    finally:
        shutil.rmtree(top)
    # make OUT=dir check hands dir to tests/run (make -n: nothing is built).
    out = tempfile.mkdtemp(prefix="schedtop-out-")
    try:
        r = subprocess.run(["make", "-n", "-C", SRC, "OUT=" + out, "check"],
                           capture_output=True, text=True, timeout=120)
        line = [x for x in r.stdout.splitlines() if "tests/run" in x]
        check(len(line) == 1 and "SCHEDTOP_OUT=" + out in line[0] and
              "SCHEDTOP_BIN=" + out + "/schedtop" in line[0],
              "make -n OUT=%s check runs tests/run as: %s" % (out, line))
    finally:
        shutil.rmtree(out)


@test
def terminfo_tests_skip_without_a_private_mount_namespace():
    """In a chroot (a fresh root's make check) unshare -m fails: the host's
    terminfo cannot be hidden, and test_terminfo must skip with unshare's
    own words, not fail for want of its output file. A stand-in unshare
    fails as it does there (schedtop is never started)."""
    fake = tempfile.mkdtemp(prefix="schedtop-nounshare-")
    try:
        with open(os.path.join(fake, "unshare"), "w") as f:
            f.write("#!/bin/sh\necho 'unshare: cannot change root filesystem "
                    "propagation: Invalid argument' >&2\nexit 1\n")
        os.chmod(os.path.join(fake, "unshare"), 0o755)
        env = dict(os.environ, PATH=fake + ":" + os.environ["PATH"])
        r = subprocess.run([sys.executable, os.path.join(
            SRC, "tests", "integration", "test_terminfo.py")], env=env,
            capture_output=True, text=True, timeout=120)
        lines = [x for x in r.stdout.splitlines() if x.startswith(("ok", "not ok"))]
        check(r.returncode == 0 and len(lines) == 3 and all(
            "# SKIP no private mount namespace to hide terminfo in: unshare: "
            "cannot change root filesystem propagation" in x for x in lines),
            "test_terminfo without a private mount namespace: exit %d\n%s"
            % (r.returncode, "\n".join(lines) or r.stdout + r.stderr))
    finally:
        shutil.rmtree(fake)


def deps_packages():
    """The packages scripts/install-deps names (every list, --arm64's too)."""
    with open(os.path.join(SRC, "scripts", "install-deps")) as f:
        text = f.read()
    names = set()
    for m in re.finditer(r"^(?:\w+)\+?=\(([^)]*)\)", text, re.M):
        names.update(m.group(1).split())
    return names


def closure(pkgs):
    """@pkgs and every package they depend on (Depends, Pre-Depends)."""
    r = subprocess.run(["apt-cache", "depends", "--recurse", "--no-recommends",
                        "--no-suggests", "--no-conflicts", "--no-breaks",
                        "--no-replaces", "--no-enhances"] + sorted(pkgs),
                       capture_output=True, text=True)
    got = set(pkgs)
    for line in r.stdout.splitlines():
        m = re.match(r"\s*(?:\|?(?:Pre)?Depends: )?<?([^\s<>]+)>?$", line)
        if m:
            got.add(m.group(1))
    return {p.split(":")[0] for p in got}


def minbase(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Essential} ${Priority}", pkg],
                       capture_output=True, text=True)
    return r.stdout.split()[:1] == ["yes"] or "required" in r.stdout.split()


def owner(path):
    r = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
    lines = [x for x in r.stdout.splitlines() if not x.startswith("diversion ")]
    return lines[0].split(":")[0] if r.returncode == 0 and lines else None


def commands_of_tests():
    """The bare command names the integration tests run or look up."""
    found = set()
    for path in glob.glob(os.path.join(SRC, "tests", "integration", "*.py")):
        with open(path) as f:
            text = f.read()
        found.update(re.findall(r"\[\s*\"([a-z][a-z0-9_.+-]*)\"\s*,", text))
        found.update(re.findall(r"which\(\s*\"([a-z][a-z0-9_.+-]*)\"", text))
        for m in re.finditer(r"\bneed\(([^)]*)\)", text):
            found.update(re.findall(r"\"([a-z][a-z0-9_.+-]*)\"", m.group(1)))
    return found


@test
def every_command_the_tests_run_comes_with_install_deps():
    if not shutil.which("dpkg") or not shutil.which("apt-cache"):
        from harness import Skip
        raise Skip("not a Debian system (no dpkg, apt-cache)")
    brought = closure(deps_packages())
    bad, unowned, checked = [], [], 0
    for cmd in sorted(commands_of_tests()):
        path = shutil.which(cmd)
        if not path:
            continue            # not a command (a word in a list)
        # A merged /usr: dpkg knows /bin/sh, not /usr/bin/sh.
        pkg = (owner(path) or owner(os.path.realpath(path)) or
               owner(os.path.join("/usr/bin", cmd)) or
               owner(os.path.join("/bin", cmd)))
        if not pkg:
            unowned.append(cmd)
            continue
        checked += 1
        if pkg not in brought and not minbase(pkg):
            bad.append("%s (%s, from %s)" % (cmd, path, pkg))
    if unowned:
        print("# not from a Debian package here, not checked: %s"
              % " ".join(unowned))
    print("# %d commands checked against %d packages install-deps brings"
          % (checked, len(brought)))
    check(checked > 10 and not bad,
          "commands the tests run that neither scripts/install-deps nor a "
          "minimal root brings: %s" % ", ".join(bad))


OFFLINE_AND_WAIT = '''import os, sys, time
sys.path.insert(0, os.environ["HARNESS_DIR"])
from harness import run, test


@test(root=True)
def offline_and_wait():
    os.mkdir("/sys/kernel/tracing/instances/test-killed-%d" % os.getpid())
    with open("/sys/devices/system/cpu/cpu1/online", "w") as f:
        f.write("0")
    print("# offline", flush=True)
    time.sleep(60)


run()
'''


@test(root=True)
def a_killed_test_file_puts_the_machine_back():
    """SIGTERM to a test file (a CI job cancelled) ended Python with no
    finally clause run: cpu1 stayed offline and voided the next run. The
    harness now raises in the test under way and, whatever the test did
    not undo, brings CPUs back online and removes its tracefs instances."""
    if not os.path.exists("/sys/devices/system/cpu/cpu1/online"):
        raise Skip("cpu1 cannot be taken offline here")
    if not os.path.isdir("/sys/kernel/tracing/instances"):
        raise Skip("no tracefs at /sys/kernel/tracing")
    d = tempfile.mkdtemp(prefix="schedtop-killed-")
    path = os.path.join(d, "test_killed.py")
    with open(path, "w") as f:
        f.write(OFFLINE_AND_WAIT)
    env = {k: v for k, v in os.environ.items() if k != "SCHEDTOP_TESTS"}
    env["HARNESS_DIR"] = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.Popen([sys.executable, path], env=env, stdout=subprocess.PIPE,
                         text=True)
    try:
        for line in p.stdout:
            if line.startswith("# offline"):
                break
        check(p.poll() is None, "the stand-in test ended before it was killed")
        p.send_signal(signal.SIGTERM)
        out = p.stdout.read()
        rc = p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
        with open("/sys/devices/system/cpu/cpu1/online") as f:
            was = f.read().strip()
        if was != "1":
            with open("/sys/devices/system/cpu/cpu1/online", "w") as f:
                f.write("1")
        left = os.path.isdir("/sys/kernel/tracing/instances/test-killed-%d" % p.pid)
        if left:
            os.rmdir("/sys/kernel/tracing/instances/test-killed-%d" % p.pid)
        shutil.rmtree(d)
    check(was == "1", "cpu1 left offline by the killed test file: %r" % out)
    check(not left, "its tracefs instance left behind: %r" % out)
    check(rc == 1 and "not ok 1 offline_and_wait: terminated by SIGTERM" in out,
          "exit %d: %r" % (rc, out))


if __name__ == "__main__":
    run()
