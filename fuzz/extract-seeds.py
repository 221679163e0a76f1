#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from real recordings.

    fuzz/extract-seeds.py OUT_DIR RECORDING...

For each recording (a perf.data file, maybe with RSP's trailer):
  OUT_DIR/perf-reader/NAME        the whole file
  OUT_DIR/trace-data/NAME         its HEADER_TRACING_DATA feature section
  OUT_DIR/ftrace-section/NAME     its "ftrace" section (RSP recordings made
                                  with the tracefs instance)
Identical extracts are written once.  Exits non-zero when a recording is not
a perf.data file, so that a broken seed never passes unnoticed.
"""
import hashlib
import os
import struct
import sys

HEADER_TRACING_DATA = 1


def sections(blob):
    magic, _size, _attr_size = struct.unpack_from("<8sQQ", blob, 0)
    if magic != b"PERFILE2":
        raise ValueError("not a little-endian perf.data file")
    data_offset, data_size = struct.unpack_from("<QQ", blob, 40)
    flags = struct.unpack_from("<4Q", blob, 72)
    bits = [i for i in range(256) if flags[i // 64] >> (i % 64) & 1]
    out = {}
    table = data_offset + data_size
    for i, bit in enumerate(bits):
        offset, size = struct.unpack_from("<QQ", blob, table + 16 * i)
        if bit == HEADER_TRACING_DATA:
            out["trace-data"] = blob[offset:offset + size]
    if blob[-8:] == b"RSPTRL01":
        table_offset, n, _version = struct.unpack_from("<QII", blob, len(blob) - 24)
        for i in range(n):
            name, offset, size = struct.unpack_from("<16sQQ", blob, table_offset + 32 * i)
            if name.rstrip(b"\0") == b"ftrace":
                out["ftrace-section"] = blob[offset:offset + size]
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: extract-seeds.py OUT_DIR RECORDING...")
    out_dir = sys.argv[1]
    counts = {"perf-reader": 0, "trace-data": 0, "ftrace-section": 0}
    seen = set()
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            blob = f.read()
        parts = {"perf-reader": blob}
        try:
            parts.update(sections(blob))
        except (ValueError, struct.error) as e:
            sys.exit("extract-seeds: %s: %s" % (path, e))
        for target, data in parts.items():
            digest = hashlib.sha1(data).hexdigest()
            if (target, digest) in seen:
                continue
            seen.add((target, digest))
            os.makedirs(os.path.join(out_dir, target), exist_ok=True)
            with open(os.path.join(out_dir, target, os.path.basename(path)), "wb") as f:
                f.write(data)
            counts[target] += 1
    print("extract-seeds: " + ", ".join("%s %d" % kv for kv in counts.items()))
    if counts["trace-data"] == 0 or counts["ftrace-section"] == 0:
        sys.exit("extract-seeds: no recording gave a %s seed" %
                 ("trace-data" if counts["trace-data"] == 0 else "ftrace-section"))


if __name__ == "__main__":
    main()
