#!/usr/bin/env python3
"""A plain perf.data recorded on another kernel: its kernel frames are not
named with this machine's symbols (they are another kernel's addresses:
the names would be wrong), as perf script does not name them either, and
rsp says why once.  Recorded on the running kernel, they are named.

tests/data/pingpong-plain.perf.data is copied twice, the build id its
header gives [kernel.kallsyms] set to another one in the first copy and to
the running kernel's in the second (read from /sys/kernel/notes)."""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

WARNING = "the recording was made on another kernel"


def with_kernel_id(src, dst, new_hex):
    data = bytearray(open(src, "rb").read())
    old = t.recorded_kernel_build_id(src)
    if old is None:
        t.fail("perf buildid-list names no [kernel.kallsyms] in %s" % src)
    old_bytes = bytes.fromhex(old)
    at = data.find(old_bytes)
    if at < 0 or data.find(old_bytes, at + 1) >= 0:
        t.fail("the kernel's build id %s is not once in %s" % (old, src))
    new = bytes.fromhex(new_hex)[:len(old_bytes)]
    data[at:at + len(new)] = new
    with open(dst, "wb") as f:
        f.write(data)


def kernel_frames(dump_text):
    """The symbols of the kernel frames (the ones in [kernel.kallsyms])."""
    names = []
    for line in dump_text.splitlines():
        if line.startswith("\t") and line.rstrip().endswith("([kernel.kallsyms])"):
            names.append(line.split()[1])
    return names


def main():
    rsp = t.rsp_path()
    perf = t.perf_path()
    if perf is None:
        t.skip_or_fail("perf is not installed (Debian package linux-perf): it reads the recording's build ids")
    src = os.path.join(os.environ["RSP_SOURCE_ROOT"], "tests", "data", "pingpong-plain.perf.data")
    running = t.running_kernel_build_id()
    if running is None:
        t.skip_or_fail("/sys/kernel/notes cannot be read: the running kernel's build id is unknown")
    with tempfile.TemporaryDirectory(prefix="rsp-other-kernel-") as tmp:
        env = dict(os.environ, RSP_NO_CACHE="1")
        other_hex = "".join("%02x" % (0xff - int(running[i:i + 2], 16)) for i in range(0, len(running), 2))
        other = os.path.join(tmp, "other.perf.data")
        with_kernel_id(src, other, other_hex)
        proc = t.run([rsp, "dump", other], env=env)
        frames = kernel_frames(proc.stdout)
        if not frames:
            t.fail("rsp dump printed no kernel frame of %s" % other)
        named = [f for f in frames if f != "[unknown]"]
        if named:
            t.fail("%d of %d kernel frames of another kernel were named with this machine's symbols, e.g. %s"
                   % (len(named), len(frames), named[:3]))
        if proc.stderr.count(WARNING) != 1:
            t.fail("rsp dump did not say once why the kernel frames are unknown:\n" + proc.stderr)
        script = t.run([perf, "script", "-i", other], env=env).stdout
        perf_named = [line for line in script.splitlines()
                      if line.rstrip().endswith("([kernel.kallsyms])") and "[unknown]" not in line]
        if perf_named:
            t.fail("perf script names kernel frames of that file, rsp does not: %s" % perf_named[:3])
        report = t.run([rsp, "report", "--comm", "pingpong", other], env=env)
        if report.stderr.count(WARNING) != 1:
            t.fail("rsp report did not say once why the kernel frames are unknown:\n" + report.stderr)
        t.log("another kernel: %d kernel frames, none named (as perf script), one warning" % len(frames))

        if os.geteuid() != 0:
            t.log("NOTE: not root: this machine's kernel symbols are hidden (kptr_restrict); "
                  "the case of the running kernel was left out")
            t.log("PASS")
            return
        this = os.path.join(tmp, "this.perf.data")
        with_kernel_id(src, this, running)
        proc = t.run([rsp, "dump", this], env=env)
        frames = kernel_frames(proc.stdout)
        named = [f for f in frames if f != "[unknown]"]
        if not named or WARNING in proc.stderr:
            t.fail("recorded (by its header) on the running kernel, %d of %d kernel frames were named:\n%s"
                   % (len(named), len(frames), proc.stderr))
        t.log("the running kernel: %d of %d kernel frames named" % (len(named), len(frames)))
    t.log("PASS")


if __name__ == "__main__":
    main()
