"""Short libFuzzer runs (ASan + UBSan) over the recording reader, over
the trace-file source (trace-cmd's trace.dat, through libtracecmd), over
the Perfetto reader and the trace driver behind it, and over the rt-app
use-case parser.

The corpus in tests/fuzz/corpus seeds the first: a whole recording, one cut
short as a SIGKILL leaves it, one with a flipped byte, one with a PELT chunk
(record --pelt-trace, format 1.1), one with CPUHP chunks (cpu1 taken
offline and back three times, format 1.2); tests/fuzz/trace-corpus the second: a
small cut of the Juno trace (tests/fixtures/trace) as trace-cmd file
versions 6, 7 and 7 with zstd, and the fuzzer's findings;
tests/fuzz/perfetto-corpus the third: cuts of the Pixel 6a trace
(tests/fixtures/perfetto), plain, in zlib and zstd packets, and as full
FtraceEvents (its README); tests/fuzz/text-corpus the fourth, the ftrace
text reader's (tests/fixtures/trace-text's kernel text, with TGIDs,
trace-cmd report's, in systrace's and atrace's containers);
tests/fuzz/workload-corpus the fifth: Debian's rt-app examples and the
built-in workloads (its README says where each comes from). Each run works
on a copy so the repository's corpus stays as committed.
SCHEDTOP_FUZZ_SECONDS sets the length of the first (default 20).
"""
import os
import re
import shutil
import subprocess
import tempfile

from harness import OUT, SRC, Skip, check, run, test

FUZZER = os.path.join(OUT, "fuzz", "fuzz_recording")
CORPUS = os.path.join(SRC, "tests", "fuzz", "corpus")
TRACE_FUZZER = os.path.join(OUT, "fuzz", "fuzz_trace_file")
TRACE_CORPUS = os.path.join(SRC, "tests", "fuzz", "trace-corpus")
PERFETTO_FUZZER = os.path.join(OUT, "fuzz", "fuzz_perfetto")
PERFETTO_CORPUS = os.path.join(SRC, "tests", "fuzz", "perfetto-corpus")
TEXT_FUZZER = os.path.join(OUT, "fuzz", "fuzz_trace_text")
TEXT_CORPUS = os.path.join(SRC, "tests", "fuzz", "text-corpus")
WORKLOAD_FUZZER = os.path.join(OUT, "fuzz", "fuzz_workload")
WORKLOAD_CORPUS = os.path.join(SRC, "tests", "fuzz", "workload-corpus")
KEEP = tempfile.gettempdir()


@test
def recording_reader_survives_fuzzing():
    fuzz(FUZZER, CORPUS, "build/fuzz/fuzz_recording not built (make fuzz; needs clang)")


@test
def trace_file_source_survives_fuzzing():
    """A fixed sequence (seed 1, 1000 inputs), the same on every machine:
    libtraceevent's format parser may hold crashes no run here has reached
    (docs/signals.md), and a suite run must not find one by chance."""
    fuzz(TRACE_FUZZER, TRACE_CORPUS, "build/fuzz/fuzz_trace_file not built "
         "(make fuzz; needs clang and libtracecmd-dev)", at_least=900,
         extra=["-seed=1", "-runs=1000"])


@test
def perfetto_reader_survives_fuzzing():
    """A fixed sequence (seed 1, 3000 inputs): the long runs are in
    docs/performance.md."""
    fuzz(PERFETTO_FUZZER, PERFETTO_CORPUS, "build/fuzz/fuzz_perfetto not built "
         "(make fuzz; needs clang)", at_least=2900, extra=["-seed=1", "-runs=3000"])


@test
def trace_text_reader_survives_fuzzing():
    """The ftrace text reader alone and through the driver of every trace
    file: a fixed sequence (seed 1, 3000 inputs of up to 16 KB), the same
    on every machine."""
    fuzz(TEXT_FUZZER, TEXT_CORPUS, "build/fuzz/fuzz_trace_text not built "
         "(make fuzz; needs clang)", at_least=2900,
         extra=["-seed=1", "-runs=3000", "-max_len=16384"])


@test
def workload_parser_survives_fuzzing():
    """100,000 inputs (seconds): every one read, or refused with one line
    naming the file (the target aborts on a second line)."""
    fuzz(WORKLOAD_FUZZER, WORKLOAD_CORPUS, "build/fuzz/fuzz_workload not built "
         "(make fuzz; needs clang)", at_least=90000, extra=["-runs=100000"])


def fuzz(FUZZER, CORPUS, missing, at_least=1000, extra=None):
    if not os.path.exists(FUZZER):
        raise Skip(missing)
    seconds = int(os.environ.get("SCHEDTOP_FUZZ_SECONDS", "20"))
    work = tempfile.mkdtemp(prefix="schedtop-fuzz-")
    try:
        corpus = os.path.join(work, "corpus")
        shutil.copytree(CORPUS, corpus)
        limit = extra or ["-max_total_time=%d" % seconds]
        r = subprocess.run([FUZZER] + limit + ["-rss_limit_mb=2048", "-timeout=10",
                            "-artifact_prefix=" + work + "/", corpus],
                           capture_output=True, timeout=seconds + 600)
        log = r.stderr.decode(errors="replace")
        crashes = [f for f in os.listdir(work) if f != "corpus"]
        # Keep what it found: the work directory goes, the finding must not.
        for name in crashes:
            shutil.copy(os.path.join(work, name), os.path.join(KEEP, name))
            print("# kept %s: rerun with %s %s" % (name, FUZZER, os.path.join(KEEP, name)))
        check(r.returncode == 0 and not crashes,
              "fuzzer found a problem (exit %d, %s):\n%s" %
              (r.returncode, crashes, log[log.find("ERROR"):][:3000] or log[-3000:]))
        done = re.search(r"Done (\d+) runs", log)
        cov = re.findall(r"cov: (\d+)", log)
        check(done and int(done.group(1)) > at_least, "fuzzer barely ran:\n" + log[-1000:])
        print("# %s runs, coverage %s edges, no crash" %
              (done.group(1), cov[-1] if cov else "?"))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    run()
