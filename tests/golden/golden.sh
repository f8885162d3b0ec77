#!/bin/sh
# The views' output, byte for byte, on a fixed corpus: show (table, --csv,
# --json, filtered, aggregated), export (csv, json), diff (table, csv, json).
# Kept while the house plan moves code: a move that changes one byte of a
# view fails here. Expected outputs are in expected/; regenerate them only for
# a deliberate change (and say which in the commit):
#   SL_GOLDEN_UPDATE=1 meson test -C build golden
# usage: golden.sh SCOPE_LIKWID SAMPLES_DIR MK_RESULT SAMPLE_WRITER RESCUE_BODY
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
CLI=$(abs "$1") SAMPLES=$(abs "$2") MK=$(abs "$3") WRITER=$(abs "$4") BODY=$(abs "$5")
EXP=$(cd "$(dirname "$0")" && pwd)/expected
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1

die() { echo "golden: $*" >&2; exit 1; }

# --- the corpus: every file is built from fixed inputs, so its views are fixed
# (converted from a copy: the input's path is in likwid_status, and the
# expected outputs must not depend on where the sources are checked out)
for s in v52_one_group v52_two_groups v55_one_group master_one_group; do
    cp "$SAMPLES/$s.txt" . || die "copy $s"
    "$CLI" convert "$s.txt" -o "$s.h5" >/dev/null 2>&1 || die "convert $s"
done
{ cat "$BODY"; echo "end $(wc -l <"$BODY")"; } >rescue.wire
"$CLI" convert rescue.wire -o rescue.h5 >/dev/null 2>&1 || die "convert rescue"
"$WRITER" fixture.h5 >/dev/null 2>&1 || die "sample writer"
"$MK" base.h5 >/dev/null <<'SPEC' || die "mk base"
rank 0
t solve 1000000 1000000 1000000 1200000
t io 500000 500000
m setup 3 3000000
l solve 1 FLOPS_DP 0.5,0.6 10,10 DP=1.5,2.5
rank 1
t solve 900000 1100000
SPEC
"$MK" new.h5 >/dev/null <<'SPEC' || die "mk new"
rank 0
t solve 1500000 1500000 1500000 1600000
t io 400000 400000
m setup 3 3100000
t fresh 10 20
l solve 1 FLOPS_DP 0.7,0.8 10,10 DP=1.0,2.0
rank 2
t solve 900000 1100000
SPEC
"$CLI" merge -o merged.h5 base.h5 new.h5 >/dev/null 2>&1 || die "merge"

# --- the views
n=0
bad=0
# run NAME CMD...: stdout, stderr and exit status of CMD compared with expected/NAME
run() {
    name=$1
    shift
    "$@" >"$name.out" 2>"$name.err"
    echo "exit $?" >>"$name.err"
    n=$((n + 1))
    for k in out err; do
        if [ "${SL_GOLDEN_UPDATE:-0}" = 1 ]; then
            cp "$name.$k" "$EXP/$name.$k"
        elif ! cmp -s "$name.$k" "$EXP/$name.$k"; then
            echo "golden: $name.$k differs from expected/$name.$k ($*):"
            diff "$EXP/$name.$k" "$name.$k" | head -n 20
            bad=$((bad + 1))
        fi
    done
}
mkdir -p "$EXP"
for f in v52_one_group v52_two_groups v55_one_group master_one_group rescue fixture base merged; do
    run "show-$f" "$CLI" show "$f.h5"
    run "show-csv-$f" "$CLI" show "$f.h5" --csv
    run "show-json-$f" "$CLI" show "$f.h5" --json
    run "export-csv-$f" "$CLI" export "$f.h5" --format csv
    run "export-json-$f" "$CLI" export "$f.h5" --format json
done
for mode in sum mean max; do
    run "show-threads-$mode" "$CLI" show v52_two_groups.h5 --threads "$mode"
    run "show-threads-csv-$mode" "$CLI" show rescue.h5 --threads "$mode" --csv
done
run show-filter-region "$CLI" show merged.h5 --region 's*' --rank 0
run show-filter-metric "$CLI" show rescue.h5 --metric "runtime [s]" --json
run show-filter-nomatch "$CLI" show base.h5 --group NOPE
run show-summary "$CLI" show --summary merged.h5 rescue.h5 v52_two_groups.h5
run show-summary-csv "$CLI" show --summary --csv merged.h5 rescue.h5 v52_two_groups.h5
run show-summary-filtered "$CLI" show --summary --metric CPI --region 's*' merged.h5 rescue.h5
run show-summary-nomatch "$CLI" show --summary --metric NOPE merged.h5 rescue.h5
run show-summary-missing "$CLI" show --summary merged.h5 nonexistent.h5
run show-summary-threads "$CLI" show --summary --threads sum merged.h5
run show-two-files "$CLI" show merged.h5 rescue.h5
run diff "$CLI" diff base.h5 new.h5 --metric DP
run diff-csv "$CLI" diff base.h5 new.h5 --csv --threshold 5%
run diff-json "$CLI" diff base.h5 new.h5 --json
run diff-same "$CLI" diff base.h5 base.h5
echo "golden: $n views compared, $bad differ"
[ "$bad" = 0 ]
