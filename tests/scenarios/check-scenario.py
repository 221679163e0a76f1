#!/usr/bin/env python3
"""Runs one evaluation scenario (scenarios/NAME.sh) and checks its report.

  check-scenario.py NAME

The scenario installs and configures its software, records its task with
`rsp record` and writes rsp report --json to $RSP_BUILD_ROOT/scenarios/
NAME.json (scenarios/lib.sh).  This test then checks, on that report:
  * the accounting contract of docs/REPORT-JSON.md (tests/scripts/rsptest.py), with
    the evaluation's bar: at least 95% of the total time accounted;
  * what the scenario is about: the processes its request or build must
    cross on the control path of the process of interest, and where most of
    the time must be (EXPECTATIONS below).
Exit codes follow meson: 0 pass, 77 skip (no root or perf, only outside
CI), anything else fail.
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import rsptest as t  # noqa: E402

MIN_ACCOUNTED_PERCENT = 95.0


def path_tasks(report, path_id=0):
    for p in report["control_paths"]:
        if p["id"] == path_id:
            return p["tasks"]
    return []


def comm_ms(report, path_id=0):
    """Milliseconds per comm on one control path (threads summed)."""
    out = {}
    for task in path_tasks(report, path_id):
        out[task["comm"]] = out.get(task["comm"], 0.0) + task["ms"]
    return out


def category(report, cat_id):
    return next(c["ms"] for c in report["accounting"]["categories"] if c["id"] == cat_id)


def expect_pass(report):
    problems = []
    comms = comm_ms(report)
    if not {"pass", "pass_peer"} <= set(comms):
        problems.append("control path 0 holds %s, expected pass and pass_peer" % sorted(comms))
    top2 = [f.get("frame") for f in report["findings"][:2]]
    if top2 != ["pass_work", "pass_work"]:
        problems.append("the top two findings are in %s, expected pass_work twice" % top2)
    return problems


def expect_build(report):
    problems = []
    comms = comm_ms(report)
    for needed in ("make", "protoc", "cc1plus"):
        if needed not in comms:
            problems.append("control path 0 does not reach %s: it holds %s" % (needed, sorted(comms)))
    if comms and max(comms, key=comms.get) != "cc1plus":
        problems.append("the compiler (cc1plus) is not where most of the build's time is: %s" % comms)
    # the page cache was dropped first: the build must wait for the disk
    if category(report, "disk_io") <= 0:
        problems.append("no disk I/O accounted although the page cache was dropped before make")
    return problems


def expect_web_request(report):
    problems = []
    comms = comm_ms(report)
    for needed in ("curl", "nginx", "php-fpm8.2"):
        if not any(c.startswith(needed) for c in comms):
            problems.append("control path 0 does not reach %s: it holds %s" % (needed, sorted(comms)))
    # the paper's finding: the login's password check in dovecot's auth
    # process, behind imap-login, is on the request's path
    for needed in ("imap-login", "auth"):
        if needed not in comms:
            problems.append("control path 0 does not reach dovecot's %s: it holds %s" % (needed, sorted(comms)))
    if report["accounting"]["total_ms"] > 3 * report["accounting"]["wall_ms"]:
        problems.append("total time %.1f ms is more than 3x the wall time %.1f ms of one request"
                        % (report["accounting"]["total_ms"], report["accounting"]["wall_ms"]))
    return problems


EXPECTATIONS = {
    "pass": expect_pass,
    "build": expect_build,
    "web-request": expect_web_request,
}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in EXPECTATIONS:
        t.fail("usage: check-scenario.py %s" % "|".join(EXPECTATIONS))
    name = sys.argv[1]
    rsp = t.rsp_path()
    t.require_perf_and_root()
    src = os.environ["RSP_SOURCE_ROOT"]
    out = os.path.join(os.environ["RSP_BUILD_ROOT"], "scenarios")
    env = dict(os.environ, RSP=rsp, RSP_SCENARIO_OUT=out)
    script = os.path.join(src, "scenarios", name + ".sh")
    t.log("running %s" % script)
    proc = subprocess.run(["bash", script], env=env, stdin=subprocess.DEVNULL, timeout=900)
    if proc.returncode == t.SKIP:
        t.skip_or_fail("scenario %s cannot record here (see above)" % name)
    if proc.returncode != 0:
        t.fail("scenario %s failed with exit status %d (log: %s)"
               % (name, proc.returncode, os.path.join(out, name + ".log")))
    with open(os.path.join(out, name + ".json")) as f:
        report = json.load(f)
    acc = report["accounting"]
    t.log("%s: %.2f%% of %.1f ms total accounted (wall %.1f ms); path 0: %s"
          % (name, acc["accounted_percent"], acc["total_ms"], acc["wall_ms"],
             ", ".join("%s %.1f ms" % kv for kv in sorted(comm_ms(report).items(), key=lambda kv: -kv[1]))))
    problems = t.report_contract(report, MIN_ACCOUNTED_PERCENT) + EXPECTATIONS[name](report)
    if problems:
        with open(os.path.join(out, name + ".txt")) as f:
            sys.stdout.write(f.read())
        t.fail("%s: %d problem(s):\n  %s" % (name, len(problems), "\n  ".join(problems)))
    t.log("%s: the report keeps the contract and names what the scenario is about" % name)


if __name__ == "__main__":
    main()
