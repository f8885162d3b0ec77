#!/bin/sh
# The SIMULATED LIKWID counting under sim-perfctr (-C 0,1 -g FLOPS_DP), one
# counter source per run:
#   sim_source.sh READBACK STYLE SOURCE [SCOPE_LIKWID_SOURCES]
# READBACK: SIMLIKWID_READBACK (ok, fail, segv, ...), STYLE: SIMLIKWID_STYLE
# (52, 55, 552), SOURCE: the source the result must name (full_api,
# marker_file, marker_api).
. "$(dirname "$0")/lib.sh"
[ $# -ge 3 ] || { echo "usage: sim_source.sh READBACK STYLE SOURCE [SOURCES]" >&2; exit 2; }
need SL_SHIM SL_SOLVER SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR
pick_python
SIMLIKWID_READBACK=$1
SIMLIKWID_STYLE=$2
source=$3
export SIMLIKWID_READBACK SIMLIKWID_STYLE
only=
if [ $# -ge 4 ]; then SCOPE_LIKWID_SOURCES=$4; only=$4; export SCOPE_LIKWID_SOURCES; fi

sim base "$SL_SOLVER"
sim shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
[ "$(rc_of base)" = 0 ] || { fail "solver under sim-perfctr exited $(rc_of base): expected 0"; show_run base; }
same_behaviour base shim

case $source in
full_api)
    set -- --names --metrics --likwid-region init=1x1 --likwid-region solve-step=2x20 \
        --likwid-region "io phase=1x1" --status full_api
    ;;
marker_file)
    set -- --no-names --no-metrics --likwid-region init=1x1 --likwid-region solve-step=2x20 \
        --status marker_file
    # Unless it was the only source asked for, the collector's read-back
    # failed: the status must say so besides naming the fallback.
    [ -n "$only" ] || set -- "$@" --status full_api
    ;;
marker_api)
    # GetRegion snapshots of the thread that called Close: one thread.
    set -- --no-names --no-metrics --likwid-region init=1x1 --likwid-region solve-step=1x20 \
        --likwid-region "io phase=1x1" --status marker_api
    ;;
*)
    echo "sim_source.sh: SOURCE '$source': expected full_api, marker_file or marker_api" >&2
    exit 2
    ;;
esac
if f=$(result_file shim); then
    solver_timing "$f" --source "$source" --env LIKWID_EVENTS --env LIKWID_THREADS "$@"
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
