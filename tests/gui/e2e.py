#!/usr/bin/env python3
"""End-to-end test of `rsp view` under Xvfb with real pointer events.

  e2e.py flame      open a recording, click a task name in the timeline with
                    xdotool, and check that the task's flame view opened and
                    drew frames (screenshot pixels: the run, sleep and task
                    colours of the flame view in its area);
  e2e.py error      open a damaged recording and check that an error dialog
                    appeared (a second window of the application).

The viewer never runs as root, so as root the test runs it as the
unprivileged user rsp-test-user (created if missing).  Without Xvfb or
xdotool it skips with a visible message, and fails under CI=true.
"""
import csv
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ.get("RSP_SOURCE_ROOT", os.path.dirname(__file__) + "/../.."),
                                "tests", "scripts"))
import rsptest as t  # noqa: E402

TEST_USER = "rsp-test-user"
SIZE = (1600, 1000)
# The light theme's colours (src/ui/rsp-theme.c): a flame view shows them.
RUN = (0xd9, 0x41, 0x3e)
SLEEP = (0x3b, 0x78, 0xe7)
BOTH = (0x8e, 0x44, 0xad)


def need(tool):
    path = shutil.which(tool)
    if path is None:
        t.skip_or_fail("%s is not installed (scripts/install-deps.sh --test installs it)" % tool)
    return path


def ensure_user():
    try:
        pwd.getpwnam(TEST_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", TEST_USER],
                       check=True)


class Display:
    """An Xvfb of its own: -displayfd lets the server pick a free display
    and say which, so runs never collide on a display or a stale lock."""

    def __init__(self):
        read_fd, write_fd = os.pipe()
        # -noreset: the server would otherwise reset when its last client
        # leaves, and a viewer connecting during the reset fails with
        # "cannot open display" (seen once in a fresh chroot)
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "%dx%dx24" % SIZE,
                                      "-ac", "-nolisten", "tcp", "-noreset"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write_fd,))
        os.close(write_fd)
        number = b""
        deadline = time.time() + 30
        while time.time() < deadline and not number.endswith(b"\n"):
            chunk = os.read(read_fd, 16)
            if not chunk:
                break
            number += chunk
        os.close(read_fd)
        if not number.strip():
            t.fail("Xvfb did not start")
        self.num = int(number.strip())
        self.name = ":%d" % self.num

    def env(self):
        e = dict(os.environ, DISPLAY=self.name, GDK_BACKEND="x11", NO_AT_BRIDGE="1", GSETTINGS_BACKEND="memory")
        # the viewer chooses its renderer (check_renderer()); a test that
        # wants another passes GSK_RENDERER as an extra variable
        e.pop("GSK_RENDERER", None)
        return e

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def start_viewer(display, recording, workdir, debug=None, extra_env=()):
    # a copy the unprivileged user can reach wherever the build tree lives
    rsp = os.path.join(workdir, "rsp")
    if not os.path.exists(rsp):
        t.copy_rsp(workdir)
    argv = [rsp, "view"] + ([recording] if recording else [])
    # DEBUG: log domains whose debug messages the viewer prints (G_MESSAGES_DEBUG)
    debug_env = (["G_MESSAGES_DEBUG=" + debug] if debug else []) + list(extra_env)
    if os.geteuid() == 0:
        ensure_user()
        argv = ["runuser", "-u", TEST_USER, "--", "env", "HOME=" + workdir, "XDG_RUNTIME_DIR=" + workdir] + debug_env + argv
    elif debug_env:
        argv = ["env"] + debug_env + argv
    env = display.env()
    # the sanitizers' suppression file must be readable by the user the
    # viewer runs as (a checkout in /root is not): give it a copy
    lsan = env.get("LSAN_OPTIONS", "")
    for opt in lsan.split(":"):
        if opt.startswith("suppressions="):
            copy = os.path.join(workdir, "lsan.supp")
            shutil.copy(opt[len("suppressions="):], copy)
            os.chmod(copy, 0o644)
            env["LSAN_OPTIONS"] = lsan.replace(opt, "suppressions=" + copy)
    log = open(os.path.join(workdir, "viewer.log"), "w")
    # its own session, so that stopping it also stops the viewer under runuser
    return subprocess.Popen(argv, env=env, stdout=log, stderr=log, start_new_session=True)


def stop_viewer(proc):
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def wait_loaded(display, window, name, seconds):
    """The window's title becomes the recording's name when loading is done."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if xdotool(display, "getwindowname", window).stdout.strip() == name:
            return True
        time.sleep(0.5)
    return False


def xdotool(display, *args):
    return subprocess.run(["xdotool"] + list(args), env=display.env(), capture_output=True, text=True, timeout=30)


def windows(display, pid):
    r = xdotool(display, "search", "--onlyvisible", "--pid", str(pid))
    return [w for w in r.stdout.split() if w.strip()]


def screenshot(display, path):
    subprocess.run(["import", "-window", "root", path], env=display.env(), check=True, timeout=30)
    ppm = path + ".ppm"
    subprocess.run(["convert", path, "-depth", "8", ppm], check=True, timeout=30)
    with open(ppm, "rb") as f:
        data = f.read()
    # binary PPM: "P6\n<w> <h>\n255\n" then RGB
    parts = data.split(b"\n", 3)
    width, height = (int(x) for x in parts[1].split())
    return width, height, parts[3]


def count_colour(image, box, colour, tolerance=24):
    width, height, pixels = image
    x0, y0, x1, y1 = box
    n = 0
    for y in range(max(0, y0), min(height, y1), 2):
        row = y * width * 3
        for x in range(max(0, x0), min(width, x1), 2):
            i = row + x * 3
            if (abs(pixels[i] - colour[0]) <= tolerance and abs(pixels[i + 1] - colour[1]) <= tolerance
                    and abs(pixels[i + 2] - colour[2]) <= tolerance):
                n += 1
    return n


def window_geometry(display, window):
    r = xdotool(display, "getwindowgeometry", "--shell", window)
    g = dict(line.split("=", 1) for line in r.stdout.split() if "=" in line)
    return int(g["X"]), int(g["Y"]), int(g["WIDTH"]), int(g["HEIGHT"])


def viewer_log(workdir, tail=3000):
    try:
        return open(os.path.join(workdir, "viewer.log")).read()[-tail:]
    except OSError:
        return "(no log)"


def wait_log(workdir, pattern, n, seconds=10):
    """PATTERN's matches in the viewer's log (findall), once there are N or
    after SECONDS."""
    deadline = time.time() + seconds
    while True:
        found = pattern.findall(viewer_log(workdir, 1 << 20))
        if len(found) >= n or time.time() > deadline:
            return found
        time.sleep(0.3)


def start_viewer_with_window(display, recording, workdir, seconds=30, debug=None, extra_env=()):
    """Starts the viewer and waits for its window.  A viewer that exits at
    once without crashing is started once more (said in the test's log);
    a crash, a sanitizer report or no window at all fails with its log."""
    for attempt in (1, 2):
        proc = start_viewer(display, recording, workdir, debug, extra_env)
        wins = wait_windows(display, proc, 1, seconds)
        if wins:
            return proc, wins
        code = proc.poll()
        log = viewer_log(workdir)
        stop_viewer(proc)
        crashed = code is None or code < 0 or code >= 128 or "Sanitizer" in log or "runtime error:" in log
        if attempt == 1 and not crashed:
            t.log("NOTE: the viewer exited at once (exit %s) before showing a window; starting it again. "
                  "Its log: %s" % (code, log.strip() or "(empty)"))
            continue
        t.fail("the viewer showed no window (exit %s); its log:\n%s" % (code, log))
    return None, []


def readable_copy(src, dst):
    """A copy of SRC at DST that the viewer's unprivileged user can read
    (a recording made as root is mode 0600); DST."""
    shutil.copy(src, dst)
    os.chmod(dst, 0o644)
    return dst


def data_copy(workdir, name, dst=None):
    """A copy of tests/data/NAME in WORKDIR (or at DST) that the viewer's
    unprivileged user can read; its path."""
    return readable_copy(os.path.join(os.environ["RSP_SOURCE_ROOT"], "tests", "data", name),
                         dst or os.path.join(workdir, name))


def start_loaded(display, workdir, name, debug="rsp-ui", extra_env=()):
    """The viewer on a copy of tests/data/NAME, once it has loaded it; fails
    (with the viewer stopped) if it does not."""
    proc, wins = start_viewer_with_window(display, data_copy(workdir, name), workdir, debug=debug, extra_env=extra_env)
    if not wait_loaded(display, wins[0], name, 120):
        stop_viewer(proc)
        t.fail("the recording did not load")
    return proc, wins


def wait_windows(display, proc, n, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            return []
        found = windows(display, proc.pid) or windows_of_children(display, proc)
        if len(found) >= n:
            return found
        time.sleep(0.3)
    return windows(display, proc.pid) or windows_of_children(display, proc)


def windows_of_children(display, proc):
    # runuser forks the viewer: look for windows of its children too
    try:
        out = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    except OSError:
        return []
    found = []
    for child in out:
        found += windows(display, int(child))
        grand = subprocess.run(["pgrep", "-P", child], capture_output=True, text=True).stdout.split()
        for g in grand:
            found += windows(display, int(g))
    return found


def open_flame(display, window, workdir, hint=None):
    """Clicks down the task-name column of the timeline until a flame view
    opens; returns (dy, blue, red) of the click that opened it, or None.
    HINT: a dy that opened one before, tried first."""
    time.sleep(1 if hint is None else 0.3)
    x, y, w, h = window_geometry(display, window)
    before = screenshot(display, os.path.join(workdir, "before.png"))
    flame_area = (x, y + 150, x + w * 55 // 100, y + h - 20)
    baseline = count_colour(before, flame_area, SLEEP) + count_colour(before, flame_area, BOTH)
    # The task names are the column at the left of the timeline; the
    # process of interest's rows come first.  Click down the column until
    # a flame view opens (theme metrics differ a little between machines).
    rows = list(range(120, min(h - 40, 420), 12))
    for dy in ([hint] if hint is not None else []) + rows:
        xdotool(display, "mousemove", str(x + 60), str(y + dy), "click", "1")
        time.sleep(1.5)
        shot = screenshot(display, os.path.join(workdir, "after.png"))
        blue = count_colour(shot, flame_area, SLEEP) + count_colour(shot, flame_area, BOTH)
        red = count_colour(shot, flame_area, RUN)
        if blue > baseline + 200 and red > 20:
            return (dy, blue, red)
    return None


def has_gpu():
    """Whether a GPU may be there by what the viewer's choice of renderer
    looks for (rsp-cmd-view.c): a render node or NVIDIA's driver.  The
    viewer also needs to be able to open it, as its user; so where this says
    yes the viewer may still say no, and the test checks only the no."""
    return os.path.exists("/dev/nvidiactl") or (
        os.path.isdir("/dev/dri") and any(n.startswith("renderD") for n in os.listdir("/dev/dri")))


def check_renderer(workdir, asked=None):
    """The viewer draws with GTK's cairo renderer where there is no GPU (GTK
    would take OpenGL on a software rasterizer); GSK_RENDERER ASKED by the
    user is kept."""
    log = viewer_log(workdir, 1 << 20)
    m = re.search(r"renderer: ([^\n]*)", log)
    drawn = re.search(r"window drawn by (\w+)", log)
    if m is None or drawn is None:
        t.fail("the viewer did not log its renderer; its log:\n" + log[-2000:])
    t.log("renderer: %s; the window is drawn by %s" % (m.group(1), drawn.group(1)))
    if asked is not None:
        if m.group(1) != "GSK_RENDERER is set":
            t.fail("GSK_RENDERER=%s was not kept: %s" % (asked, m.group(1)))
    elif not has_gpu():
        if m.group(1) != "cairo, no GPU" or drawn.group(1) != "GskCairoRenderer":
            t.fail("no GPU here, but the viewer drew with %s (%s)" % (drawn.group(1), m.group(1)))


def flame_test(display, workdir):
    recording = data_copy(workdir, "tcp_loop.rsp")
    proc, wins = start_viewer_with_window(display, recording, workdir, debug="rsp-ui")
    try:
        # loading runs off the main loop (slow under AddressSanitizer)
        if not wait_loaded(display, wins[0], "tcp_loop.rsp", 120):
            screenshot(display, os.path.join(workdir, "loading.png"))
            t.fail("the recording did not finish loading in 120 s (screenshot in %s)" % workdir)
        check_renderer(workdir)
        opened = open_flame(display, wins[0], workdir)
        if opened is None:
            t.fail("no flame view opened after clicking the task-name column (screenshots in %s)" % workdir)
        t.log("clicked at +%d px: the flame view drew %d sleep/both and %d run pixels (sampled every 2nd)"
              % opened)
        shutil.copy(os.path.join(workdir, "after.png"), os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-flame.png"))
    finally:
        stop_viewer(proc)


def error_test(display, workdir):
    recording = os.path.join(workdir, "damaged.rsp")
    with open(recording, "wb") as f:
        f.write(b"PERFILE2" + b"\x00" * 200)
    os.chmod(recording, 0o644)
    proc = start_viewer(display, recording, workdir)
    try:
        # the error dialog is titled with its message: "Could not open “damaged.rsp”"
        dialog = None
        deadline = time.time() + 30
        while time.time() < deadline and dialog is None:
            r = xdotool(display, "search", "--onlyvisible", "--name", "Could not open")
            found = r.stdout.split()
            dialog = found[0] if found else None
            time.sleep(0.3)
        time.sleep(0.5)
        screenshot(display, os.path.join(workdir, "error.png"))
        shutil.copy(os.path.join(workdir, "error.png"), os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-error.png"))
        if dialog is None:
            t.fail("no error dialog appeared (log: %s)" % open(os.path.join(workdir, "viewer.log")).read()[-2000:])
        name = xdotool(display, "getwindowname", dialog).stdout.strip()
        t.log("error dialog shown: %r" % name)
        if "damaged.rsp" not in name:
            t.fail("the error dialog does not name the file: %r" % name)
    finally:
        stop_viewer(proc)


FAKE_PKEXEC = r"""#!/usr/bin/env python3
# A stand-in for pkexec(1) in the GUI test: under Xvfb no polkit agent can
# authenticate.  It checks that the viewer asks for rsp record
# --stop-on-eof -o OUT, then does what the mode file beside it says:
#   dismiss  exit 126 with no output, as pkexec when the dialog is dismissed
#   fail     an rsp record error, exit 1, nothing written
#   record   rsp record's messages, its temporary file growing beside OUT
#            until standard input ends (the Stop button), then a real
#            recording as OUT and exit 143 (COMMAND got SIGTERM)
import os, select, shutil, sys, time
here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
if len(args) < 2 or args[1] != "record" or "--stop-on-eof" not in args or "-o" not in args:
    print("fake pkexec: unexpected arguments %s" % args, flush=True)
    sys.exit(2)
# the rsp executable itself, by its absolute path (not the viewer's program)
if not os.path.isabs(args[0]) or os.path.basename(args[0]) != "rsp" or not os.access(args[0], os.X_OK):
    print("fake pkexec: not an absolute path to rsp: %s" % args[0], flush=True)
    sys.exit(2)
out = args[args.index("-o") + 1]
mode = open(os.path.join(here, "mode")).read().strip()
if mode == "dismiss":
    sys.exit(126)
if mode == "fail":
    print("rsp record: perf is not installed: install the Debian package linux-perf", flush=True)
    sys.exit(1)
print("rsp record: recording the whole system while %s runs..." % args[-1], flush=True)
tmp = "%s.%d.tmp-perf" % (out, os.getpid())
with open(tmp, "wb") as f:
    while True:
        f.write(b"\0" * 65536)
        f.flush()
        ready, _, _ = select.select([sys.stdin], [], [], 0.2)
        if ready and not sys.stdin.buffer.read1(4096):
            break
print("rsp record: interrupted: waiting for %s to end, then finishing the recording" % args[-1], flush=True)
shutil.copy(os.path.join(here, "recording.rsp"), out)
os.unlink(tmp)
print("rsp record: wrote %s" % out, flush=True)
sys.exit(143)
"""

def install_fake_pkexec(workdir, recording):
    """FAKE_PKEXEC in WORKDIR/fakebin, its recording a copy of tests/data's
    RECORDING; returns the directory and a function that sets its mode."""
    fake = os.path.join(workdir, "fakebin")
    os.makedirs(fake, exist_ok=True)
    os.chmod(fake, 0o777)
    with open(os.path.join(fake, "pkexec"), "w") as f:
        f.write(FAKE_PKEXEC)
    os.chmod(os.path.join(fake, "pkexec"), 0o755)
    data_copy(workdir, recording, os.path.join(fake, "recording.rsp"))

    def mode(m):
        with open(os.path.join(fake, "mode"), "w") as f:
            f.write(m)
        os.chmod(os.path.join(fake, "mode"), 0o644)

    return fake, mode


RECORD_TICK = re.compile(r"record: (\d+) s, (\d+) bytes")


def find_dialog(display, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        found = xdotool(display, "search", "--onlyvisible", "--name", "^Record$").stdout.split()
        if found:
            return found[0]
        time.sleep(0.25)
    return None


def record_dialog(display, what, command=None):
    """Ctrl+R; fails with WHAT if no Record dialog opens; then types COMMAND
    (if given) and confirms it with Return."""
    xdotool(display, "key", "ctrl+r")
    if find_dialog(display) is None:
        t.fail("Ctrl+R opened no Record dialog%s" % what)
    if command is not None:
        xdotool(display, "type", "--delay", "20", command)
        xdotool(display, "key", "Return")


def dialog_gone(display, seconds=5):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if not xdotool(display, "search", "--onlyvisible", "--name", "^Record$").stdout.split():
            return True
        time.sleep(0.25)
    return False


def window_name(display, window):
    return xdotool(display, "getwindowname", window).stdout.strip()


def record_test(display, workdir):
    """Ctrl+R opens the Record dialog.  Where there is no pkexec (CI) it
    stays open and shows the exact command to run with sudo.  Then, with
    a stand-in pkexec (FAKE_PKEXEC): Escape closes the dialog; a failure
    names what failed; a recording shows its elapsed time and its size
    growing, Stop (Alt+S) ends it and it opens; Escape during a recording
    stops it and closes the dialog without opening it."""
    proc, wins = start_viewer_with_window(display, "", workdir)
    try:
        time.sleep(1)
        xdotool(display, "windowactivate", "--sync", wins[0])
        record_dialog(display, "", "true")
        time.sleep(2)
        if proc.poll() is not None:
            t.fail("the viewer died after Record (exit %s)" % proc.returncode)
        if shutil.which("pkexec") is None:
            if find_dialog(display, 1) is None:
                t.fail("without pkexec the Record dialog must stay open with the command to run")
            t.log("no pkexec: the Record dialog stayed open with the command to run")
    finally:
        stop_viewer(proc)

    fake, mode = install_fake_pkexec(workdir, "pingpong.rsp")
    path = fake + ":" + os.environ.get("PATH", "/usr/bin:/bin")
    proc, wins = start_viewer_with_window(display, "", workdir, debug="rsp-ui", extra_env=["PATH=" + path])
    try:
        time.sleep(1)
        xdotool(display, "windowactivate", "--sync", wins[0])
        # Escape closes an idle dialog
        record_dialog(display, "")
        xdotool(display, "key", "Escape")
        if not dialog_gone(display):
            t.fail("Escape did not close the Record dialog")
        # a failure names what failed
        mode("fail")
        record_dialog(display, " the second time", "sleep 60")
        failed = wait_log(workdir, re.compile(r"record: failed: (.*)"), 1)
        if not failed or "perf is not installed" not in failed[0]:
            t.fail("a failed recording did not say what failed: %s" % viewer_log(workdir))
        t.log("a failure showed: %s" % failed[0])
        # a recording: elapsed time and size grow; Stop ends it and it opens
        mode("record")
        before = len(RECORD_TICK.findall(viewer_log(workdir, 1 << 20)))
        xdotool(display, "key", "Return")
        ticks = wait_log(workdir, RECORD_TICK, before + 4, 15)[before:]
        if len(ticks) < 4:
            t.fail("the recording showed no progress: %s" % viewer_log(workdir))
        sizes = [int(b) for _, b in ticks]
        seconds = [int(x) for x, _ in ticks]
        if sizes[-1] <= sizes[1] or seconds[-1] <= seconds[0]:
            t.fail("elapsed time and size did not grow: %s" % ticks)
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-record.png"))
        xdotool(display, "key", "alt+s")
        ended = wait_log(workdir, re.compile(r"record: ended, exit (-?\d+)"), 2, 15)
        if "record: stop" not in viewer_log(workdir, 1 << 20) or len(ended) < 2 or ended[1] != "143":
            t.fail("Alt+S did not stop the recording: %s" % viewer_log(workdir))
        deadline = time.time() + 60
        while not re.match(r"rsp-\d{8}-\d{6}\.rsp$", window_name(display, wins[0])) and time.time() < deadline:
            time.sleep(0.5)
        if not dialog_gone(display) or not re.match(r"rsp-\d{8}-\d{6}\.rsp$", window_name(display, wins[0])):
            t.fail("the stopped recording did not open: %s" % window_name(display, wins[0]))
        opened = window_name(display, wins[0])
        t.log("recording: %d s and %d bytes shown, Stop ended it (exit 143) and it opened as %s"
              % (seconds[-1], sizes[-1], opened))
        # Escape during a recording: stopped, not opened
        time.sleep(1.1)  # another timestamp, so another file name
        record_dialog(display, " the third time", "sleep 60")
        before = len(RECORD_TICK.findall(viewer_log(workdir, 1 << 20)))
        if len(wait_log(workdir, RECORD_TICK, before + 2, 15)) < before + 2:
            t.fail("the second recording showed no progress")
        xdotool(display, "key", "Escape")
        if not dialog_gone(display):
            t.fail("Escape during a recording did not close the dialog")
        time.sleep(3)
        if "record: cancelled, not opened" not in viewer_log(workdir, 1 << 20) or window_name(display, wins[0]) != opened:
            t.fail("Escape during a recording: %s is shown, expected %s still; log: %s"
                   % (window_name(display, wins[0]), opened, viewer_log(workdir)))
        if proc.poll() is not None:
            t.fail("the viewer died (exit %s)" % proc.returncode)
        t.log("Escape during a recording stopped it and closed the dialog; %s stayed open" % opened)
    finally:
        stop_viewer(proc)


def export_test(display, workdir):
    """Ctrl+E exports the visible view: the file chooser takes a path, and a
    PNG of the window's view size appears there."""
    recording = data_copy(workdir, "tcp_loop.rsp")
    target = os.path.join(workdir, "exported.png")
    proc, wins = start_viewer_with_window(display, recording, workdir)
    try:
        if not wait_loaded(display, wins[0], "tcp_loop.rsp", 120):
            t.fail("the recording did not load")
        export_via_dialog(display, wins[0], target, workdir)
        with open(target, "rb") as f:
            head = f.read(24)
        if head[:8] != b"\x89PNG\r\n\x1a\n":
            t.fail("the export is not a PNG")
        w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
        if w < 400 or h < 200:
            t.fail("the exported image is %dx%d" % (w, h))
        t.log("exported the timeline to a %dx%d PNG" % (w, h))
        # a process tab: its view as PDF, its tables as CSV
        if open_flame(display, wins[0], workdir) is None:
            t.fail("no flame view opened (screenshots in %s)" % workdir)
        pdf = export_via_dialog(display, wins[0], os.path.join(workdir, "flame.pdf"), workdir)
        with open(pdf, "rb") as f:
            if not f.read(5) == b"%PDF-":
                t.fail("the PDF export is not a PDF")
        csv_path = export_via_dialog(display, wins[0], os.path.join(workdir, "tables.csv"), workdir)
        with open(csv_path, newline="") as f:
            rows = list(csv.reader(f))
        if rows[0][:3] != ["category", "label", "ms"] or rows[3][0] != "cpu_sampled" or not any(
                r and r[0] == "rank" for r in rows):
            t.fail("the CSV export is not the accounting table and findings: %s" % rows[:4])
        t.log("exported the flame view to PDF (%d bytes) and its tables to CSV (%d rows)"
              % (os.path.getsize(pdf), len(rows)))
    finally:
        stop_viewer(proc)


def export_via_dialog(display, window, target, workdir):
    """Ctrl+E, the path typed into the chooser, Enter; waits for the file."""
    xdotool(display, "windowactivate", "--sync", window)
    xdotool(display, "key", "ctrl+e")
    for _ in range(40):
        if xdotool(display, "search", "--onlyvisible", "--name", "^Export the View$").stdout.split():
            break
        time.sleep(0.25)
    else:
        t.fail("Ctrl+E opened no export dialog")
    time.sleep(0.5)
    xdotool(display, "key", "ctrl+a")
    xdotool(display, "type", "--delay", "10", target)
    xdotool(display, "key", "Return")
    for _ in range(40):
        if os.path.exists(target) and os.path.getsize(target) > 0:
            return target
        time.sleep(0.25)
    screenshot(display, os.path.join(workdir, "export.png"))
    t.fail("nothing was exported to %s (screenshot in %s): %s" % (target, workdir, viewer_log(workdir)))


FINDING_LINE = re.compile(r"finding (\d+), instance (\d+) of (\d+): ([\d.]+)-([\d.]+) ms")


def finding_events(workdir):
    """The viewer's debug lines (domain rsp-ui) for each finding shown."""
    return [tuple(m.groups()) for m in FINDING_LINE.finditer(viewer_log(workdir, 1 << 20))]


def wait_finding_events(workdir, n, seconds=10):
    return wait_log(workdir, FINDING_LINE, n, seconds)


FLAME_LINE = re.compile(r"flame view \((\w+)\): ([\d.]+)-([\d.]+) ms, (\d+) back")


def flame_ranges(workdir):
    """The flame view's debug lines: (why, start ms, end ms, history length)."""
    return [(m.group(1), float(m.group(2)), float(m.group(3)), int(m.group(4)))
            for m in FLAME_LINE.finditer(viewer_log(workdir, 1 << 20))]


def findings_test(display, workdir):
    """Findings that step: ] and [ go through the instances of a finding,
    a click on a finding shows it, a second click on it shows it again."""
    proc, wins = start_loaded(display, workdir, "tcp_loop.rsp")
    try:
        if open_flame(display, wins[0], workdir) is None:
            t.fail("no flame view opened (screenshots in %s)" % workdir)
        x, y, w, h = window_geometry(display, wins[0])
        # the keyboard: nothing selected, ] shows the first finding at its
        # longest instance; ] and [ step from there
        xdotool(display, "mousemove", str(x + w // 3), str(y + h // 2))
        for key, n in (("bracketright", 1), ("bracketright", 2), ("bracketright", 3), ("bracketleft", 4)):
            xdotool(display, "key", key)
            events = wait_finding_events(workdir, n)
            if len(events) < n:
                screenshot(display, os.path.join(workdir, "keys.png"))
                t.fail("key %s showed no finding (%d lines in the log): %s" % (key, len(events), viewer_log(workdir)))
        first = events[0]
        count = int(first[2])
        if count < 2:
            t.fail("the first finding of tcp_loop.rsp happened %d time(s): the test needs one that repeats" % count)
        steps = [int(e[1]) for e in events[:4]]
        k = steps[0]
        want = [k, k % count + 1, (k + 1) % count + 1, k % count + 1]
        if steps != want or any(e[0] != "1" for e in events[:4]):
            t.fail("], ], ], [ showed instances %s of finding(s) %s, expected %s of finding 1"
                   % (steps, [e[0] for e in events[:4]], want))
        times = {(e[3], e[4]) for e in events[:3]}
        if len(times) != 3:
            t.fail("three instances showed %d different time ranges: %s" % (len(times), events[:3]))
        t.log("keys: finding 1 happened %d times; ], ], ], [ showed instances %s" % (count, steps))
        # the zoom history: each finding shown was a jump; Escape goes back
        # through them wherever the focus is (on the findings list now), W
        # zooms in without being remembered, F fits as a jump
        shows = [r for r in flame_ranges(workdir) if r[0] == "show"]
        if len(shows) < 4:
            t.fail("the flame view logged %d jumps for 4 findings shown: %s" % (len(shows), viewer_log(workdir)))
        for key in ("Escape", "Escape", "w", "f", "Escape"):
            xdotool(display, "key", key)
            time.sleep(0.4)
        keys = [r for r in flame_ranges(workdir) if r[0] == "key"][-5:]
        if len(keys) < 5:
            t.fail("the flame view took %d of the keys Escape Escape w f Escape: %s" % (len(keys), viewer_log(workdir)))
        back1, back2, zoomed, fitted, back3 = keys
        want = [(shows[-2][1:3], shows[-2][3]), (shows[-3][1:3], shows[-3][3])]
        if [(back1[1:3], back1[3]), (back2[1:3], back2[3])] != want:
            t.fail("Escape, Escape showed %s, expected the ranges of the jumps before: %s" % (keys[:2], want))
        if not (zoomed[2] - zoomed[1] < back2[2] - back2[1] and zoomed[3] == back2[3]):
            t.fail("w did not zoom in without a history entry: %s after %s" % (zoomed, back2))
        if fitted[3] != zoomed[3] + 1 or back3[1:3] != zoomed[1:3]:
            t.fail("f then Escape: %s, %s; expected a fit remembered and the zoomed range back" % (fitted, back3))
        t.log("zoom history: Escape went back to %.3f-%.3f and %.3f-%.3f ms, w zoomed in, f fitted, Escape undid it"
              % (back1[1], back1[2], back2[1], back2[2]))
        # the pointer: the findings list is under the table in the panel at
        # the right; scroll it into view and click down it until a finding shows
        panel_x = x + w - 200
        xdotool(display, "mousemove", str(panel_x), str(y + h // 2))
        for _ in range(15):
            xdotool(display, "click", "5")
        time.sleep(0.5)
        clicked = None
        for dy in range(h - 60, 100, -24):
            before = len(finding_events(workdir))
            xdotool(display, "mousemove", str(panel_x), str(y + dy), "click", "1")
            events = wait_finding_events(workdir, before + 1, 2)
            if len(events) > before:
                clicked = dy
                break
        if clicked is None:
            screenshot(display, os.path.join(workdir, "panel.png"))
            t.fail("no click on the panel showed a finding (screenshot in %s)" % workdir)
        shown = events[-1]
        time.sleep(1)  # past the double-click time: a second, separate click
        xdotool(display, "mousemove", str(panel_x), str(y + clicked), "click", "1")
        events = wait_finding_events(workdir, len(events) + 1, 5)
        if events[-1] != shown or len(events) < 6:
            t.fail("a second click on finding %s showed %s, expected the same again" % (shown[0], events[-1:]))
        t.log("pointer: a click showed finding %s (instance %s of %s), a second click showed it again"
              % (shown[0], shown[1], shown[2]))
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-findings.png"))
    finally:
        stop_viewer(proc)


SEARCH_LINE = re.compile(r"timeline search: (\d+) of (\d+)")


def search_test(display, workdir):
    """Ctrl+F puts the keyboard in the timeline's search; what is typed
    there stays there (no view key fires); Enter and Shift+Enter step
    through the matches."""
    proc, wins = start_loaded(display, workdir, "tcp_loop.rsp")
    try:
        xdotool(display, "windowactivate", "--sync", wins[0])
        time.sleep(1)
        xdotool(display, "key", "ctrl+f")
        time.sleep(0.5)
        # a w outside the entry would zoom the timeline: type one, take it
        # back, then search for "p" (tcp_loop, perf, python3, ...)
        xdotool(display, "type", "--delay", "80", "w")
        xdotool(display, "key", "BackSpace")
        xdotool(display, "type", "--delay", "80", "p")
        time.sleep(1.5)  # the entry's search-changed delay
        log = viewer_log(workdir, 1 << 20)
        found = SEARCH_LINE.findall(log)
        if not found:
            t.fail("typing in the search showed no match count: %s" % log[-2000:])
        if "timeline (key)" in log:
            t.fail("a key typed into the search entry moved the timeline: %s" % log[-2000:])
        first, n = (int(x) for x in found[-1])
        if first != 1 or n < 3:
            t.fail("'p' matched %d rows (at %d): the test needs three" % (n, first))
        before = len(found)
        for key in ("Return", "Return", "shift+Return"):
            xdotool(display, "key", key)
            time.sleep(0.5)
        time.sleep(1)
        # each key one step, no more
        steps = [int(x[0]) for x in SEARCH_LINE.findall(viewer_log(workdir, 1 << 20))[before:]]
        if steps != [2, 3, 2]:
            t.fail("Enter, Enter, Shift+Enter went to matches %s of %d, expected [2, 3, 2]" % (steps, n))
        t.log("search: 'p' matched %d task rows; Enter, Enter, Shift+Enter went to %s; nothing typed leaked"
              % (n, steps))
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-search.png"))
        # Only matches (Alt+O): the rows that do not match go, the process
        # of interest stays; off again, they come back
        filter_line = re.compile(r"timeline filter (on|off): (\d+) task rows, (\d+) hidden")
        xdotool(display, "key", "alt+o")
        got = wait_log(workdir, filter_line, 1, 5)
        if not got or got[-1][0] != "on" or int(got[-1][2]) == 0:
            t.fail("Only matches hid no row: %s" % got)
        on = got[-1]
        xdotool(display, "key", "alt+o")
        got = wait_log(workdir, filter_line, 2, 5)
        if len(got) < 2 or got[-1][0] != "off" or int(got[-1][2]) != 0 or int(got[-1][1]) <= int(on[1]):
            t.fail("Only matches off did not bring the rows back: %s" % got)
        t.log("Only matches: %s task rows shown, %s hidden; off: %s rows" % (on[1], on[2], got[-1][1]))
        # the flame views' search steps too: through the boxes in time order
        # in the chronological view, each shown
        xdotool(display, "key", "Escape")
        if open_flame(display, wins[0], workdir) is None:
            t.fail("no flame view opened (screenshots in %s)" % workdir)
        xdotool(display, "key", "ctrl+f")
        time.sleep(0.5)
        xdotool(display, "type", "--delay", "80", "recv")
        time.sleep(1.5)
        shows = len([r for r in flame_ranges(workdir) if r[0] == "show"])
        for key in ("Return", "Return", "shift+Return"):
            xdotool(display, "key", key)
            time.sleep(0.6)
        steps = re.findall(r"flame search \(chronological\): (\d+) of (\d+)", viewer_log(workdir, 1 << 20))
        shown = [r for r in flame_ranges(workdir) if r[0] == "show"][shows:]
        if [int(k) for k, _ in steps] != [1, 2, 1] or len(shown) != 3:
            t.fail("Enter, Enter, Shift+Enter in the flame search went to %s and showed %d ranges" % (steps, len(shown)))
        total = int(steps[0][1])
        if total < 3 or not shown[1][1] >= shown[0][1] or shown[2][1:3] != shown[0][1:3]:
            t.fail("'recv' matched %d boxes; the steps showed %s, expected the first, a later one, the first again"
                   % (total, shown))
        t.log("flame search: 'recv' matched %d boxes; Enter, Enter, Shift+Enter showed %.3f, %.3f, %.3f ms"
              % (total, shown[0][1], shown[1][1], shown[2][1]))
    finally:
        stop_viewer(proc)


WIDEST_LINE = re.compile(r"consolidated view \((bottom-up|top-down)\): widest at the bottom: (.+), ([\d.]+) ms")
CALLERS_LINE = re.compile(r"callers of (.+) \((view|table)\): ([\d.]+) ms in all, ([\d.]+) ms itself, (\d+) callers, (\d+) callees")


def callers_test(display, workdir):
    """I turns the consolidated view bottom-up; a click on its widest
    bottom box (the frame with the most time of its own) opens the
    callers/callees table with that frame, whose own time is the box's
    width; a click on a row of the table goes to that caller; I again is
    top-down."""
    proc, wins = start_loaded(display, workdir, "tcp_loop.rsp")
    try:
        if open_flame(display, wins[0], workdir) is None:
            t.fail("no flame view opened (screenshots in %s)" % workdir)
        x, y, w, h = window_geometry(display, wins[0])
        # deep stacks scroll: in a short window the view's content is taller
        # than the view, and a scrollbar at its right edge moves it
        xdotool(display, "windowsize", wins[0], str(w), "430")
        shown = wait_log(workdir, re.compile(r"flame view scrollbar: shown, content (\d+) px in (\d+) px, "
                                             r"at x (-?\d+)-(\d+) y (-?\d+)"), 1)
        if not shown:
            screenshot(display, os.path.join(workdir, "short.png"))
            t.fail("no scrollbar in a window 430 px high (screenshot in %s): %s" % (workdir, viewer_log(workdir)))
        sx, sy, sw, sh = window_geometry(display, wins[0])
        content, height, left, right, top = (int(v) for v in shown[0])
        # the scrollbar is at the view's right edge, its slider at the
        # bottom (the stacks stand there): drag it up; the window may have a
        # border of a few px, so try a few columns
        moved = None
        for dx in range(3, 16, 2):
            px = sx + right - dx
            xdotool(display, "mousemove", str(px), str(sy + top + height - 12), "mousedown", "1")
            for py in range(height - 12, 5, -25):
                xdotool(display, "mousemove", str(px), str(sy + top + py))
                time.sleep(0.03)
            xdotool(display, "mouseup", "1")
            moved = wait_log(workdir, re.compile(r"flame view scrolled by its scrollbar: (\d+) px"), 1, 0.3)
            if moved:
                break
        if not moved:
            screenshot(display, os.path.join(workdir, "short.png"))
            t.fail("no drag along the view's right edge moved its scrollbar (screenshot in %s)" % workdir)
        if int(moved[0]) <= 0:
            t.fail("dragging the scrollbar up left the view at the bottom: %s" % moved)
        t.log("a window 430 px high: the scrollbar showed (content %s px in %s px); dragging it scrolled the "
              "view %s px up" % (shown[0][0], shown[0][1], moved[0]))
        xdotool(display, "windowsize", wins[0], str(w), str(h))
        time.sleep(1)
        x, y, w, h = window_geometry(display, wins[0])
        flame_x = x + 30
        xdotool(display, "mousemove", str(flame_x), str(y + h // 2))
        xdotool(display, "key", "i")
        widest = wait_log(workdir, WIDEST_LINE, 1)
        if not widest or widest[-1][0] != "bottom-up":
            t.fail("I did not show the consolidated view bottom-up: %s" % viewer_log(workdir))
        _, name, own = widest[-1]
        # the bottom row is just above the legend: click up from the window's
        # bottom edge until a box answers
        clicked = None
        for dy in range(h - 8, h // 2, -6):
            xdotool(display, "mousemove", str(flame_x), str(y + dy), "click", "1")
            found = wait_log(workdir, CALLERS_LINE, 1, 0.6)
            if found:
                clicked = dy
                break
        if clicked is None:
            screenshot(display, os.path.join(workdir, "bottom-up.png"))
            t.fail("no click at the bottom of the bottom-up view selected a frame (screenshot in %s)" % workdir)
        first = found[0]
        first = (first[0],) + first[2:]
        if first[0] != name or abs(float(first[2]) - float(own)) > 0.0015 or float(first[1]) < float(first[2]):
            t.fail("the widest bottom box was %s (%s ms of its own); the table showed %s" % (name, own, first))
        t.log("bottom-up: the widest bottom box is %s, %s ms of its own; the table: %s ms in all, %s callers, "
              "%s callees" % (name, own, first[1], first[3], first[4]))
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-callers.png"))
        # the table opened under the view, at the bottom of the window:
        # click up its left column (from below, so as not to reach the
        # view) until a row goes to another frame
        went = None
        if int(first[3]) > 0:
            for dy in range(h - 6, h // 2, -8):
                xdotool(display, "mousemove", str(x + 80), str(y + dy), "click", "1")
                found = wait_log(workdir, CALLERS_LINE, 2, 0.6)
                if len(found) >= 2 and found[-1][1] == "table":
                    went = found[-1]
                    break
            if went is None or went[0] == name:
                screenshot(display, os.path.join(workdir, "table.png"))
                t.fail("no click on the callers table went to a caller of %s (screenshot in %s)" % (name, workdir))
            t.log("a click on the callers table went to %s (%s ms in all)" % (went[0], went[2]))
        xdotool(display, "mousemove", str(flame_x), str(y + h // 3))
        xdotool(display, "key", "i")
        widest = wait_log(workdir, WIDEST_LINE, 2)
        if len(widest) < 2 or widest[-1][0] != "top-down":
            t.fail("I again did not show the view top-down: %s" % viewer_log(workdir))

    finally:
        stop_viewer(proc)


DETAILS_LINE = re.compile(r"details at ([\d.]+) ms: (.*); stretch ([\d.]+)-([\d.]+) ms; jump ([\d.]+)-([\d.]+) ms")


def details_test(display, workdir):
    """A click on a box of the chronological view fills the details pane
    with the moment under the pointer: its stretch (which contains that
    moment), its category and what explains it; its link (Alt+G: go to the
    waker, the disk request, the network wait) shows that range in the
    view."""
    proc, wins = start_loaded(display, workdir, "tcp_loop.rsp")
    try:
        # a click on a run in the timeline: its details under it; Right
        # steps to the task's next run; Alt+G goes to its waker
        time.sleep(1)
        x, y, w, h = window_geometry(display, wins[0])
        item_line = re.compile(r"timeline details: item (\d+) of kind (\d+): (.*); jump ([\d.]+)-([\d.]+) ms")
        found = None
        for dy in range(110, h // 2, 6):
            for fx in (5, 4, 3):
                xdotool(display, "mousemove", str(x + w // fx), str(y + dy), "click", "1")
                got = wait_log(workdir, item_line, 1, 0.3)
                if got and got[-1][2].startswith("a run of"):
                    found = (dy, fx, got[-1])
                    break
            if found:
                break
        if found is None:
            screenshot(display, os.path.join(workdir, "timeline-items.png"))
            t.fail("no click on the timeline showed a run's details (screenshot in %s)" % workdir)
        dy, fx, (item, kind, summary, j0, j1) = found
        t.log("a click on the timeline at +%d px showed run %s: %s" % (dy, item, summary))
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-timeline-details.png"))
        n_before = len(item_line.findall(viewer_log(workdir, 1 << 20)))
        xdotool(display, "key", "Right")
        got = wait_log(workdir, item_line, n_before + 1, 5)
        if len(got) <= n_before or got[-1][0] == item or not got[-1][2].startswith("a run of"):
            t.fail("Right did not step to the task's next run: %s" % (got[-1:],))
        t.log("Right stepped to the next run, %s: %s" % (got[-1][0], got[-1][2]))
        stepped = got[-1]
        if float(stepped[4]) > 0:
            shows = len(re.findall(r"timeline \(show\)", viewer_log(workdir, 1 << 20)))
            xdotool(display, "key", "alt+g")
            time.sleep(1)
            ranges = re.findall(r"timeline \(show\): ([\d.]+)-([\d.]+) ms", viewer_log(workdir, 1 << 20))
            if len(ranges) <= shows:
                t.fail("Alt+G in the timeline's details showed nothing")
            r0, r1 = map(float, ranges[-1])
            if not (r0 <= float(stepped[3]) + 0.001 and r1 >= float(stepped[4]) - 0.001):
                t.fail("Alt+G showed %.3f-%.3f ms for %s-%s ms" % (r0, r1, stepped[3], stepped[4]))
            t.log("Alt+G showed the waker's run %s-%s ms (view %.3f-%.3f ms)" % (stepped[3], stepped[4], r0, r1))
        xdotool(display, "key", "f")
        # a range selected in the timeline (Shift+drag) shows its accounting
        # table and findings in a pane under it
        time.sleep(1)
        x, y, w, h = window_geometry(display, wins[0])
        # tcp_loop runs in the first third of the recording
        xdotool(display, "mousemove", str(x + w // 5), str(y + h // 3))
        xdotool(display, "keydown", "shift", "mousedown", "1")
        for k in range(1, 11):
            xdotool(display, "mousemove", str(x + w // 5 + k * w // 100), str(y + h // 3))
            time.sleep(0.05)
        xdotool(display, "mouseup", "1", "keyup", "shift")
        ranges = wait_log(workdir, re.compile(r"range accounting: ([\d.]+)–([\d.]+) ms, ([\d.]+)% accounted, (\d+) findings"), 1)
        if not ranges:
            screenshot(display, os.path.join(workdir, "range.png"))
            t.fail("Shift+drag on the timeline showed no accounting of the range (screenshot in %s)" % workdir)
        r0, r1, pct, nf = ranges[-1]
        if not float(r1) > float(r0) or float(pct) <= 0:
            t.fail("the range's accounting: %s" % (ranges[-1],))
        t.log("Shift+drag selected %s-%s ms: its accounting (%s%% accounted, %s findings) opened under the timeline"
              % (r0, r1, pct, nf))
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-range.png"))
        if open_flame(display, wins[0], workdir) is None:
            t.fail("no flame view opened (screenshots in %s)" % workdir)
        x, y, w, h = window_geometry(display, wins[0])
        found = None
        clicks = 0

        def click(px, py):
            """One click; the details line it logged, or None."""
            before = len(DETAILS_LINE.findall(viewer_log(workdir, 1 << 20)))
            xdotool(display, "mousemove", str(px), str(py), "click", "1")
            lines = wait_log(workdir, DETAILS_LINE, before + 1, 0.6)
            xdotool(display, "key", "f")  # the click zoomed to the box: back to all of it
            if len(lines) <= before:
                return None
            at, summary, s0, s1, j0, j1 = lines[-1]
            if not float(s0) <= float(at) <= float(s1):
                t.fail("details at %s ms showed the stretch %s-%s ms, which does not contain it" % (at, s0, s1))
            return lines[-1]

        # the lowest row that answers is the control path's task row: every
        # moment of the path is under it; then sweep it for a moment that a
        # wake-up explains (the wait for a CPU after one)
        row = None
        for attempt in (1, 2):  # the first details shown open the pane, which moves the rows up
            row = None
            for dy in range(h - 40, h // 4, -8):
                clicks += 1
                if click(x + w // 4, y + dy) is not None:
                    row = dy
                    break
            if row is None:
                t.fail("no click on the chronological view showed details")
        for k in range(1, 60):
            clicks += 1
            line = click(x + int(w * 0.55 * k / 60), y + row)
            if line is not None and float(line[5]) > 0 and "woken by" in line[1]:
                found = line
                break
        if found is None:
            screenshot(display, os.path.join(workdir, "details.png"))
            t.fail("%d clicks on the chronological view showed no moment explained by a wake-up (screenshot in %s)"
                   % (clicks, workdir))
        at, summary, s0, s1, j0, j1 = found
        t.log("details at %s ms: %s (stretch %s-%s ms), after %d clicks" % (at, summary, s0, s1, clicks))
        # screen readers: each view says what is selected in it (item 9)
        log = viewer_log(workdir, 1 << 20)
        timeline_a11y = re.findall(r"a11y: RspTimelineWidget: Selected: (.*)", log)
        flame_a11y = re.findall(r"a11y: RspFlameWidget: Selected: (.*)", log)
        if not timeline_a11y or not re.search(r"\(pid \d+, tid \d+\)", timeline_a11y[-1]):
            t.fail("the timeline did not describe the task clicked: %s" % timeline_a11y[:3])
        if not flame_a11y or not any("in tcp_loop (pid" in a for a in flame_a11y):
            t.fail("the flame view did not describe the box clicked: %s" % flame_a11y[-3:])
        t.log("accessible descriptions: timeline '%s', flame view '%s'" % (timeline_a11y[0], flame_a11y[-1]))
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-details.png"))
        shows = len([r for r in flame_ranges(workdir) if r[0] == "show"])
        xdotool(display, "key", "alt+g")
        time.sleep(1)
        ranges = [r for r in flame_ranges(workdir) if r[0] == "show"]
        if len(ranges) <= shows:
            t.fail("Alt+G (go to the waker) showed nothing: %s" % viewer_log(workdir))
        _, r0, r1, _ = ranges[-1]
        if not (r0 <= float(j0) + 0.0015 and r1 >= float(j1) - 0.0015 and r1 - r0 <= 2 * (float(j1) - float(j0)) + 0.01):
            t.fail("Alt+G showed %.3f-%.3f ms for the waker's run at %s-%s ms" % (r0, r1, j0, j1))
        t.log("Alt+G went to the waker's run, %s-%s ms (shown %.3f-%.3f ms)" % (j0, j1, r0, r1))
        # every control path from a list (Alt+P, the Paths button): a click
        # on one shows its time range in the chronological view
        xdotool(display, "key", "alt+p")
        time.sleep(1)
        path_line = re.compile(r"control path #(\d+) shown: ([\d.]+)-([\d.]+) ms")
        shown = None
        for dy in range(h - 30, h // 2, -8):
            xdotool(display, "mousemove", str(x + 150), str(y + dy), "click", "1")
            got = wait_log(workdir, path_line, 1, 0.4)
            if got:
                shown = got[-1]
                break
        if shown is None:
            screenshot(display, os.path.join(workdir, "paths.png"))
            t.fail("no click on the control paths' list showed a path (screenshot in %s)" % workdir)
        time.sleep(0.5)
        ranges = [r for r in flame_ranges(workdir) if r[0] == "show"]
        _, r0, r1, _ = ranges[-1]
        if not (r0 <= float(shown[1]) + 0.0015 and r1 >= float(shown[2]) - 0.0015):
            t.fail("control path #%s (%s-%s ms) was shown as %.3f-%.3f ms" % (shown[0], shown[1], shown[2], r0, r1))
        t.log("the Paths list showed control path #%s, %s-%s ms" % shown)
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-paths.png"))
    finally:
        stop_viewer(proc)


FLAME_SELECTION_LINE = re.compile(r"flame selection \((chronological|consolidated), (click|key)\): (.*), row (\d+), "
                            r"([\d.]+)-([\d.]+) ms, at (-?\d+),(-?\d+)")


def keys_test(display, workdir):
    """The arrow keys move the selection in the flame views: Up to the
    widest box standing on the selected one (one row up, inside its span),
    Down back to the box it stands on, Right and Left along the row; each
    move fills the details pane and says what is selected to a screen
    reader; Z zooms to the selected box.  In the consolidated view an
    arrow with nothing selected selects the widest box at the base."""
    proc, wins = start_loaded(display, workdir, "tcp_loop.rsp")
    try:
        # the timeline's rows: the process of interest, then the processes
        # on its control paths, as the analysis lists them
        report = json.loads(subprocess.check_output([t.rsp_path(), "report", "--json",
                                                     os.path.join(os.environ["RSP_SOURCE_ROOT"], "tests", "data",
                                                                  "tcp_loop.rsp")]))
        order = wait_log(workdir, re.compile(r"timeline: control paths first: (\d+) processes; rows of ([\d ]+)"), 1)
        if not order:
            t.fail("the timeline was not ordered by the control paths: %s" % viewer_log(workdir))
        n, rows = int(order[-1][0]), [int(p) for p in order[-1][1].split()]
        if n < 2 or rows[0] != report["target"]["pid"]:
            t.fail("control paths first: %d processes, rows of %s; the process of interest is %d"
                   % (n, rows, report["target"]["pid"]))
        t.log("the timeline's rows: the process of interest %d, then the control paths' %d others: %s"
              % (rows[0], n - 1, " ".join(map(str, rows[1:n]))))
        if open_flame(display, wins[0], workdir) is None:
            t.fail("no flame view opened (screenshots in %s)" % workdir)
        x, y, w, h = window_geometry(display, wins[0])

        def selections():
            return FLAME_SELECTION_LINE.findall(viewer_log(workdir, 1 << 20))

        def key(name, expect_move=True):
            before = len(selections())
            xdotool(display, "key", name)
            got = wait_log(workdir, FLAME_SELECTION_LINE, before + 1, 2 if expect_move else 0.6)
            return got[-1] if len(got) > before else None

        # the lowest box that answers a click: a control path's task row
        clicked = None
        for attempt in (1, 2):  # the first details shown open the pane, which moves the rows up
            for dy in range(h - 40, h // 4, -8):
                n = len(selections())
                xdotool(display, "mousemove", str(x + w // 4), str(y + dy), "click", "1")
                got = wait_log(workdir, FLAME_SELECTION_LINE, n + 1, 0.6)
                if len(got) > n:
                    clicked = got[-1]
                    break
            if clicked is None:
                screenshot(display, os.path.join(workdir, "flame.png"))
                t.fail("no click on the chronological view selected a box (screenshot in %s)" % workdir)
        mode, how, name, row, s0, s1, _, _ = clicked
        if mode != "chronological" or how != "click":
            t.fail("the click was logged as %s" % (clicked,))
        t.log("a click selected %s, row %s, %s-%s ms" % (name, row, s0, s1))
        details_before = len(DETAILS_LINE.findall(viewer_log(workdir, 1 << 20)))
        # Up to the top of the stack: one row up each time, inside the span
        # of the box below (boxes merge at the zoom shown: 2 µs of slack)
        path = [clicked]
        for _ in range(40):
            got = key("Up", expect_move=len(path) == 1)
            if got is None:
                break
            below = path[-1]
            if got[1] != "key" or int(got[3]) != int(below[3]) + 1:
                t.fail("Up went from row %s to %s: %s" % (below[3], got[3], got))
            if float(got[4]) < float(below[4]) - 0.002 or float(got[5]) > float(below[5]) + 0.002:
                t.fail("Up went to %s (%s-%s ms), outside %s (%s-%s ms)" % (got[2], got[4], got[5], below[2],
                                                                            below[4], below[5]))
            path.append(got)
        if len(path) < 3:
            screenshot(display, os.path.join(workdir, "up.png"))
            t.fail("Up moved the selection %d times from the task row (screenshot in %s)" % (len(path) - 1, workdir))
        t.log("Up went %d rows up the stack: %s" % (len(path) - 1, " > ".join(p[2] for p in path)))
        if len(DETAILS_LINE.findall(viewer_log(workdir, 1 << 20))) <= details_before:
            t.fail("moving the selection did not show its details")
        a11y = re.findall(r"a11y: RspFlameWidget: Selected: (.*)", viewer_log(workdir, 1 << 20))
        if not a11y or not a11y[-1].startswith(path[-1][2] + ","):
            t.fail("the flame view described '%s' after Up selected %s" % (a11y[-1:], path[-1][2]))
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-keys.png"))
        # Down retraces the way up, box for box
        for want in reversed(path[:-1]):
            got = key("Down")
            if got is None or got[2:6] != want[2:6]:
                t.fail("Down went to %s, not back to %s" % (got, want))
        t.log("Down went back to %s" % path[0][2])
        # along a row: at the first level up the stack that has a
        # neighbour, Right (or Left) goes to it, the other key back
        along = None
        for level in range(len(path)):
            if level > 0 and key("Up") is None:
                break
            cur = selections()[-1]
            for there, back in (("Right", "Left"), ("Left", "Right")):
                got = key(there, expect_move=False)
                if got is None:
                    continue
                later = float(got[4]) >= float(cur[5]) - 0.002
                if got[3] != cur[3] or later != (there == "Right"):
                    t.fail("%s from %s (row %s, %s-%s ms) went to %s" % (there, cur[2], cur[3], cur[4], cur[5], got))
                returned = key(back)
                if returned is None or returned[2:6] != cur[2:6]:
                    t.fail("%s after %s went to %s, not back to %s" % (back, there, returned, cur))
                along = (there, cur, got)
                break
            if along:
                break
        if along is None:
            t.fail("no row of the stack had a neighbour that Right or Left went to")
        there, cur, got = along
        t.log("%s went along row %s from %s (%s-%s ms) to %s (%s-%s ms), and back"
              % (there, cur[3], cur[2], cur[4], cur[5], got[2], got[4], got[5]))
        got = cur
        # Z: the selected box fills the view
        shows = len([r for r in flame_ranges(workdir) if r[0] == "show"])
        xdotool(display, "key", "z")
        time.sleep(0.6)
        ranges = [r for r in flame_ranges(workdir) if r[0] == "show"]
        if len(ranges) <= shows:
            t.fail("Z did not zoom to the selected box")
        _, r0, r1, _ = ranges[-1]
        b0, b1 = float(got[4]), float(got[5])
        if not (r0 <= b0 + 0.0015 and r1 >= b1 - 0.0015 and r1 - r0 <= 1.2 * (b1 - b0) + 0.01):
            t.fail("Z showed %.3f-%.3f ms for the box at %.3f-%.3f ms" % (r0, r1, b0, b1))
        t.log("Z showed %.3f-%.3f ms for the box at %.3f-%.3f ms" % (r0, r1, b0, b1))
        # the consolidated view (I: bottom-up): an arrow selects the widest
        # box at the base, Up a box on it, Down back
        xdotool(display, "mousemove", str(x + 30), str(y + h // 2))
        xdotool(display, "key", "i")
        widest = wait_log(workdir, WIDEST_LINE, 1)
        if not widest:
            t.fail("I did not show the consolidated view")
        base = key("Up")
        if base is None or base[0] != "consolidated" or base[3] != "0" or base[2] != widest[-1][1]:
            t.fail("an arrow in the consolidated view selected %s, not its widest base box %s" % (base, widest[-1]))
        up = key("Up")
        if up is None or up[3] != "1" or float(up[5]) - float(up[4]) > float(base[5]) - float(base[4]) + 0.001:
            t.fail("Up from %s selected %s" % (base[2], up))
        down = key("Down")
        if down is None or down[2:6] != base[2:6]:
            t.fail("Down from %s went to %s, not back to %s" % (up[2], down, base[2]))
        callers = wait_log(workdir, CALLERS_LINE, 1, 2)
        if not callers or callers[-1][0] != base[2]:
            t.fail("the callers table did not follow the selection to %s: %s" % (base[2], callers[-1:]))
        t.log("consolidated: an arrow selected %s (%s-%s ms), Up %s, Down back; the callers table shows %s"
              % (base[2], base[4], base[5], up[2], callers[-1][0]))
    finally:
        stop_viewer(proc)


def open_with_dialog(display, window, path, key="ctrl+o", title="Open a Recording"):
    """KEY (Ctrl+O), type PATH into the file chooser titled TITLE, Enter."""
    xdotool(display, "windowactivate", "--sync", window)
    xdotool(display, "key", key)
    for _ in range(40):
        if xdotool(display, "search", "--onlyvisible", "--name", "^%s$" % title).stdout.split():
            break
        time.sleep(0.25)
    else:
        t.fail("%s opened no file chooser" % key)
    time.sleep(0.5)
    # GTK's chooser: typing a leading "/" opens its location entry
    xdotool(display, "type", "--delay", "10", path)
    time.sleep(0.3)
    xdotool(display, "key", "Return")


def viewer_rss_kb(proc):
    """The viewer's resident memory (runuser starts it as a child)."""
    todo = [proc.pid]
    while todo:
        pid = todo.pop()
        try:
            with open("/proc/%d/comm" % pid) as f:
                comm = f.read().strip()
            if comm in ("rsp", "rsp-view"):  # the viewer is rsp-view, which rsp executes
                with open("/proc/%d/status" % pid) as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            return int(line.split()[1])
        except OSError:
            pass
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        todo += [int(c) for c in out]
    return None


def open_callers(display, window, workdir):
    """I, then a click at the bottom of the bottom-up view: the callers
    table opens.  True if it did."""
    x, y, w, h = window_geometry(display, window)
    before = len(CALLERS_LINE.findall(viewer_log(workdir, 1 << 20)))
    xdotool(display, "mousemove", str(x + 30), str(y + h // 2))
    xdotool(display, "key", "i")
    time.sleep(0.5)
    for dy in range(h - 8, h // 2, -6):
        xdotool(display, "mousemove", str(x + 30), str(y + dy), "click", "1")
        if len(wait_log(workdir, CALLERS_LINE, before + 1, 0.5)) > before:
            return True
    return False


def reopen_test(display, workdir):
    """Open recording after recording into one window, 20 times, each time
    with a process tab open (the old model once went away under its flame
    pages and the viewer died of a use-after-free), some with the
    bottom-up view and the callers table open, some with a tab closed
    (Ctrl+W) and opened again first, every fifth made with Record…: the viewer stays up, shows each
    recording, and its memory after the 20th stays within 10% of after the
    first (both recordings loaded once by then).  Under AddressSanitizer
    (the asan build runs it too) every step is checked for memory errors."""
    names = ["tcp_loop.rsp", "pingpong.rsp"]
    for name in names:
        data_copy(workdir, name)
    # a small quarantine, so that AddressSanitizer's memory levels off as
    # the allocator's does (no effect without it)
    os.environ["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=16"
    # every fifth recording comes from Record… (a stand-in pkexec, as in
    # record_test), started and stopped while a process tab is open
    fake, mode = install_fake_pkexec(workdir, names[0])
    mode("record")
    path = fake + ":" + os.environ.get("PATH", "/usr/bin:/bin")
    proc, wins = start_viewer_with_window(display, os.path.join(workdir, names[0]), workdir, debug="rsp-ui",
                                          extra_env=["PATH=" + path])
    cycles = int(os.environ.get("RSP_REOPEN_CYCLES", "20"))
    first_rss = None
    try:
        if not wait_loaded(display, wins[0], names[0], 120):
            t.fail("the first recording did not load")
        hints = {}
        for cycle in range(cycles):
            current = names[cycle % 2]
            opened = open_flame(display, wins[0], workdir, hints.get(current))
            if opened is None:
                t.fail("cycle %d: no flame view opened in %s" % (cycle, current))
            hints[current] = opened[0]
            if cycle % 3 == 2:
                closed = len(re.findall("closed the tab", viewer_log(workdir, 1 << 20)))
                xdotool(display, "key", "ctrl+w")
                time.sleep(0.5)
                if len(re.findall("closed the tab", viewer_log(workdir, 1 << 20))) != closed + 1:
                    t.fail("cycle %d: Ctrl+W did not close the process tab" % cycle)
                if open_flame(display, wins[0], workdir, hints[current]) is None:
                    t.fail("cycle %d: no flame view opened again after Ctrl+W" % cycle)
            if cycle % 2 == 1 and not open_callers(display, wins[0], workdir):
                t.fail("cycle %d: no callers table opened in the bottom-up view of %s" % (cycle, current))
            following = names[(cycle + 1) % 2]
            if cycle % 5 == 4:
                shutil.copy(os.path.join(workdir, following), os.path.join(fake, "recording.rsp"))
                ended = len(re.findall(r"record: ended, exit 143", viewer_log(workdir, 1 << 20)))
                record_dialog(display, " over the process tab in cycle %d" % cycle, "sleep 60")
                time.sleep(2)
                xdotool(display, "key", "alt+s")
                deadline = time.time() + 60
                while time.time() < deadline and (
                        len(re.findall(r"record: ended, exit 143", viewer_log(workdir, 1 << 20))) <= ended
                        or not re.match(r"rsp-\d{8}-\d{6}\.rsp$", window_name(display, wins[0]))):
                    time.sleep(0.5)
                if not re.match(r"rsp-\d{8}-\d{6}\.rsp$", window_name(display, wins[0])):
                    t.fail("cycle %d: the recording made with Record… did not open: %s"
                           % (cycle, viewer_log(workdir)))
                time.sleep(1.1)  # the next recording gets another name
            else:
                open_with_dialog(display, wins[0], os.path.join(workdir, following))
            if cycle % 5 != 4 and not wait_loaded(display, wins[0], following, 120):
                if proc.poll() is not None:
                    t.fail("cycle %d: the viewer died (exit %s) opening %s with a flame tab open; log: %s"
                           % (cycle, proc.returncode, following, viewer_log(workdir)))
                screenshot(display, os.path.join(workdir, "reopen.png"))
                t.fail("cycle %d: %s did not load (screenshot in %s)" % (cycle, following, workdir))
            time.sleep(1)
            if proc.poll() is not None:
                t.fail("cycle %d: the viewer died (exit %s) after opening %s" % (cycle, proc.returncode, following))
            rss = viewer_rss_kb(proc)
            if rss is None:
                t.fail("cycle %d: cannot read the viewer's memory" % cycle)
            if first_rss is None:
                first_rss = rss
        growth = 100.0 * (rss - first_rss) / first_rss
        t.log("opened %d recordings in turn, each over an open process tab (bottom-up and callers in every "
              "second, a tab closed and reopened in every third, every fifth recorded with Record…); the viewer "
              "stayed up; memory %d MB after the "
              "first, %d MB after the last (%+.1f%%)" % (cycles, first_rss // 1024, rss // 1024, growth))
        if cycles >= 10 and rss > first_rss * 1.10:
            t.fail("the viewer's memory grew from %d to %d kB (%+.1f%%) over %d recordings: a leak across "
                   "recordings" % (first_rss, rss, growth, cycles))
    finally:
        stop_viewer(proc)
    log = open(os.path.join(workdir, "viewer.log")).read()
    if "ERROR: AddressSanitizer" in log or "runtime error:" in log:
        t.fail("the sanitizers reported an error: %s" % log[-3000:])


BAR_LINE = re.compile(r"histogram bar (\d+) of (\d+): (\d+) requests, at (-?\d+),(-?\d+) in the window")
SELECTION_LINE = re.compile(r"requests selection: bins (-?\d+)-(-?\d+), (\d+) requests \((\d+) slow\), "
                            r"([\d.]+)-([\d.]+) ms, (\d+) others")
GROUP_LINE = re.compile(r"group flame: (\d+) analyses against (\d+), ([\d.]+) ms in all; gained most: (.*)")


def requests_test(display, workdir):
    """A recording of rsp record --repeat opens on its requests view: the
    histogram (8 runs of slow_every, 2 slow through a 40 ms sleep), the
    slow tail selected and drawn against the others as a differential
    flame whose reddest box is that sleep; a click on a bar selects its
    requests, a drag across the bars selects all of them, Escape goes back
    to the slow tail; a click on a request of the list opens its own flame
    views; Ctrl+E exports the histogram."""
    proc, wins = start_loaded(display, workdir, "requests.rsp")
    try:
        first = wait_log(workdir, re.compile(r"requests view: (\d+) requests, (\d+) slow, first cause: (.*)"), 1, 30)
        if not first:
            screenshot(display, os.path.join(workdir, "requests.png"))
            t.fail("the --repeat recording did not open on its requests view: %s" % viewer_log(workdir))
        n, n_slow, cause = first[-1]
        if (n, n_slow) != ("8", "2") or "clock_nanosleep" not in cause:
            t.fail("requests view: %s requests, %s slow, first cause %r (want 8, 2, the sleep)" % first[-1])
        t.log("opened on its requests view: %s requests, %s slow; first cause: %s" % (n, n_slow, cause))
        sel = wait_log(workdir, SELECTION_LINE, 1, 10)
        if not sel or sel[-1][2:4] != ("2", "2"):
            t.fail("the slow tail was not selected at first: %s" % sel)
        groups = wait_log(workdir, GROUP_LINE, 1, 20)
        diff = [g for g in groups if g[1] != "0"]
        if not diff or diff[-1][0] != "2" or " < clock_nanosleep < " not in diff[-1][3]:
            t.fail("the slow tail against the others: %s (want 2 requests whose sleep gained most)" % groups)
        t.log("differential flame: the 2 slow requests against the others, %s ms; gained most: %s"
              % (diff[-1][2], diff[-1][3]))
        time.sleep(1)
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-requests.png"))
        bars = wait_log(workdir, BAR_LINE, 2, 10)
        if len(bars) < 2:
            t.fail("no histogram bars were drawn: %s" % viewer_log(workdir))
        x, y, w, h = window_geometry(display, wins[0])
        # the fast bar: the one with the most requests
        fast = max(bars, key=lambda b: int(b[2]))
        before = len(SELECTION_LINE.findall(viewer_log(workdir, 1 << 20)))
        xdotool(display, "mousemove", str(x + int(fast[3])), str(y + int(fast[4])), "click", "1")
        sel = wait_log(workdir, SELECTION_LINE, before + 1, 10)
        if len(sel) <= before or sel[-1][0] != fast[0] or sel[-1][2] != fast[2] or sel[-1][3] != "0":
            t.fail("a click on bar %s (%s requests) selected %s" % (fast[0], fast[2], sel[-1] if sel else None))
        t.log("a click on bar %s selected its %s requests (%s others)" % (fast[0], sel[-1][2], sel[-1][6]))
        # a drag from the first bar to the last selects them all
        lo, hi = min(bars, key=lambda b: int(b[0])), max(bars, key=lambda b: int(b[0]))
        before = len(sel)
        xdotool(display, "mousemove", str(x + int(lo[3])), str(y + int(lo[4])), "mousedown", "1")
        for k in range(1, 11):
            px = int(lo[3]) + (int(hi[3]) - int(lo[3])) * k // 10
            xdotool(display, "mousemove", str(x + px), str(y + int(lo[4])))
            time.sleep(0.05)
        xdotool(display, "mouseup", "1")
        # each bar crossed selects anew: wait for the last one (slow under ASan)
        deadline = time.time() + 20
        while True:
            sel = wait_log(workdir, SELECTION_LINE, before + 1, 1)
            if (len(sel) > before and sel[-1][2] == "8") or time.time() > deadline:
                break
        if sel[-1][2] != "8" or sel[-1][6] != "0":
            t.fail("a drag across the histogram selected %s" % (sel[-1],))
        t.log("a drag from bar %s to bar %s selected all %s requests" % (lo[0], hi[0], sel[-1][2]))
        before = len(sel)
        xdotool(display, "key", "Escape")
        sel = wait_log(workdir, SELECTION_LINE, before + 1, 10)
        if len(sel) <= before or sel[-1][2:4] != ("2", "2"):
            t.fail("Escape did not go back to the slow tail: %s" % (sel[-1],))
        before = len(sel)
        xdotool(display, "key", "Left")
        sel = wait_log(workdir, SELECTION_LINE, before + 1, 10)
        if len(sel) <= before or sel[-1][0] == "0":
            t.fail("Left did not select the bar before the slow tail: %s" % (sel[-1],))
        left_bar = sel[-1][0]
        before = len(sel)
        xdotool(display, "key", "Escape")
        sel = wait_log(workdir, SELECTION_LINE, before + 1, 10)
        if len(sel) <= before or sel[-1][2:4] != ("2", "2"):
            t.fail("Escape did not go back to the slow tail: %s" % (sel[-1],))
        t.log("Escape went back to the slow tail; Left moved the selection to bar %s" % left_bar)
        # the list of the selected (slow) requests, under the histogram (the
        # bars' logged y is 40 px above its bottom edge): a click opens one
        opened = None
        for dy in range(int(fast[4]) + 48, h - 20, 8):
            xdotool(display, "mousemove", str(x + 120), str(y + dy), "click", "1")
            got = wait_log(workdir, re.compile(r"opened request (\d+): pid (\d+), ([\d.]+) ms, (\d+) control paths"),
                           1, 0.4)
            if got:
                opened = got[-1]
                break
        if opened is None:
            screenshot(display, os.path.join(workdir, "list.png"))
            t.fail("no click on the request list opened a request (screenshot in %s)" % workdir)
        if float(opened[2]) < 40:
            t.fail("the first request of the slow tail's list took %s ms: the list is not the slow ones" % opened[2])
        t.log("a click on the list opened request %s (%s ms, %s control paths) in a tab of its own"
              % (opened[0], opened[2], opened[3]))
        time.sleep(1)
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-request.png"))
    finally:
        stop_viewer(proc)


COMPARED_LINE = re.compile(r"compared (\S+) \(pid (\d+), ([\d.]+) ms\) with (\S+) \(pid (\d+), ([\d.]+) ms\); "
                           r"changed most: (\S+) (\S+) ([-+][\d.]+) ms")


def compare_test(display, workdir):
    """Two recordings side by side: diff-before.rsp open, Ctrl+D and the
    file chooser pick diff-after.rsp (the same workload with a 40 ms sleep
    added); a tab opens with the differential flame and both accounting
    tables, and what changed most is that sleep, +40 ms.  A recording with
    no matching process gives an error dialog instead."""
    proc, wins = start_loaded(display, workdir, "diff-before.rsp")
    try:
        after = data_copy(workdir, "diff-after.rsp")
        open_with_dialog(display, wins[0], after, "ctrl+d", "Compare With a Recording")
        got = wait_log(workdir, COMPARED_LINE, 1, 60)
        if not got:
            screenshot(display, os.path.join(workdir, "compare.png"))
            t.fail("no comparison tab opened (screenshot in %s): %s" % (workdir, viewer_log(workdir)))
        a, pid_a, ms_a, b, pid_b, ms_b, cat, frame, delta = got[-1]
        if (a, b) != ("diff-before.rsp", "diff-after.rsp") or cat != "sleep" or frame != "clock_nanosleep" \
                or not 35 <= float(delta) <= 45:
            t.fail("the comparison: %s (want the 40 ms clock_nanosleep sleep added in B first)" % (got[-1],))
        groups = wait_log(workdir, GROUP_LINE, 1, 10)
        if not groups or groups[-1][1] != "1" or " < clock_nanosleep < " not in groups[-1][3]:
            t.fail("the differential flame: %s (want clock_nanosleep reddest)" % groups)
        t.log("compared %s (pid %s, %s ms) with %s (pid %s, %s ms): changed most %s under %s, %s ms; "
              "the differential flame gained most in %s" % (a, pid_a, ms_a, b, pid_b, ms_b, cat, frame, delta,
                                                           groups[-1][3]))
        time.sleep(1)
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-compare.png"))
        # a recording of something else: an error dialog names the process
        other = data_copy(workdir, "pingpong.rsp")
        open_with_dialog(display, wins[0], other, "ctrl+d", "Compare With a Recording")
        for _ in range(40):
            found = xdotool(display, "search", "--onlyvisible", "--name", "^Could not compare the recordings$").stdout.split()
            if found:
                break
            time.sleep(0.25)
        else:
            screenshot(display, os.path.join(workdir, "compare-error.png"))
            t.fail("comparing with an unrelated recording showed no error dialog (screenshot in %s)" % workdir)
        t.log("comparing with pingpong.rsp (no process of the same command): an error dialog")
        xdotool(display, "key", "Escape")
    finally:
        stop_viewer(proc)


def fold_test(display, workdir):
    """Threads folded: in forkexec.rsp perf's two threads share one row,
    marked with a triangle (the process of interest's threads have rows of
    their own); a click on a process's mark folds or unfolds it, a second
    click undoes it."""
    # drawn with the renderer the user asks for: GTK's OpenGL one, which
    # the viewer would not take by itself on a machine without a GPU
    proc, wins = start_loaded(display, workdir, "forkexec.rsp", extra_env=["GSK_RENDERER=gl"])
    try:
        check_renderer(workdir, "gl")
        time.sleep(1)
        x, y, w, h = window_geometry(display, wins[0])
        fold_line = re.compile(r"timeline: process (\d+) (folded|unfolded), (\d+) task rows")
        marks = wait_log(workdir, re.compile(r"timeline fold mark: process (\d+), (\d+) threads, (folded|unfolded), "
                                             r"at (-?\d+),(-?\d+) in the window"), 1, 10)
        folded = [m for m in marks if m[2] == "folded"]
        if not folded:
            t.fail("no folded process in the timeline: %s" % marks)
        mpid, threads, _, mx, my = folded[0]
        xdotool(display, "mousemove", str(x + int(mx)), str(y + int(my)), "click", "1")
        got = wait_log(workdir, fold_line, 1, 5)
        if not got or got[-1][0] != mpid or got[-1][1] != "unfolded":
            t.fail("a click on process %s's fold mark did not unfold it: %s" % (mpid, got))
        hit = (int(mx), int(my), got[-1])
        dx, dy, (pid, what, rows) = hit
        t.log("process %s (%s threads) was folded into one row" % (mpid, threads))
        time.sleep(0.5)
        screenshot(display, os.path.join(os.environ["RSP_BUILD_ROOT"], "tests", "gui-fold.png"))
        xdotool(display, "mousemove", str(x + dx), str(y + dy), "click", "1")
        got = wait_log(workdir, fold_line, 2, 5)
        again = "folded" if what == "unfolded" else "unfolded"
        fewer = (lambda a, b: a < b) if again == "folded" else (lambda a, b: a > b)
        if len(got) < 2 or got[-1][0] != pid or got[-1][1] != again or not fewer(int(got[-1][2]), int(rows)):
            t.fail("a second click on process %s's mark did not undo the first (%s, %s rows): %s"
                   % (pid, what, rows, got))
        t.log("process %s: a click on its mark %s it (%s task rows), a second %s it (%s rows)"
              % (pid, what, rows, again, got[-1][2]))
    finally:
        stop_viewer(proc)


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "flame"
    for tool in ("Xvfb", "xdotool", "import", "convert"):
        need(tool)
    workdir = tempfile.mkdtemp(prefix="rsp-gui-")
    os.chmod(workdir, 0o777)
    display = Display()
    try:
        if what == "flame":
            flame_test(display, workdir)
        elif what == "record":
            record_test(display, workdir)
        elif what == "export":
            export_test(display, workdir)
        elif what == "reopen":
            reopen_test(display, workdir)
        elif what == "findings":
            findings_test(display, workdir)
        elif what == "search":
            search_test(display, workdir)
        elif what == "callers":
            callers_test(display, workdir)
        elif what == "details":
            details_test(display, workdir)
        elif what == "requests":
            requests_test(display, workdir)
        elif what == "compare":
            compare_test(display, workdir)
        elif what == "fold":
            fold_test(display, workdir)
        elif what == "keys":
            keys_test(display, workdir)
        else:
            error_test(display, workdir)
    finally:
        display.close()
    shutil.rmtree(workdir, ignore_errors=True)
    t.log("PASS")


if __name__ == "__main__":
    main()
