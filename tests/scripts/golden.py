#!/usr/bin/env python3
"""Golden test: `rsp dump --offline NAME.rsp` must print exactly
tests/data/NAME.dump.expected.  With --report, the JSON formats: `rsp
report --offline --json requests.rsp` (many requests) must print exactly
tests/data/requests.report.expected, and `rsp diff --offline --json
diff-before.rsp diff-after.rsp` diff.report.expected, and the same again
with RSP_HUGE_PAGES=0 (the heap as glibc keeps it, src/rsp-heap.c).

--offline makes the dump use only what the recording stores (the RSP
trailer's symbols), never this machine's /proc/kallsyms or binaries, so the
output is the same on every machine.  The dump runs inside tests/data on the
bare file name, so the checkout's path cannot leak into the output.
Regenerate with tests/scripts/regen-golden.sh (needs root and perf).
"""

import difflib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

DUMP_ARGS = ["dump", "--offline"]


REPORTS = {
    "requests": ["report", "--offline", "--json", "requests.rsp"],
    "diff": ["diff", "--offline", "--json", "diff-before.rsp", "diff-after.rsp"],
}


def check_report(rsp, data_dir, name):
    argv = REPORTS[name]
    expected_path = os.path.join(data_dir, name + ".report.expected")
    for path in [os.path.join(data_dir, a) for a in argv if a.endswith(".rsp")] + [expected_path]:
        if not os.path.exists(path):
            t.fail("%s is missing: run sudo tests/scripts/regen-golden.sh" % path)
    proc = t.run([rsp] + argv, timeout=120, check=False, cwd=data_dir)
    if proc.returncode != 0:
        t.fail("rsp %s exited %d:\n%s" % (" ".join(argv), proc.returncode, proc.stderr[-3000:]))
    expected = open(expected_path, encoding="utf-8").read()
    if proc.stdout != expected:
        diff = list(difflib.unified_diff(expected.splitlines(), proc.stdout.splitlines(),
                                         name + ".report.expected", "rsp " + argv[0], lineterm="", n=2))
        t.fail("output differs from %s (%d diff lines, first 80):\n%s"
               % (expected_path, len(diff), "\n".join(diff[:80])))
    json.loads(proc.stdout)
    # the same without the advised heap (rsp-heap.c): arrays in memory of
    # their own, fresh from the kernel, instead of reused heap blocks
    plain = t.run([rsp] + argv, timeout=120, check=False, cwd=data_dir,
                  env=dict(os.environ, RSP_HUGE_PAGES="0"))
    if plain.returncode != 0 or plain.stdout != proc.stdout:
        t.fail("rsp %s with RSP_HUGE_PAGES=0: exit %d, %s output: %s"
               % (" ".join(argv), plain.returncode, "the same" if plain.stdout == proc.stdout else "another",
                  plain.stderr[-2000:]))
    t.log("PASS: rsp %s: %d lines as expected, with and without RSP_HUGE_PAGES=0"
          % (" ".join(argv), expected.count("\n")))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--report":
        check_report(t.rsp_path(), os.path.join(os.environ.get("RSP_SOURCE_ROOT", "."), "tests", "data"),
                     sys.argv[2])
        return
    if len(sys.argv) != 2:
        t.fail("usage: golden.py NAME | golden.py --report requests|diff")
    name = sys.argv[1]
    rsp = t.rsp_path()
    data_dir = os.path.join(os.environ.get("RSP_SOURCE_ROOT", "."), "tests", "data")
    recording = name + ".rsp"
    expected_path = os.path.join(data_dir, name + ".dump.expected")
    for path in (os.path.join(data_dir, recording), expected_path):
        if not os.path.exists(path):
            t.fail("%s is missing: run sudo tests/scripts/regen-golden.sh" % path)

    proc = t.run([rsp] + DUMP_ARGS + [recording], timeout=120, check=False, cwd=data_dir)
    if proc.returncode != 0:
        t.fail("rsp %s %s exited %d:\n%s" % (" ".join(DUMP_ARGS), recording, proc.returncode,
                                             proc.stderr[-3000:]))
    expected = open(expected_path, encoding="utf-8", errors="replace").read()
    if proc.stdout != expected:
        diff = list(difflib.unified_diff(expected.splitlines(), proc.stdout.splitlines(),
                                         name + ".dump.expected", "rsp dump", lineterm="", n=2))
        t.fail("output differs from %s (%d diff lines, first 80):\n%s"
               % (expected_path, len(diff), "\n".join(diff[:80])))
    t.log("PASS: %s: %d lines as expected" % (recording, expected.count("\n")))
    if name == "dio_ftrace":
        check_dio_ftrace(rsp, data_dir, recording, proc.stdout)


def check_dio_ftrace(rsp, data_dir, recording, dump):
    """dio_read recorded with RSP's tracefs instance, nothing keeping CPUs
    awake: perf dropped nearly every completion; the instance's complete the
    set, each merged once, and the report links the reads to the disk."""
    perf_done = sum(1 for l in dump.splitlines() if " block:block_rq_complete: " in l)
    inst_done = sum(1 for l in dump.splitlines() if " block:block_rq_complete@ftrace: " in l)
    issued = sum(1 for l in dump.splitlines() if " block:block_rq_issue" in l)
    t.log("block_rq_complete: %d from perf, %d from the instance; %d issues" % (perf_done, inst_done, issued))
    if inst_done == 0 or perf_done + inst_done < issued:
        t.fail("%d + %d completions for %d issued requests" % (perf_done, inst_done, issued))
    proc = t.run([rsp, "report", "--json", recording], timeout=120, cwd=data_dir)
    report = json.loads(proc.stdout)
    cats = {c["id"]: c for c in report["accounting"]["categories"]}
    total = report["accounting"]["total_ms"]
    inferred = sum(c["inferred_ms"] for c in cats.values())
    t.log("disk_io %.2f of %.2f ms, inferred %.2f ms, anomalies %s"
          % (cats["disk_io"]["ms"], total, inferred, report["recording"].get("anomalies")))
    if cats["disk_io"]["ms"] < 0.5 * total:
        t.fail("disk_io is %.2f of %.2f ms: the direct reads' waits are not linked to the disk"
               % (cats["disk_io"]["ms"], total))
    if inferred > 0 or (report["recording"].get("anomalies") or {}).get("missing_completion", 0) > 0:
        t.fail("completions were missing or inferred (%.2f ms inferred): the instance's events were not merged"
               % inferred)


if __name__ == "__main__":
    main()
