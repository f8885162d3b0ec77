#!/bin/sh
# LIKWID's crash hazards are emulated (SIGSEGV) so tests can prove the shim
# keeps them away from the application; SIMLIKWID_STRICT_HAZARDS=0 disarms.
. "$(dirname "$0")/common.sh"

# The second Close is a hazard of LIKWID 5.5 (5.2 to 5.4 reset at Close).
SIMLIKWID_STYLE=55
export SIMLIKWID_STYLE
for sc in stop-unknown reset-unknown get-unknown double-close; do
    "$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- "$SIM_APP" $sc >/dev/null 2>&1
    expect_eq "$sc crashes" 139 $?
    out=$(SIMLIKWID_STRICT_HAZARDS=0 "$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- "$SIM_APP" $sc 2>/dev/null)
    expect_eq "$sc disarmed" "sim_app done" "$out"
    # without -m nothing is active, so nothing crashes
    out=$("$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -- "$SIM_APP" $sc 2>/dev/null)
    expect_eq "$sc without -m" "sim_app done" "$out"
done
# LIKWID 5.2 to 5.4 reset their state at Close: a second Close does nothing
out=$(SIMLIKWID_STYLE=52 "$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- "$SIM_APP" double-close 2>/dev/null)
expect_eq "double-close with 5.2's reset at Close" "sim_app done" "$out"
# the first Close wrote the file before the second one crashed
SIM_KEEP_MARKER="$T/dc.txt" "$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- "$SIM_APP" double-close >/dev/null 2>&1
"$CHECK_MARKER" "$T/dc.txt" >/dev/null && ok "file of the first Close" || fail "file of the first Close"
finish
