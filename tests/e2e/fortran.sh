#!/bin/sh
# The REAL LIKWID's Fortran entry points (module likwid, /usr/include/
# likwid.mod): examples/solver.f90 passes blank-padded CHARACTER(16) tags.
# Under the shim the timing regions must carry the TRIMMED tags ("init",
# "solve-step", "io phase") with the right call counts, and the program
# must behave as without the shim.
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_SOLVER_F SL_CHECKER
pick_python

run base "$SL_SOLVER_F"
run shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER_F"
[ "$(rc_of base)" = 0 ] || fail "solver_f without the shim exited $(rc_of base): expected 0"
same_behaviour base shim
if f=$(result_file shim); then
    solver_timing "$f" --no-likwid --executable examples/solver_f \
        --timing-tags "init" "solve-step" "io phase"
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
