#!/bin/sh
# scope-likwid-collect against the simulation's read-back API: the answer
# decodes and has group, event and counter names and metrics; files LIKWID's
# reader would overflow on are refused before LIKWID sees them.
. "$(dirname "$0")/common.sh"

collect() { # EVENTS THREADS FILE [LIBLIKWID]
    LIKWID_MODE=1 LIKWID_EVENTS="$1" LIKWID_THREADS="$2" LD_LIBRARY_PATH="$SIMLIKWID_DIR" \
        "$COLLECT" "$3" ${4:+"$4"} >"$T/answer" 2>"$T/cerr"
}

for style in 52 55 552; do
    SIMLIKWID_STYLE=$style SIM_KEEP_MARKER="$T/m.txt" \
        "$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -g MEM -m -- "$SIM_APP" switch >/dev/null 2>&1
    collect "FLOPS_DP|MEM" 0,1 "$T/m.txt"
    expect_eq "style $style: collect exit" 0 $?
    "$CHECK_ANSWER" <"$T/answer" >"$T/summary" || fail "style $style: answer does not decode"
    if [ "$SIM_VERSION" = 55 ]; then
        # 5.5 keeps every thread in group 0: only init and solve-step
        expect_grep "style $style: source" "^source full_api regions 2$" "$T/summary"
        expect_grep "style $style: group 0 only" "^region 'solve-step' group 0 FLOPS_DP threads 2 names 1$" "$T/summary"
    else
        expect_grep "style $style: source" "^source full_api regions 5$" "$T/summary"
        expect_grep "style $style: group name" "^region 'solve-step' group 1 MEM threads 2 names 1$" "$T/summary"
        expect_grep "style $style: counter" "^  event CAS_COUNT_RD:MBOX1C0$" "$T/summary"
    fi
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
# LIKWID 5.5's reader keeps 139 bytes of a region line and takes the last
# '-' of those for the group: the tag comes from the file itself
long="L150-$(printf '%145s' | tr ' ' a)"
{ printf '2 1 1\n0:%s-0\n' "$long"
  printf '0 0 0 1 1.000000e+00 6 1.0e+00 2.0e+00 3.0e+00 4.0e+00 5.0e+00 6.0e+00 \n'; } >"$T/long.txt"
collect FLOPS_DP 0,1 "$T/long.txt"
expect_eq "150-char tag exit" 0 $?
"$CHECK_ANSWER" <"$T/answer" >"$T/summary" 2>&1
expect_grep "150-char tag kept" "^region '$long' group 0 FLOPS_DP threads 1 names 1$" "$T/summary"

# LIKWID 5.5 writes -22 (-EINVAL) for every value of a thread whose values
# it lost: that line is no thread's counts
{ printf '2 1 1\n0:lost-0\n'
  printf '0 0 0 3 1.000000e+00 6 1.0e+00 2.0e+00 3.0e+00 4.0e+00 5.0e+00 6.0e+00 \n'
  printf '0 0 1 3 1.000000e+00 6 -2.200000e+01 -2.200000e+01 -2.200000e+01 -2.200000e+01 -2.200000e+01 -2.200000e+01 \n'; } >"$T/einval.txt"
collect FLOPS_DP 0,1 "$T/einval.txt"
expect_eq "-22 line exit" 0 $?
"$CHECK_ANSWER" <"$T/answer" >"$T/summary" 2>&1
expect_grep "-22 line dropped" "^region 'lost' group 0 FLOPS_DP threads 1 names 1$" "$T/summary"
expect_grep "-22 note" "^scope-likwid-collect: note: 1 value lines of .* hold only -22 (LIKWID 5.5's -EINVAL" "$T/cerr"

# the library to read with: the application's (second argument)
collect FLOPS_DP 0,1 "$SAMPLES/v52_one_group.txt" "$SIMLIKWID_DIR/$SIM_SONAME"
expect_eq "library by path" 0 $?
collect FLOPS_DP 0,1 "$SAMPLES/v52_one_group.txt" "$T/nonexistent/liblikwid.so.5.5"
expect_eq "library missing" 1 $?
expect_grep "library missing message" \
    "^scope-likwid-collect: cannot load LIKWID's library: $T/nonexistent/liblikwid.so.5.5: " "$T/cerr"
libm=$(ldconfig -p | sed -n 's/.*libm\.so\.6 (libc6,x86-64) => //p' | head -1)
collect FLOPS_DP 0,1 "$SAMPLES/v52_one_group.txt" "${libm:-libm.so.6}"
expect_eq "not LIKWID" 1 $?
expect_grep "not LIKWID message" \
    "^scope-likwid-collect: .*libm.so.6 (LIKWID version unknown) has no init_configuration: expected LIKWID 5.x's full API$" "$T/cerr"
# LIKWID reads the collector's copy through /proc/self/fd: without /proc
# (a private mount namespace, as root) the collector says so
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    LIKWID_MODE=1 LIKWID_EVENTS=FLOPS_DP LIKWID_THREADS=0,1 LD_LIBRARY_PATH="$SIMLIKWID_DIR" \
        unshare -m sh -c 'umount -l /proc && exec "$0" "$1"' "$COLLECT" "$SAMPLES/v52_one_group.txt" \
        >"$T/answer" 2>"$T/cerr"
    expect_eq "no /proc exit" 1 $?
    expect_grep "no /proc message" "for LIKWID's reader at /proc/self/fd/[0-9]*: .*(expected /proc mounted)$" "$T/cerr"
else
    echo "note: not root or no unshare: the no-/proc case is not run"
fi

if [ "$SIM_VERSION" = 55 ]; then
    # a library that says it is not LIKWID 5
    SIMLIKWID_MAJOR=6 collect FLOPS_DP 0,1 "$SAMPLES/v52_one_group.txt" "$SIMLIKWID_DIR/$SIM_SONAME"
    expect_eq "LIKWID 6" 1 $?
    expect_grep "LIKWID 6 message" "^scope-likwid-collect: .*$SIM_SONAME is LIKWID 6.5.1: expected LIKWID 5.x$" "$T/cerr"
fi
finish
