#!/bin/sh
# A collector (scope-likwid-collect, the full-API read-back process) that
# fails must cost nothing but names and metrics:
#   collector_fault.sh FAULT [STYLE]
# FAULT: segv, hang, exit, garbage, truncate, abort (SIMLIKWID_READBACK of
# the simulated liblikwid the collector loads), missing (SCOPE_LIKWID_COLLECTOR
# names no file), noexec (names a file without execute permission).
# The application's stdout and exit status stay unchanged, the timing is
# written, the counters come from the marker file, and likwid_status names
# the fault.
. "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || { echo "usage: collector_fault.sh FAULT [STYLE]" >&2; exit 2; }
need SL_SHIM SL_SOLVER SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR
pick_python
fault=$1
SIMLIKWID_STYLE=${2:-552}
SIMLIKWID_READBACK=ok
export SIMLIKWID_STYLE SIMLIKWID_READBACK

case $fault in
segv) SIMLIKWID_READBACK=segv; why='signal 11|SIGSEGV|segmentation' ;;
abort) SIMLIKWID_READBACK=abort; why='signal 6|SIGABRT|abort' ;;
hang) SIMLIKWID_READBACK=hang; why='timed? ?out|timeout'
      SCOPE_LIKWID_TIMEOUT=1; export SCOPE_LIKWID_TIMEOUT ;;
exit) SIMLIKWID_READBACK='exit'; why='exit(ed)? (with )?(status|code)' ;;
garbage) SIMLIKWID_READBACK=garbage; why='expected|not understood|invalid|garbage|malformed|unreadable' ;;
truncate) SIMLIKWID_READBACK=truncate; why='expected|truncated|incomplete|invalid|unexpected end' ;;
missing) SCOPE_LIKWID_COLLECTOR=$T/nonexistent/scope-likwid-collect; why='No such file|not found|missing'
         export SCOPE_LIKWID_COLLECTOR ;;
noexec) cp "$SL_COLLECT" "$T/scope-likwid-collect"; chmod 644 "$T/scope-likwid-collect"
        SCOPE_LIKWID_COLLECTOR=$T/scope-likwid-collect; why='Permission denied|not executable'
        export SCOPE_LIKWID_COLLECTOR ;;
*) echo "collector_fault.sh: FAULT '$fault': expected segv, hang, exit, garbage, truncate, abort, missing or noexec" >&2
   exit 2 ;;
esac

# The faults hit the read-back (perfmon_*), which only the collector does.
sim base "$SL_SOLVER"
start=$(date +%s)
sim shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
took=$(( $(date +%s) - start ))
[ "$(rc_of base)" = 0 ] || { fail "solver under sim-perfctr exited $(rc_of base): expected 0"; show_run base; }
same_behaviour base shim
if [ "$fault" = hang ] && [ "$took" -gt 15 ]; then
    fail "a hanging collector with SCOPE_LIKWID_TIMEOUT=1 held the application for $took s: expected about 1 s"
fi
if f=$(result_file shim); then
    solver_timing "$f" --source marker_file --no-names --no-metrics --likwid-region solve-step=2x20 \
        --status "full_api" --status "$why" --status "marker_file"
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
[ "$FAILED" = 0 ] || show_run shim
finish
