# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# An arm64 big.LITTLE machine on any host: Debian's arm64 kernels under
# qemu-system-aarch64 (TCG), with CPU capacities from the device tree
# (capacity-dmips-mhz, one cpu-map cluster per capacity), so the guest's
# scheduler really sees LITTLE and big CPUs (SD_ASYM_CPUCAPACITY, misfit,
# EAS-less up-migration). Sourced by the test guest (tests/vm/matrix.sh) and
# the user tool (scripts/biglittle-vm), so both boot the same machine.
#
#   vm_kernel GEN|PACKAGE|FILE   cache dir of a kernel: vmlinuz (+ config)
#   vm_busybox                   path of a static arm64 busybox
#   vm_dtb SPEC                  device tree for '0-3:446,4-5:871,6-7:1024'
#   vm_ncpus SPEC                number of CPUs in SPEC
#   vm_initramfs DIR PAYLOAD FILE...   DIR/initrd.gz running PAYLOAD (sh)
#   vm_boot KERNEL DTB INITRD NCPUS [TIMEOUT_S]
#                                the payload's output; its exit status
#                                ($VM_MEM MB of memory, default 1024)
#
# Everything downloaded is kept in $SCHEDTOP_VM_CACHE (default
# /var/cache/schedtop-vm as root, else ~/.cache/schedtop-vm): debs, extracted kernels, busybox, device trees and
# a private apt configuration. Packages come from the archive the system's
# own apt sources name, through that private configuration, which adds the
# other Debian suites (bullseye: 5.10, bookworm: 6.1, trixie: 6.12) without
# touching the system's sources.

if [ "$(id -u)" -eq 0 ]; then
	VM_CACHE=${SCHEDTOP_VM_CACHE:-/var/cache/schedtop-vm}
else
	VM_CACHE=${SCHEDTOP_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/schedtop-vm}
fi
VM_PROG=${VM_PROG:-${0##*/}}
VM_SUITES=(bullseye bookworm trixie)

vm_die() {
	echo "$VM_PROG: $*" >&2
	exit 1
}

vm_need() {
	local t missing=()
	for t in "$@"; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	[ ${#missing[@]} -eq 0 ] ||
		vm_die "not installed: ${missing[*]} (run scripts/install-deps --arm64)"
}

# The archive the system's apt already uses, not one written down here.
vm_mirror() {
	local m=
	if [ -r /etc/apt/sources.list.d/debian.sources ]; then
		m=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
	fi
	if [ -z "$m" ] && [ -r /etc/apt/sources.list ]; then
		m=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++)
			if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list)
	fi
	[ -n "$m" ] || vm_die "no Debian archive in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list"
	echo "$m"
}

# Sets VM_APT to the options that point apt-get and apt-cache at the
# private configuration.
vm_apt_init() {
	local d=$VM_CACHE/apt mirror s
	mirror=$(vm_mirror) || exit 1
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$VM_CACHE/debs" ||
		vm_die "cannot create $VM_CACHE (run as root or set SCHEDTOP_VM_CACHE)"
	for s in "${VM_SUITES[@]}"; do
		printf 'deb [arch=arm64 trusted=yes] %s %s main\n' "$mirror" "$s"
	done >"$d/sources.list.new"
	if ! cmp -s "$d/sources.list.new" "$d/sources.list"; then
		mv "$d/sources.list.new" "$d/sources.list"
		rm -f "$d"/lists/*Packages*
	else
		rm -f "$d/sources.list.new"
	fi
	VM_APT=(-o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts=-
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache"
		-o APT::Architectures::=arm64 -o APT::Sandbox::User=root
		-o Debug::NoLocking=1)
}

# Package lists are fetched once; vm_apt_update again picks up newer kernels.
vm_apt_update() {
	vm_apt_init
	echo "$VM_PROG: fetching the arm64 package lists of ${VM_SUITES[*]}" >&2
	apt-get "${VM_APT[@]}" update -qq >/dev/null && return 0
	echo "$VM_PROG: apt-get update of the private arm64 lists from $(vm_mirror) failed" >&2
	return 1
}

vm_apt_lists() {
	vm_apt_init
	ls "$VM_CACHE"/apt/lists/*Packages* >/dev/null 2>&1 || vm_apt_update ||
		vm_die "no arm64 package lists: check the network"
}

# vm_download PACKAGE: the deb's path in the cache.
vm_download() {
	local pkg=$1 f
	f=$(ls "$VM_CACHE/debs/${pkg}"_*_arm64.deb 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$f" ]; then
		vm_apt_lists
		echo "$VM_PROG: downloading $pkg:arm64" >&2
		(cd "$VM_CACHE/debs" && apt-get "${VM_APT[@]}" download -qq "$pkg:arm64" >/dev/null) ||
			vm_die "apt-get download $pkg:arm64 failed"
		f=$(ls "$VM_CACHE/debs/${pkg}"_*_arm64.deb | sort -V | tail -n 1)
	fi
	echo "$f"
}

# The package name pattern of one Debian kernel generation.
vm_kernel_regex() {
	case $1 in
	5.10) echo '^linux-image-5\.10\.0-[0-9]+-arm64$' ;;
	6.1) echo '^linux-image-6\.1\.0-[0-9]+-arm64$' ;;
	6.12) echo '^linux-image-6\.12\.[0-9.]+\+deb13-arm64$' ;;
	[0-9]*.[0-9]*)
		local v=${1//./\\.}
		echo "^linux-image-$v(\\.0-[0-9]+|\\.[0-9.]+\\+deb[0-9]+)-arm64\$" ;;
	*) return 1 ;;
	esac
}

# vm_kernel GEN|PACKAGE|FILE: a directory holding vmlinuz (and config if it
# came from a package). GEN (5.10, 6.1, 6.12) is the newest Debian kernel of
# that generation in the lists; a cached one is used when the lists cannot
# be had.
vm_kernel() {
	local want=$1 re pkg dir deb tmp
	if [ -f "$want" ]; then
		# Your own Image: used where it is, through a link in the cache.
		dir=$VM_CACHE/local-$(realpath "$want" | md5sum | cut -c1-12)
		mkdir -p "$dir" && ln -sfn "$(realpath "$want")" "$dir/vmlinuz" ||
			vm_die "cannot link $want into $VM_CACHE"
		echo "$dir"
		return
	fi
	case $want in
	linux-image-*) pkg=$want ;;
	*)
		re=$(vm_kernel_regex "$want") ||
			vm_die "unknown kernel '$want': give 5.10, 6.1, 6.12, a linux-image-*-arm64 package or an Image file"
		vm_apt_init
		if ls "$VM_CACHE"/apt/lists/*Packages* >/dev/null 2>&1 || vm_apt_update; then
			pkg=$(apt-cache "${VM_APT[@]}" search --names-only "$re" 2>/dev/null |
			      cut -d' ' -f1 | grep -Ev -- '-rt-|-16k-' | sort -V | tail -n 1)
		fi
		if [ -z "$pkg" ]; then
			# Offline: the newest kernel of that generation already here.
			pkg=$(ls -d "$VM_CACHE"/kernel-linux-image-* 2>/dev/null |
			      sed 's|.*/kernel-||' | grep -E "$re" | sort -V | tail -n 1)
		fi
		[ -n "$pkg" ] || vm_die "no Debian arm64 kernel of $want in the archive"
		;;
	esac
	dir=$VM_CACHE/kernel-$pkg
	if [ ! -s "$dir/vmlinuz" ]; then
		deb=$(vm_download "$pkg") || exit 1
		tmp=$(mktemp -d "$VM_CACHE/tmp.XXXXXX")
		# Debian's arm64 vmlinuz is a plain Image QEMU boots directly.
		dpkg-deb --fsys-tarfile "$deb" |
			tar -x -C "$tmp" --wildcards './boot/vmlinuz-*' './boot/config-*' ||
			vm_die "no kernel image in $deb"
		mkdir -p "$dir"
		mv "$tmp"/boot/config-* "$dir/config"
		mv "$tmp"/boot/vmlinuz-* "$dir/vmlinuz"
		rm -rf "$tmp"
	fi
	echo "$dir"
}

vm_busybox() {
	local bb=$VM_CACHE/busybox/busybox deb tmp
	if [ ! -x "$bb" ]; then
		deb=$(vm_download busybox-static) || exit 1
		tmp=$(mktemp -d "$VM_CACHE/tmp.XXXXXX")
		dpkg-deb -x "$deb" "$tmp" || vm_die "cannot unpack $deb"
		mkdir -p "${bb%/*}"
		# /bin before trixie's merged /usr, /usr/bin since; trixie's
		# deb also has an initramfs-tools config named busybox.
		mv "$(find "$tmp" -path '*/bin/busybox' -type f | head -n 1)" "$bb" ||
			vm_die "no busybox in $deb"
		[ -x "$bb" ] || vm_die "$deb: bin/busybox is not executable"
		rm -rf "$tmp"
	fi
	echo "$bb"
}

# vm_spec_cpus SPEC: 'CPU CLUSTER CAPACITY' lines for CPULIST:CAPACITY,...
# (CPUs 0..N-1, each exactly once), or the error on stderr.
vm_spec_cpus() {
	python3 - "$1" <<'PY'
import re, sys
spec = sys.argv[1]
cpus = {}
try:
    for k, part in enumerate(spec.split(",")):
        lst, _, cap = part.partition(":")
        if not re.fullmatch(r"\d+(-\d+)?(\+\d+(-\d+)?)*", lst) or \
                not cap.isdigit():
            raise ValueError("'%s' is not CPULIST:CAPACITY" % part)
        cap = int(cap)
        if not 0 < cap <= 1024:
            raise ValueError("capacity %d not in 1..1024" % cap)
        for r in lst.split("+"):
            a, _, b = r.partition("-")
            for c in range(int(a), int(b or a) + 1):
                if c in cpus:
                    raise ValueError("cpu %d given twice" % c)
                cpus[c] = (k, cap)
except ValueError as e:
    sys.exit("bad capacity spec '%s' (%s): want CPULIST:CAPACITY,... "
             "e.g. '0-3:446,4-5:871,6-7:1024'" % (spec, e))
n = max(cpus) + 1
if sorted(cpus) != list(range(n)):
    sys.exit("bad capacity spec '%s': CPUs must be 0..N-1, each once" % spec)
if n > 8:
    sys.exit("bad capacity spec '%s': at most 8 CPUs (QEMU virt, GICv2)" % spec)
for c in range(n):
    print(c, *cpus[c])
PY
}

vm_ncpus() {
	local lines
	lines=$(vm_spec_cpus "$1" 2>&1) || vm_die "$lines"
	echo "$lines" | wc -l
}

# vm_dtb SPEC: QEMU virt's own device tree, with capacity-dmips-mhz on each
# CPU and one cpu-map cluster per SPEC entry instead of QEMU's single
# socket. The kernel scales capacities so that the largest is 1024.
vm_dtb() {
	local spec=$1 key dir n map
	map=$(vm_spec_cpus "$spec" 2>&1) || vm_die "$map"
	n=$(echo "$map" | wc -l)
	key=$(echo "$spec" | sed 's/:/@/g; s/,/_/g')
	dir=$VM_CACHE/dtb-$key
	if [ ! -s "$dir/bl.dtb" ]; then
		mkdir -p "$dir"
		qemu-system-aarch64 -machine virt,dumpdtb="$dir/virt.dtb" -accel tcg \
			-cpu cortex-a57 -smp "$n" -m 1024 -nographic -nic none \
			>/dev/null 2>&1 || vm_die "qemu-system-aarch64 could not dump its device tree"
		dtc -q -I dtb -O dts -o "$dir/virt.dts" "$dir/virt.dtb" ||
			vm_die "dtc failed on $dir/virt.dtb"
		python3 - "$dir/virt.dts" "$dir/bl.dts" "$map" <<'PY' ||
import re, sys
src, dst = sys.argv[1], sys.argv[2]
cpus = {}
for line in sys.argv[3].splitlines():
    c, cl, cap = map(int, line.split())
    cpus[c] = (cl, cap)
dts = open(src).read()
phandle = {}
for c, (cl, cap) in cpus.items():
    m = re.search(r"(\n(\s*)cpu@%d \{\n)(.*?)\n\2\};" % c, dts, re.S)
    if not m:
        sys.exit("no cpu@%d node in QEMU's device tree" % c)
    ph = re.search(r"phandle = <(0x[0-9a-f]+)>;", m.group(3))
    phandle[c] = ph.group(1)
    dts = dts.replace(m.group(1), m.group(1) +
                      "%s\tcapacity-dmips-mhz = <%d>;\n" % (m.group(2), cap), 1)
start = dts.index("cpu-map {")
depth = 0
for i in range(start, len(dts)):
    if dts[i] == "{":
        depth += 1
    elif dts[i] == "}":
        depth -= 1
        if depth == 0:
            break
end = dts.index(";", i) + 1
ind = "\t\t\t"
out = "cpu-map {\n"
for cl in sorted({cl for cl, _ in cpus.values()}):
    out += "%scluster%d {\n" % (ind, cl)
    for k, c in enumerate(sorted(c for c in cpus if cpus[c][0] == cl)):
        out += "%s\tcore%d {\n%s\t\tcpu = <%s>;\n%s\t};\n" % (
            ind, k, ind, phandle[c], ind)
    out += "%s};\n" % ind
out += "\t\t};"
open(dst, "w").write(dts[:start] + out + dts[end:])
PY
			vm_die "cannot rewrite QEMU's device tree for '$spec'"
		# Warnings about QEMU's clock and gpio nodes are not ours.
		dtc -q -I dts -O dtb -o "$dir/bl.dtb.new" "$dir/bl.dts" 2>/dev/null ||
			vm_die "dtc could not compile $dir/bl.dts"
		mv "$dir/bl.dtb.new" "$dir/bl.dtb"
	fi
	echo "$dir/bl.dtb"
}

# vm_initramfs DIR PAYLOAD [FILE...]: DIR/initrd.gz, a busybox root with
# FILEs in / and an /init that mounts what schedtop and the payload read,
# runs PAYLOAD with sh between markers and powers off. Prints the path.
vm_initramfs() {
	local dir=$1 payload=$2 bb f root
	shift 2
	bb=$(vm_busybox) || exit 1
	root=$dir/root
	rm -rf "$root"
	mkdir -p "$root"/bin "$root"/proc "$root"/sys "$root"/dev "$root"/tmp "$root"/run
	cp "$bb" "$root/bin/busybox"
	for f in "$@"; do
		cp "$f" "$root/" || vm_die "cannot copy $f into the guest"
	done
	cp "$payload" "$root/payload"
	cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
# As on any system: schedtop hotplug and emulate keep their state files there.
mount -t tmpfs run /run
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
echo ===VM-BEGIN===
cd /tmp && sh /payload
echo "===VM-END=== $?"
poweroff -f
INIT
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$dir/initrd.gz" ||
		vm_die "cannot pack the initramfs"
	rm -rf "$root"
	echo "$dir/initrd.gz"
}

# vm_boot KERNEL_IMAGE DTB INITRD NCPUS [TIMEOUT_S]: boots, prints what the
# payload printed (between the markers, without the console's \r) and
# returns the payload's exit status; a guest that does not reach the end
# marker fails with the console's last lines on stderr.
vm_boot() {
	local kernel=$1 dtb=$2 initrd=$3 n=$4 timeout=${5:-600} log rc
	log=$(mktemp)
	# -nic none: otherwise QEMU wants efi-virtio.rom, which a
	# --no-install-recommends install does not have.
	# oops=panic: a guest kernel that oopses ends there, its oops last on
	# the console, instead of hanging until the timeout (6.12, make check:
	# a kworker's NULL dereference in pick_task_fair() left a CPU dead
	# with interrupts off and the next BPF load waiting on it for 600 s).
	# "|| true": under pipefail a timeout would end the caller here.
	timeout "$timeout" qemu-system-aarch64 -machine virt -accel tcg \
		-cpu cortex-a57 -smp "$n" -m "${VM_MEM:-1024}" -nographic -nic none \
		-no-reboot -kernel "$kernel" -initrd "$initrd" -dtb "$dtb" \
		-append "console=ttyAMA0 rdinit=/init loglevel=4 panic=-1 oops=panic" \
		</dev/null 2>&1 | tr -d '\r' >"$log" || true
	rc=$(sed -n 's/^===VM-END=== \([0-9]*\)$/\1/p' "$log" | tail -n 1)
	if [ -z "$rc" ]; then
		# panic=-1 with -no-reboot: a guest that panics (no init) ends
		# at once instead of hanging until the timeout.
		echo "$VM_PROG: the guest did not finish (it panicked, or ran past ${timeout}s); its console ended with:" >&2
		tail -n 60 "$log" >&2
		rm -f "$log"
		return 125
	fi
	sed -n '/^===VM-BEGIN===$/,/^===VM-END=== /{/^===VM-/d;p}' "$log"
	rm -f "$log"
	return "$rc"
}
