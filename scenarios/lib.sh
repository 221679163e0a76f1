# Shared by the evaluation scenarios (sourced, not run).  Each scenario
# script installs what it needs from Debian's packages, configures it on
# loopback in a private directory, records one task with `rsp record`, writes
# `rsp report` (text and JSON) beside the recording, and tears everything
# down again, also when it fails or is interrupted.
#
# Environment:
#   RSP               the rsp executable (default: build/src/rsp of this checkout)
#   RSP_SCENARIO_OUT  where recordings and reports go (default: build/scenarios)
#
# Outputs, for scenario NAME: $RSP_SCENARIO_OUT/NAME.rsp, NAME.json (rsp
# report --json), NAME.txt (rsp report), NAME.log (what the scenario printed
# about its setup and the task's own output).
#
# Exit status: 0 recorded; 77 cannot record here (not root, no perf; the
# message says why); anything else a failure, with a message naming the step.

set -euo pipefail

SCEN_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RSP=${RSP:-$SCEN_SRC/build/src/rsp}
SCEN_OUT=${RSP_SCENARIO_OUT:-$SCEN_SRC/build/scenarios}
SCEN_NAME=""
SCEN_WORK=""
_scen_cleanups=()

scen_say() { printf '== %s: %s\n' "${SCEN_NAME:-scenario}" "$*"; }
scen_die() { printf '%s: %s\n' "${SCEN_NAME:-scenario}" "$*" >&2; exit 1; }

# scen_on_exit COMMAND [ARG...]: run at exit (last registered runs first).
scen_on_exit() {
  local quoted
  printf -v quoted '%q ' "$@"
  _scen_cleanups+=("$quoted")
}

_scen_exit() {
  local rc=$? i
  # a second Ctrl-C must not cut the teardown short
  trap '' INT TERM
  set +e
  for ((i = ${#_scen_cleanups[@]} - 1; i >= 0; i--)); do
    eval "${_scen_cleanups[i]}" >/dev/null 2>&1
  done
  if [ -n "$SCEN_WORK" ] && [ -d "$SCEN_WORK" ]; then
    rm -rf "$SCEN_WORK"
  fi
  exit "$rc"
}

# scen_init NAME: checks that this machine can record, makes the private
# work directory and the output directory, and arranges the teardown.
scen_init() {
  SCEN_NAME=$1
  if [ "$(id -u)" -ne 0 ]; then
    echo "$SCEN_NAME: SKIP: scenarios install packages and record the whole system; run as root (sudo $0)" >&2
    [ "${CI:-}" = true ] && exit 1
    exit 77
  fi
  if [ ! -x "$RSP" ]; then
    scen_die "no rsp executable at $RSP; build first: meson setup build && ninja -C build (or set RSP)"
  fi
  mkdir -p "$SCEN_OUT"
  SCEN_WORK=$(mktemp -d "/tmp/rsp-scenario-$SCEN_NAME.XXXXXX")
  chmod 755 "$SCEN_WORK"
  trap _scen_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  : >"$SCEN_OUT/$SCEN_NAME.log"
}

# scen_install PACKAGE...: installs the Debian packages that are missing,
# without starting their services (the scenario starts its own instances).
scen_install() {
  local missing=() p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$p")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  scen_say "installing ${missing[*]}"
  local blocker=/usr/sbin/policy-rc.d added_blocker=0
  if [ ! -e "$blocker" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$blocker"
    chmod 755 "$blocker"
    added_blocker=1
  fi
  local rc=0
  {
    apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  } >>"$SCEN_OUT/$SCEN_NAME.log" 2>&1 || rc=$?
  [ "$added_blocker" -eq 1 ] && rm -f "$blocker"
  [ "$rc" -eq 0 ] || scen_die "apt-get install ${missing[*]} failed (see $SCEN_OUT/$SCEN_NAME.log)"
}

# scen_wait_port PORT [SECONDS]: waits until something listens on 127.0.0.1:PORT.
scen_wait_port() {
  local port=$1 limit=${2:-20} i
  for ((i = 0; i < limit * 10; i++)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  scen_die "nothing listens on 127.0.0.1:$port after ${limit}s (see $SCEN_OUT/$SCEN_NAME.log)"
}

# scen_free_port: prints a TCP port on 127.0.0.1 nobody listens on.
scen_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# scen_drop_caches: writes dirty pages back and empties the page cache, so
# that the task reads from the disk (as the paper's make scenario did).
scen_drop_caches() {
  sync
  echo 3 >/proc/sys/vm/drop_caches
}

# scen_record [RSP RECORD OPTION...] -- COMMAND [ARG...]: records COMMAND
# with rsp record, nothing keeping CPUs awake (RSP's tracefs instance keeps
# the interrupt-context events perf drops on idle CPUs), and writes the
# reports.  The report's process of interest is COMMAND's (rsp report's
# default).
scen_record() {
  local out=$SCEN_OUT/$SCEN_NAME.rsp rc=0
  scen_say "recording: rsp record $*"
  # Under sudo, rsp record runs COMMAND as the invoking user; a scenario's
  # command works in the root-owned workspace it set up (and its servers run
  # as root or their own users), so it runs as root here, as the scenario.
  env -u SUDO_UID -u SUDO_GID -u SUDO_USER -u SUDO_COMMAND -u PKEXEC_UID \
    "$RSP" record -o "$out" "$@" >>"$SCEN_OUT/$SCEN_NAME.log" 2>&1 || rc=$?
  if [ ! -s "$out" ]; then
    tail -20 "$SCEN_OUT/$SCEN_NAME.log" >&2
    if grep -q "apt-get install linux-perf" "$SCEN_OUT/$SCEN_NAME.log"; then
      echo "$SCEN_NAME: SKIP: perf is missing (apt-get install linux-perf)" >&2
      [ "${CI:-}" = true ] && exit 1
      exit 77
    fi
    scen_die "rsp record made no recording (exit $rc; see $SCEN_OUT/$SCEN_NAME.log)"
  fi
  if [ "$rc" -ne 0 ]; then
    tail -20 "$SCEN_OUT/$SCEN_NAME.log" >&2
    scen_die "the recorded command failed (exit $rc; see $SCEN_OUT/$SCEN_NAME.log)"
  fi
  "$RSP" report --json "$out" >"$SCEN_OUT/$SCEN_NAME.json"
  "$RSP" report "$out" >"$SCEN_OUT/$SCEN_NAME.txt"
  # under sudo, what the scenario wrote belongs to the user who ran it
  if [ -n "${SUDO_UID:-}" ] && [ -n "${SUDO_GID:-}" ]; then
    chown "$SUDO_UID:$SUDO_GID" "$SCEN_OUT" "$out" "$SCEN_OUT/$SCEN_NAME".{json,txt,log} 2>/dev/null || true
  fi
  scen_say "recorded $out"
  sed -n '1,40p' "$SCEN_OUT/$SCEN_NAME.txt"
}
