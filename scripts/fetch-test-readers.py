#!/usr/bin/env python3
"""Fetch the independent readers the export test checks rsp's exports with.

Two packages from the npm registry, pinned by version and by the registry's
own sha512 integrity, unpacked into tests/readers/ (not under version
control): speedscope (the application, opened in headless Chromium, and the
JSON schema of its file format) and pprof-format (a JavaScript decoder of
pprof's profile.proto).  Nothing is installed system-wide and npm itself is
not needed: the tarballs are plain HTTPS downloads.  Idempotent: a package
already unpacked with the same integrity is kept.

Usage: scripts/fetch-test-readers.py [--dir DIR]
"""
import argparse
import base64
import hashlib
import io
import os
import shutil
import sys
import tarfile
import urllib.request

PACKAGES = [
    ("speedscope", "1.25.0",
     "sha512-cpf9HWTZf1ijLXBJrk87Ve/54tnYx6rlf0gUThvn3ook6h63hLXVOQiMf44PT+XoV503cPfvfiT5gP5vojp6Ag=="),
    ("pprof-format", "2.3.2",
     "sha512-fcMM+sgKMOveSurz7i0BMHfy1hHNnI9+VWjd4kdclqQjSTuiHWaP69DGwvkw3zcLkM/F76LhVIKvPyrxmp6iiw=="),
]
REGISTRY = os.environ.get("RSP_NPM_REGISTRY", "https://registry.npmjs.org")


def default_dir():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "readers")


def fetch(name, version, integrity, root):
    target = os.path.join(root, f"{name}-{version}")
    stamp = os.path.join(target, ".integrity")
    try:
        with open(stamp) as f:
            if f.read().strip() == integrity:
                return
    except OSError:
        pass
    url = f"{REGISTRY}/{name}/-/{name}-{version}.tgz"
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            data = r.read()
    except OSError as e:
        sys.exit(f"fetch-test-readers: cannot download {url}: {e}\n"
                 "fetch-test-readers: the export test needs it; check the network (or RSP_NPM_REGISTRY)")
    algo, _, want = integrity.partition("-")
    got = base64.b64encode(hashlib.new(algo, data).digest()).decode()
    if got != want:
        sys.exit(f"fetch-test-readers: {url}: {algo} is {got}, expected {want}: not unpacked")
    tmp = target + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for m in tar.getmembers():
            # npm tarballs hold package/...; nothing may land outside TMP
            parts = m.name.split("/")
            if not (m.isfile() or m.isdir()) or ".." in parts or m.name.startswith("/"):
                continue
            m.name = "/".join(parts[1:]) if parts[0] == "package" else m.name
            if m.name:
                m.mode = 0o755 if m.isdir() else 0o644
                tar.extract(m, tmp)
    with open(os.path.join(tmp, ".integrity"), "w") as f:
        f.write(integrity + "\n")
    shutil.rmtree(target, ignore_errors=True)
    os.rename(tmp, target)
    print(f"fetch-test-readers: {name} {version} in {os.path.normpath(target)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=default_dir())
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    for name, version, integrity in PACKAGES:
        fetch(name, version, integrity, args.dir)


if __name__ == "__main__":
    main()
