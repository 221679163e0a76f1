#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from real recordings.

    fuzz/extract-seeds.py OUT_DIR RECORDING...

For each recording (a perf.data file, maybe with RSP's trailer):
  OUT_DIR/perf-reader/NAME.EVENT  the recording cut down to one event: the
                                  header and attributes as they are, the
                                  first side-band records (comm, mmap, fork…)
                                  and the first samples of that event, the
                                  tracing data holding that event's format
                                  only, the other features and RSP's
                                  sections as they are
  OUT_DIR/model/NAME.EVENT        the same cuts, for fuzz-model (which
                                  builds the model from whole recordings)
  OUT_DIR/trace-data/NAME.SYSTEM  its HEADER_TRACING_DATA feature section,
                                  one tracepoint system per seed
  OUT_DIR/ftrace-section/NAME     its "ftrace" section (RSP recordings made
                                  with the tracefs instance), and the same
                                  with a few sub-buffers per CPU
  OUT_DIR/json/NAME               its "meta" section (RSP recordings): the
                                  metadata's JSON text
Seeds stay a few kilobytes to a few tens, so that every target runs in-process
at thousands of inputs per second, and together they hold every event kind
the recordings have.  Identical extracts are written once.  Exits non-zero
when a recording is not a perf.data file, so that a broken seed never passes
unnoticed.
"""
import hashlib
import os
import struct
import sys

HEADER_TRACING_DATA = 1
PERF_RECORD_SAMPLE = 9
PERF_SAMPLE_IDENTIFIER = 1 << 16
SIDE_BAND_RECORDS = 60
SAMPLES_PER_SEED = 40
# the instance's merge uses its winner tree from 24 CPUs on (rsp-ftrace-reader.c)
MANY_CPUS = 24
SUBBUFFERS_PER_CPU = 2
PRINTK_LINES = 16


class Recording:
    def __init__(self, blob):
        self.blob = blob
        magic, _size, self.attr_size = struct.unpack_from("<8sQQ", blob, 0)
        if magic != b"PERFILE2":
            raise ValueError("not a little-endian perf.data file")
        self.attrs_offset, self.attrs_size = struct.unpack_from("<QQ", blob, 24)
        self.data_offset, self.data_size = struct.unpack_from("<QQ", blob, 40)
        flags = struct.unpack_from("<4Q", blob, 72)
        self.feature_bits = [i for i in range(256) if flags[i // 64] >> (i % 64) & 1]
        table = self.data_offset + self.data_size
        self.features = []  # (bit, bytes)
        for i, bit in enumerate(self.feature_bits):
            offset, size = struct.unpack_from("<QQ", blob, table + 16 * i)
            self.features.append((bit, blob[offset:offset + size]))
        self.rsp_sections = []  # (name, bytes)
        if blob[-8:] == b"RSPTRL01":
            table_offset, n, self.rsp_version = struct.unpack_from("<QII", blob, len(blob) - 24)
            for i in range(n):
                name, offset, size = struct.unpack_from("<16sQQ", blob, table_offset + 32 * i)
                self.rsp_sections.append((name.rstrip(b"\0"), blob[offset:offset + size]))
        # attr index of every sample id, and each attr's tracepoint id
        self.attr_of_id = {}
        self.attrs = []  # (type, config, sample_type)
        for i in range(self.attrs_size // self.attr_size):
            base = self.attrs_offset + i * self.attr_size
            typ, _sz, config, _period, sample_type = struct.unpack_from("<IIQQQ", blob, base)
            ids_offset, ids_size = struct.unpack_from("<QQ", blob, base + self.attr_size - 16)
            for sid in struct.unpack_from("<%dQ" % (ids_size // 8), blob, ids_offset):
                self.attr_of_id[sid] = i
            self.attrs.append((typ, config, sample_type))

    def feature(self, bit):
        return dict(self.features).get(bit)

    def section(self, name):
        return dict(self.rsp_sections).get(name)

    def records(self):
        pos, end = self.data_offset, self.data_offset + self.data_size
        while pos + 8 <= end:
            typ, _misc, size = struct.unpack_from("<IHH", self.blob, pos)
            if size < 8 or pos + size > end:
                break
            yield typ, self.blob[pos:pos + size]
            pos += size

    def sample_attr(self, record):
        """The attr index of a sample record (PERF_SAMPLE_IDENTIFIER first)."""
        if len(record) < 16:
            return None
        return self.attr_of_id.get(struct.unpack_from("<Q", record, 8)[0])

    def write(self, data, features, rsp_sections):
        """A perf.data file: this one's header, ids and attributes, then
        DATA, FEATURES ((bit, bytes), in bit order) and RSP_SECTIONS."""
        head = bytearray(self.blob[:self.data_offset])
        struct.pack_into("<QQ", head, 40, self.data_offset, len(data))
        out = bytearray(head) + data
        table_at = len(out)
        payload_at = table_at + 16 * len(features)
        table, payload = bytearray(), bytearray()
        for _bit, content in features:
            table += struct.pack("<QQ", payload_at + len(payload), len(content))
            payload += content
        out += table + payload
        if rsp_sections:
            entries = bytearray()
            for name, content in rsp_sections:
                entries += struct.pack("<16sQQ", name, len(out), len(content))
                out += content
            table_offset = len(out)
            out += entries
            out += struct.pack("<QII8s", table_offset, len(rsp_sections), self.rsp_version, b"RSPTRL01")
        return bytes(out)


class TracingData:
    """perf's tracing data, kept as parts so that it can be rebuilt with a
    subset of its formats."""

    def __init__(self, blob):
        self.blob = blob
        pos = blob.index(b"\0", 10) + 1 + 1 + 1 + 4  # version, endian, long, page
        self.preamble = blob[:pos]
        pos = self.take_section(pos, b"header_page\0")
        pos = self.take_section(pos, b"header_event\0")
        self.headers = blob[len(self.preamble):pos]
        self.ftrace, pos = self.take_formats(pos)
        (n_systems,) = struct.unpack_from("<I", blob, pos)
        pos += 4
        self.systems = []  # (name, [format bytes])
        for _ in range(n_systems):
            end = blob.index(b"\0", pos)
            name = blob[pos:end]
            formats, pos = self.take_formats(end + 1)
            self.systems.append((name, formats))
        self.rest = blob[pos:]  # kallsyms, printk formats, saved cmdlines

    def take_section(self, pos, label):
        if self.blob[pos:pos + len(label)] != label:
            raise ValueError("tracing data without %r" % label)
        (size,) = struct.unpack_from("<Q", self.blob, pos + len(label))
        return pos + len(label) + 8 + size

    def take_formats(self, pos):
        (count,) = struct.unpack_from("<I", self.blob, pos)
        pos += 4
        formats = []
        for _ in range(count):
            (size,) = struct.unpack_from("<Q", self.blob, pos)
            formats.append(self.blob[pos + 8:pos + 8 + size])
            pos += 8 + size
        return formats, pos

    @staticmethod
    def format_id(text):
        for line in text.split(b"\n"):
            if line.startswith(b"ID: "):
                return int(line[4:])
        return None

    def short_rest(self):
        """kallsyms, the first printk formats and saved command lines."""
        rest = self.rest
        (ksize,) = struct.unpack_from("<I", rest, 0)
        pos = 4 + ksize
        (psize,) = struct.unpack_from("<I", rest, pos)
        printk = rest[pos + 4:pos + 4 + psize]
        cut = -1
        for _ in range(PRINTK_LINES):
            cut = printk.find(b"\n", cut + 1)
            if cut < 0:
                break
        if cut >= 0:
            printk = printk[:cut + 1]
        head = rest[:4 + ksize] + struct.pack("<I", len(printk)) + printk
        pos += 4 + psize
        if len(rest) < pos + 8:
            return head
        (csize,) = struct.unpack_from("<Q", rest, pos)
        cmdlines = rest[pos + 8:pos + 8 + csize]
        cut = cmdlines.rfind(b"\n", 0, 1024)
        cmdlines = cmdlines[:cut + 1] if cut >= 0 else b""
        return head + struct.pack("<Q", len(cmdlines)) + cmdlines

    def build(self, keep, short=False):
        """The blob with the formats for which KEEP(system, text) holds;
        SHORT: with the first saved command lines only."""
        def formats(items):
            out = struct.pack("<I", len(items))
            for text in items:
                out += struct.pack("<Q", len(text)) + text
            return out
        out = self.preamble + self.headers + formats([f for f in self.ftrace if keep(b"ftrace", f)])
        systems = [(n, [f for f in fs if keep(n, f)]) for n, fs in self.systems]
        systems = [(n, fs) for n, fs in systems if fs]
        out += struct.pack("<I", len(systems))
        for name, fs in systems:
            out += name + b"\0" + formats(fs)
        return out + (self.short_rest() if short else self.rest)


def perf_reader_seeds(rec, tracing):
    """(suffix, bytes): the recording cut down to one event per seed."""
    side_band, samples = [], {}
    for typ, record in rec.records():
        if typ == PERF_RECORD_SAMPLE:
            attr = rec.sample_attr(record)
            if attr is not None:
                samples.setdefault(attr, [])
                if len(samples[attr]) < SAMPLES_PER_SEED:
                    samples[attr].append(record)
        elif len(side_band) < SIDE_BAND_RECORDS:
            side_band.append(record)
    seeds = []
    for attr, chosen in sorted(samples.items()):
        typ, config, _sample_type = rec.attrs[attr]
        keep_ids = {config} if typ == 2 else set()
        # the chosen records, in file order
        wanted = set(map(id, side_band + chosen))
        data = b"".join(r for r in side_band + chosen if id(r) in wanted)
        features = []
        for bit, content in rec.features:
            if bit == HEADER_TRACING_DATA and tracing is not None:
                content = tracing.build(lambda _s, text: TracingData.format_id(text) in keep_ids, short=True)
            features.append((bit, content))
        # the stored symbols in the first seed only: they are parsed whole
        # on every input that has them
        sections = [(n, c) for n, c in rec.rsp_sections
                    if n != b"ftrace" and (n != b"symbols" or not seeds)]
        seeds.append(("attr%02d" % attr, rec.write(data, features, sections)))
    # the whole side band and the instance's events with every format
    if rec.section(b"ftrace") is not None:
        # perf's formats of the scheduler (the instance's are in its section)
        features = [(bit, tracing.build(lambda system, _t: system == b"sched", short=True)
                     if bit == HEADER_TRACING_DATA else c)
                    for bit, c in rec.features]
        short = dict(ftrace_section_seeds(rec.section(b"ftrace")))["first%d" % SUBBUFFERS_PER_CPU]
        sections = [(n, short if n == b"ftrace" else c) for n, c in rec.rsp_sections if n != b"symbols"]
        seeds.append(("ftrace", rec.write(b"".join(side_band), features, sections)))
    return seeds


def trace_data_seeds(tracing):
    """(suffix, bytes): one tracepoint system per seed."""
    seeds = []
    for name, _formats in tracing.systems:
        seeds.append((name.decode("ascii", "replace"),
                      tracing.build(lambda system, _text, name=name: system == name, short=True)))
    seeds.append(("all", tracing.blob))
    return seeds


def ftrace_section_seeds(section):
    """(suffix, bytes): the section with the first sub-buffers of each CPU
    only (one and SUBBUFFERS_PER_CPU), formats whole; and one of
    MANY_CPUS CPUs, each with the first sub-buffer of one of the
    recording's CPUs in turn (the same times on several CPUs), so that the
    fuzzers reach the reader's merge of many CPUs (its winner tree)."""
    (subbuf_size, _long_size, n_cpus) = struct.unpack_from("<III", section, 12)
    (header_len,) = struct.unpack_from("<Q", section, 24)
    pos = 32 + header_len
    (n_formats,) = struct.unpack_from("<I", section, pos)
    pos += 4
    for _ in range(n_formats):
        (system_len,) = struct.unpack_from("<I", section, pos)
        pos += 4 + system_len
        (format_len,) = struct.unpack_from("<Q", section, pos)
        pos += 8 + format_len
    head, blocks = section[:pos], []
    for _ in range(n_cpus):
        cpu, reserved, data_len = struct.unpack_from("<IIQ", section, pos)
        blocks.append((cpu, reserved, section[pos + 16:pos + 16 + data_len]))
        pos += 16 + data_len
    seeds = []
    for n in sorted({1, SUBBUFFERS_PER_CPU}):
        cpus = b"".join(struct.pack("<IIQ", cpu, reserved, len(data[:n * subbuf_size])) + data[:n * subbuf_size]
                        for cpu, reserved, data in blocks)
        seeds.append(("first%d" % n, head + cpus))
    firsts = [data[:subbuf_size] for _, _, data in blocks if len(data) >= subbuf_size]
    if firsts:
        many = struct.pack("<III", subbuf_size, _long_size, MANY_CPUS)
        cpus = b"".join(struct.pack("<IIQ", cpu, 0, subbuf_size) + firsts[cpu % len(firsts)]
                        for cpu in range(MANY_CPUS))
        seeds.append(("many-cpus", head[:12] + many + head[24:] + cpus))
    return seeds


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: extract-seeds.py OUT_DIR RECORDING...")
    out_dir = sys.argv[1]
    counts = {"perf-reader": 0, "model": 0, "trace-data": 0, "ftrace-section": 0, "json": 0}
    seen = set()
    many_cpus_written = False  # one seed of many CPUs (110 kB) is enough: twice the others' size
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            blob = f.read()
        try:
            rec = Recording(blob)
            tracing_blob = rec.feature(HEADER_TRACING_DATA)
            tracing = TracingData(tracing_blob) if tracing_blob is not None else None
            cuts = perf_reader_seeds(rec, tracing)
            parts = [(target, s, d) for target in ("perf-reader", "model") for s, d in cuts]
            if tracing is not None:
                parts += [("trace-data", s, d) for s, d in trace_data_seeds(tracing)]
            if rec.section(b"ftrace") is not None:
                parts += [("ftrace-section", s, d) for s, d in ftrace_section_seeds(rec.section(b"ftrace"))]
            if rec.section(b"meta") is not None:
                parts.append(("json", "meta", rec.section(b"meta")))
        except (ValueError, struct.error) as e:
            sys.exit("extract-seeds: %s: %s" % (path, e))
        for target, suffix, data in parts:
            digest = hashlib.sha1(data).hexdigest()
            if (target, digest) in seen:
                continue
            if suffix == "many-cpus":
                if many_cpus_written:
                    continue
                many_cpus_written = True
            seen.add((target, digest))
            os.makedirs(os.path.join(out_dir, target), exist_ok=True)
            name = "%s.%s" % (os.path.basename(path), suffix)
            with open(os.path.join(out_dir, target, name), "wb") as f:
                f.write(data)
            counts[target] += 1
    print("extract-seeds: " + ", ".join("%s %d" % kv for kv in counts.items()))
    missing = [t for t, n in counts.items() if n == 0]
    if missing:
        sys.exit("extract-seeds: no recording gave a %s seed" % missing[0])


if __name__ == "__main__":
    main()
