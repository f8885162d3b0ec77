#!/bin/sh
# LIKWID loaded RTLD_LOCAL (a Python extension loaded by `import`, a plugin
# a C host dlopen()s): the shim must find it and forward every call.
#   rtldlocal.sh CLIENT LIKWID THREADS HOW
# CLIENT: python (tests/rtldlocal/slmarker via app.py), plugin
#   (plugin_host + marker_plugin), ctypes (app_ctypes.py: LIKWID loaded with
#   ctypes.CDLL(path), called through ctypes.CDLL(None) under the shim, and
#   through LIKWID's handle without it) or ctypes-direct (LIKWID's handle in
#   both runs: the shim sees nothing, so no harm and no result file);
#   LIKWID: real (Debian's, no-count mode)
#   or sim (simulated, counting under sim-perfctr -C 0-4 -g FLOPS_DP: one
#   CPU per thread, so LIKWID's per-CPU counts do not depend on timing);
#   THREADS: 1 or 4; HOW: preload (LD_PRELOAD), run (scope-likwid run), or
#   late (preloaded; the host calls likwid_markerInit before LIKWID is
#   loaded, so the shim's first look finds no LIKWID).
# Checks: stdout, stderr (but for scope-likwid: lines) and exit status as
# without the shim; LIKWID's answers reached the application (real: its
# notice and -14 from RegisterRegion; sim: its marker file holds the
# region); the result file has the shim's timing of every thread, LIKWID's
# counters for the region (sim), and a likwid_status that names LIKWID's
# state, never "not linked with LIKWID".
. "$(dirname "$0")/../e2e/lib.sh"
[ $# = 4 ] || { echo "usage: rtldlocal.sh CLIENT LIKWID THREADS HOW" >&2; exit 2; }
client=$1 likwid=$2 nthreads=$3 how=$4
base_x= shim_x=     # a last argument that differs between the two runs (ctypes)
need SL_SHIM SL_CLI SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR
pick_python
case $client in
python)
    [ -n "${SL_PYMOD_DIR:-}" ] || skip "the slmarker extension is not built (needs Debian python3-dev; not in sanitizer builds)"
    tag=py-work
    set -- env PYTHONPATH="$SL_PYMOD_DIR" /usr/bin/python3 "$SL_PYAPP" "$nthreads"
    ;;
plugin)
    need SL_PLUGIN SL_PLUGIN_HOST
    tag=plugin-work
    set -- "$SL_PLUGIN_HOST" "$SL_PLUGIN" "$nthreads"
    [ "$how" = late ] && base_x=late shim_x=late
    ;;
ctypes|ctypes-direct)
    [ -n "${SL_PYMOD_DIR:-}" ] || skip "Python cases are not run in sanitizer builds (python3 is not instrumented)"
    tag=ct-work
    set -- /usr/bin/python3 "$SL_PYAPP_CTYPES"
    base_x=direct shim_x=direct
    [ "$client" = ctypes ] && shim_x=global
    ;;
*) echo "rtldlocal.sh: CLIENT '$client': expected python, plugin, ctypes or ctypes-direct" >&2; exit 2 ;;
esac

# A likwid-perfctr for `scope-likwid run`: the simulated one, counting.
mkdir -p "$T/bin"
cat >"$T/bin/likwid-perfctr" <<EOS
#!/bin/sh
[ "\$1" = -e ] && { echo "This architecture has 4 counters."; exit 0; }
LD_LIBRARY_PATH="$SL_SIM_DIR" exec "$SL_SIM_PERFCTR" "\$@"
EOS
chmod +x "$T/bin/likwid-perfctr"
export SIM_KEEP_MARKER=$T/kept-marker.txt

case $likwid/$how in
real/preload|real/late)
    run base "$@" $base_x
    run shim env LD_PRELOAD="$SL_SHIM" "$@" $shim_x
    ;;
real/run)
    run base "$@" $base_x
    run shim env SCOPE_LIKWID_SHIM="$SL_SHIM" SCOPE_LIKWID_PERFCTR=none "$SL_CLI" run -- "$@" $shim_x
    ;;
sim/preload|sim/late)
    SIM_KEEP_MARKER=$T/base-marker.txt run base env LD_LIBRARY_PATH="$SL_SIM_DIR" \
        "$SL_SIM_PERFCTR" -C 0-4 -g FLOPS_DP -m -- "$@" $base_x
    run shim env LD_LIBRARY_PATH="$SL_SIM_DIR" \
        "$SL_SIM_PERFCTR" -C 0-4 -g FLOPS_DP -m -- env LD_PRELOAD="$SL_SHIM" "$@" $shim_x
    ;;
sim/run)
    SIM_KEEP_MARKER=$T/base-marker.txt run base env LD_LIBRARY_PATH="$SL_SIM_DIR" \
        "$SL_SIM_PERFCTR" -C 0-4 -g FLOPS_DP -m -- "$@" $base_x
    run shim env SCOPE_LIKWID_SHIM="$SL_SHIM" SCOPE_LIKWID_PERFCTR="$T/bin/likwid-perfctr" "$SL_CLI" run -C 0-4 -g FLOPS_DP -- "$@" $shim_x
    ;;
*) echo "rtldlocal.sh: LIKWID/HOW '$likwid/$how': expected real|sim and preload|run|late" >&2; exit 2 ;;
esac

[ "$(rc_of base)" = 0 ] || fail "without the shim the client exited $(rc_of base): expected 0"
[ "$(rc_of shim)" -lt 128 ] || fail "with the shim the client died of signal $(($(rc_of shim) - 128))"
same_behaviour base shim
grep -q "^register" "$T/shim.out" || fail "the client printed no 'register' line: expected LIKWID's answers"
if [ "$likwid" = real ]; then
    grep -q 'Running without Marker API' "$T/shim.err" ||
        fail "LIKWID's 'Running without Marker API' missing under the shim: Init not forwarded"
    grep -qx 'register -14' "$T/shim.out" ||
        fail "RegisterRegion did not return LIKWID's -14 under the shim: not forwarded"
    status_args="--no-likwid --status LIKWID_FILEPATH"
else
    if [ -f "$T/kept-marker.txt" ] && grep -q "$tag" "$T/kept-marker.txt"; then :; else
        fail "the simulated LIKWID wrote no marker file with $tag: calls not forwarded"
    fi
    grep -q "events 0" "$T/shim.out" &&
        fail "GetRegion reported 0 events while the simulated LIKWID counts"
    status_args="--source full_api --names --status full_api --likwid-region $tag=${nthreads}x10"
fi
if [ "$client" = ctypes-direct ]; then
    # LIKWID was called through its own handle: the shim saw no Init.
    if ls "$T"/shim/scope-likwid-*.h5 >/dev/null 2>&1; then
        fail "a result file from calls the shim cannot see: expected none"
    fi
elif f=$(result_file shim); then
    # shellcheck disable=SC2086
    check "$f" --timing "$tag=${nthreads}x10" --status-not 'not linked' $status_args
else
    fail "no single scope-likwid-*.h5 in the client's cwd"
    ls -la "$T/shim"
fi
[ "$FAILED" = 0 ] || { show_run base; show_run shim; }
finish
