#!/usr/bin/env python3
"""bench/overhead.py — how much `rsp record` slows the workload it records.

Three workloads, each run in pairs (plain, then under `rsp record` at the
default settings), PAIRS times (default 5), after one untimed warm-up pair:

  commit-loop  psql sends 300 single-row INSERTs, each its own transaction
               (a commit, so an fsync of the WAL), to a private PostgreSQL 15
               cluster on a Unix socket in a temporary directory
  compile      gcc -O2 -c of src/collector/rsp-symbols.c (1,450 lines, GLib)
  pass         the paper's pass workload (tests/model/workloads/pass.c)

The time compared is the workload's own wall time: for the plain run, from
fork to exit, measured here; for the recorded run, from the moment rsp record
releases the command to its exit, as the recording's metadata stores it
(`rsp dump --stats`: "command: ... N s").  perf's start-up and the writing of
the file happen outside that window: they cost the user time, not the
workload.  Prints, per workload, the median ratio recorded/plain and its
spread, as Markdown (also to bench/results/overhead.md).

Needs root, perf and (for commit-loop) postgresql-15: `apt-get install
postgresql` (the server is started by this script and stopped at the end).

With --files-cost each pair also records without the events that name the
files behind disk waits, and a read-heavy fourth workload (`cat` of every
file under /usr/include) joins: the difference of the two ratios is what
naming the files costs.

Usage: sudo bench/overhead.py [--rsp build/src/rsp] [--pairs 5] [--only NAME] [--files-cost]
"""
import argparse
import datetime
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
GOAL = 1.05
COMMAND_RE = re.compile(r"^command:\s+.*\(pid -?\d+, exit status -?\d+, ([\d.]+) s\)", re.M)


def run_plain(argv, env=None):
    # every run starts with nothing dirty: the commit loop's fsyncs would
    # otherwise also write back what the run before it left (a recording)
    os.sync()
    start = time.monotonic()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.monotonic() - start


def run_recorded(rsp, argv, workdir, env=None, record_args=()):
    out = os.path.join(workdir, "overhead.rsp")
    os.sync()
    subprocess.run([rsp, "record", "-o", out] + list(record_args) + ["--"] + argv, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, env=env)
    stats = subprocess.run([rsp, "dump", "--stats", out], capture_output=True, text=True, check=True).stdout
    m = COMMAND_RE.search(stats)
    if not m:
        raise RuntimeError("rsp dump --stats gave no command duration:\n" + stats[:2000])
    os.unlink(out)
    return float(m.group(1))


class Postgres:
    """A private PostgreSQL 15 cluster, owned by the postgres user."""

    def __init__(self, workdir):
        self.bindir = "/usr/lib/postgresql/15/bin"
        if not os.path.exists(os.path.join(self.bindir, "initdb")):
            raise RuntimeError("PostgreSQL 15 is not installed: apt-get install postgresql")
        self.dir = tempfile.mkdtemp(prefix="pg-", dir=workdir)
        shutil.chown(self.dir, "postgres")
        os.chmod(workdir, 0o755)
        self.data = os.path.join(self.dir, "data")
        self.sock = self.dir
        self.as_pg(["initdb", "-A", "trust", "-D", self.data])
        self.as_pg(["pg_ctl", "-D", self.data, "-w", "-l", os.path.join(self.dir, "log"), "-o",
                    "-k %s -c listen_addresses='' -c fsync=on -c synchronous_commit=on" % self.sock, "start"])
        self.psql(["-c", "CREATE TABLE t (id serial PRIMARY KEY, v text)"])
        self.script = os.path.join(self.dir, "inserts.sql")
        with open(self.script, "w") as f:
            for i in range(300):
                f.write("INSERT INTO t (v) VALUES ('row %d');\n" % i)
        os.chmod(self.script, 0o644)

    def as_pg(self, argv):
        subprocess.run(["runuser", "-u", "postgres", "--", os.path.join(self.bindir, argv[0])] + argv[1:],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    def psql(self, args):
        subprocess.run(self.psql_argv() + args, stdout=subprocess.DEVNULL, check=True)

    def psql_argv(self):
        return ["runuser", "-u", "postgres", "--", os.path.join(self.bindir, "psql"), "-q", "-h", self.sock,
                "-d", "postgres", "-v", "ON_ERROR_STOP=1"]

    def workload(self):
        return self.psql_argv() + ["-f", self.script]

    def stop(self):
        try:
            self.as_pg(["pg_ctl", "-D", self.data, "-m", "fast", "stop"])
        except subprocess.CalledProcessError:
            pass


def compile_argv(workdir):
    flags = subprocess.run(["pkg-config", "--cflags", "glib-2.0", "json-glib-1.0", "libtraceevent", "libdw"],
                           capture_output=True, text=True, check=True).stdout.split()
    src = os.path.join(REPO, "src", "collector", "rsp-symbols.c")
    return ["gcc", "-O2", "-std=gnu17", "-D_GNU_SOURCE", '-DGETTEXT_PACKAGE="rsp"', "-I",
            os.path.join(REPO, "src", "collector")] + flags + ["-c", src, "-o", os.path.join(workdir, "x.o")]


# The events that name the files behind disk waits (src/collector/rsp-files.c):
# --files-cost records once more without them (marked missing, which also
# leaves out the live namer) to show what they cost.
FILE_EVENTS = ["readahead:page_cache_sync_ra", "readahead:page_cache_async_ra", "filemap:mm_filemap_fault", "filemap:file_check_and_advance_wb_err",
               "ext4:ext4_sync_file_enter", "writeback:folio_wait_writeback",
               "writeback:writeback_single_inode_start", "iomap:iomap_dio_rw_begin"]


def measure(name, argv, rsp, pairs, workdir, files_cost=False, record_args=()):
    no_files = dict(os.environ, RSP_RECORD_PRETEND_MISSING=",".join(FILE_EVENTS))
    run_plain(argv)
    run_recorded(rsp, argv, workdir, record_args=record_args)
    plain, recorded, ratios, bare_ratios = [], [], [], []
    for _ in range(pairs):
        p = run_plain(argv)
        r = run_recorded(rsp, argv, workdir, record_args=record_args)
        plain.append(p)
        recorded.append(r)
        ratios.append(r / p)
        line = "  %-12s plain %.4f s  recorded %.4f s  ratio %.3f" % (name, p, r, r / p)
        if files_cost:
            b = run_recorded(rsp, argv, workdir, env=no_files, record_args=record_args)
            bare_ratios.append(b / p)
            line += "  without the file events %.4f s  ratio %.3f" % (b, b / p)
        print(line, flush=True)
    return plain, recorded, ratios, bare_ratios


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rsp", default=os.path.join(REPO, "build", "src", "rsp"))
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--only", choices=["commit-loop", "compile", "pass", "reads"])
    ap.add_argument("--files-cost", action="store_true",
                    help="also record without the file events, and report what they cost")
    ap.add_argument("--pass-exe", default=None, help="the pass workload (default: next to rsp's build tree)")
    ap.add_argument("--record-arg", action="append", default=[], metavar="ARG",
                    help="pass ARG to rsp record (repeat for several: --record-arg=-F --record-arg=250)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("overhead.py: recording needs root: sudo bench/overhead.py")
    rsp = os.path.abspath(args.rsp)
    build = os.path.dirname(os.path.dirname(rsp))
    pass_exe = args.pass_exe or os.path.join(build, "tests", "model", "pass")

    workdir = tempfile.mkdtemp(prefix="rsp-overhead-")
    pg = None
    rows = []
    try:
        workloads = []
        if args.only in (None, "commit-loop"):
            pg = Postgres(workdir)
            workloads.append(("commit-loop", pg.workload()))
        if args.only in (None, "compile"):
            workloads.append(("compile", compile_argv(workdir)))
        if args.only in (None, "pass"):
            workloads.append(("pass", [pass_exe]))
        if args.only == "reads" or args.files_cost:
            # read-heavy: every read() of a cached file is a file event
            workloads.append(("reads", ["find", "/usr/include", "-type", "f", "-exec", "cat", "{}", "+"]))
        for name, argv in workloads:
            plain, recorded, ratios, bare = measure(name, argv, rsp, args.pairs, workdir, args.files_cost,
                                                 args.record_arg)
            rows.append((name, statistics.median(plain), statistics.median(recorded), statistics.median(ratios),
                         min(ratios), max(ratios), statistics.median(bare) if bare else None))
    finally:
        if pg is not None:
            pg.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    version = subprocess.run([rsp, "--version"], capture_output=True, text=True).stdout.strip()
    settings = "rsp record " + " ".join(args.record_arg) if args.record_arg else "default settings"
    lines = ["Recording overhead, %s, %s, %s, %d CPUs, %s, %d pairs per workload (median; min–max of the ratios)"
             % (datetime.date.today().isoformat(), version, platform.release(), os.cpu_count(), settings,
                args.pairs), "",
             "| workload | plain (s) | under rsp record (s) | ratio | min–max | goal ≤ %.2f |%s" % (
                 GOAL, " ratio without the file events |" if args.files_cost else ""),
             "|---|---:|---:|---:|---:|---|%s" % ("---:|" if args.files_cost else "")]
    for name, p, r, ratio, lo, hi, bare in rows:
        lines.append("| %s | %.4f | %.4f | %.3f | %.3f–%.3f | %s |%s"
                     % (name, p, r, ratio, lo, hi, "met" if ratio <= GOAL else "NOT met",
                        " %.3f |" % bare if bare is not None else ""))
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "overhead.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    main()
