#!/bin/bash
# The main job on a fresh Debian 12 machine: installs the dependencies,
# builds RSP, records the built-in demo workload (the paper's `pass`: two
# processes passing work back and forth over pipes, tests/model/workloads/pass.c)
# with `rsp record`, and shows `rsp report` (where the time went, and why)
# and `rsp dump --stats` (what was recorded) of the recording.
#
# Usage: sudo scripts/demo.sh [OUTPUT.rsp]     (default: rsp-demo.rsp)
#
# Recording the whole system needs root.  Without it the script says how to
# get it and shows the bundled demo recording (tests/data/pingpong.rsp).
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
if "$rsp" record -o "$output" -- "$demo"; then
  recording=$output
elif [ "$(id -u)" -ne 0 ]; then
  echo "To record, run this script as root: sudo scripts/demo.sh"
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
