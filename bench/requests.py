#!/usr/bin/env python3
"""bench/requests.py — what analysing many requests costs against one report.

    sudo bench/requests.py [--rsp build/src/rsp] [--runs N] [--reps R] [--keep FILE] [-- COMMAND...]

Records `rsp record --repeat N -- COMMAND` (default /bin/true: each run a
request of fork, exec, exit, a few milliseconds of events; a busier command
makes a larger file with the same number of requests), then times, on that one
file and in one session, best and median of R runs each:
  requests  `rsp report --requests runs FILE`  (every run analysed, the
            distribution, the slow tail and its causes)
  plain     `rsp report --pid P FILE`          (the plain report of the first run)
and prints a Markdown table with the ratio requests / plain (the goal is
at most 2) and the peak RSS of each.  Wall time is the whole process,
fork to wait4; peak RSS from wait4.  Needs root (it records).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
GOAL = 2.0


def timed(argv):
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("bench/requests.py: %s failed: %s" % (" ".join(argv), err[-2000:]))
    return wall, usage.ru_maxrss


def measure(argv, reps):
    timed(argv)  # warm: page cache, symbol files
    walls, rss = [], 0
    for _ in range(reps):
        wall, peak = timed(argv)
        walls.append(wall)
        rss = max(rss, peak)
    return min(walls), statistics.median(walls), rss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rsp", default=os.path.join(REPO, "build", "src", "rsp"))
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--keep", help="keep the recording in this file (default: a temporary one)")
    ap.add_argument("command", nargs="*", default=["/bin/true"], help="what each run runs (default /bin/true)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench/requests.py: recording needs root (sudo bench/requests.py)")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or os.path.join(tmp, "requests.rsp")
        rec = subprocess.run([args.rsp, "record", "--repeat", str(args.runs), "-o", path, "--"] + args.command,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if rec.returncode != 0:
            sys.exit("bench/requests.py: rsp record failed: " + rec.stderr[-2000:])
        size = os.path.getsize(path)
        report = json.loads(subprocess.run([args.rsp, "report", "--json", path], capture_output=True,
                                           text=True, check=True).stdout)
        n = report["distribution"]["count"]
        first = report["requests"][0]["pid"]
        req = measure([args.rsp, "report", "--requests", "runs", path], args.reps)
        plain = measure([args.rsp, "report", "--pid", str(first), path], args.reps)
    ratio = req[1] / plain[1]
    print("| recording | requests | report --requests runs (best / median) | plain report (best / median) "
          "| ratio (median) | goal ≤ %.0f | peak RSS requests / plain |" % GOAL)
    print("|---|---:|---:|---:|---:|---|---:|")
    print("| %d runs of `%s`, %.1f MB | %d | %.3f / %.3f s | %.3f / %.3f s | %.2f | %s | %.0f / %.0f MB |"
          % (args.runs, " ".join(args.command), size / 1e6, n, req[0], req[1], plain[0], plain[1], ratio,
             "met" if ratio <= GOAL else "**not met**", req[2] / 1024, plain[2] / 1024))


if __name__ == "__main__":
    main()
