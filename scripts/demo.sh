#!/bin/bash
# The main job on a fresh Debian 12 machine: installs the dependencies,
# builds RSP, records the built-in demo workload (the paper's `pass`: two
# processes passing work back and forth over pipes, tests/model/workloads/pass.c)
# with `rsp record`, and shows `rsp report` (where the time went, and why)
# and `rsp dump --stats` (what was recorded) of the recording.
#
# Usage: scripts/demo.sh [OUTPUT.rsp]     (default: rsp-demo.rsp)
#
# Run it as root (a minimal Debian has no sudo), or as a user with sudo: the
# package installation and the recording then go through sudo, the build
# stays yours.  Recording the whole system needs root: without root or sudo
# (or without perf) the script says how to get them and shows the bundled
# demo recording (tests/data/pingpong.rsp) instead.
set -euo pipefail

src_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$src_root"
output=${1:-rsp-demo.rsp}
build_dir=build
bundled=tests/data/pingpong.rsp

say() { printf '\n== %s\n' "$*"; }

# Build as the owner of the checkout, so that `sudo scripts/demo.sh` leaves
# no root-owned files in it.
as_owner() {
  local owner
  owner=$(stat -c %U "$src_root")
  if [ "$(id -u)" -eq 0 ] && [ "$owner" != root ] && command -v runuser >/dev/null; then
    runuser -u "$owner" -- "$@"
  else
    "$@"
  fi
}

say "1. dependencies (scripts/install-deps.sh)"
bash scripts/install-deps.sh

say "2. build (meson + ninja, in $build_dir/)"
if [ ! -f "$build_dir/build.ninja" ]; then
  as_owner meson setup "$build_dir"
fi
as_owner ninja -C "$build_dir"
rsp=$build_dir/src/rsp

demo=$build_dir/tests/model/pass
say "3. record the demo workload: $rsp record -o $output -- $demo"
recording=""
# rsp record itself checks perf and the privileges, and says what is missing.
# Through sudo, rsp record runs the workload as you and gives you the file.
record=("$rsp" record -o "$output" -- "$demo")
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
  echo "(recording the whole system needs root: through sudo)"
  record=(sudo "${record[@]}")
fi
if "${record[@]}"; then
  recording=$output
elif [ "$(id -u)" -ne 0 ]; then
  echo "To record, run this script as root, or as a user who may use sudo."
fi
if [ -z "$recording" ]; then
  echo "Showing the bundled demo recording instead: $bundled"
  recording=$bundled
fi

say "4. $rsp report $recording"
"$rsp" report "$recording"

say "5. $rsp dump --stats $recording"
"$rsp" dump --stats "$recording"

say "next"
echo "  $rsp report --json $recording        the same report for scripts"
echo "  $rsp dump $recording | less      every event, with its stack"
echo "  $rsp record -o my.rsp -- COMMAND...    record your own command"
