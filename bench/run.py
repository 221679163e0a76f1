#!/usr/bin/env python3
"""bench/run.py — the reader benchmark; bench/run.sh is the entry point.

Runs, on one recording and in one session:
  rsp          `rsp dump --stats FILE`                  (native reader, symbols resolved)
  perf script  `perf script -i FILE`                    (full text, callchains and symbols)
  perf script  `perf script -i FILE -F comm,tid,time,event,trace`   (no stacks; reference)
each once untimed (warm page cache and warm symbol files) and then REPS
times, and prints a Markdown table of the best and median wall times,
records/s, MB/s and peak RSS, the ratio perf script / rsp and the ratio
rsp peak RSS / file size. The same table goes to bench/results/latest.md.

Wall time is the whole process (start-up, symbol loading, reading, exit),
measured from fork to wait4; peak RSS is the child's ru_maxrss from wait4.
Output goes to /dev/null (perf script) or a pipe read in full (rsp: a few
dozen lines), never to a terminal.
"""
import argparse
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

RATIO_TARGET = 10.0   # perf script (full) / rsp, wall time
RSS_TARGET = 1.0      # rsp peak RSS / file size

THROUGHPUT_RE = re.compile(
    r"throughput:\s+(\d+) records in ([\d.]+) s: ([\d.]+) records/s, ([\d.]+) MB/s")
SYMBOLS_RE = re.compile(
    r"symbols:\s+(\d+) frames, (\d+) unknown, (\d+) binaries loaded, (\d+) missing")


def run_once(argv, capture):
    """Run argv; return (wall seconds, peak RSS bytes, user s, sys s, stdout text)."""
    out = subprocess.PIPE if capture else subprocess.DEVNULL
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        text = p.stdout.read().decode("utf-8", "replace") if capture else ""
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            err.seek(0)
            sys.stderr.write(err.read().decode("utf-8", "replace")[-4000:])
            raise SystemExit(f"run.py: {' '.join(argv)} exited with status {code}")
    return wall, ru.ru_maxrss * 1024, ru.ru_utime, ru.ru_stime, text


def measure(name, argv, reps, capture=False):
    print(f"run.py: {name}: warm-up run ...", file=sys.stderr, flush=True)
    run_once(argv, capture)
    runs = []
    for i in range(reps):
        r = run_once(argv, capture)
        print(f"run.py: {name}: run {i + 1}/{reps}: {r[0]:.3f} s, peak RSS {r[1] / 1e6:.1f} MB",
              file=sys.stderr, flush=True)
        runs.append(r)
    walls = [r[0] for r in runs]
    return {
        "name": name,
        "argv": argv,
        "walls": walls,
        "best": min(walls),
        "median": statistics.median(walls),
        "rss": max(r[1] for r in runs),
        "user": statistics.median(r[2] for r in runs),
        "sys": statistics.median(r[3] for r in runs),
        "stdout": runs[-1][4],
    }


def first_line(path, pattern):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(pattern):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def command_output(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser(description="Benchmark rsp dump --stats against perf script.")
    ap.add_argument("file", nargs="?", default="/var/tmp/rsp-bench/bench.data",
                    help="the recording (default /var/tmp/rsp-bench/bench.data, from bench/make-recording.sh)")
    ap.add_argument("--rsp", default=None, help="the rsp binary (default build/src/rsp, else build/rsp)")
    ap.add_argument("--perf", default="perf", help="the perf binary (default perf)")
    ap.add_argument("--reps", type=int, default=3, help="timed runs per command (default 3)")
    ap.add_argument("--output", default=os.path.join(HERE, "results", "latest.md"),
                    help="where to write the Markdown results (default bench/results/latest.md)")
    ap.add_argument("--label", default="", help="a note printed with the results (e.g. 'stub symbolizer')")
    ap.add_argument("--no-perf-script", action="store_true", help="measure rsp only")
    ap.add_argument("--report-comm", default="make",
                    help="process of interest for `rsp report` (default make: the build in make-recording.sh)")
    args = ap.parse_args()

    if not os.path.exists(args.file):
        print(f"run.py: {args.file} not found; make it with bench/make-recording.sh", file=sys.stderr)
        return 77  # meson: skipped
    if not os.access(args.file, os.R_OK):
        print(f"run.py: {args.file} is not readable (perf.data written by root is mode 0600)", file=sys.stderr)
        return 77
    if args.rsp is None:
        args.rsp = os.path.join(REPO, "build", "src", "rsp")
        if not os.path.exists(args.rsp):
            args.rsp = os.path.join(REPO, "build", "rsp")
    if not (os.path.isfile(args.rsp) and os.access(args.rsp, os.X_OK)):
        print(f"run.py: {args.rsp} is not an executable; build it (ninja -C build) or give --rsp", file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)

    size = os.path.getsize(args.file)
    load_before = loadavg()
    results = []
    rsp = measure("rsp dump --stats", [args.rsp, "dump", "--stats", args.file], args.reps, capture=True)
    results.append(rsp)

    m = THROUGHPUT_RE.search(rsp["stdout"])
    if m is None:
        sys.stderr.write(rsp["stdout"])
        raise SystemExit("run.py: no throughput line in the output of rsp dump --stats")
    records = int(m.group(1))
    rsp_loop_s = float(m.group(2))
    s = SYMBOLS_RE.search(rsp["stdout"])
    frames, unknown, loaded, missing = (int(x) for x in s.groups()) if s else (0, 0, 0, 0)
    samples = re.search(r"PERF_RECORD_SAMPLE\s+(\d+)", rsp["stdout"])
    samples = int(samples.group(1)) if samples else 0
    symbols_ok = loaded > 0 and frames > 0

    # the whole analysis: read, symbolize, assemble, account, rank
    report = measure("rsp report (read, symbolize, assemble, account)",
                     [args.rsp, "report", args.file, "--comm", args.report_comm], args.reps, capture=True)
    results.append(report)
    accounted = re.search(r"Percent accounted\s+([\d.]+)%", report["stdout"])
    accounted = accounted.group(1) if accounted else "?"

    if not args.no_perf_script:
        results.append(measure("perf script (callchains, symbols)",
                               [args.perf, "script", "-i", args.file], args.reps))
        results.append(measure("perf script -F comm,tid,time,event,trace (no stacks)",
                               [args.perf, "script", "-i", args.file, "-F", "comm,tid,time,event,trace"],
                               args.reps))

    load_after = loadavg()

    # --- the report -----------------------------------------------------
    now = datetime.datetime.now().astimezone()
    cpu = first_line("/proc/cpuinfo", "model name")
    perf_version = command_output([args.perf, "--version"])
    git = command_output(["git", "-C", REPO, "describe", "--always", "--dirty"])
    lines = []
    w = lines.append
    w(f"# Reader benchmark: {now:%Y-%m-%d %H:%M %Z}")
    w("")
    if args.label:
        w(f"**{args.label}**")
        w("")
    if not symbols_ok:
        w("**WARNING: rsp resolved no symbols (0 binaries loaded): these are not the real figures "
          "(stub symbolizer?).**")
        w("")
    w(f"- machine: {os.cpu_count()} CPUs, {cpu}, Linux {platform.release()}, {perf_version}")
    w(f"- load average (1, 5, 15 min): {load_before} before, {load_after} after "
      "(other work on the machine slows every row)")
    w(f"- rsp: `{args.rsp}` (git {git})")
    w(f"- file: `{args.file}`, {size / 1e6:.1f} MB, {records} records, {samples} samples, "
      f"{frames} callchain frames resolved ({unknown} unknown, {loaded} binaries loaded, {missing} missing)")
    w(f"- method: warm page cache (each command run once untimed first), then {args.reps} timed runs each; "
      "wall time of the whole process (start-up and symbol loading included); "
      "records/s and MB/s from the median wall time; peak RSS = largest ru_maxrss; "
      "output to /dev/null (rsp --stats prints only counts)")
    w("")
    w("| tool | wall s (best) | wall s (median) | records/s | MB/s | peak RSS MB | user s | sys s |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        med = r["median"]
        w(f"| {r['name']} | {r['best']:.3f} | {med:.3f} | {records / med:,.0f} | {size / 1e6 / med:,.1f} "
          f"| {r['rss'] / 1e6:.1f} | {r['user']:.2f} | {r['sys']:.2f} |")
    w("")
    w(f"rsp's own throughput line (reading loop only, last run): {rsp_loop_s:.3f} s, "
      f"{records / rsp_loop_s:,.0f} records/s, {size / 1e6 / rsp_loop_s:,.1f} MB/s")
    w("")
    verdicts = []
    if not args.no_perf_script:
        full = results[2]
        ratio_med = full["median"] / rsp["median"]
        ratio_best = full["best"] / rsp["best"]
        ok = ratio_med >= RATIO_TARGET
        verdicts.append(ok)
        w(f"- perf script (full) / rsp: **{ratio_med:.1f}x** (median; best {ratio_best:.1f}x); "
          f"target >= {RATIO_TARGET:.0f}x: {'met' if ok else 'NOT MET'}")
        ratio_nostack = results[3]["median"] / rsp["median"]
        w(f"- perf script (no stacks) / rsp: {ratio_nostack:.1f}x (median)")
        ratio_report = full["median"] / report["median"]
        ok = ratio_report >= RATIO_TARGET
        verdicts.append(ok)
        w(f"- perf script (full) / rsp report: **{ratio_report:.1f}x** (median); "
          f"target >= {RATIO_TARGET:.0f}x: {'met' if ok else 'NOT MET'}; "
          f"rsp report of `{args.report_comm}`: {accounted}% of its total time accounted, "
          f"{records / report['median']:,.0f} events/s")
    rss_ratio = rsp["rss"] / size
    ok = rss_ratio < RSS_TARGET
    verdicts.append(ok)
    w(f"- rsp peak RSS / file size: **{rss_ratio:.2f}** ({rsp['rss'] / 1e6:.1f} MB / {size / 1e6:.1f} MB); "
      f"target < {RSS_TARGET:.0f}: {'met' if ok else 'NOT MET'}")
    w(f"- rsp report peak RSS / file size: {report['rss'] / size:.2f} ({report['rss'] / 1e6:.1f} MB; the model "
      "keeps every run, sleep and sample)")
    w("")
    text = "\n".join(lines)
    print(text)
    with open(args.output, "w") as f:
        f.write(text)
    print(f"run.py: results written to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
