#!/bin/sh
# --help, --version and usage errors of every subcommand.
. "$(dirname "$0")/lib.sh"

sl help --help
check_rc 0 "--help"
check_grep "$TMP/help.out" "usage: scope-likwid COMMAND" "--help text"
for c in convert show export diff merge plot run; do
    sl "help_$c" "$c" --help
    check_rc 0 "$c --help"
    check_grep "$TMP/help_$c.out" "usage: scope-likwid $c" "$c --help text"
done
sl version --version
check_rc 0 "--version"
CHECKS=$((CHECKS + 1))
grep -qE '^scope-likwid [0-9]+\.[0-9]+\.[0-9]+$' "$TMP/version.out" ||
    fail "--version prints '$(cat "$TMP/version.out")'"

# usage errors: exit 2, one line "scope-likwid: [CMD: ]what" plus the hint
usage_case() {
    _what=$1
    shift
    sl usage "$@"
    check_rc 2 "$_what"
    case ${1:-} in
    convert|show|export|diff|merge|plot|run) _pre="scope-likwid: $1: " _hint="scope-likwid $1 --help" ;;
    *) _pre="scope-likwid: " _hint="scope-likwid --help" ;;
    esac
    CHECKS=$((CHECKS + 1))
    case $(cat "$TMP/usage.err") in "$_pre"*) ;; *) fail "$_what: not prefixed '$_pre'" ;; esac
    check_grep "$TMP/usage.err" "try '$_hint'" "$_what: hint"
    CHECKS=$((CHECKS + 1))
    [ "$(wc -l <"$TMP/usage.err")" -eq 1 ] || fail "$_what: more than one line: $(cat "$TMP/usage.err")"
    [ ! -s "$TMP/usage.out" ] || fail "$_what: wrote to stdout"
}
usage_case "no command"
usage_case "unknown command" frobnicate
usage_case "unknown top option" --frob
usage_case "convert: no input" convert
usage_case "convert: unknown option" convert "$SAMPLES/v52_one_group.txt" --frob
usage_case "convert: -o without value" convert "$SAMPLES/v52_one_group.txt" -o
usage_case "convert: --rank without value" convert "$SAMPLES/v52_one_group.txt" --rank
usage_case "convert: --rank not a number" convert "$SAMPLES/v52_one_group.txt" --rank x1
usage_case "convert: --rank negative" convert "$SAMPLES/v52_one_group.txt" --rank -3
usage_case "convert: --into without value" convert "$SAMPLES/v52_one_group.txt" --into
usage_case "convert: two inputs" convert a.txt b.txt
usage_case "convert: -o and --into" convert a.txt -o x.h5 --into y.h5
usage_case "show: no file" show
usage_case "show: unknown option" show x.h5 --xml
usage_case "show: csv and json" show x.h5 --csv --json
usage_case "show: two files" show x.h5 y.h5
usage_case "run: nothing" run
usage_case "run: no --" run -g FLOPS_DP ./app
usage_case "run: nothing after --" run -g FLOPS_DP --
# the usage errors above (run in $TMP) must not have created anything
CHECKS=$((CHECKS + 1))
if ls "$TMP"/*.h5 >/dev/null 2>&1; then fail "a usage error wrote an .h5 file"; fi
finish
