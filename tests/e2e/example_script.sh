#!/bin/sh
# The quickstart's demo, examples/run-example.sh BUILD: runs the solver under
# the shim (scope-likwid run), shows the result; must exit 0, print the
# solver's line and the regions, and leave a valid result file.
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_SOLVER SL_CLI SL_CHECKER SL_SRC SL_BUILD
pick_python
run demo sh "$SL_SRC/examples/run-example.sh" "$SL_BUILD"
[ "$(rc_of demo)" = 0 ] || fail "run-example.sh exited $(rc_of demo): expected 0"
grep -q '^solver: n=100000 steps=20 checksum=' "$T/demo.out" || fail "no solver line on stdout"
for tag in init solve-step 'io phase'; do
    grep -qF "$tag" "$T/demo.out" || fail "scope-likwid show printed no '$tag': expected every region"
done
f=$SL_BUILD/example-run/scope-likwid-example.h5
if [ -f "$f" ]; then
    solver_timing "$f" --executable examples/solver
else
    fail "no $f"
fi
[ "$FAILED" = 0 ] || show_run demo
finish
