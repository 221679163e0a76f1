#!/usr/bin/env python3
"""Samples that read counters (PERF_SAMPLE_READ): `rsp dump` against
`perf script`, and the model on them.

perf prints such a sample once per value it read: a group's leader and
each member (`{cpu-clock,task-clock,page-faults}:S`) under its own event,
and a single event read by its own samples (`cpu-clock:S`), each with the
value's growth since that counter's last read as its period, and nothing
for a value that did not grow.  rsp dump must print the same lines.  The
model takes every record as the sample of its own event (a context switch
of `sched:sched_switch:S` even when its counter did not grow) and never the
values of other events a record read.

Events with `inherit` (a command's children counted apart under the
parent's id, which Linux 6.12 allows with PERF_SAMPLE_READ): perf 6.12
keys a counter's last value by id and thread, perf 6.1 (Debian 12's) by
id alone, and prints one thread's value less another's (2^64 less a few,
or twice a period).  rsp follows 6.12: for those events the test checks
that every line perf script prints is there, and, for a clock, that no
period is larger than the time since that thread's previous sample.

  1. tests/data/sample-read.perf.data (a group of three, and an event read
     by its own samples with inherit, of pingpong and its child; needs
     perf only).
  2. Fresh system-wide recordings (root) of pingpong: the README's
     tracepoints with `{cpu-clock/freq=1000/,task-clock,page-faults}:S`;
     and `{cpu-clock,task-clock:S}` with two tracepoints (a member that
     samples too: its records read the leader's value).  The model's
     events are the file's samples (perf report --stats), and the report
     keeps its contract.
  3. `sched:sched_switch:S` of `perf bench sched messaging` (inherit, a
     tracepoint reading itself): the model gets every switch.
  4. `perf record -a` with `cpu-clock:S`: perf 6.1 sets inherit on such
     counters of every thread of a CPU too; their values are not per
     thread (PERF_RECORD_ID_INDEX names them), compared whole.
  5. `{sched:sched_switch,sched:sched_waking}:S`: a member tracepoint's
     line shows the sample's payload, by its own type, as perf prints it.
"""

import collections
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

CLOCKS = ("cpu-clock", "task-clock")
SLACK_NS = 50000  # time stamps and counter reads are not taken at one instant


def inherit_events(perf, path):
    """Names of the events that read themselves with inherit (perf evlist -v)."""
    out = t.run([perf, "evlist", "-v", "-i", path], timeout=60).stdout
    names = set()
    for line in out.splitlines():
        m = re.match(r"^(\S+?): type:", line)
        if m and re.search(r"sample_type: \S*READ", line) and re.search(r"\binherit: 1\b", line):
            names.add(t.event_base_name(m.group(1)))
    return names


def without_period(ev, workload):
    p = t.payload(ev, workload)
    return (p[0], p[1], p[2], p[4], p[5])


def check_inherited(perf_events, rsp_events, workload):
    """Events with inherit: perf 6.1's lines are all there (its periods
    aside); a clock's period never exceeds the time since that thread's
    previous sample of it."""
    problems = []
    have = collections.Counter((e.key(), without_period(e, workload)) for e in rsp_events)
    for e in perf_events:
        k = (e.key(), without_period(e, workload))
        if have[k] == 0:
            problems.append("perf script's %r is not in rsp dump" % e.line)
            if len(problems) > 5:
                break
            continue
        have[k] -= 1
    last = {}
    for e in sorted(rsp_events, key=lambda e: e.time_ns):
        if e.period is None or e.period <= 0 or e.period >= 1 << 62:
            if not t.is_tracepoint(e.event) or e.period is not None:
                problems.append("rsp dump: period %s: %r" % (e.period, e.line))
        if e.event.split("/")[0] in CLOCKS:
            prev = last.get((e.event, e.tid))
            if prev is not None and e.period > e.time_ns - prev + SLACK_NS:
                problems.append("rsp dump: %s period %d ns after %d ns: %r"
                                % (e.event, e.period, e.time_ns - prev, e.line))
            last[(e.event, e.tid)] = e.time_ns
    return problems


def compare(perf, rsp, path, workload, cpu_wide=False):
    """Problems of rsp dump against perf script on PATH, and perf script's
    events per name.  CPU_WIDE: perf record -a, whose counters count every
    thread of a CPU (perf 6.1 sets inherit on them too, and keys them by id
    alone, rightly): compared whole."""
    dump = t.run([rsp, "dump", path], timeout=300, check=False)
    if dump.returncode != 0:
        t.fail("rsp dump %s exited %d: %s" % (path, dump.returncode, dump.stderr[-3000:]))
    for threads in ("1", "2"):
        again = t.run([rsp, "dump", path], timeout=300, env=dict(os.environ, RSP_THREADS=threads))
        if again.stdout != dump.stdout:
            t.fail("rsp dump %s with RSP_THREADS=%s prints something else" % (path, threads))
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
    inherited = set() if cpu_wide else inherit_events(perf, path)
    if inherited:
        t.log("%s: with inherit (perf 6.1's periods not compared): %s" % (os.path.basename(path), sorted(inherited)))
    problems += t.compare_samples([e for e in perf_events if e.event not in inherited],
                                  [e for e in rsp_events if e.event not in inherited], workload)
    problems += check_inherited([e for e in perf_events if e.event in inherited],
                                [e for e in rsp_events if e.event in inherited], workload)
    return problems, counts


def model_events(perf, rsp, path, comm):
    """Problems of the model's events against the file's samples."""
    stats = t.parse_perf_stats(t.run([perf, "report", "--force", "--stats", "-i", path], timeout=300).stdout)
    rep = t.run([rsp, "report", "--json", "--comm", comm, path], timeout=300, check=False)
    if rep.returncode != 0:
        return ["rsp report exited %d: %s" % (rep.returncode, rep.stderr[-2000:])]
    events = json.loads(rep.stdout)["recording"]["events"]
    t.log("rsp report: %d events, the file %d samples" % (events, stats.get("SAMPLE", -1)))
    if events != stats.get("SAMPLE"):
        return ["the model counts %d events, the file has %s samples" % (events, stats.get("SAMPLE"))]
    return t.check_report(rsp, path, ["--comm", comm])


def main():
    perf = t.perf_path()
    if not perf:
        t.skip_or_fail("perf is not installed (Debian package linux-perf)")
    rsp = t.rsp_path()
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sample-read.perf.data")
    problems, counts = compare(perf, rsp, data, "pingpong")
    # a group of three (the leader samples) and an event that reads itself:
    # all four must be there, or it tests nothing
    if len(counts) != 4 or min(counts.values()) == 0:
        problems.append("expected 4 events with samples, perf script has %s" % dict(counts))
    if problems:
        t.fail("sample-read.perf.data:\n" + "\n".join(problems))
    t.log("PASS: sample-read.perf.data")

    perf = t.require_perf_and_root()
    workload = os.path.join(os.environ.get("RSP_BUILD_ROOT", ""), "tests", "workloads", "pingpong")
    if not os.access(workload, os.X_OK):
        t.fail("the pingpong workload is not built: %s" % workload)
    workdir = tempfile.mkdtemp(prefix="rsp-test-sample-read-", dir=os.environ.get("RSP_BUILD_ROOT"))
    runs = [
        ("group", ["-a", "-g", "-k", "monotonic", "-e", ",".join(t.TRACEPOINTS),
                   "-e", "{cpu-clock/freq=1000/,task-clock,page-faults}:S"],
         [workload, "2000"], "pingpong", "pingpong"),
        ("member-samples", ["-a", "-g", "-k", "monotonic", "-e", "sched:sched_switch,sched:sched_waking,sched:sched_process_fork,sched:sched_process_exec",
                            "-e", "{cpu-clock,task-clock:S}"],
         [workload, "2000"], "pingpong", "pingpong"),
        ("switch-reads-itself", ["-g", "-k", "monotonic", "-e", "sched:sched_switch:S"],
         [perf, "bench", "sched", "messaging", "-g", "2", "-l", "20"], "sched-messaging", "perf"),
        ("cpu-wide-reads-itself", ["-a", "-g", "-k", "monotonic",
                                   "-e", "sched:sched_switch,sched:sched_waking,sched:sched_process_fork,"
                                   "sched:sched_process_exec", "-e", "cpu-clock/freq=1000/S"],
         [workload, "1000"], "pingpong", "pingpong"),
        ("tracepoint-group", ["-a", "-k", "monotonic", "-e", "{sched:sched_switch,sched:sched_waking}:S",
                              "-e", "sched:sched_process_fork,sched:sched_process_exec"],
         [workload, "500"], "pingpong", "pingpong"),
    ]
    for name, options, command, comm, frames in runs:
        out = os.path.join(workdir, name + ".perf.data")
        t.record([perf, "record"] + options + ["-o", out, "--"] + command, timeout=300)
        problems, counts = compare(perf, rsp, out, frames, cpu_wide="-a" in options)
        problems += model_events(perf, rsp, out, comm)
        if problems:
            t.fail("%s:\n%s" % (out, "\n".join(problems)))
        t.log("PASS: %s" % name)
    t.log("PASS: samples that read counters as perf script prints them; the model takes each record once")


if __name__ == "__main__":
    main()
