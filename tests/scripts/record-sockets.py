#!/usr/bin/env python3
"""Local sockets are recorded in part (root and perf).

A workload exchanges EXCHANGES messages over TCP on 127.0.0.1 and as many
over an AF_UNIX socket pair.  rsp record keeps the local socket's events
out: perf's sock:sock_send_length and sock:sock_recv_length and the
instance's sock:sk_data_ready are recorded "only where family != 1"
(rsp_probe_event_filter()), the TCP ones all.

  1. Default: `rsp dump --stats` says each of the three is recorded in
     part; `rsp dump` has every TCP send and receive (2 x EXCHANGES each)
     and no event of family 1; the health of perf's two sock events is
     complete (their counters count with the same filter: what the filter
     leaves out is not a loss); the meta's perf_filters and perf_argv
     carry the filter.
  2. RSP_RECORD_PRETEND_MISSING=filter:family (a kernel whose events have
     no family field): recorded whole, the local socket's events among
     them, no "recorded in part" for them, and the health complete.

Skipped, saying so, on a kernel without the socket events (before 6.3).
"""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

EXCHANGES = 200
SOCK_EVENTS = ("sock:sock_send_length", "sock:sock_recv_length", "sock:sk_data_ready")

WORKLOAD = r"""
import socket, sys, threading
n = int(sys.argv[1])
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(1)
def serve():
    conn, _ = listener.accept()
    for _ in range(n):
        conn.sendall(conn.recv(64))
    conn.close()
server = threading.Thread(target=serve)
server.start()
client = socket.create_connection(listener.getsockname())
client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
for _ in range(n):
    client.sendall(b"x" * 16)
    got = 0
    while got < 16:
        got += len(client.recv(64))
    a.send(b"y")
    b.recv(8)
server.join()
"""


def sock_lines(rsp, path):
    """{event: [line, ...]} of the three sock events in rsp dump."""
    lines = {e: [] for e in SOCK_EVENTS}
    for line in t.run([rsp, "dump", path], timeout=120).stdout.splitlines():
        m = re.search(r" (sock:[a-z_]+)(?:@ftrace)?: ", line)
        if m and m.group(1) in lines:
            lines[m.group(1)].append(line)
    return lines


def is_local(line):
    """A local socket's event: family 1 (printed as a number where the
    format names only AF_INET and AF_INET6)."""
    return re.search(r"family ?= ?(1|0x1|AF_UNIX|AF_LOCAL)\b", line) is not None


def health_of(stats, event):
    m = re.search(r"^\s+%s\s+(\d+)\s+(\d+)\s" % re.escape(event), stats, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else None


def record(rsp, directory, name):
    out = os.path.join(directory, name)
    script = os.path.join(directory, "exchange.py")
    with open(script, "w") as f:
        f.write(WORKLOAD)
    t.record([rsp, "record", "-o", out, "--", sys.executable, script, str(EXCHANGES)])
    return out


def kernel_lacks_events():
    """The socket events this kernel does not have (they came in Linux 6.3)."""
    return [e for e in SOCK_EVENTS
            if not os.path.exists(os.path.join("/sys/kernel/tracing/events", *e.split(":"), "format"))]


def main():
    t.require_perf_and_root()
    rsp = t.rsp_path()
    missing = kernel_lacks_events()
    if missing:
        t.skip("this kernel has no %s (Linux 6.3 and later have them): nothing to leave out"
               % ", ".join(missing))
    with tempfile.TemporaryDirectory(prefix="rsp-sockets-") as d:
        os.environ.pop("RSP_RECORD_PRETEND_MISSING", None)
        path = record(rsp, d, "filtered.rsp")
        stats = t.run([rsp, "dump", "--stats", path]).stdout
        for event in SOCK_EVENTS:
            if "recorded in part: %s, only where family != 1" % event not in stats:
                t.fail("rsp dump --stats does not say %s is recorded in part:\n%s" % (event, stats))
        lines = sock_lines(rsp, path)
        for event in SOCK_EVENTS:
            local = [l for l in lines[event] if is_local(l)]
            if local:
                t.fail("%d %s events of a local socket were recorded, e.g. %s" % (len(local), event, local[0]))
        inet = {e: [l for l in lines[e] if "AF_INET" in l or "family=2" in l] for e in SOCK_EVENTS}
        for event in ("sock:sock_send_length", "sock:sock_recv_length"):
            if len(inet[event]) < 2 * EXCHANGES:
                t.fail("%s: %d TCP events recorded, the workload made %d at least"
                       % (event, len(inet[event]), 2 * EXCHANGES))
        if len(inet["sock:sk_data_ready"]) < 2 * EXCHANGES:
            t.fail("sock:sk_data_ready: %d TCP events recorded, %d at least expected"
                   % (len(inet["sock:sk_data_ready"]), 2 * EXCHANGES))
        for event in ("sock:sock_send_length", "sock:sock_recv_length"):
            h = health_of(stats, event)
            if h is None or h[0] != h[1]:
                t.fail("%s: health (counted, recorded) %r: the counter must count what perf records" % (event, h))
        meta = t.read_meta(path)
        filtered = {f["event"]: f["filter"] for f in meta.get("perf_filters", [])}
        # perf records the three but those the instance took over
        ftrace = meta.get("ftrace") or {}
        instance = set(ftrace.get("events") or []) if not ftrace.get("error") else set()
        want = {e: "family != 1" for e in SOCK_EVENTS if e not in instance}
        if filtered != want:
            t.fail("the meta's perf_filters are %r, not %r" % (filtered, want))
        argv = " ".join(meta.get("perf_argv", []))
        if "sock:sock_send_length/call-graph=no/ --filter family != 1" not in argv:
            t.fail("perf's command line has no filter after sock_send_length: %s" % argv)
        t.log("filtered: %s" % ", ".join("%s %d TCP" % (e, len(inet[e])) for e in SOCK_EVENTS))

        os.environ["RSP_RECORD_PRETEND_MISSING"] = "filter:family"
        try:
            whole = record(rsp, d, "whole.rsp")
        finally:
            os.environ.pop("RSP_RECORD_PRETEND_MISSING", None)
        stats = t.run([rsp, "dump", "--stats", whole]).stdout
        if "only where family" in stats:
            t.fail("a recording made whole still says it is recorded in part:\n%s" % stats)
        lines = sock_lines(rsp, whole)
        for event in SOCK_EVENTS:
            local = [l for l in lines[event] if is_local(l)]
            if len(local) < EXCHANGES:
                t.fail("recorded whole, %s has %d events of the local socket, the workload made %d at least"
                       % (event, len(local), EXCHANGES))
        for event in ("sock:sock_send_length", "sock:sock_recv_length"):
            h = health_of(stats, event)
            if h is None or h[1] < h[0]:
                t.fail("%s recorded whole: health (counted, recorded) %r" % (event, h))
        if t.read_meta(whole).get("perf_filters"):
            t.fail("a recording made whole has perf_filters in its meta")
        t.log("whole: %s" % ", ".join("%s %d local" % (e, len([l for l in lines[e] if is_local(l)]))
                                      for e in SOCK_EVENTS))
    t.log("PASS")


if __name__ == "__main__":
    main()
