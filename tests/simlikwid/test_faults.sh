#!/bin/sh
# Every read-back fault makes scope-likwid-collect fail in the way the shim
# must survive: error exit, signal, hang (killed by timeout), garbage or a
# truncated answer (exit 0 but the answer does not decode).
# Usage: test_faults.sh init|read (where the fault is raised).
. "$(dirname "$0")/common.sh"
at=${1:?init or read}

SIM_KEEP_MARKER="$T/m.txt" "$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- "$SIM_APP" normal >/dev/null 2>&1
[ -f "$T/m.txt" ] || { fail "no marker file"; finish; }

run() { # FAULT WHERE
    SIMLIKWID_READBACK=$1 SIMLIKWID_READBACK_AT=$2 LIKWID_MODE=1 LIKWID_EVENTS=FLOPS_DP \
        LIKWID_THREADS=0,1 LD_LIBRARY_PATH="$SIMLIKWID_DIR" \
        timeout 5 "$COLLECT" "$T/m.txt" >"$T/answer" 2>"$T/cerr"
}
decodes() { "$CHECK_ANSWER" <"$T/answer" >/dev/null 2>"$T/derr"; }

run ok $at
expect_eq "ok at $at" 0 $?
decodes && ok "ok at $at decodes" || fail "ok at $at does not decode"
run fail $at
expect_eq "fail at $at: exit 1" 1 $?
expect_grep "fail at $at: message" "^scope-likwid-collect: perfmon_" "$T/cerr"
[ -s "$T/answer" ] && fail "fail at $at printed an answer"
run segv $at
expect_eq "segv at $at" 139 $?
run abort $at
expect_eq "abort at $at" 134 $?
run exit $at
expect_eq "exit at $at" 1 $?
run hang $at
expect_eq "hang at $at killed by timeout" 124 $?
run garbage $at
expect_eq "garbage at $at exits 0" 0 $?
decodes && fail "garbage at $at decoded"
expect_grep "garbage at $at: wrong magic" "not a scope-likwid wire file" "$T/derr"
run truncate $at
expect_eq "truncate at $at exits 0" 0 $?
decodes && fail "truncate at $at decoded"
expect_grep "truncate at $at: truncated" "truncated" "$T/derr"
finish
