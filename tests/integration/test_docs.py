"""The man page and docs/csv.md stay in step with the program."""
import os
import re

from harness import SRC, check, run, schedtop, test


def between(text, begin, end):
    i = text.index(begin) + len(begin)
    return text[i:text.index(end, i)]


def help_options(*cmd):
    r = schedtop(*cmd, "--help")
    check(r.returncode == 0, "%s --help failed" % (cmd,))
    return set(re.findall(r"--[a-z][a-z-]+", r.stdout.decode()))


@test
def man_page_documents_every_option():
    with open(os.path.join(SRC, "docs", "schedtop.1")) as f:
        man = f.read().replace("\\-", "-")
    for cmd in ((), ("csv",), ("topology",), ("record",), ("replay",),
                ("report",), ("convert",), ("hotplug",), ("emulate",),
                ("energy",), ("workload",)):
        for opt in sorted(help_options(*cmd)):
            check(opt in man, "schedtop %s: %s missing from docs/schedtop.1" %
                  (" ".join(cmd), opt))


@test
def man_page_columns_are_generated():
    with open(os.path.join(SRC, "docs", "schedtop.1")) as f:
        man = f.read()
    got = between(man, ".\\\" BEGIN GENERATED: schedtop csv --list-columns=man\n",
                  ".\\\" END GENERATED")
    r = schedtop("csv", "--list-columns=man")
    check(r.returncode == 0, r.stderr)
    check(got == r.stdout.decode(), "docs/schedtop.1 COLUMNS differ from "
          "'schedtop csv --list-columns=man': regenerate them")


@test
def man_page_workloads_are_generated():
    with open(os.path.join(SRC, "docs", "schedtop.1")) as f:
        man = f.read()
    got = between(man, ".\\\" BEGIN GENERATED: schedtop workload --list=man\n",
                  ".\\\" END GENERATED")
    r = schedtop("workload", "--list=man")
    check(r.returncode == 0, r.stderr)
    check(got == r.stdout.decode(), "docs/schedtop.1 WORKLOADS differ from "
          "'schedtop workload --list=man': regenerate them (make docs)")


@test
def man_page_keys_are_generated():
    with open(os.path.join(SRC, "docs", "schedtop.1")) as f:
        man = f.read()
    got = between(man, ".\\\" BEGIN GENERATED: schedtop --list-keys=man\n",
                  ".\\\" END GENERATED")
    r = schedtop("--list-keys=man")
    check(r.returncode == 0, r.stderr)
    check(got == r.stdout.decode(), "docs/schedtop.1 KEYS differ from "
          "'schedtop --list-keys=man': regenerate them (make docs)")


@test
def key_table_keeps_every_key():
    """The key handler dispatches from the same table that --list-keys
    prints, so a key dropped from the table stops working: every key the
    live view and replay have had is still listed (and so still handled)."""
    r = schedtop("--list-keys")
    check(r.returncode == 0, r.stderr)
    lines = r.stdout.decode().splitlines()
    check(len(lines) >= 15, "few keys: %s" % lines)
    keys = " ".join(line[:14] for line in lines).split()
    for k in ("q", "F10", "h", "?", "F1", "space", "Z", "<", ">", "F6", "I",
              "P", "M", "U", "/", "F3", "\\", "F4", "Esc", "t", "F5", "g",
              "c", "Enter", "+", "-", "PgUp", "PgDn", "Home", "End", ".",
              ",", "[", "]", "{", "}", ":"):
        check(k in keys, "key %s missing from --list-keys" % k)


@test
def csv_doc_columns_are_generated():
    with open(os.path.join(SRC, "docs", "csv.md")) as f:
        doc = f.read()
    got = between(doc, "<!-- BEGIN GENERATED: schedtop csv --list-columns -->\n",
                  "<!-- END GENERATED -->")
    r = schedtop("csv", "--list-columns")
    check(r.returncode == 0, r.stderr)
    check(got.strip() == r.stdout.decode().strip(),
          "docs/csv.md differs from 'schedtop csv --list-columns'")


def tracepoint_table():
    """schedtop --list-tracepoints: its text and {name: (system, bpf, events)}."""
    r = schedtop("--list-tracepoints")
    check(r.returncode == 0, r.stderr)
    text = r.stdout.decode()
    rows = {}
    for line in text.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        system, name = cells[0].strip("`").split(":")
        rows[name] = (system, cells[1], cells[2])
    check(len(rows) >= 20, "few tracepoints: %s" % text)
    return text, rows


@test
def tracepoint_table_is_generated():
    with open(os.path.join(SRC, "docs", "signals.md")) as f:
        doc = f.read()
    got = between(doc, "<!-- BEGIN GENERATED: schedtop --list-tracepoints -->\n",
                  "<!-- END GENERATED -->")
    text, _ = tracepoint_table()
    check(got == text, "docs/signals.md's tracepoint table differs from "
          "'schedtop --list-tracepoints': regenerate it (make docs)")


@test
def bpf_programs_follow_tracepoint_table():
    """The BPF source takes each program's avail bits and opt-in from the
    table row of its tracepoint: every tp_btf program of bpf/schedtop.bpf.c
    has a row that the BPF source reads, and every such row a program."""
    progs = set()
    # schedtop.bpf.c and what it includes (pelt_trace.bpf.h)
    for name in ("schedtop.bpf.c", "pelt_trace.bpf.h"):
        with open(os.path.join(SRC, "bpf", name)) as f:
            progs |= set(re.findall(r'SEC\("tp_btf/(\w+)"\)', f.read()))
    _, rows = tracepoint_table()
    table = {name for name, (_, bpf, _) in rows.items() if bpf}
    check(progs == table, "bpf/schedtop.bpf.c attaches %s; the table has %s "
          "for the BPF source (libschedstat/sources/tracepoints.c)" %
          (sorted(progs - table), sorted(table - progs)))


# Kernel names that look like tracepoints and are not read by any source.
NOT_TRACEPOINTS = {
    "sched_entity", "sched_avg", "sched_info", "sched_schedstats",
    "cpuhp_kick_ap_work", "btf_trace_sched_overutilized_tp",
    "irq_tp",                   # "pelt_cfs/rt/dl/irq_tp"
    "sched_util_est_cfs_tp",    # left off on purpose (docs/performance.md)
    "sched_delayed",            # se.sched_delayed, a field (EEVDF)
    "sched_clock",              # the kernel's clock, a function
    "sched_asym_cpucap_active", # fair.c: capacities differ, a function
}


@test
def tracepoints_named_are_in_the_table():
    """The public header, the column docs and docs/signals.md name only
    tracepoints the table has, so a renamed or dropped one fails here; and
    enum schedstat_avail names none: which tracepoint gives which bit is
    the table's to say."""
    _, rows = tracepoint_table()
    with open(os.path.join(SRC, "include", "schedstat.h")) as f:
        header = f.read()
    avail = between(header, "enum schedstat_avail {", "};")
    for name in rows:
        check(not re.search(r"\b%s\b" % name, avail),
              "enum schedstat_avail names %s: say it in the table" % name)
    with open(os.path.join(SRC, "docs", "signals.md")) as f:
        signals = f.read()
    r = schedtop("csv", "--list-columns")
    check(r.returncode == 0, r.stderr)
    for what, text in (("include/schedstat.h", header),
                       ("docs/signals.md", signals),
                       ("the column docs", r.stdout.decode())):
        for tok in set(re.findall(r"\b(?:power:)?(?:sched|cpuhp)_[a-z_]+\b|"
                                  r"\b[a-z_]+_tp\b", text)):
            name = tok.split(":")[-1]
            check(name in rows or name in NOT_TRACEPOINTS,
                  "%s names %s, which is not in the tracepoint table" %
                  (what, tok))


if __name__ == "__main__":
    run()
