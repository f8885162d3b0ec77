# Sourced by the tests of tests/mpijob (POSIX sh, after tests/e2e/lib.sh):
# NP ranks (4) of Open MPI as MPIRUN, SKIP (77) when mpirun is missing or
# cannot start them; each rank's simulated likwid-perfctr writes its marker
# file into $T.
command -v mpirun >/dev/null 2>&1 || skip "mpirun not found (Debian package openmpi-bin)"
pick_python
NP=4
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np $NP -x OMP_NUM_THREADS"
run probe $MPIRUN true
[ "$(rc_of probe)" = 0 ] || { show_run probe; skip "mpirun cannot start $NP ranks here (exit $(rc_of probe))"; }
SIM_MARKER_DIR=$T
SIMLIKWID_READBACK=ok
export SIM_MARKER_DIR SIMLIKWID_READBACK
