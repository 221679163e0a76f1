#!/usr/bin/env python3
"""rsp export, read back by readers that are not RSP's.

For every recording in tests/data and one recorded here (sqlite3 commits,
each an fsync), the four exports of the process of interest are read by
something other than rsp and their totals compared with the accounting
table of `rsp report --json`, category by category:

- folded: parsed as FlameGraph's stackcollapse format (frames split on ';',
  the weight after the last space), in microseconds;
- speedscope: validated against the JSON schema the speedscope npm package
  ships, its weights summed per profile; and opened by speedscope itself in
  headless Chromium, which must show the profile (a broken file, the
  negative control, must not);
- chrome: parsed as trace-event JSON: slices nested on their tracks, every
  flow start with its end, every track named; speedscope imports it too;
- pprof: decoded by pprof-format (tests/scripts/read-pprof.js under node).

The readers come from scripts/install-deps.sh --test (Debian packages and
two pinned npm tarballs in tests/readers/, scripts/fetch-test-readers.py).
Also the command's errors: no --format, an unknown one, no -o, an output
that cannot be written, a plain perf.data without --pid.
"""
import decimal
import functools
import glob
import http.server
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest  # noqa: E402

SOURCE = os.environ.get("RSP_SOURCE_ROOT") or os.path.join(os.path.dirname(__file__), "..", "..")
READERS = os.path.join(SOURCE, "tests", "readers")
SPEEDSCOPE = os.path.join(READERS, "speedscope-1.25.0")
PPROF_FORMAT = os.path.join(READERS, "pprof-format-2.3.2")
HOW = "run scripts/install-deps.sh --test"


def readers():
    for d in (SPEEDSCOPE, PPROF_FORMAT):
        if not os.path.isfile(os.path.join(d, ".integrity")):
            rsptest.skip_or_fail("%s is missing: %s" % (d, HOW))
    for prog in ("node", "chromium"):
        if shutil.which(prog) is None:
            rsptest.skip_or_fail("%s is not installed: %s" % (prog, HOW))
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        rsptest.skip_or_fail("python3-jsonschema is not installed: " + HOW)


def accounting(rsp, recording, target):
    rep = json.loads(rsptest.run([rsp, "report", "--json", *target, recording]).stdout)
    acc = rep["accounting"]
    cats = {c["id"]: round(c["ms"] * 1000) for c in acc["categories"]}
    labels = {"[%s]" % c["label"]: c["id"] for c in acc["categories"]}
    return rep, cats, labels, round(acc["total_ms"] * 1000)


def same_us(what, got_ns, want_us, slack_us=1):
    """An export's nanoseconds against the report's microseconds (ms with
    three decimals, rounded from the same nanoseconds)."""
    if abs(got_ns / 1000 - want_us) > slack_us:
        rsptest.fail("%s: %.3f us in the export, %d us in the accounting table" % (what, got_ns / 1000, want_us))


def check_folded(path, cats, labels, name):
    per = {}
    roots = set()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            stack, _, weight = line.rstrip("\n").rpartition(" ")
            if not stack or not weight.isdigit() or int(weight) <= 0:
                rsptest.fail("%s: line %d is not 'frame;frame;... weight': %r" % (name, n, line))
            frames = stack.split(";")
            if len(frames) < 2 or frames[-1] not in labels:
                rsptest.fail("%s: line %d does not end in a category frame: %r" % (name, n, line))
            roots.add(frames[0])
            per[labels[frames[-1]]] = per.get(labels[frames[-1]], 0) + int(weight)
    for cat, us in cats.items():
        # folded rounds each category's sum to the microsecond, as the report does
        if abs(per.get(cat, 0) - us) > 1:
            rsptest.fail("%s: %s is %d us in the folded export, %d us in the accounting" % (name, cat, per.get(cat, 0), us))
    return roots


def check_speedscope(path, cats, labels, total_us, name):
    import jsonschema
    with open(os.path.join(SPEEDSCOPE, "dist", "release", "file-format-schema.json")) as f:
        schema = json.load(f)
    with open(path) as f:
        doc = json.load(f)
    try:
        jsonschema.validate(doc, schema)
    except jsonschema.ValidationError as e:
        rsptest.fail("%s: not valid against speedscope's schema: %s" % (name, e.message))
    frames = [fr["name"] for fr in doc["shared"]["frames"]]
    per = {}
    total = 0
    for p in doc["profiles"]:
        if p["type"] != "sampled" or p["unit"] != "nanoseconds" or len(p["samples"]) != len(p["weights"]):
            rsptest.fail("%s: profile %r is not a sampled profile in nanoseconds" % (name, p["name"]))
        if sum(p["weights"]) != p["endValue"] - p["startValue"]:
            rsptest.fail("%s: profile %r: weights add up to %d, its span is %d"
                         % (name, p["name"], sum(p["weights"]), p["endValue"] - p["startValue"]))
        for stack, w in zip(p["samples"], p["weights"]):
            top = frames[stack[-1]]
            if top not in labels:
                rsptest.fail("%s: a stack ends in %r, not a category" % (name, top))
            per[labels[top]] = per.get(labels[top], 0) + w
            total += w
    for cat, us in cats.items():
        same_us("%s: %s" % (name, cat), per.get(cat, 0), us)
    same_us("%s: total" % name, total, total_us)
    return doc


def check_chrome(path, cats, total_us, name):
    with open(path) as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    events = doc["traceEvents"]
    named = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = {}
    per = {}
    flows = {}
    for e in events:
        if e["ph"] == "M":
            continue
        track = (e["pid"], e["tid"])
        if track not in named:
            rsptest.fail("%s: track %s has no thread_name" % (name, track))
        if e["ph"] == "X":
            ts, dur = decimal.Decimal(e["ts"]), decimal.Decimal(e["dur"])
            slices.setdefault(track, []).append((ts, ts + dur, e["cat"] in cats, e))
            if e["cat"] in cats:
                per[e["cat"]] = per.get(e["cat"], 0) + dur
        elif e["ph"] in ("s", "f"):
            flows.setdefault(e["id"], []).append(e["ph"])
        else:
            rsptest.fail("%s: unexpected event phase %r" % (name, e["ph"]))
    for fid, phases in flows.items():
        if sorted(phases) != ["f", "s"]:
            rsptest.fail("%s: flow %s has %s" % (name, fid, phases))
    # a stretch lies inside a segment's slice of its own track; segments of
    # one track do not overlap
    for track, sl in slices.items():
        segments = sorted((a, b) for a, b, is_stretch, _ in sl if not is_stretch)
        for (a1, b1), (a2, b2) in zip(segments, segments[1:]):
            if a2 < b1:
                rsptest.fail("%s: segments overlap on track %s: %s-%s and %s-%s" % (name, track, a1, b1, a2, b2))
        for a, b, is_stretch, e in sl:
            if is_stretch and not any(sa <= a and b <= sb for sa, sb in segments):
                rsptest.fail("%s: stretch %s-%s on %s is in no segment" % (name, a, b, track))
    total = 0
    for cat, us in cats.items():
        ns = int(per.get(cat, 0) * 1000)
        total += ns
        same_us("%s: %s" % (name, cat), ns, us)
    same_us("%s: total" % name, total, total_us)
    return len(flows)


def check_pprof(path, cats, labels, total_us, name):
    out = rsptest.run(["node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "read-pprof.js"),
                       PPROF_FORMAT, path]).stdout
    p = json.loads(out)
    if p["sample_types"] != [["wall", "nanoseconds"]]:
        rsptest.fail("%s: sample types %s" % (name, p["sample_types"]))
    for cat, us in cats.items():
        same_us("%s: %s" % (name, cat), int(p["by_category"].get(cat, 0)), us)
    for leaf, ns in p["by_leaf"].items():
        if leaf not in labels:
            rsptest.fail("%s: a sample's leaf is %r, not a category frame" % (name, leaf))
    same_us("%s: total" % name, sum(int(v) for v in p["by_category"].values()), total_us)
    return p


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Server:
    """speedscope's release directory and the files to open, over HTTP on
    localhost: the application fetches the profile it is pointed at."""

    def __init__(self, served):
        handler = functools.partial(QuietHandler, directory=served)
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.port = self.httpd.server_address[1]

    def close(self):
        self.httpd.shutdown()


def speedscope_shows(server, profile, profile_dir):
    """The text of the page speedscope makes of PROFILE (headless Chromium)."""
    url = "http://127.0.0.1:%d/index.html#profileURL=http://127.0.0.1:%d/%s" % (server.port, server.port, profile)
    argv = ["chromium", "--headless", "--no-sandbox", "--disable-dev-shm-usage", "--enable-unsafe-swiftshader",
            "--user-data-dir=" + os.path.join(profile_dir, "chromium"), "--virtual-time-budget=15000",
            "--dump-dom", url]
    proc = rsptest.run(argv, timeout=120, check=False)
    if proc.returncode != 0:
        rsptest.fail("chromium exited with %d: %s" % (proc.returncode, proc.stderr[-2000:]))
    return re.sub(r"\s+", " ", re.sub(r"<[^>]*>", " ", proc.stdout))


def record_sqlite(rsp, tmp):
    """A recording of 40 sqlite3 commits, each an fsync, on a real disk,
    and a query that runs in libsqlite3 for a while."""
    rsptest.require_perf_and_root()
    work = tempfile.mkdtemp(prefix="rsp-export-", dir="/var/tmp")
    os.chmod(work, 0o777)  # under sudo, rsp record runs sqlite3 as the invoking user
    try:
        sql = os.path.join(work, "commits.sql")
        with open(sql, "w") as f:
            f.write("PRAGMA journal_mode=WAL;\nPRAGMA synchronous=FULL;\nCREATE TABLE t(x);\n")
            for i in range(40):
                f.write("INSERT INTO t VALUES(%d);\n" % i)
            # and CPU time inside libsqlite3, whose internal functions have
            # no symbol in Debian's build: frames named by library and offset
            f.write("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 400000) "
                    "SELECT sum(x) FROM c;\n")
        out = os.path.join(tmp, "sqlite.rsp")
        rsptest.run([rsp, "record", "-o", out, "--", "sqlite3", os.path.join(work, "db.sqlite"), ".read " + sql],
                    timeout=300)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def unnamed(rsp, rec, files):
    """Frames without a symbol: rsp dump --stats counts them per process as
    rsp dump's own frame lines do ("[unknown]", as perf script prints
    them), and no export has a bare [unknown] frame: each is named by its
    file and offset, or its address."""
    per_pid = {}
    pid = None
    for line in rsptest.run([rsp, "dump", rec]).stdout.splitlines():
        if line.startswith("\t"):
            if pid is not None and line.split()[1] == "[unknown]":
                per_pid[pid] = per_pid.get(pid, 0) + 1
            continue
        m = re.match(r"\d+\.\d+ \[\d+\] .*? (-?\d+)/-?\d+ ", line)
        pid = int(m.group(1)) if m else None
    english = dict(os.environ, LC_ALL="C.UTF-8", LANGUAGE="")
    stats = rsptest.run([rsp, "dump", "--stats", rec], env=english).stdout
    m = re.search(r"^unnamed: +(\d+) of (\d+) frames", stats, re.M)
    if not m:
        rsptest.fail("%s: rsp dump --stats has no 'unnamed:' line:\n%s" % (rec, stats[-1500:]))
    if int(m.group(1)) != sum(per_pid.values()):
        rsptest.fail("%s: dump --stats counts %s unnamed frames, rsp dump prints %d"
                     % (rec, m.group(1), sum(per_pid.values())))
    shown = {int(p): int(n) for p, n in re.findall(r"^  pid (\d+) +\S+ +(\d+) of \d+ unnamed", stats, re.M)}
    for p, n in shown.items():
        if per_pid.get(p) != n:
            rsptest.fail("%s: dump --stats: pid %d has %d unnamed frames, rsp dump prints %s" % (rec, p, n, per_pid.get(p)))
    for fmt in ("folded", "speedscope"):
        with open(files[fmt]) as f:
            if "[unknown]" in f.read():
                rsptest.fail("%s: the %s export has a bare [unknown] frame" % (rec, fmt))
    return int(m.group(1)), len(shown)


def exec_segments(path):
    """The file ranges of PATH's executable PT_LOAD segments (readelf)."""
    out = rsptest.run(["readelf", "-lW", path]).stdout
    ranges = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and "E" in f[6:-1]:
            off, filesz = int(f[1], 16), int(f[4], 16)
            ranges.append((off, off + filesz))
    return ranges


def check_offsets(folded, rec):
    """Every 'library+0xOFFSET' frame is an offset in the code of a file of
    that name the recording mapped."""
    rsp = rsptest.rsp_path()
    files = set(re.findall(r"\((/[^)]+)\)$", rsptest.run([rsp, "dump", rec]).stdout, re.M))
    by_base = {}
    for f in files:
        by_base.setdefault(os.path.basename(f), f)
    with open(folded) as f:
        frames = set(re.findall(r"(?:^|;)([^;\[\]]+)\+0x([0-9a-f]+)(?=;)", f.read(), re.M))
    checked = 0
    for base, off in frames:
        path = by_base.get(base)
        if path is None or not os.path.exists(path):
            continue
        if not any(a <= int(off, 16) < b for a, b in exec_segments(path)):
            rsptest.fail("%s+0x%s: not in an executable segment of %s" % (base, off, path))
        checked += 1
    if checked == 0:
        rsptest.fail("no library+offset frame of %s could be checked against its file" % rec)
    rsptest.log("ok: %d library+offset frames lie in the code of their files" % checked)


def errors(rsp, tmp):
    rec = os.path.join(SOURCE, "tests", "data", "tcp_loop.rsp")
    cases = [
        (["export", "-o", os.path.join(tmp, "x"), rec], 2, "--format is required"),
        (["export", "--format", "svg", "-o", os.path.join(tmp, "x"), rec], 2, "unknown format 'svg'"),
        (["export", "--format", "folded", rec], 2, "-o OUT is required"),
        (["export", "--format", "folded", "-o", os.path.join(tmp, "no", "such", "dir", "x"), rec], 1,
         "No such file or directory"),
        (["export", "--format", "folded", "-o", os.path.join(tmp, "x"),
          os.path.join(SOURCE, "tests", "data", "pingpong-plain.perf.data")], 1, "name the process of interest"),
    ]
    for argv, status, message in cases:
        proc = rsptest.run([rsp, *argv], check=False)
        if proc.returncode != status or message not in proc.stderr:
            rsptest.fail("rsp %s: exit %d, %r; expected exit %d and %r"
                         % (" ".join(argv), proc.returncode, proc.stderr.strip(), status, message))
    # - is standard output
    proc = rsptest.run([rsp, "export", "--format", "folded", "-o", "-", rec])
    with open(os.path.join(tmp, "stdout.folded"), "w") as f:
        f.write(proc.stdout)
    rsptest.run([rsp, "export", "--format", "folded", "-o", os.path.join(tmp, "file.folded"), rec])
    with open(os.path.join(tmp, "file.folded")) as f:
        if f.read() != proc.stdout:
            rsptest.fail("-o - does not write what -o FILE writes")
    rsptest.log("ok: the command's errors and -o -")
    # -o a directory: said so, nothing left beside it
    proc = rsptest.run([rsp, "export", "--format", "folded", "-o", tmp, rec], check=False)
    if proc.returncode != 1 or "is a directory" not in proc.stderr:
        rsptest.fail("-o a directory: exit %d, %r" % (proc.returncode, proc.stderr.strip()))
    left = [n for n in os.listdir(os.path.dirname(tmp)) if n.startswith(os.path.basename(tmp) + ".")]
    if left:
        rsptest.fail("-o a directory left %s" % left)
    # a FIFO and a device are written into, never replaced by a file (rsp
    # export -o /dev/null once made /dev/null a regular file)
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    rsptest.run([rsp, "export", "--format", "folded", "-o", fifo, rec])
    reader.join(60)
    if not stat.S_ISFIFO(os.lstat(fifo).st_mode) or got != [proc_stdout(rsp, rec)]:
        rsptest.fail("-o a FIFO: it is %s now, and its reader got %d bytes"
                     % (oct(os.lstat(fifo).st_mode), len(got[0]) if got else -1))
    if os.geteuid() == 0:
        null = os.path.join(tmp, "null")
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        env = dict(os.environ, SUDO_UID="65534", SUDO_GID="65534")
        rsptest.run([rsp, "export", "--format", "folded", "-o", null, rec], env=env)
        st = os.lstat(null)
        if not stat.S_ISCHR(st.st_mode) or st.st_uid != 0:
            rsptest.fail("-o a character device (a /dev/null): it is %s, owned by %d now" % (oct(st.st_mode), st.st_uid))
        rsptest.log("ok: -o a FIFO and a character device: written into, kept as they were (and not given away)")
    else:
        rsptest.log("ok: -o a FIFO: written into, kept a FIFO (NOTE: not root: no device node made to check -o a "
                    "device)")


def proc_stdout(rsp, rec):
    return rsptest.run([rsp, "export", "--format", "folded", "-o", "-", rec]).stdout


def main():
    rsp = rsptest.rsp_path()
    readers()
    tmp = tempfile.mkdtemp(prefix="rsp-export-")
    served = os.path.join(tmp, "served")
    shutil.copytree(os.path.join(SPEEDSCOPE, "dist", "release"), served)
    server = Server(served)
    try:
        errors(rsp, tmp)
        recordings = sorted(glob.glob(os.path.join(SOURCE, "tests", "data", "*.rsp")))
        recordings = [(r, []) for r in recordings]
        recordings.append((os.path.join(SOURCE, "tests", "data", "pingpong-plain.perf.data"), ["--comm", "pingpong"]))
        recordings.append((record_sqlite(rsp, tmp), []))
        opened = 0
        for rec, target in recordings:
            base = os.path.basename(rec)
            files = {}
            for fmt in ("folded", "speedscope", "chrome", "pprof"):
                files[fmt] = os.path.join(served, "%s.%s" % (base, fmt))
                rsptest.run([rsp, "export", "--format", fmt, "-o", files[fmt], *target, rec])
            # the report of the process the export picked (a --repeat
            # recording's report is about its runs unless one is named)
            with open(files["chrome"]) as f:
                pid = json.load(f)["otherData"]["pid"]
            rep, cats, labels, total_us = accounting(rsp, rec, ["--pid", str(pid)])
            comm = rep["target"]["comm"]
            roots = check_folded(files["folded"], cats, labels, base + " folded")
            if comm not in roots:
                rsptest.fail("%s folded: no stack starts at the process of interest %s: %s" % (base, comm, roots))
            doc = check_speedscope(files["speedscope"], cats, labels, total_us, base + " speedscope")
            n_flows = check_chrome(files["chrome"], cats, total_us, base + " chrome")
            p = check_pprof(files["pprof"], cats, labels, total_us, base + " pprof")
            rsptest.log("ok: %s: %s (%d): total %.3f ms in %d categories; folded, speedscope (%d profiles), "
                        "chrome (%d wake-up flows), pprof (%d samples, %d functions) add up to it"
                        % (base, comm, rep["target"]["pid"], total_us / 1000, sum(1 for v in cats.values() if v),
                           len(doc["profiles"]), n_flows, p["samples"], p["functions"]))
            n_unnamed, n_shown = unnamed(rsp, rec, files)
            rsptest.log("ok: %s: %d frames without a symbol, counted per process by dump --stats as rsp dump "
                        "prints them (%d processes shown); no [unknown] in the exports" % (base, n_unnamed, n_shown))
            if base == "sqlite.rsp":
                # a library without a symbol for every function: its frames
                # named by the library, never [unknown]
                with open(files["folded"]) as f:
                    libs = set(re.findall(r"(lib[\w.+-]*\.so[\w.]*)\+0x[0-9a-f]+", f.read()))
                if not libs:
                    rsptest.fail("sqlite.rsp: no frame named by its library and offset in the folded export")
                check_offsets(files["folded"], rec)
                rsptest.log("ok: sqlite.rsp: frames named by library and offset in %s" % ", ".join(sorted(libs)))
                if cats.get("disk_io", 0) == 0:
                    rsptest.fail("sqlite.rsp: no disk I/O in the accounting of 40 fsync'd commits")
                # the file behind the disk waits, a frame below the category,
                # with the same time as the report's per-file table
                with open(files["folded"]) as f:
                    folded = f.read()
                per_file = {}
                for line in folded.splitlines():
                    stack, _, weight = line.rpartition(" ")
                    frames = stack.split(";")
                    if len(frames) >= 2 and frames[-1] in ("[In blocking disk I/O]", "[I/O queue overhead]") \
                            and frames[-2].startswith("file "):
                        per_file[frames[-2][5:]] = per_file.get(frames[-2][5:], 0) + int(weight)
                report_files = {x["file"]: x["ms"] for x in rep["files"] if x["file"] is not None}
                if not per_file or set(per_file) != set(report_files):
                    rsptest.fail("sqlite.rsp: the folded export's file frames %s are not the report's files %s"
                                 % (sorted(per_file), sorted(report_files)))
                for name, us in per_file.items():
                    if abs(us / 1000 - report_files[name]) > 0.002 * (1 + folded.count("file " + name)):
                        rsptest.fail("sqlite.rsp: %s: %.3f ms in the folded export, %.3f ms in the report"
                                     % (name, us / 1000, report_files[name]))
                rsptest.log("ok: sqlite.rsp: the files behind the disk waits as frames: %s" % per_file)
            # speedscope opens two of them in headless Chromium, and the Chrome trace
            if base in ("tcp_loop.rsp", "sqlite.rsp"):
                title = doc["profiles"][0]["name"]
                page = speedscope_shows(server, os.path.basename(files["speedscope"]), tmp)
                if title not in page:
                    rsptest.fail("speedscope did not show %s: the page reads %r" % (title, page[:500]))
                page = speedscope_shows(server, os.path.basename(files["chrome"]), tmp)
                want = "%s (pid %d)" % (comm, rep["target"]["pid"])
                if want not in page:
                    rsptest.fail("speedscope did not open the Chrome trace of %s: the page reads %r" % (base, page[:500]))
                opened += 1
                rsptest.log("ok: speedscope in headless Chromium shows %r and the Chrome trace's %r" % (title, want))
        # the negative control: a file speedscope cannot read is not shown
        with open(os.path.join(served, "tcp_loop.rsp.speedscope")) as f:
            doc = json.load(f)
        title = doc["profiles"][0]["name"]
        del doc["profiles"][0]["samples"]
        with open(os.path.join(served, "broken.json"), "w") as f:
            json.dump(doc, f)
        if title in speedscope_shows(server, "broken.json", tmp):
            rsptest.fail("speedscope shows a profile without samples: the check above proves nothing")
        rsptest.log("ok: %d recordings exported; speedscope opened %d, and not a broken file" % (len(recordings), opened))
    finally:
        server.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
