#!/bin/sh
# NextGroup as the loaded LIKWID does it, seen through the GetRegion
# snapshots (SCOPE_LIKWID_SOURCES=marker_api): sim_app "switch" calls
# likwid_markerNextGroup once (FLOPS_DP -> MEM) halfway through solve-step.
# LIKWID 5.2 answers GetRegion from the active group (1); 5.5 keeps every
# thread in group 0, and so must the snapshot's group_id.
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_SIM_APP SL_SIM_DIR SL_SIM_PERFCTR
pick_python
SCOPE_LIKWID_SOURCES=marker_api
export SCOPE_LIKWID_SOURCES
# (5.2: the snapshot of "init", started only in group 0, meets the
# simulation's GetRegion hazard in group 1: reported, not raised here)
SIMLIKWID_STRICT_HAZARDS=0
export SIMLIKWID_STRICT_HAZARDS
case ${SL_SIM_SONAME:-liblikwid.so.5.2} in
*5.5) want=0 ;;
*) want=1 ;;
esac
run shim env LD_LIBRARY_PATH="$SL_SIM_DIR" "$SL_SIM_PERFCTR" -C 0,1 -g FLOPS_DP -g MEM -m -- \
    env LD_PRELOAD="$SL_SHIM" "$SL_SIM_APP" switch
[ "$(rc_of shim)" = 0 ] || { fail "sim_app switch exited $(rc_of shim)"; show_run shim; }
if f=$(result_file shim); then
    got=$("$PY" - "$f" <<'PYEOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
regs = f["rank0/likwid/regions"]
print(" ".join("%s=%d" % (regs[k].attrs["tag"].decode() if isinstance(regs[k].attrs["tag"], bytes) else regs[k].attrs["tag"], regs[k].attrs["group_id"]) for k in regs if regs[k].attrs["tag"] in ("solve-step", b"solve-step")))
PYEOF
)
    [ "$got" = "solve-step=$want" ] ||
        fail "snapshot of solve-step: '$got': expected group $want for ${SL_SIM_SONAME:-liblikwid.so.5.2}"
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
