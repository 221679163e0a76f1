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
    entry is whole again afterwards."""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

STATS = re.compile(r"symbols: .* (\d+) binaries loaded, (\d+) missing, (\d+) from the symbol cache")


def files_under(d):
    return sorted(os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs)


def main():
    rsp = t.rsp_path()
    data = os.path.join(os.environ["RSP_SOURCE_ROOT"], "tests", "data", "pingpong-plain.perf.data")
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
    t.log("PASS")


if __name__ == "__main__":
    main()
