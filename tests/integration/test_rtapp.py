"""schedtop workload FILE against the real rt-app, on the field's own files.

Debian's rt-app 1.0 (through workgen, as Debian's files need) runs a use
case from /usr/share/doc/rt-app/examples/ on this machine, then schedtop
runs the same file unchanged, each pinned alike and each for the same 10 s
from the moment all its threads exist. Per thread, the kernel's account
(/proc/PID/task/TID/schedstat read during the run) gives each one's run
time, and each one's log (rt-app's own; schedtop's --rt-app-log, in rt-app's
format) its activations: the passes that began in the window.

rt-app's "run" is its own calibration's: pLoad, an integer of ns per loop
(10 here for a loop of 10.7 ns), makes its run of N us last up to 10%
longer than N us. Its log says how much: the run column over c_duration of
its passes (the 5th percentile: a pass preempted only takes longer).
schedtop runs with --scale of that ratio, so that both do the same work;
its own calibration is checked by test_workload.py (scale_doubles_...).

Also: every file of Debian's examples directory runs or is refused with
its one line, as docs/workloads.md lists them; the built-in browse runs in
rt-app as it is (it is an rt-app file); bad input gets one line before
anything runs; and a deadline policy the kernel refuses stops the run
before any pass.
"""
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from harness import (BIN, SRC, Inconclusive, Skip, check, mono_ns, run,
                     schedtop, start_schedtop, test)

EXAMPLES = "/usr/share/doc/rt-app/examples"
WINDOW_NS = 10_000_000_000
# Both on one CPU: the same preemptions, no migration. mp3's AudioTick
# names CPU 0 itself, in both.
CPUS = "1"
TOPO = "LITTLE:0@1024,big:1@1024"
CALIB = tempfile.NamedTemporaryFile(prefix="schedtop-calib-", delete=False).name
os.unlink(CALIB)
# A thread whose run time is within 3% of rt-app's. Threads that run less
# than this in the window are woken and go back to sleep, their CPU time
# the syscalls' and the wakeups' of each program (not compared to 3%).
MIN_RUN_NS = 100_000_000


def need_rtapp():
    if not shutil.which("rt-app") or not shutil.which("workgen"):
        raise Skip("rt-app not installed (Debian's rt-app package)")
    if not os.path.isdir(EXAMPLES):
        raise Skip("no %s" % EXAMPLES)


def tasks_of(path):
    """The task names of an rt-app file, in order (json-c keeps it), with
    their instances: rt-app's thread index order."""
    with open(path) as f:
        text = f.read()
    # Debian's files are not JSON (bare "suspend", repeated keys): the
    # task names are the keys one level inside "tasks".
    out, depth, in_tasks = [], 0, False
    for m in re.finditer(r'"([^"]*)"\s*:\s*\{|\{|\}', text):
        tok = m.group(0)
        if tok.endswith("{"):
            if in_tasks and depth == 2 and m.group(1) is not None:
                out.append(m.group(1))
            if m.group(1) == "tasks" and depth == 1:
                in_tasks = True
            depth += 1
        else:
            depth -= 1
            if in_tasks and depth == 1:
                in_tasks = False
    return out


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def tids_of(pid):
    try:
        return sorted(int(t) for t in os.listdir("/proc/%d/task" % pid) if int(t) != pid)
    except OSError:
        return []


def run_ns(pid, tid):
    try:
        with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
            return int(f.read().split()[0])
    except OSError:
        return None


def window(pid_of, nthreads, proc):
    """Waits until the process pid_of() has @nthreads threads besides its
    main one, then reads each one's run time at the start and the end of
    a 10 s window. Returns (t0, t1, {tid: run_ns in the window})."""
    deadline = time.monotonic() + 60
    pid = tids = None
    while time.monotonic() < deadline and proc.poll() is None:
        pid = pid_of()
        tids = tids_of(pid) if pid else []
        if len(tids) >= nthreads:
            break
        time.sleep(0.005)
    check(pid and len(tids) >= nthreads, "only %s threads of %d appeared (exit %s)"
          % (len(tids or []), nthreads, proc.poll()))
    t0 = mono_ns()
    r0 = {t: run_ns(pid, t) for t in tids}
    time.sleep((WINDOW_NS - (mono_ns() - t0)) / 1e9)
    t1 = mono_ns()
    r1 = {t: run_ns(pid, t) for t in tids}
    return pid, t0, t1, {t: r1[t] - r0[t] for t in tids}


def passes(logdir, basename, task, ind, t0, t1):
    """Passes of a thread's rt-app log that began in [t0, t1) (ns), and the
    ratios run/c_duration of those with 1 ms or more of run."""
    n, ratios = 0, []
    with open(os.path.join(logdir, "%s-%s-%d.log" % (basename, task, ind))) as f:
        for line in f:
            if line.startswith("#"):
                continue
            v = line.split()
            start = int(v[4]) * 1000
            if t0 <= start < t1:
                n += 1
            if int(v[8]) >= 1000:
                ratios.append(int(v[2]) / int(v[8]))
    return n, ratios


def percentile(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p / 100))]


def rtapp_run(path, nthreads, work):
    """rt-app (workgen) on @path for the window; its threads' run time,
    its log directory and its own pid."""
    log = open(os.path.join(work, "rt-app.out"), "wb")
    p = subprocess.Popen(["taskset", "-c", CPUS, "workgen", path], cwd=work,
                         stdout=log, stderr=log, start_new_session=True)
    try:
        pid, t0, t1, ran = window(lambda: next(iter(children(p.pid)), None), nthreads, p)
    finally:
        # workgen ignores the signal; rt-app stops its threads and writes
        # its logs.
        try:
            os.killpg(p.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        p.wait(60)
        log.close()
    return pid, t0, t1, ran


def schedtop_run(path, nthreads, scale, logdir):
    p = start_schedtop("workload", path, "--cpus", CPUS, "--scale", "%.4f" % scale,
                       "--json", "--rt-app-log", logdir, "--calibration", CALIB,
                       "--topology", TOPO, "-d", "120")
    try:
        pid, t0, t1, ran = window(lambda: p.pid, nthreads, p)
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    check(p.returncode == 0, err)
    return json.loads(out), t0, t1, ran


def compare_with_rtapp(name):
    """@name-long.json (the -short one's twin, 600 s long), 10 s of each."""
    need_rtapp()
    path = os.path.join(EXAMPLES, name + "-long.json")
    if not os.path.exists(path):
        path += ".gz"
    if path.endswith(".gz"):
        plain = os.path.join(tempfile.mkdtemp(prefix="schedtop-rtapp-"), name + "-long.json")
        with gzip.open(path) as f, open(plain, "wb") as o:
            o.write(f.read())
        path = plain
    tasks = tasks_of(path)
    n = len(tasks)
    basename = re.search(r'"log_basename"\s*:\s*"([^"]*)"', open(path).read()).group(1)
    work = tempfile.mkdtemp(prefix="schedtop-rtapp-")
    ours = tempfile.mkdtemp(prefix="schedtop-rtlog-")
    try:
        # rt-app first: its log says how long its runs are.
        _, rt0, rt1, rt_ran = rtapp_run(path, n, work)
        ratios, rt_passes = [], []
        for i, task in enumerate(tasks):
            k, r = passes(work, basename, task, i, rt0, rt1)
            rt_passes.append(k)
            ratios += r
        check(len(ratios) > 50, "rt-app's log has %d runs of 1 ms or more" % len(ratios))
        scale = percentile(ratios, 5)
        s, st0, st1, st_ran = schedtop_run(path, n, scale, ours)
        st_passes = [passes(ours, basename, task, i, st0, st1)[0]
                     for i, task in enumerate(tasks)]
        st_tids = [t["tid"] for t in s["threads"]]
        rt_tids = sorted(rt_ran)
        print("# %s: rt-app's runs last %.3fx their us (its pLoad), schedtop "
              "ran with --scale %.3f" % (name, scale, scale))
        print("# %-18s %10s %10s %7s %8s %8s" % ("thread", "rt-app ms", "schedtop", "ratio",
                                              "passes", "rt-app"))
        bad = []
        compared = 0
        for i, task in enumerate(tasks):
            a, b = rt_ran[rt_tids[i]], st_ran[st_tids[i]]
            ratio = b / a if a else float("inf")
            print("# %-18s %10.2f %10.2f %7.3f %8d %8d" % (task, a / 1e6, b / 1e6, ratio,
                                                        st_passes[i], rt_passes[i]))
            if abs(st_passes[i] - rt_passes[i]) > 2:
                bad.append("%s: %d passes, rt-app %d" % (task, st_passes[i], rt_passes[i]))
            if a >= MIN_RUN_NS:
                compared += 1
                if abs(ratio - 1) > 0.03:
                    bad.append("%s: ran %.1f ms, rt-app %.1f ms" % (task, b / 1e6, a / 1e6))
        check(compared >= 3, "only %d threads ran %d ms in rt-app" % (compared, MIN_RUN_NS / 1e6))
        check(not bad, "; ".join(bad))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(ours, ignore_errors=True)


@test(root=True)
def video_short_as_rtapp_runs_it():
    compare_with_rtapp("video")


@test(root=True)
def mp3_short_as_rtapp_runs_it():
    compare_with_rtapp("mp3")


def documented_examples():
    """{path below EXAMPLES: "runs" or the start of its refusal} from the
    table of docs/workloads.md ("Debian's rt-app examples")."""
    out = {}
    with open(os.path.join(SRC, "docs", "workloads.md")) as f:
        for line in f:
            m = re.match(r"\| `([^`]+)` \| (runs|refused: `([^`]*)`)", line)
            if m:
                out[m.group(1)] = "runs" if m.group(2) == "runs" else m.group(3)
    return out


@test(root=True)
def every_debian_example_runs_or_is_refused():
    """Each file of the examples directory: a run of it ends well, or one
    line says why not, as docs/workloads.md says file by file."""
    need_rtapp()
    files = sorted(os.path.relpath(os.path.join(d, f), EXAMPLES)
                   for d, _, fs in os.walk(EXAMPLES) for f in fs)
    doc = documented_examples()
    check(sorted(doc) == files, "docs/workloads.md lists %s, the directory holds %s"
          % (sorted(set(doc) ^ set(files)), len(files)))
    ran = refused = 0
    with tempfile.TemporaryDirectory() as logs:
        for rel in files:
            path = os.path.join(EXAMPLES, rel)
            r = schedtop("workload", path, "-d", "0.3", "-i", "100", "--json",
                         "--calibration", CALIB, "--topology", TOPO,
                         "--rt-app-log", os.path.join(logs, rel.replace("/", "_")))
            err = r.stderr.decode(errors="replace")
            if doc[rel] == "runs":
                check(r.returncode == 0, "%s: exit %d: %s" % (rel, r.returncode, err))
                s = json.loads(r.stdout)
                check(s["threads"] and all(t["tid"] > 0 for t in s["threads"]),
                      "%s: threads %s" % (rel, s["threads"]))
                ran += 1
            else:
                lines = [l for l in err.splitlines() if not l.startswith("schedtop: calibrated")]
                check(r.returncode in (1, 2) and len(lines) == 1 and
                      lines[0].startswith("schedtop: " + path + ":") and doc[rel] in lines[0],
                      "%s: exit %d, want one line with %r: %r" % (rel, r.returncode, doc[rel], err))
                refused += 1
    print("# %d files run, %d refused with one line" % (ran, refused))


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


BAD = [
    ("malformed.json", '{ "tasks": { "a": { "run": 1000 }\n', "2: the file ends inside an object"),
    ("unknown-event.json", '{ "tasks": { "a": {\n "run": 1000, "spin": 5 } } }',
     "2: task 'a': key 'spin': schedtop does not support this key in a task"),
    ("resume-nobody.json", '{ "tasks": { "a": {\n "run": 1000, "resume": "b" } } }',
     "2: task 'a': key 'resume': no task suspends on 'b'"),
    ("loop-0.json", '{ "tasks": { "a": {\n "loop": 0, "run": 1000 } } }',
     "2: task 'a': key 'loop': a loop of 0"),
    ("negative.json", '{ "tasks": { "a": { "run": 1000,\n "sleep": -20 } } }',
     "2: task 'a': key 'sleep': a negative value (-20)"),
    ("tasks-10000.json", '{ "tasks": {\n' +
     ",\n".join('"t%d": { "run": 10 }' % i for i in range(10000)) + "\n} }",
     "1026: task 't1024': more than 1024 threads (10000 tasks)"),
]


@test(root=True)
def bad_input_one_line_before_anything_runs():
    with tempfile.TemporaryDirectory() as d:
        for name, text, want in BAD:
            path = write(d, name, text)
            t0 = time.monotonic()
            r = schedtop("workload", path, "--calibration", CALIB, "--topology", TOPO)
            err = r.stderr.decode()
            check(r.returncode == 1 and err.count("\n") == 1 and
                  err.startswith("schedtop: %s:%s" % (path, want)),
                  "%s: exit %d, stderr %r" % (name, r.returncode, err))
            # Refused before the session: no BPF loaded, no thread made.
            check(time.monotonic() - t0 < 2, "%s took %.1f s to refuse" % (name, time.monotonic() - t0))


@test(root=True)
def deadline_refused_by_the_kernel_stops_before_any_pass():
    """Three threads asking 90% of a CPU each under SCHED_DEADLINE: the
    kernel's admission control (95% of the CPUs' time for RT and DL,
    sched_rt_runtime_us) takes the first two and refuses the third
    (EBUSY). The run stops before any thread began: rt-app's logs hold
    their headers only, and no thread of schedtop's is left."""
    text = """{ "tasks": { "dl": { "instance": 3, "policy": "SCHED_DEADLINE",
        "dl-runtime": 9000, "dl-period": 10000, "loop": -1,
        "run": 100, "timer": { "ref": "unique", "period": 10000 } } },
      "global": { "duration": 2 } }"""
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "dl.json", text)
        logs = os.path.join(d, "logs")
        r = schedtop("workload", path, "--calibration", CALIB, "--topology", TOPO,
                     "--rt-app-log", logs)
        err = r.stderr.decode()
        lines = [l for l in err.splitlines() if not l.startswith("schedtop: calibrated")]
        check(r.returncode == 1 and len(lines) == 1 and
              "task 'dl': the kernel refused SCHED_DEADLINE (runtime 9000, deadline 10000, period 10000 us)" .replace("us)", "µs)") in lines[0] and
              "Device or resource busy" in lines[0], "exit %d: %r" % (r.returncode, err))
        for f in os.listdir(logs):
            with open(os.path.join(logs, f)) as lf:
                body = [l for l in lf if not l.startswith("#")]
            check(not body, "%s: passes ran before the refusal: %s" % (f, body[:3]))


if __name__ == "__main__":
    try:
        run()
    finally:
        if os.path.exists(CALIB):
            os.unlink(CALIB)
