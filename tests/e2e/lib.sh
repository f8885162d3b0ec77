# Shared by the end-to-end scripts (sourced, POSIX sh). meson passes the paths
# of the built pieces as SL_* environment variables (tests/e2e/meson.build):
#   SL_SHIM SL_CLI SL_COLLECT SL_WRITE SL_SOLVER SL_SOLVER_F SL_MPI_SOLVER
#   SL_SIM_DIR SL_SIM_PERFCTR SL_CHECKER SL_PYTHON
# Each script runs in a private temporary directory (also the output
# location), removed at the end unless SL_KEEP=1.
set -u

FAILED=0
SCRIPT=$(basename "$0" .sh)

say() { printf '%s: %s\n' "$SCRIPT" "$*"; }
fail() { printf '%s: FAIL: %s\n' "$SCRIPT" "$*"; FAILED=1; }
skip() { printf '%s: SKIP: %s\n' "$SCRIPT" "$*"; exit 77; }
finish() {
    if [ "$FAILED" != 0 ]; then
        say "failed (files in $T)"
        SL_KEEP=1
        exit 1
    fi
    say "ok"
    exit 0
}

# need VAR...: each must name an existing file. Empty: the piece is not part
# of this configuration (no Fortran, no MPI, ...): SKIP. Set but missing: the
# build is broken: FAIL.
need() {
    for v in "$@"; do
        eval "p=\${$v:-}"
        [ -n "$p" ] || skip "$v is empty: that piece is not built in this configuration"
        if [ ! -e "$p" ]; then
            printf '%s: FAIL: %s=%s does not exist: expected it built (ninja -C BUILD)\n' "$SCRIPT" "$v" "$p"
            exit 1
        fi
    done
}

# The first Python that can import h5py (a pyenv python3 in PATH may lack it).
pick_python() {
    for py in "${SL_PYTHON:-}" /usr/bin/python3 python3; do
        [ -n "$py" ] || continue
        if "$py" -c 'import h5py, numpy' >/dev/null 2>&1; then
            PY=$py
            return 0
        fi
    done
    skip "no python3 with h5py (Debian package python3-h5py)"
}

# A clean environment: nothing inherited may steer LIKWID or the shim.
for v in $(env | sed -n 's/^\(LIKWID_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(SCOPE_LIKWID_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(SIMLIKWID_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(SIM_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done
unset LD_PRELOAD LD_LIBRARY_PATH OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK SLURM_PROCID \
      MV2_COMM_WORLD_RANK MPI_LOCALRANKID ALPS_APP_PE PALS_RANKID
OMP_NUM_THREADS=2
OMP_PROC_BIND=false
export OMP_NUM_THREADS OMP_PROC_BIND
# The helpers of the build tree (an installed shim finds its own).
if [ -n "${SL_COLLECT:-}" ]; then SCOPE_LIKWID_COLLECTOR=$SL_COLLECT; export SCOPE_LIKWID_COLLECTOR; fi
if [ -n "${SL_WRITE:-}" ]; then SCOPE_LIKWID_WRITER=$SL_WRITE; export SCOPE_LIKWID_WRITER; fi
SCOPE_LIKWID_TIMEOUT=20
export SCOPE_LIKWID_TIMEOUT
# No group files for the writer unless a test names them: on a CPU that
# LIKWID knows, counters from the marker file would otherwise get the names
# and metrics of its group file (fallback_groups.sh tests that).
SCOPE_LIKWID_PERFGROUPS=/nonexistent/perfgroups
export SCOPE_LIKWID_PERFGROUPS

T=$(mktemp -d "${TMPDIR:-/tmp}/sl-e2e-$SCRIPT.XXXXXX") || exit 1
SL_KEEP=${SL_KEEP:-0}
trap '[ "$SL_KEEP" = 1 ] || rm -rf "$T"' EXIT
cd "$T" || exit 1

# run NAME CMD...: runs CMD in a fresh directory ./NAME (its cwd), stdout to
# NAME.out, stderr to NAME.err, exit status to NAME.rc. Never hangs the suite.
run() {
    name=$1
    shift
    mkdir -p "$T/$name"
    (cd "$T/$name" && exec timeout -k 5 60 "$@") >"$T/$name.out" 2>"$T/$name.err"
    echo $? >"$T/$name.rc"
    if [ "$(cat "$T/$name.rc")" = 124 ]; then
        fail "$name: timed out after 60 s: $*"
    fi
}

rc_of() { cat "$T/$1.rc"; }

show_run() {  # the output of a run, for the log of a failed test
    say "--- $1: exit status $(rc_of "$1"); stdout:"
    sed 's/^/    /' "$T/$1.out"
    say "--- $1: stderr:"
    sed 's/^/    /' "$T/$1.err"
}

# same_behaviour BASE SHIM: stdout byte-identical, same exit status, stderr
# identical apart from the shim's own "scope-likwid: " lines.
same_behaviour() {
    if ! cmp -s "$T/$1.out" "$T/$2.out"; then
        fail "$2: stdout differs from the run without the shim"
        diff "$T/$1.out" "$T/$2.out" | sed 's/^/    /'
    fi
    if [ "$(rc_of "$1")" != "$(rc_of "$2")" ]; then
        fail "$2: exit status $(rc_of "$2"): expected $(rc_of "$1") as without the shim"
    fi
    grep -v '^scope-likwid: ' "$T/$2.err" >"$T/$2.err.app" || true
    if ! cmp -s "$T/$1.err" "$T/$2.err.app"; then
        fail "$2: stderr (without scope-likwid: lines) differs from the run without the shim"
        diff "$T/$1.err" "$T/$2.err.app" | sed 's/^/    /'
    fi
}

# result_file DIR: prints the one result file the shim left in DIR.
result_file() {
    set -- "$T/$1"/scope-likwid-*.h5
    if [ $# != 1 ] || [ ! -f "$1" ]; then
        return 1
    fi
    printf '%s\n' "$1"
}

# check FILE ARGS...: the Python checker (tests/e2e/check_result.py).
check() {
    f=$1
    shift
    "$PY" "$SL_CHECKER" "$f" "$@" >"$T/check.log" 2>&1
    rc=$?
    if [ "$rc" != 0 ]; then
        [ "$rc" = 77 ] && skip "checker cannot run: $(cat "$T/check.log")"
        fail "checker rejected $f:"
        sed 's/^/    /' "$T/check.log"
        return 1
    fi
    cat "$T/check.log"
}

# sim RUN-NAME ARGS...: runs ARGS under the simulated likwid-perfctr -m
# (CPUs 0,1, group FLOPS_DP) with the simulated liblikwid. SIMLIKWID_* and
# SCOPE_LIKWID_* come from the caller's environment.
sim() {
    name=$1
    shift
    run "$name" env LD_LIBRARY_PATH="$SL_SIM_DIR" "$SL_SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- "$@"
}

# The timing every solver run must show (OMP_NUM_THREADS=2, 20 steps).
solver_timing() {
    check "$@" --timing "init=1x1" --timing "solve-step=2x20" --timing "io phase=1x1"
}
