"""The library stands in floors and the front end in rooms (docs/design.md).

Every arrow between two files is read from what the build holds: an
#include "x.h" (resolved as the compiler does: the includer's folder first,
then the include path), and a symbol that one object leaves undefined
(nm's U) and another defines (a call, or a table or variable used). Then:

- a library folder uses only folders of floors below its own: never one
  above, nor a peer of its floor;
- no two files of one folder use each other in a circle, and no two rooms
  of the front end either;
- a private header's name is one file's, as bare-name includes need.

A new library folder goes into FLOORS, at the floor its arrows allow.
"""
import collections
import functools
import os
import re
import subprocess

from harness import OUT, SRC, check, run, test

# Bottom to top. A folder may use folders of lower floors only; folders of
# one floor know nothing of each other.
FLOORS = [
    ["base"],                               # hash, errors, comm, util, kernel numbers
    ["topology"],                           # clusters, CPU sets, sysfs
    ["model"],                              # one update, snapshots, PELT arithmetic
    ["engine", "energy", "cpu_exit"],       # PELT from events; power; hotplug
    ["record"],                             # recordings
    ["sources", "export"],                  # BPF, tracefs; writers of outside formats
    ["traces", "emulate", "workload"],      # trace files; capabilities
    ["session"],                            # the roof: one handle over a source
]
# Headers every folder may include: the public API, the BPF contract, the
# generated skeleton.
SHARED = ("include", "bpf", "<build>")

LIB = "libschedstat"
APP = "schedtop"


def floor_of():
    return {f: i for i, names in enumerate(FLOORS) for f in names}


def sources(top):
    """{folder: [file path relative to SRC]} of one tree, .c and .h."""
    out = collections.defaultdict(list)
    root = os.path.join(SRC, top)
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(dirpath, f), SRC)
                out[os.path.relpath(dirpath, SRC)].append(rel)
    return out


def header_index(folders):
    """{header name: [folders holding it]} over @folders and the shared."""
    idx = collections.defaultdict(list)
    for folder in list(folders) + ["include", "bpf"]:
        d = os.path.join(SRC, folder)
        for f in os.listdir(d) if os.path.isdir(d) else ():
            if f.endswith(".h"):
                idx[f].append(folder)
    return idx


def include_arrows(files, idx):
    """[(from folder, to folder, 'file -> header')] for quoted includes."""
    arrows = []
    for path in files:
        here = os.path.dirname(path)
        with open(os.path.join(SRC, path), errors="replace") as f:
            for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M):
                base = os.path.basename(name)
                if os.path.exists(os.path.join(SRC, here, name)):
                    to = here
                elif base in idx:
                    to = idx[base][0]
                elif base.endswith(".skel.h"):
                    to = "<build>"
                else:
                    continue        # a system header in quotes, or generated
                arrows.append((here, to, "%s includes %s" % (path, name)))
    return arrows


def call_arrows(c_files):
    """[(from file, to file, symbol)] between the objects of @c_files."""
    objs = {}
    for path in c_files:
        obj = os.path.join(OUT, "obj", path[:-2] + ".o")
        check(os.path.exists(obj), "%s is not built (make first)" % obj)
        objs[obj] = path
    r = subprocess.run(["nm", "-A"] + sorted(objs), capture_output=True, text=True)
    check(r.returncode == 0, "nm: %s" % r.stderr)
    owner, undefined = {}, collections.defaultdict(set)
    for line in r.stdout.splitlines():
        obj, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) == 3 and parts[1] in "TDBRGSVW":
            owner[parts[2]] = objs[obj]
        elif len(parts) == 2 and parts[0] == "U":
            undefined[objs[obj]].add(parts[1])
    return [(path, owner[s], s) for path in sorted(undefined)
            for s in sorted(undefined[path]) if s in owner and owner[s] != path]


def circles(edges):
    """Strongly connected sets of more than one node (Tarjan), sorted."""
    graph = collections.defaultdict(set)
    for a, b in edges:
        if a != b:
            graph[a].add(b)
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


@functools.lru_cache(maxsize=None)
def all_arrows():
    """Every file-to-file arrow of the library and the front end:
    [(from file or folder, to file or folder, why)] and the folders."""
    lib, app = sources(LIB), sources(APP)
    folders = dict(lib)
    folders.update(app)
    idx = header_index(folders)
    files = [p for fs in folders.values() for p in fs]
    inc = include_arrows(files, idx)
    calls = call_arrows([p for p in files if p.endswith(".c")])
    return lib, app, idx, inc, calls


def short(folder):
    return folder.split("/", 1)[1] if "/" in folder else folder


@test
def every_library_folder_is_on_a_floor():
    lib = sources(LIB)
    floors = floor_of()
    for folder in sorted(lib):
        if folder == LIB:
            check(not [p for p in lib[folder] if p.endswith((".c", ".h"))],
                  "%s holds sources outside the floors" % folder)
            continue
        check(short(folder) in floors,
              "%s is on no floor: put it into FLOORS of "
              "tests/integration/test_layers.py (and docs/design.md)" % folder)


@test
def header_names_are_unique():
    lib, app = sources(LIB), sources(APP)
    folders = list(lib) + list(app)
    idx = header_index(folders)
    for name, where in sorted(idx.items()):
        check(len(where) == 1, "%s is in %s: a bare #include cannot tell "
              "them apart" % (name, ", ".join(where)))


@test
def no_arrow_runs_up_or_across_a_floor():
    """Includes and symbols of every library file go down the floors."""
    _, _, _, inc, calls = all_arrows()
    floors = floor_of()
    bad = []
    arrows = [(a, b, why) for a, b, why in inc]
    arrows += [(os.path.dirname(a), os.path.dirname(b),
                "%s uses %s (%s)" % (a, s, os.path.basename(b)))
               for a, b, s in calls]
    seen = 0
    for a, b, why in arrows:
        if not a.startswith(LIB + "/") or a == b or b in SHARED:
            continue
        seen += 1
        fa, fb = floors.get(short(a)), floors.get(short(b))
        if not b.startswith(LIB + "/"):
            bad.append("%s: the library reaches out of it" % why)
        elif fa is None or fb is None:
            bad.append("%s: %s is on no floor" %
                       (why, short(a) if fa is None else short(b)))
        elif fb > fa:
            bad.append("%s: %s is above %s" % (why, short(b), short(a)))
        elif fb == fa:
            bad.append("%s: %s and %s share a floor" % (why, short(a), short(b)))
    # The library has hundreds of arrows between its folders: a parse
    # that finds few has read nothing.
    check(seen >= 200, "only %d arrows between library folders read" % seen)
    check(not bad, "%d arrows against the floors:\n  %s" %
          (len(bad), "\n  ".join(sorted(set(bad)))))


@test
def no_circle_between_files_of_a_folder():
    """Files split by size and not by meaning call each other both ways."""
    _, _, _, _, calls = all_arrows()
    same = [(a, b) for a, b, _ in calls if os.path.dirname(a) == os.path.dirname(b)]
    check(len(same) >= 100, "only %d calls within folders read" % len(same))
    found = circles(same)
    why = collections.defaultdict(list)
    for a, b, s in calls:
        why[(a, b)].append(s)
    lines = []
    for comp in found:
        for a in comp:
            for b in comp:
                if (a, b) in why:
                    lines.append("%s -> %s (%s)" % (a, b, ", ".join(why[(a, b)][:3])))
    check(not found, "%d circles among the files of one folder:\n  %s" %
          (len(found), "\n  ".join(lines)))


@test
def no_circle_between_rooms():
    """The front end's rooms (and main.c above them) use each other one way."""
    _, _, _, inc, calls = all_arrows()
    edges = [(a, b) for a, b, _ in inc if a.startswith(APP) and b.startswith(APP)]
    edges += [(os.path.dirname(a), os.path.dirname(b)) for a, b, _ in calls
              if a.startswith(APP) and b.startswith(APP)]
    found = circles(edges)
    check(not found, "rooms in a circle: %s" % found)


@test
def design_map_is_the_floors():
    """docs/design.md's map of the floors is FLOORS: a newcomer reads one."""
    with open(os.path.join(SRC, "docs", "design.md")) as f:
        text = f.read()
    block = text.split("### The library's floors", 1)[1].split("```")[1]
    floors, n = collections.defaultdict(list), None
    for line in block.splitlines():
        m = re.match(r"^\s{1,4}(\d+)?\s+([a-z_]+)/\s", line)
        if m:
            n = int(m.group(1)) if m.group(1) else n
            floors[n].append(m.group(2))
    want = {i: sorted(names) for i, names in enumerate(FLOORS)}
    got = {i: sorted(names) for i, names in floors.items()}
    check(got == want, "docs/design.md's floors %s, FLOORS %s" % (got, want))


if __name__ == "__main__":
    run()
