#!/usr/bin/env python3
"""The man page rsp.1 documents every command and every option: each
command `rsp --help` lists and each long option every command's --help
prints appears in data/rsp.1, and groff formats the page without a warning
(groff-base comes with scripts/install-deps.sh --test)."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402


def man_text(page):
    """The page's text with roff escapes undone, as a reader sees it."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    return text.replace("\\-", "-").replace("\\fI", "").replace("\\fR", "").replace("\\fB", "")


def mentions(text, opt):
    """Whether text names opt as a whole word: --dark is not --darker."""
    return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), text) is not None


def main():
    rsp = t.rsp_path()
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    page = os.path.join(src, "data", "rsp.1")
    text = man_text(page)
    env = dict(os.environ, LC_ALL="C.UTF-8", LANGUAGE="")
    problems = []

    top = t.run([rsp, "--help"], check=False, env=env, timeout=60).stdout
    commands = re.findall(r"^  ([a-z]+)  ", top, re.M)
    if len(commands) < 5:
        problems.append("rsp --help lists %d commands: %r" % (len(commands), commands))
    for cmd in commands:
        if not re.search(r"^\.B %s$" % cmd, text, re.M) or not re.search(r"^\.SS rsp %s$" % cmd, text, re.M):
            problems.append("command %s: no .B %s under COMMANDS or no .SS rsp %s under OPTIONS" % (cmd, cmd, cmd))
        helptext = t.run([rsp, cmd, "--help"], check=False, env=env, timeout=60).stdout
        options = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", helptext)))
        t.log("rsp %s: %s" % (cmd, " ".join(options)))
        # the options section of this command
        m = re.search(r"^\.SS rsp %s$(.*?)(?=^\.SS |^\.SH )" % cmd, text, re.M | re.S)
        section = m.group(1) if m else ""
        for opt in options:
            if not mentions(section, opt):
                problems.append("rsp %s %s is not documented in the man page's section for %s" % (cmd, opt, cmd))
    for opt in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", top) + ["--version"]:
        if not mentions(text, opt):
            problems.append("rsp %s is not documented" % opt)

    groff = shutil.which("groff")
    if groff is None:
        if os.environ.get("CI") == "true":
            problems.append("groff is missing (scripts/install-deps.sh --test installs groff-base)")
        else:
            print("SKIP: groff is missing: the page's formatting is not checked (apt-get install groff-base)")
    else:
        res = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", page], capture_output=True, text=True)
        if res.returncode != 0 or res.stderr.strip():
            problems.append("groff warns about rsp.1: %s" % res.stderr.strip())
    if problems:
        print("FAIL: " + "\n  ".join([""] + problems))
        sys.exit(1)
    print("man page: %d commands, every option documented" % len(commands))


if __name__ == "__main__":
    main()
