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
                ("report",), ("convert",)):
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
