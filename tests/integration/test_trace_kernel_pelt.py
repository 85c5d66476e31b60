"""Traces whose kernel wrote its own PELT values as trace events: schedtop
shows those values (pelt_estimated 0), read by field name from each
variant's format, and estimates only what an event does not give.

Each trace is written by tests/tools/trace_dat_write.py: a task switched in
on CPU 0, then the kernel's event with known values at the very instant of
the first sample (so nothing is brought forward between them). Formats are
real kernels' format files where one exists (tests/fixtures/trace-formats,
its README says whence):
 - sched_switch: this machine's kernel (6.18), as its tracefs has it;
 - sched_load_avg_task / sched_load_avg_cpu: the EAS 4.x kernel of the
   Juno trace (ARM LISA), as that trace stores them.
The others no kernel here has, and no trace we hold stores: their formats
are written from the TRACE_EVENT()s that declare them (field names and
types; offsets as a 64-bit kernel lays them out):
 - sched_load_se / sched_load_cfs_rq: Android common kernel 4.19 (Qais
   Yousef's "sched: add a module to convert tp into events" names);
 - sched_pelt_se / sched_pelt_cfs: the same module's later names (5.x);
 - lisa__sched_pelt_se / lisa__sched_pelt_cfs: LISA's kernel module
   (lisa/_assets/kmodules/lisa/ftrace_events.h), runnable on 5.7+."""
import json
import os
import subprocess
import sys
import tempfile

from harness import SRC, check, parse_csv, run, schedtop, test

sys.path.insert(0, os.path.join(SRC, "tests", "tools"))
from trace_dat_write import format_text  # noqa: E402

WRITER = os.path.join(SRC, "tests", "tools", "trace_dat_write.py")
FORMATS = os.path.join(SRC, "tests", "fixtures", "trace-formats")


def real_format(kernel, event):
    """A real kernel's format file, byte for byte (see the README there)."""
    with open(os.path.join(FORMATS, kernel, event + ".format")) as f:
        return f.read()


SWITCH = real_format("linux-6.18", "sched_switch")

# (system, event, format, values) per variant; util 321, load 654 and,
# where the event has it, runnable 400 for the task; 210, 333, 222 the CPU.
TASK = {
    "sched_load_avg_task": ("sched", real_format("juno-4.x", "sched_load_avg_task"),
        dict(comm="kpelt", pid=100, cpu=0, load_avg=654, util_avg=321,
             util_est=300, load_sum=654 * 47000, util_sum=321 * 47000,
             period_contrib=500)),
    "sched_load_se": ("sched", format_text("sched_load_se", 1302, [
        ("int cpu", 8, 4, 1), ("char path[64]", 12, 64, 0),
        ("char comm[16]", 76, 16, 0), ("pid_t pid", 92, 4, 1),
        ("unsigned long load", 96, 8, 0), ("unsigned long rbl_load", 104, 8, 0),
        ("unsigned long util", 112, 8, 0)],
        '"cpu=%d path=%s comm=%s pid=%d load=%lu rbl_load=%lu util=%lu", '
        'REC->cpu, REC->path, REC->comm, REC->pid, REC->load, REC->rbl_load, '
        'REC->util'),
        dict(cpu=0, path="(null)", comm="kpelt", pid=100, load=654,
             rbl_load=999, util=321)),
    "sched_pelt_se": ("sched", format_text("sched_pelt_se", 1303, [
        ("int cpu", 8, 4, 1), ("char path[64]", 12, 64, 0),
        ("char comm[16]", 76, 16, 0), ("pid_t pid", 92, 4, 1),
        ("unsigned long load", 96, 8, 0), ("unsigned long runnable", 104, 8, 0),
        ("unsigned long util", 112, 8, 0)],
        '"cpu=%d path=%s comm=%s pid=%d load=%lu runnable=%lu util=%lu", '
        'REC->cpu, REC->path, REC->comm, REC->pid, REC->load, REC->runnable, '
        'REC->util'),
        dict(cpu=0, path="(null)", comm="kpelt", pid=100, load=654,
             runnable=400, util=321)),
    "lisa__sched_pelt_se": ("lisa", format_text("lisa__sched_pelt_se", 1304, [
        ("unsigned long long update_time", 8, 8, 0),
        ("unsigned long load", 16, 8, 0), ("unsigned long runnable", 24, 8, 0),
        ("unsigned long util", 32, 8, 0), ("int cpu", 40, 4, 1),
        ("int pid", 44, 4, 1), ("char path[64]", 48, 64, 0),
        ("char comm[16]", 112, 16, 0)],
        '"cpu=%d path=%s comm=%s pid=%d load=%lu runnable=%lu util=%lu '
        'update_time=%llu", REC->cpu, REC->path, REC->comm, REC->pid, '
        'REC->load, REC->runnable, REC->util, REC->update_time'),
        dict(update_time=5, load=654, runnable=400, util=321, cpu=0, pid=100,
             path="(null)", comm="kpelt")),
}
CPU = {
    "sched_load_avg_cpu": ("sched", real_format("juno-4.x", "sched_load_avg_cpu"),
        dict(cpu=0, load_avg=333, util_avg=210, util_est=200)),
    "sched_load_cfs_rq": ("sched", format_text("sched_load_cfs_rq", 1312, [
        ("int cpu", 8, 4, 1), ("char path[64]", 12, 64, 0),
        ("unsigned long load", 80, 8, 0), ("unsigned long rbl_load", 88, 8, 0),
        ("unsigned long util", 96, 8, 0)],
        '"cpu=%d path=%s load=%lu rbl_load=%lu util=%lu", REC->cpu, '
        'REC->path, REC->load, REC->rbl_load, REC->util'),
        dict(cpu=0, path="/", load=333, rbl_load=999, util=210)),
    "sched_pelt_cfs": ("sched", format_text("sched_pelt_cfs", 1313, [
        ("int cpu", 8, 4, 1), ("char path[64]", 12, 64, 0),
        ("unsigned long load", 80, 8, 0), ("unsigned long runnable", 88, 8, 0),
        ("unsigned long util", 96, 8, 0)],
        '"cpu=%d path=%s load=%lu runnable=%lu util=%lu", REC->cpu, '
        'REC->path, REC->load, REC->runnable, REC->util'),
        dict(cpu=0, path="/", load=333, runnable=222, util=210)),
    "lisa__sched_pelt_cfs": ("lisa", format_text("lisa__sched_pelt_cfs", 1314, [
        ("unsigned long long update_time", 8, 8, 0),
        ("unsigned long load", 16, 8, 0), ("unsigned long runnable", 24, 8, 0),
        ("unsigned long util", 32, 8, 0), ("int cpu", 40, 4, 1),
        ("char path[64]", 44, 64, 0)],
        '"cpu=%d path=%s load=%lu runnable=%lu util=%lu update_time=%llu", '
        'REC->cpu, REC->path, REC->load, REC->runnable, REC->util, '
        'REC->update_time'),
        dict(update_time=5, load=333, runnable=222, util=210, cpu=0, path="/")),
}
T0 = 10**12
SAMPLE = T0 + 10**7     # the first sample of -i 10


def write(d, formats, kernel_events):
    """A trace: pid 100 'kpelt' and pid 200 'other' run on CPU 0, the kernel
    events at the first sample's instant."""
    spec = {"formats": [["sched", SWITCH]] + formats, "events": [
        [0, T0, "sched_switch", dict(common_pid=0, prev_comm="swapper/0",
                                     prev_pid=0, prev_prio=120, prev_state=0,
                                     next_comm="other", next_pid=200, next_prio=120)],
        [0, T0 + 2 * 10**6, "sched_switch", dict(
            common_pid=200, prev_comm="other", prev_pid=200, prev_prio=120,
            prev_state=0x100, next_comm="kpelt", next_pid=100, next_prio=120)],
    ] + kernel_events + [
        [0, SAMPLE + 5 * 10**6, "sched_switch", dict(
            common_pid=100, prev_comm="kpelt", prev_pid=100, prev_prio=120,
            prev_state=1, next_comm="swapper/0", next_pid=0, next_prio=120)],
    ]}
    js, dat = os.path.join(d, "spec.json"), os.path.join(d, "t.dat")
    with open(js, "w") as f:
        json.dump(spec, f)
    r = subprocess.run(["python3", WRITER, js, dat], capture_output=True, text=True)
    check(r.returncode == 0, "trace_dat_write: %s" % r.stderr)
    return dat


def first_rows(dat, table):
    r = schedtop("csv", "--trace", dat, "-i", "10", "-n", "1", "-t", table)
    check(r.returncode == 0, "csv --trace: %s" % r.stderr)
    rows = parse_csv(r.stdout)
    check(rows and int(rows[0]["ts_ns"]) == SAMPLE, "first sample %s" %
          (rows[0]["ts_ns"] if rows else None))
    return rows


@test
def task_events_give_the_kernel_values():
    for name, (system, text, values) in TASK.items():
        with tempfile.TemporaryDirectory() as d:
            ev = [0, SAMPLE, name, dict(values, common_pid=100)]
            rows = {int(r["pid"]): r for r in
                    first_rows(write(d, [[system, text]], [ev]), "task")}
            plain = {int(r["pid"]): r for r in
                     first_rows(write(d, [[system, text]], []), "task")}
        k, o = rows[100], rows[200]
        check((k["util_avg"], k["load_avg"], k["pelt_estimated"]) ==
              ("321", "654", "0"), "%s: %s" % (name, k))
        if "runnable" in values:
            check(k["runnable_avg"] == "400", "%s: %s" % (name, k))
        else:
            # Not given (rbl_load is a load before 5.7): the engine's own,
            # as the trace without the kernel's event has it.
            check(k["runnable_avg"] == plain[100]["runnable_avg"] and
                  k["runnable_avg"] != "999", "%s: %s vs %s" %
                  (name, k["runnable_avg"], plain[100]["runnable_avg"]))
        # The other task has no kernel values: the engine's, marked so.
        check(o["pelt_estimated"] == "1" and o["util_avg"] == plain[200]["util_avg"],
              "%s: other task %s" % (name, o))
        check(plain[100]["pelt_estimated"] == "1" and
              plain[100]["util_avg"] != "321", "%s without the event: %s" %
              (name, plain[100]))


@test
def cfs_events_give_the_cpu_values():
    for name, (system, text, values) in CPU.items():
        with tempfile.TemporaryDirectory() as d:
            ev = [0, SAMPLE, name, dict(values, common_pid=100)]
            # A group's cfs_rq (path not "/") is not the CPU's.
            evs = [ev]
            if "path" in values:
                evs = [[0, SAMPLE - 1, name, dict(values, common_pid=100,
                                                  path="/app", util=999)], ev]
            row = first_rows(write(d, [[system, text]], evs), "cpu")[0]
        check((row["util_avg"], row["load_avg"], row["pelt_estimated"]) ==
              ("210", "333", "0"), "%s: %s" % (name, row))
        if "runnable" in values:
            check(row["runnable_avg"] == "222", "%s: %s" % (name, row))


if __name__ == "__main__":
    run()
