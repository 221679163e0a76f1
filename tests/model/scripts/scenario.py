#!/usr/bin/env python3
"""Records a workload that plants a known cause of slowness and checks what
`rsp report --json` says about it.

  scenario.py SCENARIO WORKLOAD_EXE

SCENARIO is one of the keys of SCENARIOS below.  The workload is recorded
with `rsp record [--keep-awake] -o OUT.rsp -- WORKLOAD ARGS`; the report is
for the recorded command's process (rsp report's default target).

Every report must satisfy the accounting contract of docs/REPORT-JSON.md
("accounting", "categories"):
  * percent accounted >= 98;
  * all 13 category ids, in the table's order;
  * the categories add up to total_ms (within 0.01 ms each, for rounding),
    and accounted_ms + unaccounted_ms == total_ms;
  * no negative number anywhere;
  * findings sorted by ms, largest first;
  * wall_ms <= total_ms.
Then each scenario checks its planted cause: category, task (comm), frame
and path of the top findings.  The recording and its report (text and JSON)
stay in $RSP_BUILD_ROOT/tests/model/recordings/SCENARIO.rsp[.txt|.json]
until the next run, for `rsp report` and `rsp dump`.

A recording whose checks fail while the host of a VM took 1% or more of
the CPUs' time is made again, up to three times (rsptest.until_it_holds);
on bare metal or a quiet host the first failure stands.

Exit codes follow meson: 0 pass, 77 skip (no root or perf; a failure when
CI=true), anything else fail.
"""

import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import rsptest as t  # noqa: E402

# The accounting categories of docs/REPORT-JSON.md, in the table's order.
CATEGORY_IDS = t.CATEGORY_IDS
ROUNDING_MS = t.ROUNDING_MS
MIN_ACCOUNTED_PERCENT = 98.0


class Checks:
    """Collects failed expectations; every check runs, all are reported."""

    def __init__(self):
        self.problems = []

    def expect(self, ok, msg):
        if not ok:
            self.problems.append(msg)
        return ok


# ---------------------------------------------------------------------------
# Reading the report

def categories(report):
    return {c["id"]: c["ms"] for c in report["accounting"]["categories"]}


def finding_line(f):
    path = " -> ".join("%s[%s](%s)" % (s.get("comm"), s.get("tid"), s.get("frame")) for s in f.get("path") or [])
    return ("#%s %-13s %9.3f ms %5.1f%%  %s[%s] frame=%r file=%r endpoint=%r\n      path: %s"
            % (f.get("rank"), f.get("category"), f.get("ms", 0), f.get("percent", 0),
               f["task"].get("comm"), f["task"].get("tid"), f.get("frame"), f.get("file"),
               f.get("endpoint"), path))


def describe_findings(report, n=6):
    return "\n".join("  " + finding_line(f) for f in report["findings"][:n])


def top(report):
    findings = report["findings"]
    return findings[0] if findings else None


def frame_has(f, *words):
    frame = (f or {}).get("frame") or ""
    return any(w in frame for w in words)


def path_comms(f):
    return [s.get("comm") for s in (f or {}).get("path") or []]


# ---------------------------------------------------------------------------
# The contract every report keeps

def check_contract(c, report):
    for problem in t.report_contract(report, MIN_ACCOUNTED_PERCENT):
        c.expect(False, problem)


# Where lanes ran side by side (pass: both processes on one control path)
# the total exceeds the wall time, and the text report must say why; where
# it does not, it must not.
TOTAL_NOTE = "ran side by side each count in full"


def check_total_note(c, report, text):
    acc = report["accounting"]
    if abs(acc["total_ms"] - acc["wall_ms"]) < 0.002 or "Wall time" not in text:
        return  # too close to tell from the rounded JSON, or not in English
    exceeds = acc["total_ms"] > acc["wall_ms"]
    c.expect(exceeds == (TOTAL_NOTE in text),
             "total %.3f ms, wall %.3f ms, but the text report %s the note that the total exceeds the wall time"
             % (acc["total_ms"], acc["wall_ms"], "lacks" if exceeds else "has"))


# ---------------------------------------------------------------------------
# The scenarios: the planted cause and what the report must say about it

def check_pass(c, report, record_output):
    target = report["target"]
    paths = report["control_paths"]
    c.expect(paths and paths[0]["id"] == 0, "no control path 0")
    if paths:
        comms = {x["comm"] for x in paths[0]["tasks"]}
        pids = {x["pid"] for x in paths[0]["tasks"]}
        c.expect({"pass", "pass_peer"} <= comms,
                 "control path 0 holds %s, expected both processes (pass and pass_peer)" % sorted(comms))
        c.expect(target["pid"] in pids, "control path 0 does not hold the target pid %d" % target["pid"])
        others = [p for p in paths[1:] if any(x["comm"] in ("pass", "pass_peer") for x in p["tasks"])]
        # The paper's rule: a child set going before its parent's wait began
        # (more than the tolerance before) is another control path.  At
        # teardown the parent sends the last token, closes up and then
        # waits for the peer's exit: that last stretch may be one.  And on
        # a VM the host takes a CPU away for milliseconds, often right
        # after the write's wake-up IPI, before the writer's read blocks:
        # the guest saw the writer running on while its peer took a turn,
        # and the rule splits that turn off.  Such a path must overlap a
        # gap in the sampling timer's ticks of a task of its own (the
        # host's, t.host_gaps()): on the VM of 2026-11-28, with a fifth of
        # the CPUs taken, 10-23 of the 300 turns, every one of them at such
        # a gap.  The exchange itself must be one path: besides those, at
        # most one other (the teardown), under 5% of the total.
        tids = {x["tid"] for p in paths for x in p["tasks"] if x["comm"] in ("pass", "pass_peer")}
        gaps = t.host_gaps(t.rsp_path(), report["recording"]["path"], tids) if others else []
        hosts, rest = [], []
        for p in others:
            own = {x["tid"] for x in p["tasks"]}
            at_gap = any(a <= p["end_ms"] and b >= p["start_ms"] - 1.0 and tid in own for a, b, tid in gaps)
            (hosts if at_gap else rest).append(p)
        rest_ms = sum(p["end_ms"] - p["start_ms"] for p in rest)
        t.log("other control paths of pass and pass_peer: %d at gaps the host made (%.1f ms; %d gaps in all), "
              "%d not (%.1f ms)" % (len(hosts), sum(p["end_ms"] - p["start_ms"] for p in hosts), len(gaps),
                                    len(rest), rest_ms))
        c.expect(len(rest) <= 1 and rest_ms < 0.05 * report["accounting"]["total_ms"],
                 "the two processes are split over %d other control paths, %.1f ms in all: %s%s"
                 % (len(rest), rest_ms,
                    [(p["id"], p["start_ms"], [(x["comm"], x["ms"]) for x in p["tasks"]]) for p in rest[:5]],
                    " ..." if len(rest) > 5 else ""))
    top2 = report["findings"][:2]
    got = sorted((f["category"], f["frame"], f["task"]["comm"]) for f in top2)
    want = [("cpu_sampled", "pass_work", "pass"), ("cpu_sampled", "pass_work", "pass_peer")]
    c.expect(got == want, "top two findings are %s, expected cpu_sampled in pass_work for pass and pass_peer"
             % got)


def check_poll_flag(c, report, record_output):
    target = report["target"]
    f = top(report)
    c.expect(f and f["category"] == "timeout",
             "top finding is %s, expected 'timeout' (waits that timed out)" % (f and f["category"]))
    c.expect(frame_has(f, "poll"), "top finding's frame is %r, expected a poll frame" % (f and f["frame"]))
    c.expect(f and f["task"]["tid"] == target["tid"],
             "top finding is in %s[%s], expected the polling main thread %s[%s]"
             % (f and f["task"]["comm"], f and f["task"]["tid"], target["comm"], target["tid"]))


def fs_type(path):
    """The file system type of PATH, from /proc/mounts (longest mount point)."""
    best, kind = "", "?"
    try:
        with open("/proc/mounts") as mounts:
            for line in mounts:
                fields = line.split()
                if len(fields) >= 3 and (path == fields[1] or path.startswith(fields[1].rstrip("/") + "/")) \
                        and len(fields[1]) >= len(best):
                    best, kind = fields[1], fields[2]
    except OSError:
        pass
    return kind


def check_fsync_chain(c, report, record_output):
    # The planted cause is chain_helper's fsync(), two hops away.  Its time
    # is disk waits and the kernel's own CPU between them (on a VM every
    # request to the disk and every interrupt is a trip through the host:
    # 1979 disk waits and about 700 short runs for the 600 fsyncs of one
    # recording, the runs 56 ms against the waits' 36), so the top finding
    # is one of those under fsync, and the largest disk wait is that
    # fsync's.
    target = report["target"]
    f = top(report)
    t.log("/var/tmp is on %s; the top finding's path, with endpoints: %s"
          % (fs_type("/var/tmp"), [(s.get("comm"), s.get("frame"), s.get("endpoint")) for s in (f or {}).get("path") or []]))

    def via_chain(x):
        comms = path_comms(x)
        return (len(comms) >= 3 and comms[0] == target["comm"] and comms[-1] == "chain_helper"
                and "chain_server" in comms[1:-1])

    def in_fsync(x):
        return x["task"]["comm"] == "chain_helper" and frame_has(x, "fsync", "helper_sync")

    c.expect(f and f["category"] in ("disk_io", "cpu_unsampled", "cpu_sampled") and in_fsync(f),
             "top finding is %s in %s under %r, expected chain_helper's fsync (disk or its CPU)"
             % (f and f["category"], f and f["task"]["comm"], f and f["frame"]))
    c.expect(f and via_chain(f), "top finding's path is %s, expected %s -> chain_server -> chain_helper"
             % (path_comms(f), target["comm"]))
    disk = [x for x in report["findings"] if x["category"] == "disk_io"]
    c.expect(disk and in_fsync(disk[0]) and via_chain(disk[0]),
             "the largest disk_io finding is %s" % (disk and finding_line(disk[0])))
    under = sum(x["ms"] for x in report["findings"] if in_fsync(x) and via_chain(x))
    total = report["accounting"]["total_ms"]
    c.expect(under >= 0.5 * total, "chain_helper's findings under fsync add up to %.1f ms of %.1f ms total"
             % (under, total))


def check_udp_compute(c, report, record_output):
    target = report["target"]
    f = top(report)
    c.expect(f and f["category"] == "cpu_sampled",
             "top finding is %s, expected 'cpu_sampled'" % (f and f["category"]))
    c.expect(f and f["frame"] == "server_compute",
             "top finding's frame is %r, expected server_compute" % (f and f["frame"]))
    c.expect(f and f["task"]["comm"] == "udp_server",
             "top finding is in %s, expected udp_server" % (f and f["task"]["comm"]))
    comms = path_comms(f)
    c.expect(len(comms) >= 2 and comms[0] == target["comm"] and comms[-1] == "udp_server",
             "top finding's path is %s, expected %s -> udp_server" % (comms, target["comm"]))
    # The server's address, as the workload printed it: the finding should
    # name the peer the client asked (docs/REPORT-JSON.md: "file" or "endpoint").
    m = re.search(r"udp_compute: \d+ queries of \d+ ms to (\S+)", record_output)
    server = m.group(1) if m else None
    steps = [(s.get("comm"), s.get("endpoint")) for s in (f or {}).get("path") or []]
    t.log("server address: %s; top finding's endpoint: %r; its path's endpoints: %s"
          % (server, f and f.get("endpoint"), steps))
    c.expect(server is not None, "the workload did not print the server's address")
    c.expect(f and server is not None and f.get("endpoint") == server,
             "top finding's endpoint is %r, expected the UDP server %s that the client queried"
             % (f and f.get("endpoint"), server))


def check_cold_read(c, report, record_output):
    # the workload's own check that the read was cold (mincore after fadvise)
    m = re.search(r"(\d+) pages still cached before the read", record_output)
    t.log("pages of the file in the page cache before the read: %s" % (m.group(1) if m else "?"))
    c.expect(m is not None and int(m.group(1)) < 100,
             "the file was not dropped from the page cache: %s pages still cached" % (m and m.group(1)))
    cats = categories(report)
    c.expect(cats.get("disk_io", 0) > 0, "disk_io is %s ms, expected the cold read's disk time" % cats.get("disk_io"))
    # Queue time is there only when the reader slept while its request sat
    # in the queue; a virtio disk often issues at once, or while the reader
    # still runs (readahead), and CI met io_queue 0 on such a run.  Whether
    # the model counts queue time exactly is /model/disk's job (unit
    # tests); here it is reported.
    t.log("io_queue: %s ms" % cats.get("io_queue"))
    top3 = report["findings"][:3]
    c.expect(any(f["category"] == "disk_io" for f in top3),
             "no disk_io finding among the top three: %s" % [(f["category"], f["frame"]) for f in top3])
    # its file is removed before the recording ends: named by its path
    # while it was open (rsp record's live namer), else by device and inode;
    # the read's disk waits are among its waits
    m = re.search(r"file (\S+), inode (\d+) on device (\d+):(\d+)", record_output)
    names = {m.group(1), m.group(1) + " (deleted)", "device %s:%s inode %s" % (m.group(3), m.group(4), m.group(2))} \
        if m else set()
    files = {x["file"]: x for x in report["files"]}
    t.log("files behind the disk waits: %s" % [(x["file"], x["ms"], x["waits"]) for x in report["files"]])
    named = [n for n in names if n in files and files[n]["ms"] > 0]
    c.expect(named, "no disk wait time for the read file (%s) in 'files': %s" % (sorted(names), list(files)[:10]))
    c.expect(any(f["category"] == "disk_io" and f["file"] in names and f["frame"] == "read"
                 for f in report["findings"]),
             "no disk_io finding under read() names the file (%s)" % sorted(names))


def check_cold_read_plain_perf(c, report, record_output):
    # Recorded with the README's plain `perf record` line: no tracefs
    # instance, so perf drops the completions and wake-ups that fire while a
    # CPU idles.  The model infers the disk waits from the reader's own stack
    # (io_schedule ... with its request in flight), marks them inferred and
    # counts them.
    cats = categories(report)
    anomalies = report["recording"].get("anomalies") or {}
    inferred = {x["id"]: x["inferred_ms"] for x in report["accounting"]["categories"]}
    t.log("inferred ms per category: %s" % {k: v for k, v in inferred.items() if v})
    c.expect(all(0 <= inferred[k] <= cats.get(k, 0) + 1e-6 for k in inferred),
             "inferred_ms exceeds its category: %s" % inferred)
    c.expect(cats.get("disk_io", 0) > 0, "disk_io is %s ms, expected the cold read's disk time" % cats.get("disk_io"))
    top3 = report["findings"][:3]
    c.expect(any(f["category"] == "disk_io" for f in top3),
             "no disk_io finding among the top three: %s" % [(f["category"], f["frame"]) for f in top3])
    c.expect(cats.get("kernel_misc", 0) < 0.05 * report["accounting"]["total_ms"],
             "kernel_misc is %.1f ms: disk waits were not recognised" % cats.get("kernel_misc", 0))
    if anomalies.get("inferred_disk_wait", 0) == 0:
        # the disk time above was observed: perf kept the reader's
        # completions and wake-ups (CPUs busy), or the ones it dropped were
        # not of disk waits; the checks above still hold
        t.log("NOTE: no disk wait had to be inferred (%d wake-ups missing): anomalies %s"
              % (anomalies.get("missing_wakeup", 0), anomalies))
        return
    c.expect(inferred.get("disk_io", 0) > 0,
             "%d disk waits inferred but no inferred disk time: anomalies %s, inferred %s"
             % (anomalies.get("inferred_disk_wait", 0), anomalies, inferred))


def check_poll_timeout(c, report, record_output, timeout_ms=1000):
    # A one-second poll that times out on an idle machine: its timer fires
    # on an idle CPU, where perf alone drops the wake-up.
    cats = categories(report)
    total = report["accounting"]["total_ms"]
    f = top(report)
    c.expect(f and f["category"] == "timeout",
             "top finding is %s, expected 'timeout'" % (f and f["category"]))
    c.expect(frame_has(f, "poll"), "top finding's frame is %r, expected poll" % (f and f["frame"]))
    c.expect(cats.get("timeout", 0) >= 0.99 * timeout_ms,
             "timeout is %.1f ms, expected the %d ms poll" % (cats.get("timeout", 0), timeout_ms))
    c.expect(cats.get("timeout", 0) >= 0.99 * total,
             "timeout is %.1f ms of %.1f ms total, expected at least 99%%" % (cats.get("timeout", 0), total))
    inferred = sum(x["inferred_ms"] for x in report["accounting"]["categories"])
    c.expect(inferred == 0, "%.1f ms were inferred: the timer's wake-up was not recorded" % inferred)


def check_sqlite_commits(c, report, record_output):
    # sqlite3's commits wait for the disk under fdatasync(); the flush of
    # the disk's cache (blkdev_issue_flush) is disk time too.  The database
    # stays after the recording (as a real one does; the workload's "keep"):
    # its waits name it by its path.
    m = re.search(r"commits on (\S+\.db)", record_output)
    db = m.group(1) if m else None
    if db is not None and os.path.exists(db):
        os.unlink(db)
    files = {x["file"]: x for x in report["files"]}
    t.log("files behind the disk waits: %s" % [(x["file"], x["ms"], x["waits"]) for x in report["files"]])
    # the journal lives for one commit: named when rsp record's live namer
    # read sqlite3's open files while it had it, which is likely, not sure
    t.log("journal named: %s" % any((x["file"] or "").startswith(db + "-journal") for x in report["files"]))
    c.expect(db is not None and db in files and files[db]["ms"] > 0,
             "no disk wait time for the database %s in 'files': %s" % (db, list(files)[:10]))
    c.expect(any(x["category"] == "disk_io" and x["file"] == db and "sync" in (x["frame"] or "")
                 for x in report["findings"]),
             "no disk_io finding under fdatasync names the database %s" % db)
    cats = categories(report)
    total = report["accounting"]["total_ms"]
    disk = [x for x in report["findings"] if x["category"] == "disk_io"]
    t.log("disk findings: %s" % [finding_line(x) for x in disk[:3]])
    # one finding per file: sqlite3's waits are split over the database,
    # its journal and their directory, so their sum is what weighs (the
    # script's own `sync` before may be a larger single finding)
    mine = [x for x in disk if x["task"]["comm"] == "sqlite3"]
    mine_ms = sum(x["ms"] for x in mine)
    # (on a VM, fdatasync() spends as long on the kernel's CPU between the
    # disk's answers as in them, and the host's steal stretches both: 18% of
    # the total was sqlite3's disk waits in a run with a fifth of the CPUs
    # taken, 30-40% in quiet ones)
    c.expect(mine_ms >= 0.12 * total,
             "sqlite3's disk_io findings add up to %.1f ms of %.1f ms total, expected its commits' syncs to weigh"
             % (mine_ms, total))
    # its commits' time: fdatasync() (disk waits and, on a VM, as much of
    # the kernel's CPU between them) and the journal's unlink(), which
    # waits for the file system's own journal; which of the two waits
    # longest for the disk is the machine's business
    syncs = sum(x["ms"] for x in report["findings"] if x["task"]["comm"] == "sqlite3"
                and "sync" in (x["frame"] or ""))
    c.expect(syncs >= 0.2 * total, "sqlite3's findings under fdatasync/fsync add up to %.1f ms of %.1f ms total"
             % (syncs, total))
    c.expect(cats.get("disk_io", 0) + cats.get("io_queue", 0) >= 0.15 * total,
             "disk_io + io_queue is %.1f ms of %.1f ms total, expected the commits' syncs to weigh"
             % (cats.get("disk_io", 0) + cats.get("io_queue", 0), total))
    c.expect(cats.get("kernel_misc", 0) <= 0.1 * total,
             "kernel_misc is %.1f ms of %.1f ms: sync waits not recognised as disk time"
             % (cats.get("kernel_misc", 0), total))
    inferred = sum(x["inferred_ms"] for x in report["accounting"]["categories"])
    c.expect(inferred <= 0.01 * total, "%.1f ms were inferred: completions or wake-ups were lost" % inferred)


def check_tcp_chain(c, report, record_output, requests=10, sleep_ms=20):
    # Every request's time is the sleeper's nanosleep two hops away; its
    # timer fires on an idle CPU.  Every sleep of every request is found.
    cats = categories(report)
    f = top(report)
    c.expect(f and f["category"] == "sleep", "top finding is %s, expected 'sleep'" % (f and f["category"]))
    c.expect(f and f["task"]["comm"] == "chain_sleeper",
             "top finding is in %s, expected chain_sleeper" % (f and f["task"]["comm"]))
    comms = path_comms(f)
    c.expect(comms[:1] == ["tcp_chain"] and "chain_relay" in comms and comms[-1:] == ["chain_sleeper"],
             "top finding's path is %s, expected tcp_chain → chain_relay → chain_sleeper" % comms)
    planted = requests * sleep_ms
    c.expect(cats.get("sleep", 0) >= 0.95 * planted,
             "sleep is %.1f ms, expected the %d x %d ms the sleeper slept" % (cats.get("sleep", 0), requests, sleep_ms))
    c.expect(cats.get("unaccounted", 0) + cats.get("hardware", 0) <= 0.02 * planted,
             "unaccounted %.1f ms + hardware %.1f ms: some sleeps' timer wake-ups were not found"
             % (cats.get("unaccounted", 0), cats.get("hardware", 0)))
    inferred = sum(x["inferred_ms"] for x in report["accounting"]["categories"])
    c.expect(inferred <= 0.01 * planted,
             "%.1f ms were inferred: the sleeps' timer wake-ups were not recorded" % inferred)


def check_mutex_sleep(c, report, record_output, rounds=3, sleep_ms=100):
    target = report["target"]
    cats = categories(report)
    total = report["accounting"]["total_ms"]
    f = top(report)
    c.expect(f and f["category"] == "sleep", "top finding is %s, expected 'sleep'" % (f and f["category"]))
    c.expect(f and f["task"]["comm"] == "holder",
             "top finding is in %s, expected the holder thread" % (f and f["task"]["comm"]))
    c.expect(frame_has(f, "sleep"), "top finding's frame is %r, expected a nanosleep frame" % (f and f["frame"]))
    c.expect(cats.get("sleep", 0) >= 0.5 * total,
             "sleep is %.1f ms of %.1f ms total, expected it to dominate" % (cats.get("sleep", 0), total))
    # The main thread's futex waits end when the holder unlocks: they are the
    # holder's sleeps too (main -> holder), so the holder's deliberate sleep
    # is counted in both lanes: about twice ROUNDS x SLEEP_MS.
    c.expect(cats.get("sleep", 0) >= 1.5 * rounds * sleep_ms,
             "sleep is %.1f ms, expected about %d ms: the holder's %d x %d ms in its own lane and again "
             "under the main thread's futex waits (main -> holder)"
             % (cats.get("sleep", 0), 2 * rounds * sleep_ms, rounds, sleep_ms))
    # ... and not as a wait on another control path (the holder's sleep
    # counted a second time in a control path of its own).
    c.expect(cats.get("other_path", 0) <= 0.05 * total,
             "other_path is %.1f ms of %.1f ms total: the main thread's futex waits were not resolved to the "
             "holder that woke them" % (cats.get("other_path", 0), total))
    via_main = [x for x in report["findings"] if x["category"] == "sleep" and len(x["path"]) >= 2
                and x["path"][0]["tid"] == target["tid"] and x["path"][-1]["comm"] == "holder"]
    t.log("sleep findings reached through the main thread: %s"
          % ([finding_line(x) for x in via_main] or "none"))


def check_fork_shell(c, report, record_output):
    target = report["target"]
    f = top(report)
    c.expect(f and f["category"] == "cpu_sampled",
             "top finding is %s, expected 'cpu_sampled'" % (f and f["category"]))
    c.expect(f and f["frame"] == "grandchild_spin",
             "top finding's frame is %r, expected grandchild_spin" % (f and f["frame"]))
    c.expect(f and f["task"]["comm"] == "grandchild" and f["task"]["pid"] != target["pid"],
             "top finding is in %s[%s], expected the grandchild (another process than %s[%s])"
             % (f and f["task"]["comm"], f and f["task"]["pid"], target["comm"], target["pid"]))
    comms = path_comms(f)
    c.expect(len(comms) >= 2 and f["path"][0]["pid"] == target["pid"] and comms[-1] == "grandchild",
             "top finding's path is %s, expected %s -> ... -> grandchild" % (comms, target["comm"]))


def check_pinned_pair(c, report, record_output):
    cats = categories(report)
    total = report["accounting"]["total_ms"]
    waiting = cats.get("preempted", 0) + cats.get("scheduler", 0)
    c.expect(total > 0 and waiting > 0.2 * total,
             "preempted %.1f ms + scheduler %.1f ms = %.1f%% of %.1f ms total, expected over 20%%"
             % (cats.get("preempted", 0), cats.get("scheduler", 0), 100 * waiting / max(total, 1e-9), total))


# name: (workload arguments, how to record, check).  How: False for
# rsp record (nothing keeps CPUs awake: RSP's tracefs instance records the
# interrupt-context events perf drops on idle CPUs), True for rsp record
# --keep-awake (the last resort, unused here), "perf" for the README's plain
# perf record line (reported with --comm WORKLOAD), where the model infers
# what perf dropped.
SCENARIOS = {
    "pass": ([], False, check_pass),
    "poll_flag": ([], False, check_poll_flag),
    "fsync_chain": ([], False, check_fsync_chain),
    "udp_compute": ([], False, check_udp_compute),
    "cold_read": ([], False, check_cold_read),
    "cold_read-plain-perf": ([], "perf", check_cold_read_plain_perf),
    "mutex_sleep": ([], False, check_mutex_sleep),
    "poll_timeout": ([], False, check_poll_timeout),
    "sqlite_commits": (["60", "/var/tmp", "keep"], False, check_sqlite_commits),
    "tcp_chain": ([], False, check_tcp_chain),
    "fork_shell": ([], False, check_fork_shell),
    "pinned_pair": ([], False, check_pinned_pair),
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in SCENARIOS:
        t.fail("usage: scenario.py {%s} WORKLOAD_EXE" % "|".join(SCENARIOS))
    name, workload = sys.argv[1], sys.argv[2]
    args, keep_awake, check = SCENARIOS[name]
    t.require_perf_and_root()
    rsp = t.rsp_path()

    out_dir = os.path.join(os.environ.get("RSP_BUILD_ROOT") or os.getcwd(), "tests", "model", "recordings")
    os.makedirs(out_dir, exist_ok=True)
    recording = os.path.join(out_dir, name + ".rsp")

    target_args = []
    if keep_awake == "perf":
        argv = t.perf_record_argv(t.perf_path(), recording, [workload] + args)
        target_args = ["--comm", os.path.basename(workload)]
    else:
        argv = [rsp, "record"] + (["--keep-awake"] if keep_awake else []) + ["-o", recording, "--", workload] + args

    def attempt():
        for suffix in ("", ".json", ".txt"):
            if os.path.exists(recording + suffix):
                os.unlink(recording + suffix)
        rec = t.record(argv, timeout=120)
        t.log(rec.stdout.strip())
        t.log(rec.stderr.strip())

        text = t.run([rsp, "report"] + target_args + [recording], timeout=120)
        t.log(text.stdout)
        if text.stderr.strip():
            t.log("rsp report stderr: " + text.stderr.strip())
        proc = t.run([rsp, "report", "--json"] + target_args + [recording], timeout=120)
        try:
            report = json.loads(proc.stdout)
        except ValueError as e:
            t.fail("rsp report --json printed no JSON (%s): %s" % (e, proc.stdout[:2000]))
        with open(recording + ".json", "w") as f:
            f.write(proc.stdout)
        with open(recording + ".txt", "w") as f:
            f.write(text.stdout)

        acc = report["accounting"]
        t.log("%s: target %s[%s]; accounted %.2f%% of %.3f ms total (wall %.3f ms); anomalies %s"
              % (name, report["target"]["comm"], report["target"]["pid"], acc["accounted_percent"],
                 acc["total_ms"], acc["wall_ms"], report["recording"].get("anomalies")))
        t.log("categories: " + ", ".join("%s %.3f" % (x["id"], x["ms"]) for x in acc["categories"] if x["ms"]))
        t.log("top findings:\n" + describe_findings(report))

        c = Checks()
        check_contract(c, report)
        check_total_note(c, report, text.stdout)
        check(c, report, rec.stdout + rec.stderr)
        if c.problems:
            t.log("recording, report and JSON kept in %s" % out_dir)
        return c.problems, rec

    t.until_it_holds(name, attempt)
    t.log("%s: OK" % name)


if __name__ == "__main__":
    main()
