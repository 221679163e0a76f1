#!/bin/sh
# Install everything RSP needs to build, record and test on Debian 12.
# Idempotent; run as root (or through sudo). Usage: scripts/install-deps.sh [--test]
set -eu
packages="build-essential meson ninja-build pkg-config gettext
libglib2.0-dev libgtk-4-dev libjson-glib-dev libtraceevent-dev
libelf-dev libdw-dev linux-perf procps util-linux python3"
# Tests: clang + libFuzzer (fuzz/), useradd (passwd) for the unprivileged
# recording test, a display and screenshots for the GUI tests.
test_packages="clang libclang-rt-14-dev passwd xvfb xdotool imagemagick
desktop-file-utils appstream libxml2-utils librsvg2-bin shared-mime-info libglib2.0-bin"
want="$packages"
[ "${1:-}" = "--test" ] && want="$packages $test_packages"

missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then exec sudo "$0" "$@"; fi
  echo "install-deps: missing packages:$missing; run this script as root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
