#!/bin/sh
# bench/make-recording.sh — make the large system-wide recording the reader
# benchmark (bench/run.sh) runs on.
#
# Usage: bench/make-recording.sh [DIR]        (default DIR: /var/tmp/rsp-bench)
#        Writes DIR/bench.data and prints its record count and size.
# Run as root (perf record -a). Needs only what scripts/install-deps.sh
# installs (gcc, make, pkg-config, the -dev packages, linux-perf) and git.
#
# The workload is fixed in size (not in time), so the record count is
# reproducible to a few percent on one machine. About a minute on a 2-CPU VM:
#   1. build:     compile a pinned snapshot of RSP's own C sources (the first
#                 commit, `git archive`; GLib headers make each file a real
#                 compile) ROUNDS times with `make -j2`, while `dd` writes and
#                 reads a file with direct I/O beside it (block + irq events);
#   2. sched:     `perf bench sched pipe` (sched_switch / waking / wakeup);
#   3. messaging: `perf bench sched messaging` (processes talking through
#                 Unix sockets: sock:* events, fork / exit);
#   4. tcp:       TCP connections on loopback (sock:inet_sock_set_state).
# The event set is RSP's: the tracepoints at period 1, cpu-clock at 1000 Hz
# (never a global -F: it would put the tracepoints into frequency mode).
#
# Tunables (environment): ROUNDS (default 60), PIPE_LOOPS (default 100000),
# MSG_LOOPS (default 100), IO_MB (default 64, per pass), IO_PASSES (default 6),
# TCP_CONNS (default 200).
set -eu
start=$(date +%s)

DIR=${1:-/var/tmp/rsp-bench}
ROUNDS=${ROUNDS:-60}
PIPE_LOOPS=${PIPE_LOOPS:-100000}
MSG_LOOPS=${MSG_LOOPS:-100}
IO_MB=${IO_MB:-64}
IO_PASSES=${IO_PASSES:-6}
TCP_CONNS=${TCP_CONNS:-200}

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
# The pinned code base: RSP's first commit (the native reader). Falls back to
# HEAD if the history does not have it (shallow clone).
SNAPSHOT=${SNAPSHOT:-866fc7c}

if [ "$(id -u)" -ne 0 ]; then
  echo "make-recording: run as root (perf record -a)" >&2
  exit 1
fi
for tool in perf gcc make pkg-config git chrt python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "make-recording: $tool not found (scripts/install-deps.sh)" >&2; exit 1; }
done

EV=sched:sched_switch,sched:sched_waking,sched:sched_wakeup,sched:sched_wakeup_new,\
sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit,\
block:block_rq_insert,block:block_rq_issue,block:block_rq_complete,\
irq:irq_handler_entry,irq:irq_handler_exit,irq:softirq_entry,irq:softirq_exit,\
sock:sock_send_length,sock:sock_recv_length,sock:sk_data_ready,sock:inet_sock_set_state,fib:fib_table_lookup

mkdir -p "$DIR"
work="$DIR/work"
out="$DIR/bench.data"
rm -rf "$work"
mkdir -p "$work/src"

# --- the code base ---------------------------------------------------------
if ! git -C "$repo" archive "$SNAPSHOT" src 2>/dev/null | tar -x -C "$work/src"; then
  echo "make-recording: commit $SNAPSHOT not found, using HEAD" >&2
  git -C "$repo" archive HEAD src | tar -x -C "$work/src"
fi
cflags="-std=gnu17 -O2 -g -Wall -D_GNU_SOURCE -DRSP_VERSION=\\\"bench\\\" -Isrc/src/collector -Isrc/src \
$(pkg-config --cflags glib-2.0 gio-2.0 json-glib-1.0 libtraceevent libelf libdw)"
sources=$(cd "$work" && find src -name '*.c' | LC_ALL=C sort)
{
  printf 'CFLAGS = %s\n' "$cflags"
  printf 'all:'
  r=1
  while [ "$r" -le "$ROUNDS" ]; do
    for s in $sources; do printf ' r%d/%s.o' "$r" "$(basename "$s" .c)"; done
    r=$((r + 1))
  done
  printf '\n'
  r=1
  while [ "$r" -le "$ROUNDS" ]; do
    for s in $sources; do
      printf 'r%d/%s.o: %s\n\t@mkdir -p r%d && $(CC) $(CFLAGS) -c %s -o $@\n' \
        "$r" "$(basename "$s" .c)" "$s" "$r" "$s"
    done
    r=$((r + 1))
  done
} > "$work/Makefile"

# --- the workload (runs under perf record) ---------------------------------
cat > "$work/workload.sh" <<EOF
#!/bin/sh
set -e
# perf record runs SCHED_FIFO (below); the workload goes back to normal.
chrt -o -p 0 \$\$
cd "$work"
t0=\$(date +%s.%N)
# 1. build, with direct I/O beside it
(
  p=1
  while [ \$p -le $IO_PASSES ]; do
    dd if=/dev/zero of=io.dat bs=64k count=$((IO_MB * 16)) oflag=direct status=none
    dd if=io.dat of=/dev/null bs=64k iflag=direct status=none
    p=\$((p + 1))
  done
  rm -f io.dat
) &
io=\$!
make -s -j2 all
wait \$io
t1=\$(date +%s.%N)
# 2. scheduler
perf bench sched pipe -l $PIPE_LOOPS >/dev/null
t2=\$(date +%s.%N)
# 3. sockets, fork, exit
perf bench sched messaging -g 4 -l $MSG_LOOPS >/dev/null
t3=\$(date +%s.%N)
# 4. TCP on loopback (sock:inet_sock_set_state)
python3 tcp.py $TCP_CONNS
t4=\$(date +%s.%N)
awk -v a=\$t0 -v b=\$t1 -v c=\$t2 -v d=\$t3 -v e=\$t4 'BEGIN {
  printf "phases:   build+io %.1f s, sched pipe %.1f s, messaging %.1f s, tcp %.1f s\\n", b - a, c - b, d - c, e - d }' \\
  > "$DIR/phases.log"
EOF
chmod +x "$work/workload.sh"

cat > "$work/tcp.py" <<'PYEOF'
# N connections to a loopback echo server, 16 round trips of 4 KB each.
import socket, sys, threading
n = int(sys.argv[1])
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(64)
def serve():
    for _ in range(n):
        c, _ = srv.accept()
        with c:
            while True:
                b = c.recv(65536)
                if not b:
                    break
                c.sendall(b)
threading.Thread(target=serve, daemon=True).start()
msg = b"x" * 4096
for _ in range(n):
    with socket.create_connection(srv.getsockname()) as s:
        for _ in range(16):
            s.sendall(msg)
            got = 0
            while got < len(msg):
                got += len(s.recv(65536))
PYEOF

echo "make-recording: recording the workload into $out (about a minute) ..."
rm -f "$out"
# -m 4096: 16 MB ring buffer per CPU, so the bursts of the sched phase do
# not lose events. --no-buildid-cache: leave ~/.debug alone (build ids are
# still written into the file's header).
# chrt -f 10: perf record must drain its ring buffers ahead of the workload,
# or the sched and messaging phases lose half their events (PERF_RECORD_LOST)
# on 2 CPUs; the workload script drops back to SCHED_OTHER first thing.
chrt -f 10 perf record -a -g -k monotonic -m 4096 --no-buildid-cache \
  -e "$EV" -e cpu-clock/freq=1000/ -o "$out" -- "$work/workload.sh" 2> "$DIR/perf-record.log" \
  || { cat "$DIR/perf-record.log" >&2; exit 1; }
rm -rf "$work"

size=$(stat -c %s "$out")
records=$(perf report -i "$out" --stats 2>/dev/null | awk '/TOTAL events:/ { print $3; exit }')
end=$(date +%s)
echo "file:     $out"
echo "size:     $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1e6 }') MB)"
echo "records:  ${records:-?} (perf report --stats, TOTAL events)"
echo "time:     $((end - start)) s (this script: workload, perf record, perf report --stats)"
cat "$DIR/phases.log"
grep -E 'Captured|LOST|lost' "$DIR/perf-record.log" >&2 || true
