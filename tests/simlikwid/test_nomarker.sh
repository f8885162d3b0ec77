#!/bin/sh
# Without -m the simulation runs "without Marker API": every call is a no-op,
# no file is written; with -m GetRegion reports the calling thread's data.
. "$(dirname "$0")/common.sh"

out=$("$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -- "$SIM_APP" get 2>"$T/err")
expect_eq "no-op stdout" "get: count 0 events 0 time>0 0 ev0>0 0
get: capped events 0
sim_app done" "$out"
expect_grep "message" "Running without Marker API. Activate Marker API with -m on commandline." "$T/err"
ls "$T"/likwid_*.txt >/dev/null 2>&1 && fail "a marker file was written"

out=$("$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- "$SIM_APP" get 2>"$T/err")
expect_eq "GetRegion with -m" "get: count 10 events 6 time>0 1 ev0>0 1
get: capped events 2
sim_app done" "$out"
if grep -q "Running without" "$T/err"; then fail "message with -m"; else ok "no message with -m"; fi
finish
