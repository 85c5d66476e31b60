"""schedtop workload and the energy estimate, against independent truths.

Run and wait times of the workload's threads come from the kernel's own
account (/proc/PID/task/TID/schedstat), read while they run; a CPU kept busy
must cost its OPP's power as the fixture model file states it; a SCHED_FIFO
hog must make the workload miss, and the same workload without it must not.
"""
import csv
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time

import harness
from harness import (SRC, Inconclusive, Skip, check, cpufreq_policy, cpulist,
                     mono_ns, online_cpus, parse_csv, read_sys, rq_clock_skips_ns,
                     run, schedtop, start_schedtop, steal_ns, test)
from timer_truth import TimerTrace, timer_behind

EM = os.path.join(SRC, "tests/fixtures/energy/two-cluster.em")
TOPO = "LITTLE:0@1024,big:1@1024"
BIG_TOP_MW = 2304.0     # big's highest OPP in two-cluster.em
CALIB = tempfile.NamedTemporaryFile(prefix="schedtop-calib-", delete=False).name
os.unlink(CALIB)


def busy_loop(cpu, fifo=False):
    """A shell busy loop pinned to @cpu, SCHED_FIFO 50 with @fifo."""
    cmd = ["taskset", "-c", str(cpu)]
    if fifo:
        cmd += ["chrt", "-f", "50"]
    return subprocess.Popen(cmd + ["sh", "-c", "while :; do :; done"])


def stop(p):
    p.kill()
    p.wait()


def cpu_busy_ns(cpu):
    """@cpu's time neither idle nor stolen, a running count (harness's)."""
    Offline.check()
    return harness.cpu_busy_ns(cpu)


def cpu1_online():
    try:
        with open("/sys/devices/system/cpu/cpu1/online") as f:
            return f.read().strip() == "1"
    except OSError:
        return True     # no online file: cpu1 cannot be taken offline


class Offline:
    """Whether cpu1 went offline at any look (another engineer's hotplug
    test): then what ran on it says nothing about schedtop."""
    seen = False

    @classmethod
    def look(cls):
        if not cpu1_online():
            cls.seen = True

    @classmethod
    def check(cls):
        if cls.seen or not cpu1_online():
            cls.seen = False
            raise Inconclusive("cpu1 was taken offline by another process meanwhile")


def thread_tids(pid, comm):
    out = []
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                    if f.read().strip() == comm:
                        out.append(int(tid))
            except OSError:
                pass
    except OSError:
        pass
    return out


def read_schedstat(pid, tid):
    with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
        run_ns, wait_ns, _ = f.read().split()
    return int(run_ns), int(wait_ns)


@test
def list_names_the_four():
    r = schedtop("workload", "--list")
    check(r.returncode == 0, r.stderr)
    out = r.stdout.decode()
    for name in ("audio", "video", "browse", "camera"):
        check(("\n" + name + " ") in "\n" + out, "%s missing from --list" % name)
    check("audio-tick" in out and "page load, every response within 500 ms" in out, out)
    r = schedtop("workload", "nosuch")
    check(r.returncode == 2 and b"unknown workload 'nosuch'" in r.stderr, r.stderr)
    check(len(r.stderr.decode().splitlines()) == 2, r.stderr)


@test
def energy_prints_the_model():
    r = schedtop("energy", "--energy-model", EM, "--topology", TOPO)
    check(r.returncode == 0, r.stderr)
    out = r.stdout.decode()
    check(out.startswith("energy model: " + EM), out)
    # 1000 MHz on a 2304 MHz, 1024-capacity cluster: performance 444.
    check("   1000000    280.000          444" in out, out)
    with tempfile.NamedTemporaryFile("w", suffix=".em") as f:
        f.write("big 1000000 280\nbig fast 3\n")
        f.flush()
        r = schedtop("energy", "--energy-model", f.name)
        check(r.returncode == 2, r.returncode)
        check(r.stderr.decode() == "schedtop: %s:2: not an OPP: write CLUSTER KHZ MW or CLUSTER idle MW\n" % f.name,
              r.stderr)
    with tempfile.NamedTemporaryFile("w", suffix=".em") as f:
        f.write("prime 1000000 280\n")
        f.flush()
        r = schedtop("energy", "--energy-model", f.name, "--topology", TOPO)
        check(r.returncode == 1 and b"names a cluster that the topology lacks" in r.stderr,
              r.stderr)


def run_workload(name, seconds, *extra, watch=()):
    """Runs a workload with --json; reads the schedstat of each thread
    named in @watch (comms) every 10 ms. Returns (summary, activations
    file, {comm: [(t_ns, run_ns, wait_ns)]}); run_workload.allowed is the
    first watched thread's CPU list, .slack {comm: timer slack ns},
    .steal_ns the time the hypervisor
    took from every CPU meanwhile, .exit_ns when the process was seen gone."""
    acts = tempfile.NamedTemporaryFile(prefix="schedtop-acts-", suffix=".csv",
                                       delete=False).name
    steal0 = sum(steal_ns(c) for c in online_cpus())
    p = start_schedtop("workload", name, "-d", str(seconds), "--json",
                       "--topology", TOPO, "--energy-model", EM,
                       "--calibration", CALIB, "--activations", acts, *extra)
    reads = {comm: [] for comm in watch}
    tids = {}
    slack = {}
    allowed = None
    while p.poll() is None and watch:
        Offline.look()
        for comm in watch:
            if comm not in tids:
                t = thread_tids(p.pid, comm)
                if t:
                    tids[comm] = t[0]
        if watch[0] in tids and allowed is None:
            try:
                with open("/proc/%d/task/%d/status" % (p.pid, tids[watch[0]])) as f:
                    allowed = [l.split()[1] for l in f
                               if l.startswith("Cpus_allowed_list:")][0]
            except (OSError, IndexError):
                pass
        for comm, tid in tids.items():
            if comm not in slack:
                try:
                    with open("/proc/%d/timerslack_ns" % tid) as f:
                        slack[comm] = int(f.read())
                except (OSError, ValueError):
                    pass
            try:
                t0 = mono_ns()
                run_ns, wait_ns = read_schedstat(p.pid, tid)
                reads[comm].append((t0, run_ns, wait_ns))
            except (OSError, ValueError):
                pass
        time.sleep(0.01)
    out, err = p.communicate(timeout=120)
    run_workload.exit_ns = mono_ns()
    run_workload.steal_ns = sum(steal_ns(c) for c in online_cpus()) - steal0
    Offline.check()
    check(p.returncode == 0, err)
    run_workload.allowed = allowed
    # The timer slack each thread's sleeps had (none at SCHED_FIFO).
    run_workload.slack = slack
    return json.loads(out), acts, reads


def read_activations(path):
    """The --activations CSV as dicts with ints (None for an empty field)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    os.unlink(path)
    for a in rows:
        for k in ("tid", "release_ns", "start_ns", "end_ns", "deadline_ns"):
            a[k] = int(a[k]) if a[k] else None
        a["dropped"] = a["dropped"] == "1"
    return rows


def kernel_hz():
    """CONFIG_HZ: a running thread's schedstat run time is brought up to
    date at the tick (or a switch), so it lags by up to one tick."""
    try:
        import gzip
        with gzip.open("/proc/config.gz", "rt") as f:
            for line in f:
                if line.startswith("CONFIG_HZ="):
                    return int(line.split("=")[1])
    except OSError:
        pass
    return 100      # the lowest common HZ: the widest lag


# What the kernel counts for a thread outside its activations' [release,
# end]: after each end the thread reads the clock, keeps the activation
# (a mutex), loops and enters clock_nanosleep; measured here 9-25 us, so
# 50 us each. Before the first activation: thread start, its name and
# policy, the first sleep: under 0.5 ms.
BOOKKEEPING_NS = 50e3
STARTUP_NS = 0.5e6
# A sleep longer than this wakes to look at the stop flag (workload_run.c).
STOP_POLL_NS = 50e6
# From a release to the kernel queueing the thread, nothing is counted:
# the timer's slack (read per thread below) and the wakeup itself, an
# interrupt and, when the other CPU is idle, an IPI to a halted vCPU.
# Measured here 70-90 us per activation idle and up to 0.5 ms with another
# session's build on both CPUs (autogroups share the CPUs by session, not
# by nice): 1 ms.
WAKEUP_NS = 1e6


def check_against_schedstat(s, acts, comm, reads, span_excluded=(), lock_wait=False):
    """The workload's account of thread @comm against the kernel's: the
    last schedstat read @reads[-1] (run, wait) against the activations
    done by then, and the thread's reported CPU time at its end against the
    same read plus what ran after it. Activations of the constraints in
    @span_excluded (browse's page load: its end is the last helper's, the
    thread sleeps in between) bound nothing from below. With @lock_wait
    (browse's helpers) the response has no upper bound: after the
    broadcast that releases a load, a helper takes the load's mutex, and
    while a holder is preempted it sleeps on it, counted neither as run
    nor as wait (8-13 ms in all seen with two busy loops on the machine).
    Returns the numbers for the report."""
    th = [t for t in s["threads"] if t["comm"] == comm]
    check(len(th) == 1, (comm, s["threads"]))
    tid, cpu_ns = th[0]["tid"], th[0]["cpu_ns"]
    mine = [a for a in acts if a["tid"] == tid]
    check(mine, "no activation of %s (tid %d) in the CSV" % (comm, tid))
    check(len(reads) > 20, "only %d schedstat reads of %s" % (len(reads), comm))
    t_read, run_ns, wait_ns = reads[-1]
    slack_ns = run_workload.slack[comm]
    first = min(a["release_ns"] for a in mine)
    ran = [a for a in mine if not a["dropped"] and a["end_ns"]]
    done = [a for a in ran if a["end_ns"] <= t_read]
    after = [a for a in ran if a["end_ns"] > t_read]
    check(done, "no activation of %s done by the last read" % comm)
    tight = [a for a in done if a["constraint"] not in span_excluded]
    n = len(done)
    work = sum(a["end_ns"] - a["start_ns"] for a in done)
    work_tight = sum(a["end_ns"] - a["start_ns"] for a in tight)
    resp = sum(a["end_ns"] - a["release_ns"] for a in done)
    resp_tight = sum(a["end_ns"] - a["release_ns"] for a in tight)
    # The activation under way at the read: the kernel has counted part
    # of it, at most the time since its release (or since the last end,
    # before the next release).
    under_way = [a for a in mine if not a["dropped"] and a["release_ns"] < t_read
                 and (a["end_ns"] is None or a["end_ns"] > t_read)]
    partial = t_read - max([a["release_ns"] for a in under_way] +
                           [a["end_ns"] for a in done])
    tick = 1e9 / kernel_hz()
    # Sleeps longer than STOP_POLL_NS (browse's reading) wake to poll.
    polls = (t_read - first) / STOP_POLL_NS
    outside = STARTUP_NS + (n + polls) * BOOKKEEPING_NS + partial
    steal = run_workload.steal_ns
    # Run time. Within [start, end] the thread runs or waits runnable
    # (the work never sleeps), so the kernel's run + wait covers the work,
    # less what the hypervisor stole while it ran (not run time under
    # CONFIG_PARAVIRT_TIME_ACCOUNTING) and a tick of lag.
    check(run_ns + wait_ns + steal + tick >= work_tight,
          "%s: work %d ns, but schedstat ran %d and waited %d" %
          (comm, work_tight, run_ns, wait_ns))
    # ... and it ran no more than the work plus its bookkeeping.
    check(run_ns <= work + outside,
          "%s: schedstat ran %d ns, the activations' work is %d (+%d outside)"
          % (comm, run_ns, work, outside))
    # Response = end - release: the kernel's run + wait from the wakeup
    # on, plus the timer's slack and the wakeup not counted ...
    check(lock_wait or
          resp_tight <= run_ns + wait_ns + len(tight) * (slack_ns + WAKEUP_NS) + steal + tick,
          "%s: responses sum to %d ns, run + wait %d: %.0f us each beyond" %
          (comm, resp_tight, run_ns + wait_ns,
           (resp_tight - run_ns - wait_ns) / 1e3 / len(tight)))
    # ... and the kernel's run time all falls in some [release, end] but
    # for the bookkeeping between them. Not its wait: a thread preempted
    # in that bookkeeping waits outside (6.4 ms more than the responses
    # for video-render, with 1.1 s waited in a 4 s run next to others).
    check(resp >= run_ns - outside,
          "%s: responses sum to %d ns, less than run %d (-%d outside)" %
          (comm, resp, run_ns, outside))
    # The CPU time reported for the thread (its own clock at its end): at
    # least the kernel's run time at the read, and at most that plus what
    # ran after it: the rest of the activations, their bookkeeping, the
    # polls until the process was gone, a tick of lag.
    later = sum(a["end_ns"] - max(a["start_ns"], t_read) for a in after)
    polls_after = (run_workload.exit_ns - t_read) / STOP_POLL_NS + 1
    # A pass the stop cut short is in no row: one whose timer comes after
    # its work is then due at the timer's next expiry, past the stop, and
    # only what was released before the stop is listed (keep_pass(),
    # schedstat_workload_activations()). Its work ran after the thread's
    # last listed end: no longer than the wall time to the exit, nor than
    # a whole pass (the built-ins' runs are within +-10% of the file's, so
    # 1.25 times the longest pass listed; CI: camera-process's cpu_ns 4.3
    # ms past what the rows allowed, its passes ~10 ms).
    last_end = max([a["end_ns"] for a in ran] + [t_read])
    longest = max(a["end_ns"] - a["start_ns"] for a in ran)
    cut = max(0, min(run_workload.exit_ns - last_end, 1.25 * longest))
    allowed = (later + cut + (len(after) + 2 + polls_after) * BOOKKEEPING_NS + partial +
               tick)
    check(run_ns <= cpu_ns <= run_ns + allowed,
          "%s: reported cpu_ns %d, schedstat ran %d at the read, %d allowed after "
          "(after the read: %d ns of listed work, %d to the exit from the last end, "
          "%d partial)" % (comm, cpu_ns, run_ns, allowed, later, cut, partial))
    return {"comm": comm, "n": n, "work_ms": work / 1e6, "run_ms": run_ns / 1e6,
            "wait_ms": wait_ns / 1e6, "resp_ms": resp / 1e6,
            "cpu_ms": cpu_ns / 1e6}


def nearest_rank(v, p):
    """The smallest value with p% of @v at or below it."""
    v = sorted(v)
    return v[max(1, -(-len(v) * p // 100)) - 1]


def check_judgement(s, acts):
    """Each constraint's met, counts and responses as the summary reports
    them, against the --activations timestamps judged here: the run ends
    at its last sample (end_ns); an activation released by then counts if
    it was done by then or due by then, and is missed if it was dropped,
    not done by then, or ended past its deadline."""
    to = s["end_ns"]
    check(min(a["release_ns"] for a in acts) < to < run_workload.exit_ns,
          "end_ns %d outside the run" % to)
    met_all = True
    for c in s["constraints"]:
        judged, missed, resp = 0, 0, []
        for a in acts:
            if a["constraint"] != c["name"] or a["release_ns"] >= to:
                continue
            done = (not a["dropped"] and a["end_ns"] is not None and
                    a["end_ns"] <= to)
            if not done and a["deadline_ns"] > to:
                continue
            judged += 1
            if not done or a["end_ns"] > a["deadline_ns"]:
                missed += 1
            if done:
                resp.append((a["end_ns"] - a["release_ns"]) / 1e6)
        check(c["activations"] == judged and c["late"] + c["dropped"] == missed,
              "%s: %d judged, %d missed from the activations; reported %s"
              % (c["name"], judged, missed, c))
        if c["kind"] == "miss_ratio":
            met = judged > 0 and missed / judged <= c["limit"]
        else:
            # A response limit: the deadline is release + limit.
            met = judged > 0 and missed == 0 and max(resp) <= c["limit"]
        check(c["met"] is met, "%s: met %s from the activations, reported %s"
              % (c["name"], met, c))
        met_all = met_all and met
        # --json prints 15 significant digits.
        for key, p in (("p50", 50), ("p95", 95), ("p99", 99), ("max", 100)):
            want = nearest_rank(resp, p) if resp else 0
            got = c["response_ms"][key]
            check(abs(got - want) <= 1e-5 * want + 1e-6,
                  "%s: response %s %s ms, the activations give %s" % (c["name"], key, got, want))
    check(s["met"] is met_all, "met %s from the activations, reported %s" % (met_all, s["met"]))
    check((s["figure_of_merit"] >= 1e6) is not met_all, s)


def misses(acts):
    """The activations missed: dropped, or ended after their deadline."""
    return [a for a in acts if a["dropped"] or
            (a["end_ns"] and a["end_ns"] > a["deadline_ns"])]


def show_misses(acts, reads, timers=()):
    """Print each missed activation with the kernel's run and wait time of
    its thread (/proc/<tid>/schedstat) read around it: a wait that grew by
    the delay says the thread was runnable and kept off its CPU; no growth,
    that it woke late. With the thread's @timers (timer_truth), also when
    the timer it slept on was due and when it fired."""
    for a in misses(acts):
        nxt = next((b for b in acts if b["release_ns"] > a["release_ns"] and
                    b["start_ns"]), None)
        print("# missed: release %d, %s; next start %s ms after this release"
              % (a["release_ns"], "dropped" if a["dropped"] else
                 "ended %.3f ms after its deadline" %
                 ((a["end_ns"] - a["deadline_ns"]) / 1e6),
                 "%.3f" % ((nxt["start_ns"] - a["release_ns"]) / 1e6)
                 if nxt else "-"))
        t = timer_behind(timers, a["release_ns"])
        if t:
            print("#   its timer: armed %+.3f ms, due %+.3f ms, fired %s%s" %
                  ((t[2] - a["release_ns"]) / 1e6, (t[0] - a["release_ns"]) / 1e6,
                   "%+.3f ms" % ((t[1] - a["release_ns"]) / 1e6)
                   if t[1] else "never", " on an idle CPU" if t[3] else ""))
        near = [r for r in reads if abs(r[0] - a["release_ns"]) < 30e6]
        for r0, r1 in zip(near, near[1:]):
            print("#   %+.1f..%+.1f ms: ran %.3f ms, waited %.3f ms" %
                  ((r0[0] - a["release_ns"]) / 1e6,
                   (r1[0] - a["release_ns"]) / 1e6, (r1[1] - r0[1]) / 1e6,
                   (r1[2] - r0[2]) / 1e6))


def woke_too_late(a, timers, work_ns):
    """The timer that alone made @a miss: the last one its thread slept on
    before @a's release, armed before it was due and due by the release,
    run on an idle CPU (halted: a vCPU the host woke late, not code here
    with interrupts off) so late that the work could not end by the
    deadline. A timer due at an earlier release that fired past this one's
    counts too: the thread slept through both. Else None: the miss is the
    scheduler's, or schedtop's."""
    t = timer_behind(timers, a["release_ns"])
    if (not t or t[1] is None or t[2] > t[0] or not t[3] or
            t[1] + work_ns <= a["deadline_ns"]):
        return None
    return t


# audio-tick: 0.3 ms of work due 4 ms after its release. To miss, it must
# be kept off its CPU for the other 3.7 ms.
AUDIO_SLACK_NS = 3.7e6
AUDIO_WORK_NS = 0.3e6


@test(root=True)
def audio_met_and_times_match_schedstat():
    skip0 = rq_clock_skips_ns()
    with TimerTrace("audio-tick") as tt:
        s, acts_path, reads = run_workload("audio", 4, watch=("audio-tick",))
        timers, lost = tt.timers()
    skip1 = rq_clock_skips_ns()
    reads = reads["audio-tick"]
    acts = read_activations(acts_path)
    # What the hypervisor took from the CPUs the thread may run on: the
    # one thing at a higher priority than it on an idle machine.
    cpus = (cpulist(run_workload.allowed) if run_workload.allowed
            else online_cpus())
    skipped = sum(skip1.get(c, 0) - skip0.get(c, 0) for c in cpus)
    c = s["constraints"][0]
    print("# audio-tick: %d late, %d dropped of %d; cpus %s lost %.3f ms to "
          "the hypervisor" % (c["late"], c["dropped"], c["activations"],
                              run_workload.allowed, skipped / 1e6))
    if not s["met"]:
        show_misses(acts, reads, timers)
    if not s["met"] and skipped >= (c["late"] + c["dropped"]) * AUDIO_SLACK_NS:
        raise Inconclusive("audio-tick missed %d activations; the hypervisor "
                           "took %.1f ms of cpus %s meanwhile (rq clock less "
                           "clock_task), 3.7 ms a miss" %
                           (c["late"] + c["dropped"], skipped / 1e6,
                            run_workload.allowed))
    # A timer interrupt handled late (a halted vCPU the host woke late:
    # no steal is counted for it) wakes the thread too late to make its
    # deadline. Those misses are the machine's; the rest must stay within
    # the constraint's 0.1%.
    missed = misses(acts)
    late = [woke_too_late(a, timers, AUDIO_WORK_NS) for a in missed]
    explained = sum(1 for t in late if t)
    late = sorted(set(t for t in late if t))
    if (not s["met"] and not lost and late and
            len(missed) - explained <= c["limit"] * c["activations"]):
        raise Inconclusive("audio-tick missed %d activations; %d of them "
                           "because the timer it slept on fired late (%s ms): "
                           "the machine handled the timer interrupt late (the "
                           "kernel's hrtimer_start and hrtimer_expire_entry)"
                           % (len(missed), explained,
                              ", ".join("%.1f" % ((t[1] - t[0]) / 1e6) for t in late)))
    check(s["workload"] == "audio" and s["met"] is True, s)
    # The kernel's timers: one due at each release, and no activation
    # started before the timer it slept on fired.
    check(not lost, "the timer trace lost events")
    asked = [timer_behind(timers, a["release_ns"]) for a in acts]
    at_release = [t for a, t in zip(acts, asked)
                  if t and t[0] == a["release_ns"] and t[1]]
    check(len(at_release) >= 0.99 * len(acts),
          "%d of %d releases had a timer due at them that fired"
          % (len(at_release), len(acts)))
    early = [(a["start_ns"], t[1]) for a, t in zip(acts, asked)
             if a["start_ns"] and t and t[0] == a["release_ns"] and t[1] and
             a["start_ns"] < t[1]]
    check(not early, "activations started before their timer fired: %s" % early[:5])
    # Done when: met, and the figure of merit is the average power.
    check(s["figure_of_merit"] == s["avg_power_mw"], s)
    check(abs(s["energy_mj"] / s["duration_s"] - s["avg_power_mw"]) < 0.01 * s["avg_power_mw"], s)
    c = s["constraints"][0]
    check(c["name"] == "audio-tick deadline" and c["limit"] == 0.001, c)
    # 4 s of 4 ms periods.
    check(abs(c["activations"] - 1000) <= 10, c)
    check(len(reads) > 50, "only %d schedstat reads" % len(reads))
    tid = s["threads"][0]["tid"]
    check(all(a["tid"] == tid for a in acts), "an activation of another tid")
    # The last read: every activation ended by then, against the kernel's
    # run and wait time of that thread by then.
    t_read, run_ns, wait_ns = reads[-1]
    done = [a for a in acts if not a["dropped"] and a["end_ns"] and a["end_ns"] <= t_read]
    ran = sum(a["end_ns"] - a["start_ns"] for a in done)
    woke = sum(a["start_ns"] - a["release_ns"] for a in done)
    # Work at SCHED_FIFO is not preempted: its wall time is run time. The
    # kernel also charges the thread for going to sleep and waking (timer,
    # syscalls) between activations: at most 50 us each, on this VM ~20.
    # The activation under way at the read adds up to 0.35 ms either way.
    # Time stolen while it worked is in the activations' wall time only.
    check(run_ns >= ran - 0.35e6 - skipped,
          "activations ran %d ns, more than schedstat's %d (%.3f ms stolen)"
          % (ran, run_ns, skipped / 1e6))
    check(run_ns - ran <= len(done) * 50e3 + 0.35e6,
          "schedstat's %d ns run exceeds the activations' %d by %.0f ns each"
          % (run_ns, ran, (run_ns - ran) / len(done)))
    # Start - release is the timer's latency plus the run delay the kernel
    # counts (wait_ns): not less, and at most 0.3 ms more per activation.
    check(woke >= wait_ns - 1e6, "woke %d < wait %d" % (woke, wait_ns))
    check((woke - wait_ns) / len(done) < 300e3,
          "%.0f ns per activation between release and start beyond the run delay"
          % ((woke - wait_ns) / len(done)))
    # Its CPU time as the thread measured it, against the kernel's.
    check(abs(s["threads"][0]["cpu_ns"] - run_ns) <= 0.03 * run_ns + 2e6,
          (s["threads"][0]["cpu_ns"], run_ns))
    check_judgement(s, acts)


MAIN_THREADS = {
    "video": ("video-decode", "video-render"),
    "camera": ("camera-preview", "camera-process"),
    "browse": ("browse-render", "browse-load1", "browse-load2"),
}


def times_match_schedstat(name, seconds):
    s, acts_path, reads = run_workload(name, seconds, watch=MAIN_THREADS[name])
    acts = read_activations(acts_path)
    check(s["workload"] == name, s)
    got = []
    for comm in MAIN_THREADS[name]:
        got.append(check_against_schedstat(
            s, acts, comm, reads[comm],
            span_excluded=("page load",) if comm == "browse-render" else (),
            lock_wait=comm.startswith("browse-load")))
    check_judgement(s, acts)
    print("# " + "; ".join("%(comm)s n %(n)d work %(work_ms).1f run %(run_ms).1f "
                          "wait %(wait_ms).1f resp %(resp_ms).1f cpu %(cpu_ms).1f ms" % g
                          for g in got))
    return s, acts


@test(root=True)
def video_times_match_schedstat():
    times_match_schedstat("video", 4)


@test(root=True)
def camera_times_match_schedstat():
    times_match_schedstat("camera", 4)


@test(root=True)
def browse_times_match_schedstat():
    times_match_schedstat("browse", 5)


@test(root=True)
def ctrl_c_ends_with_the_summary():
    p = start_schedtop("workload", "audio", "-d", "60", "--json",
                       "--topology", TOPO, "--energy-model", EM,
                       "--calibration", CALIB)
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    check(p.returncode == 0, err)
    s = json.loads(out)
    # Ended by the signal, about 2 s of samples in (the first at 1 s).
    check(1 <= s["duration_s"] <= 3.5, s["duration_s"])
    c = s["constraints"][0]
    check(abs(c["activations"] - s["duration_s"] / 0.004) <= 0.05 * c["activations"] + 30, c)
    check(s["threads"][0]["cpu_ns"] > 0, s["threads"])


def run_per_activation(acts, reads, comm):
    """The kernel's run time of @comm per activation done, at the last
    read that found it between activations (its schedstat then exact, no
    activation half done): (ns, activations counted)."""
    done = [a for a in acts if a["thread"] == comm and not a["dropped"] and
            a["end_ns"]]
    for t, run_ns, _ in reversed(reads):
        # The read took place just after t: clear of the activations
        # around it by 1 ms either side (a read takes microseconds).
        if not any(a["start_ns"] - 1_000_000 <= t <= a["end_ns"] + 1_000_000
                   for a in done):
            n = sum(1 for a in done if a["end_ns"] < t)
            if n >= 100:
                return run_ns / n, n
    raise AssertionError("no read of %s between activations after 100 of them"
                         % comm)


def run_of_each_activation(acts, reads, comm):
    """The kernel's run time of @comm in each stretch between two reads
    clear of its activations (1 ms either side), per activation done in
    it: [ns]. A stretch holds one activation or two (reads every 10 ms)."""
    done = [a for a in acts if a["thread"] == comm and not a["dropped"] and
            a["end_ns"]]
    clear = [(t, run_ns) for t, run_ns, _ in reads
             if not any(a["start_ns"] - 1_000_000 <= t <= a["end_ns"] + 1_000_000
                        for a in done)]
    out = []
    for (t0, r0), (t1, r1) in zip(clear, clear[1:]):
        n = sum(1 for a in done if t0 < a["start_ns"] and a["end_ns"] < t1)
        if n:
            out.append((r1 - r0) / n)
    return out


@test(root=True)
def scale_doubles_the_work_the_kernel_counts():
    """--scale 2 asks for twice the units: the kernel's run time per
    activation of video-render doubles (its schedstat, not our clock).

    Not audio: its 4 ms period is the tick's at HZ=250, so each run's
    activations either all hold a tick or none do, by the phase the run
    started at (no IRQ time accounting: the tick's cost is the task's).
    Measured here: runs of audio at scale 1 took 300-304 us per
    activation (wall, median), one 334.6 whose activations spanned
    3.755-4.06 ms of the 4 ms grid, every one across a tick: the 13%
    spread seen between two runs. video-render's 16.7 ms period walks
    through the tick's phases, so its ticks follow its run time."""
    # Both scales at once, in two processes on the same CPU, from one
    # calibration: the host's speed moves by 3-7% between runs seconds
    # apart (per activation of scale 1 in five runs of one test: 2.39 to
    # 2.57 ms), which runs one after the other took for the scale's (CI:
    # scale 2 at 2.068x of two runs of scale 1 0.4% apart). Side by side
    # both see the same speed: 1.995-2.010 in seven runs here, while
    # scale 1 itself took 2.37 to 2.64 ms per activation from one to the
    # next.
    if not os.path.exists(CALIB):
        run_workload("audio", 0.5)
    per, each, errors = {}, {}, []

    def run(scale):
        # A thread's exception is its own: kept, raised after the join
        # (an Inconclusive stays one, a failure keeps its message).
        try:
            s, acts_path, reads = run_workload("video", 4, "--scale", scale, "--cpus",
                                               str(cpu), watch=("video-render",))
            acts = read_activations(acts_path)
            per[scale] = run_per_activation(acts, reads["video-render"],
                                            "video-render")[0]
            each[scale] = sorted(run_of_each_activation(acts, reads["video-render"],
                                                        "video-render"))
        except BaseException as e:
            errors.append(e)

    cpu = max(online_cpus())
    runs = [threading.Thread(target=run, args=(scale,)) for scale in ("1", "2")]
    for t in runs:
        t.start()
    for t in runs:
        t.join()
    if errors:
        raise errors[0]
    ratio = per["2"] / per["1"]
    print("# video-render per activation, both on CPU %d at once: scale 1 %.0f ns, "
          "scale 2 %.0f ns: %.3fx (medians of the stretches between reads: %.0f "
          "and %.0f ns)" % (cpu, per["1"], per["2"], ratio, each["1"][len(each["1"]) // 2],
                            each["2"][len(each["2"]) // 2]))
    # (2w + f) / (w + f) for w = 2.5 ms of work and a fixed part f (wakeup,
    # clock reads, sleep: 27 us measured with audio at --scale 0.0001)
    # not scaled: 1.99. A tick lands in 0.625 of a 2.5 ms activation on
    # average, give or take 0.125 by the phases a 16.7 ms period visits,
    # at about 30 us a tick (the audio runs above): 0.2%. Switches between
    # render and decode when they share a CPU: a few us each. Measured
    # one run after the other: 1.99, 1.98, 2.007, 1.994.
    check(1.9 <= ratio <= 2.05, "scale 2 ran %.3fx the time of scale 1" % ratio)


@test(root=True)
def calibration_is_kept_and_redone_on_request():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sub", "calibration")
        args = ("workload", "audio", "-d", "0.5", "--topology", TOPO,
                "--calibration", path)
        r = schedtop(*args)
        check(r.returncode == 0, r.stderr)
        check(b"calibrated" in r.stderr and b"stored in " + path.encode() in r.stderr, r.stderr)
        with open(path) as f:
            first = f.read()
        # One line per CPU measured: the built-in names CPU0.
        check(re.search(r"^cpu0 ns_per_loop \d+\.\d+$", first, re.M), first)
        # Kept: no new measurement, the file as it was.
        r = schedtop(*args)
        check(r.returncode == 0 and b"calibrated" not in r.stderr, r.stderr)
        with open(path, "w") as f:
            f.write("cpu0 ns_per_loop 123.0000\n")
        r = schedtop(*args, "--recalibrate")
        check(r.returncode == 0 and b"calibrated" in r.stderr, r.stderr)
        with open(path) as f:
            check("123.0000" not in f.read(), "--recalibrate kept the old value")
        with open(path, "w") as f:
            f.write("garbage\n")
        r = schedtop(*args)
        check(r.returncode == 1 and b"not a calibration" in r.stderr and
              b"--recalibrate" in r.stderr, r.stderr)


@test(root=True)
def cpus_with_no_online_cpu_is_one_clear_line():
    r = schedtop("workload", "audio", "-d", "1", "--cpus", "1000",
                 "--calibration", CALIB, "--topology", TOPO)
    check(r.returncode == 1, r.returncode)
    check(r.stderr.decode().splitlines()[-1] ==
          "schedtop: no CPU of --cpus 1000 is online: name online CPUs "
          "(/sys/devices/system/cpu/online)", r.stderr)


def rt_throttled():
    with open("/proc/sys/kernel/sched_rt_runtime_us") as f:
        return int(f.read()) > 0


def browse_beside_fifo_hog(seconds, watch):
    """run_workload() of browse for @seconds on cpu1, beside a SCHED_FIFO
    busy loop there (RT throttling leaves the others 5% of it)."""
    if not rt_throttled():
        raise Skip("sched_rt_runtime_us is -1: a SCHED_FIFO hog would take cpu1 for good")
    hog = busy_loop(1, fifo=True)
    try:
        time.sleep(0.1)
        return run_workload("browse", seconds, "--cpus", "1", watch=watch)
    finally:
        stop(hog)


@test(root=True)
def browse_misses_next_to_fifo_hog():
    s, acts_path, reads = browse_beside_fifo_hog(5, ("browse-render",))
    check_judgement(s, read_activations(acts_path))
    check(run_workload.allowed == "1", "browse-render allowed on %s, not 1"
          % run_workload.allowed)
    check(s["met"] is False, s)
    # 1e6 per missed constraint plus the average power, to the JSON's last
    # digit: "%.6g" once printed 1000031.97 as 1000030.
    missed = sum(1 for c in s["constraints"] if not c["met"])
    check(abs(s["figure_of_merit"] - (1e6 * missed + s["avg_power_mw"])) < 1e-6, s)
    load = s["constraints"][0]
    check(load["name"] == "page load" and load["met"] is False, load)
    check(load["observed"] is None or load["observed"] > 500, load)
    # The kernel agrees that the thread mostly waited: more time runnable
    # and not running than running.
    _, run_ns, wait_ns = reads["browse-render"][-1]
    check(wait_ns > run_ns, "browse-render ran %d ns, waited %d" % (run_ns, wait_ns))


@test(root=True)
def load_under_way_at_the_end_is_missed():
    """A page load due long before the run's end and still under way at
    it is missed (never finished), not forgotten. It was forgotten: with
    no load done, "page load" reported 0 activations and observed 0 ms."""
    s, acts_path, reads = browse_beside_fifo_hog(2, MAIN_THREADS["browse"])
    acts = read_activations(acts_path)
    check(run_workload.allowed == "1", "browse allowed on %s, not 1" % run_workload.allowed)
    # The kernel's account says no load could be done: a load is 60 ms
    # (-10% jitter) on each of the three threads, and together they ran
    # less than that by the run's end (the hog leaves cpu1 5%: 100 ms in
    # 2 s). More is another machine state (throttling off, a second hog).
    # After the end they still run, to finish the work under way.
    ran = sum(max([r for t, r, _ in reads[c] if t <= s["end_ns"]] or [0])
              for c in MAIN_THREADS["browse"])
    if ran >= 3 * 54e6:
        raise Inconclusive("browse's threads ran %.0f ms on cpu1 next to the hog" % (ran / 1e6))
    load = s["constraints"][0]
    check(load["name"] == "page load", load)
    check(load["activations"] == 1 and load["dropped"] == 1 and
          load["observed"] is None and load["met"] is False, load)
    check(s["met"] is False and s["figure_of_merit"] >= 2e6, s)
    rows = [a for a in acts if a["constraint"] == "page load"]
    check(len(rows) == 1 and rows[0]["end_ns"] is None and not rows[0]["dropped"]
          and rows[0]["deadline_ns"] <= s["end_ns"], rows)
    check_judgement(s, acts)


@test(root=True)
def browse_meets_on_idle_cpu():
    b0, t0 = cpu_busy_ns(1), mono_ns()
    s, acts_path, reads = run_workload("browse", 5, "--cpus", "1",
                                       watch=("browse-render",))
    acts = read_activations(acts_path)
    busy = (cpu_busy_ns(1) - b0) / (mono_ns() - t0)
    check_judgement(s, acts)
    if not s["met"]:
        # Our own threads use about a quarter of cpu1: much more is others'.
        own = sum(t["cpu_ns"] for t in s["threads"]) / (s["duration_s"] * 1e9)
        if busy - own > 0.3:
            raise Inconclusive("cpu1 %.0f%% busy with other work" % (100 * (busy - own)))
    check(s["met"] is True, s)
    check(s["figure_of_merit"] == s["avg_power_mw"] < 1e6, s)
    check(s["constraints"][0]["observed"] <= 500, s["constraints"][0])


def model_opps(cluster):
    """[(kHz, mW)] of a cluster in the fixture model file, by clock."""
    out = []
    with open(EM) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[0] == cluster and w[1] != "idle":
                out.append((int(w[1]), float(w[2])))
    return sorted(out)


def opp_power_at(opps, khz):
    """The model's power at a clock: its lowest OPP at or above it, the
    highest above them all."""
    return next((mw for k, mw in opps if k >= khz), opps[-1][1])


@test(root=True)
def busy_cpu_costs_its_opp():
    """cpu1 held by a busy loop costs the model's OPP at its clock: the
    highest OPP where the clock is unknown (no cpufreq, this VM), else the
    OPP at each clock cpufreq reported meanwhile."""
    pol = cpufreq_policy(1)
    opps = model_opps("big")
    clocks = []
    hog = busy_loop(1)
    try:
        time.sleep(0.2)
        p = start_schedtop("csv", "-t", "cluster", "-i", "500", "-n", "4",
                           "--topology", TOPO, "--energy-model", EM)
        while p.poll() is None and pol:
            clocks.append(int(read_sys(os.path.join(pol[1], "scaling_cur_freq"))))
            time.sleep(0.05)
        out, err = p.communicate(timeout=30)
    finally:
        stop(hog)
    check(p.returncode == 0, err)
    rows = [x for x in parse_csv(out) if x["cluster"] == "big"]
    check(len(rows) == 4, rows)
    if any(x["nr_online"] != "1" for x in rows):
        Offline.seen = True
    Offline.check()
    if pol:
        powers = [opp_power_at(opps, k) for k in clocks]
        lo, hi = min(powers), max(powers)
        what = "the OPPs at %s's clocks %d..%d kHz" % (pol[0], min(clocks),
                                                       max(clocks))
    else:
        lo = hi = BIG_TOP_MW
        what = "the highest OPP (no cpufreq)"
    for x in rows[1:]:
        p = float(x["power_mw"])
        check(0.95 * lo <= p <= 1.05 * hi, "power_mw %s, want %.0f..%.0f "
              "+-5%%: %s" % (p, lo, hi, what))
        # energy = power x interval.
        check(abs(float(x["energy_uj"]) - p * 500) < 0.02 * p * 500, x)
        # EAS: util near 1024 at that OPP: also about its power.
        check(float(x["eas_power_mw"]) > 0.8 * lo, x)


@test(root=True)
def recording_keeps_the_model():
    """csv --from derives the same power as the run did."""
    with tempfile.TemporaryDirectory() as d:
        rec = os.path.join(d, "w.rec")
        s, acts_path, _ = run_workload("audio", 3, "--record", rec)
        os.unlink(acts_path)
        r = schedtop("csv", "--from", rec, "-t", "cluster")
        check(r.returncode == 0, r.stderr)
        rows = parse_csv(r.stdout)
        for cl in s["clusters"]:
            uj = sum(float(x["energy_uj"]) for x in rows if x["cluster"] == cl["name"])
            check(abs(uj / 1000 - cl["energy_mj"]) <= 0.001 * cl["energy_mj"] + 0.01,
                  "%s: %f mJ from the recording, %f live" % (cl["name"], uj / 1000, cl["energy_mj"]))
        # Perfetto counters carry the same power.
        pf = os.path.join(d, "w.json")
        r = schedtop("convert", rec, "--json", "-o", pf)
        check(r.returncode == 0, r.stderr)
        with open(pf) as f:
            trace = json.load(f)
        evs = trace["traceEvents"] if isinstance(trace, dict) else trace
        got = [e["args"]["mw"] for e in evs if e.get("name") == "big power"]
        want = [float(x["power_mw"]) for x in rows if x["cluster"] == "big"]
        check(len(got) == len(want) and all(abs(a - b) < 0.01 for a, b in zip(got, want)),
              (got, want))
        # report judges the recorded activations as the run did.
        r = schedtop("report", rec)
        check(r.returncode == 0, r.stderr)
        out = r.stdout.decode()
        c = s["constraints"][0]
        # A run that missed (a stall of the machine) is reported as missed.
        check("figure of merit %.1f %s" % (s["figure_of_merit"], "(= average power, mW)"
              if s["met"] else "(1e6 per missed constraint + average power)") in out,
              "the run: %s; report: %s" % (s, out))
        # The run's own counts, but for the activation audio-tick may have
        # handed over after the last sample's drain (it ended before that
        # sample): the run judges it at its end, no sample carries it into
        # the recording (docs/workloads.md, The figure of merit).
        m = re.search(r"audio-tick deadline +[0-9.]+% missed \((\d+) late, (\d+) dropped "
                      r"of (\d+)\)", out)
        check(m, "no audio-tick judgement in report: %s" % out)
        late, dropped, acts = (int(x) for x in m.groups())
        print("# run: %d activations, %d late, %d dropped; report: %d, %d, %d"
              % (c["activations"], c["late"], c["dropped"], acts, late, dropped))
        gone = c["activations"] - acts
        check(0 <= gone <= 1 and 0 <= c["late"] + c["dropped"] - late - dropped <= gone and
              late <= c["late"] and dropped <= c["dropped"],
              "the run judged %d late, %d dropped of %d; report: %s"
              % (c["late"], c["dropped"], c["activations"], out))


if __name__ == "__main__":
    try:
        run()
    finally:
        if os.path.exists(CALIB):
            os.unlink(CALIB)
