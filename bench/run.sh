#!/bin/sh
# bench/run.sh — the reader benchmark: `rsp dump --stats` against
# `perf script` on one recording (made by bench/make-recording.sh).
#
# Usage: bench/run.sh [FILE] [--rsp PATH] [--reps N] [--output MD] [--label TEXT]
#   FILE      default /var/tmp/rsp-bench/bench.data
#   --rsp     the rsp binary (default build/src/rsp of this checkout)
#   --reps    timed runs per command (default 3), after one untimed warm-up run
#   --output  Markdown results (default bench/results/latest.md)
# Prints a Markdown table (wall best/median, records/s, MB/s, peak RSS) and the
# ratios perf script / rsp (target >= 10x) and rsp RSS / file size (target < 1).
# Exit status 77 (skipped) when the recording is missing or unreadable.
# The work is done by bench/run.py (python3, standard library only).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/run.py" "$@"
