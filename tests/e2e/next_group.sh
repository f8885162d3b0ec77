#!/bin/sh
# NextGroup as the loaded LIKWID does it, seen through the GetRegion
# snapshots (SCOPE_LIKWID_SOURCES=marker_api): sim_app "switch" calls
# likwid_markerNextGroup once (FLOPS_DP -> MEM) halfway through solve-step.
# LIKWID 5.2 answers GetRegion from the active group (1): the snapshots hold
# the regions main ran in group 1 (not "init"); 5.5 keeps every thread in
# group 0, and so must the snapshots' group_id.
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_SIM_APP SL_SIM_DIR SL_SIM_PERFCTR
pick_python
SCOPE_LIKWID_SOURCES=marker_api
export SCOPE_LIKWID_SOURCES
# 5.2: "init", started only in group 0, gets no snapshot in group 1: a
# GetRegion of it there is the simulation's hazard (strict: SIGSEGV, as
# LIKWID 5.2 adds an empty "init-1" to its marker file instead)
SIMLIKWID_STRICT_HAZARDS=1
export SIMLIKWID_STRICT_HAZARDS
case ${SL_SIM_SONAME:-liblikwid.so.5.2} in
*5.5) want="init=0 io phase=0 residual=0 solve-step=0" ;;
*) want="io phase=1 residual=1 solve-step=1" ;;
esac
run shim env LD_LIBRARY_PATH="$SL_SIM_DIR" "$SL_SIM_PERFCTR" -C 0,1 -g FLOPS_DP -g MEM -m -- \
    env LD_PRELOAD="$SL_SHIM" "$SL_SIM_APP" switch
[ "$(rc_of shim)" = 0 ] || { fail "sim_app switch exited $(rc_of shim)"; show_run shim; }
if f=$(result_file shim); then
    got=$("$PY" - "$f" <<'PYEOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
regs = f["rank0/likwid/regions"]
tag = lambda g: g.attrs["tag"].decode() if isinstance(g.attrs["tag"], bytes) else g.attrs["tag"]
print(" ".join(sorted("%s=%d" % (tag(g), g.attrs["group_id"]) for g in regs.values())))
PYEOF
)
    [ "$got" = "$want" ] ||
        fail "snapshots: '$got': expected '$want' for ${SL_SIM_SONAME:-liblikwid.so.5.2}"
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
