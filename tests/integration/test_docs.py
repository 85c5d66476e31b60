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


if __name__ == "__main__":
    run()
