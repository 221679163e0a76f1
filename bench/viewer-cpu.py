#!/usr/bin/env python3
"""bench/viewer-cpu.py — what moving around the timeline costs the viewer.

    sudo bench/viewer-cpu.py FILE [--build build] [--reps 2] [--env NAME=VALUE]...

Starts `rsp view FILE` under an Xvfb of its own (the test suite's helpers,
tests/gui/e2e.py; as root the viewer runs as the tests' unprivileged user),
waits for the timeline's first frame, clicks into the timeline and then
presses 32 of its keys with real key events (xdotool), 0.15 s apart: W six
times (zoom in), D ten times (pan right), S six times (zoom out), A ten
times (pan left).  Reads the CPU time (user + system, /proc/PID/stat) the
viewer's processes and the Xvfb spent from the first key to a second after
the last, and checks in the viewer's debug log that each key moved the
view ("timeline (key)").  Each `--env` is one run set with that variable
(GSK_RENDERER=gl: GTK's OpenGL renderer; none: the viewer's own choice).
Prints a Markdown table.  Needs Xvfb and xdotool (scripts/install-deps.sh
--test).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("RSP_SOURCE_ROOT", ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "gui"))
import e2e  # noqa: E402

KEYS = ["w"] * 6 + ["d"] * 10 + ["s"] * 6 + ["a"] * 10
KEY_LINE = re.compile(r"timeline \(key\)")
RENDERER_LINE = re.compile(r"window drawn by (\w+)")


def cpu_seconds(pid):
    """PID's CPU time and its reaped children's, or None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def cpu_since(before):
    """The CPU time the processes of BEFORE (pid: seconds) spent since; one
    that ended meanwhile counts in its parent's, once reaped."""
    total = 0.0
    for pid, then in before.items():
        now = cpu_seconds(pid)
        if now is not None and then is not None:
            total += now - then
    return total


def viewer_pids():
    out = subprocess.run(["pgrep", "-u", e2e.TEST_USER], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()] if os.geteuid() == 0 else [os.getpid()]


def one_run(display, path, workdir, extra_env):
    proc = e2e.start_viewer(display, path, workdir, debug="rsp-ui", extra_env=extra_env)
    try:
        deadline = time.time() + 120
        while "first frame with content" not in e2e.viewer_log(workdir, 1 << 20):
            if time.time() > deadline or proc.poll() is not None:
                sys.exit("bench/viewer-cpu.py: the viewer drew no timeline; its log:\n" + e2e.viewer_log(workdir))
            time.sleep(0.05)
        wins = e2e.wait_windows(display, proc, 1, 10)
        if not wins:
            sys.exit("bench/viewer-cpu.py: no viewer window")
        e2e.xdotool(display, "windowactivate", "--sync", wins[0])
        x, y, w, h = e2e.window_geometry(display, wins[0])
        e2e.xdotool(display, "mousemove", str(x + w // 2), str(y + h // 2), "click", "1")
        time.sleep(1)
        before = len(KEY_LINE.findall(e2e.viewer_log(workdir, 1 << 22)))
        viewer0 = {p: cpu_seconds(p) for p in viewer_pids()}
        xvfb0 = {display.proc.pid: cpu_seconds(display.proc.pid)}
        for key in KEYS:
            e2e.xdotool(display, "key", key)
            time.sleep(0.15)
        time.sleep(1)
        viewer = cpu_since(viewer0)
        xvfb = cpu_since(xvfb0)
        log = e2e.viewer_log(workdir, 1 << 22)
        moved = len(KEY_LINE.findall(log)) - before
        if moved != len(KEYS):
            sys.exit("bench/viewer-cpu.py: %d of %d keys moved the timeline" % (moved, len(KEYS)))
        drawn = RENDERER_LINE.search(log)
        return viewer, xvfb, drawn.group(1) if drawn else "?"
    finally:
        e2e.stop_viewer(proc)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="a run set with this variable for the viewer (besides one with none)")
    args = ap.parse_args()
    for tool in ("Xvfb", "xdotool"):
        if shutil.which(tool) is None:
            sys.exit("bench/viewer-cpu.py: %s is not installed (scripts/install-deps.sh --test)" % tool)
    os.environ["RSP"] = os.path.join(os.path.abspath(args.build), "src", "rsp")
    display = e2e.Display()
    workdir = tempfile.mkdtemp(prefix="rsp-viewer-cpu-")
    rows = []
    try:
        os.chmod(workdir, 0o755)
        copy = e2e.readable_copy(args.file, os.path.join(workdir, os.path.basename(args.file)))
        for env in [None] + args.env:
            extra = [env] if env else []
            runs = [one_run(display, copy, workdir, extra) for _ in range(args.reps)]
            for viewer, xvfb, drawn in runs:
                print("%s: viewer %.2f s, Xvfb %.2f s (%s)" % (env or "the viewer's choice", viewer, xvfb, drawn),
                      file=sys.stderr)
            rows.append((env or "the viewer's choice", runs[0][2], statistics.median(r[0] for r in runs),
                         statistics.median(r[1] for r in runs)))
    finally:
        display.close()
        shutil.rmtree(workdir, ignore_errors=True)
    print("| renderer | drawn by | viewer CPU s (median) | Xvfb CPU s (median) |")
    print("|---|---|---:|---:|")
    for env, drawn, viewer, xvfb in rows:
        print("| %s | %s | %.2f | %.2f |" % (env, drawn, viewer, xvfb))


if __name__ == "__main__":
    main()
