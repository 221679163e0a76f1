#!/usr/bin/env python3
"""A recording's page cache in 2 MB folios (root and perf).

perf writes a recording in pieces of a few pages, and the page cache keeps
them in folios of that size: mapping a 10 MB recording then takes 2,500
page-table entries, a tenth of its report.  rsp record puts a copy written
in 2 MB pieces in its place, and the reader asks for 2 MB folios
(MADV_HUGEPAGE) where it reads a file from the disk.  Checked here:

  1. The control: a file written in 2 MB pieces beside the recording, read
     through a mapping, is mapped in 2 MB entries (smaps' FilePmdMapped).
     Where it is not (a kernel or file system without large folios: ext4
     has them since Linux 6.16), the folio checks are left out, and said
     so; the rest is checked all the same.
  2. rsp record: the recording (several MB) is mapped in 2 MB entries, no
     temporary file is left beside it, and rsp report reads it.
  3. A copy of the recording written in 64 kB pieces, as perf writes,
     prints the same `rsp dump` (the unit test /recording/copy checks
     rsp record's copy byte for byte).
  4. The reader: a copy written in 64 kB pieces is mapped in 4 kB entries;
     after it is dropped from the page cache and rsp report has read it
     from the disk, it is mapped in 2 MB entries.
  5. Little room: on a 48 MB tmpfs (less free than the recording twice and
     64 MB) rsp record makes no copy, says so in a note, and writes the
     recording perf wrote, which rsp report reads; nothing is left beside
     it.
"""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

PIECE = 2 << 20


def pmd_mapped_kb(path):
    """Maps PATH in a child process, reads every page, and returns the kB
    of it smaps says are mapped in 2 MB entries (FilePmdMapped)."""
    code = r"""
import mmap, os, sys
path = sys.argv[1]
with open(path, "rb") as f:
    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    total = 0
    for i in range(0, len(m), 4096):
        total += m[i]
    real = os.path.realpath(path)
    kb, inside = 0, False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5 and ":" in fields[3]:
                inside = len(fields) >= 6 and fields[5] == real
            elif inside and fields[0] == "FilePmdMapped:":
                kb += int(fields[1])
    print(kb)
"""
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def write_in_pieces(path, data, piece):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for at in range(0, len(data), piece):
            os.write(fd, data[at:at + piece])
    finally:
        os.close(fd)


def drop_from_page_cache(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def main():
    t.require_perf_and_root()
    rsp = t.rsp_path()
    build = os.environ.get("RSP_BUILD_ROOT") or os.path.dirname(os.path.dirname(rsp))
    workdir = tempfile.mkdtemp(prefix="rsp-folios-", dir=build)
    try:
        # 1. the control
        control = os.path.join(workdir, "control")
        write_in_pieces(control, os.urandom(4 * PIECE), PIECE)
        folios = pmd_mapped_kb(control) > 0
        if folios:
            t.log("control: a file written in 2 MB pieces here is mapped in 2 MB entries")
        else:
            t.log("NOTE: this kernel or file system (%s) keeps no 2 MB folios for a file written in 2 MB "
                  "pieces: the folio checks are left out" % workdir)

        # 2. rsp record
        out = os.path.join(workdir, "r.rsp")
        pingpong = os.path.join(build, "tests", "workloads", "pingpong")
        t.record([rsp, "record", "-o", out, "--", "sh", "-c",
                  "%s 10000 20000 && ls -R /usr/include >/dev/null" % pingpong])
        size = os.path.getsize(out)
        if size < 2 * PIECE:
            t.fail("the recording is %d bytes: too small to hold a 2 MB folio" % size)
        left = sorted(n for n in os.listdir(workdir) if n not in ("control", "r.rsp"))
        if left:
            t.fail("rsp record left %s beside the recording" % ", ".join(left))
        if folios:
            kb = pmd_mapped_kb(out)
            # every whole 2 MB of the file but the last, whose folio may be
            # smaller (the copy's last piece is short)
            want = (size // PIECE - 1) * (PIECE >> 10)
            if kb < want:
                t.fail("the recording (%d bytes) is mapped with %d kB in 2 MB entries, want at least %d"
                       % (size, kb, want))
            t.log("the recording (%.1f MB) is mapped with %d kB in 2 MB entries" % (size / 1e6, kb))
        t.run([rsp, "report", out])

        # 3. the copy is the same recording
        dump = t.run([rsp, "dump", "--offline", out]).stdout
        small = os.path.join(workdir, "small.rsp")
        with open(out, "rb") as f:
            data = f.read()
        write_in_pieces(small, data, 64 << 10)
        if t.run([rsp, "dump", "--offline", small]).stdout != dump:
            t.fail("rsp dump prints another thing for a copy of the recording")

        # 4. the reader, from the disk
        if folios:
            before = pmd_mapped_kb(small)
            if before > 0:
                t.fail("a file written in 64 kB pieces is mapped with %d kB in 2 MB entries" % before)
            drop_from_page_cache(small)
            t.run([rsp, "report", small])
            after = pmd_mapped_kb(small)
            want = (size // PIECE - 1) * (PIECE >> 10)
            if after < want:
                t.fail("read from the disk by rsp report, the recording is mapped with %d kB in 2 MB "
                       "entries, want at least %d" % (after, want))
            t.log("read from the disk by rsp report: %d kB in 2 MB entries (before: %d)" % (after, before))
        # 5. little room
        small_fs = os.path.join(workdir, "small-fs")
        os.mkdir(small_fs)
        mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", small_fs],
                               capture_output=True, text=True)
        if mount.returncode != 0:
            t.log("NOTE: no tmpfs could be mounted (%s): the check with little room is left out"
                  % mount.stderr.strip())
        else:
            try:
                tight = os.path.join(small_fs, "r.rsp")
                rec = t.record([rsp, "record", "-o", tight, "--", pingpong, "2000", "20000"])
                if "the recording is kept as perf wrote it" not in rec.stderr:
                    t.fail("rsp record made a copy with little room, or said nothing: %s" % rec.stderr)
                left = sorted(n for n in os.listdir(small_fs) if n != "r.rsp")
                if left:
                    t.fail("rsp record left %s beside the recording on the small file system" % ", ".join(left))
                t.run([rsp, "report", tight])
                t.log("with little room: no copy, the note, and the recording reads")
            finally:
                subprocess.run(["umount", small_fs], capture_output=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    t.log("PASS")


if __name__ == "__main__":
    main()
