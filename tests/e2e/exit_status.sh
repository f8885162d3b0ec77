#!/bin/sh
# Exit status preservation with the SIMULATED LIKWID counting: the solver
# returns 3 from main after likwid_markerClose; under the shim (which
# collects and writes at Close) it must still exit 3 with the same stdout.
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_SOLVER SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR
pick_python
SIMLIKWID_READBACK=ok
export SIMLIKWID_READBACK
sim base "$SL_SOLVER" --exit-status 3
sim shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER" --exit-status 3
[ "$(rc_of base)" = 3 ] || fail "solver under sim-perfctr exited $(rc_of base): expected 3"
same_behaviour base shim
if f=$(result_file shim); then
    solver_timing "$f" --source full_api --names --metrics --likwid-region solve-step=2x20
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
