#!/usr/bin/env python3
"""Everything the build and the demo need comes from install-deps.sh's base
list, not from its --test list or from what this machine happens to have.

Checked: every library meson found (meson-info/intro-dependencies.json), the
libraries and static archives found with find_library() (the paths in
build.ninja: rsp links GLib, elfutils and the rest from their archives),
every program the meson.build files
look up without `required: false`, the tools meson itself runs (compiler,
ninja, pkg-config, msgfmt) and the programs scripts/demo.sh runs.  Each is
mapped to the Debian package that owns it (dpkg -S), which must be in the
closure of the base list under Depends/Pre-Depends, or part of a minimal
Debian (Essential or Priority: required).  A fresh chroot
(scripts/fresh-check.sh) is the full proof; this is the cheap early one.
Needs dpkg: elsewhere it skips (fails under CI=true)."""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsptest as t  # noqa: E402

# Programs meson runs without a find_program() in our files.
MESON_TOOLS = ["cc", "ninja", "meson", "pkg-config", "msgfmt", "xgettext", "msgmerge"]
# Programs scripts/demo.sh runs.
DEMO_TOOLS = ["perf", "runuser", "stat", "id", "bash"]


def dpkg_owner(path):
    candidates = [path, os.path.realpath(path)]
    for p in list(candidates):
        # usrmerge: dpkg knows /lib/... where the file is /usr/lib/... and back
        if p.startswith("/usr/"):
            candidates.append(p[len("/usr"):])
        else:
            candidates.append("/usr" + p)
    for p in candidates:
        res = subprocess.run(["dpkg-query", "-S", p], capture_output=True, text=True)
        for line in res.stdout.splitlines() if res.returncode == 0 else []:
            if not line.startswith("diversion by"):
                return line.split(":")[0].split(",")[0].strip()
    return None


def which_all(prog):
    """Every PATH entry's PROG: a developer's PATH may put a private copy
    (pyenv, /usr/local) before Debian's."""
    found = []
    for d in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]:
        p = os.path.join(d, prog)
        if os.access(p, os.X_OK) and not os.path.isdir(p) and p not in found:
            found.append(p)
    return found


def installed_packages():
    fmt = "${Package}\\t${Status}\\t${Essential}\\t${Priority}\\t${Depends}\\t${Pre-Depends}\\t${Provides}\\n"
    out = subprocess.run(["dpkg-query", "-W", "-f", fmt], capture_output=True, text=True, check=True).stdout
    pkgs = {}
    provides = {}
    for line in out.splitlines():
        name, status, essential, priority, dep, predep, prov = (line.split("\t") + [""] * 7)[:7]
        if "installed" not in status.split():
            continue
        alts = []
        for clause in (dep + "," + predep).split(","):
            clause = clause.strip()
            if clause:
                alts.append([re.split(r"[\s:(]", a.strip())[0] for a in clause.split("|")])
        pkgs[name] = {"base": essential == "yes" or priority == "required", "deps": alts}
        for p in prov.split(","):
            p = re.split(r"[\s(]", p.strip())[0]
            if p:
                provides.setdefault(p, []).append(name)
    return pkgs, provides


def closure(roots, pkgs, provides):
    seen = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        for real in [name] + provides.get(name, []):
            if real in seen or real not in pkgs:
                continue
            seen.add(real)
            for alts in pkgs[real]["deps"]:
                todo.extend(alts)
    return seen


def required_programs(root):
    progs = set()
    for base, _dirs, files in os.walk(root):
        if any(part.startswith(".") or part.startswith("build") for part in base[len(root):].split(os.sep)):
            continue
        if "meson.build" not in files:
            continue
        text = open(os.path.join(base, "meson.build")).read()
        for m in re.finditer(r"find_program\(([^)]*)\)", text):
            args = m.group(1)
            if re.search(r"required\s*:\s*false", args):
                continue
            names = re.findall(r"'([^']+)'", args)
            if not names:
                continue
            name = names[0]
            if os.path.exists(os.path.join(base, name)):
                continue  # a script of ours
            progs.add(name)
        # gnome.post_install() looks its tools up as required programs:
        # the lookup that once broke `meson setup` on a fresh Debian.
        for m in re.finditer(r"post_install\(([^)]*)\)", text):
            for flag, prog in (("update_desktop_database", "update-desktop-database"),
                               ("gtk_update_icon_cache", "gtk4-update-icon-cache"),
                               ("glib_compile_schemas", "glib-compile-schemas"),
                               ("update_mime_database", "update-mime-database")):
                if re.search(flag + r"\s*:\s*true", m.group(1)):
                    progs.add(prog)
    return progs


def main():
    if shutil.which("dpkg-query") is None:
        t.skip_or_fail("dpkg-query is missing: this check needs a Debian system")
    root = os.environ["RSP_SOURCE_ROOT"]
    build = os.environ["RSP_BUILD_ROOT"]
    base = subprocess.run(["sh", os.path.join(root, "scripts", "install-deps.sh"), "--list"],
                          capture_output=True, text=True, check=True).stdout.split()
    if not base:
        t.fail("install-deps.sh --list printed no package")
    pkgs, provides = installed_packages()
    allowed = closure(base + [n for n, p in pkgs.items() if p["base"]], pkgs, provides)

    needs = {}  # what -> path
    deps = json.load(open(os.path.join(build, "meson-info", "intro-dependencies.json")))
    for dep in deps:
        for arg in dep.get("link_args") or []:
            if arg.startswith("/") and ".so" in arg:
                needs["library %s (%s)" % (dep["name"], os.path.basename(arg))] = arg
    with open(os.path.join(build, "build.ninja")) as f:
        for path in sorted(set(re.findall(r"(/usr/lib/\S+?/lib[^/\s]+\.(?:a|so))(?=[\s:|])", f.read()))):
            path = os.path.normpath(path)
            needs["%s %s" % ("archive" if path.endswith(".a") else "library", os.path.basename(path))] = path
    for lib in ("stdc++",):
        path = subprocess.run(["cc", "-print-file-name=lib%s.so" % lib], capture_output=True, text=True).stdout.strip()
        if os.path.isabs(path):
            needs["library %s" % lib] = path
    for prog in sorted(required_programs(root)) + MESON_TOOLS + DEMO_TOOLS:
        paths = which_all(prog)
        if not paths:
            t.fail("%s is not installed here at all" % prog)
        owned = [p for p in paths if dpkg_owner(p)]
        needs["program %s" % prog] = owned[0] if owned else paths[0]

    problems = []
    for what, path in sorted(needs.items()):
        pkg = dpkg_owner(path)
        if pkg is None:
            problems.append("%s: %s belongs to no Debian package" % (what, path))
        elif pkg not in allowed:
            problems.append("%s comes from %s, which install-deps.sh's base list does not install" % (what, pkg))
        else:
            t.log("ok: %s from %s" % (what, pkg))
    if problems:
        t.fail("; ".join(problems))
    t.log("ok: %d programs and libraries, all from the base list (%d packages)" % (len(needs), len(base)))


if __name__ == "__main__":
    main()
