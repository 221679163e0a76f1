#!/bin/bash
# Runs every evaluation scenario (or the ones named), one after the other,
# then regenerates docs/EVALUATION.md and its flame views from the
# recordings with scenarios/evaluate.py.
#
# Usage: sudo scenarios/run-all.sh [NAME...]
#   NAME: pass web-request xterm-launch build database media (default: all)
# Builds RSP first (build/) when it is not built.  A scenario that fails is
# reported and the others still run; the exit status is non-zero then.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
all=(pass web-request xterm-launch build database media)
names=("$@")
[ ${#names[@]} -eq 0 ] && names=("${all[@]}")

if [ "$(id -u)" -ne 0 ]; then
  echo "run-all.sh: scenarios install packages and record the whole system; run as root: sudo $0 $*" >&2
  exit 1
fi
if [ ! -x build/src/rsp ] || [ ! -x build/tests/model/pass ]; then
  bash scripts/install-deps.sh || exit 1
  owner=$(stat -c %U .)
  as_owner=()
  [ "$owner" != root ] && as_owner=(runuser -u "$owner" --)
  [ -f build/build.ninja ] || "${as_owner[@]}" meson setup build || exit 1
  "${as_owner[@]}" ninja -C build || exit 1
fi

failed=()
for name in "${names[@]}"; do
  if [ ! -f "scenarios/$name.sh" ]; then
    echo "run-all.sh: no scenario $name (known: ${all[*]})" >&2
    failed+=("$name")
    continue
  fi
  start=$(date +%s)
  if bash "scenarios/$name.sh"; then
    echo "== $name: done in $(($(date +%s) - start)) s"
  else
    echo "== $name: FAILED (log: build/scenarios/$name.log)" >&2
    failed+=("$name")
  fi
done

python3 scenarios/evaluate.py || failed+=(evaluate.py)
if [ ${#failed[@]} -gt 0 ]; then
  echo "run-all.sh: failed: ${failed[*]}" >&2
  exit 1
fi
