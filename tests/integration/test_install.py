"""make install / make uninstall, and a program built against the installed
library with pkg-config alone.

Everything goes below a temporary DESTDIR (PREFIX=/usr, as a distribution
package would build it); nothing on this machine outside it is touched.
The program's topology is compared with what sysfs itself says.
"""
import atexit
import filecmp
import os
import re
import shutil
import subprocess
import tempfile

from harness import BIN, SRC, Skip, check, run, schedtop, test

DEST = tempfile.mkdtemp(prefix="schedtop-install-")
atexit.register(shutil.rmtree, DEST, True)
# The build directory tests/run points at (make OUT=dir check).
OUT = os.path.relpath(os.path.dirname(BIN), SRC)
FILES = ["usr/bin/schedtop", "usr/share/man/man1/schedtop.1",
         "usr/lib/libschedstat.a", "usr/include/schedstat.h",
         "usr/lib/pkgconfig/libschedstat.pc",
         "usr/share/bash-completion/completions/schedtop",
         "usr/share/schedtop/perfetto-sched.pbtx"] + [
             "usr/share/schedtop/workloads/" + f
             for f in os.listdir(os.path.join(SRC, "workloads")) if f.endswith(".json")]

# Ten lines of a library user: the clusters of this machine.
PROGRAM = r"""
#include <stdio.h>
#include <schedstat.h>
int main(void)
{
	struct schedstat_topology *t;
	char cpus[SCHEDSTAT_CPULIST_LEN];
	int err = schedstat_topology_detect(&t, NULL);

	if (err)
		return fprintf(stderr, "%s\n", schedstat_strerror(err)), 1;
	for (int i = 0; i < schedstat_topology_nr_clusters(t); i++)
		if (!schedstat_topology_cluster_cpulist(t, i, cpus, sizeof(cpus)))
			printf("%s %u\n", cpus, schedstat_topology_cluster_capacity(t, i));
	schedstat_topology_free(t);
	return 0;
}
"""


def make(*targets):
    r = subprocess.run(["make", "-s", "-C", SRC, "OUT=" + OUT, "PREFIX=/usr",
                        "DESTDIR=" + DEST] + list(targets),
                       capture_output=True, text=True)
    check(r.returncode == 0, "make %s: %s" % (" ".join(targets), r.stderr))


def installed_files():
    return sorted(os.path.relpath(os.path.join(d, f), DEST)
                  for d, _, fs in os.walk(DEST) for f in fs)


def cpulist(text):
    cpus = set()
    for part in text.strip().split(","):
        a, _, b = part.partition("-")
        cpus.update(range(int(a), int(b or a) + 1))
    return cpus


def sysfs_clusters():
    """{capacity: set of CPUs} from /sys alone: CPUs grouped by
    cpu_capacity (1024 where the kernel has none), as the kernel sees
    asymmetry."""
    root = "/sys/devices/system/cpu"
    with open(os.path.join(root, "possible")) as f:
        possible = cpulist(f.read())
    groups = {}
    for cpu in possible:
        try:
            with open(os.path.join(root, "cpu%d" % cpu, "cpu_capacity")) as f:
                cap = int(f.read())
        except OSError:
            cap = 1024
        groups.setdefault(cap, set()).add(cpu)
    return groups


def help_options(cmd):
    r = schedtop(*(cmd + ["--help"]))
    check(r.returncode == 0, "schedtop %s --help failed" % cmd)
    text = r.stdout.decode()
    # The option lines ("  -i, --interval MS"), not options named in prose.
    opts = []
    for short, long in re.findall(r"^\s+(?:(-[a-zA-Z]), )?(--[a-z][a-z-]+)",
                                  text, re.M):
        opts.extend(o for o in (short, long) if o)
    # csv --help once listed -p and -c twice.
    twice = sorted(set(o for o in opts if opts.count(o) > 1))
    check(not twice, "schedtop %s --help lists %s more than once" %
          (" ".join(cmd), ", ".join(twice)))
    return set(opts)


def complete(words):
    """What the installed completion offers for @words (the last one being
    completed)."""
    script = os.path.join(DEST, FILES[5])
    line = "source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _schedtop; " \
           "printf '%%s\\n' \"${COMPREPLY[@]}\"" % (
               script, " ".join("'%s'" % w for w in words), len(words) - 1)
    r = subprocess.run(["bash", "-c", line], capture_output=True, text=True)
    check(r.returncode == 0, "completion failed: %s" % r.stderr)
    return set(r.stdout.split())


@test
def install_puts_every_file_in_place():
    make("install")
    check(installed_files() == sorted(FILES),
          "installed %s, expected %s" % (installed_files(), sorted(FILES)))
    check(filecmp.cmp(os.path.join(DEST, "usr/include/schedstat.h"),
                      os.path.join(SRC, "include", "schedstat.h"), False),
          "installed header differs from include/schedstat.h")
    check(filecmp.cmp(os.path.join(DEST, "usr/share/man/man1/schedtop.1"),
                      os.path.join(SRC, "docs", "schedtop.1"), False),
          "installed man page differs from docs/schedtop.1")
    r = subprocess.run([os.path.join(DEST, "usr/bin/schedtop"), "--version"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout.startswith("schedtop "),
          "installed schedtop --version: %r %r" % (r.stdout, r.stderr))
    with open(os.path.join(DEST, "usr/lib/pkgconfig/libschedstat.pc")) as f:
        pc = f.read()
    # The .pc names where the files are at run time, never DESTDIR.
    check("prefix=/usr\n" in pc and DEST not in pc, pc)


@test
def program_builds_with_pkg_config_alone():
    if not shutil.which("pkg-config"):
        raise Skip("no pkg-config")
    if not os.path.exists(os.path.join(DEST, FILES[4])):
        make("install")
    env = dict(os.environ, PKG_CONFIG_SYSROOT_DIR=DEST,
               PKG_CONFIG_PATH=os.path.join(DEST, "usr/lib/pkgconfig"))
    r = subprocess.run(["pkg-config", "--cflags", "--libs", "libschedstat"],
                       capture_output=True, text=True, env=env)
    check(r.returncode == 0, "pkg-config: %s" % r.stderr)
    flags = r.stdout.split()
    # No way into the source tree: only what was installed.
    check(not any(SRC in f for f in flags), "pkg-config points into %s" % SRC)
    src = os.path.join(DEST, "topo.c")
    exe = os.path.join(DEST, "topo")
    with open(src, "w") as f:
        f.write(PROGRAM)
    r = subprocess.run(["cc", "-o", exe, src] + flags, capture_output=True,
                       text=True)
    check(r.returncode == 0, "cc %s: %s" % (" ".join(flags), r.stderr))
    r = subprocess.run([exe], capture_output=True, text=True)
    check(r.returncode == 0, "the program failed: %s" % r.stderr)
    got = {}
    for line in r.stdout.splitlines():
        cpus, cap = line.split()
        got[int(cap)] = cpulist(cpus)
    want = sysfs_clusters()
    check(got == want, "the program sees %s, /sys says %s" % (got, want))
    os.unlink(src)
    os.unlink(exe)


@test
def completion_offers_what_help_documents():
    if not shutil.which("bash"):
        raise Skip("no bash")
    if not os.path.exists(os.path.join(DEST, FILES[5])):
        make("install")
    r = schedtop("--help")
    commands = set(re.findall(r"^  ([a-z]+)  ", r.stdout.decode(), re.M))
    check(complete(["schedtop", ""]) == commands,
          "commands completed: %s, in --help: %s" %
          (complete(["schedtop", ""]), commands))
    for cmd in [[]] + [[c] for c in sorted(commands)]:
        want = help_options(cmd)
        got = complete(["schedtop"] + cmd + ["-"])
        check(got == want, "schedtop %s: completion offers %s, --help lists %s"
              % (" ".join(cmd), sorted(got), sorted(want)))
    tables = set(re.findall(r"^## (\w+) table$", schedtop(
        "csv", "--list-columns").stdout.decode(), re.M))
    check(complete(["schedtop", "csv", "-t", ""]) == tables,
          "tables completed: %s, documented: %s" %
          (complete(["schedtop", "csv", "-t", ""]), tables))
    check(complete(["schedtop", "--source", ""]) == {"auto", "bpf", "tracefs"},
          "--source values: %s" % complete(["schedtop", "--source", ""]))


@test
def license_is_the_gpl_2_the_spdx_lines_name():
    with open(os.path.join(SRC, "LICENSE")) as f:
        text = f.read()
    check("GNU GENERAL PUBLIC LICENSE" in text and "Version 2, June 1991"
          in text, "LICENSE is not the GPL-2.0 text")
    for top in ("libschedstat", "schedtop", "bpf", "include"):
        for name in os.listdir(os.path.join(SRC, top)):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(SRC, top, name)) as f:
                first = f.readline()
            check("SPDX-License-Identifier: GPL-2.0" in first or
                  name == "kernel_types.h",
                  "%s/%s: no GPL-2.0 SPDX line" % (top, name))


@test
def uninstall_removes_every_file():
    if not os.path.exists(os.path.join(DEST, FILES[0])):
        make("install")
    make("uninstall")
    check(installed_files() == [], "left behind: %s" % installed_files())


if __name__ == "__main__":
    run()
