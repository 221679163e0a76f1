#!/bin/bash
# Scenario "pass": the paper's toy program.  Two processes pass a unit of
# work back and forth over pipes, each computing in turn
# (tests/model/workloads/pass.c, built with the project).  Nothing to install
# or configure; it is the baseline of the evaluation: all of its time should
# be CPU in pass_work in the two processes, on one control path.
#
# Usage: sudo scenarios/pass.sh      (outputs in build/scenarios/pass.*)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
scen_init pass

workload=${PASS_WORKLOAD:-$(dirname "$RSP")/../tests/model/pass}
[ -x "$workload" ] || scen_die "no pass workload at $workload; build first: ninja -C build"

scen_record -- "$workload"
