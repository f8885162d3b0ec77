# Sourced by the diff tests (diff.sh, gate.sh), after cli/lib.sh's helpers:
# arguments SCOPE_LIKWID SAMPLES_DIR MK_RESULT. Gives $HERE (this folder),
# $MK, mk OUT.h5 <<SPEC (mk_result), check_line, check_last_err.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../cli/lib.sh"
MK=$3
case $MK in /*) ;; *) MK=$START/$MK ;; esac

mk() { # mk OUT.h5 <<SPEC
    "$MK" "$1" >/dev/null || fail "mk_result $1"
}

# check_line FILE LINE WHAT: FILE has exactly this line
check_line() {
    CHECKS=$((CHECKS + 1))
    grep -qxF -- "$2" "$1" || fail "$3: line '$2' not in $(basename "$1"): $(cat "$1")"
}

# check_last_err WANT WHAT: the last stderr line of the last sl call
check_last_err() {
    CHECKS=$((CHECKS + 1))
    _last=$(tail -n 1 "$TMP/$_name.err")
    [ "$_last" = "$1" ] || fail "$2: last stderr line '$_last', expected '$1'"
}
