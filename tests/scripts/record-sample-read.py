#!/usr/bin/env python3
"""Samples that read counters (PERF_SAMPLE_READ): `rsp dump` against
`perf script`, and the model on them.

perf prints such a sample once per value it read: a group's leader and
each member (`{cpu-clock,task-clock,page-faults}:S`) under its own event,
and a single event read by its own samples (`cpu-clock:S`), each with the
value's growth since that event's last read as its period, and nothing for
a value that did not grow.  rsp dump must print the same lines.

  1. tests/data/sample-read.perf.data (both kinds, with callchains; needs
     perf only): the same samples per event, keyed by (time, cpu, tid,
     event), with the same period and frames, as `perf script`.
  2. A fresh system-wide recording (root): the README's tracepoints with a
     group `{cpu-clock/freq=1000/,task-clock,page-faults}:S` of pingpong,
     compared the same way; then `rsp report --json --comm pingpong`: the
     model takes the leader's samples only (its "events" are perf's
     samples less the members'), and the report keeps its contract.
"""

import collections
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

GROUP = "{cpu-clock/freq=1000/,task-clock,page-faults}:S"
MEMBERS = {"task-clock", "page-faults"}


def compare(perf, rsp, path, workload):
    """Problems of rsp dump against perf script on PATH, and the events of perf script."""
    dump = t.run([rsp, "dump", path], timeout=300, check=False)
    if dump.returncode != 0:
        t.fail("rsp dump %s exited %d: %s" % (path, dump.returncode, dump.stderr[-3000:]))
    script = t.run([perf, "script", "--force", "-i", path, "-F", t.PERF_SCRIPT_FIELDS, "--ns"], timeout=300)
    perf_events, perf_bad = t.parse_perf_script(script.stdout)
    rsp_events, _, rsp_bad = t.parse_rsp_dump(dump.stdout)
    problems = []
    if perf_bad:
        problems.append("%d perf script lines not understood, first: %r" % (len(perf_bad), perf_bad[0]))
    if rsp_bad:
        problems.append("%d rsp dump lines not understood, first: %r" % (len(rsp_bad), rsp_bad[0]))
    counts = collections.Counter(e.event for e in perf_events)
    t.log("%s: perf script samples per event: %s" % (os.path.basename(path), dict(counts)))
    problems += t.compare_samples(perf_events, rsp_events, workload)
    return problems, perf_events, counts


def main():
    perf = t.perf_path()
    if not perf:
        t.skip_or_fail("perf is not installed (Debian package linux-perf)")
    rsp = t.rsp_path()
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sample-read.perf.data")
    problems, _, counts = compare(perf, rsp, data, "pingpong")
    # the file holds a group of three (the leader samples) and an event
    # that reads itself: all four must be there, or it tests nothing
    if len(counts) != 4 or min(counts.values()) == 0:
        problems.append("sample-read.perf.data: expected 4 events with samples, perf script has %s" % dict(counts))
    if problems:
        t.fail("sample-read.perf.data:\n" + "\n".join(problems))
    t.log("PASS: sample-read.perf.data as perf script prints it")

    perf = t.require_perf_and_root()
    workload = os.path.join(os.environ.get("RSP_BUILD_ROOT", ""), "tests", "workloads", "pingpong")
    if not os.access(workload, os.X_OK):
        t.fail("the pingpong workload is not built: %s" % workload)
    workdir = tempfile.mkdtemp(prefix="rsp-test-sample-read-", dir=os.environ.get("RSP_BUILD_ROOT"))
    out = os.path.join(workdir, "group.perf.data")
    argv = [perf, "record", "-a", "-g", "-k", "monotonic", "-e", ",".join(t.TRACEPOINTS), "-e", GROUP,
            "-o", out, "--", workload, "2000"]
    t.record(argv, timeout=300)  # fails the test if perf record does
    problems, perf_events, counts = compare(perf, rsp, out, "pingpong")
    for name in ["cpu-clock"] + sorted(MEMBERS - {"page-faults"}):
        if counts[name] == 0:
            problems.append("no %s samples in the recording" % name)
    # the model: members' values are not events of their own
    rep = t.run([rsp, "report", "--json", "--comm", "pingpong", out], timeout=300, check=False)
    if rep.returncode != 0:
        problems.append("rsp report exited %d: %s" % (rep.returncode, rep.stderr[-2000:]))
    else:
        events = json.loads(rep.stdout)["recording"]["events"]
        expected = sum(1 for e in perf_events if e.event not in MEMBERS)
        t.log("rsp report: %d events; perf script: %d samples, %d of them the members'"
              % (events, len(perf_events), len(perf_events) - expected))
        if events != expected:
            problems.append("the model counts %d events, perf's samples less the members' are %d"
                            % (events, expected))
        problems += t.check_report(rsp, out, ["--comm", "pingpong"])
    if problems:
        t.fail("%s:\n%s" % (out, "\n".join(problems)))
    t.log("PASS: a group read by its leader's samples, as perf script prints it; the model takes the leader's")


if __name__ == "__main__":
    main()
