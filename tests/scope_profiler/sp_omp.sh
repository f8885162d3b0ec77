#!/bin/sh
# One process run under both tools (tests/scope_profiler/sp_omp_run.py: a
# Python process writing a scope-profiler file by scope-profiler 0.2.1's
# rule, under the shim) reports the same omp_num_threads in both files:
# without OMP_NUM_THREADS (the OpenMP runtime's default, the CPUs the
# process may run on), with a list "3,2" (its first value), and on one CPU
# only (taskset, when there is more than one).
. "$SL_SRC/tests/e2e/lib.sh"
need SL_SHIM
pick_python
FIX=$SL_SRC/tests/data/scope_profiler

# both NAME ENV...: runs the process under the shim (through $WRAP when
# set), compares the two files
both() {
    name=$1
    shift
    run "$name" env "$@" LD_PRELOAD="$SL_SHIM" ${WRAP:-} "$PY" "$SL_SRC/tests/scope_profiler/sp_omp_run.py" \
        "$FIX" "$T/$name"
    [ "$(rc_of "$name")" = 0 ] || { fail "$name: the process exited $(rc_of "$name")"; show_run "$name"; return; }
    ours=$(result_file "$name") || { fail "$name: no result file from the shim"; show_run "$name"; return; }
    "$PY" -c 'import sys, h5py
a = int(h5py.File(sys.argv[1], "r")["metadata"].attrs["omp_num_threads"])
b = int(h5py.File(sys.argv[2], "r")["metadata"].attrs["omp_num_threads"])
if a != b:
    sys.exit("omp_num_threads %d in scope-profiler'"'"'s file, %d in ours: expected one value" % (a, b))
print("omp_num_threads %d in both" % a)' "$T/$name/profiling_data.h5" "$ours" >"$T/$name.cmp" 2>&1 ||
        { fail "$name: $(cat "$T/$name.cmp")"; return; }
    say "$name: $(cat "$T/$name.cmp")"
}

both unset -u OMP_NUM_THREADS
both list OMP_NUM_THREADS=3,2
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -gt 1 ]; then
    WRAP="taskset -c 0" both onecpu -u OMP_NUM_THREADS
fi
finish
