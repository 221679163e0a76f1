#!/bin/bash
# Re-records the small checked-in recordings under tests/data/ and
# regenerates their expected `rsp dump --offline` output.
#
#   sudo tests/scripts/regen-golden.sh [BUILD_DIR]      (default: build)
#
# Needs root and perf.  Each recording must stay under 300 KB: the
# workloads run short and cpu-clock samples at 100 Hz.  Also writes
# pingpong-plain.perf.data with the README's plain perf command line (a seed
# for the error-path tests and the fuzzer; it has no golden dump because a
# plain perf.data stores no symbols), and sample-read.perf.data, samples
# that read counters, which record-sample-read.py compares with perf
# script.  Review the diff before committing.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1

src_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${1:-build}
case $build_dir in /*) ;; *) build_dir=$src_root/$build_dir ;; esac
data_dir=$src_root/tests/data
max_bytes=$((300 * 1024))

die() { echo "regen-golden: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root to record (run: sudo $0 $*)"
command -v perf >/dev/null || die "perf is missing: apt-get install linux-perf"
[ -d "$build_dir" ] || meson setup "$build_dir" "$src_root"
ninja -C "$build_dir"
rsp=$build_dir/src/rsp
workloads=$build_dir/tests/workloads
dio_dir=/var/tmp

# Records NAME.rsp from the command line that follows, and its expected dump.
golden() {
  local name=$1
  shift
  echo "== $name: rsp record --freq 100 -- $*"
  rm -f "$name.rsp"
  "$rsp" record --freq 100 -o "$name.rsp" -- "$@"
  local size
  size=$(stat -c %s "$name.rsp")
  [ "$size" -lt "$max_bytes" ] || die "$name.rsp is $size bytes (limit $max_bytes): shorten its run"
  "$rsp" dump --offline "$name.rsp" >"$name.dump.expected"
  # The dump must not depend on the run: a second one must be identical.
  "$rsp" dump --offline "$name.rsp" | cmp -s - "$name.dump.expected" \
    || die "two dumps of $name.rsp differ"
  echo "   $name.rsp: $size bytes, $(wc -l <"$name.dump.expected") dump lines"
}

cd "$data_dir"
golden pingpong "$workloads/pingpong" 100 20000
golden forkexec "$workloads/forkexec" 3 300000
golden tcp_loop "$workloads/tcp_loop" 25 20000
golden dio_read "$workloads/dio_read" "$dio_dir" 65536 1
# the same read with the tracefs instance's events merged in (rsp record
# made the others before it had one): the golden test also checks that
# every completion is there and linked to the reader
golden dio_ftrace "$workloads/dio_read" "$dio_dir" 65536 1

echo "== pingpong-plain.perf.data: the README's perf record command line"
# The command line comes from rsptest.py, where the tests take it from too.
mapfile -t perf_cmd < <(cd "$src_root/tests/scripts" && python3 -c '
import rsptest, sys
print("\n".join(rsptest.perf_record_argv("perf", "pingpong-plain.perf.data", sys.argv[1:])))
' "$workloads/pingpong" 50 10000)
rm -f pingpong-plain.perf.data
"${perf_cmd[@]}"
size=$(stat -c %s pingpong-plain.perf.data)
[ "$size" -lt "$max_bytes" ] || die "pingpong-plain.perf.data is $size bytes (limit $max_bytes)"

echo "== sample-read.perf.data: samples that read counters (record-sample-read.py)"
# a group led by its sampling event, and an event read by its own samples
rm -f sample-read.perf.data
perf record -q -g --sample-cpu -k monotonic -e '{cpu-clock/freq=4000/,task-clock,page-faults}:S' \
  -e 'cpu-clock/freq=2000/S' -o sample-read.perf.data -- "$workloads/pingpong" 300
size=$(stat -c %s sample-read.perf.data)
[ "$size" -lt "$max_bytes" ] || die "sample-read.perf.data is $size bytes (limit $max_bytes)"

# The reports of many requests and of two recordings compared, as JSON:
# requests.rsp holds 8 runs of slow_every (every 4th sleeping 40 ms),
# diff-before.rsp and diff-after.rsp one run each, without and with it.
report_golden() {
  local expected=$1
  shift
  "$rsp" "$@" >"$expected"
  "$rsp" "$@" | cmp -s - "$expected" || die "two runs of rsp $* differ"
  echo "   $expected: $(wc -l <"$expected") lines"
}
slow_every=$build_dir/tests/model/slow_every
counter=$(mktemp)
chmod 0666 "$counter"
echo "== requests.rsp: rsp record --freq 100 --repeat 8 -- slow_every"
rm -f requests.rsp diff-before.rsp diff-after.rsp
"$rsp" record --freq 100 --repeat 8 -o requests.rsp -- "$slow_every" "$counter" 4 5 40
"$rsp" record --freq 100 -o diff-before.rsp -- "$slow_every" "$counter" 0 5 40
"$rsp" record --freq 100 -o diff-after.rsp -- "$slow_every" "$counter" 1 5 40
rm -f "$counter"
for f in requests.rsp diff-before.rsp diff-after.rsp; do
  size=$(stat -c %s "$f")
  [ "$size" -lt "$max_bytes" ] || die "$f is $size bytes (limit $max_bytes)"
done
report_golden requests.report.expected report --offline --json requests.rsp
report_golden diff.report.expected diff --offline --json diff-before.rsp diff-after.rsp

chmod 0644 ./*.rsp ./*.perf.data ./*.expected
if [ -n "${SUDO_USER:-}" ]; then
  chown "$SUDO_USER:" ./*.rsp ./*.perf.data ./*.expected
fi
ls -l "$data_dir"
echo "regen-golden: done; review 'git diff --stat tests/data' before committing"
