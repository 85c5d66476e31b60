"""The static arm64 build, under qemu-user and on a real big.LITTLE kernel.

The guest (tests/vm/arm64-biglittle.sh) is Debian's arm64 6.1 kernel under
QEMU with asymmetric CPU capacities from the device tree: its scheduler sees
2 LITTLE CPUs (capacity 446) and 2 big ones (1024). schedtop runs there with
no --topology, with BPF, on an older kernel than the host's, which is what
proves the CO-RE shims in bpf/core_fixes.bpf.h.
"""
import os
import shutil
import subprocess

from harness import (SRC, Inconclusive, Skip, check, guest_kernel_crash,
                     parse_csv, run, test)

ARM_BIN = os.path.join(SRC, "build-arm64", "schedtop")
FIXTURES = os.path.join(SRC, "tests", "fixtures", "sysfs")


def need(*tools):
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        raise Skip("not installed: %s (scripts/install-deps --arm64)"
                   % " ".join(missing))


def build():
    need("aarch64-linux-gnu-gcc")
    r = subprocess.run(["make", "-s", "-C", SRC, "ARCH=arm64", "all",
                        "build-arm64/ptyrun"], capture_output=True, text=True)
    check(r.returncode == 0, "make ARCH=arm64 failed:\n" + r.stderr[-2000:])


def sections(out):
    """The guest's output as {MARKER: [lines]}."""
    res, cur = {}, None
    for line in out.splitlines():
        if line.startswith("===") and line.endswith("==="):
            cur = line.strip("=")
            res[cur] = []
        elif cur:
            res[cur].append(line)
    return res


@test
def static_binary_under_qemu_user():
    build()
    need("qemu-aarch64-static", "aarch64-linux-gnu-strip", "aarch64-linux-gnu-readelf")
    r = subprocess.run(["qemu-aarch64-static", ARM_BIN, "--version"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout.startswith("schedtop "), r.stderr)
    r = subprocess.run(["qemu-aarch64-static", ARM_BIN, "topology", "--csv",
                        "--sysfs-root", os.path.join(FIXTURES, "phone-4+3+1")],
                       capture_output=True)
    check(r.stdout == b"cluster,name,cpus,capacity,policy,freq_min_khz,"
          b"freq_max_khz\r\n0,LITTLE,0-3,325,policy0,307200,1785600\r\n"
          b"1,big,4-6,828,policy4,633600,2496000\r\n"
          b"2,prime,7,1024,policy7,787200,2995200\r\n", "topology: %r" % r.stdout)
    # Static: no program interpreter, nothing to install on a phone.
    hdr = subprocess.run(["aarch64-linux-gnu-readelf", "-l", ARM_BIN],
                         capture_output=True, text=True).stdout
    check("INTERP" not in hdr, "the arm64 binary is dynamically linked")
    stripped = ARM_BIN + ".stripped"
    subprocess.run(["aarch64-linux-gnu-strip", "-o", stripped, ARM_BIN], check=True)
    size = os.path.getsize(stripped)
    os.unlink(stripped)
    print("# static arm64 schedtop, stripped: %d bytes" % size)
    check(size <= 3 * 1024 * 1024, "stripped binary %d bytes > 3 MB" % size)


@test(root=True)
def biglittle_guest_sees_clusters_and_busy_tasks_on_big():
    build()
    need("qemu-system-aarch64", "dtc", "cpio")
    r = subprocess.run([os.path.join(SRC, "tests", "vm", "arm64-biglittle.sh"),
                        ARM_BIN], capture_output=True, text=True, timeout=900)
    crash = r.returncode != 0 and guest_kernel_crash(r.stderr)
    if crash:
        raise Inconclusive("the guest's kernel crashed in its own code, with "
                           "no BPF program in the trace: %s" % crash)
    check(r.returncode == 0, "guest script failed:\n" + r.stderr[-2000:])
    s = sections(r.stdout)
    check("END" in s, "guest did not finish:\n" + r.stdout[-3000:])
    print("# guest kernel %s" % s["KERNEL"][0])
    check(s["KERNEL"][0].startswith("6.1."), "guest kernel %s" % s["KERNEL"])
    check(s["CAPACITY"] == ["446", "446", "1024", "1024"],
          "guest capacities %s" % s["CAPACITY"])
    # Detected from cpu_capacity, no override.
    check(s["TOPOLOGY"] == ["cluster,name,cpus,capacity,policy,freq_min_khz,"
                            "freq_max_khz", "0,LITTLE,0-1,446,,,",
                            "1,big,2-3,1024,,,"], "topology %s" % s["TOPOLOGY"])
    rows = parse_csv("\r\n".join(s["BUSY"]) + "\r\n")
    check(len(rows) == 6, "cluster rows: %s" % s["BUSY"])
    for row in rows:
        if row["cluster"] == "big":
            check(float(row["util_pct"]) > 80, "big cluster util %s with two "
                  "CPU-bound tasks" % row["util_pct"])
            check(row["capacity"] == "2048" and row["nr_online"] == "2", str(row))
        else:
            check(row["capacity"] == "892", str(row))
    tasks = parse_csv("\r\n".join(s["TASKS"]) + "\r\n")
    check(len(tasks) >= 4, "md5sum rows: %s" % s["TASKS"])
    for t in tasks:
        check(t["cluster"] == "big" and t["cpu"] in ("2", "3"),
              "busy task not on big: %s" % t)
        check(int(t["util_avg"]) > 900, "busy task util %s" % t["util_avg"])
        check(float(t["cpu_pct"]) > 80, "busy task %%CPU %s" % t["cpu_pct"])
    # The live view in a pty, TERM unset, no terminfo database in the guest:
    # it draws both clusters with the description built into schedtop, quits
    # on 'q' with status 0, gives the terminal back, and leaves no private
    # terminfo directory behind.
    check(s["TERMINFO"] == [], "the guest has terminfo: %s" % s["TERMINFO"])
    live = s["LIVE"]
    for line in ("ptyrun: found 'LITTLE'", "ptyrun: found 'big'",
                 "ptyrun: exit status 0", "ptyrun: terminal restored",
                 "ptyrun status 0"):
        check(line in live, "live view in the guest: %s missing from\n%s" %
              (line, "\n".join(live)))
    check(not [f for f in s["TMP"] if f.startswith("schedtop-terminfo")],
          "private terminfo left in /tmp: %s" % s["TMP"])


if __name__ == "__main__":
    run()
