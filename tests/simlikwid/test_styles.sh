#!/bin/sh
# The marker file the simulation writes parses strictly with an independent
# reader (check_marker.py) in each LIKWID style, and all styles hold the same data.
. "$(dirname "$0")/common.sh"

want_normal="header 2 3 1
region 'init' group 0 events 6 cpus 0 counts 1 values positive
region 'solve-step' group 0 events 6 cpus 0,1 counts 10,10 values positive
region 'io phase' group 0 events 6 cpus 0 counts 2 values positive"
want_switch="header 2 5 2
region 'init' group 0 events 6 cpus 0 counts 1 values positive
region 'solve-step' group 0 events 6 cpus 0,1 counts 10,10 values positive
region 'solve-step' group 1 events 7 cpus 0,1 counts 10,10 values positive
region 'residual' group 1 events 7 cpus 0 counts 1 values positive
region 'io phase' group 1 events 7 cpus 0 counts 2 values positive"
# LIKWID 5.5 keeps every thread in group 0: solve-step's second phase adds
# into its group-0 region, regions first started after the switch are lost
[ "$SIM_VERSION" = 55 ] && want_switch="header 2 2 2
region 'init' group 0 events 6 cpus 0 counts 1 values positive
region 'solve-step' group 0 events 6 cpus 0,1 counts 20,20 values positive"

for style in 52 55 552; do
    export SIMLIKWID_STYLE=$style
    out=$(SIM_KEEP_MARKER="$T/m$style.txt" "$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- "$SIM_APP" normal 2>"$T/err")
    expect_eq "style $style: app stdout untouched" "sim_app done" "$out"
    [ -f "$T/m$style.txt" ] || fail "style $style: marker file not kept"
    ls "$T"/likwid_*.txt >/dev/null 2>&1 && fail "style $style: marker file not deleted"
    expect_eq "style $style: parses strictly" "$want_normal" "$("$CHECK_MARKER" "$T/m$style.txt")"
    expect_grep "style $style: LIKWID's skip warning" "WARN: Skipping region never" "$T/err"
    SIM_KEEP_MARKER="$T/s$style.txt" "$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -g MEM -m -- "$SIM_APP" switch >/dev/null 2>&1
    expect_eq "style $style: two groups parse strictly" "$want_switch" "$("$CHECK_MARKER" "$T/s$style.txt")"
done
# what tells the styles apart
grep -q '^0 0 -1 0 ' "$T/m52.txt" && ok "52 has cpu -1 lines" || fail "52 lacks cpu -1 lines"
grep -q '^0 0 0 0 0.000000e+00 ' "$T/m55.txt" && ok "55 has placeholders" || fail "55 lacks placeholders"
if grep -q '^[0-9]* [0-9]* -\{0,1\}[0-9]* 0 ' "$T/m552.txt"; then fail "552 has count-0 lines"; else ok "552 only count>0"; fi
expect_eq "52 lines" 10 "$(wc -l < "$T/m52.txt")"
expect_eq "552 lines" 8 "$(wc -l < "$T/m552.txt")"
# 552 (LIKWID master): a region run only by the second thread is written
# with the cpu of the empty place shifted out (-1) and -22 for its values
if [ "$SIM_VERSION" = 55 ]; then
    SIM_KEEP_MARKER="$T/w.txt" "$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- "$SIM_APP" worker-only >/dev/null 2>&1
    expect_grep "552: -22 for a thread past the region's count" \
        '^[0-9]* 0 -1 [1-9][0-9]* [^ ]* 6 -2.200000e+01 -2.200000e+01 -2.200000e+01 -2.200000e+01 -2.200000e+01 -2.200000e+01 $' "$T/w.txt"
fi
# value lines end in a blank, like LIKWID's
grep -q ' $' "$T/m52.txt" && ok "trailing blank" || fail "no trailing blank"

# more CPUs than threads: -1 lines for the idle ones; 5.2.2's reader
# format is unchanged
unset SIMLIKWID_STYLE
SIM_KEEP_MARKER="$T/wide.txt" "$SIM_PERFCTR" -C 0-3 -g BRANCH -m -- "$SIM_APP" normal >/dev/null 2>&1
expect_eq "-C 0-3 header" "4 3 1" "$(head -n 1 "$T/wide.txt")"
expect_eq "-C 0-3 parses" "region 'solve-step' group 0 events 5 cpus 0,1 counts 10,10 values positive" \
    "$("$CHECK_MARKER" "$T/wide.txt" | grep solve-step)"
finish
