#!/bin/sh
# No helper can write the result file (SCOPE_LIKWID_WRITER names no file):
# the shim must leave "<output>.rescue", say where on stderr, and
# `scope-likwid convert RESCUE -o out.h5` must turn it into the result file.
#   writer_missing.sh real   (the REAL LIKWID, no-count: timing only)
#   writer_missing.sh sim    (the SIMULATED LIKWID: timing and full_api counters)
. "$(dirname "$0")/lib.sh"
mode=${1:-real}
need SL_SHIM SL_SOLVER SL_CHECKER SL_CLI
pick_python
SCOPE_LIKWID_WRITER=$T/nonexistent/scope-likwid-write
SCOPE_LIKWID_OUTPUT=$T/out/result.h5
export SCOPE_LIKWID_WRITER SCOPE_LIKWID_OUTPUT
mkdir -p "$T/out"

case $mode in
real)
    run base "$SL_SOLVER"
    run shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
    set -- --no-likwid ;;
sim)
    need SL_SIM_DIR SL_SIM_PERFCTR
    SIMLIKWID_READBACK=ok
    export SIMLIKWID_READBACK
    sim base "$SL_SOLVER"
    sim shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
    set -- --source full_api --names --metrics --likwid-region solve-step=2x20 ;;
*) echo "writer_missing.sh: MODE '$mode': expected real or sim" >&2; exit 2 ;;
esac
same_behaviour base shim

rescue=$SCOPE_LIKWID_OUTPUT.rescue
[ ! -e "$SCOPE_LIKWID_OUTPUT" ] || fail "$SCOPE_LIKWID_OUTPUT exists although no writer could run"
if [ -f "$rescue" ]; then
    grep '^scope-likwid: ' "$T/shim.err" | grep -qF "$rescue" ||
        fail "stderr does not name $rescue: expected a 'scope-likwid: ' line saying where the rescue file is"
    run convert "$SL_CLI" convert "$rescue" -o "$T/out/converted.h5"
    if [ "$(rc_of convert)" != 0 ] || [ ! -f "$T/out/converted.h5" ]; then
        fail "scope-likwid convert $rescue -o converted.h5 exited $(rc_of convert): expected 0 and a result file"
        show_run convert
    else
        solver_timing "$T/out/converted.h5" --executable examples/solver "$@"
    fi
else
    fail "no rescue file $rescue: expected the shim to leave one when the writer is missing"
    ls -la "$T/out"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
