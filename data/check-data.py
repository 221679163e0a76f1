#!/usr/bin/env python3
"""Checks of RSP's desktop integration files (the meson suite 'data').

  check-data.py desktop DESKTOP MIME_XML
  check-data.py metainfo METAINFO DESKTOP ICON MIME_XML
  check-data.py icon SVG SIZE
  check-data.py mime MIME_XML RECORDING PLAIN_PERF_DATA

Exit codes follow meson: 0 pass, 77 skip, anything else fail.  A missing
tool skips locally and fails under CI=true, as in tests/scripts/rsptest.py.
"""

import configparser
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SKIP = 77
MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"
SVG_NS = "{http://www.w3.org/2000/svg}"


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def need(tool, package):
    path = shutil.which(tool)
    if path:
        return path
    reason = "{} not found (Debian package {}; scripts/install-deps.sh --test)".format(tool, package)
    if os.environ.get("CI", "").lower() == "true":
        fail(reason + " (CI=true: a missing prerequisite is a failure)")
    print("SKIP: " + reason, flush=True)
    sys.exit(SKIP)


def run(argv, **kwargs):
    """Run argv, echo its output, fail on a non-zero exit."""
    print("$ " + " ".join(argv), flush=True)
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, **kwargs)
    if proc.stdout:
        print(proc.stdout.rstrip(), flush=True)
    if proc.returncode != 0:
        fail("{} exited with {}".format(argv[0], proc.returncode))
    return proc.stdout


def mime_types(mime_xml):
    root = ET.parse(mime_xml).getroot()
    return {t.get("type") for t in root.findall(MIME_NS + "mime-type")}


def read_desktop(path):
    parser = configparser.RawConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def check_desktop(desktop, mime_xml):
    validate = need("desktop-file-validate", "desktop-file-utils")
    out = run([validate, desktop])
    # desktop-file-validate exits 0 on warnings and hints: keep it silent.
    if out.strip():
        fail("desktop-file-validate reported problems")
    entry = read_desktop(desktop)
    app_id = os.path.basename(desktop)[:-len(".desktop")]
    if entry.get("Icon") != app_id:
        fail("Icon={} is not the application id {}".format(entry.get("Icon"), app_id))
    if entry.get("Exec") != "rsp view %f":
        fail("Exec={} is not 'rsp view %f'".format(entry.get("Exec")))
    declared = mime_types(mime_xml)
    for mime in filter(None, entry.get("MimeType", "").split(";")):
        if mime not in declared:
            fail("MimeType {} is not declared in {}".format(mime, mime_xml))
    print("desktop file: valid, Icon and MimeType agree with the icon and MIME files")


def check_metainfo(metainfo, desktop, icon, mime_xml):
    appstreamcli = need("appstreamcli", "appstream")
    run([appstreamcli, "validate", "--no-net", "--pedantic", "--explain", metainfo])
    root = ET.parse(metainfo).getroot()
    app_id = root.findtext("id")
    if root.findtext("launchable") != app_id + ".desktop":
        fail("launchable {} is not {}.desktop".format(root.findtext("launchable"), app_id))
    declared = mime_types(mime_xml)
    for mediatype in root.iter("mediatype"):
        if mediatype.text not in declared:
            fail("mediatype {} is not declared in {}".format(mediatype.text, mime_xml))
    # validate-tree checks what one file cannot: that the launchable's
    # desktop file exists where the metainfo says, in an installed layout.
    with tempfile.TemporaryDirectory() as tree:
        share = os.path.join(tree, "usr", "share")
        places = [(metainfo, "metainfo"), (desktop, "applications"),
                  (icon, os.path.join("icons", "hicolor", "scalable", "apps"))]
        for src, subdir in places:
            os.makedirs(os.path.join(share, subdir))
            shutil.copy(src, os.path.join(share, subdir))
        run([appstreamcli, "validate-tree", "--no-net", "--pedantic", tree])
    print("metainfo: valid alone and in an installed tree")


def check_icon(svg, size):
    root = ET.parse(svg).getroot()
    if root.tag != SVG_NS + "svg":
        fail("root element is {}, not an SVG <svg>".format(root.tag))
    view_box = root.get("viewBox", "").split()
    if view_box != ["0", "0", size, size]:
        fail("viewBox is {!r}, expected '0 0 {} {}'".format(root.get("viewBox"), size, size))
    if svg.endswith("-symbolic.svg"):
        # A symbolic icon is one colour, which GTK replaces with the theme's.
        colours = set()
        for element in root.iter():
            for attr in ("fill", "stroke"):
                value = element.get(attr)
                if value and value != "none":
                    colours.add(value.lower())
        if colours != {"#2e3436"}:
            fail("symbolic icon colours are {}, expected only #2e3436".format(sorted(colours)))
    rsvg = need("rsvg-convert", "librsvg2-bin")
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "icon.png")
        run([rsvg, "--format", "png", "--output", png, svg])
        with open(png, "rb") as f:
            header = f.read(24)
        if header[:8] != b"\x89PNG\r\n\x1a\n" or header[12:16] != b"IHDR":
            fail("rsvg-convert did not write a PNG")
        width, height = struct.unpack(">II", header[16:24])
        if (width, height) != (int(size), int(size)):
            fail("rendered {}x{}, expected {}x{}".format(width, height, size, size))
        print("icon: SVG with viewBox 0 0 {0} {0}, renders to a {0}x{0} PNG".format(size))


def content_type(gio, env, path):
    out = run([gio, "info", "--attributes=standard::content-type", path], env=env)
    for line in out.splitlines():
        key, _, value = line.strip().partition(": ")
        if key == "standard::content-type":
            return value
    fail("gio info printed no content type for " + path)


def check_mime(mime_xml, recording, plain):
    xmllint = need("xmllint", "libxml2-utils")
    run([xmllint, "--noout", mime_xml])
    update = need("update-mime-database", "shared-mime-info")
    # gio sniffs with GLib's xdgmime, as the GTK application and the file
    # managers do; xdg-mime outside a desktop session falls back to file(1).
    gio = need("gio", "libglib2.0-bin")
    with tempfile.TemporaryDirectory() as tmp:
        packages = os.path.join(tmp, "share", "mime", "packages")
        os.makedirs(packages)
        shutil.copy(mime_xml, packages)
        env = dict(os.environ)
        env["XDG_DATA_HOME"] = os.path.join(tmp, "home")
        env["XDG_DATA_DIRS"] = os.path.join(tmp, "share") + ":/usr/share"
        env["GIO_USE_VFS"] = "local"
        run([update, os.path.join(tmp, "share", "mime")], env=env)
        # By name, by the PERFILE2 magic when the name says nothing, and the
        # two together: *.rsp names a subclass of what the magic finds.
        unnamed_recording = os.path.join(tmp, "recording")
        unnamed_plain = os.path.join(tmp, "capture")
        shutil.copy(recording, unnamed_recording)
        shutil.copy(plain, unnamed_plain)
        expected = [
            (recording, "application/x-rsp-recording"),
            (plain, "application/x-perf-data"),
            (unnamed_recording, "application/x-perf-data"),
            (unnamed_plain, "application/x-perf-data"),
        ]
        for path, want in expected:
            got = content_type(gio, env, path)
            if got != want:
                fail("{} is {}, expected {}".format(path, got, want))
    print("MIME types: well-formed; recordings and perf.data files are recognised")


def main(argv):
    checks = {"desktop": (check_desktop, 2), "metainfo": (check_metainfo, 4),
              "icon": (check_icon, 2), "mime": (check_mime, 3)}
    if len(argv) < 2 or argv[1] not in checks or len(argv) - 2 != checks[argv[1]][1]:
        fail("usage:\n" + "\n".join(__doc__.splitlines()[2:7]))
    checks[argv[1]][0](*argv[2:])


if __name__ == "__main__":
    main(sys.argv)
