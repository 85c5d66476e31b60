# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The kernel matrix's workload: run by sh in an arm64 big.LITTLE guest
# (tests/vm/matrix.sh) or on this host (SCHEDTOP, KTRUTH and TMPDIR set).
# It prints sections between ===NAME=== lines; what schedtop wrote next to
# what the kernel itself said at nearly the same time (ktruth), for
# tests/integration/test_vm_matrix.py to compare. POSIX sh: busybox ash in
# the guest, dash on the host.
ST=${SCHEDTOP:-/schedtop}
KT=${KTRUTH:-/ktruth}
T=${TMPDIR:-/tmp}
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
last=$((ncpu - 1))
all=$(printf '%x' $(((1 << ncpu) - 1)))
if [ -r /sys/kernel/debug/sched/debug ]; then
	dbg=/sys/kernel/debug/sched/debug
else
	dbg=/proc/sched_debug
fi
# A: flat out on CPUs 0-1 (LITTLE in the guest: a misfit). B: flat out on
# one CPU (2, LITTLE in the guest), later allowed everywhere: its
# up-migration. P: runs 1 ms of every 4, forking nothing (a fork or exit
# steps a CPU's load; the comparison allows only PELT's drift). S: runs
# 30 ms of every 330, asleep most of the time, on a CPU of capacity 1024
# (7 in the guest): its PELT clock is the task clock, so the test can
# decay S's frozen PELT state to any instant exactly (P wakes more often
# than the reads come). S's period is not a multiple of the task samples'
# 200 ms: at 200 its wake kept one phase against them, and where that
# fell inside the reads around each sample (up to 90 ms apart under TCG)
# no sample found S asleep in both (6.1: 2 of 12 in one run of 8).
if [ "$ncpu" -ge 4 ]; then bcpu=2 pcpu=3 scpu=$last
else bcpu=$last pcpu=0 scpu=0; fi

echo '===KERNEL==='
uname -r
echo '===NCPU==='
echo "$ncpu"
echo '===CAPACITY==='
for c in $(seq 0 $last); do
	cat /sys/devices/system/cpu/cpu$c/cpu_capacity 2>/dev/null || echo
done
echo '===DEBUGFILE==='
echo "$dbg"

taskset 3 md5sum /dev/zero &
A=$!
taskset "$(printf '%x' $((1 << bcpu)))" md5sum /dev/zero &
B=$!
taskset "$(printf '%x' $((1 << pcpu)))" "$KT" --periodic 1000 4000 &
P=$!
taskset "$(printf '%x' $((1 << scpu)))" "$KT" --periodic 30000 330000 &
S=$!
echo '===PIDS==='
echo "$A $B $P $S"
# Long enough for a flat-out task's util_avg to get near 1024 (~0.3 s).
sleep 1

# run_csv NAME ARGS...: schedtop csv -o $T/NAME.csv in the background; then
# $T/NAME.csv.done exists and $T/NAME.rc holds its exit status.
run_csv() {
	name=$1
	shift
	rm -f "$T/$name.csv" "$T/$name.csv.done"
	( "$ST" csv -o "$T/$name.csv" "$@" 2>"$T/$name.err" &
	  echo $! >"$T/$name.pid"
	  wait $!
	  echo $? >"$T/$name.rc"; touch "$T/$name.csv.done" ) &
}

# stop_csv NAME: ends it as Ctrl-C would (status 0).
stop_csv() {
	kill -INT "$(cat "$T/$1.pid")"
}

# wait_samples NAME N: until NAME.csv has N samples' rows (or it ended).
wait_samples() {
	while [ ! -e "$T/$1.csv.done" ] &&
	      [ "$(cat "$T/$1.csv" 2>/dev/null | wc -l)" -le "$2" ]; do
		sleep 0.05
	done
}

show_csv() {
	while [ ! -e "$T/$1.csv.done" ]; do sleep 0.05; done
	echo "===$2CSV==="
	cat "$T/$1.csv"
	echo "===$2ERR==="
	grep -v '^libbpf: ' "$T/$1.err"
	echo "status $(cat "$T/$1.rc")"
}

# When each sample's walk began, by the kernel: schedtop makes the task
# iterator (bpf(BPF_ITER_CREATE), cmd 33) or runs the task table's scan
# (BPF_PROG_TEST_RUN, cmd 10) right before it reads the tasks,
# and stamps the sample at the walk's end. ktruth takes the read before a
# sample from before the walk began: a read that ended inside the walk
# could hold a state newer than the walk's (a tick between the two moved
# the host's B and P together, 348 against 376). Before that, schedtop
# asks its run time (clock_gettime(CLOCK_THREAD_CPUTIME_ID), clock 3),
# which updates the rq clock its PELT clock starts from: the earliest
# instant a pelt_age_ns can stand for (a TCG stall between the two put a
# 6.1 sleeper's 0.8 ms before a guessed walk start).
wwi=/sys/kernel/tracing/instances/matrix-walk-$$
walks=
if mkdir "$wwi" 2>/dev/null; then
	echo mono >"$wwi/trace_clock"
	if echo 'cmd == 33 || cmd == 10' >"$wwi/events/syscalls/sys_enter_bpf/filter" &&
	   echo 1 >"$wwi/events/syscalls/sys_enter_bpf/enable"; then
		walks=$wwi/trace
	fi
	if echo 'which_clock == 3' \
		>"$wwi/events/syscalls/sys_enter_clock_gettime/filter"; then
		echo 1 >"$wwi/events/syscalls/sys_enter_clock_gettime/enable"
	fi
fi 2>/dev/null
# -v: how schedtop reaches the runqueues (TASKERR), against whether
# kallsyms lists their per-CPU variables (KSYMS). libbpf's own lines are
# left out of what is shown.
run_csv task -v -t task -i 200 -n 12 -p "$A,$B,$P,$S"
# The status files: the affinity (Cpus_allowed_list, p->cpus_mask) that
# update_misfit_status() reads, as the kernel keeps it. The debug dump's
# head: its ktime and cpu_clk, the two clocks read together.
"$KT" ${walks:+--walks "$walks"} "$T/task.csv" /proc/$A/sched \
	/proc/$B/sched /proc/$P/sched /proc/$S/sched /proc/$A/status \
	/proc/$B/status /proc/$P/stat /proc/$S/stat "HEAD:$dbg" >"$T/task.truth"
if [ -d "$wwi" ]; then
	echo 0 >"$wwi/events/syscalls/sys_enter_bpf/enable" 2>/dev/null
	echo 0 >"$wwi/events/syscalls/sys_enter_clock_gettime/enable" 2>/dev/null
	rmdir "$wwi"
fi
show_csv task TASK
echo '===KSYMS==='
grep -c -E ' (runqueues|tick_cpu_sched)$' /proc/kallsyms
echo '===TASKTRUTH==='
cat "$T/task.truth"

# The kernel's own record of every task queued on a CPU or moved between
# two while the CPUs are sampled: a CPU no task was woken onto or moved to
# or from between two reads, with no switch in them, stood still.
wki=/sys/kernel/tracing/instances/matrix-wk-$$
if mkdir "$wki" 2>/dev/null; then
	echo mono >"$wki/trace_clock"
	echo 4096 >"$wki/buffer_size_kb"
	for e in sched_wakeup sched_wakeup_new sched_migrate_task; do
		echo 1 >"$wki/events/sched/$e/enable"
	done
fi
run_csv cpu -t cpu -i 200 -n 12
# A's own numbers too: what rq->misfit_task_load is made of (test_vm_matrix).
"$KT" "$T/cpu.csv" "$dbg" /proc/$A/sched /proc/$A/status >"$T/cpu.truth"
show_csv cpu CPU
echo '===CPUTRUTH==='
cat "$T/cpu.truth"
echo '===CPUWAKE==='
if [ -d "$wki" ]; then
	echo 0 >"$wki/tracing_on"
	cat "$wki/trace"
	for e in sched_wakeup sched_wakeup_new sched_migrate_task; do
		echo 0 >"$wki/events/sched/$e/enable"
	done
	rmdir "$wki"
fi

if [ "$ncpu" -ge 4 ]; then
	# A has shown its misfit; gone, it cannot be the misfit the balancer
	# picks (and fails to move: it is pinned) instead of B.
	kill $A
	wait $A 2>/dev/null
	# B has run on a LITTLE CPU only; now every CPU is allowed. Sampled
	# until the kernel has moved it (at most 10 s).
	run_csv up -t task -i 200 -n 80 -p "$B"
	run_csv mig -t migration -i 200 -n 80
	wait_samples up 1
	wait_samples mig 1
	echo '===UPBEFORE==='
	cut -d' ' -f39 /proc/$B/stat
	grep se.nr_migrations /proc/$B/sched
	taskset -p "$all" $B >/dev/null
	# Up to 10 s of the guest's time, without a fork per look.
	read -r t0 _ </proc/uptime
	t0=${t0%.*}
	while :; do
		read -r stat </proc/$B/stat
		# shellcheck disable=SC2086 # the fields of one stat line
		set -- $stat
		[ "${39}" -gt 3 ] && break
		read -r now _ </proc/uptime
		[ $((${now%.*} - t0)) -ge 10 ] && break
		sleep 0.1
	done
	# Where the kernel has it now; schedtop samples twice more, then stops.
	cut -d' ' -f39 /proc/$B/stat >"$T/up.after"
	grep se.nr_migrations /proc/$B/sched >>"$T/up.after"
	lines=$(cat "$T/up.csv" | wc -l)
	wait_samples up $((lines + 1))
	stop_csv up
	stop_csv mig
	show_csv up UP
	show_csv mig MIG
	echo '===UPAFTER==='
	cat "$T/up.after"
fi

# --pelt-trace: P's every update and its CPU's, for 1 s. Where the kernel
# has no pelt_*_tp (5.10) it must stop at once with one line saying so.
"$ST" csv -t pelt -p "$P" --pelt-cpus "$pcpu" -d 1 >"$T/pelt.csv" 2>"$T/pelt.err"
echo "status $?" >>"$T/pelt.err"
echo '===PELTCSV==='
cat "$T/pelt.csv"
echo '===PELTERR==='
cat "$T/pelt.err"
echo '===PELTCPU==='
echo "$pcpu"

# The last CPU goes offline and comes back while schedtop samples it: two
# samples before, two after.
run_csv hp -t cpu -i 200 -n 40
wait_samples hp $((ncpu * 2))
echo '===HOTPLUG==='
echo 0 >/sys/devices/system/cpu/cpu$last/online
echo "cpu$last online $(cat /sys/devices/system/cpu/cpu$last/online)"
sleep 0.5
echo 1 >/sys/devices/system/cpu/cpu$last/online
echo "cpu$last online $(cat /sys/devices/system/cpu/cpu$last/online)"
lines=$(cat "$T/hp.csv" | wc -l)
wait_samples hp $((lines + ncpu * 2))
stop_csv hp
show_csv hp HP

# What schedtop hotplug needs, as this kernel has it: a check of the one
# line it prints where something lacks (test_vm_matrix accepts that line
# only where the kernel really lacks it).
echo '===HPHAS==='
[ -d /sys/kernel/tracing/events/cpuhp ] && echo cpuhp yes || echo cpuhp no
[ -d /sys/kernel/tracing/instances ] && echo tracefs yes || echo tracefs no
[ -e /sys/devices/system/cpu/cpu$last/online ] && echo online yes || echo online no

# schedtop hotplug: the last CPU down and up three times, each operation
# timed per cpuhp state, while an instance of ours records the kernel's own
# cpuhp events ("mono": schedtop's clock) to compare.
hpi=/sys/kernel/tracing/instances/matrix-hp-$$
if mkdir "$hpi" 2>/dev/null; then
	echo mono >"$hpi/trace_clock"
	echo 1 >"$hpi/events/cpuhp/enable"
fi
"$ST" hotplug "$last" -n 3 --csv >"$T/hpcmd.csv" 2>"$T/hpcmd.err"
rc=$?
echo '===HPCMDCSV==='
cat "$T/hpcmd.csv"
echo '===HPCMDERR==='
cat "$T/hpcmd.err"
echo "status $rc"
echo "cpu$last online $(cat /sys/devices/system/cpu/cpu$last/online)"
echo '===HPTRACE==='
if [ -d "$hpi" ]; then
	echo 0 >"$hpi/events/cpuhp/enable"
	cat "$hpi/trace"
	rmdir "$hpi"
fi
echo '===HPSTATES==='
cat /sys/devices/system/cpu/hotplug/states

# A recording of the last CPU going down and up twice (csv --record, the
# BPF source: its cpuhp programs keep every step) and report's split of
# each operation per state, against two instances of ours: A, made before
# schedtop attached, and B, made after (its probe runs after schedtop's,
# so schedtop's stamp of every event lies between A's and B's: tight
# bounds, cpuhp_truth.lateness()).
hpa=/sys/kernel/tracing/instances/matrix-hpa-$$
hpb=/sys/kernel/tracing/instances/matrix-hpb-$$
if mkdir "$hpa" 2>/dev/null; then
	echo mono >"$hpa/trace_clock"
	echo 1 >"$hpa/events/cpuhp/enable"
fi
run_csv hprec -t cpu -i 200 --record "$T/hp.rec"
wait_samples hprec 1
if mkdir "$hpb" 2>/dev/null; then
	echo mono >"$hpb/trace_clock"
	echo 1 >"$hpb/events/cpuhp/enable"
fi
for i in 1 2; do
	echo 0 >/sys/devices/system/cpu/cpu$last/online
	sleep 0.2
	echo 1 >/sys/devices/system/cpu/cpu$last/online
	sleep 0.2
done
stop_csv hprec
while [ ! -e "$T/hprec.csv.done" ]; do sleep 0.05; done
echo '===HPRECERR==='
cat "$T/hprec.err"
echo "status $(cat "$T/hprec.rc")"
echo '===HPRECREPORT==='
"$ST" report "$T/hp.rec" 2>&1
for i in a b; do
	eval dir=\$hp$i
	echo "===HPREC$(echo $i | tr ab AB)==="
	if [ -d "$dir" ]; then
		echo 0 >"$dir/events/cpuhp/enable"
		cat "$dir/trace"
		rmdir "$dir"
	fi
done

kill $A $B $P $S 2>/dev/null
wait $A $B $P $S 2>/dev/null
echo '===DONE==='
