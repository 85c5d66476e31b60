"""CPU hotplug while schedtop runs: shown as it happens, timed, no crash."""
import json
import os
import re
import shutil
import tempfile
import time

from harness import Skip, check, parse_csv, run, schedtop, start_schedtop, test
from tmux import Tmux, exited_cleanly, kill_server

CPU1 = "/sys/devices/system/cpu/cpu1/online"
TOPO = "LITTLE:0,big:1@1024"


def set_online(on):
    with open(CPU1, "w") as f:
        f.write("1" if on else "0")


def offline_cpu1_for_a_while():
    """cpu1 goes offline 0.7 s from now, online 0.8 s later; 0.7 s more."""
    try:
        time.sleep(0.7)
        set_online(False)
        time.sleep(0.8)
        set_online(True)
        time.sleep(0.7)
    finally:
        set_online(True)


def need_hotplug():
    if not os.path.exists(CPU1):
        raise Skip("cpu1 cannot be taken offline here")


@test(root=True)
def recording_keeps_hotplug_for_report_and_perfetto():
    need_hotplug()
    tmp = tempfile.mkdtemp(prefix="schedtop-hp-")
    rec, js = os.path.join(tmp, "hp.rec"), os.path.join(tmp, "hp.json")
    p = start_schedtop("record", "-q", "-o", rec, "-i", "100", "--topology", TOPO)
    try:
        offline_cpu1_for_a_while()
    finally:
        p.send_signal(2)
    _, err = p.communicate(timeout=20)
    try:
        check(p.returncode == 0, "record exit %d: %s" % (p.returncode, err))
        r = schedtop("report", rec)
        check(r.returncode == 0, "report: %s" % r.stderr)
        out = r.stdout.decode()
        ops = re.findall(r"cpu1 +(offline|online) +\d+ ops?, took ([\d.]+) ms", out)
        check([o for o, _ in ops] == ["offline", "online"],
              "report's hotplug lines: %s\n%s" % (ops, out))
        r = schedtop("convert", rec, "--perfetto", "-o", js)
        check(r.returncode == 0, "convert: %s" % r.stderr)
        with open(js) as f:
            evs = json.load(f)["traceEvents"]
        names = [e["name"] for e in evs if e["ph"] == "i" and e["name"].startswith("cpu1")]
        check(names == ["cpu1 offline", "cpu1 online"], "perfetto hotplug: %s" % names)
        online = [e["args"]["online"] for e in evs
                  if e["ph"] == "C" and e["name"] == "cpu1 online"]
        check(online[:3] == [1, 0, 1], "cpu1 online track: %s" % online)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@test(root=True)
def csv_shows_offline_and_times_the_operations():
    need_hotplug()
    st = start_schedtop("csv", "-t", "cpu", "-i", "100", "--topology", TOPO)
    cl = start_schedtop("csv", "-t", "cluster", "-i", "100", "--topology", TOPO)
    try:
        offline_cpu1_for_a_while()
    finally:
        for p in (st, cl):
            p.send_signal(2)
    out, err = st.communicate(timeout=20)
    check(st.returncode == 0, "cpu csv exit %d: %s" % (st.returncode, err))
    cout, err = cl.communicate(timeout=20)
    check(cl.returncode == 0, "cluster csv exit %d: %s" % (cl.returncode, err))
    rows = [r for r in parse_csv(out) if r["cpu"] == "1"]
    states = [r["online"] for r in rows]
    # online, then offline for a while, then online again
    first_off = states.index("0")
    back_on = states.index("1", first_off)
    check(first_off > 0 and back_on - first_off >= 4, "online column %s" % states)
    ops = [(int(r["hotplug_ops"]), int(r["hotplug_ns"])) for r in rows
           if r["hotplug_ops"] not in ("", "0")]
    check(sum(n for n, _ in ops) == 2, "hotplug operations counted: %s" % ops)
    took = [int(r["hotplug_ns"]) for r in rows if r["hotplug_ns"] not in ("", "0")]
    print("# hotplug operations on cpu1 took %s ms (the seed's target for "
          "evacuating a CPU: 5 ms)" % [round(t / 1e6, 2) for t in took])
    check(took and all(0 < t < 2e9 for t in took), "durations %s" % took)
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
        t.keys("q")
        exited_cleanly(t)
    finally:
        set_online(True)
        t.close()


if __name__ == "__main__":
    try:
        run()
    finally:
        kill_server()
