"""scripts/biglittle-vm, the user tool: one boot, the guest's capacities.

It boots Debian's arm64 kernel (tests/vm/lib.sh, as the kernel matrix does)
on a machine built from the capacity spec; the guest's own sysfs must read
those capacities back, schedtop inside must find the clusters from them,
and the command's exit status must come back out.
"""
import os
import shutil
import subprocess

from harness import SRC, Skip, check, run, test

TOOL = os.path.join(SRC, "scripts", "biglittle-vm")


@test(root=True)
def guest_has_the_capacities_of_the_spec():
    missing = [t for t in ("aarch64-linux-gnu-gcc", "qemu-system-aarch64",
                           "dtc", "cpio") if not shutil.which(t)]
    if missing:
        raise Skip("not installed: %s (scripts/install-deps --arm64)"
                   % " ".join(missing))
    r = subprocess.run(["make", "-s", "-C", SRC, "ARCH=arm64", "all"],
                       capture_output=True, text=True)
    check(r.returncode == 0, "make ARCH=arm64 failed:\n" + r.stderr[-2000:])
    r = subprocess.run([TOOL, "-k", "6.1", "-c", "0-1:512,2:1024",
                        "cat /sys/devices/system/cpu/cpu*/cpu_capacity; "
                        "schedtop topology --csv; exit 3"],
                       capture_output=True, text=True, timeout=600)
    check(r.returncode == 3, "exit status %d, want the command's 3:\n%s"
          % (r.returncode, r.stderr[-2000:]))
    lines = r.stdout.splitlines()
    check(lines[:3] == ["512", "512", "1024"], "guest capacities: %s" % lines)
    check(lines[4:6] == ["0,LITTLE,0-1,512,,,", "1,big,2,1024,,,"],
          "schedtop's clusters in the guest: %s" % lines)


@test
def bad_spec_is_one_line_and_status_1():
    r = subprocess.run([TOOL, "-c", "0-3:446,5:1024", "true"],
                       capture_output=True, text=True)
    check(r.returncode == 1 and r.stdout == "" and
          r.stderr.count("\n") == 1 and "0..N-1" in r.stderr,
          "status %d, stderr %r" % (r.returncode, r.stderr))


if __name__ == "__main__":
    run()
