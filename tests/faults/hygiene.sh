#!/bin/sh
# Helper hygiene: the collector and the writer must not load the shim again
# and must not inherit the application's descriptors. fd_probe stands in for
# both helpers (SCOPE_LIKWID_COLLECTOR/_WRITER), records what it was given,
# and execs the real one. The application leaves a file, a pipe and a socket
# open without close-on-exec (fault_app open-fds).
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_FAULT_APP SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR SL_FD_PROBE SL_COLLECT SL_WRITE
pick_python
SIMLIKWID_STYLE=552
FAULT_PROBE_OUT=$T/probe.log
FAULT_PROBE_COLLECT=$SL_COLLECT
FAULT_PROBE_WRITE=$SL_WRITE
SCOPE_LIKWID_COLLECTOR=$SL_FD_PROBE
SCOPE_LIKWID_WRITER=$SL_FD_PROBE
export SIMLIKWID_STYLE FAULT_PROBE_OUT FAULT_PROBE_COLLECT FAULT_PROBE_WRITE \
       SCOPE_LIKWID_COLLECTOR SCOPE_LIKWID_WRITER
# The shim in LD_PRELOAD twice, once by another spelling of its path.
alias_dir=$T/alias
mkdir -p "$alias_dir"
ln -s "$SL_SHIM" "$alias_dir/libscope_likwid.so"
sim h.base "$SL_FAULT_APP" open-fds
sim h.shim env LD_PRELOAD="$SL_SHIM:$alias_dir/../alias/libscope_likwid.so" "$SL_FAULT_APP" open-fds
same_behaviour h.base h.shim
for role in collect write; do
    line=$(grep "^$role " "$T/probe.log")
    if [ -z "$line" ]; then
        fail "the $role helper never ran (probe log: $(cat "$T/probe.log" 2>/dev/null))"
    elif [ "$line" != "$role fds=0,1,2 preload=no mapped=no" ]; then
        fail "$role helper got '$line': expected only descriptors 0,1,2 and no shim"
    fi
done
if f=$(result_file h.shim); then
    work_timing "$f" --source full_api --names --status "used full_api"
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
[ "$FAILED" = 0 ] || show_run h.shim
finish
