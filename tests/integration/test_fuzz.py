"""A short libFuzzer run over the recording reader (ASan + UBSan).

The corpus in tests/fuzz/corpus seeds it: a whole recording, one cut short
as a SIGKILL leaves it, one with a flipped byte, one with a PELT chunk
(record --pelt-trace, format 1.1). The run works on a copy so
the repository's corpus stays as committed. SCHEDTOP_FUZZ_SECONDS sets the
length (default 20).
"""
import os
import re
import shutil
import subprocess
import tempfile

from harness import OUT, SRC, Skip, check, run, test

FUZZER = os.path.join(OUT, "fuzz", "fuzz_recording")
CORPUS = os.path.join(SRC, "tests", "fuzz", "corpus")
KEEP = tempfile.gettempdir()


@test
def recording_reader_survives_fuzzing():
    if not os.path.exists(FUZZER):
        raise Skip("build/fuzz/fuzz_recording not built (make fuzz; needs clang)")
    seconds = int(os.environ.get("SCHEDTOP_FUZZ_SECONDS", "20"))
    work = tempfile.mkdtemp(prefix="schedtop-fuzz-")
    try:
        corpus = os.path.join(work, "corpus")
        shutil.copytree(CORPUS, corpus)
        r = subprocess.run([FUZZER, "-max_total_time=%d" % seconds,
                            "-rss_limit_mb=2048", "-timeout=10",
                            "-artifact_prefix=" + work + "/", corpus],
                           capture_output=True, timeout=seconds + 120)
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
        check(done and int(done.group(1)) > 1000, "fuzzer barely ran:\n" + log[-1000:])
        print("# %s runs in %d s, coverage %s edges, no crash" %
              (done.group(1), seconds, cov[-1] if cov else "?"))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    run()
