# Sourced by the export tests (POSIX sh). meson passes paths in the
# environment: SL_CLI SL_SAMPLES SL_SAMPLE_WRITER SL_SHIM SL_SOLVER SL_COLLECT
# SL_WRITE SL_SIM_DIR SL_SIM_PERFCTR SL_SRC (this folder). Gives $TMP (removed
# at exit), sl NAME ARGS (stdout NAME.out, stderr NAME.err, exit code $RC),
# fail, check_rc, check_grep, check_same, check_one_line, finish, pick_python.
set -eu
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sl-export.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cd "$TMP"
FAILS=0
CHECKS=0
LC_ALL=C
export LC_ALL

fail() {
    echo "FAIL: $*" >&2
    FAILS=$((FAILS + 1))
}

sl() {
    _name=$1
    shift
    RC=0
    "$SL_CLI" "$@" >"$TMP/$_name.out" 2>"$TMP/$_name.err" || RC=$?
    CHECKS=$((CHECKS + 1))
}

check_rc() {
    [ "$RC" -eq "$1" ] || fail "$2: exit code $RC, expected $1; stderr: $(head -c 400 "$TMP/$_name.err")"
}

check_grep() {
    CHECKS=$((CHECKS + 1))
    grep -qF -- "$2" "$1" || fail "$3: '$2' not in $(basename "$1"): $(head -c 400 "$1")"
}

check_same() {
    CHECKS=$((CHECKS + 1))
    if ! cmp -s "$1" "$2"; then
        fail "$3: files differ"
        diff -u "$1" "$2" >&2 || true
    fi
}

# check_one_line WHAT: the last sl call wrote exactly one line to stderr and nothing to stdout.
check_one_line() {
    CHECKS=$((CHECKS + 1))
    [ "$(wc -l <"$TMP/$_name.err")" -eq 1 ] || fail "$1: stderr is not one line: $(cat "$TMP/$_name.err")"
    [ ! -s "$TMP/$_name.out" ] || fail "$1: wrote to stdout: $(head -c 200 "$TMP/$_name.out")"
}

finish() {
    if [ "$FAILS" -ne 0 ]; then
        echo "$FAILS of $CHECKS checks failed" >&2
        exit 1
    fi
    echo "$CHECKS checks passed"
    exit 0
}

# Debian's python3 (the pyenv one first on PATH has no h5py/pandas); 77 = SKIP.
pick_python() {
    for py in /usr/bin/python3 python3; do
        if "$py" -c 'import h5py, numpy, pandas' >/dev/null 2>&1; then
            PY=$py
            return 0
        fi
    done
    echo "SKIP: no python3 with h5py and pandas (python3-h5py, python3-pandas)"
    exit 77
}

# The rescue file of tests/cli/show.sh: names, metrics, nan, a region lacking
# an event, a timing region with LIKWID data and one without.
make_rescue() {
    { cat "$SL_SRC/rescue.body"; echo "end $(wc -l <"$SL_SRC/rescue.body")"; } >"$TMP/rescue.wire"
    "$SL_CLI" convert "$TMP/rescue.wire" -o "$TMP/$1" >/dev/null
}
