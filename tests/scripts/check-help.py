#!/usr/bin/env python3
"""Every command's --help: exit 0, a usage line that names "rsp COMMAND"
and its positional arguments once (the G_OPTION_REMAINING description and
the context's parameter string once both said FILE: "FILE FILE"), and every
translation of those parameter strings keeps the same shape."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

COMMANDS = ["record", "report", "dump", "render", "view"]


def usage_line(text):
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("Usage:"):
            rest = line.strip()[len("Usage:"):].strip()
            return rest or (lines[i + 1].strip() if i + 1 < len(lines) else "")
    return ""


def main():
    rsp = t.rsp_path()
    env = dict(os.environ, LC_ALL="C.UTF-8", LANGUAGE="")
    problems = []
    for cmd in COMMANDS:
        res = t.run([rsp, cmd, "--help"], check=False, env=env, timeout=60)
        if res.returncode != 0:
            problems.append("rsp %s --help exits %d" % (cmd, res.returncode))
            continue
        usage = usage_line(res.stdout)
        if not usage:
            problems.append("rsp %s --help prints no usage line" % cmd)
            continue
        t.log("rsp %s: %s" % (cmd, usage))
        if cmd != "view" and not usage.startswith("rsp %s " % cmd):
            problems.append("usage of rsp %s does not start with 'rsp %s': %r" % (cmd, cmd, usage))
        words = usage.split()
        for a, b in zip(words, words[1:]):
            if a == b and a.isupper():
                problems.append("usage of rsp %s repeats %s: %r" % (cmd, a, usage))
        if "--help-all" not in res.stdout and "-h, --help" not in res.stdout:
            problems.append("rsp %s --help lists no --help option" % cmd)

    # The German translation of each parameter string ("- what it does")
    # must not bring the positional argument back in.
    root = os.environ.get("RSP_SOURCE_ROOT") or os.path.join(os.path.dirname(__file__), "..", "..")
    po_dir = os.path.join(root, "po")
    for name in sorted(os.listdir(po_dir)):
        if not name.endswith(".po"):
            continue
        text = open(os.path.join(po_dir, name), encoding="utf-8").read()
        for msgid, msgstr in re.findall(r'^msgid "(- [^"]*)"\nmsgstr "([^"]*)"', text, re.M):
            if not msgstr.startswith("- "):
                problems.append("%s: %r is translated as %r (the argument name comes from its own string)"
                                % (name, msgid, msgstr))
    if problems:
        t.fail("; ".join(problems))
    t.log("ok: %d commands" % len(COMMANDS))


if __name__ == "__main__":
    main()
