#!/usr/bin/env python3
"""JIT-compiled code named from the JIT's perf map (/tmp/perf-PID.map).

Records `node --perf-basic-prof` running a hot JavaScript function and
checks that:
- rsp report's first finding and the folded export name the JavaScript
  function (V8's "JS:*rspHotFibonacci /path:1:25");
- rsp dump prints the JIT frames exactly as perf script does (both read the
  map file while it exists);
- the recording keeps the names: with the map file gone, rsp report
  --offline still names the function (the "P" lines of the stored symbols);
- for a plain perf.data (perf record alone), rsp dump reads the map file as
  perf script does, but not one that belongs to another user (a file in
  /tmp anyone could have planted);
- perf's jitdump: `node --perf-prof` (no map file) writes jit-PID.dump in
  its working directory and maps it; rsp record reads its code loads, the
  report's first finding names the function, and the recording keeps the
  name once the dump file is gone.
"""
import json
import os
import pwd
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest  # noqa: E402

SCRIPT = """
function rspHotFibonacci(n) { return n < 2 ? n : rspHotFibonacci(n - 1) + rspHotFibonacci(n - 2); }
function rspOuterLoop() { let s = 0; for (let i = 0; i < 30; i++) s += rspHotFibonacci(22); return s; }
const t0 = Date.now(); let total = 0;
while (Date.now() - t0 < 600) total += rspOuterLoop();
console.log(total > 0 ? "ok" : "no");
"""
NAME = "rspHotFibonacci"


def jit_lines(text):
    return [line.strip() for line in text.splitlines() if re.search(r"\(/tmp/perf-\d+\.map\)$", line)]


def main():
    rsp = rsptest.rsp_path()
    perf = rsptest.require_perf_and_root()
    if shutil.which("node") is None:
        rsptest.skip_or_fail("node is not installed: run scripts/install-deps.sh --test")
    tmp = tempfile.mkdtemp(prefix="rsp-jit-")
    os.chmod(tmp, 0o777)  # under sudo, rsp record runs node as the invoking user
    maps = []
    try:
        js = os.path.join(tmp, "hot.js")
        with open(js, "w") as f:
            f.write(SCRIPT)
        rec = os.path.join(tmp, "jit.rsp")
        rsptest.run([rsp, "record", "-o", rec, "--", "node", "--perf-basic-prof", js], timeout=300)
        pid = json.loads(rsptest.run([rsp, "report", "--json", rec]).stdout)["target"]["pid"]
        perf_map = "/tmp/perf-%d.map" % pid
        maps.append(perf_map)
        if not os.path.exists(perf_map):
            rsptest.fail("node --perf-basic-prof wrote no %s" % perf_map)

        report = json.loads(rsptest.run([rsp, "report", "--json", rec]).stdout)
        first = report["findings"][0]
        if NAME not in (first.get("frame") or ""):
            rsptest.fail("the first finding is not in %s: %s" % (NAME, first))
        folded = rsptest.run([rsp, "export", "--format", "folded", "-o", "-", rec]).stdout
        jit_us = sum(int(l.rpartition(" ")[2]) for l in folded.splitlines() if NAME in l)
        if jit_us == 0:
            rsptest.fail("no stack of the folded export passes through %s" % NAME)
        rsptest.log("ok: the first finding: %s in %s (%.1f ms); %.1f ms of folded stacks pass through it"
                    % (first["category"], first["frame"], first["ms"], jit_us / 1000))

        # rsp dump against perf script, while the map file is there
        ours = jit_lines(rsptest.run([rsp, "dump", rec]).stdout)
        # -f: under sudo the recording and the map belong to the invoking user
        theirs = jit_lines(rsptest.run([perf, "script", "-f", "-i", rec]).stdout)
        if not ours or ours != theirs:
            rsptest.fail("JIT frames: rsp dump prints %d, perf script %d; first difference: %s"
                         % (len(ours), len(theirs),
                            next(((a, b) for a, b in zip(ours, theirs) if a != b), (ours[:1], theirs[:1]))))
        rsptest.log("ok: rsp dump prints the %d JIT frames perf script prints, name for name" % len(ours))

        # the recording keeps them
        os.unlink(perf_map)
        offline = json.loads(rsptest.run([rsp, "report", "--json", "--offline", rec]).stdout)
        if offline["findings"][0].get("frame") != first["frame"]:
            rsptest.fail("without the map file: the first finding is %s" % offline["findings"][0])
        if jit_lines(rsptest.run([rsp, "dump", "--offline", rec]).stdout) != ours:
            rsptest.fail("without the map file, rsp dump --offline names the JIT frames differently")
        rsptest.log("ok: map file deleted: report --offline and dump --offline name them from the recording")

        # a plain perf.data reads the map file, if it may be trusted
        data = os.path.join(tmp, "plain.data")
        rsptest.run([perf, "record", "-q", "-g", "-o", data, "--", "node", "--perf-basic-prof", js], timeout=300)
        plain = jit_lines(rsptest.run([rsp, "dump", data]).stdout)
        pids = set(re.findall(r"/tmp/perf-(\d+)\.map", "\n".join(plain)))
        maps += ["/tmp/perf-%s.map" % p for p in pids]
        if not plain or len(pids) != 1:
            rsptest.fail("plain perf.data: rsp dump names %d JIT frames of %d processes" % (len(plain), len(pids)))
        if plain != jit_lines(rsptest.run([perf, "script", "-i", data]).stdout):
            rsptest.fail("plain perf.data: rsp dump and perf script name the JIT frames differently")
        nobody = pwd.getpwnam("nobody")
        os.chown("/tmp/perf-%s.map" % pids.pop(), nobody.pw_uid, nobody.pw_gid)
        if jit_lines(rsptest.run([rsp, "dump", data]).stdout):
            rsptest.fail("a map file of another user (nobody) was read")
        rsptest.log("ok: plain perf.data: %d JIT frames named from the map file as perf script names them; "
                    "none once the file belongs to another user" % len(plain))

        # perf's jitdump, without a map file
        rec = os.path.join(tmp, "jitdump.rsp")
        rsptest.run([rsp, "record", "-o", rec, "--", "node", "--perf-prof", js], timeout=300, cwd=tmp)
        pid = json.loads(rsptest.run([rsp, "report", "--json", rec]).stdout)["target"]["pid"]
        dump = os.path.join(tmp, "jit-%d.dump" % pid)
        maps.append("/tmp/perf-%d.map" % pid)
        if not os.path.exists(dump):
            rsptest.fail("node --perf-prof wrote no %s: %s" % (dump, os.listdir(tmp)))
        if os.path.exists("/tmp/perf-%d.map" % pid):
            rsptest.fail("node --perf-prof wrote a map file too: this part no longer shows the jitdump")
        report = json.loads(rsptest.run([rsp, "report", "--json", rec]).stdout)
        first = report["findings"][0]
        if NAME not in (first.get("frame") or ""):
            rsptest.fail("jitdump: the first finding is not in %s: %s" % (NAME, first))
        named = [l for l in rsptest.run([rsp, "dump", rec]).stdout.splitlines() if NAME in l]
        os.unlink(dump)
        offline = json.loads(rsptest.run([rsp, "report", "--json", "--offline", rec]).stdout)
        if offline["findings"][0].get("frame") != first["frame"]:
            rsptest.fail("jitdump deleted: the first finding is %s" % offline["findings"][0])
        rsptest.log("ok: jitdump: the first finding is %s in %s (%.1f ms), %d frames of rsp dump name it; "
                    "kept once the dump file is gone" % (first["category"], first["frame"], first["ms"], len(named)))
    finally:
        for m in maps:
            try:
                os.unlink(m)
            except OSError:
                pass
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
