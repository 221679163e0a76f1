#!/usr/bin/env python3
"""Replays every fuzz target without libFuzzer (meson test fuzz-replay).

    fuzz-replay.py BUILD_DIR_OF_TESTS

Extracts the seeds from the recordings in tests/data/ (fuzz/extract-seeds.py),
then runs BUILD_DIR/fuzz-replay-TARGET on each target's seeds, cut at many
lengths and damaged at seeded random positions, and on every input kept in
tests/fuzz-regressions/TARGET/ (what fuzzing found once).  A crash, a
sanitizer report or a leak fails the test.
"""
import glob
import os
import subprocess
import sys
import tempfile

TARGETS = ["perf-reader", "trace-data", "ftrace-section", "json", "model"]
MUTATIONS = {"perf-reader": "60", "trace-data": "200", "ftrace-section": "200", "json": "2000", "model": "20"}


def main():
    build_dir = sys.argv[1]
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    recordings = sorted(glob.glob(os.path.join(src, "tests", "data", "*.rsp"))
                        + glob.glob(os.path.join(src, "tests", "data", "*.perf.data")))
    if not recordings:
        sys.exit("fuzz-replay: no recordings in tests/data/")
    failed = []
    with tempfile.TemporaryDirectory(prefix="rsp-fuzz-replay-") as seeds:
        subprocess.run([sys.executable, os.path.join(src, "fuzz", "extract-seeds.py"), seeds] + recordings,
                       check=True)
        for target in TARGETS:
            inputs = sorted(glob.glob(os.path.join(seeds, target, "*")))
            regressions = sorted(glob.glob(os.path.join(src, "tests", "fuzz-regressions", target, "*")))
            binary = os.path.join(build_dir, "fuzz-replay-" + target)
            print("fuzz-replay-%s: %d seeds, %d regression inputs" % (target, len(inputs), len(regressions)),
                  flush=True)
            rc = subprocess.run([binary, "--mutations", MUTATIONS[target]] + inputs).returncode
            if rc == 0 and regressions:
                rc = subprocess.run([binary, "--mutations", "0"] + regressions).returncode
            if rc != 0:
                failed.append("%s (exit %d)" % (target, rc))
    if failed:
        sys.exit("fuzz-replay: FAILED: " + ", ".join(failed))
    print("fuzz-replay: every target replayed, no crash")


if __name__ == "__main__":
    main()
