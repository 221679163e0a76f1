#!/bin/sh
# make-minidebuginfo.sh IN OUT — a stripped copy of the shared library IN
# whose local function symbols are kept only in MiniDebugInfo: an
# xz-compressed ELF with a .symtab of the functions .dynsym lacks, in the
# section .gnu_debugdata (the recipe of Fedora's find-debuginfo and GDB's
# manual).  Needs nm, objcopy, strip (binutils) and xz.
set -eu
in=$1
out=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D "$in" --format=posix --defined-only | awk '{ print $1 }' | sort > "$tmp/dynsyms"
nm "$in" --format=posix --defined-only | awk '{ if ($2 == "T" || $2 == "t") print $1 }' | sort > "$tmp/funcsyms"
comm -13 "$tmp/dynsyms" "$tmp/funcsyms" > "$tmp/keep"
objcopy --only-keep-debug "$in" "$tmp/debug"
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$tmp/keep" "$tmp/debug" "$tmp/mini"
xz -f "$tmp/mini"
strip --strip-all -R .comment -o "$tmp/stripped" "$in"
objcopy --add-section .gnu_debugdata="$tmp/mini.xz" "$tmp/stripped" "$out"
