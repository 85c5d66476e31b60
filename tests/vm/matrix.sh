#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One kernel of the matrix: boots Debian's arm64 kernel GEN (5.10, 6.1,
# 6.12, or a package or Image, see tests/vm/lib.sh) on the tri-cluster
# machine (CPUs 0-3 at 446, 4-5 at 871, 6-7 at 1024) with the static arm64
# schedtop and ktruth, runs tests/vm/matrix-payload.sh there and prints its
# sections. With GEN "host", runs the same payload on this machine instead.
#
#   tests/vm/matrix.sh GEN [BUILD_DIR]
#
# The kernel's config is printed first (===CONFIG===: the options that
# decide which signals it keeps). Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
VM_PROG=matrix.sh # read by lib.sh
export VM_PROG
. "$here/lib.sh"

gen=$1
out=${2:-$here/../../build-arm64}
SPEC=0-3:446,4-5:871,6-7:1024
config_opts='^CONFIG_(IRQ_TIME_ACCOUNTING|PARAVIRT_TIME_ACCOUNTING|SCHED_THERMAL_PRESSURE|SCHED_HW_PRESSURE|UCLAMP_TASK|HZ)='

if [ "$gen" = host ]; then
	out=${2:-$here/../../build}
	echo '===CONFIG==='
	if [ -r /proc/config.gz ]; then
		zcat /proc/config.gz | grep -E "$config_opts" || true
	elif [ -r "/boot/config-$(uname -r)" ]; then
		grep -E "$config_opts" "/boot/config-$(uname -r)" || true
	else
		echo unknown
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"; for f in /sys/devices/system/cpu/cpu*/online; do
		[ "$(cat "$f")" = 1 ] || echo 1 >"$f"; done' EXIT
	SCHEDTOP=$out/schedtop KTRUTH=$out/ktruth TMPDIR=$tmp sh "$here/matrix-payload.sh"
	exit
fi

vm_need qemu-system-aarch64 dtc cpio python3 dpkg-deb apt-get
for f in schedtop ktruth; do
	[ -x "$out/$f" ] || vm_die "no $out/$f: make ARCH=arm64 all build-arm64/ktruth"
done
kdir=$(vm_kernel "$gen")
dtb=$(vm_dtb "$SPEC")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo '===CONFIG==='
grep -E "$config_opts" "$kdir/config" || true
initrd=$(vm_initramfs "$work" "$here/matrix-payload.sh" "$out/schedtop" "$out/ktruth")
vm_boot "$kdir/vmlinuz" "$dtb" "$initrd" "$(vm_ncpus "$SPEC")" 600
