#!/bin/sh
# Threads, memory and descriptors as real HPC codes use them (mem_app.c
# says what each mode does):
#   mem.sh small-close real|sim   Close from a thread with a 64 KiB stack
#   mem.sh small-exit real|sim    exit() from a thread with a 64 KiB stack
# Same behaviour as without the shim, and the timing saved, in every case.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_MEM_APP SL_CHECKER SL_CLI
pick_python
ulimit -c 0
mode=${1:-}
kind=${2:-real}
[ "$kind" = sim ] && need SL_SIM_DIR SL_SIM_PERFCTR
SIMLIKWID_STYLE=552
export SIMLIKWID_STYLE

case $mode in
small-close|small-exit)
    # Close (or the exit hook) runs on the 64 KiB stack: the collector and
    # the writer are started from there (sim: counting, full_api).
    pair a "$kind" "$SL_MEM_APP" "$mode"
    f=$(result_file a.shim) || fail "no result file: $(ls "$T/a.shim")"
    if [ -n "$f" ]; then
        if [ "$mode" = small-exit ]; then
            check "$f" --timing "work=1x3" --no-likwid --status "exited without likwid_markerClose"
        elif [ "$kind" = sim ]; then
            check "$f" --timing "work=1x3" --source full_api --names --status "used full_api"
        else
            check "$f" --timing "work=1x3" --no-likwid --status "not counting"
        fi
    fi ;;
*) echo "mem.sh: unknown case '$mode'" >&2; exit 2 ;;
esac
[ "$FAILED" = 0 ] || show_run a.shim 2>/dev/null
finish
