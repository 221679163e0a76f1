#!/usr/bin/env python3
"""RSP's own tracefs instance, recorded for real (root and perf).

  1. `rsp record` (without --keep-awake) of
     `dd if=FILE of=/dev/null iflag=direct bs=512k count=128` on a 64 MB file
     on a real disk (under /var/tmp, not tmpfs).  The recording must have an
     "ftrace" section (rsp-ftrace-section.h) that this script decodes on its
     own, from the ring-buffer sub-buffer layout, independently of RSP's
     reader: at least 128 block:block_rq_complete events (one per read dd
     issued at the least) and a sched:sched_waking of dd for each time it
     slept waiting (sched_switch in state D; it must have slept 8 times); the
     number of decoded events equals the instance's "read events"; the
     meta's "ftrace" member names the instance, clock mono, the events, the
     per-CPU statistics, no loss and no error.  perf's own counts are logged
     beside the instance's.
  2. No rsp-* instance is left in tracefs after rsp record ends normally,
     after SIGINT and after SIGTERM sent to rsp record mid-run; after
     SIGKILL the instance is left, and the next rsp record removes it
     (and another stale one, but not one of a live rsp).
  3. An event missing from the kernel (RSP_RECORD_PRETEND_MISSING) is noted
     and the others recorded; with all of them missing the channel is off:
     one warning naming what is lost, the recording made by perf alone.
"""

import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

TRACEFS = "/sys/kernel/tracing"
INSTANCES = os.path.join(TRACEFS, "instances")
READS = 128
MIN_SLEEPS = 8
BLOCK = 512 * 1024

# ring buffer event types (kernel/trace/ring_buffer.c)
TYPE_PADDING, TYPE_TIME_EXTEND, TYPE_TIME_STAMP = 29, 30, 31


def parse_format(text):
    """(name, id, {field: (offset, size)}) of an events/SYS/NAME/format text."""
    name = re.search(r"^name: (\S+)", text, re.M).group(1)
    event_id = int(re.search(r"^ID: (\d+)", text, re.M).group(1))
    fields = {}
    for m in re.finditer(r"field:[^;]*?(\w+)(\[[^\]]*\])?;\s*offset:(\d+);\s*size:(\d+);", text):
        fields[m.group(1)] = (int(m.group(3)), int(m.group(4)))
    return name, event_id, fields


def decode_section(blob):
    """Decodes the ftrace section: ({id: (system:name, fields)}, [(cpu, id, payload)...], n_subbufs,
    {cpu: data_len})."""
    if blob[:8] != b"RSPFTR01":
        t.fail("the ftrace section's magic is %r" % blob[:8])
    version, subbuf_size, long_size, n_cpus = struct.unpack_from("=IIII", blob, 8)
    if version != 1 or long_size not in (4, 8) or subbuf_size < 64:
        t.fail("the ftrace section's head is odd: version %d, sub-buffer %d, long %d"
               % (version, subbuf_size, long_size))
    pos = 24
    (header_len,) = struct.unpack_from("=Q", blob, pos)
    pos += 8
    header_page = blob[pos:pos + header_len].decode()
    if "commit" not in header_page:
        t.fail("the stored header_page has no commit field: %r" % header_page[:200])
    pos += header_len
    (n_formats,) = struct.unpack_from("=I", blob, pos)
    pos += 4
    formats = {}
    for _ in range(n_formats):
        (system_len,) = struct.unpack_from("=I", blob, pos)
        pos += 4
        system = blob[pos:pos + system_len].decode()
        pos += system_len
        (format_len,) = struct.unpack_from("=Q", blob, pos)
        pos += 8
        name, event_id, fields = parse_format(blob[pos:pos + format_len].decode())
        pos += format_len
        formats[event_id] = ("%s:%s" % (system, name), fields)
    events = []
    n_subbufs = 0
    cpus = {}
    for _ in range(n_cpus):
        cpu, reserved, data_len = struct.unpack_from("=IIQ", blob, pos)
        pos += 16
        if reserved != 0 or data_len % subbuf_size != 0:
            t.fail("CPU %d: reserved %d, %d bytes is not whole sub-buffers of %d"
                   % (cpu, reserved, data_len, subbuf_size))
        cpus[cpu] = data_len
        data = blob[pos:pos + data_len]
        pos += data_len
        for start in range(0, data_len, subbuf_size):
            n_subbufs += 1
            events.extend((cpu, event_id, payload)
                          for event_id, payload in decode_subbuf(data[start:start + subbuf_size], long_size))
    if pos != len(blob):
        t.fail("the ftrace section has %d bytes after its last CPU" % (len(blob) - pos))
    return formats, events, n_subbufs, cpus


def decode_subbuf(sub, long_size):
    """(common_type, payload) of each data event of one sub-buffer."""
    commit = struct.unpack_from("=Q" if long_size == 8 else "=I", sub, 8)[0]
    size = commit & ((1 << 30) - 1)  # the high bits flag missed events
    head = 8 + long_size
    if size > len(sub) - head:
        t.fail("a sub-buffer claims %d bytes of data in %d" % (size, len(sub) - head))
    end = head + size
    pos = head
    out = []
    while pos < end:
        (word,) = struct.unpack_from("=I", sub, pos)
        type_len, delta = word & 0x1f, word >> 5
        if type_len == TYPE_PADDING:
            if delta == 0:
                break
            (length,) = struct.unpack_from("=I", sub, pos + 4)
            pos += 4 + length
        elif type_len in (TYPE_TIME_EXTEND, TYPE_TIME_STAMP):
            pos += 8
        elif type_len == 0:
            (length,) = struct.unpack_from("=I", sub, pos + 4)
            payload = sub[pos + 8:pos + 4 + length]
            out.append((struct.unpack_from("=H", payload, 0)[0], payload))
            pos += 4 + length
        else:
            payload = sub[pos + 4:pos + 4 + type_len * 4]
            out.append((struct.unpack_from("=H", payload, 0)[0], payload))
            pos += 4 + type_len * 4
    if pos > end:
        t.fail("an event runs past its sub-buffer's data (%d > %d)" % (pos, end))
    return out


def field(payload, fields, name):
    offset, size = fields[name]
    return int.from_bytes(payload[offset:offset + size], sys.byteorder, signed=True)


def rsp_instances():
    if not os.path.isdir(INSTANCES):
        return []
    return sorted(n for n in os.listdir(INSTANCES) if re.match(r"rsp-\d+-[0-9a-f]+$", n))


def make_file():
    """A 64 MB file on a real disk, not on tmpfs: block requests for dd."""
    path = "/var/tmp/rsp-test-ftrace-64M"
    if not os.path.exists(path) or os.path.getsize(path) != READS * BLOCK:
        with open(path + ".tmp", "wb") as f:
            for _ in range(READS):
                f.write(os.urandom(BLOCK))
        os.rename(path + ".tmp", path)
    fstype = subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True).stdout.strip()
    if fstype in ("tmpfs", "ramfs", "overlayfs"):
        t.skip_or_fail("%s is on %s: the dd test needs a block device" % (path, fstype))
    return path


def perf_counts(perf, path, pid):
    """perf's own block_rq_complete count, its sched_waking of PID (for the
    log) and how often PID went to sleep uninterruptibly (sched_switch
    with prev_state D, which perf records whole: it fires in the task)."""
    proc = t.run([perf, "script", "--force", "-i", path, "-F", "event,trace"], timeout=300, check=False)
    complete = len(re.findall(r"block:block_rq_complete:", proc.stdout))
    waking = len(re.findall(r"sched:sched_waking:.*\bpid=%d\b" % pid, proc.stdout))
    d_sleeps = len(re.findall(r"sched:sched_switch:.*\bprev_pid=%d\b.*\bprev_state=D\b" % pid, proc.stdout))
    return complete, waking, d_sleeps


def kallsyms_text_address(name):
    """NAME's address in /proc/kallsyms, or None (absent, or hidden: 0)."""
    with open("/proc/kallsyms") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in ("t", "T") and parts[2] == name:
                return int(parts[0], 16) or None
    return None


PERF_TIMER = "perf_swevent_hrtimer"
PERF_TIMER_EVENTS = ("timer:hrtimer_expire_entry", "timer:hrtimer_start")


def check_perf_timer_exits_left_out(ft, formats, events, seconds):
    """The exits of perf's sampling timers' expiries are left out once perf
    runs: the meta names the timers (learnt from their expiries), and their
    exits in the recording are only those of the few ms before the filter
    was set, where without it there would be one per CPU and ms of the
    recording (SECONDS long)."""
    exit_event = "timer:hrtimer_expire_exit"
    if exit_event not in ft["events"]:
        return
    filtered = {f["event"]: f["filter"] for f in ft.get("filters") or []}
    text = filtered.get(exit_event)
    if text is None or not re.fullmatch(r"hrtimer != 0x[0-9a-f]+( && hrtimer != 0x[0-9a-f]+)*", text):
        t.fail("the meta's filter of %s is %r: the exits of perf's timers are recorded (%s)"
               % (exit_event, text, ft.get("filters")))
    timers = {int(a, 16) for a in re.findall(r"0x[0-9a-f]+", text)}
    n_cpus = len(ft.get("cpus") or []) or os.cpu_count()
    if not 1 <= len(timers) <= n_cpus:
        t.fail("the filter of %s names %d timers on %d CPUs: %s" % (exit_event, len(timers), n_cpus, text))
    # perf's timers' exits are those with no entry before them on their CPU
    # (the entries of perf's timer are left out): counted from the events,
    # whatever the meta says
    entry_event = "timer:hrtimer_expire_entry"
    exit_fields = next(f for n, f in formats.values() if n == exit_event)
    entry_fields = next((f for n, f in formats.values() if n == entry_event), None)
    open_timers = {}
    ours = 0
    for cpu, event_id, payload in events:
        name = formats[event_id][0]
        if name == entry_event and entry_fields is not None:
            open_timers.setdefault(cpu, set()).add(field(payload, entry_fields, "hrtimer"))
        elif name == exit_event:
            timer = field(payload, exit_fields, "hrtimer")
            if timer in open_timers.get(cpu, set()):
                open_timers[cpu].discard(timer)
            else:
                ours += 1
    # the filter is set within 50 ms of perf's start (2-3 ms here); unfiltered,
    # 1000 a second on each CPU
    allowed = 100 * n_cpus
    if ours > allowed:
        t.fail("%d exits of timers with no expiry recorded (perf's) are in a %.1f s recording on %d CPUs "
               "(at most %d before the filter)"
               % (ours, seconds, n_cpus, allowed))
    if seconds * 1000 * n_cpus <= 2 * allowed:
        t.log("NOTE: the recording is too short to tell the filter from none (%.2f s)" % seconds)
    t.log("perf's timers' exits left out: %d timers; %d exits with no expiry recorded, in %.1f s"
          % (len(timers), ours, seconds))


def check_perf_timer_left_out(ft, formats, events, by_name, by_address=False):
    """The expiries and starts of perf's own sampling timer are not recorded
    (the instance's filters), the other timers' are, and the meta says so;
    BY_ADDRESS: the filters name the function by its address (as on a kernel
    whose filters do not know ".function")."""
    filtered = {f["event"]: f["filter"] for f in ft.get("filters") or []}
    address = kallsyms_text_address(PERF_TIMER)
    for event in PERF_TIMER_EVENTS:
        if event not in ft["events"]:
            continue
        text = filtered.get(event)
        want = ("function != %#x" % address if address is not None else None) if by_address \
            else "function.function != " + PERF_TIMER
        if want is None:
            t.skip_or_fail("/proc/kallsyms hides %s's address: the filter by address cannot be checked" % PERF_TIMER)
        if text != want:
            t.fail("the meta's filter of %s is %r, not %r: %s" % (event, text, want, ft.get("filters")))
        fields = next(f for n, f in formats.values() if n == event)
        if address is not None:
            ours = sum(1 for _, event_id, payload in events
                       if formats[event_id][0] == event
                       and field(payload, fields, "function") & (2 ** 64 - 1) == address)
            if ours:
                t.fail("%d %s events of %s are in the recording" % (ours, event, PERF_TIMER))
    # the kernel's own timers (the scheduler's tick while dd runs) still are
    if by_name is not None and "timer:hrtimer_expire_entry" in ft["events"] \
            and by_name.get("timer:hrtimer_expire_entry", 0) == 0:
        t.fail("the instance recorded no timer expiry at all: %s" % by_name)
    t.log("perf's sampling timer left out: %s" % filtered)


def check_dd(rsp, perf, workdir):
    data = make_file()
    out = os.path.join(workdir, "dd.rsp")
    argv = [rsp, "record", "-o", out, "--", "dd", "if=" + data, "of=/dev/null", "iflag=direct",
            "bs=%d" % BLOCK, "count=%d" % READS]
    t.log("record: " + " ".join(argv))
    rec = t.run(argv, timeout=300, check=False)
    t.log("recorder said:\n" + rec.stderr.strip()[-3000:])
    if rec.returncode != 0:
        t.fail("rsp record exited %d" % rec.returncode)
    if not re.search(r"ftrace: \d+ events, 0 lost", rec.stderr):
        t.fail("the summary line does not report the instance ('ftrace: N events, 0 lost')")
    sections = t.read_trailer(out)
    if "ftrace" not in sections:
        t.fail("the recording has no ftrace section (sections: %s)" % sorted(sections))
    meta = json.loads(sections["meta"])
    ft = meta.get("ftrace")
    if not isinstance(ft, dict):
        t.fail("the meta has no ftrace member: %r" % ft)
    if ft.get("error") is not None:
        t.fail("the meta's ftrace error is set: %s" % ft["error"])
    if ft.get("clock") != "mono" or not re.match(r"rsp-\d+-[0-9a-f]+$", ft.get("instance") or ""):
        t.fail("the meta's ftrace clock/instance: %r / %r" % (ft.get("clock"), ft.get("instance")))
    # other recordings may run at the same time: only this one's instance counts
    if ft["instance"] in rsp_instances():
        t.fail("rsp record ended normally and left its tracefs instance %s" % ft["instance"])
    if "block:block_rq_complete" not in ft.get("events", []) or "sched:sched_waking" not in ft.get("events", []):
        t.fail("the instance did not record block_rq_complete and sched_waking: %s" % ft.get("events"))
    stats = ft.get("cpus") or []
    if len(stats) != os.cpu_count() and len(stats) != len(os.sched_getaffinity(0)):
        t.fail("the meta has statistics for %d CPUs, the machine has %d" % (len(stats), os.cpu_count()))
    lost = sum(c["overrun"] + c["commit_overrun"] + c["dropped_events"] for c in stats)
    if lost != 0:
        t.fail("the instance lost %d events in a small run: %s" % (lost, stats))

    formats, events, n_subbufs, cpus = decode_section(sections["ftrace"])
    if cpus != {c["cpu"]: c["bytes"] for c in stats}:
        t.fail("the section's CPUs and sizes %s are not the meta's %s" % (cpus, stats))
    read_events = sum(c["read_events"] for c in stats)
    if len(events) != read_events:
        t.fail("decoded %d events from %d sub-buffers, the kernel says %d were read"
               % (len(events), n_subbufs, read_events))
    unknown = [e for e in events if e[1] not in formats]
    if unknown:
        t.fail("%d events have a type with no stored format (first id %d)" % (len(unknown), unknown[0][1]))
    by_name = {}
    for _, event_id, _ in events:
        name = formats[event_id][0]
        by_name[name] = by_name.get(name, 0) + 1
    t.log("instance: %d events in %d sub-buffers: %s" % (len(events), n_subbufs, by_name))
    check_perf_timer_left_out(ft, formats, events, by_name)
    check_perf_timer_exits_left_out(ft, formats, events, (int(meta["end_ns"]) - int(meta["start_ns"])) / 1e9)

    dd_pid = meta.get("target_pid")
    waking_fields = next(f for n, f in formats.values() if n == "sched:sched_waking")
    dd_waking = sum(1 for _, event_id, payload in events
                    if formats[event_id][0] == "sched:sched_waking"
                    and field(payload, waking_fields, "pid") == dd_pid)
    complete = by_name.get("block:block_rq_complete", 0)
    perf_complete, perf_waking, d_sleeps = perf_counts(perf, out, dd_pid)
    t.log("block:block_rq_complete: perf %d, instance %d; sched:sched_waking of dd (pid %d): perf %d, instance %d; "
          "dd slept in D %d times" % (perf_complete, complete, dd_pid, perf_waking, dd_waking, d_sleeps))
    if complete < READS:
        t.fail("the instance recorded %d block_rq_complete, dd issued %d reads" % (complete, READS))
    # a wake-up for every wait: a read whose completion came before dd went
    # to sleep (the host's cache behind a virtio disk can be that fast)
    # needs none, and how many did is the disk's business (128 reads slept
    # 33 to 128 times on the same VM); the check needs some waits to mean
    # anything
    if d_sleeps < MIN_SLEEPS:
        t.fail("dd slept waiting for the disk %d times in %d reads, too few to check the wake-ups "
               "(at least %d needed): the disk answered before dd slept" % (d_sleeps, READS, MIN_SLEEPS))
    if dd_waking < d_sleeps:
        t.fail("the instance recorded %d wake-ups of dd, which slept waiting %d times for its %d reads"
               % (dd_waking, d_sleeps, READS))


def start_recording(rsp, workdir, name, seconds=30):
    """rsp record of a sleep, returned once it records (Popen, output path, stderr path)."""
    out = os.path.join(workdir, name + ".rsp")
    err_path = os.path.join(workdir, name + ".err")
    err = open(err_path, "w")
    proc = subprocess.Popen([rsp, "record", "-o", out, "--", "sleep", str(seconds)],
                            stdout=subprocess.DEVNULL, stderr=err)
    err.close()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with open(err_path) as f:
            if "recording the whole system" in f.read():
                break
        if proc.poll() is not None:
            t.fail("rsp record (%s) ended before recording: %s" % (name, open(err_path).read()))
        time.sleep(0.1)
    else:
        proc.kill()
        t.fail("rsp record (%s) did not start recording in 120 s" % name)
    # two: the instance and the live file namer's (docs/RECORDING.md)
    mine = [n for n in rsp_instances() if n.startswith("rsp-%d-" % proc.pid)]
    if len(mine) != 2:
        proc.kill()
        t.fail("while recording, rsp record %d has instances %s, not two" % (proc.pid, rsp_instances()))
    for instance in mine:
        with open(os.path.join(INSTANCES, instance, "tracing_on")) as f:
            if f.read().strip() != "1":
                proc.kill()
                t.fail("while recording, tracing is off in %s" % instance)
    return proc, out, err_path, mine


def check_signals(rsp, workdir):
    for signo in (signal.SIGINT, signal.SIGTERM):
        name = signal.Signals(signo).name
        proc, out, err_path, instances = start_recording(rsp, workdir, name.lower())
        time.sleep(0.5)
        proc.send_signal(signo)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            t.fail("rsp record did not end within 120 s of %s" % name)
        err = open(err_path).read()
        t.log("after %s: exit %d, instances %s" % (name, proc.returncode, rsp_instances()))
        for instance in instances:
            if os.path.isdir(os.path.join(INSTANCES, instance)):
                t.fail("after %s, rsp record left its instance %s\n%s" % (name, instance, err))
        if not os.path.exists(out) or "ftrace" not in t.read_trailer(out):
            t.fail("after %s, the recording or its ftrace section is missing\n%s" % (name, err))

    proc, out, err_path, instances = start_recording(rsp, workdir, "sigkill")
    time.sleep(0.5)
    proc.kill()
    proc.wait()
    # perf dies with rsp (PR_SET_PDEATHSIG); the instances stay: nothing ran
    for instance in instances:
        if not os.path.isdir(os.path.join(INSTANCES, instance)):
            t.fail("after SIGKILL the instance %s is gone: this test no longer shows the stale sweep" % instance)
    t.log("after SIGKILL: %s are left, as expected" % instances)
    deadline = time.monotonic() + 30
    while subprocess.run(["pgrep", "-f", "perf record .*-o %s" % re.escape(out + ".")],
                         capture_output=True).returncode == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    # beside it: one of a pid that is gone (removed), one of a live process
    # called rsp (kept: it may be recording)
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale_fake = "rsp-%d-abc" % gone.pid
    live_rsp = os.path.join(workdir, "rsp")
    shutil.copy("/bin/sleep", live_rsp)
    live = subprocess.Popen([live_rsp, "120"])
    live_fake = "rsp-%d-def" % live.pid
    # the sweep keeps it by its name: wait until the kernel gives it "rsp"
    comm_deadline = time.monotonic() + 10
    while time.monotonic() < comm_deadline:
        try:
            with open("/proc/%d/comm" % live.pid) as f:
                if f.read().strip() == "rsp":
                    break
        except OSError:
            pass
        time.sleep(0.01)
    for fake in (stale_fake, live_fake):
        os.mkdir(os.path.join(INSTANCES, fake))
    second = os.path.join(workdir, "second.rsp")
    rec = t.run([rsp, "record", "-o", second, "--", "true"], timeout=300, check=False)
    if rec.returncode != 0:
        t.fail("the rsp record after the SIGKILL failed (%d): %s" % (rec.returncode, rec.stderr[-2000:]))
    for instance in instances:
        if os.path.isdir(os.path.join(INSTANCES, instance)):
            t.fail("the next rsp record did not remove the stale instance %s:\n%s" % (instance, rec.stderr))
    live_kept = os.path.isdir(os.path.join(INSTANCES, live_fake))
    if live_kept:
        os.rmdir(os.path.join(INSTANCES, live_fake))
    live.kill()
    live.wait()
    if not live_kept:
        t.fail("rsp record removed %s, whose process (an rsp) is alive" % live_fake)
    if os.path.isdir(os.path.join(INSTANCES, stale_fake)):
        os.rmdir(os.path.join(INSTANCES, stale_fake))
        t.fail("rsp record did not remove %s, whose process is gone" % stale_fake)
    if instance not in rec.stderr:
        # another rsp record running meanwhile may have swept it first
        t.log("note: the next rsp record did not report removing %s:\n%s" % (instance, rec.stderr))
    for leftover in os.listdir(workdir):
        if "ftrace-cpu" in leftover:
            t.fail("a temporary file of the instance is left: %s" % leftover)


INSTANCE_EVENTS = [
    "sched:sched_waking", "sched:sched_wakeup", "sched:sched_wakeup_new",
    "block:block_rq_insert", "block:block_rq_issue", "block:block_rq_complete", "block:block_rq_merge",
    "block:block_rq_requeue",
    "irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry", "irq:softirq_exit",
    "sock:sk_data_ready", "sock:inet_sock_set_state",
    "timer:hrtimer_expire_entry", "timer:hrtimer_expire_exit", "timer:hrtimer_start", "timer:hrtimer_cancel",
    # the files behind disk waits (rsp-files.h)
    "readahead:page_cache_sync_ra", "readahead:page_cache_async_ra", "filemap:mm_filemap_fault", "filemap:file_check_and_advance_wb_err",
    "ext4:ext4_sync_file_enter", "writeback:folio_wait_writeback", "writeback:writeback_single_inode_start",
    "iomap:iomap_dio_rw_begin",
]


def kernel_has(event):
    """Whether this kernel has EVENT ("system:name") in tracefs."""
    system, name = event.split(":", 1)
    return any(os.path.isdir(os.path.join(root, "events", system, name))
               for root in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"))


def check_degraded(rsp, workdir):
    """An event missing from the kernel is noted and the rest recorded; with
    none of them the channel is off: one warning naming what is lost, and
    the recording goes on with perf alone."""
    out = os.path.join(workdir, "one-missing.rsp")
    # and a kernel whose event filters do not know ".function" (older than ours)
    env = dict(os.environ, RSP_RECORD_PRETEND_MISSING="timer:hrtimer_cancel,filter:function")
    # a second long: perf's timers would have 1000 exits a second on each CPU
    rec = t.run([rsp, "record", "-o", out, "--", "sleep", "1"], timeout=300, check=False, env=env)
    if rec.returncode != 0:
        t.fail("rsp record with timer:hrtimer_cancel missing exited %d: %s" % (rec.returncode, rec.stderr[-2000:]))
    if not re.search(r"timer:hrtimer_cancel missing in the tracefs instance", rec.stderr):
        t.fail("no line says timer:hrtimer_cancel is missing in the instance:\n" + rec.stderr)
    sections = t.read_trailer(out)
    ft = json.loads(sections["meta"])["ftrace"]
    absent = [e for e in INSTANCE_EVENTS if not kernel_has(e)]
    if "timer:hrtimer_cancel" in ft["events"] \
            or sorted(m["name"] for m in ft["missing_events"]) != sorted(["timer:hrtimer_cancel"] + absent):
        t.fail("the meta's events / missing events are wrong: %s / %s (absent from this kernel: %s)"
               % (ft["events"], ft["missing_events"], absent))
    formats, events = decode_section(sections["ftrace"])[:2]
    check_perf_timer_left_out(ft, formats, events, None, by_address=True)
    meta = json.loads(sections["meta"])
    check_perf_timer_exits_left_out(ft, formats, events, (int(meta["end_ns"]) - int(meta["start_ns"])) / 1e9)
    if "timer:hrtimer_cancel" in {n for n, _ in formats.values()} \
            or len(formats) != len(INSTANCE_EVENTS) - 1 - len(absent):
        t.fail("the section's formats are not the enabled events: %s" % sorted(n for n, _ in formats.values()))

    out = os.path.join(workdir, "off.rsp")
    env = dict(os.environ, RSP_RECORD_PRETEND_MISSING=",".join(INSTANCE_EVENTS))
    rec = t.run([rsp, "record", "-o", out, "--", "true"], timeout=300, check=False, env=env)
    if rec.returncode != 0:
        t.fail("rsp record without the instance exited %d: %s" % (rec.returncode, rec.stderr[-2000:]))
    warnings = [line for line in rec.stderr.splitlines() if "tracefs instance is off" in line]
    if len(warnings) != 1 or "block completions and wake-ups from interrupts may be missing" not in warnings[0]:
        t.fail("not one warning naming what is lost:\n" + rec.stderr)
    if "ftrace: off" not in rec.stderr:
        t.fail("the summary line does not say the instance was off:\n" + rec.stderr)
    sections = t.read_trailer(out)
    ft = json.loads(sections["meta"])["ftrace"]
    if "ftrace" in sections or not ft.get("error") or ft.get("events") or ft.get("cpus"):
        t.fail("with the channel off: sections %s, meta %s" % (sorted(sections), ft))
    t.log("degraded: one event missing, then the channel off: %s" % warnings[0])


def main():
    perf = t.require_perf_and_root()
    rsp = t.rsp_path()
    if not os.path.isdir(INSTANCES):
        t.skip_or_fail("%s has no instances directory (tracefs not mounted there?)" % TRACEFS)
    workdir = tempfile.mkdtemp(prefix="rsp-test-ftrace-", dir=os.environ.get("RSP_BUILD_ROOT"))
    check_dd(rsp, perf, workdir)
    check_degraded(rsp, workdir)
    check_signals(rsp, workdir)
    t.log("PASS")


if __name__ == "__main__":
    main()
