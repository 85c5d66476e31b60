"""CPU hotplug while schedtop runs: shown as it happens, timed, no crash."""
import json
import os
import re
import shutil
import tempfile
import time

from harness import (Skip, check, first_sample, mono_ns, parse_csv,
                     schedtop, start_schedtop, test)
from tmux import Tmux, quit_cleanly, run_then_kill_server

CPU1 = "/sys/devices/system/cpu/cpu1/online"
TOPO = "LITTLE:0,big:1@1024"


def set_online(on):
    with open(CPU1, "w") as f:
        f.write("1" if on else "0")


def offline_cpu1_for_a_while():
    """cpu1 goes offline 1 s from now, online 0.8 s later; 0.7 s more.

    Returns [(to, start_ns, end_ns)] of the two writes (see plug_cycles).
    """
    ops = []
    try:
        time.sleep(0.8)
        add_and_remove_instance_callbacks()
        time.sleep(0.2)
        for on, after in ((False, 0.8), (True, 0.7)):
            t0 = mono_ns()
            set_online(on)
            ops.append(("online" if on else "offline", t0, mono_ns()))
            time.sleep(after)
    finally:
        set_online(True)
        if os.path.isdir(INSTANCE):
            os.rmdir(INSTANCE)
    return ops


def need_hotplug():
    if not os.path.exists(CPU1):
        raise Skip("cpu1 cannot be taken offline here")


CYCLES = 20
# Between two operations: four 100 ms samples, so that no sample holds two
# and each operation's row can be told by time.
GAP_S = 0.4


INSTANCE = "/sys/kernel/tracing/instances/schedtop-test-hp-%d" % os.getpid()


def add_and_remove_instance_callbacks():
    """Runs cpuhp multi-instance callbacks on every online CPU, which is no
    hotplug operation: a new tracefs instance adds its ring buffer to
    CPUHP_TRACE_RB_PREPARE (a step "up"), removing it tears it down (a
    step "down"). Anyone's tracefs instance does this at any time."""
    if not os.path.isdir(os.path.dirname(INSTANCE)):
        return
    os.mkdir(INSTANCE)
    os.rmdir(INSTANCE)


def plug_cycles():
    """CYCLES offline/online cycles of cpu1, GAP_S apart; cpu1 online after.

    Returns [(to, start_ns, end_ns)] per operation: the direction written
    and CLOCK_MONOTONIC around the write, which returns only once the
    kernel has run every cpuhp step of it.
    """
    ops = []
    try:
        for _ in range(CYCLES):
            for on in (False, True):
                t0 = mono_ns()
                set_online(on)
                ops.append(("online" if on else "offline", t0, mono_ns()))
                time.sleep(GAP_S / 2)
                if on:
                    add_and_remove_instance_callbacks()
                time.sleep(GAP_S / 2)
    finally:
        set_online(True)
        if os.path.isdir(INSTANCE):
            os.rmdir(INSTANCE)
    return ops


def hotplug_rows(csv_bytes, ops, what):
    """The cpu1 rows that start an operation, each checked against ops.

    Row i must say ops[i]'s direction, come after ops[i] began and before
    ops[i+1] began (a sample before that cannot hold the next one), and its
    operation, followed to the last row that still reports it, must take no
    longer than the write that made it. Returns [(ts_ns, to, ns)].
    """
    rows = [r for r in parse_csv(csv_bytes) if r["cpu"] == "1"]
    check(rows, "%s: no cpu1 rows" % what)
    check(int(rows[0]["ts_ns"]) < ops[0][1],
          "%s: first sample at %s, after the first operation at %d" %
          (what, rows[0]["ts_ns"], ops[0][1]))
    found = []
    for r in rows:
        n = int(r["hotplug_ops"] or 0)
        if n:
            check(n == 1, "%s: %d operations in one sample at %s" %
                  (what, n, r["ts_ns"]))
            found.append([int(r["ts_ns"]), r["hotplug_to"],
                          int(r["hotplug_ns"])])
        elif r["hotplug_to"] and found:
            # The latest operation went on past its first sample.
            found[-1][2] = int(r["hotplug_ns"])
    dirs = [f[1] for f in found]
    want = [o[0] for o in ops]
    check(dirs == want, "%s: directions %s, operations made %s" %
          (what, dirs, want))
    for i, (ts, to, ns) in enumerate(found):
        nxt = ops[i + 1][1] if i + 1 < len(ops) else float("inf")
        check(ops[i][1] < ts < nxt,
              "%s: operation %d (%s) at %d not between its start %d and "
              "the next's %s" % (what, i, to, ts, ops[i][1], nxt))
        check(0 < ns <= ops[i][2] - ops[i][1],
              "%s: operation %d (%s) took %d ns, its write %d ns" %
              (what, i, to, ns, ops[i][2] - ops[i][1]))
    return [tuple(f) for f in found]


def replay_shows_offline_as_written(rec, rows, ops):
    """replay, stepped through every sample of @rec, shows cpu1 offline
    exactly where csv --from of it says so (@rows), and that is where the
    writes of @ops took it: offline from the end of an offline write to the
    start of the next online one, online from the end of that to the start
    of the next offline one; a sample during a write may show either."""
    rows = [r for r in rows if r["cpu"] == "1"]
    n = len(rows)
    t = Tmux(["replay", rec], width=150, height=40)
    shown = []
    try:
        t.wait_for(r"REPLAY \d+/%d " % n)
        t.keys("space")
        t.wait_for(r"PAUSED")
        t.keys("{")
        for i in range(1, n + 1):
            if i > 1:
                t.keys(".")
            s = t.wait_for(r"REPLAY %d/%d " % (i, n))
            m = re.search(r"^  cpu1  (offline|\[)", s, re.M)
            check(m, "replay sample %d: no cpu1 row:\n%s" % (i, s))
            shown.append(m.group(1) == "offline")
        quit_cleanly(t)
    finally:
        t.close()
    check(shown == [r["online"] == "0" for r in rows],
          "replay's cpu1 offline per sample %s, csv --from's %s" %
          ("".join("o_"[x] for x in shown),
           "".join("o_"[r["online"] == "0"] for r in rows)))
    for i, r in enumerate(rows):
        ts = int(r["ts_ns"])
        check(ts >= ops[0][1] or not shown[i], "replay sample %d at %d: "
              "cpu1 offline before the first write at %d" % (i + 1, ts, ops[0][1]))
        for k in range(0, len(ops), 2):
            (_, off0, off1), (_, on0, on1) = ops[k], ops[k + 1]
            nxt = ops[k + 2][1] if k + 2 < len(ops) else float("inf")
            if off1 < ts < on0:
                check(shown[i], "replay sample %d at %d: cpu1 online, taken "
                      "offline from %d to %d (cycle %d)" % (i + 1, ts, off1, on0, k // 2 + 1))
            elif on1 < ts < nxt:
                check(not shown[i], "replay sample %d at %d: cpu1 offline, "
                      "online from %d to %s (cycle %d)" % (i + 1, ts, on1, nxt, k // 2 + 1))
    stretches = sum(1 for i, x in enumerate(shown) if x and (i == 0 or not shown[i - 1]))
    check(stretches == len(ops) // 2, "replay shows %d offline stretches for "
          "%d cycles" % (stretches, len(ops) // 2))


def cycles_told_apart(source):
    """Every one of CYCLES cycles, under SOURCE, in csv (live and --from
    a recording of the same run), replay, report and the Perfetto export."""
    need_hotplug()
    tmp = tempfile.mkdtemp(prefix="schedtop-hp-")
    rec, js = os.path.join(tmp, "hp.rec"), os.path.join(tmp, "hp.json")
    cs = start_schedtop("csv", "-t", "cpu", "-i", "100", "--topology", TOPO,
                        "--source", source, "--record", rec)
    try:
        head = first_sample(cs)
        ops = plug_cycles()
        time.sleep(0.3)
    finally:
        set_online(True)
        cs.send_signal(2)
    live, cerr = cs.communicate(timeout=30)
    live = head + live
    try:
        check(cs.returncode == 0, "csv exit %d: %s" % (cs.returncode, cerr))
        hotplug_rows(live, ops, "csv")
        r = schedtop("csv", "-t", "cpu", "--from", rec)
        check(r.returncode == 0, "csv --from: %s" % r.stderr)
        found = hotplug_rows(r.stdout, ops, "csv --from")
        replay_shows_offline_as_written(rec, parse_csv(r.stdout), ops)

        r = schedtop("report", rec)
        check(r.returncode == 0, "report: %s" % r.stderr)
        out = r.stdout.decode()
        lines = re.findall(r"cpu1 +(\S+) +(\d+) ops?, took ([\d.]+) ms", out)
        check([(to, "1", "%.1f" % (ns / 1e6)) for _, to, ns in found] == lines,
              "report's hotplug lines %s, the recording's operations %s" %
              (lines, found))

        r = schedtop("convert", rec, "--json", "-o", js)
        check(r.returncode == 0, "convert: %s" % r.stderr)
        with open(js) as f:
            evs = json.load(f)["traceEvents"]
        inst = [e for e in evs if e["ph"] == "i" and e["name"].startswith("cpu1 ")]
        check([e["name"] for e in inst] == ["cpu1 " + to for _, to, _ in found],
              "perfetto hotplug %s, the recording's %s" %
              ([e["name"] for e in inst], found))
        # Perfetto's time is in us from its own zero: the same distances.
        for e, (ts, _, _) in zip(inst, found):
            dt = e["ts"] - inst[0]["ts"]
            check(abs(dt - (ts - found[0][0]) / 1e3) < 0.002,
                  "perfetto %s at %.3f us, csv --from %d ns" % (e["name"], dt, ts))
        online = [e["args"]["online"] for e in evs
                  if e["ph"] == "C" and e["name"] == "cpu1 online"]
        check(online == [1] + [0, 1] * CYCLES,
              "cpu1 online track: %s" % online)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@test(root=True)
def twenty_cycles_told_apart_bpf():
    cycles_told_apart("bpf")


@test(root=True)
def twenty_cycles_told_apart_tracefs():
    cycles_told_apart("tracefs")


@test(root=True)
def csv_shows_offline_and_times_the_operations():
    need_hotplug()
    st = start_schedtop("csv", "-t", "cpu", "-i", "100", "--topology", TOPO)
    cl = start_schedtop("csv", "-t", "cluster", "-i", "100", "--topology", TOPO)
    try:
        heads = [first_sample(p) for p in (st, cl)]
        ops = offline_cpu1_for_a_while()
    finally:
        for p in (st, cl):
            p.send_signal(2)
    out, err = st.communicate(timeout=20)
    out = heads[0] + out
    check(st.returncode == 0, "cpu csv exit %d: %s" % (st.returncode, err))
    cout, err = cl.communicate(timeout=20)
    cout = heads[1] + cout
    check(cl.returncode == 0, "cluster csv exit %d: %s" % (cl.returncode, err))
    rows = [r for r in parse_csv(out) if r["cpu"] == "1"]
    # Offline from the end of the first write to the start of the second,
    # online before the first began and after the second ended.
    (_, off0, off1), (_, on0, on1) = ops
    for r in rows:
        ts = int(r["ts_ns"])
        want = "0" if off1 < ts < on0 else "1" if ts < off0 or ts > on1 else None
        check(want in (None, r["online"]),
              "cpu1 online=%s at %d; offline from %d to %d" %
              (r["online"], ts, off1, on0))
    check(sum(off1 < int(r["ts_ns"]) < on0 for r in rows) >= 4,
          "fewer than four samples while cpu1 was offline")
    found = hotplug_rows(out, ops, "csv")
    print("# hotplug operations on cpu1 took %s ms (the seed's target for "
          "evacuating a CPU: 5 ms)" % [round(ns / 1e6, 2) for _, _, ns in found])
    big = [r for r in parse_csv(cout) if r["cluster"] == "big"]
    check(any(r["nr_online"] == "0" and r["capacity"] == "0" for r in big),
          "the big cluster never showed its CPU gone")
    check(big[-1]["nr_online"] == "1", "big cluster not back: %s" % big[-1])


@test(root=True)
def live_view_shows_offline_cpu():
    need_hotplug()
    t = Tmux(["--topology", TOPO, "-i", "200"])
    try:
        t.wait_for(r"^  cpu1  \[")
        set_online(False)
        t.wait_for(r"^  cpu1  offline")
        set_online(True)
        t.wait_for(r"^  cpu1  \[")
        quit_cleanly(t)
    finally:
        set_online(True)
        t.close()


if __name__ == "__main__":
    run_then_kill_server()
