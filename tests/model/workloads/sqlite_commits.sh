#!/bin/sh
# sqlite_commits — a commit loop on real software: the sqlite3 command-line
# shell runs COMMITS single-row INSERTs, each its own transaction, on a
# database in DIR with synchronous=FULL, so that every commit syncs the
# journal and the database (fdatasync) and waits for the disk.
#
# Usage: sqlite_commits [COMMITS [DIR [keep]]]   (defaults: 60, /var/tmp: a
# real file system, not tmpfs).  The script (the process of interest) waits
# for sqlite3, its child, and removes the files afterwards; with "keep" it
# leaves the database (as a real one stays) for the caller to remove.
# Planted cause: blocking disk I/O under fdatasync() in sqlite3.
set -eu
commits=${1:-60}
dir=${2:-/var/tmp}
keep=${3:-}
db=$(mktemp "$dir/rsp-sqlite-XXXXXX.db")
sql=$(mktemp "$dir/rsp-sqlite-XXXXXX.sql")
if [ "$keep" = keep ]; then
  trap 'rm -f "$db-journal" "$sql"' EXIT
else
  trap 'rm -f "$db" "$db-journal" "$sql"' EXIT
fi
{
  echo "PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL;"
  echo "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);"
  i=0
  while [ "$i" -lt "$commits" ]; do
    echo "INSERT INTO t (v) VALUES ('row $i');"
    i=$((i + 1))
  done
} >"$sql"
sync
sqlite3 "$db" <"$sql" >/dev/null
echo "sqlite_commits: $commits commits on $db"
