#!/bin/sh
# Any value a result file can hold: int64 extremes (sums saturate instead of
# overflowing: undefined behaviour the ASan+UBSan build turns into a crash),
# NaN and +-Inf (shown as nan/inf, JSON null), control bytes in tags (one
# JSON escaping for show, export and diff). Through show (table, CSV, JSON),
# export (CSV, JSON) and diff (table, CSV, JSON).
# usage: extremes.sh SCOPE_LIKWID MK_RESULT
set -eu
SL=$1 MK=$2
case $SL in /*) ;; *) SL=$PWD/$SL ;; esac
case $MK in /*) ;; *) MK=$PWD/$MK ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
fails=0 checks=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
has() { checks=$((checks + 1)); grep -qF -- "$2" "$1" || fail "$3: '$2' not in $1: $(head -c 300 "$1")"; }

MAX=9223372036854775807 MIN=-9223372036854775808
"$MK" x.h5 >/dev/null <<SPEC || { echo "mk_result failed" >&2; exit 1; }
rank 0
x huge $MAX,$MAX $MAX,$MAX $MIN,1 $MAX,$MAX $MIN $MAX
x low $MIN,$MIN $MIN,-1 0,0 0,0 $MAX $MIN
m ctl%09tab%0dcr%0alf%01soh 1 100
l ctl%09tab%0dcr%0alf%01soh 1 G nan,inf 1,1 M=-inf,nan
SPEC

# run NAME ARGS: exit 0 and nothing on stderr but diff's summary line and
# its note on the capped samples (x's one sample of INT64_MAX calls)
run() {
    _n=$1
    shift
    checks=$((checks + 1))
    _rc=0
    "$SL" "$@" >"$_n.out" 2>"$_n.err" || _rc=$?
    [ "$_rc" -eq 0 ] || fail "$*: exit $_rc: $(head -c 600 "$_n.err")"
    checks=$((checks + 1))
    if grep -v -e '^scope-likwid: diff: pass: ' \
        -e '^scope-likwid: diff: warning: 1 timing row compared by mean, not median: per-call samples were capped' \
        "$_n.err" | grep -q .; then
        fail "$*: stderr: $(head -c 600 "$_n.err")"
    fi
}
run show show x.h5
run show_csv show x.h5 --csv
run show_json show x.h5 --json
run show_sum show x.h5 --threads sum
run export_csv export x.h5 --format csv
run export_json export x.h5 --format json
run diff diff x.h5 x.h5
run diff_csv diff x.h5 x.h5 --csv
run diff_json diff x.h5 x.h5 --json

# sums over threads saturate at the int64 limits
has show.out "| huge              |       2 |  $MAX |" "show: calls of huge saturate"
has show.out "| low               |       2 | $MIN |" "show: calls of low saturate"
has show_csv.out "0,timing,,,huge,,,total_ns,$MAX" "show --csv: total saturates"
has show_json.out "\"calls\":$MIN,\"total_ns\":$MIN" "show --json: low saturates"
has export_csv.out ",2,$MAX,$MAX,$MIN,$MAX,0" "export: huge saturates"
has export_json.out "\"timing_calls\":$MIN,\"timing_total_ns\":$MIN" "export --json: low saturates"
# a call sample whose end - start overflows: the difference saturates
has diff_csv.out "rank0,low,timing,,,time/call,ms,median,-9223372036854.775," "diff: end - start saturates"
# NaN and Inf as such in tables and CSV, null in JSON
has show.out "|                    nan |                    inf |" "show: nan, inf"
has show.out "| M           |                   -inf |" "show: -inf"
has show_csv.out ",M,-inf" "show --csv: -inf"
has export_csv.out ",nan," "export --csv: nan"
has show_json.out '"times":[null,null]' "show --json: nan/inf as null"
# one JSON escaping: \t \r \n short, other control bytes as \u00XX
esc='"ctl\ttab\rcr\nlf\u0001soh"'
has show_json.out "$esc" "show --json escaping"
has export_json.out "$esc" "export --json escaping"
has diff_json.out "$esc" "diff --json escaping"
# and every JSON output parses
for f in show_json export_json diff_json; do
    checks=$((checks + 1))
    /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f.out" ||
        fail "$f: not valid JSON"
done
if [ "$fails" -ne 0 ]; then
    echo "$fails of $checks checks failed" >&2
    exit 1
fi
echo "$checks checks passed"
