"""Shared helpers of RSP's recording, error-path and golden tests.

The tests compare `rsp dump` against `perf script` on the same file.  Only
the tests parse `perf script` text: the product never does (its text
format changes between perf versions; RSP reads perf.data itself).  Exit codes follow meson: 0 pass, 77 skip, anything else fail.
"""

import collections
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import time

SKIP = 77

# The event set of the README's plain `perf record` command line.  Keep in
# sync with README.md ("Recording with plain perf").
TRACEPOINTS = [
    "sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup",
    "sched:sched_wakeup_new", "sched:sched_process_fork",
    "sched:sched_process_exec", "sched:sched_process_exit",
    "block:block_rq_insert", "block:block_rq_issue", "block:block_rq_complete",
    "irq:irq_handler_entry", "irq:irq_handler_exit",
    "irq:softirq_entry", "irq:softirq_exit",
    "sock:sock_send_length", "sock:sock_recv_length",
    "sock:sk_data_ready", "sock:inet_sock_set_state",
    "fib:fib_table_lookup",
]
SAMPLING_EVENT = "cpu-clock/freq=1000/"

PERF_SCRIPT_FIELDS = "comm,pid,tid,cpu,time,period,event,trace,ip,sym,dso"

# Kernel addresses on x86_64 (and the other 64-bit ports Debian ships) live
# in the upper half.
KERNEL_SPACE = 0xffff800000000000

# Record types the kernel writes; `rsp dump` must print every one of them.
# The user-space ones (FINISHED_ROUND, ID_INDEX...) are compared when dump
# prints them.
KERNEL_RECORD_TYPES = {
    "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE", "FORK", "READ",
    "MMAP2", "AUX", "ITRACE_START", "LOST_SAMPLES", "SWITCH",
    "SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT", "CGROUP",
    "TEXT_POKE", "AUX_OUTPUT_HW_ID",
}


def log(msg):
    print(msg, flush=True)


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def skip(reason):
    print("SKIP: " + reason, flush=True)
    sys.exit(SKIP)


def in_ci():
    return os.environ.get("CI", "").lower() == "true"


def skip_or_fail(reason):
    """A missing prerequisite skips locally and fails in CI (CI=true)."""
    if in_ci():
        fail(reason + " (CI=true: a missing prerequisite is a failure)")
    skip(reason)


def rsp_path():
    path = os.environ.get("RSP")
    if not path:
        fail("RSP is not set (run the tests through meson test)")
    if not os.access(path, os.X_OK):
        fail("RSP=%s is not executable" % path)
    return path


# rsp and what it executes (rsp-view, rsp-render) from beside itself
RSP_PARTS = ("rsp", "rsp-view", "rsp-render")


def copy_rsp(directory):
    """A copy of rsp and its parts in DIRECTORY, where a user the build tree
    is not readable to can run it; the copy's path."""
    build = os.path.dirname(rsp_path())
    for name in RSP_PARTS:
        dst = os.path.join(directory, name)
        shutil.copy2(os.path.join(build, name), dst)
        os.chmod(dst, 0o755)
    return os.path.join(directory, "rsp")


def perf_path():
    return os.environ.get("RSP_TEST_PERF") or shutil.which("perf")


def require_perf_and_root():
    """Recording needs perf and root; skip (or fail in CI) without them."""
    perf = perf_path()
    if not perf:
        skip_or_fail("perf is not installed (Debian package linux-perf)")
    if os.geteuid() != 0:
        skip_or_fail("recording tests need root (run: sudo scripts/test.sh)")
    probe = subprocess.run([perf, "version"], capture_output=True, text=True)
    if probe.returncode != 0:
        skip_or_fail("perf does not run: " + (probe.stderr.strip() or probe.stdout.strip()))
    return perf


def running_kernel_build_id():
    """The running kernel's GNU build id in hex (the ELF notes in
    /sys/kernel/notes), or None where it cannot be read."""
    try:
        with open("/sys/kernel/notes", "rb") as f:
            data = f.read()
    except OSError:
        return None
    at = 0
    while at + 12 <= len(data):
        namesz, descsz, ntype = struct.unpack_from("<III", data, at)
        desc_at = at + 12 + ((namesz + 3) & ~3)
        after = desc_at + ((descsz + 3) & ~3)
        if after > len(data):
            return None
        if ntype == 3 and data[at + 12:at + 12 + namesz] == b"GNU\0":
            return data[desc_at:desc_at + descsz].hex()
        at = after
    return None


def recorded_kernel_build_id(path):
    """The build id a perf.data's header gives its kernel ([kernel.kallsyms],
    perf buildid-list), or None (no perf, or none recorded)."""
    perf = perf_path()
    if not perf:
        return None
    out = subprocess.run([perf, "buildid-list", "-i", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[1].strip() == "[kernel.kallsyms]":
            return parts[0]
    return None


def recorded_on_another_kernel(path):
    """Whether the perf.data at PATH was recorded on a kernel other than the
    running one: neither perf script nor rsp then names its kernel frames
    with this machine's symbols."""
    running, recorded = running_kernel_build_id(), recorded_kernel_build_id(path)
    if running is None or recorded is None:
        return False
    n = min(len(running), len(recorded))
    return running[:n] != recorded[:n]


def settle():
    """Writes back what earlier tests left dirty before a recording whose
    timing is checked: the kernel's writeback of it (cold_read leaves 64 MB,
    sqlite_commits and the fsync scenarios their files) otherwise runs
    during the workload, beside it on the 2 CPUs, and into its own
    fsync()s."""
    os.sync()


def host_steal_ms():
    """The CPU time the hypervisor gave to others while this machine's
    CPUs wanted it ("steal" in /proc/stat), summed over the CPUs, in ms
    since boot; 0 on bare metal."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return 0.0
    if len(fields) < 9 or fields[0] != "cpu":
        return 0.0
    return int(fields[8]) * 1000.0 / os.sysconf("SC_CLK_TCK")


class Recorded:
    """A recording's process, and what the host took from the machine
    while it ran."""

    def __init__(self, proc, wall_s, steal_ms):
        self.wall_s = wall_s
        self.steal_ms = steal_ms
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    @property
    def steal_share(self):
        """The stolen share of all CPUs' time during the recording."""
        return self.steal_ms / 1000.0 / max(self.wall_s * (os.cpu_count() or 1), 1e-9)

    def describe(self):
        return ("the host took %.0f ms of the CPUs during the %.2f s recording (%.1f%% of their time)"
                % (self.steal_ms, self.wall_s, 100 * self.steal_share))


# On a VM the host takes a CPU away for milliseconds at a time ("steal"):
# the guest's scheduler sees the task on that CPU running all along, so a
# recording shows a process running beside its peer when it was in fact
# frozen (a control path split off), a 5 ms request taking 24 ms, or a
# write's wake-up IPI followed by 2 ms of nothing.  A recording whose
# checks failed while the host took at least this share of the CPUs' time
# is made again, up to ATTEMPTS in all; on bare metal, or on a quiet host,
# the first failure stands.
STEAL_RETRY_SHARE = 0.01
ATTEMPTS = 3


def until_it_holds(name, attempt):
    """Runs ATTEMPT() (record, report, check once; returns its problems and
    the Recorded) until its checks hold, again only while the host's steal
    explains a failure (see STEAL_RETRY_SHARE); fails with the last
    attempt's problems."""
    for n in range(1, ATTEMPTS + 1):
        problems, rec = attempt()
        if not problems:
            if n > 1:
                log("%s: attempt %d of %d held" % (name, n, ATTEMPTS))
            return
        summary = "%s: %d problem(s):\n  - %s" % (name, len(problems), "\n  - ".join(problems))
        if n == ATTEMPTS or rec is None or rec.steal_share < STEAL_RETRY_SHARE:
            fail(summary + ("\n(attempt %d of %d; %s)" % (n, ATTEMPTS, rec.describe()) if rec else ""))
        log("attempt %d of %d: %s\n%s, at least %.0f%%: recording again"
            % (n, ATTEMPTS, summary, rec.describe(), 100 * STEAL_RETRY_SHARE))


def host_gaps(rsp, recording, tids, period_ms=1.0):
    """Where the host had taken a CPU from one of TIDS: the CPU's sampling
    timer (cpu-clock, PERIOD_MS apart) fired nothing for 1.8 periods or
    more between two samples of the same task, with no context switch on
    that CPU between them.  The guest saw the task running across; it ran
    nothing.  (start_ms, end_ms, tid) from the recording's first event (as
    rsp report's times are: the records perf synthesizes are not events)."""
    events, _, _ = parse_rsp_dump(run([rsp, "dump", recording], timeout=300).stdout, with_ftrace=True)
    first = min((e.time_ns for e in events if e.time_ns > 0), default=0)
    last, gaps = {}, []
    for e in events:
        if e.event == "sched:sched_switch":
            last.pop(e.cpu, None)  # a switch between: not one stretch of running
        elif e.event == "cpu-clock":
            prev = last.get(e.cpu)
            if prev and prev.tid == e.tid and e.tid in tids and e.time_ns - prev.time_ns >= 1.8e6 * period_ms:
                gaps.append(((prev.time_ns - first) / 1e6, (e.time_ns - first) / 1e6, e.tid))
            last[e.cpu] = e
    return gaps


def read_trailer(path):
    """The RSP trailer's sections: {name: bytes} (rsp-recording.h)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24 or data[-8:] != b"RSPTRL01":
        fail("%s has no RSP trailer" % path)
    table_offset, n, version = struct.unpack_from("<QII", data, len(data) - 24)
    if version != 1 or table_offset + n * 32 != len(data) - 24:
        fail("%s: the trailer's table is damaged" % path)
    sections = {}
    for i in range(n):
        raw_name, offset, size = struct.unpack_from("<16sQQ", data, table_offset + i * 32)
        name = raw_name.rstrip(b"\0").decode()
        if offset + size > table_offset:
            fail("%s: section %s points past the table" % (path, name))
        sections[name] = data[offset:offset + size]
    return sections



def read_meta(path):
    """The recording's meta section, parsed (rsp-recording.h)."""
    return json.loads(read_trailer(path)["meta"])


def record(argv, timeout=180):
    """Runs a recording command ARGV after settle(), logging it and how much
    CPU time the host stole meanwhile; a Recorded."""
    settle()
    log("$ " + " ".join(argv))
    steal0, t0 = host_steal_ms(), time.monotonic()
    proc = run(argv, timeout=timeout)
    rec = Recorded(proc, time.monotonic() - t0, host_steal_ms() - steal0)
    log(rec.describe())
    return rec


def run(argv, timeout=300, check=True, **kwargs):
    """Runs ARGV, returns the CompletedProcess (text mode)."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                              timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        fail("timed out after %d s: %s" % (timeout, " ".join(argv)))
    if check and proc.returncode != 0:
        fail("%s exited with %d\nstdout: %s\nstderr: %s"
             % (" ".join(argv), proc.returncode, proc.stdout[-4000:], proc.stderr[-4000:]))
    return proc


def perf_record_argv(perf, output, command):
    """The README's plain perf command line.  The frequency is given to the
    sampling event only: a global -F would put the tracepoints into
    frequency mode too, and they would be sampled instead of all recorded."""
    return [perf, "record", "-a", "-g", "-k", "monotonic",
            "-e", ",".join(TRACEPOINTS), "-e", SAMPLING_EVENT,
            "-o", output, "--"] + list(command)


# ---------------------------------------------------------------------------
# Parsed events

Frame = collections.namedtuple("Frame", "ip sym dso")


class Event:
    __slots__ = ("time_ns", "cpu", "pid", "tid", "comm", "event", "fields",
                 "period", "frames", "line")

    def __init__(self, time_ns, cpu, pid, tid, comm, event, fields, period, line):
        self.time_ns = time_ns
        self.cpu = cpu
        self.pid = pid
        self.tid = tid
        self.comm = comm
        self.event = event
        self.fields = fields
        self.period = period
        self.frames = []
        self.line = line

    def key(self):
        return (self.time_ns, self.cpu, self.tid, self.event)


def to_ns(sec, nsec):
    if len(nsec) != 9:
        raise ValueError("time without 9 nanosecond digits: %s.%s" % (sec, nsec))
    return int(sec) * 1000000000 + int(nsec)


def event_base_name(name):
    """"cpu-clock/freq=1000/" and "cpu-clock" name the same event."""
    return re.sub(r"/[^/]*/$", "", name)


def symbol_base_name(sym):
    """perf prints versioned names (foo@@GLIBC_2.2.5) and, with offsets,
    foo+0x12: both compare as foo.  [unknown] stays [unknown]."""
    if sym.startswith("["):
        return sym
    sym = re.sub(r"\+0x[0-9a-fA-F]+$", "", sym)
    at = sym.find("@")
    if at > 0:
        sym = sym[:at]
    return sym


# perf script -F comm,pid,tid,cpu,time,period,event,trace,ip,sym,dso --ns:
#   "    comm  1234/1235  [001]   288.064812784:    1000000   sched:sched_waking: comm=..."
PERF_HEADER = re.compile(
    r"^\s*(?P<comm>.*?)\s+(?P<pid>-?\d+)/(?P<tid>-?\d+)\s+\[(?P<cpu>\d+)\]\s+"
    r"(?P<sec>\d+)\.(?P<nsec>\d+):\s+(?:(?P<period>\d+)\s+)?(?P<event>\S+?):(?: (?P<trace>.*))?$")
# A frame: "\t<ip> <symbol> (<dso>)"; a dso may hold parentheses itself
# ("/memfd:x (deleted)"), so the symbol ends at the first " (".
FRAME_LINE = re.compile(r"^\t\s*(?P<ip>[0-9a-fA-F]+) (?P<sym>.+?) \((?P<dso>.*)\)$")
# A sample without a callchain: perf script prints its address on the
# header line, after the fields: "... [rsp] ffffffff81b340e9 __traceiter_x ([kernel.kallsyms])";
# rsp dump prints it as the sample's one frame line.
INLINE_IP = re.compile(r"^(?P<trace>.*?)\s*(?<!\S)(?P<ip>[0-9a-f]{1,16}) (?P<sym>\S+) \((?P<dso>[^()]*)\)$")


def parse_perf_script(text):
    events = []
    bad = []
    current = None
    for line in text.splitlines():
        if not line.strip():
            current = None
            continue
        if line.startswith("\t"):
            m = FRAME_LINE.match(line)
            if current is None or not m:
                bad.append(line)
                continue
            current.frames.append(Frame(int(m.group("ip"), 16), m.group("sym"), m.group("dso")))
            continue
        m = PERF_HEADER.match(line)
        if not m:
            bad.append(line)
            current = None
            continue
        trace = (m.group("trace") or "").rstrip()
        inline = INLINE_IP.match(trace)
        if inline:
            trace = inline.group("trace").rstrip()
        current = Event(to_ns(m.group("sec"), m.group("nsec")), int(m.group("cpu")),
                        int(m.group("pid")), int(m.group("tid")), m.group("comm"),
                        event_base_name(m.group("event")), trace,
                        int(m.group("period")) if m.group("period") else None, line)
        if inline:
            current.frames.append(Frame(int(inline.group("ip"), 16), inline.group("sym"), inline.group("dso")))
        events.append(current)
    return events, bad


# rsp dump:
#   "288.064812784 [001] comm 1234/1235 sched:sched_waking: comm=... "
#   "288.064812784 [001] comm 1234/1235 PERF_RECORD_COMM: ..."
# comm may hold spaces, so it is matched lazily up to the first "pid/tid".
RSP_HEADER = re.compile(
    r"^(?P<sec>-?\d+)\.(?P<nsec>\d+) \[\s*(?P<cpu>-?\d+)\] (?P<comm>.*?) +(?P<pid>-?\d+)/(?P<tid>-?\d+) "
    r"(?P<event>\S+?):(?: (?P<fields>.*))?$")
# Other records may lack a time or a cpu; only their type is counted.
RSP_RECORD = re.compile(r"^\S.*? PERF_RECORD_(?P<type>[A-Z0-9_]+):")


def parse_rsp_dump(text, with_ftrace=False):
    """Returns (samples, records, unparsed lines); records maps
    PERF_RECORD_<TYPE> to a count.  The events of RSP's tracefs instance
    ("NAME@ftrace", never in `perf script`) are left out unless
    WITH_FTRACE."""
    samples = []
    records = collections.Counter()
    bad = []
    current = None
    for line in text.splitlines():
        if not line.strip():
            current = None
            continue
        if line.startswith("\t"):
            m = FRAME_LINE.match(line)
            if current is None or not m:
                bad.append(line)
                continue
            current.frames.append(Frame(int(m.group("ip"), 16), m.group("sym"), m.group("dso")))
            continue
        current = None
        m = RSP_HEADER.match(line)
        record = RSP_RECORD.match(line)
        if record and (not m or m.group("event").startswith("PERF_RECORD_")):
            records[record.group("type")] += 1
            continue
        if not m or len(m.group("nsec")) != 9:
            bad.append(line)
            continue
        name = m.group("event")
        if name.endswith("@ftrace") and not with_ftrace:
            continue
        fields = (m.group("fields") or "").rstrip()
        period = None
        pm = re.fullmatch(r"period=(\d+)", fields)
        if pm:
            period = int(pm.group(1))
        current = Event(to_ns(m.group("sec"), m.group("nsec")), int(m.group("cpu")),
                        int(m.group("pid")), int(m.group("tid")), m.group("comm"),
                        event_base_name(name), fields, period, line)
        samples.append(current)
    return samples, records, bad


# perf report --stats: "            MMAP events:          1  ( 0.0%)"
STATS_LINE = re.compile(r"^\s*(?P<type>[A-Z_0-9]+) events:\s+(?P<n>\d+)")


def parse_perf_stats(text):
    """Record counts per type from the 'Aggregated stats' block."""
    counts = {}
    in_aggregate = False
    for line in text.splitlines():
        if line.strip().startswith("Aggregated stats"):
            in_aggregate = True
            continue
        if in_aggregate:
            m = STATS_LINE.match(line)
            if m:
                if m.group("type") != "TOTAL":
                    counts[m.group("type")] = int(m.group("n"))
            elif line.strip().endswith("stats:"):
                break
    return counts


# ---------------------------------------------------------------------------
# Comparison

def workload_frame_name(sym):
    """A workload frame's name as both tools must agree on it.  perf 6.1
    names an address in a PLT stub either "<function>@plt" or "_init": its
    symbol fix-up stretches _init (just before .plt) over the stubs it adds
    later, and which of the overlapping symbols its lookup meets first
    depends on the shape of its symbol tree (seen: free@plt+0x6 as _init,
    execl@plt as either, in runs of the same binary).  rsp names the stub.
    Both compare as "a PLT stub"."""
    if "@plt" in sym or symbol_base_name(sym) == "_init":
        return "(a PLT stub)"
    return symbol_base_name(sym)


def is_kernel_frame(frame):
    return frame.ip >= KERNEL_SPACE


def user_frame_name(sym):
    """A user frame's name as both tools must print it: exactly, with a
    symbol version (cfree@GLIBC_2.2.5) and C++ names as perf's demangler
    gives them (ns::Klass::method, no parameters), the offset aside (rsp
    dump prints it, perf script without symoff does not) and the PLT stubs
    compared as one (workload_frame_name)."""
    name = re.sub(r"\+0x[0-9a-fA-F]+$", "", sym)
    if "@plt" in name or name == "_init":
        return "(a PLT stub)"
    return name


def frame_summary(frames, workload):
    """What must agree between the two tools for one sample: every kernel
    frame (address and name), the names of the frames in the workload
    binary and the exact names of every other user frame, in order.  User
    addresses differ on purpose: perf script prints them relative to the
    binary."""
    out = []
    for f in frames:
        if is_kernel_frame(f):
            out.append(("k", "%x" % f.ip, symbol_base_name(f.sym)))
        else:
            out.append(("u", os.path.basename(f.dso), user_frame_name(f.sym)))
    return tuple(out)


def is_tracepoint(name):
    """sched:sched_switch is one; cpu-clock:S, cycles:ppp (an event with
    modifiers) are not."""
    return ":" in name and not re.fullmatch(r"[^:]+:[ukhHGIpPSDWe]+", name)


def payload(ev, workload):
    """What must be equal for two events with the same key: tracepoints
    compare their field text, the sampling event its period."""
    tracepoint = is_tracepoint(ev.event)
    return (ev.pid, ev.comm, ev.fields if tracepoint else "",
            None if tracepoint else ev.period,
            len(ev.frames), frame_summary(ev.frames, workload))


def describe(ev):
    lines = [ev.line] + ["\t%x %s (%s)" % (f.ip, f.sym, f.dso) for f in ev.frames[:40]]
    return "\n".join(lines)


def compare_samples(perf_events, rsp_events, workload, max_report=8):
    """Compares the two event lists as multisets keyed by
    (time ns, cpu, tid, event name).  Returns a list of problems."""
    problems = []
    perf_counts = collections.Counter(e.event for e in perf_events)
    rsp_counts = collections.Counter(e.event for e in rsp_events)
    for name in sorted(set(perf_counts) | set(rsp_counts)):
        if perf_counts[name] != rsp_counts[name]:
            problems.append("event %s: perf script has %d, rsp dump has %d"
                            % (name, perf_counts[name], rsp_counts[name]))

    by_key_perf = collections.defaultdict(list)
    by_key_rsp = collections.defaultdict(list)
    for e in perf_events:
        by_key_perf[e.key()].append(e)
    for e in rsp_events:
        by_key_rsp[e.key()].append(e)

    reported = 0
    # perf script sometimes prints no callchain at all for a sample whose
    # record has one (a chain with an invalid entry, a thread it does not
    # know); rsp prints the frames.  Tolerated, counted, and bounded.
    perf_dropped = 0
    for key in sorted(set(by_key_perf) | set(by_key_rsp)):
        p = by_key_perf.get(key, [])
        r = by_key_rsp.get(key, [])
        if len(p) != len(r):
            problems.append("key %s: %d in perf script, %d in rsp dump\n  perf: %s\n  rsp:  %s"
                            % (key, len(p), len(r), p[0].line if p else "-", r[0].line if r else "-"))
            reported += 1
        else:
            pp = sorted(p, key=lambda e: repr(payload(e, workload)))
            rr = sorted(r, key=lambda e: repr(payload(e, workload)))
            for a, b in zip(pp, rr):
                pa, pb = payload(a, workload), payload(b, workload)
                if pa != pb and pa[:4] == pb[:4] and pa[4] == 0 and pb[4] > 0:
                    perf_dropped += 1
                    continue
                if pa != pb:
                    what = []
                    if pa[0] != pb[0]:
                        what.append("pid %d vs %d" % (pa[0], pb[0]))
                    if pa[1] != pb[1]:
                        what.append("comm %r vs %r" % (pa[1], pb[1]))
                    if pa[2] != pb[2]:
                        what.append("fields differ")
                    if pa[3] != pb[3]:
                        what.append("period %s vs %s" % (pa[3], pb[3]))
                    if pa[4] != pb[4]:
                        what.append("%d vs %d frames" % (pa[4], pb[4]))
                    if pa[5] != pb[5]:
                        what.append("frames differ: %s" % "; ".join(
                            "%r vs %r" % (x, y) for x, y in zip(pa[5], pb[5]) if x != y)[:600])
                    problems.append("sample %s: %s\n--- perf script:\n%s\n--- rsp dump:\n%s"
                                    % (key, ", ".join(what), describe(a), describe(b)))
                    reported += 1
                    break
        if reported >= max_report:
            problems.append("(stopping after %d differing samples)" % reported)
            break
    if perf_dropped:
        log("%d samples: perf script printed no callchain where the record has one" % perf_dropped)
    if perf_dropped > max(2, len(perf_events) // 100):
        problems.append("%d samples with frames in rsp dump and none in perf script (more than 1%%)" % perf_dropped)
    return problems


def compare_records(perf_stats, rsp_records):
    problems = []
    for rtype, n in sorted(perf_stats.items()):
        if rtype == "SAMPLE":
            continue
        if rtype in KERNEL_RECORD_TYPES or rtype in rsp_records:
            if rsp_records.get(rtype, 0) != n:
                problems.append("PERF_RECORD_%s: perf has %d, rsp dump printed %d"
                                % (rtype, n, rsp_records.get(rtype, 0)))
    for rtype, n in sorted(rsp_records.items()):
        if rtype != "SAMPLE" and rtype not in perf_stats:
            problems.append("PERF_RECORD_%s: rsp dump printed %d, perf has none" % (rtype, n))
    return problems


def functions_on_stacks(events, workload):
    """Names of the workload binary's functions seen on any stack."""
    names = collections.Counter()
    for e in events:
        for f in e.frames:
            if os.path.basename(f.dso) == workload:
                names[symbol_base_name(f.sym)] += 1
    return names


# ---------------------------------------------------------------------------
# The contract every `rsp report --json` keeps (docs/REPORT-JSON.md), checked on every
# recording the suites make.

CATEGORY_IDS = [
    "cpu_sampled", "cpu_unsampled", "disk_io", "io_queue", "network", "scheduler",
    "preempted", "hardware", "timeout", "sleep", "kernel_misc", "other_path", "unaccounted",
]
# Values in the JSON are rounded to 0.001 ms; allow 0.01 ms per summed value.
ROUNDING_MS = 0.01


def walk_numbers(value, where=""):
    """Yields (where, number) for every number in a JSON value."""
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from walk_numbers(v, "%s.%s" % (where, k) if where else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk_numbers(v, "%s[%d]" % (where, i))



def report_contract(report, min_accounted_percent=None):
    """Problems with REPORT (parsed JSON), empty when it keeps the contract:
    all 13 categories in order, adding up to total_ms exactly (to rounding),
    nothing negative or non-finite, findings sorted, wall <= total."""
    problems = []
    acc = report["accounting"]
    total = acc["total_ms"]
    ids = [x["id"] for x in acc["categories"]]
    if ids != CATEGORY_IDS:
        problems.append("categories are %s, expected the 13 ids of docs/REPORT-JSON.md in order %s" % (ids, CATEGORY_IDS))
    if min_accounted_percent is not None and acc["accounted_percent"] < min_accounted_percent:
        problems.append("accounted_percent %.3f < %.0f" % (acc["accounted_percent"], min_accounted_percent))
    cat_sum = sum(x["ms"] for x in acc["categories"])
    if abs(cat_sum - total) > ROUNDING_MS * len(CATEGORY_IDS):
        problems.append("categories add up to %.3f ms, total_ms is %.3f ms (difference %.3f ms)"
                        % (cat_sum, total, cat_sum - total))
    if abs(acc["accounted_ms"] + acc["unaccounted_ms"] - total) > ROUNDING_MS:
        problems.append("accounted_ms %.3f + unaccounted_ms %.3f = %.3f, total_ms is %.3f"
                        % (acc["accounted_ms"], acc["unaccounted_ms"], acc["accounted_ms"] + acc["unaccounted_ms"],
                           total))
    cats = {x["id"]: x["ms"] for x in acc["categories"]}
    if "unaccounted" in cats and abs(cats["unaccounted"] - acc["unaccounted_ms"]) > ROUNDING_MS:
        problems.append("category unaccounted is %.3f ms, unaccounted_ms is %.3f"
                        % (cats["unaccounted"], acc["unaccounted_ms"]))
    negatives = [(w, v) for w, v in walk_numbers(report) if v < 0]
    if negatives:
        problems.append("negative values: %s" % negatives[:10])
    nonfinite = [(w, v) for w, v in walk_numbers(report) if isinstance(v, float) and not math.isfinite(v)]
    if nonfinite:
        problems.append("non-finite values: %s" % nonfinite[:10])
    ms = [f["ms"] for f in report["findings"]]
    if any(a < b for a, b in zip(ms, ms[1:])):
        problems.append("findings are not sorted by ms, largest first: %s" % ms[:20])
    if acc["wall_ms"] > total + 0.001:
        problems.append("wall_ms %.3f > total_ms %.3f" % (acc["wall_ms"], total))
    if total <= 0:
        problems.append("total_ms is %.3f" % total)
    if not report["findings"]:
        problems.append("no findings")
    # the files behind the disk waits share out disk_io + io_queue exactly,
    # most first, the waits of no known file last
    files = report.get("files")
    if files is None:
        problems.append("no 'files' member")
    else:
        disk = cats.get("disk_io", 0) + cats.get("io_queue", 0)
        files_sum = sum(x["ms"] for x in files)
        if abs(files_sum - disk) > ROUNDING_MS * (len(files) + 2):
            problems.append("files add up to %.3f ms, disk_io + io_queue is %.3f ms" % (files_sum, disk))
        named = [x["ms"] for x in files if x["file"] is not None]
        if any(a < b for a, b in zip(named, named[1:])):
            problems.append("files are not sorted by ms, largest first: %s" % named[:20])
        if any(x["file"] is None for x in files[:-1]):
            problems.append("the waits of no known file are not last in 'files'")
    return problems


def check_report(rsp, recording, extra_args=()):
    """Runs `rsp report --json` on RECORDING and returns contract problems."""
    rep = run([rsp, "report", "--json", recording] + list(extra_args), timeout=300, check=False)
    if rep.returncode != 0:
        return ["rsp report exited %d: %s" % (rep.returncode, rep.stderr[-2000:])]
    try:
        report = json.loads(rep.stdout)
    except ValueError as e:
        return ["rsp report --json printed invalid JSON: %s" % e]
    acc = report["accounting"]
    log("rsp report: %.2f%% of %.3f ms total accounted (wall %.3f ms)"
        % (acc["accounted_percent"], acc["total_ms"], acc["wall_ms"]))
    return report_contract(report)
