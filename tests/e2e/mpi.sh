#!/bin/sh
# shellcheck disable=SC2086 # $MPIRUN is a command with its options, split on purpose
# MPI (Open MPI, 2 ranks, 1 OpenMP thread each) with the shim preloaded into
# the ranks only (mpirun -x): one result file per rank,
# scope-likwid-rank0.h5 and scope-likwid-rank1.h5, with mpi_rank 0 and 1.
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_MPI_SOLVER SL_CHECKER
command -v mpirun >/dev/null 2>&1 || skip "mpirun not found (Debian package openmpi-bin)"
pick_python
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 2 -x OMP_NUM_THREADS=1"
# Can this machine start two ranks at all? If not, the test cannot run here.
run probe $MPIRUN true
[ "$(rc_of probe)" = 0 ] || { show_run probe; skip "mpirun cannot start 2 ranks here (exit $(rc_of probe))"; }
run base $MPIRUN "$SL_MPI_SOLVER"
[ "$(rc_of base)" = 0 ] || { fail "mpi_solver without the shim exited $(rc_of base): expected 0"; show_run base; }
run shim $MPIRUN -x LD_PRELOAD="$SL_SHIM" -x SCOPE_LIKWID_COLLECTOR -x SCOPE_LIKWID_WRITER \
    -x SCOPE_LIKWID_TIMEOUT "$SL_MPI_SOLVER"
if ! cmp -s "$T/base.out" "$T/shim.out"; then
    fail "stdout differs from the run without the shim"
    diff "$T/base.out" "$T/shim.out" | sed 's/^/    /'
fi
[ "$(rc_of shim)" = 0 ] || fail "mpirun with the shim exited $(rc_of shim): expected 0"
for r in 0 1; do
    f=$T/shim/scope-likwid-rank$r.h5
    if [ -f "$f" ]; then
        check "$f" --rank "$r" --mpi-rank "$r" --nranks 1 --no-likwid --executable mpi_solver \
            --timing "init=1x1" --timing "solve-step=1x10" --timing "io phase=1x1"
    else
        fail "no $f: expected one result file per rank"
    fi
done
set -- "$T/shim"/*.h5
[ $# = 2 ] || fail "$# result files ($*): expected exactly 2"
[ "$FAILED" = 0 ] || { ls -la "$T/shim"; show_run shim; }
finish
