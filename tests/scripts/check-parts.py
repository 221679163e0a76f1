#!/usr/bin/env python3
"""The command line's parts load only what they need (issue: the CLI
without GTK).  With LD_DEBUG=files the dynamic loader names every object
it opens:
  - `rsp --version`, `rsp report` and `rsp dump` open nothing but the C
    library and libm (and a sanitizer's runtime in a sanitized build): rsp
    links its other libraries from their archives (RSP_STATIC_CLI=1, which
    CI requires); built without sanitizers it links the C library too
    (RSP_STATIC_LIBC=1, static-pie, which CI requires of such a build): then
    it has no program interpreter and no shared object to ask for.  Linked with the shared ones instead, report and dump
    still never open GTK, cairo, Pango or libstdc++ (a recording of C
    programs needs no demangler);
  - a copy of rsp alone runs report: it needs no part beside it;
  - `rsp render` opens cairo and Pango, never GTK;
  - `rsp view --help` is the only one that opens GTK.
And a part that is missing gives one message naming it and the fix."""
import os
import re
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

SANITIZER = re.compile(r"lib(asan|ubsan|lsan|tsan)\.so")
# what a sanitizer's runtime itself needs (libasan links libstdc++)
SANITIZER_DEPS = {"libstdc++.so.6", "libm.so.6", "libgcc_s.so.1", "libdl.so.2", "libpthread.so.0", "librt.so.1"}


def opened(argv, drawing=False):
    """The shared objects the loader opened running ARGV (it and the
    programs it executes), by file name; the process.  DRAWING: a command
    that draws, whose fontconfig caches a sanitized build's leak checker
    is told about as the renderers' tests tell it (tests/ui/lsan.supp)."""
    env = dict(os.environ, LD_DEBUG="files")
    if drawing and "LSAN_OPTIONS" in env:
        env["LSAN_OPTIONS"] = "suppressions=%s:print_suppressions=0" % os.path.join(
            os.environ["RSP_SOURCE_ROOT"], "tests", "ui", "lsan.supp")
    proc = t.run(argv, check=False, env=env, timeout=120)
    names = set()
    for line in proc.stderr.splitlines():
        m = re.search(r"file=(\S+) \[0\];\s+(needed by|dynamically loaded by)", line)
        if m:
            names.add(os.path.basename(m.group(1)))
    return names, proc


def interpreter_and_needed(path):
    """Whether the ELF file at PATH names a program interpreter (PT_INTERP)
    and how many DT_NEEDED entries its dynamic section has (64-bit,
    little-endian, as built here)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        t.fail("%s: not a 64-bit little-endian ELF file" % path)
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    interp, needed = False, 0
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 3:  # PT_INTERP
            interp = True
        elif p_type == 2:  # PT_DYNAMIC
            for k in range(p_filesz // 16):
                tag, _ = struct.unpack_from("<qQ", data, p_offset + 16 * k)
                if tag == 0:
                    break
                needed += tag == 1  # DT_NEEDED
    return interp, needed


def check_static_libc(rsp, sanitized):
    """rsp links the C library where it can (RSP_STATIC_LIBC): then it asks
    for no shared object at all; CI's plain build must be such a one."""
    interp, needed = interpreter_and_needed(rsp)
    if os.environ.get("RSP_STATIC_LIBC") == "1":
        if interp or needed:
            t.fail("rsp is meant to be static-pie (RSP_STATIC_LIBC=1) but has %s and %d DT_NEEDED"
                   % ("a program interpreter" if interp else "no program interpreter", needed))
        t.log("rsp is static-pie: no program interpreter, no shared object needed")
        return
    why = os.environ.get("RSP_STATIC_LIBC_WHY", "")
    if os.environ.get("CI") == "true" and not sanitized:
        t.fail("rsp was not linked with the C library (meson option static_libc: %s): a build "
               "without sanitizers links it statically when libc6-dev and g++ (libsupc++.a) are "
               "installed, which scripts/install-deps.sh does" % (why or "?"))
    t.log("NOTE: rsp uses the shared C library here (%s)" % (why or "?"))


def main():
    rsp = t.rsp_path()
    data = os.path.join(os.environ["RSP_SOURCE_ROOT"], "tests", "data", "pingpong.rsp")

    static = os.environ.get("RSP_STATIC_CLI") == "1"
    if not static:
        if os.environ.get("CI") == "true":
            t.fail("rsp was linked with the shared libraries (meson option static_cli disabled, an "
                   "archive missing or the archives not linking; meson's summary says which): the "
                   "archives of GLib, elfutils, libtraceevent, libtracefs, bzip2, xz and zlib come "
                   "with the packages scripts/install-deps.sh installs")
        t.log("NOTE: rsp is linked with the shared libraries here (static_cli): only the heavy ones are checked")

    heavy = re.compile(r"^lib(gtk-4|cairo|pango|stdc\+\+)")
    report = None
    for argv in ([rsp, "--version"], [rsp, "report", data], [rsp, "dump", "--stats", data]):
        names, proc = opened(argv)
        if proc.returncode != 0:
            t.fail("%s: exit %d: %s" % (" ".join(argv[1:2]), proc.returncode, proc.stderr[-2000:]))
        if argv[1] == "--version":
            if not proc.stdout.startswith("rsp "):
                t.fail("rsp --version: exit %d, %r" % (proc.returncode, proc.stdout))
            sanitized = any(SANITIZER.search(n) for n in names)
            allowed = {"libc.so.6", "libm.so.6"} | (SANITIZER_DEPS if sanitized else set())
            check_static_libc(rsp, sanitized)
        elif argv[1] == "report":
            report = proc.stdout
        extra = sorted(n for n in names if n not in allowed and not SANITIZER.search(n))
        if static and extra:
            t.fail("rsp %s opened %s besides the C library and libm" % (argv[1], ", ".join(extra)))
        bad = sorted(n for n in names if heavy.search(n) and not (sanitized and n in SANITIZER_DEPS))
        if bad:
            t.fail("rsp %s opened %s" % (argv[1], ", ".join(bad)))
        t.log("rsp %s opens: %s" % (argv[1], ", ".join(sorted(names))))

    with tempfile.TemporaryDirectory(prefix="rsp-parts-") as d:
        png = os.path.join(d, "t.png")
        names, proc = opened([rsp, "render", data, "--view", "timeline", "-o", png], drawing=True)
        if proc.returncode != 0 or not os.path.getsize(png):
            t.fail("rsp render: exit %d: %s" % (proc.returncode, proc.stderr[-2000:]))
        if not any(n.startswith("libcairo") for n in names) or any(n.startswith("libgtk-4") for n in names):
            t.fail("rsp render opened %s" % sorted(names))
        t.log("rsp render opens cairo (%d shared objects), not GTK" % len(names))

        names, proc = opened([rsp, "view", "--help"], drawing=True)
        if not any(n.startswith("libgtk-4") for n in names):
            t.fail("rsp view --help did not load GTK: %s (exit %d: %s)"
                   % (sorted(names), proc.returncode, proc.stderr[-1000:]))
        t.log("rsp view loads GTK 4")

        # rsp alone, without the parts beside it or installed: report runs
        # as well as beside them; view and render give one message naming
        # what is missing and the fix, exit 1
        alone = os.path.join(d, "rsp")
        with open(rsp, "rb") as src, open(alone, "wb") as dst:
            dst.write(src.read())
        os.chmod(alone, 0o755)
        there = t.run([alone, "report", data], check=False, timeout=60)
        if there.returncode != 0 or there.stdout != report or not report:
            t.fail("rsp alone: report exit %d, %s the report of the rsp of the build tree: %s"
                   % (there.returncode, "same as" if there.stdout == report else "not",
                      there.stderr[-1000:]))
        t.log("rsp alone runs report (%d lines, the same)" % len(report.splitlines()))
        for argv, part in (([alone, "view", data], "rsp-view"),
                           ([alone, "render", data, "-o", png], "rsp-render")):
            proc = t.run(argv, check=False, timeout=60)
            lines = [l for l in proc.stderr.splitlines() if l.strip()]
            installed = any(os.path.exists(os.path.join(p, part)) for p in
                            ("/usr/libexec/rsp", "/usr/local/libexec/rsp"))
            if installed:
                t.log("NOTE: %s is installed on this machine: the missing-part message is not checked" % part)
                continue
            if proc.returncode != 1 or len(lines) != 1 or part not in lines[0] or "reinstall rsp" not in lines[0]:
                t.fail("rsp %s without %s: exit %d, %r" % (argv[1], part, proc.returncode, proc.stderr))
            t.log("rsp %s without %s: %s" % (argv[1], part, lines[0]))
    t.log("PASS")


if __name__ == "__main__":
    main()
