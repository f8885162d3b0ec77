#!/bin/sh
# scope-likwid-collect against the simulation's read-back API: the answer
# decodes and has group, event and counter names and metrics; files LIKWID's
# reader would overflow on are refused before LIKWID sees them.
. "$(dirname "$0")/common.sh"

collect() { # EVENTS THREADS FILE
    LIKWID_MODE=1 LIKWID_EVENTS="$1" LIKWID_THREADS="$2" LD_LIBRARY_PATH="$SIMLIKWID_DIR" \
        "$COLLECT" "$3" >"$T/answer" 2>"$T/cerr"
}

for style in 52 55 552; do
    SIMLIKWID_STYLE=$style SIM_KEEP_MARKER="$T/m.txt" \
        "$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -g MEM -m -- "$SIM_APP" switch >/dev/null 2>&1
    collect "FLOPS_DP|MEM" 0,1 "$T/m.txt"
    expect_eq "style $style: collect exit" 0 $?
    "$CHECK_ANSWER" <"$T/answer" >"$T/summary" || fail "style $style: answer does not decode"
    expect_grep "style $style: source" "^source full_api regions 5$" "$T/summary"
    expect_grep "style $style: group name" "^region 'solve-step' group 1 MEM threads 2 names 1$" "$T/summary"
    expect_grep "style $style: counter" "^  event CAS_COUNT_RD:MBOX1C0$" "$T/summary"
    expect_grep "style $style: metric" "^  metric DP \[MFLOP/s\]$" "$T/summary"
    # 5.5.0/5.5.1 placeholders (which LIKWID's reader counts) are not threads
    expect_grep "style $style: init threads" "^region 'init' group 0 FLOPS_DP threads 1 names 1$" "$T/summary"
done

collect FLOPS_DP 0,1 "$SAMPLES/v55_one_group.txt"
expect_eq "sample v55_one_group" 0 $?
expect_grep "v55 placeholder dropped" "^region 'io phase' group 0 FLOPS_DP threads 1 names 1$" \
    "$("$CHECK_ANSWER" <"$T/answer" >"$T/summary"; echo "$T/summary")"

want="source full_api regions 3
region 'init' group 0 FLOPS_DP threads 1 names 1
region 'solve-step' group 0 FLOPS_DP threads 2 names 1
region 'io phase' group 0 FLOPS_DP threads 1 names 1"
collect FLOPS_DP 0,1 "$SAMPLES/v52_one_group.txt"
expect_eq "sample v52_one_group" 0 $?
expect_eq "sample regions" "$want" "$("$CHECK_ANSWER" <"$T/answer" | grep -v '^  ')"
collect "FLOPS_DP|BRANCH" 0,1 "$SAMPLES/v52_two_groups.txt"
expect_eq "sample v52_two_groups" 0 $?
"$CHECK_ANSWER" <"$T/answer" >"$T/summary"
expect_grep "two groups: BRANCH named" "^region 'residual' group 1 BRANCH threads 2" "$T/summary"
collect FLOPS_DP 0,1 "$SAMPLES/header_only.txt"
expect_eq "header only" "source full_api regions 0" "$("$CHECK_ANSWER" <"$T/answer")"

# wide event sets: 70 per line are fine, 100 would overflow LIKWID's reader
SIM_KEEP_MARKER="$T/w70.txt" "$SIM_PERFCTR" -C 0,1 -g SIM70 -m -- "$SIM_APP" normal >/dev/null 2>&1
collect SIM70 0,1 "$T/w70.txt"
expect_eq "70 events accepted" 0 $?
SIM_KEEP_MARKER="$T/w100.txt" "$SIM_PERFCTR" -C 0,1 -g SIM100 -m -- "$SIM_APP" normal >/dev/null 2>&1
collect SIM100 0,1 "$T/w100.txt"
expect_eq "100 events refused" 1 $?
expect_grep "100 events message" "^scope-likwid-collect: .*: 100 events on one line: expected at most 75" "$T/cerr"
[ -s "$T/answer" ] && fail "refusal printed an answer"

# a custom event string
SIM_KEEP_MARKER="$T/c.txt" "$SIM_PERFCTR" -C 0 -g "EV_A:PMC0,EV_B:PMC1:EDGEDETECT" -m -- "$SIM_APP" normal >/dev/null 2>&1
collect "EV_A:PMC0,EV_B:PMC1:EDGEDETECT" 0 "$T/c.txt"
"$CHECK_ANSWER" <"$T/answer" >"$T/summary" || fail "custom answer"
expect_grep "custom group" "^region 'solve-step' group 0 Custom threads 1" "$T/summary"
expect_grep "custom counter" "^  event EV_B:PMC1$" "$T/summary"

# bad invocations and bad files
LD_LIBRARY_PATH="$SIMLIKWID_DIR" "$COLLECT" 2>"$T/cerr"
expect_eq "usage exit" 1 $?
expect_grep "usage" "^scope-likwid-collect: usage" "$T/cerr"
LIKWID_MODE=1 LIKWID_EVENTS=FLOPS_DP LD_LIBRARY_PATH="$SIMLIKWID_DIR" "$COLLECT" "$T/m.txt" 2>"$T/cerr"
expect_eq "no LIKWID_THREADS" 1 $?
expect_grep "no LIKWID_THREADS message" "^scope-likwid-collect: LIKWID_THREADS is not set$" "$T/cerr"
collect FLOPS_DP 0,1 "$T/missing.txt"
expect_eq "missing file" 1 $?
printf '2 1 1\n5:x-0\n' >"$T/bad.txt"
collect FLOPS_DP 0,1 "$T/bad.txt"
expect_eq "region id beyond header" 1 $?
printf '1 1 1\n0:x-0\n0 0 0 1 1.0 1 1.0 \n0 0 1 1 1.0 1 1.0 \n' >"$T/bad.txt"
collect FLOPS_DP 0 "$T/bad.txt"
expect_eq "more value lines than threads" 1 $?
finish
