#!/bin/bash
# Scenario "xterm-launch": the paper's application launch.  On a private
# X server (Xvfb) with a window manager (openbox), records
#   xterm -e sleep 0.2
# from exec to exit: xterm connects to the X server, the window manager maps
# and decorates its window, sleep runs in the terminal for 200 ms, and
# xterm tears the window down again.
#
# Usage: sudo scenarios/xterm-launch.sh   (outputs in build/scenarios/xterm-launch.*)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scen_init xterm-launch
scen_install xvfb openbox xterm x11-utils

log=$SCEN_OUT/$SCEN_NAME.log
# The X server picks a free display and writes its number to fd 3.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -noreset >>"$log" 2>&1 3>"$SCEN_WORK/display" &
xvfb_pid=$!
scen_on_exit kill "$xvfb_pid"
for _ in $(seq 100); do
  [ -s "$SCEN_WORK/display" ] && break
  kill -0 "$xvfb_pid" 2>/dev/null || scen_die "Xvfb exited (see $log)"
  sleep 0.1
done
[ -s "$SCEN_WORK/display" ] || scen_die "Xvfb did not start within 10 s (see $log)"
export DISPLAY=:$(head -1 "$SCEN_WORK/display")
unset XAUTHORITY
scen_say "Xvfb on $DISPLAY"

HOME=$SCEN_WORK openbox --sm-disable >>"$log" 2>&1 &
wm_pid=$!
scen_on_exit kill "$wm_pid"
# Wait until the window manager owns the screen (its check window is set).
for _ in $(seq 100); do
  xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q 'window id' && break
  kill -0 "$wm_pid" 2>/dev/null || scen_die "openbox exited (see $log)"
  sleep 0.1
done
xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q 'window id' ||
  scen_die "openbox did not take the screen within 10 s (see $log)"

# A first launch warms the caches: the paper measured a launch of an xterm
# already on the disk's page cache, not a cold start.
xterm -e true >>"$log" 2>&1 || scen_die "xterm does not start on $DISPLAY (see $log)"

scen_record -- xterm -e sleep 0.2
