#!/usr/bin/env bash
# Boots Debian's arm64 6.1 kernel under QEMU (TCG) with a device tree whose
# CPUs have asymmetric capacities (capacity-dmips-mhz: 2 LITTLE at 446, 2
# big at 1024), so the guest's scheduler really is big.LITTLE, and runs the
# static arm64 schedtop inside with no topology override. Prints the guest's
# output between ===NAME=== markers on stdout; tests/integration/
# test_vm_arm64.py checks it.
#
#   tests/vm/arm64-biglittle.sh BINARY
#
# With a static arm64 ptyrun next to BINARY (make ARCH=arm64
# build-arm64/ptyrun), the live view also runs in a pty with TERM unset and
# no terminfo anywhere in the guest: only the entry built into schedtop.
#
# The kernel, busybox and device tree come from tests/vm/lib.sh (cached in
# /var/cache/schedtop-vm), as for the kernel matrix and scripts/biglittle-vm.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
VM_PROG=arm64-biglittle.sh # read by lib.sh
export VM_PROG
. "$here/lib.sh"

binary=$(realpath "$1")
SPEC=0-1:446,2-3:1024
vm_need qemu-system-aarch64 dtc cpio python3 dpkg-deb apt-get
kdir=$(vm_kernel 6.1)
dtb=$(vm_dtb "$SPEC")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
files=("$binary")
ptyrun=$(dirname "$binary")/ptyrun
[ -x "$ptyrun" ] && files+=("$ptyrun")
[ -n "${SCHEDTOP_VM_VERBOSE:-}" ] && echo -v >"$work/verbose" && files+=("$work/verbose")
cat >"$work/payload" <<'PAYLOAD'
V=$(cat /verbose 2>/dev/null)
echo ===KERNEL===
uname -r
echo ===CAPACITY===
cat /sys/devices/system/cpu/cpu*/cpu_capacity
echo ===TOPOLOGY===
/schedtop topology --csv
echo ===BUSY===
# Two CPU-bound tasks: the scheduler should keep them on the big CPUs.
# schedtop watches from a LITTLE one: on a big one it would queue behind
# one of them, which an idle LITTLE CPU may then pull for a few ticks.
md5sum /dev/zero &
md5sum /dev/zero &
sleep 2
taskset 1 /schedtop $V csv -t cluster -n 3 -i 500 2>&1 | tail -n 60
echo ===TASKS===
taskset 1 /schedtop csv -t task -n 2 -i 500 -c md5sum 2>&1
if [ -x /ptyrun ]; then
	echo ===TERMINFO===
	ls -d /etc/terminfo /lib/terminfo /usr/share/terminfo 2>/dev/null
	echo ===LIVE===
	env -u TERM /ptyrun -t 60 -e LITTLE -e big -- /schedtop -i 500
	echo "ptyrun status $?"
	echo ===TMP===
	ls -A /tmp
fi
echo ===END===
PAYLOAD
initrd=$(vm_initramfs "$work" "$work/payload" "${files[@]}")
vm_boot "$kdir/vmlinuz" "$dtb" "$initrd" "$(vm_ncpus "$SPEC")" 600
