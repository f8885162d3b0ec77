# Sourced by the plot tests (POSIX sh). meson passes the built pieces as
# SL_* variables (tests/plot/meson.build): SL_CLI, SL_CHECKER (check_plot.py),
# SL_MK_RESCUE (mk_rescue.py), SL_SAMPLE_WRITER, SL_SAMPLES, and for the
# solver run SL_SHIM SL_COLLECT SL_WRITE SL_SOLVER SL_SIM_DIR SL_SIM_PERFCTR.
# Each script runs in a private temporary directory $T (its cwd), removed
# at the end unless it failed or SL_KEEP=1.
set -u
FAILED=0
CHECKS=0
SCRIPT=$(basename "$0" .sh)
LC_ALL=C
export LC_ALL

say() { printf '%s: %s\n' "$SCRIPT" "$*"; }
fail() { printf '%s: FAIL: %s\n' "$SCRIPT" "$*"; FAILED=1; }
skip() { printf '%s: SKIP: %s\n' "$SCRIPT" "$*"; exit 77; }
finish() {
    if [ "$FAILED" != 0 ]; then
        say "failed (files kept in $T)"
        SL_KEEP=1
        exit 1
    fi
    if [ "$CHECKS" = 0 ]; then
        say "no check ran: expected at least one"
        exit 1
    fi
    say "ok ($CHECKS checks)"
    exit 0
}

# need VAR...: each must name an existing file; empty: not built here (SKIP).
need() {
    for v in "$@"; do
        eval "p=\${$v:-}"
        [ -n "$p" ] || skip "$v is empty: that piece is not built in this configuration"
        [ -e "$p" ] || { printf '%s: FAIL: %s=%s does not exist: expected it built\n' "$SCRIPT" "$v" "$p"; exit 1; }
    done
}

# The first Python with h5py and numpy (the python3 first in PATH may lack them).
pick_python() {
    for py in /usr/bin/python3 python3; do
        if "$py" -c 'import h5py, numpy' >/dev/null 2>&1; then
            PY=$py
            return 0
        fi
    done
    skip "no python3 with h5py and numpy (Debian packages python3-h5py, python3-numpy)"
}

T=$(mktemp -d "${TMPDIR:-/tmp}/sl-plot-$SCRIPT.XXXXXX") || exit 1
SL_KEEP=${SL_KEEP:-0}
trap '[ "$SL_KEEP" = 1 ] || rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
cd "$T" || exit 1

# plot NAME ARGS...: scope-likwid plot ARGS; stdout/stderr in $T/NAME.out,
# NAME.err, exit status in $RC.
plot() {
    _name=$1
    shift
    RC=0
    timeout -k 5 60 "$SL_CLI" plot "$@" >"$T/$_name.out" 2>"$T/$_name.err" || RC=$?
}

# expect_rc WANT WHAT: the last plot exited WANT.
expect_rc() {
    CHECKS=$((CHECKS + 1))
    if [ "$RC" != "$1" ]; then
        fail "$2: exit status $RC, expected $1; stderr: $(head -c 400 "$T/$_name.err")"
        return 1
    fi
}

# check REPORT FILE.h5 [check_plot.py options]
check() {
    CHECKS=$((CHECKS + 1))
    if ! "$PY" "$SL_CHECKER" "$@" >"$T/check.log" 2>&1; then
        fail "check_plot.py $*:"
        sed 's/^/    /' "$T/check.log"
        return 1
    fi
}

# grep_in FILE FIXED-STRING WHAT
grep_in() {
    CHECKS=$((CHECKS + 1))
    grep -qF -- "$2" "$1" || fail "$3: '$2' not in $1"
}

# rescue OUT.h5 mk_rescue.py-ARGS...: a synthetic result file.
rescue() {
    _out=$1
    shift
    "$PY" "$SL_MK_RESCUE" "$T/$_out.rescue" "$@" || { fail "mk_rescue.py $*"; return 1; }
    "$SL_CLI" convert "$T/$_out.rescue" -o "$T/$_out" >/dev/null 2>"$T/$_out.convert.err" ||
        { fail "convert $_out.rescue: $(cat "$T/$_out.convert.err")"; return 1; }
}

# merge_ranks OUT.h5 N STEP_NS MK-OPTIONS... REGIONS THREADS CALLS: N rank
# files (rank r: origin 1.7e18 + r * STEP_NS, the same clock values, so a
# later origin is a later start) merged into OUT.h5.
merge_ranks() {
    _o=$1 _k=$2 _step=$3
    shift 3
    _l=
    _r=0
    while [ "$_r" -lt "$_k" ]; do
        rescue "$_o.$_r.h5" --rank "$_r" --origin $((1700000000000000000 + _r * _step)) "$@" || return 1
        _l="$_l $_o.$_r.h5"
        _r=$((_r + 1))
    done
    "$SL_CLI" merge -o "$_o" $_l >/dev/null 2>"$_o.merge.err" || fail "merge $_o: $(cat "$_o.merge.err")"
}
