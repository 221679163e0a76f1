#!/bin/sh
# Install everything RSP needs on Debian 12.  Idempotent.
#
# Usage: scripts/install-deps.sh [--test]      install (as root, or through sudo)
#        scripts/install-deps.sh --list [--test]  print the package list, install nothing
#
# The base list is what building RSP, `meson install` and the demo
# (scripts/demo.sh: build, rsp record, rsp report) need on a minimal Debian
# (debootstrap --variant=minbase); --test adds what the test suite needs.
# tests/scripts/check-deps.py checks that every program and library meson
# looks up as required comes from the base list (or from what a minimal
# Debian always has), and scripts/fresh-check.sh proves it on a fresh chroot.
# rsp links GLib, elfutils, libtraceevent, libtracefs, bzip2, xz and zlib from
# their static archives, which these -dev packages ship (libbz2-dev: for
# libdw.a; the shared libdw needs only the runtime library); libiberty-dev:
# the demangler perf script names C++ and Rust symbols with, which rsp
# dump uses to print the same names (an archive only).
set -eu
packages="build-essential meson ninja-build pkg-config gettext
libglib2.0-dev libgtk-4-dev libjson-glib-dev libtraceevent-dev libtracefs-dev
libelf-dev libdw-dev liblzma-dev zlib1g-dev libbz2-dev libiberty-dev linux-perf procps util-linux python3"
# Tests: clang + libFuzzer (fuzz/) and llvm (llvm-symbolizer: without it the
# sanitizers print bare addresses, and suppressions by function name, such
# as the ui suite's, match nothing on a fresh machine), useradd (passwd)
# for the unprivileged recording test, a display and screenshots for the GUI
# tests, validators for the desktop files, groff for the man page check;
# for the export test: Chromium (speedscope opens the exports in it),
# nodejs (pprof-format decodes the pprof export) and python3-jsonschema
# (speedscope's schema), with the two npm packages that
# scripts/fetch-test-readers.py downloads into tests/readers/ over HTTPS
# (ca-certificates: a minimal Debian trusts no certificate authority);
# xz-utils builds test-symbols' MiniDebugInfo fixture.
test_packages="clang libclang-rt-14-dev llvm passwd xvfb xdotool imagemagick
desktop-file-utils appstream libxml2-utils librsvg2-bin shared-mime-info libglib2.0-bin
sqlite3 groff-base chromium nodejs python3-jsonschema ca-certificates xz-utils"

list=0
test=0
for arg in "$@"; do
  case $arg in
    --list) list=1 ;;
    --test) test=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done
want="$packages"
[ "$test" -eq 1 ] && want="$packages $test_packages"
if [ "$list" -eq 1 ]; then
  # shellcheck disable=SC2086
  printf '%s\n' $want
  exit 0
fi

missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# the export test's readers (npm tarballs, pinned): after the packages
readers() {
  [ "$test" -eq 1 ] || return 0
  python3 "$(dirname "$0")/fetch-test-readers.py"
}
if [ -z "$missing" ]; then
  readers
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    echo "install-deps: installing through sudo:$missing"
    exec sudo "$0" "$@"
  fi
  echo "install-deps: missing packages:$missing" >&2
  echo "install-deps: run this script as root (su -c 'scripts/install-deps.sh'), or install sudo" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -q; then
  echo "install-deps: apt-get update failed: check the network and /etc/apt/sources.list" >&2
  exit 1
fi
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
readers
