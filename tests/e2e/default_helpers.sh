#!/bin/sh
# No SCOPE_LIKWID_COLLECTOR / SCOPE_LIKWID_WRITER: the shim must find its
# helpers by itself (next to it: libexec when installed, ../helpers in the
# build tree) and produce full_api counters with the SIMULATED LIKWID.
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_SOLVER SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR
pick_python
unset SCOPE_LIKWID_COLLECTOR SCOPE_LIKWID_WRITER
SIMLIKWID_READBACK=ok
export SIMLIKWID_READBACK
sim shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
[ "$(rc_of shim)" = 0 ] || fail "solver exited $(rc_of shim): expected 0"
if f=$(result_file shim); then
    solver_timing "$f" --source full_api --names --metrics --status full_api \
        --likwid-region solve-step=2x20
else
    fail "no single scope-likwid-*.h5 in the application's cwd: expected the writer found by default"
    ls -la "$T/shim"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
