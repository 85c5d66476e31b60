"""overutilized and frequency residency on data shaped like an EAS phone's.

This machine has no EAS (no asymmetric capacities, no energy model) and no
cpufreq, so the kernel never sets the root domain's overutilized flag here
and never changes a clock. These tests read a trace shaped like a Pixel 6's
instead: tests/fixtures/eas-phone (synthetic, its README says after what and
from which sources). The truths are computed here from the fixture's raw
events (trace.json, which trace.dat holds byte for byte) and its sysfs tree,
never from schedtop's arithmetic:

 - overutilized at a sample: the kernel's rule, some CPU's root cfs_rq util
   * 1280 >= its capacity * 1024 (fits_capacity() in kernel/sched/fair.c),
   on each CPU's latest util_avg event and its sysfs cpu_capacity;
 - overutilized_ns: the time that rule held within the interval;
 - frequency residency: the time between the cluster's cpu_frequency events
   at each clock within the interval; freq_khz the clock at the sample,
   freq_avg_khz the time-weighted mean;
 - frequency residency from cpufreq's own counters (root: the BPF source
   with the fixture's tree as sysfs): the policies' time_in_state moved as
   the trace's clocks did, each row a difference of two of its states.
"""
import bisect
import json
import os
import subprocess
import tempfile

from harness import (SRC, check, parse_csv, run, schedtop,
                     schedtop_while_writing, sysfs_copy, test)

FIX = os.path.join(SRC, "tests", "fixtures", "eas-phone")
DAT = os.path.join(FIX, "trace.dat")
SYSFS = os.path.join(FIX, "sysfs")
WRITER = os.path.join(SRC, "tests", "tools", "trace_dat_write.py")
INTERVAL = 100 * 10**6


def events():
    with open(os.path.join(FIX, "trace.json")) as f:
        return json.load(f)["events"]


def capacities():
    """{cpu: cpu_capacity} from the fixture's sysfs tree."""
    cap = {}
    base = os.path.join(SYSFS, "devices", "system", "cpu")
    for d in os.listdir(base):
        p = os.path.join(base, d, "cpu_capacity")
        if d.startswith("cpu") and d[3:].isdigit() and os.path.exists(p):
            with open(p) as f:
                cap[int(d[3:])] = int(f.read())
    return cap


def clusters():
    """{first cpu: [cpus]} of the fixture's cpufreq policies."""
    out = {}
    base = os.path.join(SYSFS, "devices", "system", "cpu", "cpufreq")
    for pol in os.listdir(base):
        with open(os.path.join(base, pol, "related_cpus")) as f:
            cpus = [int(x) for x in f.read().split()]
        out[cpus[0]] = cpus
    return out


def csv_rows(table):
    r = schedtop("csv", "--trace", DAT, "-t", table, "-i",
                 str(INTERVAL // 10**6), "--sysfs-root", SYSFS)
    check(r.returncode == 0, "csv --trace -t %s: %s" % (table, r.stderr))
    rows = parse_csv(r.stdout)
    check(rows, "no %s rows" % table)
    return rows


def windows(rows):
    """{ts: start of its interval}: the previous sample, one interval
    before the first."""
    ts = sorted({int(r["ts_ns"]) for r in rows})
    return {t: (ts[i - 1] if i else t - INTERVAL) for i, t in enumerate(ts)}


def overlap(a0, a1, b0, b1):
    return max(0, min(a1, b1) - max(a0, b0))


@test
def fixture_trace_holds_its_events():
    """trace.dat is trace.json as tests/tools/trace_dat_write.py lays it
    out: the raw numbers the other tests take as truth are the file's."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.dat")
        r = subprocess.run(["python3", WRITER, os.path.join(FIX, "trace.json"),
                            out], capture_output=True, text=True)
        check(r.returncode == 0, r.stderr)
        with open(out, "rb") as a, open(DAT, "rb") as b:
            check(a.read() == b.read(), "trace.dat is not trace.json: "
                  "run tests/fixtures/eas-phone/make-fixture.py")


def rule_timeline():
    """[(ts, overutilized)] at every root cfs_rq util event: the kernel's
    rule on each CPU's latest util."""
    cap = capacities()
    util = {}
    out = []
    for cpu, ts, name, f in events():
        if name != "lisa__sched_pelt_cfs" or f["path"] != "/":
            continue
        util[f["cpu"]] = f["util"]
        out.append((ts, any(u * 1280 >= cap[c] * 1024 for c, u in util.items())))
    return out


@test
def overutilized_is_the_kernels_rule():
    timeline = rule_timeline()
    flips = sum(1 for a, b in zip(timeline, timeline[1:]) if a[1] != b[1])
    check(flips >= 4, "the fixture's rule flips only %d times" % flips)
    times = [t for t, _ in timeline]
    rows = csv_rows("cluster")
    win = windows(rows)
    seen = set()
    for r in rows:
        ts = int(r["ts_ns"])
        i = bisect.bisect_right(times, ts) - 1
        want = timeline[i][1] if i >= 0 else None
        if want is None:
            check(r["overutilized"] == "", "%s: overutilized %r before the "
                  "kernel said" % (ts, r["overutilized"]))
            continue
        check(r["overutilized"] == str(int(want)),
              "%s %s: overutilized %s, the rule on the CPUs' util says %d" %
              (ts, r["cluster"], r["overutilized"], want))
        seen.add(want)
        # The time the rule held in (start, ts].
        start = win[ts]
        held = 0
        for (t0, on), (t1, _) in zip(timeline, timeline[1:] + [(ts, None)]):
            if on:
                held += overlap(t0, t1, start, ts)
        check(int(r["overutilized_ns"]) == held,
              "%s %s: overutilized_ns %s, the rule held %d ns" %
              (ts, r["cluster"], r["overutilized_ns"], held))
    check(seen == {False, True}, "only %s seen at samples" % seen)
    print("# %d cluster rows, the rule flips %d times" % (len(rows), flips))


def clock_timeline(cpu):
    """[(ts, khz)] of cpu's cpu_frequency events."""
    return [(ts, f["state"]) for _, ts, name, f in events()
            if name == "cpu_frequency" and f["cpu_id"] == cpu]


def cluster_clocks(rows):
    """{cluster name: clock timeline of its policy's first CPU}: clusters
    come out by ascending capacity, as the policies do by their CPUs'."""
    names = list({r["cluster"]: None for r in rows})
    firsts = sorted(clusters(), key=lambda c: capacities()[c])
    check(len(names) == len(firsts) == 3, "clusters %s for policies of "
          "cpus %s" % (names, firsts))
    return {n: clock_timeline(c) for n, c in zip(names, firsts)}


def time_at(timeline, khz, start, end):
    total = 0
    for (t0, k), (t1, _) in zip(timeline, timeline[1:] + [(end, None)]):
        if k == khz:
            total += overlap(t0, t1, start, end)
    return total


@test
def frequency_residency_from_the_clock_events():
    rows = csv_rows("freq")
    win = windows(rows)
    lines = cluster_clocks(rows)
    checked = nonzero = 0
    for r in rows:
        ts, khz = int(r["ts_ns"]), int(r["freq_khz"])
        tl = lines[r["cluster"]]
        ran = {k for t, k in tl if t <= ts}
        check(khz in ran, "%s %s: %d kHz, never the clock by then" %
              (ts, r["cluster"], khz))
        want = time_at(tl, khz, win[ts], ts)
        check(int(r["time_ns"]) == want, "%s %s at %d kHz: %s ns, the "
              "events say %d" % (ts, r["cluster"], khz, r["time_ns"], want))
        checked += 1
        nonzero += want > 0
    # Every clock a cluster ran at in an interval has its row.
    for name, tl in lines.items():
        for ts, start in win.items():
            for k in {k for t, k in tl if t <= ts}:
                if time_at(tl, k, start, ts):
                    check(any(int(r["ts_ns"]) == ts and r["cluster"] == name
                              and int(r["freq_khz"]) == k for r in rows),
                          "%s: no row for %d kHz at %d" % (name, k, ts))
    check(nonzero >= 30, "only %d rows with time" % nonzero)
    print("# %d residency rows checked, %d with time" % (checked, nonzero))


@test
def cluster_clock_and_its_mean():
    rows = csv_rows("cluster")
    win = windows(rows)
    lines = cluster_clocks(rows)
    for r in rows:
        ts, tl = int(r["ts_ns"]), lines[r["cluster"]]
        now = [k for t, k in tl if t <= ts][-1]
        check(int(r["freq_khz"]) == now, "%s %s: freq_khz %s, clock %d" %
              (ts, r["cluster"], r["freq_khz"], now))
        start = max(win[ts], tl[0][0])
        mean = sum(k * time_at(tl, k, start, ts) for k in {k for _, k in tl}) / \
            (ts - start)
        # kHz x us summed: the mean is exact to the kHz.
        check(abs(int(r["freq_avg_khz"]) - mean) <= 1,
              "%s %s: freq_avg_khz %s, the events' mean %.1f" %
              (ts, r["cluster"], r["freq_avg_khz"], mean))


def tick_snapshots(step_ns):
    """{policy dir: [{kHz: ticks}]}: what each policy's time_in_state would
    say at every step_ns of the trace: the fixture's counters before the
    trace (its time_in_state less the trace's own residency) plus the
    trace's residency so far, in whole USER_HZ ticks (10 ms), as
    cpufreq_stats counts them."""
    base = os.path.join(SYSFS, "devices", "system", "cpu", "cpufreq")
    out = {}
    for pol in sorted(os.listdir(base)):
        with open(os.path.join(base, pol, "related_cpus")) as f:
            first = int(f.read().split()[0])
        with open(os.path.join(base, pol, "stats", "time_in_state")) as f:
            final = {int(k): int(v) for k, v in
                     (line.split() for line in f if line.strip())}
        tl = clock_timeline(first)
        start, end = tl[0][0], tl[-1][0]
        total = {k: time_at(tl, k, start, end) // (10 * 10**6) for k in final}
        before = {k: final[k] - total[k] for k in final}
        snaps = []
        t = start
        while t <= end:
            snaps.append({k: before[k] + time_at(tl, k, start, t) // (10 * 10**6)
                          for k in final})
            t += step_ns
        out[pol] = snaps
    return out


@test(root=True)
def residency_from_time_in_state():
    """The BPF source reads cpufreq's own counters (stats/time_in_state) at
    each sample: with the fixture's tree as sysfs and its counters moving
    as the trace's clocks did, 50 ms of trace every 100 ms, every row is
    the difference of two states of the file, the same two for all the
    frequencies of a cluster, and every OPP of the policy has its row."""
    # 50 ms of the trace every 100 ms: a 300 ms interval never holds
    # more counter time than it lasted (schedtop caps a row at its
    # interval, as no clock can run longer than that).
    wall_step = 100 * 10**6
    snaps = tick_snapshots(50 * 10**6)
    with sysfs_copy(SYSFS, "schedtop-eas-phone-") as root:
        def write(k):
            for pol, seq in snaps.items():
                path = os.path.join(root, "devices/system/cpu/cpufreq", pol,
                                    "stats", "time_in_state")
                with open(path + ".new", "w") as f:
                    f.write("".join("%d %d\n" % kv
                                    for kv in sorted(seq[min(k, len(seq) - 1)].items())))
                os.rename(path + ".new", path)

        r = schedtop_while_writing(write, wall_step / 1e9, "csv", "-t", "freq",
                                   "-n", "6", "-i", "300", "--sysfs-root", root)
    check(r.returncode == 0, r.stderr)
    rows = parse_csv(r.stdout)
    # A cluster's clock is read on its first online CPU: on a machine with
    # fewer CPUs than the phone, only the clusters that hold some of its
    # own have rows. Which policy a cluster is, the tree says (the policy
    # of its first CPU, as related_cpus lists them).
    firsts = {cpus[0]: "policy%d" % cpus[0] for cpus in clusters().values()}
    names = list({x["cluster"]: None for x in rows})
    check(names, "no residency rows")
    topo = parse_csv(schedtop("topology", "--csv", "--sysfs-root",
                              SYSFS).stdout)
    pol_of = {t["name"]: firsts[int(t["cpus"].split("-")[0].split(",")[0])]
              for t in topo}
    for name in names:
        pol = pol_of[name]
        seq = snaps[pol]
        mine = [x for x in rows if x["cluster"] == name]
        opps = sorted(seq[0])
        stamps = sorted({int(x["ts_ns"]) for x in mine})
        for ts in stamps:
            got = sorted(int(x["freq_khz"]) for x in mine if int(x["ts_ns"]) == ts)
            check(got == opps, "%s at %d: rows for %s, the policy has %s" %
                  (name, ts, got, opps))
        # Cumulative time per frequency after each row: some later state
        # of the file less the one read at the start.
        cum = {k: 0 for k in opps}
        at = []
        for ts in stamps:
            for x in mine:
                if int(x["ts_ns"]) == ts:
                    check(int(x["time_ns"]) % (10 * 10**6) == 0,
                          "%s: %s ns is not whole ticks" % (name, x["time_ns"]))
                    cum[int(x["freq_khz"])] += int(x["time_ns"]) // (10 * 10**6)
            pairs = [(i, j) for i in range(len(seq)) for j in range(i, len(seq))
                     if all(seq[j][k] - seq[i][k] == cum[k] for k in opps)]
            check(pairs, "%s after %d: %s ticks is no difference of two states "
                  "of time_in_state" % (name, ts, cum))
            at.append(pairs)
        # One start state for all rows.
        starts = set.intersection(*({i for i, _ in p} for p in at))
        check(starts, "%s: the rows start from different states" % name)
        check(any(cum.values()), "%s: the counters never moved" % name)
        print("# %s: %d samples, %s ticks in all" % (name, len(stamps), cum))


if __name__ == "__main__":
    run()
