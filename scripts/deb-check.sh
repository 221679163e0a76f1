#!/bin/bash
# Builds the Debian package from this checkout's committed HEAD and proves
# it on a pristine Debian 12:
#   1. dpkg-buildpackage -b -us -uc in a clean clone (WORK/src)
#   2. lintian on the result: any error (E:) fails
#   3. a copy of a minimal Debian 12 (debootstrap --variant=minbase bookworm,
#      cached in WORK/pristine, the same cache as scripts/fresh-check.sh)
#      installs the .deb with apt, which pulls its dependencies from the
#      archive, and runs `rsp report` and `rsp dump --stats` on the bundled
#      recording (tests/data/pingpong.rsp); the man page and the data files must be
#      installed.  /proc, /sys and /dev are bound into the copy and unmounted
#      on every exit.
# Not part of CI (it builds a system); run it before resolving anything that
# touches debian/, the installed files or the dependencies.
#
# Usage: sudo scripts/deb-check.sh [--work DIR] [--keep]
#   --work  where the clone, the packages and the chroot go
#           (default: /var/tmp/rsp-fresh-check)
#   --keep  leave the chroot in WORK/run-deb for a look afterwards
# Environment: FRESH_MIRROR (default: this machine's Debian mirror).
# The packages are left in WORK/deb/.
set -euo pipefail

src_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=/var/tmp/rsp-fresh-check
keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --work) work=${2:?--work needs a directory}; shift ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "deb-check: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$(id -u)" -ne 0 ]; then
  echo "deb-check: debootstrap and chroot need root: sudo scripts/deb-check.sh" >&2
  exit 1
fi

tools=(debhelper dpkg-dev lintian fakeroot debootstrap)
missing=()
for p in "${tools[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# the build dependencies: install-deps.sh's base list
if [ "${#missing[@]}" -gt 0 ] || ! dpkg-checkbuilddeps "$src_root/debian/control" >/dev/null 2>&1; then
  echo "deb-check: installing ${missing[*]:-} and the build dependencies"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  "$src_root/scripts/install-deps.sh" >/dev/null
fi

mkdir -p "$work"
head_commit=$(git -C "$src_root" rev-parse --short HEAD)

# 1. build from a clean clone
rm -rf "$work/src" "$work/deb"
mkdir -p "$work/deb"
git clone -q --no-local "$src_root" "$work/src/rsp"
echo "deb-check: dpkg-buildpackage -b -us -uc of $head_commit (log: $work/deb/build.log)"
start=$(date +%s)
if ! (cd "$work/src/rsp" && dpkg-buildpackage -b -us -uc) >"$work/deb/build.log" 2>&1; then
  tail -30 "$work/deb/build.log"
  echo "deb-check: FAIL: dpkg-buildpackage failed" >&2
  exit 1
fi
mv "$work/src"/*.deb "$work/src"/*.changes "$work/src"/*.buildinfo "$work/deb"/
deb=$(ls "$work/deb"/rsp_*_*.deb)
echo "deb-check: built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB) in $(($(date +%s) - start)) s"
if [ -n "$(git -C "$work/src/rsp" status --porcelain)" ]; then
  git -C "$work/src/rsp" status --short
  echo "deb-check: FAIL: the build left files in the tree" >&2
  exit 1
fi

# 2. lintian
lintian --pedantic "$work/deb"/rsp_*.changes >"$work/deb/lintian.log" 2>&1 || true
grep -v 'running with root privileges' "$work/deb/lintian.log" | sed 's/^/  lintian: /' || true
if grep -q '^E: ' "$work/deb/lintian.log"; then
  echo "deb-check: FAIL: lintian reports errors" >&2
  exit 1
fi
if grep -qE 'Skipping|No packages selected' "$work/deb/lintian.log"; then
  echo "deb-check: FAIL: lintian did not check the packages" >&2
  exit 1
fi
echo "deb-check: lintian: $(grep -c '^E: ' "$work/deb/lintian.log") errors, $(grep -c '^W: ' "$work/deb/lintian.log") warnings"

# 3. install on a pristine Debian 12 and run it
mirror=${FRESH_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(grep -hsE '^(URIs:|deb) ' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
    | grep -v security | sed -E 's/^URIs: *//; s/^deb +(\[[^]]*\] +)?//' | awk '{print $1}' | grep -m1 '^http' || true)
  mirror=${mirror:-http://deb.debian.org/debian}
fi
pristine=$work/pristine
if [ ! -f "$pristine/.complete" ]; then
  echo "deb-check: debootstrap --variant=minbase bookworm from $mirror (a few minutes)"
  rm -rf "$pristine"
  debootstrap --variant=minbase bookworm "$pristine" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log"; echo "deb-check: debootstrap failed" >&2; exit 1; }
  touch "$pristine/.complete"
fi
run_root=$work/run-deb
mounted=()
cleanup() {
  local rc=$? i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[$i]}" 2>/dev/null || umount -lR "${mounted[$i]}" 2>/dev/null || true
  done
  mounted=()
  if [ "$keep" -eq 0 ] && ! grep -qs " $run_root" /proc/mounts; then
    rm -rf --one-file-system "$run_root"
  fi
  return $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# A run killed before its trap ran may have left its mounts: never delete
# through them (the chroot's /dev is the machine's).
if grep -qs " $run_root/" /proc/mounts; then
  grep -s " $run_root/" /proc/mounts | awk '{print $2}' | sort -r | while read -r m; do
    umount -R "$m" 2>/dev/null || umount -lR "$m" 2>/dev/null || true
  done
fi
if grep -qs " $run_root/" /proc/mounts; then
  echo "deb-check: FAIL: $run_root still has mounts; unmount them first" >&2
  exit 1
fi
rm -rf --one-file-system "$run_root"
cp -a "$pristine" "$run_root"
mount -t proc proc "$run_root/proc"
mounted+=("$run_root/proc")
for fs in sys dev; do
  mkdir -p "$run_root/$fs"
  mount --rbind "/$fs" "$run_root/$fs"
  mounted+=("$run_root/$fs")
  mount --make-rslave "$run_root/$fs"
done
cp /etc/resolv.conf "$run_root/etc/resolv.conf" 2>/dev/null || true
cp "$deb" "$run_root/tmp/"
cp "$src_root/tests/data/pingpong.rsp" "$run_root/tmp/"
in_chroot() {
  chroot "$run_root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root /bin/sh -c "$1" </dev/null
}
echo "deb-check: apt-get install ./$(basename "$deb") in a fresh minbase chroot (log: $work/deb/install.log)"
start=$(date +%s)
if ! in_chroot "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/$(basename "$deb")" \
     >"$work/deb/install.log" 2>&1; then
  tail -30 "$work/deb/install.log"
  echo "deb-check: FAIL: the package does not install" >&2
  exit 1
fi
echo "deb-check: installed with its dependencies in $(($(date +%s) - start)) s"
failed=0
check() { # check DESCRIPTION SHELL-LINE
  local out rc=0
  out=$(in_chroot "$2" 2>&1) || rc=$?
  if [ "$rc" -ne 0 ] || [ -z "$out" ]; then
    echo "$out" | tail -20
    echo "deb-check: FAIL: $1 (exit $rc)"
    failed=1
  else
    echo "deb-check: ok: $1"
    echo "$out" | head -n 12 | sed 's/^/    /'
  fi
}
check "rsp --version" "rsp --version"
check "rsp report on the bundled recording" "rsp report /tmp/pingpong.rsp"
check "rsp dump --stats on the bundled recording" "rsp dump --stats /tmp/pingpong.rsp"
check "rsp render (the renderer's program, /usr/libexec/rsp/rsp-render) on the bundled recording" \
  "rsp render /tmp/pingpong.rsp --view consolidated -o /tmp/consolidated.png && ls -l /tmp/consolidated.png"
check "rsp view --help (the viewer's program, /usr/libexec/rsp/rsp-view)" "rsp view --help"
check "the man page, desktop file, metainfo, icon, MIME type and translation are installed" \
  "ls /usr/share/man/man1/rsp.1.gz /usr/share/applications/io.github.rsp.Profiler.desktop \
      /usr/share/metainfo/io.github.rsp.Profiler.metainfo.xml \
      /usr/share/icons/hicolor/scalable/apps/io.github.rsp.Profiler.svg \
      /usr/share/mime/packages/io.github.rsp.Profiler.xml /usr/share/locale/de/LC_MESSAGES/rsp.mo"
if [ "$failed" -ne 0 ]; then
  exit 1
fi
echo "deb-check: PASS: $(basename "$deb") from $head_commit builds, passes lintian, installs on Debian 12 minbase and reports"
