#!/usr/bin/env python3
"""`rsp record` when something is missing: one clear message, never a crash.

  record-errors.py no-perf        RSP_PERF points nowhere: the message names
                                  the package linux-perf, exit 1
  record-errors.py non-root       as an unprivileged user: the message says
                                  what privilege is missing (root,
                                  perf_event_paranoid), non-zero exit
  record-errors.py missing-event  RSP_RECORD_PRETEND_MISSING=sock:sk_data_ready:
                                  the recording succeeds, the message says what
                                  is lost, the file lacks only that event
"""

import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

TEST_USER = "rsp-test-user"
CRASH = re.compile(r"AddressSanitizer|LeakSanitizer|runtime error:|CRITICAL \*\*")


def check_no_crash(proc, what):
    if proc.returncode < 0 or proc.returncode >= 128 or CRASH.search(proc.stderr):
        t.fail("%s crashed (exit %d):\n%s" % (what, proc.returncode, proc.stderr[-3000:]))


def rsp_lines(stderr):
    """The recorder's own messages: "rsp: ..." or "rsp record: ..."."""
    return [line for line in stderr.splitlines() if re.match(r"rsp( record)?:", line)]


def no_perf(rsp, workdir):
    if os.geteuid() != 0:
        t.skip_or_fail("needs root, so that the missing perf is the only thing missing")
    env = dict(os.environ, RSP_PERF="/nonexistent/bin/perf")
    out = os.path.join(workdir, "x.rsp")
    proc = t.run([rsp, "record", "-o", out, "--", "true"], timeout=60, check=False, env=env)
    check_no_crash(proc, "rsp record without perf")
    t.log("exit %d, stderr:\n%s" % (proc.returncode, proc.stderr.strip()))
    if proc.returncode != 1:
        t.fail("expected exit 1, got %d" % proc.returncode)
    lines = rsp_lines(proc.stderr)
    if not lines:
        t.fail("no line starting with 'rsp:' or 'rsp record:'")
    if "linux-perf" not in proc.stderr:
        t.fail("the message does not name the Debian package linux-perf")
    if os.path.exists(out) and os.path.getsize(out) > 0:
        t.fail("a failed recording left %s behind" % out)


def ensure_test_user():
    try:
        return pwd.getpwnam(TEST_USER)
    except KeyError:
        pass
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    t.run([useradd, "-m", "-s", "/bin/sh", TEST_USER], timeout=60)
    return pwd.getpwnam(TEST_USER)


def non_root(rsp, workdir):
    if os.geteuid() != 0:
        t.skip_or_fail("needs root to create and become the test user %s" % TEST_USER)
    if not t.perf_path():
        t.skip_or_fail("perf is not installed (Debian package linux-perf)")
    paranoid = int(open("/proc/sys/kernel/perf_event_paranoid").read().strip())
    if paranoid < 1:
        t.skip("kernel.perf_event_paranoid=%d lets unprivileged users record "
               "system-wide here" % paranoid)
    setpriv = shutil.which("setpriv")
    if not setpriv:
        t.skip_or_fail("setpriv (util-linux) is missing")
    user = ensure_test_user()
    # The build tree may not be readable by the test user: run a copy.
    os.chmod(workdir, 0o777)
    exe = t.copy_rsp(workdir)
    out = os.path.join(workdir, "x.rsp")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": user.pw_dir,
           "USER": TEST_USER, "LOGNAME": TEST_USER, "LANG": "C.UTF-8"}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "RSP_PERF", "G_DEBUG"):
        if k in os.environ:
            env[k] = os.environ[k]
    argv = [setpriv, "--reuid=%d" % user.pw_uid, "--regid=%d" % user.pw_gid, "--clear-groups",
            "--", exe, "record", "-o", out, "--", "true"]
    proc = t.run(argv, timeout=120, check=False, env=env, cwd=workdir)
    check_no_crash(proc, "rsp record as %s" % TEST_USER)
    t.log("exit %d, stderr:\n%s" % (proc.returncode, proc.stderr.strip()))
    if proc.returncode == 0:
        t.fail("rsp record succeeded as an unprivileged user with perf_event_paranoid=%d" % paranoid)
    lines = rsp_lines(proc.stderr)
    if not lines:
        t.fail("no line starting with 'rsp:' or 'rsp record:'")
    if not re.search(r"perf_event_paranoid|root|privilege|sudo|permission", proc.stderr, re.I):
        t.fail("the message does not say which privilege is missing "
               "(root, sudo or kernel.perf_event_paranoid)")


def missing_event(rsp, workdir):
    perf = t.require_perf_and_root()
    env = dict(os.environ, RSP_RECORD_PRETEND_MISSING="sock:sk_data_ready")
    out = os.path.join(workdir, "x.rsp")
    proc = t.run([rsp, "record", "-o", out, "--", "true"], timeout=300, check=False, env=env)
    check_no_crash(proc, "rsp record with a missing event")
    t.log("exit %d, stderr:\n%s" % (proc.returncode, proc.stderr.strip()))
    if proc.returncode != 0:
        t.fail("recording must succeed without sock:sk_data_ready (exit %d)" % proc.returncode)
    told = [line for line in rsp_lines(proc.stderr) if "sk_data_ready" in line]
    if not told:
        t.fail("no 'rsp record:' line names the missing event sock:sk_data_ready")
    if not os.path.exists(out):
        t.fail("no recording written")
    evlist = t.run([perf, "evlist", "--force", "-i", out], timeout=60).stdout
    if "sk_data_ready" in evlist:
        t.fail("the recording still holds sock:sk_data_ready:\n" + evlist)
    for present in ("sched:sched_switch", "sock:sock_send_length"):
        if present not in evlist:
            t.fail("the recording lost %s too:\n%s" % (present, evlist))
    stats = t.run([rsp, "dump", "--stats", out], timeout=120, check=False)
    check_no_crash(stats, "rsp dump --stats")
    if stats.returncode != 0:
        t.fail("rsp dump --stats exited %d: %s" % (stats.returncode, stats.stderr[-2000:]))
    if "sk_data_ready" not in stats.stdout + stats.stderr:
        t.fail("rsp dump --stats does not report the missing event sock:sk_data_ready")


def bad_output(rsp, workdir):
    """-o naming a device, a FIFO or a directory is refused before recording:
    the recording is renamed into place and must never replace /dev/null."""
    fifo = os.path.join(workdir, "fifo")
    os.mkfifo(fifo)
    for target in ("/dev/null", fifo, workdir):
        before = os.lstat(target)
        proc = t.run([rsp, "record", "-o", target, "--", "true"], timeout=60, check=False)
        check_no_crash(proc, "rsp record -o " + target)
        if proc.returncode == 0:
            t.fail("rsp record -o %s succeeded" % target)
        if not rsp_lines(proc.stderr):
            t.fail("no 'rsp record:' line for -o %s: %r" % (target, proc.stderr))
        after = os.lstat(target)
        if (before.st_mode, before.st_ino) != (after.st_mode, after.st_ino):
            t.fail("rsp record -o %s replaced it" % target)
        t.log("-o %s: %s" % (target, proc.stderr.strip().splitlines()[-1]))


def main():
    tests = {"no-perf": no_perf, "non-root": non_root, "missing-event": missing_event, "bad-output": bad_output}
    if len(sys.argv) != 2 or sys.argv[1] not in tests:
        t.fail("usage: record-errors.py " + "|".join(tests))
    rsp = t.rsp_path()
    workdir = tempfile.mkdtemp(prefix="rsp-record-errors-")
    try:
        tests[sys.argv[1]](rsp, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    t.log("PASS")


if __name__ == "__main__":
    main()
