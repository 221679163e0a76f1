#!/usr/bin/env python3
"""`rsp dump` on damaged and foreign input: a clear message, never a crash.

  dump-errors.py truncated   cut a recording inside the header, the attrs,
                             the data and the feature sections
  dump-errors.py corrupt     overwrite bytes at seeded random positions: 50
                             variants over the seed recordings (in the header
                             and attrs, in record headers, anywhere)
  dump-errors.py bad-input   an empty file, a text file, a missing file, a
                             directory, a file of zeros
  dump-errors.py ftrace      the ftrace section of tests/data/dio_ftrace.rsp
                             damaged (its header, its buffers, cut short):
                             rsp dump and rsp report go on from what is there
                             and say what the instance's events lost

A crash is a signal (exit >= 128), a sanitizer report, a GLib critical or a
hang: always a failure.  A non-zero exit must come with a line that starts
with "rsp:"; the hopeless inputs (bad-input, cuts before the data) must fail
with exactly one such line.
"""

import glob
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

PERF_MAGIC = b"PERFILE2"
HEADER_SIZE = 104
CRASH_PATTERNS = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|"
                            r"runtime error:|CRITICAL \*\*|Segmentation fault|core dumped")
VARIANTS = 50


class Layout:
    def __init__(self, data):
        if len(data) < HEADER_SIZE or data[:8] != PERF_MAGIC:
            raise ValueError("not a perf.data file")
        (self.attr_size,) = struct.unpack_from("<Q", data, 16)
        self.attrs_offset, self.attrs_size = struct.unpack_from("<QQ", data, 24)
        self.data_offset, self.data_size = struct.unpack_from("<QQ", data, 40)
        self.data_end = self.data_offset + self.data_size
        self.records = []  # (offset, size) of each record in the data section
        off = self.data_offset
        while off + 8 <= self.data_end:
            _, _, size = struct.unpack_from("<IHH", data, off)
            if size < 8:
                break
            self.records.append((off, size))
            off += size


def seed_recordings(workdir):
    """The checked-in small recordings (one RSP recording and one plain
    perf.data are enough for the cuts); without any, one made with perf."""
    data_dir = os.path.join(os.environ.get("RSP_SOURCE_ROOT", "."), "tests", "data")
    files = sorted(glob.glob(os.path.join(data_dir, "*.rsp")))[:2]
    files += sorted(glob.glob(os.path.join(data_dir, "*.perf.data")))[:1]
    if files:
        return files
    perf = t.require_perf_and_root()
    out = os.path.join(workdir, "seed.perf.data")
    t.run(t.perf_record_argv(perf, out, ["sleep", "0.05"]), timeout=120)
    return [out]


def run_dump(rsp, path, extra=()):
    argv = [rsp, "dump"] + list(extra) + [path]
    try:
        proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              timeout=60)
    except subprocess.TimeoutExpired:
        return None, "timed out after 60 s (a hang)"
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def judge(case, code, stderr, must_fail=False, must_say=False, one_line=False, mention=None):
    """Returns a problem description, or None when the outcome is acceptable."""
    if code is None:
        return "%s: %s" % (case, stderr)
    crash = CRASH_PATTERNS.search(stderr)
    if code < 0 or code >= 128 or crash:
        return "%s: CRASH (exit %d)\n%s" % (case, code, stderr[-3000:])
    rsp_lines = [line for line in stderr.splitlines() if line.startswith("rsp:")]
    if must_fail and code == 0:
        return "%s: exit 0, expected an error" % case
    if (code != 0 or must_say) and not rsp_lines:
        return "%s: exit %d without a line starting with 'rsp:'; stderr: %r" % (case, code, stderr[-500:])
    if one_line and len(rsp_lines) != 1:
        return "%s: %d 'rsp:' lines, expected one clear line:\n%s" % (case, len(rsp_lines), stderr[-1500:])
    if mention and not any(mention in line for line in rsp_lines):
        return "%s: the message does not name %r: %r" % (case, mention, rsp_lines)
    return None


def truncated(rsp, seeds, workdir):
    problems = []
    runs = 0
    for seed in seeds:
        data = open(seed, "rb").read()
        lay = Layout(data)
        name = os.path.basename(seed)
        cuts = [  # (offset, what, the dump must fail)
            (4, "inside the magic", True),
            (16, "inside the header", True),
            (60, "inside the header's section table", True),
            (HEADER_SIZE - 1, "at the end of the header", True),
            (lay.attrs_offset + 1, "inside the first attr", True),
            (lay.attrs_offset + lay.attrs_size // 2, "in the middle of the attrs", True),
            (lay.attrs_offset + lay.attrs_size - 1, "at the end of the attrs", True),
            (lay.data_offset + 3, "inside the first record header", False),
            (lay.data_offset + lay.data_size // 3, "at a third of the data", False),
            (lay.data_offset + lay.data_size // 2, "in the middle of the data", False),
            (lay.data_end - 1, "one byte before the end of the data", False),
        ]
        if len(lay.records) > 4:
            off, size = lay.records[len(lay.records) // 2]
            cuts.append((off + size // 2, "in the middle of a record", False))
        for off, what, must_fail in cuts:
            if not 0 < off < len(data):
                continue
            path = os.path.join(workdir, "cut-%d-%s" % (off, name))
            with open(path, "wb") as f:
                f.write(data[:off])
            code, stderr = run_dump(rsp, path)
            runs += 1
            problem = judge("%s cut at %d (%s)" % (name, off, what), code, stderr,
                            must_fail=must_fail, must_say=True, one_line=must_fail)
            if problem:
                problems.append(problem)
            os.unlink(path)
        # Past the data: feature sections and the RSP trailer.  The events
        # are all there; the dump may warn; it must not crash.
        for off in sorted({lay.data_end, lay.data_end + 16, len(data) - 24, len(data) - 1}):
            if not lay.data_end <= off < len(data):
                continue
            path = os.path.join(workdir, "cut-%d-%s" % (off, name))
            with open(path, "wb") as f:
                f.write(data[:off])
            code, stderr = run_dump(rsp, path)
            runs += 1
            problem = judge("%s cut at %d (after the data)" % (name, off), code, stderr)
            if problem:
                problems.append(problem)
            os.unlink(path)
    return problems, runs


def corrupt(rsp, seeds, workdir):
    """VARIANTS damaged copies in all, taking the seed recordings in turn."""
    problems = []
    layouts = [(seed, open(seed, "rb").read()) for seed in seeds]
    layouts = [(seed, data, Layout(data)) for seed, data in layouts]
    for variant in range(VARIANTS):
        seed, data, lay = layouts[variant % len(layouts)]
        name = os.path.basename(seed)
        rng = random.Random(variant)
        buf = bytearray(data)
        kind = (variant // len(layouts)) % 3  # every seed gets every kind
        flips = []
        for _ in range(rng.randint(1, 6)):
            if kind == 0:    # header, attrs, ids: where sizes and offsets live
                pos = rng.randrange(0, min(len(buf), lay.data_offset + 64))
            elif kind == 1 and lay.records:  # a record's type, misc or size
                off, _ = lay.records[rng.randrange(len(lay.records))]
                pos = off + rng.randrange(8)
            else:            # anywhere
                pos = rng.randrange(len(buf))
            value = rng.choice([0x00, 0xff, 0x80, 0x7f, rng.randrange(256)])
            if value == buf[pos]:
                value ^= 0x5a
            buf[pos] = value
            flips.append(pos)
        path = os.path.join(workdir, "corrupt-%d-%s" % (variant, name))
        with open(path, "wb") as f:
            f.write(buf)
        code, stderr = run_dump(rsp, path)
        problem = judge("%s variant %d (%s, bytes at %s)"
                        % (name, variant, ["header", "record headers", "anywhere"][kind], flips),
                        code, stderr)
        if problem:
            keep = os.path.join(os.environ.get("RSP_BUILD_ROOT", workdir),
                                "dump-errors-" + os.path.basename(path))
            shutil.copyfile(path, keep)
            problems.append(problem + "\n  (input kept as %s)" % keep)
        os.unlink(path)
    return problems, VARIANTS


def bad_input(rsp, seeds, workdir):
    cases = []
    empty = os.path.join(workdir, "empty.perf.data")
    open(empty, "wb").close()
    cases.append(("an empty file", empty, None))
    text = os.path.join(workdir, "notes.txt")
    with open(text, "w") as f:
        f.write("This is not a perf.data file.\n" * 20)
    cases.append(("a text file", text, None))
    zeros = os.path.join(workdir, "zeros.data")
    with open(zeros, "wb") as f:
        f.write(bytes(8192))
    cases.append(("a file of zeros", zeros, None))
    magic_only = os.path.join(workdir, "magic-only.data")
    with open(magic_only, "wb") as f:
        f.write(PERF_MAGIC + bytes(HEADER_SIZE - 8))
    cases.append(("a perf header of zeros", magic_only, None))
    missing = os.path.join(workdir, "no-such-recording.rsp")
    cases.append(("a missing file", missing, "no-such-recording.rsp"))
    cases.append(("a directory", workdir, None))
    problems = []
    for what, path, mention in cases:
        for extra in ([], ["--stats"]):
            code, stderr = run_dump(rsp, path, extra)
            problem = judge("rsp dump %s%s" % (" ".join(extra) + " " if extra else "", what),
                            code, stderr, must_fail=True, one_line=True, mention=mention)
            if problem:
                problems.append(problem)
            else:
                t.log("ok: %s -> exit %d: %s" % (what, code, stderr.strip().splitlines()[0]))
    return problems, 2 * len(cases)


def section_span(data, name):
    """The RSP trailer's section NAME in DATA: (table offset, number of
    sections, its offset, its size), offset and size None if absent."""
    table_off, n, _ver = struct.unpack("<QII", bytes(data[-24:-8]))
    for i in range(n):
        entry = data[table_off + 32 * i:table_off + 32 * (i + 1)]
        if bytes(entry[:16]).rstrip(b"\0") == name:
            off, size = struct.unpack("<QQ", bytes(entry[16:32]))
            return table_off, n, off, size
    return table_off, n, None, None


def ftrace_section(rsp, seeds, workdir):
    """Damage only the ftrace section (RSP's tracefs instance): the perf
    data and the report must survive, with a warning naming the loss."""
    src = os.path.join(os.environ.get("RSP_SOURCE_ROOT", "."), "tests", "data", "dio_ftrace.rsp")
    data = bytearray(open(src, "rb").read())
    table_off, n, off, size = section_span(data, b"ftrace")
    if off is None:
        return ["dio_ftrace.rsp has no ftrace section"], 0
    variants = []
    bad = bytearray(data)
    bad[off:off + 8] = b"RSPFTR99"
    variants.append(("its header", bad, "ftrace section"))
    bad = bytearray(data)
    rng = random.Random(11)
    for _ in range(400):
        k = off + size // 3 + rng.randrange(size // 2)
        bad[k] ^= rng.randrange(1, 256)
    variants.append(("bytes of its buffers", bad, None))
    bad = bytearray(data)
    struct.pack_into("<Q", bad, table_off + 32 * [i for i in range(n) if bytes(
        data[table_off + 32 * i:table_off + 32 * i + 16]).rstrip(b"\0") == b"ftrace"][0] + 24, size // 2)
    variants.append(("its length halved", bad, "ftrace section"))
    problems = []
    runs = 0
    for what, content, mention in variants:
        path = os.path.join(workdir, "ftrace-damaged.rsp")
        with open(path, "wb") as f:
            f.write(content)
        for argv in (["dump", "--stats"], ["report"]):
            runs += 1
            try:
                proc = subprocess.run([rsp] + argv + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      timeout=60)
            except subprocess.TimeoutExpired:
                problems.append("rsp %s, ftrace section with damaged %s: a hang" % (argv[0], what))
                continue
            stderr = proc.stderr.decode("utf-8", "replace")
            case = "rsp %s, ftrace section with damaged %s" % (" ".join(argv), what)
            problem = judge(case, proc.returncode, stderr, mention=mention)
            if problem is None and proc.returncode != 0:
                problem = "%s: exit %d, expected the recording to be read: %s" % (case, proc.returncode, stderr[-500:])
            if problem is None and mention is None and "ftrace" not in stderr and "tracefs" not in stderr:
                out = proc.stdout.decode("utf-8", "replace")
                if "damaged" not in out and argv[0] == "dump":
                    problem = "%s: nothing says the instance's events were damaged" % case
            if problem:
                problems.append(problem)
            else:
                t.log("ok: %s -> exit %d: %s" % (case, proc.returncode,
                                                 (stderr.strip().splitlines() or ["(no warning)"])[0]))
    return problems, runs


def files_section(rsp, seeds, workdir):
    """Damage only the files section (the names of the files behind disk
    waits): the report goes on, one warning says the files are named by
    device and inode instead, and the damaged names never show."""
    src = os.path.join(os.environ.get("RSP_SOURCE_ROOT", "."), "tests", "data", "cold_read_files.rsp")
    data = bytearray(open(src, "rb").read())
    _table_off, _n, off, size = section_span(data, b"files")
    if off is None or size == 0:
        return ["cold_read_files.rsp has no files section, or an empty one"], 0
    good = bytes(data[off:off + size]).decode("utf-8", "replace")
    problems = []
    runs = 0
    rng = random.Random(5)
    variants = []
    bad = bytearray(data)
    for k in range(off, off + size):
        if bad[k] != 0x0a:
            bad[k] = rng.choice(b"x7 \x00\xff")
    variants.append(("every byte but the line ends", bad))
    bad = bytearray(data)
    bad[off:off + 2] = b"\x00\x00"  # the first line's device
    variants.append(("its first line", bad))
    for what, content in variants:
        path = os.path.join(workdir, "files-damaged.rsp")
        with open(path, "wb") as f:
            f.write(content)
        runs += 1
        case = "rsp report --json, files section with damaged %s" % what
        try:
            proc = subprocess.run([rsp, "report", "--json", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  timeout=60)
        except subprocess.TimeoutExpired:
            problems.append("%s: a hang" % case)
            continue
        stderr = proc.stderr.decode("utf-8", "replace")
        problem = judge(case, proc.returncode, stderr, must_say=True, one_line=True, mention="files section")
        if problem is None and proc.returncode != 0:
            problem = "%s: exit %d, expected the report: %s" % (case, proc.returncode, stderr[-500:])
        if problem is None:
            files = [x["file"] for x in json.loads(proc.stdout)["files"]]
            names = [x for x in files if x is not None and not x.startswith("device ")]
            if any(x not in good for x in names):
                problem = "%s: a damaged name shows: %s" % (case, names)
        if problem:
            problems.append(problem)
        else:
            t.log("ok: %s -> exit 0: %s; files %s" % (case, stderr.strip().splitlines()[0], files))
    return problems, runs


def insert_in_data(data, blob):
    """DATA (a perf.data) with BLOB at the start of its data section, the
    data size and the feature sections' offsets after it moved."""
    d = bytearray(data)
    data_offset, data_size = struct.unpack_from("<QQ", d, 40)
    n_features = bin(int.from_bytes(d[72:104], "little")).count("1")
    d[data_offset:data_offset] = blob
    struct.pack_into("<QQ", d, 40, data_offset, data_size + len(blob))
    table = data_offset + data_size + len(blob)
    for i in range(n_features):
        off, size = struct.unpack_from("<QQ", d, table + 16 * i)
        if off >= data_offset:
            struct.pack_into("<QQ", d, table + 16 * i, off + len(blob), size)
    return bytes(d)


def odd_records(rsp, seeds, workdir):
    """Records perf writes that are not whole 8-byte words or carry data
    past their size: a build id of 100 bytes (perf inject -b writes them
    between the samples, and every record after one sits 4 bytes off) and
    an AUX area record followed by its trace data.  rsp dump reads past
    them and prints the same events as without them."""
    data_dir = os.path.join(os.environ.get("RSP_SOURCE_ROOT", "."), "tests", "data")
    seed = os.path.join(data_dir, "pingpong-plain.perf.data")
    with open(seed, "rb") as f:
        original = f.read()
    want = subprocess.run([rsp, "dump", seed], capture_output=True, timeout=60)
    if want.returncode != 0:
        t.fail("rsp dump of %s exited %d" % (seed, want.returncode))
    # PERF_RECORD_HEADER_BUILD_ID (67): pid, 24 bytes of build id, a name
    # padded to 64 (perf's own layout), 100 bytes in all
    build_id = struct.pack("<IHHi", 67, 0, 100, -1) + bytes(range(20)) + bytes(4) + b"/usr/bin/true".ljust(64, b"\0")
    # PERF_RECORD_AUXTRACE (71): 48 bytes, then its 64 bytes of trace data
    trace = bytes(range(64))
    auxtrace = struct.pack("<IHHQQQIIII", 71, 0, 48, len(trace), 0, 0, 0, 0, 0, 0) + trace
    problems, runs = [], 0
    for case, blob in (("a 100-byte build id record", build_id), ("an AUX trace record and its data", auxtrace),
                       ("both", build_id + auxtrace + build_id)):
        path = os.path.join(workdir, "odd.perf.data")
        with open(path, "wb") as f:
            f.write(insert_in_data(original, blob))
        got = subprocess.run([rsp, "dump", path], capture_output=True, timeout=60)
        runs += 1
        if got.returncode != 0 or got.stdout != want.stdout:
            problems.append("%s: exit %d, %s; stderr: %s" % (
                case, got.returncode, "the same events" if got.stdout == want.stdout else "other events",
                got.stderr.decode("utf-8", "replace")[-500:]))
        else:
            t.log("ok: %s -> the same %d lines" % (case, want.stdout.count(b"\n")))
    return problems, runs


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("truncated", "corrupt", "bad-input", "ftrace", "files", "odd-records"):
        t.fail("usage: dump-errors.py truncated|corrupt|bad-input|ftrace|files|odd-records")
    rsp = t.rsp_path()
    workdir = tempfile.mkdtemp(prefix="rsp-dump-errors-")
    try:
        seeds = seed_recordings(workdir) if sys.argv[1] not in ("bad-input", "ftrace", "files", "odd-records") else []
        for s in seeds:
            t.log("seed: %s (%d bytes)" % (s, os.path.getsize(s)))
        test = {"truncated": truncated, "corrupt": corrupt, "bad-input": bad_input,
                "ftrace": ftrace_section, "files": files_section, "odd-records": odd_records}[sys.argv[1]]
        problems, runs = test(rsp, seeds, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if problems:
        t.fail("%d of %d runs of rsp dump misbehaved:\n%s" % (len(problems), runs, "\n".join(problems)))
    t.log("PASS: %d runs of rsp dump, no crash, clear messages" % runs)


if __name__ == "__main__":
    main()
