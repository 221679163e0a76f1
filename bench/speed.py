#!/usr/bin/env python3
"""bench/speed.py — `rsp report` against `perf script` on the kinds of
recordings users make, in one run on the same files.

    sudo bench/speed.py [--build build] [--reps 3] [--dir /var/tmp/rsp-speed]
                        [--remake] [--output bench/results/speed.md] [--only small.rsp,make.rsp]

Makes (once; --remake to make them again), as root, in DIR:
  small.rsp       rsp record of the pingpong workload, then ls -R /usr/include
  small.perf.data the same workload under plain `perf record` with RSP's
                  event set (the README's command line)
  medium.rsp      rsp record of pingpong with 10,000 passes, then ls -R
                  /usr/include: about 10 MB, the middle of the sizes most
                  recordings have (2 to 20 MB)
  make.rsp        rsp record of `make -j2` over 24 generated C files (gcc -O2):
                  many short processes, many binaries
  messaging.rsp   rsp record of `perf bench sched messaging -g 8 -l 400`
                  (issue 15's large file: 266 MB when every event of its
                  local sockets was recorded, about 13 MB since rsp record
                  leaves them out, docs/RECORDING.md "Local sockets")
  messaging-large.rsp  the same with -l 4000: a large recording (about
                  110 MB), context switches with their stacks
  copy.rsp        rsp record of a copy of /usr/share/doc (tar into tar, then
                  sync): the disk at work, a request and a stored file name
                  for each of thousands of files (about 11 MB here)
  read.rsp        rsp record of a cold read of 20,000 files under /usr (find
                  | xargs cat, each file dropped from the page cache first
                  with posix_fadvise): a disk read and a finding per file
                  (about 20 MB)
  make-dwarf.perf.data  the same make under plain `perf record` with RSP's
                  event set and `--call-graph dwarf` instead of -g (user
                  stacks copied, unwound when read: no frame pointers needed)
then runs each tool once untimed (warm page cache, warm symbol files, and
rsp's cache of the kernel's symbols made) and then in REPS rounds (rsp
report warm, rsp report cold, perf script: one run each per round, so
that the machine's drift weighs on all three alike), and prints a
Markdown table: the best wall time of each (the whole process, fork to
wait4) — rsp report both with its cache (warm) and with RSP_NO_CACHE=1
(cold: nothing read from or written to the cache) —, the ratios perf
script / rsp report of the best times (cold, warm), the median of the
rounds' own ratios (warm: steadier than the best times on a noisy VM,
where a run of a few milliseconds varies by half), rsp's peak RSS
(ru_maxrss from wait4) against the goal max(file size, 64 MB).
Output goes to /dev/null.  The goal (issue 15) is a ratio of at least 30
on every file.
"""
import argparse
import datetime
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "scripts"))
import rsptest  # noqa: E402  (the README's perf command line)

N_SOURCES = 24
N_READ_FILES = 20000


def run_timed(argv, env=None):
    """Wall seconds and peak RSS (KiB) of ARGV, output discarded."""
    start = time.monotonic()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=null, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("speed: %s exited with %d" % (" ".join(argv), os.waitstatus_to_exitcode(status)))
    return wall, usage.ru_maxrss


def make_sources(directory):
    """24 C files of some size and a Makefile that builds them with -O2."""
    os.makedirs(directory, exist_ok=True)
    for i in range(N_SOURCES):
        with open(os.path.join(directory, "unit%02d.c" % i), "w") as f:
            f.write("#include <stdio.h>\n#include <string.h>\n#include <stdlib.h>\n")
            for k in range(60):
                f.write("static int f%d_%d (const char *s, int n)\n{\n  int h = %d;\n"
                        "  for (int i = 0; i < n && s[i]; i++)\n    h = h * 31 + s[i] * %d;\n"
                        "  char buf[64];\n  snprintf (buf, sizeof buf, \"%%d\", h);\n"
                        "  return (int) strlen (buf) + h %% %d;\n}\n" % (i, k, k, k + 1, k + 7))
            f.write("int unit%02d (void)\n{\n  int t = 0;\n" % i)
            for k in range(60):
                f.write("  t += f%d_%d (\"abcdef\", %d);\n" % (i, k, k))
            f.write("  return t;\n}\n")
    with open(os.path.join(directory, "Makefile"), "w") as f:
        objs = " ".join("unit%02d.o" % i for i in range(N_SOURCES))
        f.write("all: %s\n%%.o: %%.c\n\tgcc -O2 -c $< -o $@\nclean:\n\trm -f *.o\n" % objs)


def record(rsp, out, command, cwd=None):
    proc = subprocess.run([rsp, "record", "-o", out, "--"] + command, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("speed: rsp record %s failed: %s" % (" ".join(command), proc.stderr[-2000:]))


def make_dwarf_recording(directory):
    """make -j2 under plain perf record with DWARF call graphs."""
    perf = shutil.which("perf")
    src = os.path.join(directory, "make-src")
    make_sources(src)
    subprocess.run(["make", "-s", "-C", src, "clean"], check=True)
    argv = rsptest.perf_record_argv(perf, os.path.join(directory, "make-dwarf.perf.data"),
                                    ["make", "-s", "-j2", "-C", src])
    argv[argv.index("-g")] = "--call-graph=dwarf,8192"
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("speed: perf record --call-graph dwarf failed: %s" % proc.stderr[-2000:])


def make_medium_recording(rsp, build, directory):
    pingpong = os.path.join(build, "tests", "workloads", "pingpong")
    record(rsp, os.path.join(directory, "medium.rsp"),
           ["sh", "-c", "%s 10000 20000 && ls -R /usr/include >/dev/null" % pingpong])


def make_recordings(rsp, build, directory):
    pingpong = os.path.join(build, "tests", "workloads", "pingpong")
    small_cmd = ["sh", "-c", "%s 100 20000 && ls -R /usr/include >/dev/null" % pingpong]
    record(rsp, os.path.join(directory, "small.rsp"), small_cmd)
    perf = shutil.which("perf")
    argv = rsptest.perf_record_argv(perf, os.path.join(directory, "small.perf.data"), small_cmd)
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("speed: perf record failed: %s" % proc.stderr[-2000:])
    src = os.path.join(directory, "make-src")
    make_sources(src)
    subprocess.run(["make", "-s", "-C", src, "clean"], check=True)
    record(rsp, os.path.join(directory, "make.rsp"), ["make", "-s", "-j2", "-C", src])
    record(rsp, os.path.join(directory, "messaging.rsp"),
           [perf, "bench", "sched", "messaging", "-g", "8", "-l", "400"])


def make_copy_recording(rsp, directory):
    """A copy of /usr/share/doc with tar, then sync; the copy is removed after."""
    dst = os.path.join(directory, "copy-dst")
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    try:
        record(rsp, os.path.join(directory, "copy.rsp"),
               ["sh", "-c", "tar cf - -C /usr/share doc | tar xf - -C %s && sync" % shlex.quote(dst)])
    finally:
        shutil.rmtree(dst, ignore_errors=True)


def make_read_recording(rsp, directory):
    """cat of 20,000 files under /usr, each out of the page cache first."""
    paths = []
    for root, _, names in os.walk("/usr"):
        for name in sorted(names):
            path = os.path.join(root, name)
            if len(paths) < N_READ_FILES and os.path.isfile(path) and not os.path.islink(path):
                paths.append(path)
        if len(paths) >= N_READ_FILES:
            break
    listing = os.path.join(directory, "read-files.txt")
    with open(listing, "w") as f:
        f.write("".join(p + "\n" for p in paths))
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    record(rsp, os.path.join(directory, "read.rsp"),
           ["sh", "-c", "xargs -d '\\n' cat < %s > /dev/null" % shlex.quote(listing)])


def make_large_recording(rsp, directory):
    record(rsp, os.path.join(directory, "messaging-large.rsp"),
           [shutil.which("perf"), "bench", "sched", "messaging", "-g", "8", "-l", "4000"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default="/var/tmp/rsp-speed")
    ap.add_argument("--remake", action="store_true")
    ap.add_argument("--output", default=os.path.join(HERE, "results", "speed.md"))
    ap.add_argument("--only", default=None,
                    help="comma-separated file names (small.rsp, make.rsp, ...): time these alone")
    args = ap.parse_args()
    rsp = os.path.join(args.build, "src", "rsp")
    perf = shutil.which("perf")
    if not os.access(rsp, os.X_OK) or perf is None:
        sys.exit("speed: needs %s (build it) and perf (apt-get install linux-perf)" % rsp)
    if os.geteuid() != 0:
        sys.exit("speed: records the whole system: run it as root (sudo bench/speed.py)")
    os.makedirs(args.dir, exist_ok=True)
    files = [
        ("RSP recording: pingpong + `ls -R /usr/include`", "small.rsp", []),
        ("plain perf.data of the same workload (RSP's event set)", "small.perf.data", ["--comm", "pingpong"]),
        ("RSP recording: pingpong, 10,000 passes + `ls -R /usr/include`", "medium.rsp", []),
        ("RSP recording of `make -j2` over 24 C files", "make.rsp", []),
        ("RSP recording of `perf bench sched messaging -g 8 -l 400`", "messaging.rsp", []),
        ("RSP recording of `perf bench sched messaging -g 8 -l 4000`", "messaging-large.rsp", []),
        ("RSP recording of a copy of /usr/share/doc (tar, sync)", "copy.rsp", []),
        ("RSP recording of a cold read of 20,000 files under /usr (cat)", "read.rsp", []),
        ("plain perf.data of the `make -j2`, `--call-graph dwarf`", "make-dwarf.perf.data", ["--comm", "make"]),
    ]
    made = {f[1]: os.path.exists(os.path.join(args.dir, f[1])) for f in files}
    if args.remake or not all(made[n] for n in ("small.rsp", "small.perf.data", "make.rsp", "messaging.rsp")):
        make_recordings(rsp, args.build, args.dir)
    if args.remake or not made["medium.rsp"]:
        make_medium_recording(rsp, args.build, args.dir)
    if args.remake or not made["copy.rsp"]:
        make_copy_recording(rsp, args.dir)
    if args.remake or not made["read.rsp"]:
        make_read_recording(rsp, args.dir)
    if args.remake or not made["messaging-large.rsp"]:
        make_large_recording(rsp, args.dir)
    if args.remake or not made["make-dwarf.perf.data"]:
        make_dwarf_recording(args.dir)

    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    lines = ["# rsp report against perf script, %s, git %s, best of %d\n"
             % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), rev or "?", args.reps),
             "| file | size | perf script s | rsp report s, cold | rsp report s, warm | perf script / rsp report "
             "(cold, warm) | the same, warm, median of the rounds | rsp peak RSS | RSS goal |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    only = set(args.only.split(",")) if args.only else None
    if only is not None and not only <= {f[1] for f in files}:
        sys.exit("speed: --only names one of: " + ", ".join(f[1] for f in files))
    for label, name, extra in files:
        if only is not None and name not in only:
            continue
        path = os.path.join(args.dir, name)
        size = os.path.getsize(path)
        report = [rsp, "report"] + extra + [path]
        script = [perf, "script", "-i", path]
        run_timed(report)
        run_timed(script)
        cold_env = dict(os.environ, RSP_NO_CACHE="1")
        # in rounds, one run of each per round, so that the machine's drift
        # (a VM's host) weighs on the three alike; each round's ratio too
        r, c, s = [], [], []
        for _ in range(args.reps):
            r.append(run_timed(report))
            c.append(run_timed(report, cold_env))
            s.append(run_timed(script))
        best_r, best_c, best_s = min(w for w, _ in r), min(w for w, _ in c), min(w for w, _ in s)
        round_ratio = statistics.median(sw / rw for (sw, _), (rw, _) in zip(s, r))
        rss_mb = max(k for _, k in r + c) / 1024
        goal_mb = max(size / 1e6, 64)
        lines.append("| %s | %.1f MB | %.3f | %.3f | %.3f | %.1f×, %.1f× | %.1f× | %.0f MB | %s |"
                     % (label, size / 1e6, best_s, best_c, best_r, best_s / best_c, best_s / best_r, round_ratio,
                        rss_mb, "met" if rss_mb <= goal_mb else "over (%.0f MB)" % goal_mb))
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(text)
    print("\n" + text)


if __name__ == "__main__":
    main()
