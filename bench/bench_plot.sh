#!/bin/sh
# Times `scope-likwid plot` on a synthetic result file: R regions run by T
# threads, C recorded calls per region and thread (tests/plot/mk_rescue.py
# writes a rescue file, `scope-likwid convert` makes it a result file with
# timing, per-call samples and full_api counters: 8 events, 4 metrics).
# usage: bench/bench_plot.sh [BUILD_DIR] [RUNS]
#   BUILD_DIR: a configured and built meson build directory (default: build)
#   RUNS:      runs per output format (default 7)
# SIZE=RxTxC sets the file (default 1000x8x10: 80000 calls, of which the
# report draws 20000). SL=/path/to/scope-likwid times another binary.
# CALLGRIND=1 adds one callgrind run and splits its instructions between
# reading the file (sl_h5_read) and building the report (sl_plot_report),
# which does not depend on the machine's load.
# Prints per format (html, svg): wall time median/min/max, CPU time
# (user+sys, median), peak RSS (median), output size; then the targets
# (< 1 s, < 5 MB).
set -eu
BUILD=${1:-build}
RUNS=${2:-7}
SIZE=${SIZE:-1000x8x10}
SL=${SL:-$BUILD/tools/scope-likwid}
CALLGRIND=${CALLGRIND:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
GEN=$HERE/../tests/plot/mk_rescue.py
. "$HERE/bench_lib.sh"
bench_need bench -x "$SL"
bench_need_time
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
bench_tmp sl-bench-plot

R=${SIZE%%x*}
rest=${SIZE#*x}
T=${rest%%x*}
C=${rest#*x}
"$PY" "$GEN" "$TMP/in.rescue" "$R" "$T" "$C" 8 4
"$SL" convert "$TMP/in.rescue" -o "$TMP/in.h5" >/dev/null
echo "scope-likwid plot ($SL), $RUNS runs per format, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%Y-%m-%d)"
echo "input: $R regions x $T threads x $C calls ($((R * T * C)) calls), 8 events, 4 metrics;" \
    "$(awk -v b="$(wc -c <"$TMP/in.h5")" 'BEGIN { printf "%.1f", b / 1e6 }') MB result file"
printf '%-6s %8s %8s %8s %8s %8s %8s\n' format "med ms" "min ms" "max ms" "cpu ms" "RSS MB" "out MB"
for fmt in html svg; do
    : >"$TMP/times"
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        bench_timed "$SL" plot "$TMP/in.h5" -o "$TMP/out.$fmt"
        i=$((i + 1))
    done
    bench_medians | awk -v f="$fmt" -v out="$(wc -c <"$TMP/out.$fmt")" '
        {
            printf "%-6s %8.1f %8.1f %8.1f %8.0f %8.1f %8.2f\n", f, $1 / 1000, $2 / 1000,
                $3 / 1000, $4, $5 / 1024, out / 1e6
            if ($2 < 1e6 && out < 5e6) print "       targets (< 1 s, < 5 MB): met (min wall)"
            else print "       targets (< 1 s, < 5 MB): NOT met"
        }'
done
if [ "$CALLGRIND" = 1 ]; then
    command -v valgrind >/dev/null || { echo "bench: valgrind missing" >&2; exit 1; }
    valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$SL" plot "$TMP/in.h5" \
        -o "$TMP/cg.html" >/dev/null 2>"$TMP/cg.log"
    total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$TMP/cg.log")
    callgrind_annotate --inclusive=yes "$TMP/cg.out" 2>/dev/null >"$TMP/cg.txt"
    for fn in sl_h5_read sl_plot_report; do
        ir=$(grep -E "[[:space:]]$fn[[:space:]]|:$fn[[:space:]]" "$TMP/cg.txt" | head -1 | awk '{ gsub(",", "", $1); print $1 }')
        awk -v fn="$fn" -v ir="${ir:-0}" -v t="$total" \
            'BEGIN { printf "instructions %-15s %6.0f M of %.0f M (%.0f%%)\n", fn, ir / 1e6, t / 1e6, 100 * ir / t }'
    done
fi
