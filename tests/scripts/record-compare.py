#!/usr/bin/env python3
"""Records a workload and checks `rsp dump` against `perf script` on the
same file.

  record-compare.py --mode rsp|perf WORKLOAD_EXE [ARGS...]

--mode rsp records with `rsp record -o X.rsp -- WORKLOAD`; --mode perf with
the README's plain `perf record` command line.  Then, on that one file:
  * the same number of samples per event (rsp dump vs perf script), and the
    same count of every kernel record type (vs perf report --stats);
  * matched as multisets keyed by (time ns, cpu, tid, event): the same pid,
    comm, tracepoint field text (or cpu-clock period), number of frames,
    kernel frames (address and name) and workload-binary frame names;
  * the workload's named functions are on the stacks, and the events that
    the workload exists for are there (fork/exec, pipe wake-ups, block
    requests, socket sends).
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402


def count_fields(events, event, pattern, comm=None):
    rx = re.compile(pattern)
    return sum(1 for e in events if e.event == event and rx.search(e.fields)
               and (comm is None or e.comm == comm))


def check_pingpong(events, workload_args):
    passes = int(workload_args[0]) if workload_args else 1000
    forks = count_fields(events, "sched:sched_process_fork", r"comm=pingpong ")
    wakes = count_fields(events, "sched:sched_waking", r"^comm=pingpong ", comm="pingpong")
    problems = []
    if forks < 1:
        problems.append("no sched_process_fork from pingpong")
    # Each pass wakes the other side through a pipe; perf may lose a few.
    if wakes < passes // 2:
        problems.append("only %d pingpong->pingpong sched_waking for %d passes" % (wakes, passes))
    return problems


def check_forkexec(events, workload_args):
    children = int(workload_args[0]) if workload_args else 12
    execs = count_fields(events, "sched:sched_process_exec", r"filename=\S*forkexec ")
    forks = count_fields(events, "sched:sched_process_fork", r"comm=forkexec ")
    exits = count_fields(events, "sched:sched_process_exit", r"comm=forkexec ")
    problems = []
    # The first exec is the workload itself; the children follow.
    if execs < children + 1:
        problems.append("%d execs of forkexec, expected %d" % (execs, children + 1))
    if forks < children:
        problems.append("%d forks from forkexec, expected %d" % (forks, children))
    if exits < children + 1:
        problems.append("%d exits of forkexec, expected %d" % (exits, children + 1))
    return problems


def check_dio_read(events, workload_args):
    issues = count_fields(events, "block:block_rq_issue", r" R\S* ", comm="dio_read")
    problems = []
    # 2 x 4 MiB of O_DIRECT reads: at least 64 requests even if the device
    # merges them to 128 KiB.
    if issues < 64:
        problems.append("only %d block_rq_issue reads from dio_read" % issues)
    return problems


def check_tcp_loop(events, workload_args):
    trips = int(workload_args[0]) if workload_args else 500
    sends = count_fields(events, "sock:sock_send_length", r"", comm="tcp_loop")
    recvs = count_fields(events, "sock:sock_recv_length", r"", comm="tcp_loop")
    states = count_fields(events, "sock:inet_sock_set_state", r"127\.0\.0\.1")
    problems = []
    if sends < trips:
        problems.append("%d sock_send_length from tcp_loop for %d round trips" % (sends, trips))
    if recvs < trips:
        problems.append("%d sock_recv_length from tcp_loop for %d round trips" % (recvs, trips))
    if states < 2:
        problems.append("no inet_sock_set_state on 127.0.0.1")
    return problems


def check_cxx_spin(events, workload_args):
    samples = [e for e in events if e.event.startswith("cpu-clock") and e.comm == "cxx_spin"]
    return [] if len(samples) >= 20 else ["only %d cpu-clock samples of cxx_spin" % len(samples)]


WORKLOADS = {
    # name: (functions that must be on stacks, semantic check)
    "cxx_spin": (["rsp_cxx::Spinner::spin", "rsp_cxx::accumulate<long>", "rsp_cxx::accumulate<double>"],
                 check_cxx_spin),
    "pingpong": (["pingpong_work"], check_pingpong),
    "forkexec": (["forkexec_work", "forkexec_child_work"], check_forkexec),
    "dio_read": (["dio_read_work"], check_dio_read),
    "tcp_loop": (["tcp_client_work", "tcp_server_work", "tcp_compute"], check_tcp_loop),
}


def dio_directory():
    """O_DIRECT needs a disk file system: not tmpfs."""
    for d in [os.environ.get("RSP_TEST_DIO_DIR"), "/var/tmp", os.environ.get("RSP_BUILD_ROOT")]:
        if not d or not os.path.isdir(d):
            continue
        fstype = subprocess.run(["stat", "-f", "-c", "%T", d], capture_output=True,
                                text=True).stdout.strip()
        if fstype not in ("tmpfs", "ramfs", "overlayfs"):
            return d
    t.skip_or_fail("no directory on a disk file system for O_DIRECT (set RSP_TEST_DIO_DIR)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["rsp", "perf"], required=True)
    ap.add_argument("workload")
    ap.add_argument("args", nargs="*")
    opts = ap.parse_args()

    perf = t.require_perf_and_root()
    rsp = t.rsp_path()
    name = os.path.basename(opts.workload)
    if name not in WORKLOADS:
        t.fail("unknown workload %s" % name)
    required, check = WORKLOADS[name]
    workload_args = list(opts.args)
    if name == "dio_read" and not workload_args:
        workload_args = [dio_directory()]
    command = [opts.workload] + workload_args

    workdir = tempfile.mkdtemp(prefix="rsp-test-%s-%s-" % (name, opts.mode),
                               dir=os.environ.get("RSP_BUILD_ROOT"))
    out = os.path.join(workdir, name + (".rsp" if opts.mode == "rsp" else ".perf.data"))
    if opts.mode == "rsp":
        argv = [rsp, "record", "-o", out, "--"] + command
    else:
        argv = t.perf_record_argv(perf, out, command)
    t.log("record: " + " ".join(argv))
    start = time.monotonic()
    rec = t.run(argv, timeout=300, check=False)
    t.log("recorded in %.2f s, %d bytes" % (time.monotonic() - start,
                                           os.path.getsize(out) if os.path.exists(out) else -1))
    if rec.returncode != 0 or not os.path.exists(out):
        t.fail("recording failed (exit %d)\nstdout: %s\nstderr: %s"
               % (rec.returncode, rec.stdout[-3000:], rec.stderr[-3000:]))
    if rec.stderr.strip():
        t.log("recorder said:\n" + rec.stderr.strip()[-3000:])

    start = time.monotonic()
    dump = t.run([rsp, "dump", out], timeout=300, check=False)
    rsp_seconds = time.monotonic() - start
    if dump.returncode != 0:
        t.fail("rsp dump exited %d: %s" % (dump.returncode, dump.stderr[-3000:]))
    if dump.stderr.strip():
        t.log("rsp dump said:\n" + dump.stderr.strip()[-2000:])
    start = time.monotonic()
    script = t.run([perf, "script", "--force", "-i", out, "-F", t.PERF_SCRIPT_FIELDS, "--ns"],
                   timeout=300)
    perf_seconds = time.monotonic() - start
    stats = t.run([perf, "report", "--force", "--stats", "-i", out], timeout=300)
    t.log("rsp dump %.2f s, perf script %.2f s" % (rsp_seconds, perf_seconds))
    for fname, text in [("rsp-dump.txt", dump.stdout), ("perf-script.txt", script.stdout),
                        ("perf-stats.txt", stats.stdout)]:
        with open(os.path.join(workdir, fname), "w") as f:
            f.write(text)

    perf_events, perf_bad = t.parse_perf_script(script.stdout)
    rsp_events, rsp_records, rsp_bad = t.parse_rsp_dump(dump.stdout)
    perf_stats = t.parse_perf_stats(stats.stdout)
    problems = []
    if perf_bad:
        problems.append("%d perf script lines not understood by the test, first: %r"
                        % (len(perf_bad), perf_bad[0]))
    if rsp_bad:
        problems.append("%d rsp dump lines not in the documented format, first: %r"
                        % (len(rsp_bad), rsp_bad[0]))
    if not perf_events:
        problems.append("perf script printed no samples")
    problems += t.compare_samples(perf_events, rsp_events, name)
    problems += t.compare_records(perf_stats, rsp_records)

    on_stacks = t.functions_on_stacks(rsp_events, name)
    perf_on_stacks = t.functions_on_stacks(perf_events, name)
    t.log("workload functions on rsp dump stacks: %s" % dict(on_stacks.most_common(10)))
    for fn in required:
        if on_stacks[fn] == 0:
            problems.append("%s is on no stack in rsp dump (perf script: %d)"
                            % (fn, perf_on_stacks[fn]))
    # What the workload did, in the whole merged sequence: events that RSP's
    # tracefs instance records instead of perf (block_rq_issue,
    # inet_sock_set_state...) count as much as perf's.
    merged, _, _ = t.parse_rsp_dump(dump.stdout, with_ftrace=True)
    for e in merged:
        if e.event.endswith("@ftrace"):
            e.event = e.event[:-len("@ftrace")]
    problems += check(merged, workload_args if name != "dio_read" else [])
    # the model's contract on this recording too (a plain perf.data names the workload)
    problems += t.check_report(rsp, out, [] if opts.mode == "rsp" else ["--comm", name])

    counts = collections.Counter(e.event for e in rsp_events)
    t.log("samples per event: %s" % dict(sorted(counts.items())))
    t.log("records: %s" % dict(sorted(rsp_records.items())))
    if problems:
        t.log("kept the recording and both outputs in " + workdir)
        t.fail("%d problem(s):\n%s" % (len(problems), "\n".join(problems)))
    shutil.rmtree(workdir, ignore_errors=True)
    t.log("PASS: %d samples and %d other records agree" % (len(rsp_events), sum(rsp_records.values())))


if __name__ == "__main__":
    main()
