#!/bin/bash
# Scenario "database": PostgreSQL under load.  A private PostgreSQL cluster
# serves a pgbench database (TPC-B-like, scale 4) on 127.0.0.1; a background
# pgbench keeps 24 connections busy, and one more pgbench client, the task
# measured, runs 150 transactions over its own connection.  Its time crosses
# into its server backend, the WAL writer and the disk, and it queues behind
# the other connections for the CPUs and for locks.
#
# Usage: sudo scenarios/database.sh   (outputs in build/scenarios/database.*)
#   DB_LOAD_CLIENTS (default 24), DB_TRANSACTIONS (default 150)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scen_init database
scen_install postgresql postgresql-contrib

log=$SCEN_OUT/$SCEN_NAME.log
load_clients=${DB_LOAD_CLIENTS:-24}
transactions=${DB_TRANSACTIONS:-150}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
[ -x "$pgbin/pg_ctl" ] || scen_die "no PostgreSQL server binaries under /usr/lib/postgresql"
port=$(scen_free_port)
data=$SCEN_WORK/data
as_pg() { runuser -u postgres -- "$@"; }

mkdir -p "$data"
chown postgres: "$data" "$SCEN_WORK"
as_pg "$pgbin/initdb" -D "$data" -A trust -U postgres >>"$log" 2>&1 ||
  scen_die "initdb failed (see $log)"
as_pg "$pgbin/pg_ctl" -D "$data" -l "$SCEN_WORK/postgres.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $SCEN_WORK -c max_connections=64" start >>"$log" 2>&1 ||
  { cat "$SCEN_WORK/postgres.log" >>"$log" 2>/dev/null; scen_die "PostgreSQL did not start (see $log)"; }
scen_on_exit runuser -u postgres -- "$pgbin/pg_ctl" -D "$data" -m immediate stop
scen_wait_port "$port"
scen_say "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"

pgbench=$pgbin/pgbench
as_pg "$pgbench" -h 127.0.0.1 -p "$port" -i -s 4 -q postgres >>"$log" 2>&1 ||
  scen_die "pgbench -i failed (see $log)"

# The load: 24 connections until the measured client is done.
as_pg "$pgbench" -h 127.0.0.1 -p "$port" -c "$load_clients" -j 2 -T 120 postgres >>"$log" 2>&1 &
load_pid=$!
scen_on_exit kill "$load_pid"
sleep 2
kill -0 "$load_pid" 2>/dev/null || scen_die "the background pgbench exited (see $log)"

scen_record -- "$pgbench" -h 127.0.0.1 -p "$port" -U postgres -c 1 -t "$transactions" -n postgres
kill "$load_pid" 2>/dev/null || true
wait "$load_pid" 2>/dev/null || true
