#!/bin/bash
# Runs every RSP test, exactly as CI does (.ci/run runs this script):
#   0. installs the build and test dependencies (scripts/install-deps.sh --test)
#   1. build-ci:   meson setup --werror, ninja, meson test (all suites)
#   2. build-asan: the same with AddressSanitizer and UndefinedBehaviorSanitizer
#   3. build-fuzz: clang + libFuzzer, five targets (the whole recording,
#      perf's tracing data, the ftrace section, JSON and the metadata, the
#      model built from a recording), fixed seed, FUZZ_RUNS inputs each
#      (the model: half)
# then prints one closing line "tests: N passed, N failed, N skipped".
#
# Usage: scripts/test.sh [--quick|--fuzz] [--no-deps] [-- MESON_TEST_ARGS...]
#   Run it as root (a minimal Debian has no sudo), or as a user with sudo:
#   it then runs itself through sudo, because the recording tests need root,
#   and gives the build directories back to you at the end
#   (RSP_TEST_NO_SUDO=1 runs as you; the recording tests then SKIP).
#   --quick     stage 1 only
#   --fuzz      stage 3 only (the fuzz targets)
#   --no-deps   do not check or install packages
#   MESON_TEST_ARGS go to every `meson test` (e.g. -- --suite golden)
# Environment: FUZZ_RUNS (inputs per fuzz target, default 40000) and
# FUZZ_MODEL_RUNS (fuzz-model's, default half of FUZZ_RUNS).  The
# recording tests need root and perf; without them they print
# "SKIP: <reason>", except with CI=true, where a missing root or perf is a
# failure.
set -euo pipefail

src_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$src_root"

case " $* " in *" -h "*|*" --help "*) ;; *)
  if [ "$(id -u)" -ne 0 ] && [ -z "${RSP_TEST_NO_SUDO:-}" ] && command -v sudo >/dev/null 2>&1; then
    echo "test.sh: the recording tests need root: running through sudo (RSP_TEST_NO_SUDO=1 runs as you)"
    exec sudo --preserve-env=CI,FUZZ_RUNS,RSP_TEST_OWNER env RSP_TEST_OWNER="$(id -u):$(id -g)" \
      bash "$src_root/scripts/test.sh" "$@"
  fi ;;
esac
# Started through sudo by a user: the build directories are theirs.
give_back() {
  local owner=${RSP_TEST_OWNER:-}
  [ -n "$owner" ] || owner=${SUDO_UID:+$SUDO_UID:${SUDO_GID:-$SUDO_UID}}
  [ -n "$owner" ] && [ "$(id -u)" -eq 0 ] || return 0
  local d
  for d in build-ci build-asan build-fuzz; do
    [ -e "$d" ] && chown -R "$owner" "$d"
  done
  return 0
}
trap give_back EXIT

quick=0
fuzz_only=0
deps=1
meson_test_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --fuzz) fuzz_only=1 ;;
    --no-deps) deps=0 ;;
    --) shift; meson_test_args=("$@"); break ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
fuzz_runs=${FUZZ_RUNS:-40000}
# fuzz-model builds a model per input, twice: slower, fewer inputs
fuzz_model_runs=${FUZZ_MODEL_RUNS:-$((fuzz_runs / 2))}

timings=()
testlogs=()
failures=()
fuzz_outcome=""   # "", "passed" or "failed"

stage() { printf '\n==== %s ====\n' "$*"; }

# timed LABEL COMMAND...: runs COMMAND (a function too), records its wall time.
timed() {
  local label=$1 start rc=0
  shift
  start=$(date +%s)
  "$@" || rc=$?
  timings+=("$label: $(($(date +%s) - start)) s")
  return "$rc"
}

# configure DIR MESON_ARGS...: configures DIR, again if it exists.
configure() {
  local dir=$1
  shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@"
  else
    rm -rf "$dir"
    meson setup "$dir" "$@"
  fi
}

build() {
  local dir=$1
  shift
  configure "$dir" "$@" && ninja -C "$dir"
}

# run_tests DIR [MESON_TEST_ARGS...]: meson test; its log feeds the totals.
run_tests() {
  local dir=$1
  shift
  testlogs+=("$dir/meson-logs/testlog.json")
  rm -f "$dir/meson-logs/testlog.json"
  meson test -C "$dir" --print-errorlogs "$@" ${meson_test_args[@]+"${meson_test_args[@]}"}
}

# One libFuzzer target: a fixed seed and a fixed number of inputs, so that
# the same tree gives the same run (a longer random run is for a developer:
# docs/FUZZING.md).  Any crash, leak, timeout or out-of-memory fails, and so
# does any file libFuzzer leaves in the artifacts directory.
fuzz_target() {
  local target=$1 runs=$2 dir=build-fuzz
  local corpus=$dir/corpus/$target artifacts=$dir/artifacts/$target
  rm -rf "$corpus" "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  # libFuzzer adds what it finds to its first corpus directory: a scratch
  # copy of the seeds, and the inputs earlier runs found (tests/fuzz-regressions/)
  cp "$dir/seeds/$target"/* "$corpus"/
  if [ -d "tests/fuzz-regressions/$target" ]; then cp "tests/fuzz-regressions/$target"/* "$corpus"/; fi
  local rc=0 log=$dir/fuzz-$target.log
  # intercept_tls_get_addr=0: as in the tests' setup (tests/meson.build), the
  # runtime's guess at a thread-local block's layout crashes LeakSanitizer
  ASAN_OPTIONS="malloc_context_size=8:intercept_tls_get_addr=0:${ASAN_OPTIONS:-}" \
  "$dir/fuzz/fuzz-$target" -seed=1 -runs="$runs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || rc=$?
  local units speed cov
  units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1 || true)
  echo "fuzz-$target: ${units:-?} inputs at ${speed:-?}/s, ${cov:-no coverage line}, corpus $(find "$corpus" -maxdepth 1 -type f | wc -l) files"
  if [ "$rc" -ne 0 ] || [ -n "$(ls -A "$artifacts")" ]; then
    tail -n 60 "$log"
    echo "fuzz-$target: FAILED (exit $rc); reproducer in $artifacts/:"
    ls -l "$artifacts"
    return 1
  fi
}

fuzz() {
  local dir=build-fuzz
  CC=clang configure "$dir" -Dfuzz=true -Dtests=false || return 1
  ninja -C "$dir" fuzz/fuzz-perf-reader fuzz/fuzz-trace-data fuzz/fuzz-ftrace-section fuzz/fuzz-json fuzz/fuzz-model || return 1
  rm -rf "$dir/seeds"
  python3 fuzz/extract-seeds.py "$dir/seeds" tests/data/*.rsp tests/data/*.perf.data || return 1
  echo "fuzz: seed 1, ${fuzz_runs} inputs per target (fuzz-model: ${fuzz_model_runs})"
  local failed=0
  for target in perf-reader trace-data ftrace-section json; do
    fuzz_target "$target" "$fuzz_runs" || failed=1
  done
  fuzz_target model "$fuzz_model_runs" || failed=1
  [ "$failed" -eq 0 ] && echo "fuzz: no crash, leak or timeout"
  return "$failed"
}

if [ "$deps" -eq 1 ]; then
  stage "0. dependencies: scripts/install-deps.sh --test"
  timed "dependencies" bash scripts/install-deps.sh --test
fi

if [ "$fuzz_only" -eq 0 ]; then
  stage "1. build-ci: gcc, warnings are errors"
  timed "build-ci build" build build-ci --werror
  # gui-reopen's 20 recordings and its memory check run under the
  # sanitizers (stage 2); here 5 are enough to catch a crash
  RSP_REOPEN_CYCLES=${RSP_REOPEN_CYCLES:-5} timed "build-ci tests" run_tests build-ci || failures+=("build-ci tests")
fi

if [ "$quick" -eq 0 ] && [ "$fuzz_only" -eq 0 ]; then
  stage "2. build-asan: AddressSanitizer + UndefinedBehaviorSanitizer"
  timed "build-asan build" build build-asan -Db_sanitize=address,undefined -Db_lundef=false
  timed "build-asan tests" run_tests build-asan --timeout-multiplier 3 \
    || failures+=("build-asan tests")
fi

if [ "$quick" -eq 0 ]; then
  stage "3. build-fuzz: clang, libFuzzer on the recording, tracing-data and ftrace-section parsers and the model"
  if timed "fuzz build+run" fuzz; then
    fuzz_outcome=passed
  else
    fuzz_outcome=failed
    failures+=("fuzz")
  fi
fi

stage "summary"
for t in "${timings[@]}"; do echo "timing: $t"; done
python3 - "$fuzz_outcome" "${testlogs[@]}" <<'PY'
import json, os, sys
fuzz, logs = sys.argv[1], sys.argv[2:]
passed = failed = skipped = 0
for log in logs:
    if not os.path.exists(log):
        print("summary: %s is missing (the test run did not start)" % log)
        failed += 1
        continue
    for line in open(log):
        result = json.loads(line).get("result")
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
if fuzz:
    passed, failed = passed + (fuzz == "passed"), failed + (fuzz == "failed")
print("tests: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
PY
if [ "${#failures[@]}" -gt 0 ]; then
  echo "test.sh: FAILED: ${failures[*]}"
  exit 1
fi
echo "test.sh: all stages passed"
