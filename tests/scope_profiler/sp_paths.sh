#!/bin/sh
# Our files as scope-profiler loads them (sp_load.py, written from
# ../shared/spec/scope-profiler-layout.md), one file from each path that
# makes one: the shim (a real program under LD_PRELOAD, with the REAL LIKWID
# in no-count mode and with the SIMULATED LIKWID counting), convert of a
# rescue file and of a marker file, merge of two non-MPI runs (rank0,
# rank1) and of merged files. Every rank, every region, every call and the
# metadata are checked; format-1 files (tests/data/v1) must fail to load in
# scope-profiler (rank0.1, no regions/) and still read in our own tools.
# The OpenMPI job is checked by tests/mpijob (also in this suite).
. "$SL_SRC/tests/e2e/lib.sh"
need SL_SHIM SL_SOLVER SL_CLI SL_SIM_DIR SL_SIM_PERFCTR
pick_python
SP="$PY $SL_SRC/tests/scope_profiler/sp_load.py"
V1=$SL_SRC/tests/data/v1

# sp NAME FILE ARGS...: the loader must accept FILE
sp() {
    name=$1
    shift
    if $SP "$@" >"$T/sp-$name.log" 2>&1; then
        cat "$T/sp-$name.log"
    else
        fail "$name: scope-profiler's loader rejects $1:"
        sed 's/^/    /' "$T/sp-$name.log"
    fi
}

# The solver: init 1 call, solve-step 2 threads x 20, io phase 1 = 42 calls.
CALLS=42

# 1. the shim, real LIKWID (no-count): timing and metadata
run real env LD_PRELOAD="$SL_SHIM" USER=sp-user SLURM_JOB_ID=4711 "$SL_SOLVER"
[ "$(rc_of real)" = 0 ] || { fail "solver under the shim exited $(rc_of real)"; show_run real; }
if real=$(result_file real); then
    sp shim-real "$real" --ranks 1 --calls $CALLS --require-metadata --mpi-size 1 --omp-threads 2
    "$PY" - "$real" "$T/real" >"$T/meta.log" 2>&1 <<'PY' || { fail "shim /metadata:"; sed 's/^/    /' "$T/meta.log"; }
import socket, sys, h5py
f = h5py.File(sys.argv[1], "r")
m = f["metadata"].attrs
bad = []
def want(k, v):
    if m.get(k) != v:
        bad.append("%s = %r: expected %r" % (k, m.get(k), v))
want("hostname", socket.gethostname())
want("hostname", f["rank0"].attrs["hostname"])
import pwd, os
want("user", pwd.getpwuid(os.getuid()).pw_name)   # the passwd name, never USER
want("SLURM_JOB_ID", "4711")
want("working_directory", sys.argv[2])
want("total_cores", 2)
# start <= every start, finalize >= every end, both on the timing clock
t = f["rank0/timing/regions"]
starts = [int(t[r]["start_times"][:].min()) for r in t if len(t[r]["start_times"])]
ends = [int(t[r]["end_times"][:].max()) for r in t if len(t[r]["end_times"])]
if not (m["start_time_ns"] <= min(starts) and m["finalize_time_ns"] >= max(ends)):
    bad.append("start/finalize %d..%d do not enclose the calls %d..%d"
               % (m["start_time_ns"], m["finalize_time_ns"], min(starts), max(ends)))
# timestamp = origin_unix_ns + start_time_ns, in UTC
import datetime
ts = datetime.datetime.fromisoformat(m["timestamp"])
ns = f["rank0/timing"].attrs["origin_unix_ns"] + m["start_time_ns"]
if abs(ts.timestamp() - ns / 1e9) > 1e-5 or ts.utcoffset() != datetime.timedelta(0):
    bad.append("timestamp %s is not origin_unix_ns + start_time_ns in UTC" % m["timestamp"])
print("\n".join(bad) or "metadata ok")
sys.exit(1 if bad else 0)
PY
else
    fail "no result file from the real-LIKWID run"
fi

# 1b. without OMP_NUM_THREADS, omp_num_threads is the OpenMP runtime's
# default (the solver has libgomp loaded): the CPUs the process may run on,
# as scope-profiler records it; under a launcher's rank variables, mpi_size
# is its size variable
run seen env -u OMP_NUM_THREADS LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
if f=$(result_file seen); then
    "$PY" -c 'import os, sys, h5py
got = h5py.File(sys.argv[1], "r")["metadata"].attrs["omp_num_threads"]
cpus = len(os.sched_getaffinity(0))
sys.exit(0 if got == cpus else "omp_num_threads %d: expected %d, the CPUs the process may run on" % (got, cpus))' "$f" >"$T/seen.log" 2>&1 ||
        fail "$(cat "$T/seen.log")"
else
    fail "no result file from the run without OMP_NUM_THREADS"
fi
run pmi env PMI_RANK=2 PMI_SIZE=3 LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
if [ -f "$T/pmi/scope-likwid-rank2.h5" ]; then
    sp shim-pmi "$T/pmi/scope-likwid-rank2.h5" --ranks 1 --calls $CALLS --require-metadata --mpi-size 3
else
    fail "no scope-likwid-rank2.h5 from the run with PMI_RANK=2"
    show_run pmi
fi

# 2. the shim, simulated LIKWID (full_api): timing, LIKWID and metadata
SIMLIKWID_READBACK=ok
export SIMLIKWID_READBACK
sim simrun env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
[ "$(rc_of simrun)" = 0 ] || { fail "solver under sim-perfctr and the shim exited $(rc_of simrun)"; show_run simrun; }
if simf=$(result_file simrun); then
    sp shim-sim "$simf" --ranks 1 --calls $CALLS --likwid --require-metadata --mpi-size 1 --omp-threads 2
else
    fail "no result file from the simulated-LIKWID run"
fi

# 3. convert of a rescue file (no writer: the shim leaves one)
mkdir -p "$T/out"
run rescue env LD_PRELOAD="$SL_SHIM" SCOPE_LIKWID_WRITER="$T/nonexistent" \
    SCOPE_LIKWID_OUTPUT="$T/out/r.h5" "$SL_SOLVER"
if [ -f "$T/out/r.h5.rescue" ]; then
    run convert "$SL_CLI" convert "$T/out/r.h5.rescue" -o "$T/out/converted.h5"
    [ "$(rc_of convert)" = 0 ] || { fail "convert of the rescue file exited $(rc_of convert)"; show_run convert; }
    sp convert-rescue "$T/out/converted.h5" --ranks 1 --calls $CALLS --require-metadata --mpi-size 1 --omp-threads 2
else
    fail "no rescue file $T/out/r.h5.rescue"
    show_run rescue
fi

# 4. convert of a marker file: LIKWID only, no timing; metadata as known
run mconv "$SL_CLI" convert "$SL_SRC/tests/data/samples/v52_two_groups.txt" -o "$T/out/marker.h5"
[ "$(rc_of mconv)" = 0 ] || { fail "convert of a marker file exited $(rc_of mconv)"; show_run mconv; }
sp convert-marker "$T/out/marker.h5" --ranks 1 --calls 0 --likwid --omp-threads 2
# convert --into keeps the file's /metadata
if [ -n "${real:-}" ]; then
    cp "$real" "$T/out/into.h5"
    run into "$SL_CLI" convert "$SL_SRC/tests/data/samples/v52_two_groups.txt" --into "$T/out/into.h5"
    [ "$(rc_of into)" = 0 ] || { fail "convert --into exited $(rc_of into)"; show_run into; }
    sp convert-into "$T/out/into.h5" --ranks 1 --calls $CALLS --likwid --require-metadata --omp-threads 2
    [ "$(h5dump -a /metadata/user "$T/out/into.h5" 2>&1 | grep -c "\"$(id -un)\"")" = 1 ] ||
        fail "convert --into replaced the file's /metadata: expected it kept"
fi

# 5. merge of two non-MPI runs (both rank 0): rank0 and rank1
if [ -n "${real:-}" ] && [ -n "${simf:-}" ]; then
    run merge "$SL_CLI" merge --allow-mixed -o "$T/out/m.h5" "$real" "$simf"
    [ "$(rc_of merge)" = 0 ] || { fail "merge exited $(rc_of merge)"; show_run merge; }
    sp merge-two "$T/out/m.h5" --ranks 2 --calls $((2 * CALLS)) --require-metadata --mpi-size 1
    groups=$(h5ls "$T/out/m.h5" | awk '{print $1}' | tr '\n' ' ')
    [ "$groups" = "metadata rank0 rank1 " ] || fail "merged groups '$groups': expected metadata rank0 rank1"
    # 6. a merge of merged files: four distinct ranks
    cp "$T/out/m.h5" "$T/out/m2.h5"
    run merge2 "$SL_CLI" merge --allow-mixed -o "$T/out/mm.h5" "$T/out/m.h5" "$T/out/m2.h5"
    [ "$(rc_of merge2)" = 0 ] || { fail "merge of merged files exited $(rc_of merge2)"; show_run merge2; }
    sp merge-merged "$T/out/mm.h5" --ranks 4 --calls $((4 * CALLS)) --require-metadata
fi

# 7. format 1 (before this layout): scope-profiler cannot load it (which
# the loader must see), our tools still read it
sp v1-merged "$V1/merged.h5" --expect-fail
sp v1-single "$V1/single.h5" --expect-fail
for f in single merged; do
    run "show-v1-$f" "$SL_CLI" show "$V1/$f.h5"
    [ "$(rc_of "show-v1-$f")" = 0 ] || { fail "scope-likwid show of format-1 $f.h5 exited $(rc_of "show-v1-$f")"; show_run "show-v1-$f"; }
done
grep -q 'solve' "$T/show-v1-merged.out" || fail "show of format-1 merged.h5 lacks region solve"
finish
