#!/bin/sh
# One voice for the CLI: every subcommand answers --help (exit 0, "usage:
# scope-likwid CMD"); usage errors are one line "scope-likwid: CMD: ..." with
# exit 2; bad input is one line "scope-likwid: CMD: FILE: what is wrong" with
# exit 1 (diff: 2) (a directory called a directory, an HDF5 file that is not ours
# called that); --print-shim-path. Third argument: mk_other_h5; fourth: the
# shim.
. "$(dirname "$0")/lib.sh"
MK=$3
SHIM=$4
case $MK in /*) ;; *) MK=$START/$MK ;; esac
case $SHIM in /*) ;; *) SHIM=$START/$SHIM ;; esac
unset SCOPE_LIKWID_SHIM || true

# one_line NAME PREFIX WHAT: stderr of the last call is one line starting PREFIX
one_line() {
    CHECKS=$((CHECKS + 1))
    [ "$(wc -l <"$TMP/$1.err")" -eq 1 ] || fail "$3: not one line: $(cat "$TMP/$1.err")"
    CHECKS=$((CHECKS + 1))
    case $(cat "$TMP/$1.err") in
    "$2"*) ;;
    *) fail "$3: '$(cat "$TMP/$1.err")' does not start with '$2'" ;;
    esac
}

for c in convert show export diff merge plot run recover; do
    for h in --help -h; do
        sl "help_$c" "$c" $h
        check_rc 0 "$c $h"
        check_grep "$TMP/help_$c.out" "usage: scope-likwid $c" "$c $h"
        check_grep "$TMP/help_$c.out" "xit" "$c $h: exit statuses documented"
        CHECKS=$((CHECKS + 1))
        [ ! -s "$TMP/help_$c.err" ] || fail "$c $h: wrote to stderr"
    done
done
# `help CMD` is `CMD --help`, byte for byte; `help NOSUCH` a usage error.
for c in convert show export diff merge plot run recover; do
    sl "helpcmd_$c" help "$c"
    check_rc 0 "help $c"
    CHECKS=$((CHECKS + 1))
    cmp -s "$TMP/helpcmd_$c.out" "$TMP/help_$c.out" || fail "help $c: output differs from $c -h"
done
sl helpcmd_nosuch help nosuch
check_rc 2 "help nosuch"
one_line helpcmd_nosuch "scope-likwid: unknown command 'nosuch'" "help nosuch"
# The top-level help says every kind of input convert reads.
sl help_top --help
check_grep "$TMP/help_top.out" "marker file, scope-likwid rescue file or result file" "--help: convert's inputs"
# run --help names the result file plainly (no "....1.h5")
CHECKS=$((CHECKS + 1))
if grep -q '\.\.\.\.' "$TMP/help_run.out"; then fail "run --help: garbled file name"; fi
check_grep "$TMP/help_run.out" "126" "run --help: 126 documented"

# usage errors: exit 2, one line prefixed with the subcommand
usage() {
    _c=$2
    _w=$1
    shift
    sl usage "$@"
    check_rc 2 "$_w"
    one_line usage "scope-likwid: $_c: " "$_w"
    check_grep "$TMP/usage.err" "try 'scope-likwid $_c --help'" "$_w: hint"
}
usage "export: unknown option" export x.h5 --frob
usage "export: --format missing value" export x.h5 --format
usage "export: bad format" export x.h5 --format xml
usage "export: two files" export x.h5 y.h5
usage "diff: one file" diff x.h5
usage "diff: bad threshold" diff x.h5 y.h5 --threshold abc
usage "diff: unknown option" diff x.h5 y.h5 --frob
usage "merge: no -o" merge a.h5
usage "merge: no inputs" merge -o out.h5
usage "merge: -o twice" merge -o a.h5 -o b.h5 c.h5
usage "plot: --max-calls bad" plot x.h5 --max-calls -1
usage "plot: bad -o" plot x.h5 -o out.png
usage "show: --threads bad" show x.h5 --threads median
usage "show: --rank bad" show x.h5 --rank x
usage "show: flag with a value" show x.h5 --csv=yes
usage "recover: unknown option" recover --frob
# the same spelling everywhere: --output for -o
for c in export merge plot convert; do
    sl "out_$c" "$c" --output
    check_rc 2 "$c --output without a value"
    check_grep "$TMP/out_$c.err" "option '--output' needs a value" "$c --output spelled alike"
done

# --csv and --json spelled as in show and diff
"$SL" convert "$SAMPLES/v52_one_group.txt" -o e.h5 >/dev/null
sl exp_fmt export e.h5 --format csv
sl exp_csv export e.h5 --csv
check_rc 0 "export --csv"
check_same "$TMP/exp_fmt.out" "$TMP/exp_csv.out" "export --csv = --format csv"
usage "export: --csv and --json" export e.h5 --csv --json

# export -o without a format it can tell
"$SL" convert "$SAMPLES/v52_one_group.txt" -o r.h5 >/dev/null
sl noext export r.h5 -o x.txt
check_rc 2 "export -o x.txt"
one_line noext "scope-likwid: export: x.txt: cannot tell the format from the extension" \
    "export -o x.txt"
CHECKS=$((CHECKS + 1))
[ ! -e x.txt ] || fail "export -o x.txt: wrote x.txt"

# bad input: exit 1, one line naming the file
mkdir adir
printf 'plain text\n' >plain.h5
head -c 2000 r.h5 >cut.h5
head -c 20 r.h5 >cut20.h5
"$MK" other.h5 || fail "mk_other_h5"
for c in show export plot; do
    extra=
    [ $c = export ] && extra="--format csv"
    sl "dir_$c" $c adir $extra
    check_rc 1 "$c on a directory"
    one_line "dir_$c" "scope-likwid: $c: adir: a directory" "$c on a directory"
    sl "plain_$c" $c plain.h5 $extra
    check_rc 1 "$c on a text file"
    one_line "plain_$c" "scope-likwid: $c: plain.h5: not an HDF5 file" "$c on a text file"
    sl "cut_$c" $c cut.h5 $extra
    check_rc 1 "$c on a truncated result file"
    one_line "cut_$c" "scope-likwid: $c: cut.h5: cut short (2000 of the $(wc -c <r.h5) bytes its superblock records)" \
        "$c on a truncated result file"
    sl "cut20_$c" $c cut20.h5 $extra
    check_rc 1 "$c on a result file cut within its superblock"
    one_line "cut20_$c" "scope-likwid: $c: cut20.h5: damaged: cut short within the superblock" \
        "$c on a result file cut within its superblock"
    sl "other_$c" $c other.h5 $extra
    check_rc 1 "$c on a foreign HDF5 file"
    one_line "other_$c" "scope-likwid: $c: other.h5: an HDF5 file, but not a scope-likwid result file" \
        "$c on a foreign HDF5 file"
done
sl dir_convert convert adir
check_rc 1 "convert of a directory"
one_line dir_convert "scope-likwid: convert: adir: a directory: expected a LIKWID marker file" \
    "convert of a directory"
sl missing_show show missing.h5
check_rc 1 "show of a missing file"
one_line missing_show "scope-likwid: show: missing.h5: cannot open: No such file or directory" \
    "show of a missing file"
sl dir_diff diff adir r.h5
check_rc 2 "diff on a directory (no comparison: 2, as distinct from a regression)"
check_grep "$TMP/dir_diff.err" "scope-likwid: diff: adir: a directory" "diff on a directory"
sl cut_merge merge -o m.h5 r.h5 cut.h5
check_rc 1 "merge of a truncated result file"
check_grep "$TMP/cut_merge.err" "scope-likwid: merge: cut.h5: cut short (2000 of the" "merge of a truncated result file"
sl other_merge merge -o m.h5 r.h5 other.h5
check_rc 1 "merge of a foreign HDF5 file"
check_grep "$TMP/other_merge.err" "scope-likwid: merge: other.h5" "merge of a foreign HDF5 file"
sl nomatch show r.h5 --group NOPE
check_rc 1 "show --group NOPE"
one_line nomatch "scope-likwid: show: r.h5: no group 'NOPE': the file has" "show --group NOPE"

# --print-shim-path: the shim run would preload, or exit 1 saying why
SCOPE_LIKWID_SHIM=$SHIM
export SCOPE_LIKWID_SHIM
sl shim --print-shim-path
check_rc 0 "--print-shim-path"
CHECKS=$((CHECKS + 1))
[ "$(cat "$TMP/shim.out")" = "$(readlink -f "$SHIM")" ] ||
    fail "--print-shim-path printed '$(cat "$TMP/shim.out")', expected $(readlink -f "$SHIM")"
SCOPE_LIKWID_SHIM=$TMP/no-shim.so
sl noshim --print-shim-path
check_rc 1 "--print-shim-path without a shim"
one_line noshim "scope-likwid: cannot find libscope_likwid.so (looked at $TMP/no-shim.so" \
    "--print-shim-path without a shim"
CHECKS=$((CHECKS + 1))
[ ! -s "$TMP/noshim.out" ] || fail "--print-shim-path without a shim: printed a path"
finish
