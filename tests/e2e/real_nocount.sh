#!/bin/sh
# The REAL LIKWID (Debian 5.2.2) in no-count mode: no LIKWID_* environment,
# so likwid_markerInit says "Running without Marker API..." and every marker
# call is a no-op. Under the shim the application must behave exactly as
# without it (stdout byte-identical, same exit status, stderr identical but
# for "scope-likwid: " lines), and the result file must hold the shim's own
# timing, no likwid/ group, and a likwid_status saying LIKWID did not count.
# Arguments are passed to the solver (e.g. --exit-status 3).
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_SOLVER SL_CHECKER
pick_python

want_rc=0
prev=
for a in "$@"; do
    [ "$prev" = --exit-status ] && want_rc=$a
    prev=$a
done

run base "$SL_SOLVER" "$@"
run shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER" "$@"

[ "$(rc_of base)" = "$want_rc" ] || fail "solver without the shim exited $(rc_of base): expected $want_rc"
grep -q 'Running without Marker API' "$T/base.err" ||
    fail "the real liblikwid did not print 'Running without Marker API': expected no-count mode"
same_behaviour base shim

if f=$(result_file shim); then
    solver_timing "$f" --no-likwid --executable examples/solver \
        --status 'not count|without marker|not (active|enabled|initiali[sz]ed|run under)|LIKWID_(FILEPATH|EVENTS|THREADS|MODE)'
    grep '^scope-likwid: ' "$T/shim.err" | grep -qF "$(basename "$f")" ||
        fail "stderr does not name the result file $(basename "$f"): expected a 'scope-likwid: ' line saying where"
else
    fail "no single scope-likwid-*.h5 in the application's cwd: expected the default output name"
    ls -la "$T/shim"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
