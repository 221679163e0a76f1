#!/usr/bin/env python3
"""Every source file with translatable strings is in po/POTFILES.in, and
every translation in po/LINGUAS is complete (no untranslated or fuzzy
message against a fresh extraction).  Needs gettext (xgettext, msgcmp)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

MARKERS = re.compile(r'(?<![A-Za-z0-9_])(?:_|N_|C_|NC_|g_dngettext|ngettext)\s*\(\s*"|translatable=.yes.')


def main():
    root = os.environ.get("RSP_SOURCE_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    for tool in ("xgettext", "msgcmp", "msgfmt"):
        if shutil.which(tool) is None:
            t.skip_or_fail("%s is missing (apt-get install gettext)" % tool)
    with open(os.path.join(root, "po", "POTFILES.in")) as f:
        listed = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    problems = []
    if listed != sorted(listed):
        problems.append("po/POTFILES.in is not sorted")
    found = []
    for base, _dirs, files in os.walk(os.path.join(root, "src")):
        for name in files:
            if not name.endswith((".c", ".h", ".ui")):
                continue
            path = os.path.join(base, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                if MARKERS.search(f.read()):
                    found.append(os.path.relpath(path, root))
    for path in sorted(found):
        if path not in listed:
            problems.append("%s has translatable strings but is not in po/POTFILES.in" % path)
    for path in listed:
        if not os.path.exists(os.path.join(root, path)):
            problems.append("po/POTFILES.in lists %s, which does not exist" % path)
    t.log("%d files with translatable strings, %d listed" % (len(found), len(listed)))

    work = tempfile.mkdtemp(prefix="rsp-po-")
    pot = os.path.join(work, "rsp.pot")
    # the keywords of po/meson.build (T: rsp-describe.c's messages for the local language)
    subprocess.run(["xgettext", "--from-code=UTF-8", "--keyword=_", "--keyword=N_", "--keyword=C_:1c,2", "--keyword=T:2",
                    "--keyword=NC_:1c,2", "--add-comments", "-o", pot, "-D", root] + listed, check=True)
    with open(os.path.join(root, "po", "LINGUAS")) as f:
        languages = [x for line in f for x in line.split() if not line.startswith("#")]
    for lang in languages:
        po = os.path.join(root, "po", lang + ".po")
        r = subprocess.run(["msgcmp", po, pot], capture_output=True, text=True)
        if r.returncode != 0:
            problems.append("%s.po lacks messages:\n%s" % (lang, r.stderr[-3000:]))
        s = subprocess.run(["msgfmt", "--check", "--statistics", "-o", os.devnull, po], capture_output=True,
                           text=True)
        t.log("%s: %s" % (lang, s.stderr.strip()))
        if s.returncode != 0 or "untranslated" in s.stderr or "fuzzy" in s.stderr:
            problems.append("%s.po is not complete or not valid: %s" % (lang, s.stderr.strip()))
    shutil.rmtree(work, ignore_errors=True)
    if problems:
        t.fail("\n".join(problems))
    t.log("PASS")


if __name__ == "__main__":
    main()
