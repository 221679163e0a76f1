#!/bin/bash
# Scenario "web-request": the paper's Squirrelmail chain with Debian's
# software.  curl asks nginx for a PHP page; php-fpm runs it; the page logs in
# to dovecot over IMAP with a password (checked against a SHA512-CRYPT hash),
# selects the INBOX and fetches the headers of its 20 messages, as a webmail
# does, with its own socket code (fsockopen/fwrite/fgets, like Squirrelmail's
# sqimap_* functions, not the php-imap extension), and answers with an HTML
# list of the subjects.  Every server is a private instance on 127.0.0.1 with
# its configuration, logs and sockets in the scenario's work directory;
# dovecot keeps its default process layout (a fresh imap-login per
# connection, the auth process, an imap process after the login), so the
# request crosses curl, nginx, php-fpm, imap-login, auth and imap.
#
# The URL names the host "localhost", as the paper's curl did (it found curl
# polling slowly for its resolver thread).  curl 7.88 (Debian 12) resolves
# "localhost" itself, without starting that thread; WEB_REQUEST_HOST=NAME asks
# for another name from /etc/hosts (e.g. the machine's hostname), which goes
# through curl's threaded resolver.
#
# Usage: sudo scenarios/web-request.sh   (outputs in build/scenarios/web-request.*)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scen_init web-request

host=${WEB_REQUEST_HOST:-localhost}
mail_user=alice
mail_password=squirrel-$$-$RANDOM
mail_uid=$(id -u nobody)
mail_gid=$(getent group nogroup | cut -d: -f3)
log=$SCEN_OUT/$SCEN_NAME.log

scen_install nginx-light php-fpm dovecot-imapd curl

fpm_bin=$(find /usr/sbin -maxdepth 1 -name 'php-fpm[0-9]*' | sort -V | tail -1)
[ -n "$fpm_bin" ] || scen_die "no php-fpm in /usr/sbin after installing php-fpm"

# --- the servers' processes: started here, stopped in the teardown --------

# alive PID: PID exists and is no zombie (the servers are this shell's
# children, and stay zombies until they are waited for).
alive() {
  local stat
  stat=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$stat" ] && [ "${stat%% *}" != Z ]
}

# descendants PID: "PID:COMM" of every process below PID (from /proc: a
# minimal Debian has no procps).
descendants() {
  local stat line fields child
  for stat in /proc/[0-9]*/stat; do
    read -r line 2>/dev/null <"$stat" || continue
    read -ra fields <<<"${line##*) }" # state ppid ...
    [ "${fields[1]}" = "$1" ] || continue
    child=${line%% *}
    echo "$child:$(cat "/proc/$child/comm" 2>/dev/null)"
    descendants "$child"
  done
}

# stop_server PID: SIGTERM to a server's main process, SIGKILL after 5 s,
# then SIGKILL to whatever of its children outlived it.
stop_server() {
  local pid=$1 kids entry i
  kids=$(descendants "$pid")
  alive "$pid" && kill -TERM "$pid"
  for ((i = 0; i < 50; i++)); do
    alive "$pid" || break
    sleep 0.1
  done
  alive "$pid" && kill -KILL "$pid"
  wait "$pid"
  for entry in $kids; do
    for ((i = 0; i < 20; i++)); do
      [ "$(cat "/proc/${entry%%:*}/comm" 2>/dev/null)" = "${entry#*:}" ] || break
      sleep 0.1
    done
    if [ "$(cat "/proc/${entry%%:*}/comm" 2>/dev/null)" = "${entry#*:}" ]; then
      kill -KILL "${entry%%:*}"
    fi
  done
}

# show_log TITLE FILE [LINES]: the end of a server's log, on stderr.
show_log() {
  echo "--- $1 ($2), last ${3:-20} lines:" >&2
  tail -n "${3:-20}" "$2" >&2 2>/dev/null || echo "(no log)" >&2
}

# await_server NAME PID PORT LOG: waits until NAME listens on PORT; fails
# with NAME's log when it exits or does not listen within 10 s.
await_server() {
  local name=$1 pid=$2 port=$3 logfile=$4 i
  for ((i = 0; i < 100; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    if ! alive "$pid"; then
      show_log "$name" "$logfile"
      scen_die "$name did not start: it exited (log above)"
    fi
    sleep 0.1
  done
  ((i < 100)) || show_log "$name" "$logfile"
  scen_wait_port "$port" 1 # returns at once, or fails naming the port
  scen_say "$name (pid $pid) listens on 127.0.0.1:$port"
}

# The servers' logs go with the work directory; keep a copy in the scenario's
# log (registered first, so that it runs last, after the servers stopped).
save_logs() {
  local f
  for f in "$SCEN_WORK"/logs/*; do
    [ -f "$f" ] || continue
    printf '\n--- %s\n' "${f##*/}"
    cat "$f"
  done >>"$log"
}
scen_on_exit save_logs
mkdir -p "$SCEN_WORK/logs"

imap_port=$(scen_free_port)
fpm_port=$(scen_free_port)
http_port=$(scen_free_port)
while [ "$fpm_port" = "$imap_port" ]; do fpm_port=$(scen_free_port); done
while [ "$http_port" = "$imap_port" ] || [ "$http_port" = "$fpm_port" ]; do http_port=$(scen_free_port); done

# --- dovecot: IMAP on 127.0.0.1, passwd-file with SHA512-CRYPT, maildir ---

dc=$SCEN_WORK/dovecot
mkdir -p "$dc/run" "$dc/state"
cat >"$dc/dovecot.conf" <<EOF
# Private dovecot of the web-request scenario (default process layout).
base_dir = $dc/run
state_dir = $dc/state
log_path = $SCEN_WORK/logs/dovecot.log
info_log_path = $SCEN_WORK/logs/dovecot.log
auth_verbose = yes
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = $mail_uid
last_valid_uid = $mail_uid
mail_location = maildir:~/Maildir

passdb {
  driver = passwd-file
  args = scheme=SHA512-CRYPT $dc/users
}
userdb {
  driver = static
  args = uid=$mail_uid gid=$mail_gid home=$SCEN_WORK/mail/%u
}

service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $imap_port
  }
  inet_listener imaps {
    port = 0
  }
}
EOF

hash=$(doveadm -c "$dc/dovecot.conf" pw -s SHA512-CRYPT -p "$mail_password") ||
  scen_die "doveadm pw -s SHA512-CRYPT failed"
# shellcheck disable=SC2016 # a literal $6$
case $hash in
  '{SHA512-CRYPT}$6$'*) ;;
  *) scen_die "doveadm pw gave no SHA512-CRYPT hash: $hash" ;;
esac
printf '%s:%s\n' "$mail_user" "$hash" >"$dc/users"
chgrp dovecot "$dc/users"
chmod 640 "$dc/users"

# The INBOX: 20 messages in a maildir, owned by the userdb's uid.
subjects=(
  "Quarterly report draft" "Lunch on Friday?" "Re: build server is down"
  "Invoice 2041 for March" "Meeting notes: roadmap" "Your parcel is on its way"
  "Fwd: conference schedule" "Password policy update" "Re: Re: holiday photos"
  "Team offsite agenda" "Code review for the parser" "Weekly newsletter"
  "Re: printer on floor 3" "New hire onboarding" "Security advisory: OpenSSL"
  "Budget approval needed" "Re: Squirrelmail upgrade" "Minutes of the board meeting"
  "Reminder: timesheets due" "Welcome to the mailing list"
)
maildir=$SCEN_WORK/mail/$mail_user/Maildir
mkdir -p "$maildir/cur" "$maildir/new" "$maildir/tmp"
for i in "${!subjects[@]}"; do
  n=$((i + 1))
  stamp=$((1700000000 + n * 3600))
  {
    printf 'Return-Path: <sender%d@example.org>\r\n' "$n"
    printf 'From: Sender %d <sender%d@example.org>\r\n' "$n" "$n"
    printf 'To: %s@example.org\r\n' "$mail_user"
    printf 'Subject: %s\r\n' "${subjects[i]}"
    printf 'Date: %s\r\n' "$(LC_ALL=C date -u -R -d "@$stamp")"
    printf 'Message-ID: <%d.%d@example.org>\r\n' "$stamp" "$n"
    printf 'Content-Type: text/plain; charset=us-ascii\r\n\r\n'
    printf 'Hello %s,\r\n\r\nthis is message %d of the web-request scenario.\r\n' "$mail_user" "$n"
  } >"$maildir/cur/$stamp.M${n}P$$.rsp:2,S"
done
chown -R "$mail_uid:$mail_gid" "$SCEN_WORK/mail"

dovecot -F -c "$dc/dovecot.conf" >>"$SCEN_WORK/logs/dovecot.log" 2>&1 &
dovecot_pid=$!
scen_on_exit stop_server "$dovecot_pid"
await_server dovecot "$dovecot_pid" "$imap_port" "$SCEN_WORK/logs/dovecot.log"

# --- php-fpm: one static pool of www-data workers on 127.0.0.1 ------------

www=$SCEN_WORK/www
mkdir -p "$www"
cat >"$SCEN_WORK/php-fpm.conf" <<EOF
; Private php-fpm of the web-request scenario.
[global]
pid = $SCEN_WORK/php-fpm.pid
error_log = $SCEN_WORK/logs/php-fpm.log
log_level = notice
daemonize = no

[webmail]
user = www-data
group = www-data
listen = 127.0.0.1:$fpm_port
listen.allowed_clients = 127.0.0.1
pm = static
pm.max_children = 3
catch_workers_output = yes
php_admin_flag[log_errors] = on
EOF

cat >"$www/config.php" <<EOF
<?php
\$imap_host = '127.0.0.1';
\$imap_port = $imap_port;
\$imap_user = '$mail_user';
\$imap_password = '$mail_password';
EOF

cat >"$www/inbox.php" <<'EOF'
<?php
// A webmail's message list, the way Squirrelmail builds it: its own IMAP
// client on a TCP socket (fsockopen, fwrite, fgets), LOGIN with the user's
// password, SELECT INBOX, FETCH the list headers, LOGOUT.
require __DIR__ . '/config.php';

function fail($what) {
    http_response_code(502);
    error_log("inbox.php: IMAP error: $what");
    echo "<p class=\"error\">IMAP error: " . htmlspecialchars($what) . "</p>\n";
    exit;
}

// Sends "TAG COMMAND" and reads up to the tagged answer, which must be OK.
// Returns the untagged answers, literals ({N}) read in place.
function imap_command($sock, $tag, $command, $verb) {
    if (fwrite($sock, "$tag $command\r\n") === false) {
        fail("cannot send $verb");
    }
    $answers = [];
    for (;;) {
        $line = fgets($sock, 8192);
        if ($line === false) {
            fail("the server closed the connection during $verb");
        }
        while (preg_match('/\{(\d+)\}\r\n$/', $line, $m)) {
            $literal = '';
            while (strlen($literal) < (int)$m[1]) {
                $chunk = fread($sock, (int)$m[1] - strlen($literal));
                if ($chunk === false || $chunk === '') {
                    fail("short literal during $verb");
                }
                $literal .= $chunk;
            }
            $rest = fgets($sock, 8192);
            if ($rest === false) {
                fail("the server closed the connection during $verb");
            }
            $line .= $literal . $rest;
        }
        if (strncmp($line, "$tag ", strlen($tag) + 1) == 0) {
            if (strncmp($line, "$tag OK", strlen($tag) + 3) != 0) {
                fail("$verb: " . trim($line));
            }
            return $answers;
        }
        $answers[] = $line;
    }
}

function header_field($headers, $name) {
    $unfolded = preg_replace('/\r\n[ \t]+/', ' ', $headers);
    if (preg_match('/^' . $name . ':[ \t]*(.*)$/mi', $unfolded, $m)) {
        return trim($m[1]);
    }
    return '';
}

$sock = fsockopen($imap_host, $imap_port, $errno, $errstr, 5);
if (!$sock) {
    fail("cannot connect to $imap_host:$imap_port: $errstr");
}
stream_set_timeout($sock, 5);
$greeting = fgets($sock, 8192);
if ($greeting === false || strncmp($greeting, '* OK', 4) != 0) {
    fail('no greeting: ' . trim((string)$greeting));
}
imap_command($sock, 'a001', 'CAPABILITY', 'CAPABILITY');
imap_command($sock, 'a002', 'LOGIN "' . addcslashes($imap_user, '"\\') . '" "'
             . addcslashes($imap_password, '"\\') . '"', 'LOGIN');
$exists = 0;
foreach (imap_command($sock, 'a003', 'SELECT "INBOX"', 'SELECT') as $answer) {
    if (preg_match('/^\* (\d+) EXISTS/', $answer, $m)) {
        $exists = (int)$m[1];
    }
}
$messages = [];
if ($exists > 0) {
    $fetch = imap_command($sock, 'a004',
        'FETCH 1:* (UID FLAGS RFC822.SIZE BODY.PEEK[HEADER.FIELDS (FROM SUBJECT DATE)])', 'FETCH');
    foreach ($fetch as $answer) {
        if (!preg_match('/^\* (\d+) FETCH/', $answer, $m)) {
            continue;
        }
        $messages[] = [
            'n' => (int)$m[1],
            'from' => header_field($answer, 'From'),
            'subject' => header_field($answer, 'Subject'),
            'date' => header_field($answer, 'Date'),
        ];
    }
}
imap_command($sock, 'a005', 'LOGOUT', 'LOGOUT');
fclose($sock);

usort($messages, function ($a, $b) { return $b['n'] - $a['n']; });
header('Content-Type: text/html; charset=utf-8');
echo "<!DOCTYPE html>\n<html><head><title>INBOX</title></head><body>\n";
printf("<h1>INBOX of %s: %d messages</h1>\n", htmlspecialchars($imap_user), count($messages));
echo "<table>\n<tr><th>From</th><th>Subject</th><th>Date</th></tr>\n";
foreach ($messages as $msg) {
    printf("<tr><td>%s</td><td class=\"subject\">%s</td><td>%s</td></tr>\n",
           htmlspecialchars($msg['from']), htmlspecialchars($msg['subject']),
           htmlspecialchars($msg['date']));
}
echo "</table>\n</body></html>\n";
EOF
chmod 755 "$www"
chmod 644 "$www"/*.php

"$fpm_bin" -y "$SCEN_WORK/php-fpm.conf" -F >>"$SCEN_WORK/logs/php-fpm.log" 2>&1 &
fpm_pid=$!
scen_on_exit stop_server "$fpm_pid"
await_server php-fpm "$fpm_pid" "$fpm_port" "$SCEN_WORK/logs/php-fpm.log"

# --- nginx: one server on 127.0.0.1 passing *.php to php-fpm --------------

ng=$SCEN_WORK/nginx
mkdir -p "$ng/tmp"
cat >"$ng/nginx.conf" <<EOF
# Private nginx of the web-request scenario.
daemon off;
user www-data www-data;
worker_processes auto;
pid $ng/nginx.pid;
error_log $SCEN_WORK/logs/nginx-error.log notice;

events {
  worker_connections 64;
}

http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log $SCEN_WORK/logs/nginx-access.log;
  client_body_temp_path $ng/tmp/body;
  fastcgi_temp_path $ng/tmp/fastcgi;
  proxy_temp_path $ng/tmp/proxy;
  scgi_temp_path $ng/tmp/scgi;
  uwsgi_temp_path $ng/tmp/uwsgi;

  server {
    listen 127.0.0.1:$http_port;
    server_name localhost;
    root $www;
    index inbox.php;

    location ~ \.php\$ {
      try_files \$uri =404;
      include /etc/nginx/fastcgi.conf;
      fastcgi_pass 127.0.0.1:$fpm_port;
    }
  }
}
EOF

nginx -c "$ng/nginx.conf" -p "$ng" -e "$SCEN_WORK/logs/nginx-error.log" \
  >>"$SCEN_WORK/logs/nginx.out" 2>&1 &
nginx_pid=$!
scen_on_exit stop_server "$nginx_pid"
await_server nginx "$nginx_pid" "$http_port" "$SCEN_WORK/logs/nginx-error.log"

# --- the page: warm up once, check it, then record one request -----------

url=http://$host:$http_port/inbox.php
page=$SCEN_WORK/page.html

# check_page WHEN CURL_EXIT [HTTP_CODE]: the page lists every subject, or the
# scenario fails naming the server that did not do its part.
check_page() {
  local when=$1 rc=$2 code=$3 s lacking=0
  if [ -z "$code" ]; then # not asked: nginx's own error pages say it in their title
    code=$(sed -n 's|.*<title>\([0-9][0-9][0-9]\) .*|\1|p' "$page" 2>/dev/null | head -1)
    code=${code:-200}
  fi
  if [ "$rc" -eq 6 ]; then
    scen_die "$when: curl cannot resolve $host (WEB_REQUEST_HOST names a host this machine does not know)"
  fi
  if [ "$rc" -ne 0 ]; then
    show_log nginx "$SCEN_WORK/logs/nginx-error.log"
    scen_die "$when: curl $url failed (exit $rc): nginx on 127.0.0.1:$http_port did not answer"
  fi
  if grep -q 'IMAP error' "$page" 2>/dev/null; then
    show_log dovecot "$SCEN_WORK/logs/dovecot.log"
    show_log "nginx (PHP's messages)" "$SCEN_WORK/logs/nginx-error.log" 5
    scen_die "$when: dovecot failed the PHP page's IMAP session: $(grep -o 'IMAP error:[^<]*' "$page")"
  fi
  if [ "$code" != 200 ]; then
    show_log php-fpm "$SCEN_WORK/logs/php-fpm.log"
    show_log nginx "$SCEN_WORK/logs/nginx-error.log"
    scen_die "$when: nginx answered HTTP $code: php-fpm on 127.0.0.1:$fpm_port did not run inbox.php"
  fi
  for s in "${subjects[@]}"; do
    grep -qF "<td class=\"subject\">$s</td>" "$page" || { echo "missing subject: $s" >&2; lacking=1; }
  done
  if [ "$lacking" -ne 0 ]; then
    echo "--- the page:" >&2
    head -c 2000 "$page" >&2
    show_log php-fpm "$SCEN_WORK/logs/php-fpm.log"
    show_log dovecot "$SCEN_WORK/logs/dovecot.log"
    scen_die "$when: the page does not list the INBOX's ${#subjects[@]} subjects (php-fpm or dovecot)"
  fi
}

scen_say "warm-up request: $url"
rc=0
code=$(curl -sS -m 10 -o "$page" -w '%{http_code}' "$url" 2>>"$log") || rc=$?
check_page warm-up "$rc" "$code"
scen_say "warm-up page lists all ${#subjects[@]} subjects"
rm -f "$page"

scen_record -- curl -sS -o "$page" "$url"
check_page recording 0 ""
scen_say "the recorded request's page lists all ${#subjects[@]} subjects"
