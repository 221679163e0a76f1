#!/usr/bin/env python3
"""`rsp record --stop-on-eof`, recorded for real (root and perf): how the
viewer's Record… stops a recording it started through pkexec, by closing
the recorder's standard input.

  1. COMMAND `sleep 30`: standard input closed after 2 s ends the
     recording within seconds, as an interrupt does: sleep gets SIGTERM
     (exit 143), the recording is written (rsp says "interrupted") and
     opens.
  2. COMMAND `cat` reads /dev/null, not the recorder's input: it ends at
     once, and so does the recording, while that input stays open.
  3. No COMMAND (the whole system): the end of the input is the planned
     end of the recording (exit 0).
"""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402


def record(rsp, out, command, close_after, limit):
    """Runs rsp record --stop-on-eof, closes its input after CLOSE_AFTER s;
    returns (exit status, seconds it took, stderr)."""
    argv = [rsp, "record", "--stop-on-eof", "-o", out] + (["--"] + command if command else [])
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = start + close_after
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    ended_before_close = proc.poll() is not None
    proc.stdin.close()
    try:
        err = proc.stderr.read().decode(errors="replace")
        proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        t.fail("rsp record --stop-on-eof %s went on %d s after its input closed" % (command, limit))
    return proc.returncode, time.monotonic() - start, err, ended_before_close


def check_report(rsp, path, command):
    """The recording opens and names its command."""
    report = subprocess.run([rsp, "report", "--json", path], capture_output=True, text=True, timeout=120)
    if report.returncode != 0:
        t.fail("rsp report on %s failed: %s" % (path, report.stderr))
    recorded = json.loads(report.stdout)["recording"].get("command")
    if recorded != command:
        t.fail("%s: the report names the command %s, not %s" % (path, recorded, command))


def main():
    t.require_perf_and_root()
    rsp = t.rsp_path()
    workdir = tempfile.mkdtemp(prefix="rsp-stop-")
    out = os.path.join(workdir, "sleep.rsp")
    status, took, err, early = record(rsp, out, ["sleep", "30"], 2.0, 60)
    if early:
        t.fail("rsp record -- sleep 30 ended before its input closed: %s" % err)
    if status != 143 or not os.path.exists(out) or "interrupted" not in err:
        t.fail("closing the input of rsp record -- sleep 30: exit %d, file %s, stderr: %s"
               % (status, os.path.exists(out), err))
    check_report(rsp, out, ["sleep", "30"])
    t.log("sleep 30: input closed at 2 s, the recording ended %.1f s after the start (exit 143, interrupted)" % took)

    out = os.path.join(workdir, "cat.rsp")
    status, took, err, early = record(rsp, out, ["cat"], 20.0, 60)
    if not early or status != 0 or not os.path.exists(out):
        t.fail("rsp record --stop-on-eof -- cat: cat must read /dev/null and end at once "
               "(ended before the input closed: %s, exit %d, %.1f s): %s" % (early, status, took, err))
    t.log("cat read /dev/null: the recording ended by itself after %.1f s, its input still open" % took)

    out = os.path.join(workdir, "system.rsp")
    status, took, err, early = record(rsp, out, None, 2.0, 60)
    if early or status != 0 or not os.path.exists(out):
        t.fail("a whole-system rsp record --stop-on-eof: exit %d, file %s: %s" % (status, os.path.exists(out), err))
    t.log("whole system: the end of the input ended the recording after %.1f s (exit 0)" % took)
    for name in os.listdir(workdir):
        os.unlink(os.path.join(workdir, name))
    os.rmdir(workdir)
    t.log("PASS")


if __name__ == "__main__":
    main()
