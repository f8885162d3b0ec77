#!/bin/sh
# The application exits (exit(5)) inside the region "io phase", never calling
# likwid_markerClose: the shim must still write its timing, with that region
# counted as open, and the exit status must stay 5.
#   exit_in_region.sh real | sim
. "$(dirname "$0")/lib.sh"
mode=${1:-real}
need SL_SHIM SL_SOLVER SL_CHECKER
pick_python
case $mode in
real)
    run base "$SL_SOLVER" --exit-in-region
    run shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER" --exit-in-region ;;
sim)
    need SL_SIM_DIR SL_SIM_PERFCTR
    SIMLIKWID_READBACK=ok
    export SIMLIKWID_READBACK
    sim base "$SL_SOLVER" --exit-in-region
    sim shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER" --exit-in-region ;;
*) echo "exit_in_region.sh: MODE '$mode': expected real or sim" >&2; exit 2 ;;
esac
[ "$(rc_of base)" = 5 ] || fail "solver --exit-in-region exited $(rc_of base): expected 5"
same_behaviour base shim
if f=$(result_file shim); then
    check "$f" --timing "init=1x1" --timing "solve-step=2x20" --open "io phase=1" \
        --status "without .*close|no .*close|before .*close|at ?exit"
else
    fail "no single scope-likwid-*.h5 in the application's cwd: expected the timing written at exit"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
