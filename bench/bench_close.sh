#!/bin/sh
# How long likwid_markerClose takes, from the application's call to the
# result file in place (Close returns only then), for 20 regions x 4 threads
# (bench/hotpath N close: N calls per region and thread).
# usage: bench/bench_close.sh [BUILD_DIR] [RUNS] [N]
#   BUILD_DIR: a configured and built meson build directory, tests enabled
#              (the simulated LIKWID lives in tests/simlikwid) (default: build)
#   RUNS:      runs per case (default 9)
#   N:         calls per region and thread (default 100)
# Cases:
#   nocount     the real LIKWID, not counting (no likwid-perfctr): no
#               collector runs, the shim's timing goes to the writer;
#   sim-false   the simulated LIKWID counting (sim-perfctr -C 0-3 -g
#               FLOPS_DP -m), with SCOPE_LIKWID_COLLECTOR=/bin/false: the
#               collector fails at once, the shim parses the marker file
#               itself (source marker_file), then the writer runs;
#   sim-full    the same with the real collector (full_api), for comparison.
# Prints median/min/max ms per case; the target is a median under 50 ms.
set -eu
BUILD=${1:-build}
RUNS=${2:-9}
N=${3:-100}
SIM=$BUILD/tests/simlikwid/sim-perfctr
. "$(dirname "$0")/bench_lib.sh"
bench_hot "$SIM"
bench_tmp sl-close

one() {  # one CASE: appends Close's ms to $TMP/CASE
    rm -rf "$TMP/out"; mkdir "$TMP/out"
    case $1 in
        nocount)
            SCOPE_LIKWID_OUTPUT=$TMP/out/r.h5 LD_PRELOAD=$SHIM "$HOT" "$N" close ;;
        sim-false)
            SIM_MARKER_DIR=$TMP/out SCOPE_LIKWID_COLLECTOR=/bin/false SCOPE_LIKWID_OUTPUT=$TMP/out/r.h5 \
                LD_PRELOAD=$SHIM "$SIM" -C 0-3 -g FLOPS_DP -m -- "$HOT" "$N" close ;;
        sim-full)
            SIM_MARKER_DIR=$TMP/out SCOPE_LIKWID_OUTPUT=$TMP/out/r.h5 \
                LD_PRELOAD=$SHIM "$SIM" -C 0-3 -g FLOPS_DP -m -- "$HOT" "$N" close ;;
    esac >"$TMP/o" 2>"$TMP/e"
    grep -q '^result_in_place 1' "$TMP/o" || {
        echo "bench: $1: no result file when Close returned:" >&2; cat "$TMP/o" "$TMP/e" >&2; exit 1; }
    awk '$1 == "close_ms" { print $2 }' "$TMP/o" >>"$TMP/$1"
}

echo "likwid_markerClose, 20 regions x 4 threads x $N calls, $RUNS runs, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
printf '%-10s %8s %8s %8s\n' case "med ms" "min ms" "max ms"
for c in nocount sim-false sim-full; do
    : >"$TMP/$c"
    i=0
    while [ "$i" -lt "$RUNS" ]; do one "$c"; i=$((i + 1)); done
    printf '%-10s %8s %8s %8s\n' "$c" $(bench_stats "$TMP/$c")
done
