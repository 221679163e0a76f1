#!/usr/bin/env python3
"""The symbol caches seen from the command line, on the plain perf.data in
tests/data (its symbols come from this machine: the kernel's table and
libc's, among others):
  - `rsp dump --no-cache` and `RSP_NO_CACHE=1` write nothing to the cache;
  - the first `rsp dump` writes the kernel's table and one entry per
    binary read; the second reads them all from the cache (its --stats
    line says so) and prints exactly what the first printed;
  - `rsp report --no-cache` gives the same report as with the cache;
  - a cache entry cut in half is read again: the same output, and the
    entry is whole again afterwards;
  - a full disk (a tmpfs of 64 kB as the cache directory, as root: room for the small
    entries, not for the kernel's table or the larger binaries) only
    costs speed: the same output, exit status 0, and whatever was written
    there is whole (a second run reads it and prints the same), with no
    temporary file left behind."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

STATS = re.compile(r"symbols: .* (\d+) binaries loaded, (\d+) missing, (\d+) from the symbol cache")


def files_under(d):
    return sorted(os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs)


# what an entry is called: an ELF table, the kernel's table of one boot
ENTRY = re.compile(r"(\.syms|^kallsyms-[0-9a-f-]+(\.[a-z0-9]+)?)$")


def check_full_disk(rsp_run, stats, cold):
    """The cache directory on a 64 kB disk: room for the small entries of the
    recording's binaries, not for the kernel's table nor the larger binary's.
    Whatever does not fit costs speed only: the same output, whole entries,
    no temporary file left."""
    if os.geteuid() != 0:
        t.log("NOTE: the full-disk case skipped: mounting a small tmpfs needs root")
        return
    with tempfile.TemporaryDirectory(prefix="rsp-full-") as mnt:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "rsp-full", mnt],
                                 capture_output=True, text=True)
        if mounted.returncode != 0:
            t.skip_or_fail("cannot mount a tmpfs for the full-disk case: " + mounted.stderr.strip())
        try:
            full = {"XDG_CACHE_HOME": mnt}
            first = rsp_run("dump", extra=full)
            if first != cold:
                t.fail("with a full disk under the cache, rsp dump prints something else")
            left = files_under(mnt)
            odd = [f for f in left if not ENTRY.search(os.path.basename(f))]
            if odd:
                t.fail("a full disk left files that are not entries: %s" % odd)
            loaded, _, from_cache = stats(extra=full)
            syms = [f for f in left if f.endswith(".syms")]
            if from_cache != len(syms):
                t.fail("of the %d ELF entries written to the full disk, %d were read back" % (len(syms), from_cache))
            if rsp_run("dump", extra=full) != cold:
                t.fail("the entries written to the full disk changed what rsp dump prints")
            used = sum(os.path.getsize(f) for f in left)
            t.log("a full disk (64 kB tmpfs): rsp dump alike; %d entries fitted (%d bytes), %d of %d binaries "
                  "read from them, nothing else left" % (len(left), used, from_cache, loaded))
        finally:
            subprocess.run(["umount", mnt], check=False)


def main():
    rsp = t.rsp_path()
    data = os.path.join(os.environ["RSP_SOURCE_ROOT"], "tests", "data", "pingpong-plain.perf.data")
    with tempfile.TemporaryDirectory(prefix="rsp-cache-data-") as scratch:
        if t.recorded_on_another_kernel(data):
            # rsp (as perf script) names no kernel frame of another kernel
            # with this machine's table, and never loads it: the same
            # workload recorded here, so that the kernel's table is cached
            perf = t.require_perf_and_root()
            fresh = os.path.join(scratch, "pingpong-plain.perf.data")
            pingpong = os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "workloads", "pingpong")
            t.record(t.perf_record_argv(perf, fresh, [pingpong, "100", "20000"]))
            t.log("tests/data/pingpong-plain.perf.data was recorded on another kernel: a fresh one of this kernel")
            data = fresh
        check(rsp, data)


def check(rsp, data):
    with tempfile.TemporaryDirectory(prefix="rsp-cache-") as home:
        env = dict(os.environ, XDG_CACHE_HOME=home)
        env.pop("RSP_NO_CACHE", None)

        def rsp_run(*args, extra=None):
            e = dict(env, **(extra or {}))
            return t.run([rsp] + list(args), env=e, timeout=120).stdout

        def stats(*extra_args, extra=None):
            out = rsp_run("dump", "--stats", *extra_args, data, extra=extra)
            m = STATS.search(out)
            if not m:
                t.fail("no symbols line in rsp dump --stats:\n" + out)
            return tuple(int(g) for g in m.groups())

        stats("--no-cache")
        stats(extra={"RSP_NO_CACHE": "1"})
        if files_under(home):
            t.fail("--no-cache or RSP_NO_CACHE=1 wrote to the cache: %s" % files_under(home))

        cold = rsp_run("dump", data)
        loaded, _, from_cache = stats()
        entries = files_under(home)
        elf = [f for f in entries if f.endswith(".syms")]
        if not elf:
            t.fail("the first run cached no binary: %s" % entries)
        # /proc/kallsyms shows addresses to root only (kptr_restrict)
        if os.geteuid() == 0 and not any(os.path.basename(f).startswith("kallsyms-") for f in entries):
            t.fail("the first run, as root, cached no kernel table: %s" % entries)
        loaded, _, from_cache = stats()
        if loaded == 0 or from_cache != len(elf) or from_cache > loaded:
            t.fail("the second run read %d of %d binaries from the cache, which holds %d"
                   % (from_cache, loaded, len(elf)))
        warm = rsp_run("dump", data)
        if warm != cold:
            t.fail("rsp dump prints something else with the cache")
        t.log("%d binaries, %d of them from the cache (%s); rsp dump alike cold and warm (%d lines)"
              % (loaded, from_cache, ", ".join(os.path.basename(f) for f in elf), cold.count("\n")))

        report_args = ("report", "--json", "--comm", "pingpong", data)
        if rsp_run(*report_args) != rsp_run(*(("report", "--no-cache") + report_args[1:])):
            t.fail("rsp report --no-cache gives another report")

        victim = max(elf, key=os.path.getsize)
        whole = open(victim, "rb").read()
        with open(victim, "wb") as f:
            f.write(whole[:len(whole) // 2])
        if rsp_run("dump", data) != cold:
            t.fail("a cut cache entry changed what rsp dump prints")
        if open(victim, "rb").read() != whole:
            t.fail("the cut entry %s was not written again whole" % victim)
        t.log("an entry cut in half (%s, %d bytes) was read again and rewritten" % (os.path.basename(victim), len(whole)))

        def rsp_dump(*args, extra=None):
            return rsp_run(*(args + (data,)), extra=extra)

        check_full_disk(rsp_dump, stats, cold)
    t.log("PASS")


if __name__ == "__main__":
    main()
