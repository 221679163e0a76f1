#!/usr/bin/env python3
"""Writes docs/EVALUATION.md: RSP's accounting of the evaluation scenarios,
beside the figures of the RSP paper's evaluation table.

Usage:
  scenarios/evaluate.py [--out-dir build/scenarios] [--doc docs/EVALUATION.md]
                        [--rsp build/src/rsp] [--images docs/evaluation]
                        [--keep-going]

For every scenario (scenarios/NAME.sh) whose recording NAME.rsp is in the
output directory, it runs `rsp report --json NAME.rsp` afresh (so the
document matches the current model, not the report written at recording
time), `rsp dump --stats NAME.rsp` (where and how it was recorded) and
renders the chronological flame view and the process running view to
IMAGES/NAME-flame.png and IMAGES/NAME-timeline.png.  Scenarios without a
recording are listed as "not recorded" with the command that records them;
nothing is ever invented for them.

The document has one table (our categories, in docs/REPORT-JSON.md's order, with the
paper's column beside each scenario that has one) and one section per
scenario: what it does, its figures, its control paths, its five largest
findings and an interpretation computed from the report.

It prints one line per scenario (percent accounted) and exits 1 when an rsp
command fails, without writing the document unless --keep-going is given.
Standalone: Python 3.11 standard library only.
"""

import argparse
import collections
import datetime
import json
import os
import re
import shlex
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---------------------------------------------------------------------------
# The scenarios, in the table's order.

SCENARIOS = [
    {
        "name": "pass",
        "paper": None,
        "about": (
            "The paper's toy program: two processes (`pass` and its child `pass_peer`) "
            "hand one unit of work back and forth over pipes and compute in turn "
            "(`tests/model/workloads/pass.c`, built with the project). Nothing is installed "
            "or configured. It is the baseline of the evaluation: nearly all of its time "
            "should be CPU time in `pass_work`, alternating between the two processes on "
            "one control path. The paper has no column for it."),
    },
    {
        "name": "web-request",
        "paper": "Squirrelmail",
        "about": (
            "One web request served by several cooperating daemons on loopback, after the "
            "paper's Squirrelmail case: `curl` (the process of interest) asks nginx for a "
            "page, nginx hands it to PHP (php-fpm), and the PHP script talks IMAP to "
            "Dovecot, whose `imap-login` process has the login checked by its `auth` "
            "process before an `imap` process serves the mailbox. In the paper, half of "
            "the request's time was in `auth`, most of it syncing the disk."),
    },
    {
        "name": "xterm-launch",
        "paper": "xterm launch",
        "about": (
            "The paper's application launch: `xterm -e sleep 0.2` on a private X server "
            "(Xvfb) with a window manager (openbox), from exec to exit. xterm connects to "
            "the X server, the window manager maps and decorates its window, `sleep` runs "
            "in the terminal for 200 ms, and xterm tears the window down again."),
    },
    {
        "name": "build",
        "paper": "make",
        "about": (
            "The paper's make of a protobuf object file: make runs `protoc` on a `.proto` "
            "file (the address book of protobuf's tutorial, with a few more messages), "
            "then `g++` (`cc1plus`, `as`) on the generated C++ to a `.o`. The page cache "
            "is dropped first, so the build reads protoc, the compiler and the protobuf "
            "headers from the disk, as in the paper."),
    },
    {
        "name": "database",
        "paper": "SpatialTable",
        "about": (
            "PostgreSQL under load on loopback: a private cluster serves a pgbench "
            "(TPC-B-like) database; a background pgbench keeps many connections busy "
            "(24 by default), and one more pgbench client, the process of interest, runs "
            "its transactions over its own connection. Its time crosses into its server "
            "backend, the WAL writer and the disk, and it queues behind the other "
            "connections for the CPUs and for locks. The paper's closest column is "
            "SpatialTable, a distributed bigtable-like research database with 128 worker "
            "threads: a different database, shown beside for scale only."),
    },
    {
        "name": "media",
        "paper": "MPlayer",
        "about": (
            "Playback with deadlines, after the paper's MPlayer case: ffmpeg generates a "
            "few seconds of 720x408 AVI (MPEG-4 part 2 video in the DivX 5 format and MP3 "
            "audio, like the paper's file) and `mpv` plays it to the null audio and video "
            "outputs, which keep real-time pace: the decoder threads work ahead and the "
            "player waits until each frame's presentation time."),
    },
]

# Accounting categories of docs/REPORT-JSON.md, in its order (the JSON's labels win
# when the report has them).
CATEGORIES = [
    ("cpu_sampled", "In understood functions"),
    ("cpu_unsampled", "Running but not sampled"),
    ("disk_io", "In blocking disk I/O"),
    ("io_queue", "I/O queue overhead"),
    ("network", "Waiting for the network"),
    ("scheduler", "Scheduler overhead"),
    ("preempted", "Involuntary sleeps"),
    ("hardware", "Waits \"for\" hardware"),
    ("timeout", "Waits that timed out"),
    ("sleep", "Deliberate sleeps"),
    ("kernel_misc", "Miscellaneous kernel blocks"),
    ("other_path", "Waiting on other path"),
    ("unaccounted", "Unaccounted"),
]
CATEGORY_IDS = [c for c, _ in CATEGORIES]

# The paper's table "Categories of Explanation for Various Tasks" (ms), as
# printed there.  Keys are our ids; network and sleep have no paper row.
PAPER_COLUMNS = ["Squirrelmail", "xterm launch", "SpatialTable", "make", "MPlayer"]
PAPER = {
    "processes": ["18", "13", "133", "12", "17"],
    "wall": ["265", "315", "74", "4438", "2180"],
    "total": ["269", "603", "89", "4712", "4481"],
    "cpu_sampled": ["84", "86", "61", "1526", "324"],
    "disk_io": ["125", "0", "0", "2845", "250"],
    "cpu_unsampled": ["10", "66", "24", "77", "130"],
    "io_queue": ["49", "0", "0", "47", "0.41"],
    "scheduler": ["0.96", "3.2", "4.6", "21", "29"],
    "hardware": ["0", "0", "0", "0", "16"],
    "preempted": ["0.18", "0.23", "0.09", "4.0", "10"],
    "kernel_misc": ["0.05", "0.64", "0", "0.26", "0"],
    "timeout": ["0", "226", "0", "0", "3568"],
    "other_path": ["0", "191", "0", "7", "10"],
    "accounted": ["268", "573", "89", "4526", "4339"],
    "unaccounted": ["1.2", "29", "0.28", "185", "142"],
    "percent": ["99.6", "95.2", "99.7", "96.1", "96.8"],
}
# The paper's row names, for the mapping note.
PAPER_ROW_NAMES = {
    "cpu_sampled": "In understood functions",
    "disk_io": "In blocking I/O",
    "cpu_unsampled": "Running but not sampled",
    "io_queue": "I/O queue overhead",
    "scheduler": "Scheduler overhead",
    "hardware": "Waits \"for\" hardware",
    "preempted": "Involuntary sleeps",
    "kernel_misc": "Miscellaneous kernel blocks",
    "timeout": "Waits that timed out",
    "other_path": "Waiting on other path",
}

# Below this, a scenario's section says prominently that it needs
# investigation (the paper's lowest was 95.2%).
MIN_ACCOUNTED_PERCENT = 95.0

# Frames of the calls that write a file back to the disk.
SYNC_FRAME = re.compile(r"fsync|fdatasync|sync_file_range|msync|\bsync\b|syncfs|XLogFlush|issue_xlog_fsync",
                        re.IGNORECASE)

FLAME_SIZE = "1600x700"
TIMELINE_SIZE = "1600x700"


class RspError(Exception):
    """An rsp command failed; the message says which and why."""


# ---------------------------------------------------------------------------
# Running things


def run_rsp(rsp, args, timeout=900):
    """Runs RSP with ARGS and returns its stdout; raises RspError."""
    argv = [rsp] + args
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=timeout)
    except FileNotFoundError:
        raise RspError("no rsp executable at %s (build it: meson setup build && ninja -C build, or give --rsp)"
                       % rsp)
    except subprocess.TimeoutExpired:
        raise RspError("%s timed out after %d s" % (shlex.join(argv), timeout))
    if proc.returncode != 0:
        lines = (proc.stderr.strip() or proc.stdout.strip() or "no message").splitlines()
        for line in lines[:-1]:
            print("  " + line, file=sys.stderr)
        # rsp's last line says why it stopped; the lines before are warnings.
        raise RspError("`%s` exited with status %d: %s"
                       % (shlex.join([rel(rsp)] + [rel(a) if os.path.exists(a) else a for a in args]),
                          proc.returncode, lines[-1]))
    return proc.stdout


def command_output(argv):
    """First line of ARGV's output, or None when it cannot run."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    out = proc.stdout.strip().splitlines()
    return out[0].strip() if out else None


def machine_facts():
    """What the generating machine is, gathered now."""
    cpu_model = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu_model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "kernel": os.uname().release,
        "perf": command_output(["perf", "version"]) or "perf not found",
        "cpus": os.cpu_count(),
        "cpu_model": cpu_model,
        "commit": command_output(["git", "-C", REPO, "rev-parse", "--short", "HEAD"]),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def parse_dump_stats(text):
    """The facts `rsp dump --stats` prints about a recording: where it was
    recorded, the command, and the events that lost records."""
    info = {"recorded_on": None, "command": None, "run": None, "losses": [], "advice": []}
    in_health = False
    for line in text.splitlines():
        if line.startswith("recorded on:"):
            info["recorded_on"] = line.split(":", 1)[1].strip()
        elif line.startswith("command:"):
            command = line.split(":", 1)[1].strip()
            m = re.match(r"^(.*) \((pid .*)\)$", command)
            info["command"], info["run"] = (m.group(1), m.group(2)) if m else (command, None)
        elif line.startswith("health"):
            in_health = True
        elif in_health:
            m = re.match(r"^\s+(\S+)\s+(\d+)\s+(\d+)\s+([\d.]+)%\s+LOSS", line)
            if m:
                info["losses"].append((m.group(1), float(m.group(4))))
            elif line.strip() and not line.startswith(" "):
                in_health = False
            elif line.strip() and not re.match(r"^\s+\S+\s+\d+\s+\d+\s+[\d.]+%", line):
                info["advice"].append(line.strip())
    return info


# ---------------------------------------------------------------------------
# Formatting


def fmt_ms(v):
    """A time in ms with the paper's kind of precision."""
    if v is None:
        return "—"
    if v == 0:
        return "0"
    a = abs(v)
    if a < 0.01:
        return "<0.01"
    if a < 1:
        return "%.2f" % v
    if a < 100:
        return "%.1f" % v
    return "%.0f" % v


def n_paths(n):
    return "1 control path" if n == 1 else "%d control paths" % n


def ms(v):
    return fmt_ms(v) + " ms"


def pct(part, whole):
    """PART as a percentage of WHOLE, formatted."""
    if not whole:
        return "—"
    p = 100.0 * part / whole
    if p == 0:
        return "0%"
    if p < 0.1:
        return "<0.1%"
    return "%.1f%%" % p


def md(text):
    """Escapes TEXT for Markdown prose and table cells.  Underscores inside
    a word (pass_work, __GI___libc_write) cannot start emphasis and stay
    as they are, so that the source stays readable."""
    text = str(text)
    for ch in "\\`*[]|":
        text = text.replace(ch, "\\" + ch)
    text = re.sub(r"(?<![A-Za-z0-9_])_+|_+(?![A-Za-z0-9_])", lambda m: "\\_" * len(m.group()), text)
    return text.replace("<", "&lt;").replace(">", "&gt;")


def shorten_signatures(text, limit=40):
    """Replaces long parenthesised parts (C++ argument lists) by (…)."""
    out = []
    i = 0
    while i < len(text):
        if text[i] == "(":
            depth, j = 0, i
            while j < len(text):
                if text[j] == "(":
                    depth += 1
                elif text[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j < len(text) and j - i - 1 > limit:
                out.append("(…)")
                i = j + 1
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


def rel(path, start=None):
    """PATH relative to START (default: the repository) when inside it."""
    start = start or REPO
    path = os.path.abspath(path)
    r = os.path.relpath(path, start)
    return path if r.startswith("..") and start == REPO else r


def display_command(command):
    """COMMAND (a shell-quoted line) with paths inside this checkout made
    relative to it, so that the document does not name the build machine's
    directories."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    out = []
    for w in words:
        if os.path.isabs(w):
            n = os.path.normpath(w)
            if n == REPO or n.startswith(REPO + os.sep):
                w = os.path.relpath(n, REPO)
        out.append(w)
    return shlex.join(out)


def task_name(t):
    return "%s[%d]" % (t["comm"], t["pid"] if t["pid"] == t["tid"] else t["tid"])


def render_path(finding):
    """A finding's path as "curl → nginx → php-fpm → auth"; a hop of the same
    name as the one before it gets its pid; a network peer is shown after the
    hop that waited for it."""
    hops = finding.get("path") or [dict(finding["task"], frame=finding.get("frame"))]
    parts = []
    prev = None
    for hop in hops:
        if prev is not None and (hop["pid"], hop["tid"]) == (prev["pid"], prev["tid"]):
            continue
        name = hop["comm"]
        if prev is not None and hop["comm"] == prev["comm"]:
            name = "%s[%d]" % (hop["comm"], hop["pid"])
        if hop.get("endpoint"):
            name += " (%s)" % hop["endpoint"]
        parts.append(md(name))
        prev = hop
    return " → ".join(parts)


# ---------------------------------------------------------------------------
# Reading a report


class Report:
    """One scenario's `rsp report --json`, with the sums the sections use."""

    def __init__(self, data):
        self.data = data
        self.acc = data["accounting"]
        self.total = self.acc["total_ms"]
        self.wall = self.acc["wall_ms"]
        self.cats = {c["id"]: c["ms"] for c in self.acc["categories"]}
        self.labels = {c["id"]: c.get("label") or c["id"] for c in self.acc["categories"]}
        self.findings = data.get("findings") or []
        self.paths = data.get("control_paths") or []
        self.target = data.get("target") or {}

    def cat(self, cid):
        return self.cats.get(cid, 0.0)

    def label(self, cid):
        return self.labels.get(cid) or dict(CATEGORIES).get(cid, cid)

    def processes(self):
        return len({t["pid"] for p in self.paths for t in p["tasks"]})

    def by_comm(self):
        """Total time per process name over all control paths."""
        out = collections.Counter()
        for p in self.paths:
            for t in p["tasks"]:
                out[t["comm"]] += t["ms"]
        return out

    def by_pid(self):
        """Total time per process (pid), with its busiest name."""
        ms_ = collections.Counter()
        names = collections.defaultdict(collections.Counter)
        for p in self.paths:
            for t in p["tasks"]:
                ms_[t["pid"]] += t["ms"]
                names[t["pid"]][t["comm"]] += t["ms"]
        return {pid: (names[pid].most_common(1)[0][0], v) for pid, v in ms_.items()}

    def pids_of(self, pred):
        return sorted({t["pid"] for p in self.paths for t in p["tasks"] if pred(t)})

    def time_of(self, pred, path_ids=None):
        return sum(t["ms"] for p in self.paths if path_ids is None or p["id"] in path_ids
                   for t in p["tasks"] if pred(t))

    def find(self, categories=None, comm=None, pred=None):
        """Findings of those categories (and task name, and predicate)."""
        out = []
        for f in self.findings:
            if categories is not None and f["category"] not in categories:
                continue
            if comm is not None and not comm(f["task"]["comm"]):
                continue
            if pred is not None and not pred(f):
                continue
            out.append(f)
        return out

    def findings_ms(self, **kw):
        return sum(f["ms"] for f in self.find(**kw))

    def findings_coverage(self):
        return sum(f["ms"] for f in self.findings)

    def smallest_finding(self):
        return self.findings[-1]["ms"] if self.findings else 0.0

    def contract_problems(self):
        """Where the report breaks the JSON contract of docs/REPORT-JSON.md (none expected)."""
        problems = []
        ids = [c["id"] for c in self.acc["categories"]]
        if ids != CATEGORY_IDS:
            problems.append("categories are %s, docs/REPORT-JSON.md lists %s" % (ids, CATEGORY_IDS))
        s = sum(self.cats.values())
        if abs(s - self.total) > 0.01 * len(ids):
            problems.append("categories add up to %.3f ms, total_ms is %.3f ms" % (s, self.total))
        if abs(self.acc["accounted_ms"] + self.acc["unaccounted_ms"] - self.total) > 0.01:
            problems.append("accounted_ms + unaccounted_ms is not total_ms")
        paths_ms = sum(t["ms"] for p in self.paths for t in p["tasks"])
        if self.paths and abs(paths_ms - self.total) > max(0.01 * len(self.paths), 0.001 * self.total):
            problems.append("control path tasks add up to %.3f ms, total_ms is %.3f ms" % (paths_ms, self.total))
        fms = [f["ms"] for f in self.findings]
        if any(a < b for a, b in zip(fms, fms[1:])):
            problems.append("findings are not sorted by ms")
        return problems


def share_list(counter, total, limit=8, min_ms=0.0):
    """"name 12.3 ms (4.5%), ..." for the largest entries of COUNTER."""
    items = [(k, v) for k, v in counter.most_common() if v > min_ms]
    shown = ["%s %s (%s)" % (md(k), ms(v), pct(v, total)) for k, v in items[:limit]]
    rest = items[limit:]
    if rest:
        shown.append("%d more %s" % (len(rest), ms(sum(v for _, v in rest))))
    return ", ".join(shown) if shown else "none"


def frame_label(frame):
    """A finding's frame as a call: fsync(), [cc1plus], f(int)."""
    frame = shorten_signatures(frame or "?")
    return frame if frame.startswith("[") or frame.endswith(")") else frame + "()"


def frames_of(findings, limit=4):
    """The frames of FINDINGS, largest first, with their ms."""
    by = collections.Counter()
    for f in findings:
        by[frame_label(f.get("frame"))] += f["ms"]
    return ", ".join("%s %s" % (md(k), ms(v)) for k, v in by.most_common(limit))


def by_category(rep, findings):
    """"Label 1.2 ms, ..." of FINDINGS per category, largest first."""
    by = collections.Counter()
    for f in findings:
        by[rep.label(f["category"])] += f["ms"]
    return ", ".join("%s %s" % (md(k), ms(v)) for k, v in by.most_common())


def path_ms(p):
    """A control path's total time: its lanes added up."""
    return sum(t["ms"] for t in p["tasks"])


def path_duration(p):
    return p["end_ms"] - p["start_ms"]


def pids_text(pids):
    return ("pid " if len(pids) == 1 else "pids ") + ", ".join(str(p) for p in pids)


def cut_off_note(rep):
    """The limit under which a finding may be missing from the JSON."""
    return ("the JSON lists %d findings covering %s of the total, down to %s"
            % (len(rep.findings), pct(rep.findings_coverage(), rep.total), ms(rep.smallest_finding())))


# ---------------------------------------------------------------------------
# What it means: one function per scenario, computed from the report only.


def generic_lines(rep, scen):
    """The largest categories, and the paper's column beside them."""
    lines = []
    cats = sorted(((rep.cat(c), c) for c in CATEGORY_IDS), reverse=True)
    top = [(v, c) for v, c in cats if v > 0][:3]
    lines.append("Largest categories: " + ", ".join(
        "%s %s (%s)" % (md(rep.label(c)), ms(v), pct(v, rep.total)) for v, c in top) + ".")
    if scen["paper"]:
        i = PAPER_COLUMNS.index(scen["paper"])
        ptotal = float(PAPER["total"][i])
        pcats = sorted(((float(PAPER[c][i]), c) for c in PAPER_ROW_NAMES), reverse=True)[:3]
        lines.append("Paper (%s): %s; %s%% accounted there, %.1f%% here." % (
            md(scen["paper"]),
            ", ".join("%s %s ms (%s)" % (md(PAPER_ROW_NAMES[c]), PAPER[c][i], pct(v, ptotal))
                      for v, c in pcats if v > 0),
            PAPER["percent"][i], rep.acc["accounted_percent"]))
    return lines + parallel_lines(rep)


def parallel_lines(rep):
    """How much the total exceeds the wall time, and tasks counted in
    several lanes at once (more time on one control path than it lasts)."""
    lines = []
    if rep.wall > 0 and rep.total > 1.5 * rep.wall:
        threads = len({t["tid"] for p in rep.paths[:1] for t in p["tasks"]
                       if t["pid"] == rep.target.get("pid")})
        lines.append("Total time is %.1f× the wall time: %s%s."
                     % (rep.total / rep.wall, n_paths(len(rep.paths)),
                        ", and control path #0 has a lane for each of the %d threads of the process of "
                        "interest" % threads if threads > 1 else ""))
    over = []
    for p in rep.paths:
        span = path_duration(p)
        for t in p["tasks"]:
            if t["ms"] > span * 1.01 + 0.01:
                over.append((t["ms"] / span if span else 0, t, p))
    if over:
        over.sort(key=lambda x: x[0], reverse=True)
        lines.append("Tasks in several lanes at once: %s. Such a task is a lane of its own and also the "
                     "child of the waits it ended in other lanes (the pseudo-stack: a lane waiting for it is "
                     "explained by what it did meanwhile), so its time on the path can exceed the path's "
                     "duration. The total is not inflated by this: it is the sum of the lanes (the paper's "
                     "definition, parallelism counted), and every lane's time is in exactly one category."
                     % ", ".join(
                         "%s has %s on control path #%d, which lasts %s (%.1f×)"
                         % (md(task_name(t)), ms(t["ms"]), p["id"], ms(path_duration(p)), k)
                         for k, t, p in over[:4]))
    return lines


def means_pass(rep):
    lines = []
    comms = rep.by_comm()
    two = comms.get("pass", 0) + comms.get("pass_peer", 0)
    lines.append("The two processes hold %s of the total time: pass %s (%s), pass_peer %s (%s)."
                 % (pct(two, rep.total), ms(comms.get("pass", 0)), pct(comms.get("pass", 0), rep.total),
                    ms(comms.get("pass_peer", 0)), pct(comms.get("pass_peer", 0), rep.total)))
    work = rep.findings_ms(categories={"cpu_sampled", "cpu_unsampled"},
                           pred=lambda f: (f.get("frame") or "") == "pass_work")
    lines.append("CPU time in pass_work(): %s (%s of the total)." % (ms(work), pct(work, rep.total)))
    if rep.paths:
        lines.append("Control path #0 holds %s of the total, over %s%s." % (
            pct(path_ms(rep.paths[0]), rep.total), n_paths(len(rep.paths)),
            "" if len(rep.paths) == 1 else
            "; the others: " + ", ".join("#%d %s" % (p["id"], ms(path_ms(p))) for p in rep.paths[1:6])))
    return lines


def comm_matches(*prefixes):
    return lambda c: any(c == p or c.startswith(p) for p in prefixes)


def means_web_request(rep):
    lines = []
    comms = rep.by_comm()
    pids = rep.by_pid()
    n_by = collections.Counter(name for name, _ in pids.values())
    crossed = ", ".join("%s%s %s (%s)" % (md(c), " ×%d" % n_by[c] if n_by[c] > 1 else "", ms(v),
                                         pct(v, rep.total))
                        for c, v in comms.most_common() if v > 0)
    lines.append("The request's time crosses %d processes: %s." % (len(pids), crossed))
    is_curl = comm_matches("curl")
    curl_timeout = rep.find(categories={"timeout"}, comm=is_curl)
    if curl_timeout:
        lines.append("Does curl's resolver still poll? **Yes**: %s of curl's time are waits that ended by "
                     "their timeout (%s), %s of the total; the paper found a 5 ms timed-out poll in "
                     "curl waiting for its resolver thread."
                     % (ms(sum(f["ms"] for f in curl_timeout)), frames_of(curl_timeout),
                        pct(sum(f["ms"] for f in curl_timeout), rep.total)))
    else:
        lines.append("Does curl's resolver still poll? **No sign of it**: no finding puts a timed-out "
                     "wait in curl (%s); the whole report has %s in waits that timed out."
                     % (cut_off_note(rep), ms(rep.cat("timeout"))))
    curl_pid = rep.target.get("pid")
    curl_threads = {t["tid"] for p in rep.paths for t in p["tasks"]
                    if t["pid"] == curl_pid and t["tid"] != curl_pid}
    if curl_threads:
        lines.append("curl ran %d thread(s) besides its main one (its threaded resolver)%s." % (
            len(curl_threads),
            ": the timed-out waits above are its main thread's short poll timeouts while the resolver "
            "thread works, the paper's pattern; the flame view shows whether the thread itself ends "
            "the last of them" if curl_timeout else
            ", and no wait of curl ended by a timeout: the thread wakes the main one when the lookup "
            "is done"))
    else:
        lines.append("curl started no resolver thread in this recording: curl 7.88 answers `localhost` "
                     "itself. `sudo WEB_REQUEST_HOST=$(hostname) scenarios/web-request.sh` sends a name "
                     "through the threaded resolver instead.")
    is_auth = comm_matches("auth")
    auth_ms = rep.time_of(lambda t: is_auth(t["comm"]))
    if auth_ms > 0:
        auth_f = rep.find(comm=is_auth)
        auth_disk = rep.find(categories={"disk_io", "io_queue"}, comm=is_auth)
        disk_ms = sum(f["ms"] for f in auth_disk)
        sync_ms = sum(f["ms"] for f in auth_disk if SYNC_FRAME.search(f.get("frame") or ""))
        lines.append("Dovecot's auth process: %s, %s of the total (paper: about half, two thirds of "
                     "that syncing the disk). In the findings: %s. Disk I/O and its queue in auth: %s, "
                     "%s of it under a sync call%s."
                     % (ms(auth_ms), pct(auth_ms, rep.total), by_category(rep, auth_f) or "none listed",
                        ms(disk_ms), ms(sync_ms), " (%s)" % frames_of(auth_disk) if auth_disk else ""))
    else:
        lines.append("No process named auth is on any control path: dovecot's authentication did "
                     "not take part in this request's time.")
    disk = rep.find(categories={"disk_io"})
    if disk:
        lines.append("Blocking disk I/O: %s (%s of the total), in %s."
                     % (ms(rep.cat("disk_io")), pct(rep.cat("disk_io"), rep.total),
                        ", ".join(sorted({md(f["task"]["comm"]) for f in disk}))))
    else:
        lines.append("Blocking disk I/O: %s (%s of the total)." % (ms(rep.cat("disk_io")),
                                                                   pct(rep.cat("disk_io"), rep.total)))
    lines.append("Waiting for the network (a peer not on this machine): %s; everything here is on "
                 "loopback, so the daemons' work is seen directly." % ms(rep.cat("network")))
    return lines


def requested_sleep_ms(command):
    """The duration given to `sleep` in COMMAND (argv), in ms, or None."""
    for i, arg in enumerate(command[:-1]):
        if os.path.basename(arg) == "sleep":
            try:
                return float(command[i + 1]) * 1000.0
            except ValueError:
                return None
    return None


def means_xterm_launch(rep):
    lines = []
    command = rep.data.get("recording", {}).get("command") or []
    want = requested_sleep_ms(command)
    slept = rep.cat("sleep")
    sleep_findings = rep.find(categories={"sleep"})
    text = "Deliberate sleeps: %s (%s of the total)" % (ms(slept), pct(slept, rep.total))
    if sleep_findings:
        text += ", in %s" % ", ".join("%s under %s()" % (md(f["task"]["comm"]), md(f.get("frame") or "?"))
                                      for f in sleep_findings[:3])
    if want:
        if slept < want - 1:
            text += ("; the command asked for %s, the other %s of it fall outside the time xterm "
                     "waited for its child (a child's time counts only within its parent's wait)"
                     % (ms(want), ms(want - slept)))
        else:
            text += "; the command asked for %s" % ms(want)
    lines.append(text + ".")
    lines.append("Waits that timed out: %s. The paper counted the sleep in that row (226 ms, 200 of "
                 "them the sleep); here it is its own category, so compare %s + %s = %s with the paper's 226 ms."
                 % (ms(rep.cat("timeout")), ms(rep.cat("timeout")), ms(slept),
                    ms(rep.cat("timeout") + slept)))
    comms = rep.by_comm()
    for name in ("Xvfb", "openbox"):
        v = comms.get(name, 0)
        lines.append("%s: %s, %s of the total%s." % (
            name, ms(v), pct(v, rep.total),
            " (%s of the time that is not the sleep)" % pct(v, rep.total - slept) if rep.total > slept else ""))
    others = collections.Counter({k: v for k, v in comms.items() if k not in ("Xvfb", "openbox")})
    lines.append("Other processes: %s." % share_list(others, rep.total))
    lines.append("Waiting on other path: %s (paper: 191 ms), over %s."
                 % (ms(rep.cat("other_path")), n_paths(len(rep.paths))))
    return lines


BUILD_TOOLS = ("cc1plus", "protoc", "make", "g++", "as", "ld", "collect2", "pkg-config")


def means_build(rep):
    lines = []
    comms = rep.by_comm()
    tools = collections.Counter({k: comms.get(k, 0) for k in BUILD_TOOLS if comms.get(k, 0) > 0})
    rest = sum(v for k, v in comms.items() if k not in BUILD_TOOLS)
    lines.append("Time per program: %s; everything else %s (%s)."
                 % (share_list(tools, rep.total, limit=len(BUILD_TOOLS)), ms(rest), pct(rest, rep.total)))
    cpu = rep.find(categories={"cpu_sampled", "cpu_unsampled"})
    cpu_by = collections.Counter()
    for f in cpu:
        cpu_by[f["task"]["comm"]] += f["ms"]
    cpu_total = rep.cat("cpu_sampled") + rep.cat("cpu_unsampled")
    lines.append("CPU time (%s in all, %s of the total); by program in the findings: %s (%s)."
                 % (ms(cpu_total), pct(cpu_total, rep.total), share_list(cpu_by, cpu_total, limit=5),
                    cut_off_note(rep)))
    unsym = rep.find(categories={"cpu_sampled"}, pred=lambda f: (f.get("frame") or "").startswith("["))
    if unsym:
        top = collections.Counter()
        for f in unsym:
            top[f["frame"]] += f["ms"]
        frame, v = top.most_common(1)[0]
        lines.append("%s of sampled CPU time is in binaries without symbols, most in %s (%s): install "
                     "their debug symbols to see the functions." % (ms(sum(top.values())), md(frame), ms(v)))
    disk = rep.cat("disk_io")
    disk_f = rep.find(categories={"disk_io"})
    text = ("Blocking disk I/O after dropping the page cache: %s, %s of the total (paper: 2845 ms, 60%%)"
            % (ms(disk), pct(disk, rep.total)))
    if disk_f:
        by = collections.Counter()
        for f in disk_f:
            by["%s in %s" % (f["task"]["comm"], frame_label(f.get("frame")))] += f["ms"]
        text += "; %s" % share_list(by, rep.total, limit=4)
    lines.append(text + ". I/O queue overhead: %s (paper: 47 ms)." % ms(rep.cat("io_queue")))
    return lines


def means_database(rep):
    lines = []
    target_pid = rep.target.get("pid")
    is_pgbench = comm_matches("pgbench")
    is_postgres = comm_matches("postgres")
    own = rep.time_of(lambda t: t["pid"] == target_pid)
    load_pids = rep.pids_of(lambda t: is_pgbench(t["comm"]) and t["pid"] != target_pid)
    load = rep.time_of(lambda t: t["pid"] in load_pids)
    load_p0 = rep.time_of(lambda t: t["pid"] in load_pids, path_ids={0})
    pg_pids = rep.pids_of(lambda t: is_postgres(t["comm"]))
    pg = rep.time_of(lambda t: is_postgres(t["comm"]))
    lines.append("The measured pgbench (pid %s): %s (%s of the total). PostgreSQL server processes "
                 "(%d pids): %s (%s)." % (target_pid, ms(own), pct(own, rep.total), len(pg_pids), ms(pg),
                                         pct(pg, rep.total)))
    if load_pids:
        lines.append("Other pgbench processes (%s, the background load, not the measured client) "
                     "hold %s (%s of the total), %s of it on control path #0. This is a cause, not noise: "
                     "the measured client's backend waits for other backends (on its latch, in epoll_wait, "
                     "for locks that TPC-B's updates of the same few branch rows make them share; on futexes "
                     "for lightweight locks; for the WAL flush another backend does for the group commit), a "
                     "backend in the middle of a transaction waits for its own client's next statement, and "
                     "that load client waits for a CPU on this 2-CPU machine: the wake-ups lead from the "
                     "measured transaction into the load. Findings keep the measured pgbench apart from its "
                     "namesakes."
                     % (pids_text(load_pids), ms(load), pct(load, rep.total), ms(load_p0)))
    if rep.paths:
        p0 = path_ms(rep.paths[0])
        lines.append("%s; #0 (the measured client's own) holds %s of the total, the "
                     "others %s." % (n_paths(len(rep.paths)).capitalize(), pct(p0, rep.total), ms(rep.total - p0)))
    contention = rep.cat("scheduler") + rep.cat("preempted")
    lines.append("Waiting for a CPU (scheduler overhead and involuntary sleeps): %s, %s of the total."
                 % (ms(contention), pct(contention, rep.total)))
    disk = rep.cat("disk_io")
    disk_f = rep.find(categories={"disk_io", "io_queue"})
    sync_f = [f for f in disk_f if SYNC_FRAME.search(f.get("frame") or "")]
    text = "Blocking disk I/O: %s (%s of the total)" % (ms(disk), pct(disk, rep.total))
    if disk_f:
        text += ", %s of it under a sync call (the WAL flush at commit: %s)" % (
            ms(sum(f["ms"] for f in sync_f)), frames_of(sync_f) or "none")
    lines.append(text + ".")
    sched_sync = rep.find(categories={"scheduler", "cpu_unsampled", "kernel_misc"},
                          pred=lambda f: bool(SYNC_FRAME.search(f.get("frame") or "")))
    if sched_sync:
        lines.append("Under the same sync calls, in other categories: %s (%s)."
                     % (by_category(rep, sched_sync), frames_of(sched_sync)))
    lines.append("SpatialTable, the paper's column beside, is a different (distributed) database; "
                 "compare the shape, not the numbers.")
    return lines


def means_media(rep):
    lines = []
    main_tid = rep.target.get("tid")
    main_comm = rep.target.get("comm", "")
    lane = rep.time_of(lambda t: t["tid"] == main_tid, path_ids={0})
    main_timeout = rep.findings_ms(categories={"timeout"}, comm=lambda c: c == main_comm)
    if lane:
        lines.append("The main thread (%s): %s on control path #0; findings put %s of timed-out waits "
                     "under the name %s (%s of that lane; other threads of the same name included)."
                     % (md(task_name(rep.target)), ms(lane), ms(main_timeout), md(main_comm),
                        pct(main_timeout, lane)))
    timeout = rep.cat("timeout")
    tf = rep.find(categories={"timeout"})
    by = collections.Counter()
    for f in tf:
        by["%s in %s" % (f["task"]["comm"], frame_label(f.get("frame")))] += f["ms"]
    lines.append("Waits that timed out: %s, %s of the total (paper: 3568 ms, 80%%, more than half of it "
                 "MPlayer waiting for the next frame's time)%s."
                 % (ms(timeout), pct(timeout, rep.total), "; " + share_list(by, rep.total, limit=4) if by else ""))
    lines.append("Deliberate sleeps: %s (%s); the paper counted sleeps as timed-out waits."
                 % (ms(rep.cat("sleep")), pct(rep.cat("sleep"), rep.total)))
    cpu = rep.cat("cpu_sampled") + rep.cat("cpu_unsampled")
    lines.append("CPU (decoding and presenting): %s, %s of the total. Waits \"for\" hardware: %s "
                 "(paper: 16 ms, the sound card; the outputs here are null)."
                 % (ms(cpu), pct(cpu, rep.total), ms(rep.cat("hardware"))))
    lines.append("Time per thread name: %s." % share_list(rep.by_comm(), rep.total))
    return lines


MEANS = {
    "pass": means_pass,
    "web-request": means_web_request,
    "xterm-launch": means_xterm_launch,
    "build": means_build,
    "database": means_database,
    "media": means_media,
}


# ---------------------------------------------------------------------------
# One scenario


def evaluate_scenario(scen, args):
    """Runs rsp on the scenario's recording; returns a result dict."""
    name = scen["name"]
    recording = os.path.join(args.out_dir, name + ".rsp")
    res = {"scen": scen, "recording": recording, "recorded": os.path.isfile(recording)}
    if not res["recorded"]:
        return res
    res["report"] = Report(json.loads(run_rsp(args.rsp, ["report", "--json", recording])))
    res["stats"] = parse_dump_stats(run_rsp(args.rsp, ["dump", "--stats", recording]))
    res["images"] = {}
    for view, size in (("flame", FLAME_SIZE), ("timeline", TIMELINE_SIZE)):
        out = os.path.join(args.images, "%s-%s.png" % (name, view))
        run_rsp(args.rsp, ["render", "-v", view, "-s", size, recording, "-o", out])
        res["images"][view] = out
    return res


def record_command(name, args):
    env = ""
    if os.path.abspath(args.out_dir) != os.path.join(REPO, "build", "scenarios"):
        env = "RSP_SCENARIO_OUT=%s " % shlex.quote(rel(args.out_dir))
    return "sudo %sscenarios/%s.sh" % (env, name)


def section(res, args, doc_dir):
    """The Markdown section of one scenario."""
    scen = res["scen"]
    name = scen["name"]
    out = ["", "## %s" % name, ""]
    if scen["paper"]:
        out.append("Paper column: **%s**." % scen["paper"])
        out.append("")
    out.append(scen["about"])
    out.append("")
    if not res["recorded"]:
        out.append("**Not recorded**: there is no `%s`. Record it with `%s`, then run "
                   "`scenarios/evaluate.py`." % (rel(res["recording"]), record_command(name, args)))
        if not os.path.isfile(os.path.join(REPO, "scenarios", name + ".sh")):
            out.append("(`scenarios/%s.sh` is not in this checkout yet.)" % name)
        return out
    if "error" in res:
        out.append("**rsp failed on this recording**: %s" % md(res["error"].replace("`", "")))
        return out
    rep, stats = res["report"], res["stats"]
    recd = rep.data.get("recording", {})
    acc = rep.acc
    target = rep.target

    # Figures.
    command = display_command(stats.get("command") or shlex.join(recd.get("command") or []))
    out.append("- Recorded: `%s`%s%s." % (
        command.replace("`", "'"), " (%s)" % md(stats["run"]) if stats.get("run") else "",
        ", on %s" % md(stats["recorded_on"]) if stats.get("recorded_on") else ""))
    health = "%d events, %d lost" % (recd.get("events", 0), recd.get("lost_events", 0))
    anomalies = recd.get("anomalies") or {}
    if anomalies:
        health += "; inferred where events were missing: " + ", ".join(
            "%s %d" % (k, v) for k, v in sorted(anomalies.items()))
    if stats.get("losses"):
        worst = sorted(stats["losses"], key=lambda x: x[1])[:3]
        health += "; tracepoints that lost records in the kernel: " + ", ".join(
            "%s %.1f%% kept" % (e, p) for e, p in worst)
        if stats.get("advice"):
            health += " (rsp dump --stats: %s)" % "; ".join(stats["advice"])
    out.append("- Recording: %s of %s (%s)." % (ms(recd.get("duration_ms", 0)), md(rel(res["recording"])),
                                                md(health)))
    out.append("- Process of interest: %s (pid %s). Wall time %s, total time %s over %s "
               "and %s; **%.1f%% accounted** (%s unaccounted)."
               % (md(target.get("comm", "?")), target.get("pid", "?"), ms(rep.wall), ms(rep.total),
                  n_paths(len(rep.paths)),
                  "1 process" if rep.processes() == 1 else "%d processes" % rep.processes(), acc["accounted_percent"], ms(acc["unaccounted_ms"])))
    rsp_tasks = [t for p in rep.paths for t in p["tasks"] if t["comm"] == "rsp"]
    if rsp_tasks:
        pre = sum(t["ms"] for t in rsp_tasks if t["pid"] == target.get("pid"))
        rec = sum(t["ms"] for t in rsp_tasks if t["pid"] != target.get("pid"))
        out.append("- Tasks named rsp: the process of interest before its exec (%s, %s of the total) and "
                   "rsp record starting it (%s); they are counted in the figures."
                   % (ms(pre), pct(pre, rep.total), ms(rec)))
    problems = rep.contract_problems()
    if problems:
        out.append("- **The report breaks the JSON contract of docs/REPORT-JSON.md**: " + md("; ".join(problems)) + ".")

    if acc["accounted_percent"] < MIN_ACCOUNTED_PERCENT:
        out.append("")
        out.append("> **Only %.1f%% of the total time is accounted (below %.0f%%; the paper reached "
                   "95.2–99.7%%). This scenario needs investigation.**" % (acc["accounted_percent"],
                                                                          MIN_ACCOUNTED_PERCENT))
        suspects = rep.find(categories={"unaccounted", "kernel_misc"})[:5]
        if suspects:
            out.append("> Largest unaccounted and unexplained contributors:")
            for f in suspects:
                out.append("> - %s (%s, %s): %s — %s" % (
                    ms(f["ms"]), pct(f["ms"], rep.total), f["category"],
                    md(shorten_signatures(f["summary"])), render_path(f)))
        else:
            out.append("> No finding is in the unaccounted or kernel-blocks categories; the unaccounted "
                       "time is spread below the findings' cut-off (%s)." % cut_off_note(rep))
        if anomalies:
            out.append("> Inferred from missing events: %s." % ", ".join(
                "%s %d" % (k, v) for k, v in sorted(anomalies.items())))

    # Control paths.
    out.append("")
    out.append("Control paths (largest first):")
    out.append("")
    paths = sorted(rep.paths, key=path_ms, reverse=True)
    for p in paths[:5]:
        tasks = sorted(p["tasks"], key=lambda t: t["ms"], reverse=True)
        shown = ", ".join("%s %s" % (md(task_name(t)), ms(t["ms"])) for t in tasks[:6])
        if len(tasks) > 6:
            shown += ", and %d more tasks %s" % (len(tasks) - 6, ms(sum(t["ms"] for t in tasks[6:])))
        span = ms(path_duration(p))
        if path_ms(p) > path_duration(p) * 1.01 + 0.01:
            span += ", %s total time in parallel lanes" % ms(path_ms(p))
        out.append("- #%d, %s–%s ms (%s): %s" % (p["id"], fmt_ms(p["start_ms"]), fmt_ms(p["end_ms"]),
                                                 span, shown))
    if len(paths) > 5:
        rest = paths[5:]
        out.append("- and %d more control paths, %s in all" % (len(rest), ms(sum(path_ms(p) for p in rest))))

    # Findings.
    out.append("")
    out.append("Top findings:")
    out.append("")
    for f in rep.findings[:5]:
        out.append("%d. **%s** (%s, %s): %s — path %s" % (
            f["rank"], pct(f["ms"], rep.total), ms(f["ms"]), md(rep.label(f["category"])),
            md(shorten_signatures(f["summary"])), render_path(f)))
    if not rep.findings:
        out.append("(none)")

    # What it means.
    out.append("")
    out.append("What it means:")
    out.append("")
    for line in generic_lines(rep, scen) + MEANS[name](rep):
        out.append("- " + line)

    # Views.
    out.append("")
    for view, title in (("flame", "Chronological flame view"), ("timeline", "Process running view")):
        img = res["images"].get(view)
        if img:
            out.append("%s of %s:" % (title, md(target.get("comm", name))))
            out.append("")
            out.append("![%s: %s](%s)" % (name, title.lower(), rel(img, doc_dir)))
            out.append("")
    return out


# ---------------------------------------------------------------------------
# The document


def table(results):
    """The evaluation table: our scenarios, each with the paper's column."""
    cols = []  # (header, function(row key) -> cell)
    for res in results:
        scen = res["scen"]
        rep = res.get("report")
        header = "[%s](#%s)" % (scen["name"], scen["name"])
        if rep is None:
            header += " (not recorded)" if not res["recorded"] else " (failed)"
        cols.append((header, lambda key, rep=rep: our_cell(rep, key)))
        if scen["paper"]:
            i = PAPER_COLUMNS.index(scen["paper"])
            cols.append(("paper: %s" % scen["paper"], lambda key, i=i: paper_cell(i, key)))
    labels = dict(CATEGORIES)
    for res in results:
        if res.get("report"):
            labels.update(res["report"].labels)
    rows = [("processes", "Processes"), ("wall", "Wall time"), ("total", "Total time")]
    rows += [(c, "%s (`%s`)" % (md(labels[c]), c)) for c in CATEGORY_IDS if c != "unaccounted"]
    rows += [("accounted", "Total accounted"), ("unaccounted", "Unaccounted (`unaccounted`)"),
             ("percent", "Percent accounted")]
    out = ["| Category | " + " | ".join(h for h, _ in cols) + " |",
           "|---|" + "---:|" * len(cols)]
    for key, label in rows:
        cells = [fn(key) for _, fn in cols]
        bold = key in ("wall", "total", "percent")
        out.append("| %s | %s |" % ("**%s**" % label if bold else label, " | ".join(cells)))
    return out


def our_cell(rep, key):
    if rep is None:
        return "—"
    if key == "processes":
        return str(rep.processes())
    if key == "wall":
        return fmt_ms(rep.wall)
    if key == "total":
        return fmt_ms(rep.total)
    if key == "accounted":
        return fmt_ms(rep.acc["accounted_ms"])
    if key == "unaccounted":
        return fmt_ms(rep.acc["unaccounted_ms"])
    if key == "percent":
        return "%.1f%%" % rep.acc["accounted_percent"]
    return fmt_ms(rep.cat(key))


def paper_cell(i, key):
    if key not in PAPER:
        return "n/a"
    v = PAPER[key][i]
    return v + "%" if key == "percent" else v


def document(results, args, facts, failures):
    doc_dir = os.path.dirname(os.path.abspath(args.doc))
    cmd = shlex.join([rel(os.path.abspath(sys.argv[0]))] + sys.argv[1:])
    where = "" if os.path.abspath(os.getcwd()) == REPO else " (run in `%s`)" % os.getcwd()
    cpu = "%s CPUs" % facts["cpus"] + (" (%s)" % facts["cpu_model"] if facts["cpu_model"] else "")
    out = [
        "# RSP evaluation: where the time went, beside the paper",
        "",
        "<!-- Generated by scenarios/evaluate.py; do not edit by hand. -->",
        "",
        "Generated by `%s`%s on %s, on Linux %s, %s, %s%s, from the recordings in `%s`. Every figure "
        "comes from a fresh `rsp report --json` of the recording; the images from `rsp render`."
        % (cmd, where, facts["date"], facts["kernel"], facts["perf"], cpu,
           ", rsp at commit %s" % facts["commit"] if facts["commit"] else "", rel(args.out_dir)),
        "",
        "To reproduce: `sudo scenarios/run-all.sh` records every scenario (installing what each needs "
        "from Debian's packages) and then runs this script; for one scenario, `sudo scenarios/NAME.sh` "
        "then `scenarios/evaluate.py`. Recordings are machine-specific: numbers differ between "
        "machines and runs; the shape should not.",
        "",
        "The paper is \"A Recursive Systemic Profiler\" (its table \"Categories of Explanation for Various "
        "Tasks\"); the categories are listed in `docs/REPORT-JSON.md` and `docs/MODEL.md` says how they are "
        "decided.",
        "",
    ]
    recorded = [r for r in results if r.get("report")]
    missing = [r for r in results if not r["recorded"]]
    if failures:
        out.append("**rsp failed on %d recording(s)**: %s." % (
            len(failures), "; ".join("%s: %s" % (n, md(e.replace("`", ""))) for n, e in failures)))
        out.append("")
    if missing:
        out.append("Not recorded: %s." % ", ".join(
            "%s (`%s`)" % (r["scen"]["name"], record_command(r["scen"]["name"], args)) for r in missing))
        out.append("")
    out.append("## Where the time went (ms)")
    out.append("")
    out += table(results)
    out += [
        "",
        "Notes:",
        "",
        "- Times in milliseconds. *Wall time* runs from the first to the last activity of the process of "
        "interest; *total time* adds up the control paths, parallelism counted, and is the denominator of "
        "every percentage. Each category is a share of total time; they add up to it.",
        "- *Processes*: distinct processes (pids) on the control paths, the process of interest's own "
        "included.",
        "- The paper's rows are mapped to our ids: " + ", ".join(
            "*%s* = `%s`" % (md(PAPER_ROW_NAMES[c]), c) for c in CATEGORY_IDS if c in PAPER_ROW_NAMES)
        + ". `network` (waiting for a peer not on this machine) and `sleep` (nanosleep and friends) have "
        "no paper row (n/a): the paper counted deliberate sleeps as waits that timed out (200 of "
        "xterm's 226 ms are its `sleep 0.2`).",
        "- database is PostgreSQL; the paper's SpatialTable is a different, distributed database, shown "
        "beside for scale only.",
        "- The paper's figures are as printed there, with its precision.",
        "- Limits of this reproduction, whatever the figures: the machine is a 2-CPU virtual machine "
        "with a virtio disk (no I/O scheduler, so I/O queue overhead stays near 0, and a host cache "
        "under the guest's: a cold page cache costs far less disk time than in 2015); the recordings use "
        "plain `rsp record`, nothing keeping CPUs awake: RSP's tracefs instance records the events "
        "that fire in interrupt context on idle CPUs, which perf alone drops (docs/RECORDING.md).",
        "",
        "**What changed when the recordings stopped keeping CPUs awake** (2026-11-24; until then they "
        "were made with `rsp record --keep-awake`, whose idle-priority spinners took the CPUs from "
        "other sessions under kernel.sched_autogroup_enabled). Against the figures of the last "
        "`--keep-awake` run: web-request 33.7 → 21.7 ms wall, its scheduler overhead 2.6 → 0.48 ms "
        "and involuntary sleeps 4.8 → 0.08 ms; xterm-launch 248 → 233 ms, scheduler 5.2 → 1.0 ms, "
        "involuntary 6.0 → 0 ms; build 2643 → 2278 ms, scheduler 11.0 → 0.58 ms, involuntary "
        "14.0 → 2.1 ms; database 2251 → 1796 ms. What the spinners cost the workload is gone, and "
        "each scenario still accounts 99.5–100% without them. media went from 100.0% to 99.5%: one "
        "timed futex wait of mpv's audio thread (187 ms) ended with no wake-up in either channel, "
        "and futex waits are never guessed from the stack (other threads end them).",
        "",
        "**What changed when the wakers' stacks left the recording** (2026-11-26; `sched_waking` now "
        "comes from RSP's tracefs instance alone, without a callchain, because a stack per wake-up "
        "was the largest cost of recording an event-dense workload; the model reads the waker's "
        "context from the instance's interrupt, softirq and timer brackets, docs/MODEL.md). New "
        "recordings, on another VM of the same kind, against the 2026-11-24 figures: every scenario "
        "still accounts 100.0% (media 99.5% → 100.0%); pass 471 → 472 ms wall, web-request 21.7 → "
        "20.6 ms, xterm-launch 233 → 220 ms, build 2278 → 2233 ms, database 1796 → 1317 ms, media "
        "3221 → 3220 ms. Two rules were added on the way, each found on these recordings: a task "
        "seen first when a completion wakes it (a kworker asleep since before the recording) "
        "carries that completion to whoever it wakes, instead of leaving the wait unaccounted; and "
        "receive processing that the sender's own code runs over loopback is told from a network "
        "interrupt's by when its softirq starts — the first cut put 18.4 ms of database's "
        "pgbench–backend waits over 127.0.0.1 under *waiting for the network*, because a backend "
        "answered 0.5 µs after a disk interrupt's softirq ended in its run (0.12 ms remain).",
        "",
        "**What changed with the hand-off rule for forks** (2026-11-27, the same recordings): a "
        "waker that the sleeper set going by forking it is the sleeper's child even when the "
        "sleeper blocked late (a shell waiting milliseconds for a CPU between its vfork and its "
        "wait4); a waker the sleeper woke and that was preempted since counts as set going by it "
        "too; and a fork recorded before its forker's inferred run now names that run. Only "
        "media moved, by 0.1 ms (*waiting on other path* 4.1 → 4.0 ms, now work in understood "
        "functions).",
    ]
    if recorded:
        out.append("")
        out.append("Percent accounted: " + ", ".join(
            "%s %.1f%%" % (r["scen"]["name"], r["report"].acc["accounted_percent"]) for r in recorded)
            + " (paper: 95.2–99.7%).")
    for res in results:
        out += section(res, args, doc_dir)
    return "\n".join(out).rstrip() + "\n"


def remove_stale_images(results, images):
    """Images of scenarios that are no longer recorded would mislead."""
    for res in results:
        if res["recorded"]:
            continue
        for view in ("flame", "timeline"):
            path = os.path.join(images, "%s-%s.png" % (res["scen"]["name"], view))
            if os.path.isfile(path):
                os.remove(path)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out-dir", default=os.path.join(REPO, "build", "scenarios"),
                   help="where the scenarios wrote NAME.rsp (default: build/scenarios)")
    p.add_argument("--doc", default=os.path.join(REPO, "docs", "EVALUATION.md"),
                   help="the document to write (default: docs/EVALUATION.md)")
    p.add_argument("--rsp", default=os.path.join(REPO, "build", "src", "rsp"),
                   help="the rsp executable (default: build/src/rsp)")
    p.add_argument("--images", default=os.path.join(REPO, "docs", "evaluation"),
                   help="where the rendered views go (default: docs/evaluation)")
    p.add_argument("--keep-going", action="store_true",
                   help="write the document even when rsp failed on a recording (still exits 1)")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if not (os.path.isfile(args.rsp) and os.access(args.rsp, os.X_OK)):
        print("evaluate.py: no rsp executable at %s (build it: meson setup build && ninja -C build, "
              "or give --rsp)" % args.rsp, file=sys.stderr)
        return 1
    os.makedirs(args.images, exist_ok=True)
    results, failures = [], []
    for scen in SCENARIOS:
        try:
            res = evaluate_scenario(scen, args)
        except (RspError, ValueError, KeyError) as e:
            msg = str(e) if isinstance(e, RspError) else "unexpected report from rsp: %r" % e
            res = {"scen": scen, "recording": os.path.join(args.out_dir, scen["name"] + ".rsp"),
                   "recorded": True, "error": msg}
            failures.append((scen["name"], msg))
            print("evaluate.py: %s: %s" % (scen["name"], msg), file=sys.stderr)
        results.append(res)

    for res in results:
        name = res["scen"]["name"]
        if not res["recorded"]:
            print("%-13s not recorded (%s)" % (name, record_command(name, args)))
        elif "error" in res:
            print("%-13s FAILED" % name)
        else:
            rep = res["report"]
            flag = "  BELOW %.0f%%: needs investigation" % MIN_ACCOUNTED_PERCENT \
                if rep.acc["accounted_percent"] < MIN_ACCOUNTED_PERCENT else ""
            print("%-13s %5.1f%% accounted (wall %s, total %s)%s"
                  % (name, rep.acc["accounted_percent"], ms(rep.wall), ms(rep.total), flag))
            for problem in rep.contract_problems():
                print("%-13s report contract: %s" % ("", problem), file=sys.stderr)

    if failures and not args.keep_going:
        print("evaluate.py: rsp failed on %d recording(s); %s not written (--keep-going writes it anyway)"
              % (len(failures), args.doc), file=sys.stderr)
        return 1
    remove_stale_images(results, args.images)
    text = document(results, args, machine_facts(), failures)
    os.makedirs(os.path.dirname(os.path.abspath(args.doc)), exist_ok=True)
    tmp = args.doc + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.doc)
    print("wrote %s" % args.doc)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
