# Sourced by the cli tests. Arguments of every test: SCOPE_LIKWID SAMPLES_DIR.
# Gives: $SL, $SAMPLES, $TMP (removed at exit), sl NAME ARGS (runs scope-likwid,
# stdout in $TMP/NAME.out, stderr in $TMP/NAME.err, exit code in $RC),
# fail MSG, check_rc WANT WHAT, check_grep, check_same, check_files, finish.
# Also sourced by other suites' lib.sh for these helpers: they set
# SL_FROM_ENV=NAME first, as their tests have arguments of their own; then
# SCOPE_LIKWID and SAMPLES_DIR come from $SL_CLI and $SL_SAMPLES and $TMP is
# named sl-NAME.XXXXXX.
set -eu
if [ -n "${SL_FROM_ENV:-}" ]; then
    SL=$SL_CLI
    SAMPLES=$SL_SAMPLES
else
    SL=$1
    SAMPLES=$2
fi
case $SL in /*) ;; *) SL=$(pwd)/$SL ;; esac
case $SAMPLES in /*) ;; *) SAMPLES=$(pwd)/$SAMPLES ;; esac
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sl-${SL_FROM_ENV:-cli}.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
# default outputs land in the current directory: make that ours
START=$(pwd)
cd "$TMP"
FAILS=0
CHECKS=0
# LC_ALL=C: messages and number formats must not depend on the user's locale
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
    "$SL" "$@" >"$TMP/$_name.out" 2>"$TMP/$_name.err" || RC=$?
    CHECKS=$((CHECKS + 1))
}

# check_rc WANT WHAT: the last sl call exited WANT.
check_rc() {
    if [ "$RC" -ne "$1" ]; then
        fail "$2: exit code $RC, expected $1; stderr: $(head -c 400 "$TMP/$_name.err")"
    fi
}

# check_grep FILE PATTERN WHAT (fixed string)
check_grep() {
    CHECKS=$((CHECKS + 1))
    grep -qF -- "$2" "$1" || fail "$3: '$2' not in $(basename "$1"): $(head -c 400 "$1")"
}

# check_same FILE_A FILE_B WHAT
check_same() {
    CHECKS=$((CHECKS + 1))
    if ! cmp -s "$1" "$2"; then
        fail "$3: files differ"
        diff -u "$1" "$2" >&2 || true
    fi
}

# check_files DIR "LIST": DIR holds exactly the names in LIST (sorted, blank-separated).
check_files() {
    CHECKS=$((CHECKS + 1))
    _have=$(cd "$1" && ls -A | sort | tr '\n' ' ' | sed 's/ $//')
    [ "$_have" = "$2" ] || fail "$3: $1 holds '$_have', expected '$2'"
}

finish() {
    if [ "$FAILS" -ne 0 ]; then
        echo "$FAILS of $CHECKS checks failed" >&2
        exit 1
    fi
    echo "$CHECKS checks passed"
    exit 0
}
