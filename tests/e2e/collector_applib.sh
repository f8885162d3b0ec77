#!/bin/sh
# The collector reads with the liblikwid the application loaded: the shim
# passes that library's path, and the collector (linked with no liblikwid)
# opens it. A wrapper between shim and collector drops LD_LIBRARY_PATH, so
# only the path can lead the collector to the simulated LIKWID (the loader
# alone would find Debian's, which cannot count here). Also: the collector
# has no liblikwid in its NEEDED entries, and the result records the
# library's version (likwid_version).
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_SOLVER SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR SL_COLLECT
pick_python
SIMLIKWID_STYLE=552
SIMLIKWID_READBACK=ok
export SIMLIKWID_STYLE SIMLIKWID_READBACK

needed=$(readelf -d "$SL_COLLECT" | grep NEEDED) || { fail "readelf -d $SL_COLLECT shows no NEEDED entry"; }
case $needed in
*liblikwid*) fail "scope-likwid-collect is linked with LIKWID: $needed" ;;
esac

printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s/collector.args"\nunset LD_LIBRARY_PATH\nexec "%s" "$@"\n' \
    "$T" "$SL_COLLECT" >"$T/collector"
chmod +x "$T/collector"
SCOPE_LIKWID_COLLECTOR=$T/collector
export SCOPE_LIKWID_COLLECTOR
sim shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
[ "$(rc_of shim)" = 0 ] || { fail "solver under sim-perfctr exited $(rc_of shim): expected 0"; show_run shim; }
lib=$(sed -n 2p "$T/collector.args" 2>/dev/null)
[ "$lib" = "$SL_SIM_DIR/${SL_SIM_SONAME:-liblikwid.so.5.2}" ] ||
    fail "collector's LIBLIKWID argument '$lib': expected $SL_SIM_DIR/${SL_SIM_SONAME:-liblikwid.so.5.2}"
if f=$(result_file shim); then
    solver_timing "$f" --source full_api --names --metrics --status "used full_api"
    # the loaded library's version: 5.2 has no getters (its soname says),
    # the 5.5 simulation says 5.5.1
    case ${SL_SIM_SONAME:-liblikwid.so.5.2} in *5.5) want=5.5.1 ;; *) want=5.2 ;; esac
    got=$("$PY" -c 'import sys, h5py; v = h5py.File(sys.argv[1], "r")["rank0"].attrs.get("likwid_version"); print(v.decode() if isinstance(v, bytes) else v)' "$f")
    [ "$got" = "$want" ] || fail "rank0 attr likwid_version '$got': expected $want"
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
