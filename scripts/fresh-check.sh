#!/bin/bash
# Proves that the README's two commands work on a pristine Debian 12: builds
# a minimal chroot (debootstrap --variant=minbase bookworm, nothing else),
# clones this checkout's committed HEAD into it (as CI does: uncommitted
# changes are not part of the proof) and runs, inside it,
#   root mode:  scripts/demo.sh, then CI=true scripts/test.sh, as root
#               (a minimal Debian has no sudo)
#   user mode:  sudo is installed and a user who may use it is made; that
#               user runs scripts/demo.sh, then scripts/test.sh
# Each mode starts from its own copy of the pristine tree, so no mode sees
# what another installed.  Run it before resolving anything that touches
# the dependencies, the build or the two commands.  Not part of CI (it takes
# 10-30 minutes and builds whole systems).
#
# Usage: sudo scripts/fresh-check.sh [--mode root|user|both] [--only demo|test|both|fuzz]
#                                    [--work DIR] [--refresh] [--keep]
#   --mode     which user runs the commands (default: both)
#   --only     which README command to run (default: both); fuzz runs only
#              the test command's fuzz stage (scripts/test.sh --fuzz)
#   --work     where the chroots go (default: /var/tmp/rsp-fresh-check)
#   --refresh  debootstrap the pristine tree again (it is cached in WORK/pristine)
#   --keep     leave each run's chroot in WORK/run-MODE for a look afterwards
# Environment: FRESH_MIRROR (default: this machine's Debian mirror, else
# http://deb.debian.org/debian), FUZZ_RUNS (passed to test.sh).
# Downloaded packages are kept in WORK/apt-archives between runs: that
# saves downloads, not installs.  Logs: WORK/MODE-COMMAND.log.
set -euo pipefail

src_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=both
only=both
work=/var/tmp/rsp-fresh-check
refresh=0
keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --mode) mode=${2:?--mode needs root, user or both}; shift ;;
    --only) only=${2:?--only needs demo, test or both}; shift ;;
    --work) work=${2:?--work needs a directory}; shift ;;
    --refresh) refresh=1 ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "fresh-check: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
case $mode in root) modes=(root) ;; user) modes=(user) ;; both) modes=(root user) ;;
  *) echo "fresh-check: --mode is root, user or both" >&2; exit 2 ;; esac
case $only in demo) commands=(demo) ;; test) commands=(test) ;; both) commands=(demo test) ;; fuzz) commands=(fuzz) ;;
  *) echo "fresh-check: --only is demo, test, both or fuzz" >&2; exit 2 ;; esac

if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-check: debootstrap and chroot need root: sudo scripts/fresh-check.sh" >&2
  exit 1
fi
if ! git -C "$src_root" rev-parse --verify -q HEAD >/dev/null; then
  echo "fresh-check: $src_root is not a git checkout with a commit to clone" >&2
  exit 1
fi
if ! command -v debootstrap >/dev/null; then
  echo "fresh-check: installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null \
    || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap; }
fi

mirror=${FRESH_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(grep -hsE '^(URIs:|deb) ' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
    | grep -v security | sed -E 's/^URIs: *//; s/^deb +(\[[^]]*\] +)?//' | awk '{print $1}' | grep -m1 '^http' || true)
  mirror=${mirror:-http://deb.debian.org/debian}
fi

mkdir -p "$work/apt-archives/partial"
pristine=$work/pristine
if [ "$refresh" -eq 1 ] || [ ! -f "$pristine/.complete" ]; then
  echo "fresh-check: debootstrap --variant=minbase bookworm from $mirror (a few minutes)"
  rm -rf "$pristine"
  if ! debootstrap --variant=minbase bookworm "$pristine" "$mirror" >"$work/debootstrap.log" 2>&1; then
    tail -20 "$work/debootstrap.log"
    echo "fresh-check: debootstrap failed (log: $work/debootstrap.log)" >&2
    exit 1
  fi
  touch "$pristine/.complete"
fi

run_root=""
mounted=()
cleanup() {
  local rc=$?
  if [ -n "$run_root" ]; then
    # Processes a test left behind inside the chroot (Xvfb, servers).
    local pid
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
      if [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$run_root" ]; then
        kill -9 "$pid" 2>/dev/null || true
      fi
    done
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
      umount -R "${mounted[$i]}" 2>/dev/null || umount -lR "${mounted[$i]}" 2>/dev/null || true
    done
    mounted=()
    if [ "$keep" -eq 0 ] && ! grep -qs " $run_root" /proc/mounts; then
      rm -rf "$run_root"
    fi
    run_root=""
  fi
  return $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bind() { # bind SOURCE TARGET [rbind]
  mkdir -p "$2"
  if [ "${3:-}" = rbind ]; then
    mount --rbind "$1" "$2"
    mount --make-rslave "$2"
  else
    mount --bind "$1" "$2"
  fi
  mounted+=("$2")
}

# prepare MODE: a copy of the pristine tree with the kernel's file systems,
# the apt cache and a clone of HEAD.  Echoes the checkout's path inside.
prepare() {
  local m=$1
  run_root=$work/run-$m
  rm -rf "$run_root"
  cp -a "$pristine" "$run_root"
  mkdir -p "$run_root/proc"
  mount -t proc proc "$run_root/proc"
  mounted+=("$run_root/proc")
  bind /sys "$run_root/sys" rbind      # perf needs sysfs and tracefs
  bind /dev "$run_root/dev" rbind
  mount -t tmpfs tmpfs "$run_root/tmp"
  mounted+=("$run_root/tmp")
  bind "$work/apt-archives" "$run_root/var/cache/apt/archives"
  cp /etc/resolv.conf "$run_root/etc/resolv.conf" 2>/dev/null || true
  # The network's own TLS certificate authorities (a site's intercepting
  # proxy), when this machine has some: part of the network, like
  # resolv.conf, not a package.  Debian's ca-certificates, which
  # install-deps.sh --test installs for the npm downloads, adds them to the
  # system's bundle, as it would on a fresh machine of that site.
  if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
    mkdir -p "$run_root/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$run_root/usr/local/share/ca-certificates/"
  fi
  local home=/root
  if [ "$m" = user ]; then
    chroot "$run_root" /bin/sh -c 'DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends sudo >/dev/null'
    chroot "$run_root" useradd -m -s /bin/bash rspuser
    echo 'rspuser ALL=(ALL) NOPASSWD: ALL' >"$run_root/etc/sudoers.d/rspuser"
    chmod 0440 "$run_root/etc/sudoers.d/rspuser"
    home=/home/rspuser
  fi
  git clone -q --no-local "$src_root" "$run_root$home/rsp"
  if [ "$m" = user ]; then
    chroot "$run_root" chown -R rspuser:rspuser "$home/rsp"
  fi
  checkout=$home/rsp
}

# in_chroot MODE COMMAND: runs COMMAND (a shell line) in the checkout, as
# root or as the sudo user, with no terminal and no stdin, like CI.
in_chroot() {
  local m=$1 line=$2
  local envs=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
              HOME="$( [ "$m" = user ] && echo /home/rspuser || echo /root)" CI=true
              FUZZ_RUNS="${FUZZ_RUNS:-40000}")
  if [ "$m" = user ]; then
    chroot "$run_root" "${envs[@]}" USER=rspuser runuser -u rspuser -- /bin/bash -c "cd $checkout && $line" </dev/null
  else
    chroot "$run_root" "${envs[@]}" /bin/bash -c "cd $checkout && $line" </dev/null
  fi
}

declare -A readme=([demo]="scripts/demo.sh" [test]="scripts/test.sh" [fuzz]="scripts/test.sh --fuzz")
results=()
failed=0
head_commit=$(git -C "$src_root" rev-parse --short HEAD)
for m in "${modes[@]}"; do
  echo "fresh-check: [$m] fresh copy of the minbase tree, clone of $head_commit"
  prepare "$m"
  for c in "${commands[@]}"; do
    log=$work/$m-$c.log
    echo "fresh-check: [$m] ${readme[$c]} (log: $log)"
    start=$(date +%s)
    rc=0
    in_chroot "$m" "${readme[$c]}" >"$log" 2>&1 || rc=$?
    took=$(($(date +%s) - start))
    if [ "$rc" -eq 0 ]; then
      results+=("PASS  $m: ${readme[$c]} (${took} s)")
    else
      failed=1
      results+=("FAIL  $m: ${readme[$c]} exited $rc after ${took} s (log: $log)")
      tail -30 "$log"
    fi
    grep -E '^(tests: |test.sh: )|accounted|^== ' "$log" | tail -12 | sed "s/^/  [$m $c] /" || true
  done
  cleanup || true
done

echo
echo "fresh-check: Debian 12 minbase from $mirror, checkout $head_commit"
printf '  %s\n' "${results[@]}"
exit "$failed"
