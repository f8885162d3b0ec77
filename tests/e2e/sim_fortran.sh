#!/bin/sh
# Fortran callers with the SIMULATED LIKWID counting: examples/solver.f90
# passes blank-padded tags; the counter regions (full_api) must carry the
# same TRIMMED tags as the timing regions, with LIKWID's names and metrics.
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_SOLVER_F SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR
pick_python
SIMLIKWID_READBACK=ok
SIMLIKWID_STYLE=${1:-552}
export SIMLIKWID_READBACK SIMLIKWID_STYLE
sim base "$SL_SOLVER_F"
sim shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER_F"
[ "$(rc_of base)" = 0 ] || { fail "solver_f under sim-perfctr exited $(rc_of base): expected 0"; show_run base; }
same_behaviour base shim
if f=$(result_file shim); then
    solver_timing "$f" --executable examples/solver_f --timing-tags "init" "solve-step" "io phase" \
        --source full_api --names --metrics --status full_api \
        --likwid-region init=1x1 --likwid-region solve-step=2x20 --likwid-region "io phase=1x1"
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
