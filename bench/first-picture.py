#!/usr/bin/env python3
"""bench/first-picture.py — how long `rsp view FILE` takes to show a picture.

    sudo bench/first-picture.py FILE... [--build build] [--reps 3] [--env NAME=VALUE]

For each FILE, starts `rsp view FILE` under an Xvfb of its own (the test
suite's, tests/gui/e2e.py) REPS times after one untimed run (a warm page
cache), and times from the moment it is started to the first frame the
timeline draws with rows in it: the viewer logs that frame with its
CLOCK_MONOTONIC time (G_MESSAGES_DEBUG=rsp-ui), the clock this script
reads before it starts the viewer.  So the time includes starting the
process (and, as root, runuser: the viewer never runs as root), loading
GTK, reading and assembling the recording, the timeline's layout and its
first frame.  Prints the best and the median of the REPS, per file, as a
Markdown table, with the median time at which the model was loaded (the
viewer logs that too).  The viewer chooses its renderer as it would for
a user (GTK's cairo renderer where there is no GPU); `--env
GSK_RENDERER=gl` measures GTK's OpenGL renderer instead.  Needs Xvfb
(scripts/install-deps.sh --test).
"""
import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("RSP_SOURCE_ROOT", ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "gui"))
import e2e  # noqa: E402

FIRST = re.compile(r"timeline: first frame with content, (\d+) rows, at monotonic (\d+) us")
LOADED = re.compile(r"load: model ready at monotonic (\d+) us")


def one_run(display, path, workdir, extra_env):
    log = os.path.join(workdir, "viewer.log")
    if os.path.exists(log):
        os.unlink(log)
    start = time.monotonic_ns() // 1000
    proc = e2e.start_viewer(display, path, workdir, debug="rsp-ui", extra_env=extra_env)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            log = e2e.viewer_log(workdir, 1 << 20)
            m = FIRST.search(log)
            if m:
                loaded = LOADED.search(log)
                return ((int(m.group(2)) - start) / 1e6, int(m.group(1)),
                        (int(loaded.group(1)) - start) / 1e6 if loaded else float("nan"))
            if proc.poll() is not None:
                break
            time.sleep(0.01)
        sys.exit("bench/first-picture.py: the viewer drew no timeline for %s; its log:\n%s"
                 % (path, e2e.viewer_log(workdir)))
    finally:
        e2e.stop_viewer(proc)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="an environment variable for the viewer (GSK_RENDERER=cairo, ...)")
    args = ap.parse_args()
    for tool in ("Xvfb",):
        if shutil.which(tool) is None:
            sys.exit("bench/first-picture.py: %s is not installed (scripts/install-deps.sh --test)" % tool)
    os.environ["RSP"] = os.path.join(os.path.abspath(args.build), "src", "rsp")
    extra_env = list(args.env)

    rows = []
    display = e2e.Display()
    try:
        for path in args.files:
            workdir = tempfile.mkdtemp(prefix="rsp-first-picture-")
            os.chmod(workdir, 0o755)
            copy = e2e.readable_copy(path, os.path.join(workdir, os.path.basename(path)))
            one_run(display, copy, workdir, extra_env)  # warm-up
            times = []
            loads = []
            n_rows = 0
            for _ in range(args.reps):
                seconds, n_rows, loaded = one_run(display, copy, workdir, extra_env)
                times.append(seconds)
                loads.append(loaded)
                print("%s: %.3f s (model loaded at %.3f s)"
                      % (os.path.basename(path), seconds, loaded), file=sys.stderr)
            rows.append((os.path.basename(path), os.path.getsize(path) / 1e6, min(times),
                         statistics.median(times),
                         statistics.median([x for x in loads if x == x] or [float("nan")]), n_rows))
            shutil.rmtree(workdir, ignore_errors=True)
    finally:
        display.close()

    print("| file | size | first picture s (best) | median | model loaded (median) | timeline rows |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, size, best, median, loaded, n_rows in rows:
        print("| %s | %.1f MB | %.3f | %.3f | %.3f | %d |" % (name, size, best, median, loaded, n_rows))


if __name__ == "__main__":
    main()
