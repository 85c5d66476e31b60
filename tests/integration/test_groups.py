"""Group entities: a cgroup's sched_entity per CPU, told apart from tasks."""
import os
import time

from harness import (RtApp, Skip, check, parse_csv, periodic, run,
                     start_schedtop, test)


def cpu_cgroup_root():
    """A mounted cgroup hierarchy with the cpu controller, and its version."""
    with open("/proc/mounts") as f:
        for line in f:
            dev, path, fstype, opts = line.split()[:4]
            if fstype == "cgroup" and "cpu" in opts.split(","):
                return path, 1
            if fstype == "cgroup2":
                with open(os.path.join(path, "cgroup.controllers")) as c:
                    if "cpu" in c.read().split():
                        return path, 2
    raise Skip("no cgroup hierarchy with the cpu controller is mounted")


def stop(proc):
    proc.send_signal(2)
    out, err = proc.communicate(timeout=20)
    check(proc.returncode == 0, err.decode(errors="replace"))
    return out


@test(root=True)
def cgroup_entity_carries_its_task_util():
    root, version = cpu_cgroup_root()
    name = "schedtop-test-%d" % os.getpid()
    path = os.path.join(root, name)
    os.mkdir(path)
    ino = os.stat(path).st_ino
    os.sched_setaffinity(0, {0})
    rt = RtApp({"grouped": periodic(1, 0.5, name="grouped")}, duration=4)
    try:
        if version == 2:
            with open(os.path.join(root, "cgroup.subtree_control"), "w") as f:
                f.write("+cpu")
        procs = "tasks" if version == 1 else "cgroup.threads"
        with open(os.path.join(path, procs), "w") as f:
            f.write(str(rt.tids["grouped"]))
        st = start_schedtop("csv", "-t", "group", "-i", "100",
                            "--topology", "LITTLE:0,big:1@1024")
        tasks = start_schedtop("csv", "-t", "task", "-i", "100", "-p",
                               str(rt.tids["grouped"]))
        time.sleep(2.5)
        groups = parse_csv(stop(st))
        trows = parse_csv(stop(tasks))
    finally:
        rt.stop()
        for _ in range(50):
            try:
                os.rmdir(path)
                break
            except OSError:
                time.sleep(0.1)
    mine = [g for g in groups if g["cgroup"] == "/" + name and g["cpu"] == "1"]
    check(len(mine) >= 10, "group /%s on cpu1 in %d rows" % (name, len(mine)))
    tail = mine[len(mine) // 2:]
    g_util = sum(int(g["util_avg"]) for g in tail) / len(tail)
    t_tail = trows[len(trows) // 2:]
    t_util = sum(int(t["util_avg"]) for t in t_tail) / len(t_tail)
    print("# group entity util %.0f on cpu1, its only task %.0f" % (g_util, t_util))
    check(abs(g_util - t_util) <= 0.15 * 1024,
          "group util %.0f vs task util %.0f" % (g_util, t_util))
    check(all(g["cluster"] == "big" and int(g["depth"]) == 0 for g in mine),
          "cluster or depth wrong")
    check(all(int(g["cgroup_id"]) == ino for g in mine),
          "cgroup_id is not the inode of the cgroup directory (%d)" % ino)
    # A task's own row is never mistaken for a group entity.
    check(not any(g["cgroup"] == "grouped" for g in groups), "task in group table")


if __name__ == "__main__":
    run()
