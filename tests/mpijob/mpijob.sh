#!/bin/sh
# shellcheck disable=SC2086 # $MPIRUN is a command with its options, split on purpose
# An MPI job end to end: 4 Open MPI ranks x 2 OpenMP threads
# (examples/mpi_solver), each rank under its own simulated likwid-perfctr -m
# (as likwid-mpirun runs one likwid-perfctr per rank) with the shim preloaded:
# one result file per rank with full_api counters; then the job's files go
# through `scope-likwid merge`, `show`, `diff` and `plot`.
# A subcommand that is still a placeholder ("not available yet": its
# `--help` fails) makes the test SKIP (77) naming it, after every step that
# can run has been checked; a failed check always FAILs.
. "$SL_SRC/tests/e2e/lib.sh"
need SL_SHIM SL_CLI SL_MPI_SOLVER SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR
. "$SL_SRC/tests/mpijob/job_lib.sh"

# Each rank: sim-perfctr (its own marker file, in $T) around the solver.
RANKCMD="$SL_SIM_PERFCTR -C 0,1 -g FLOPS_DP -m -- $SL_MPI_SOLVER"
run base $MPIRUN -x SIM_MARKER_DIR -x SIMLIKWID_READBACK $RANKCMD
[ "$(rc_of base)" = 0 ] || { fail "mpi_solver without the shim exited $(rc_of base): expected 0"; show_run base; }
run job $MPIRUN -x SIM_MARKER_DIR -x SIMLIKWID_READBACK -x LD_PRELOAD="$SL_SHIM" \
    -x SCOPE_LIKWID_COLLECTOR -x SCOPE_LIKWID_WRITER -x SCOPE_LIKWID_TIMEOUT $RANKCMD
[ "$(rc_of job)" = 0 ] || fail "the job with the shim exited $(rc_of job): expected 0"
grep -q "^mpi_solver: ranks=$NP " "$T/job.out" || fail "no 'mpi_solver: ranks=$NP' line on stdout"
if ! cmp -s "$T/base.out" "$T/job.out"; then
    fail "stdout differs from the job without the shim"
    diff "$T/base.out" "$T/job.out" | sed 's/^/    /'
fi

# One file per rank, full_api counters and timing for every rank.
files=
r=0
while [ "$r" -lt "$NP" ]; do
    f=$T/job/scope-likwid-rank$r.h5
    if [ -f "$f" ]; then
        check "$f" --rank "$r" --mpi-rank "$r" --nranks 1 --executable mpi_solver \
            --source full_api --names --metrics --status '^used full_api$' \
            --timing init=1x1 --timing solve-step=2x10 --timing "io phase=1x1" \
            --likwid-region solve-step=2x10 --likwid-region init=1x1
    else
        fail "no scope-likwid-rank$r.h5: expected one result file per rank"
    fi
    files="$files $f"
    r=$((r + 1))
done
set -- "$T/job"/*
[ $# = "$NP" ] || fail "$# files in the job's directory ($*): expected exactly $NP result files"
[ "$FAILED" = 0 ] || { show_run job; finish; }

missing=
# available CMD: 0 when `scope-likwid CMD --help` works (the subcommand has landed).
available() {
    if "$SL_CLI" "$1" --help >/dev/null 2>&1; then
        return 0
    fi
    missing="$missing $1"
    return 1
}

# merge: one file with the 4 rank groups, each still a valid rank.
JOB=$T/out/job.h5
mkdir -p "$T/out"
if available merge; then
    run merge "$SL_CLI" merge -o "$JOB" $files
    if [ "$(rc_of merge)" != 0 ] || [ ! -f "$JOB" ]; then
        fail "scope-likwid merge exited $(rc_of merge) (file: $(ls "$JOB" 2>&1)): expected 0 and $JOB"
        show_run merge
    else
        # a valid result file with NP rank groups (the last one checked in
        # full; the comparison below covers every rank's data)
        r=$((NP - 1))
        check "$JOB" --rank "$r" --mpi-rank "$r" --nranks "$NP" --executable mpi_solver \
            --source full_api --names --metrics --status '^used full_api$' \
            --timing init=1x1 --timing solve-step=2x10 --timing "io phase=1x1" \
            --likwid-region solve-step=2x10
        # the merged groups are the ranks' own data: same attributes and values
        "$PY" - "$JOB" $files >"$T/same.log" 2>&1 <<'PYEOF' || { fail "merged data differs from the rank files:"; sed 's/^/    /' "$T/same.log"; }
import sys, h5py, numpy as np
job, ranks = sys.argv[1], sys.argv[2:]
bad = []
with h5py.File(job, "r") as j:
    top = sorted(k for k in j.keys() if k.startswith("rank"))
    want = sorted("rank%d" % r for r in range(len(ranks)))
    if top != want:
        bad.append("rank groups %s: expected %s" % (top, want))
    for r, path in enumerate(ranks):
        name = "rank%d" % r
        with h5py.File(path, "r") as f:
            if name not in j:
                continue
            def walk(sub, obj):
                where = "/%s/%s" % (name, sub) if sub else "/" + name
                o = j[where] if where in j else None
                if o is None:
                    bad.append("%s missing in %s" % (where, job))
                    return
                for a, v in obj.attrs.items():
                    if a not in o.attrs or not np.array_equal(np.asarray(o.attrs[a]), np.asarray(v)):
                        bad.append("%s attr %s differs from %s" % (where, a, path))
                if isinstance(obj, h5py.Dataset):
                    if obj.shape != o.shape or not np.array_equal(obj[()], o[()]):
                        bad.append("%s data differs from %s" % (where, path))
            walk("", f[name])
            f[name].visititems(lambda k, obj: walk(k, obj))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PYEOF
    fi
fi

# scope-profiler's view (tests/scope_profiler/sp_load.py): every rank, every
# region, every call (init 1 + solve-step 2x10 + io phase 1 per rank), the
# metadata of the job (mpi_size from Open MPI's environment), for a rank's
# own file and the merged job.
SP_LOAD=$SL_SRC/tests/scope_profiler/sp_load.py
# sp FILE ARGS...: the loader must accept FILE
sp() {
    "$PY" "$SP_LOAD" "$@" >"$T/sp.log" 2>&1 || { fail "scope-profiler's loader rejects $1:"; sed 's/^/    /' "$T/sp.log"; }
    cat "$T/sp.log"
}
sp "$T/job/scope-likwid-rank1.h5" --ranks 1 --calls 22 --likwid --require-metadata \
    --mpi-size "$NP" --omp-threads 2
if [ -f "$JOB" ]; then
    sp "$JOB" --ranks "$NP" --calls $((22 * NP)) --likwid --require-metadata --mpi-size "$NP" \
        --omp-threads 2
    "$PY" -c 'import sys, h5py
f = h5py.File(sys.argv[1], "r")
o = [(k, f[k].attrs["mpi_rank"], f[k].attrs["merged_from_group"]) for k in sorted(f) if k != "metadata"]
want = [("rank%d" % r, r, "rank%d" % r) for r in range(int(sys.argv[2]))]
sys.exit(0 if o == want else "origins %s: expected %s" % (o, want))' "$JOB" "$NP" >"$T/origin.log" 2>&1 ||
        fail "merged job's rank groups and origins: $(cat "$T/origin.log")"
fi

if [ -f "$JOB" ]; then
    SRC=$JOB
else
    SRC=  # nothing merged: the next steps need job.h5
fi

# show: every rank of the job.
if [ -n "$SRC" ] && available show; then
    run show "$SL_CLI" show "$SRC"
    [ "$(rc_of show)" = 0 ] || { fail "scope-likwid show job.h5 exited $(rc_of show): expected 0"; show_run show; }
    r=0
    while [ "$r" -lt "$NP" ]; do
        grep -q "^Rank $r (group rank$r, mpi_rank $r," "$T/show.out" || fail "show job.h5 does not show 'Rank $r (group rank$r, mpi_rank $r, ...'"
        r=$((r + 1))
    done
    run showjson "$SL_CLI" show --json "$SRC"
    n=$("$PY" -c 'import json,sys; print(sorted(r["mpi_rank"] for r in json.load(open(sys.argv[1]))["ranks"]))' \
        "$T/showjson.out" 2>&1)
    [ "$n" = "[0, 1, 2, 3]" ] || fail "show --json job.h5: mpi_ranks $n: expected [0, 1, 2, 3]"
fi

# diff of the job with itself: no region got slower, rows for every region.
if [ -n "$SRC" ] && available diff; then
    run diff "$SL_CLI" diff "$SRC" "$SRC"
    [ "$(rc_of diff)" = 0 ] || { fail "scope-likwid diff job.h5 job.h5 exited $(rc_of diff): expected 0"; show_run diff; }
    # at least one row per rank for every region
    for tag in init solve-step "io phase"; do
        n=$(grep -c "$tag" "$T/diff.out")
        [ "$n" -ge "$NP" ] || fail "diff job.h5 job.h5 has $n rows for region '$tag': expected one per rank ($NP)"
    done
fi

# plot: a self-contained HTML report with an SVG chart naming the regions.
if [ -n "$SRC" ] && available plot; then
    run plot "$SL_CLI" plot "$SRC" -o "$T/out/job.html"
    if [ "$(rc_of plot)" != 0 ] || [ ! -s "$T/out/job.html" ]; then
        fail "scope-likwid plot job.h5 -o job.html exited $(rc_of plot): expected 0 and a file"
        show_run plot
    else
        grep -qi "<html" "$T/out/job.html" || fail "job.html has no <html>"
        grep -q "<svg" "$T/out/job.html" || fail "job.html has no <svg>"
        grep -q "solve-step" "$T/out/job.html" || fail "job.html does not name region solve-step"
    fi
fi

[ "$FAILED" = 0 ] || finish
[ -n "$SRC" ] || missing="$missing (so show, diff and plot of job.h5 did not run)"
[ -z "$missing" ] || skip "the rank files are right; not yet available in scope-likwid:$missing"
finish
