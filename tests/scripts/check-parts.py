#!/usr/bin/env python3
"""The command line's parts load only what they need (issue: the CLI
without GTK).  With LD_DEBUG=files the dynamic loader names every object
it opens:
  - `rsp --version` opens nothing but the C library (and a sanitizer's
    runtime in a sanitized build);
  - `rsp report`, `rsp dump` open librsp-cli.so and never GTK, cairo,
    Pango or libstdc++ (a recording of C programs needs no demangler);
  - `rsp render` opens cairo and Pango, never GTK;
  - `rsp view --help` is the only one that opens GTK.
And a part that is missing gives one message naming it and the fix."""
import os
import re
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


def main():
    rsp = t.rsp_path()
    data = os.path.join(os.environ["RSP_SOURCE_ROOT"], "tests", "data", "pingpong.rsp")

    names, proc = opened([rsp, "--version"])
    if proc.returncode != 0 or not proc.stdout.startswith("rsp "):
        t.fail("rsp --version: exit %d, %r" % (proc.returncode, proc.stdout))
    sanitized = any(SANITIZER.search(n) for n in names)
    allowed = {"libc.so.6"} | (SANITIZER_DEPS if sanitized else set())
    extra = sorted(n for n in names if n not in allowed and not SANITIZER.search(n))
    if extra:
        t.fail("rsp --version opened %s besides the C library" % ", ".join(extra))
    t.log("rsp --version opens: %s" % ", ".join(sorted(names)))

    heavy = re.compile(r"^lib(gtk-4|cairo|pango|stdc\+\+)")
    for argv in ([rsp, "report", data], [rsp, "dump", "--stats", data]):
        names, proc = opened(argv)
        if proc.returncode != 0:
            t.fail("%s: exit %d: %s" % (" ".join(argv[1:2]), proc.returncode, proc.stderr[-2000:]))
        if "librsp-cli.so" not in names:
            t.fail("rsp %s did not load librsp-cli.so: %s" % (argv[1], sorted(names)))
        bad = sorted(n for n in names if heavy.search(n) and not (sanitized and n in SANITIZER_DEPS))
        if bad:
            t.fail("rsp %s opened %s" % (argv[1], ", ".join(bad)))
        t.log("rsp %s opens %d shared objects, none of GTK, cairo, Pango, libstdc++" % (argv[1], len(names)))

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

        # rsp alone, without the parts beside it or installed: one message
        # naming what is missing and the fix, exit 1
        alone = os.path.join(d, "rsp")
        with open(rsp, "rb") as src, open(alone, "wb") as dst:
            dst.write(src.read())
        os.chmod(alone, 0o755)
        for argv, part in (([alone, "report", data], "librsp-cli.so"), ([alone, "view", data], "rsp-view"),
                           ([alone, "render", data, "-o", png], "rsp-render")):
            proc = t.run(argv, check=False, timeout=60)
            lines = [l for l in proc.stderr.splitlines() if l.strip()]
            installed = any(os.path.exists(os.path.join(p, part)) for p in
                            ("/usr/lib/x86_64-linux-gnu/rsp", "/usr/libexec/rsp", "/usr/local/lib/x86_64-linux-gnu/rsp",
                             "/usr/local/libexec/rsp"))
            if installed:
                t.log("NOTE: %s is installed on this machine: the missing-part message is not checked" % part)
                continue
            if proc.returncode != 1 or len(lines) != 1 or part not in lines[0] or "reinstall rsp" not in lines[0]:
                t.fail("rsp %s without %s: exit %d, %r" % (argv[1], part, proc.returncode, proc.stderr))
            t.log("rsp %s without %s: %s" % (argv[1], part, lines[0]))
    t.log("PASS")


if __name__ == "__main__":
    main()
