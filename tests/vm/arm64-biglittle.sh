#!/usr/bin/env bash
# Boots Debian's arm64 kernel under QEMU (TCG) with a device tree whose CPUs
# have asymmetric capacities (capacity-dmips-mhz: 2 LITTLE at 446, 2 big at
# 1024), so the guest's scheduler really is big.LITTLE, and runs the static
# arm64 schedtop inside with no topology override. Prints the guest's output
# between ===NAME=== markers on stdout; tests/integration/test_vm_arm64.py
# checks it.
#
#   tests/vm/arm64-biglittle.sh BINARY [WORKDIR]
#
# With a static arm64 ptyrun next to BINARY (make ARCH=arm64
# build-arm64/ptyrun), the live view also runs in a pty with TERM unset and
# no terminfo anywhere in the guest: only the entry built into schedtop.
#
# Downloads the kernel and busybox from Debian's archive (apt-get download,
# arm64 architecture enabled) into WORKDIR, once.
set -euo pipefail

binary=$(realpath "$1")
work=${2:-$(dirname "$binary")/vm}
mkdir -p "$work"
cd "$work"

fetch() {
	local pkg=$1
	ls ./"${pkg%%:*}"_*.deb >/dev/null 2>&1 && return 0
	apt-get download -q "$pkg" >/dev/null
}

if [ ! -e vmlinuz ]; then
	kpkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-arm64$' |
	       cut -d' ' -f1 | sort -V | tail -n 1)
	[ -n "$kpkg" ] || { echo "no linux-image-6.1.0-*-arm64 in the archive" >&2; exit 1; }
	fetch "$kpkg:arm64"
	dpkg-deb --fsys-tarfile ./linux-image-*_arm64.deb |
		tar -x --wildcards './boot/vmlinuz-*'
	mv boot/vmlinuz-* vmlinuz
	rm -rf boot
fi

if [ ! -x bb/bin/busybox ]; then
	fetch busybox-static:arm64
	dpkg-deb -x ./busybox-static_*_arm64.deb bb
fi

# The virt machine's device tree, with one cpu-map cluster per capacity.
if [ ! -e bl.dtb ]; then
	qemu-system-aarch64 -machine virt,dumpdtb=virt.dtb -accel tcg \
		-cpu cortex-a57 -smp 4 -m 1024 -nographic -nic none >/dev/null 2>&1
	dtc -q -I dtb -O dts -o virt.dts virt.dtb
	python3 - <<'PY'
import re
dts = open("virt.dts").read()
caps = {0: 446, 1: 446, 2: 1024, 3: 1024}
for cpu, cap in caps.items():
    dts = re.sub(r"(cpu@%d \{\n)" % cpu,
                 r"\g<1>\t\t\tcapacity-dmips-mhz = <%d>;\n" % cap, dts, count=1)
start = dts.index("cpu-map {")
depth, i = 0, start
while True:
    if dts[i] == "{":
        depth += 1
    elif dts[i] == "}":
        depth -= 1
        if depth == 0:
            break
    i += 1
end = dts.index(";", i) + 1
phandles = {}
for cpu in caps:
    m = re.search(r"cpu@%d \{.*?phandle = <(0x[0-9a-f]+)>;" % cpu, dts, re.S)
    phandles[cpu] = m.group(1)
cmap = "cpu-map {\n"
for cl, cpus in enumerate(([0, 1], [2, 3])):
    cmap += "\t\t\tcluster%d {\n" % cl
    for k, cpu in enumerate(cpus):
        cmap += "\t\t\t\tcore%d {\n\t\t\t\t\tcpu = <%s>;\n\t\t\t\t};\n" % (k, phandles[cpu])
    cmap += "\t\t\t};\n"
cmap += "\t\t};"
open("bl.dts", "w").write(dts[:start] + cmap + dts[end:])
PY
	dtc -q -I dts -O dtb -o bl.dtb bl.dts 2>/dev/null
fi

rm -rf root
mkdir -p root/bin root/proc root/sys root/dev root/tmp
cp bb/bin/busybox root/bin/busybox
cp "$binary" root/schedtop
ptyrun=$(dirname "$binary")/ptyrun
[ -x "$ptyrun" ] && cp "$ptyrun" root/ptyrun
[ -n "${SCHEDTOP_VM_VERBOSE:-}" ] && echo -v >root/verbose
cat >root/init <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
V=$(cat /verbose 2>/dev/null)
echo ===KERNEL===
uname -r
echo ===CAPACITY===
cat /sys/devices/system/cpu/cpu*/cpu_capacity
echo ===TOPOLOGY===
/schedtop topology --csv
echo ===BUSY===
# Two CPU-bound tasks: the scheduler should keep them on the big CPUs.
md5sum /dev/zero &
md5sum /dev/zero &
sleep 2
/schedtop $V csv -t cluster -n 3 -i 500 2>&1 | tail -n 60
echo ===TASKS===
/schedtop csv -t task -n 2 -i 500 -c md5sum 2>&1
if [ -x /ptyrun ]; then
	mkdir -p /dev/pts
	mount -t devpts devpts /dev/pts
	echo ===TERMINFO===
	ls -d /etc/terminfo /lib/terminfo /usr/share/terminfo 2>/dev/null
	echo ===LIVE===
	env -u TERM /ptyrun -t 60 -e LITTLE -e big -- /schedtop -i 500
	echo "ptyrun status $?"
	echo ===TMP===
	ls -A /tmp
fi
echo ===END===
poweroff -f
INIT
chmod +x root/init
(cd root && find . | cpio -o -H newc 2>/dev/null | gzip -1) >initrd.gz

timeout 600 qemu-system-aarch64 -machine virt -accel tcg -cpu cortex-a57 \
	-smp 4 -m 1024 -nographic -nic none -no-reboot \
	-kernel vmlinuz -initrd initrd.gz -dtb bl.dtb \
	-append "console=ttyAMA0 rdinit=/init loglevel=4" </dev/null |
	tr -d '\r' | sed -n '/===KERNEL===/,/===END===/p'
