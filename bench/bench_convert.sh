#!/bin/sh
# Times `scope-likwid convert` on generated marker files of growing size.
# usage: bench/bench_convert.sh [BUILD_DIR] [RUNS]
#   BUILD_DIR: a configured and built meson build directory (default: build)
#   RUNS:      runs per size (default 7)
# Sizes (threads x regions x events) can be set with SIZES="32x250x8 ...".
# SL=/path/to/scope-likwid times another binary (e.g. a copy of an older
# build) on the same files; CALLGRIND=1 adds one run per size under
# valgrind's callgrind and prints its instruction count, which does not
# depend on the machine's load.
# Prints the fixed cost (a header-only file), then per size: file size,
# wall time median/min/max, CPU time (user+sys, median), peak RSS (median,
# and as a multiple of the file size), and median wall time per value
# (thread x region x event), which stays flat when convert is linear.
# Other processes on the machine inflate wall times: compare min and cpu.
set -eu
BUILD=${1:-build}
RUNS=${2:-7}
SIZES=${SIZES:-"32x250x8 64x500x8 128x1000x8 128x1000x16"}
SL=${SL:-$BUILD/tools/scope-likwid}
CALLGRIND=${CALLGRIND:-0}
GEN=$BUILD/bench/gen_markerfile
. "$(dirname "$0")/bench_lib.sh"
bench_need bench -x "$SL" "$GEN"
if [ "$CALLGRIND" = 1 ] && ! command -v valgrind >/dev/null; then
    echo "bench: valgrind missing: apt-get install valgrind, or leave CALLGRIND unset" >&2
    exit 1
fi
bench_need_time
bench_tmp sl-bench

echo "scope-likwid convert ($SL), $RUNS runs per size, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%Y-%m-%d)"
# median wall time (us) of RUNS converts of $1
median_us() {
    : >"$TMP/times0"
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        rm -f "$TMP/out.h5"
        t0=$(date +%s%N)
        "$SL" convert "$1" -o "$TMP/out.h5" >/dev/null
        t1=$(date +%s%N)
        echo "$(( (t1 - t0) / 1000 ))" >>"$TMP/times0"
        i=$((i + 1))
    done
    sort -n "$TMP/times0" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
printf '1 0 1\n' >"$TMP/empty.txt"
echo "fixed cost (a header-only file): $(median_us "$TMP/empty.txt") us median"
printf '%-13s %8s %8s %8s %8s %8s %8s %6s %9s\n' size "file MB" "med ms" "min ms" "max ms" "cpu ms" "RSS MB" "xfile" "ns/value"
for s in $SIZES; do
    T=${s%%x*}
    rest=${s#*x}
    R=${rest%%x*}
    E=${rest#*x}
    in=$TMP/m_$s.txt
    "$GEN" "$T" "$R" "$E" "$in"
    bytes=$(wc -c <"$in")
    : >"$TMP/times"
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        rm -f "$TMP/out.h5"
        # the page cache holds the input after the first run, as it would
        # right after LIKWID wrote it
        bench_timed "$SL" convert "$in" -o "$TMP/out.h5"
        i=$((i + 1))
    done
    bench_medians | awk -v s="$s" -v bytes="$bytes" -v T="$T" -v R="$R" -v E="$E" '
        {
            med = $1; mrss = $5; mcpu = $4
            # wall in microseconds; CPU time (user+sys) has 10 ms resolution
            printf "%-13s %8.1f %8.1f %8.1f %8.1f %8.0f %8.1f %6.2f %9.1f\n", s, bytes / 1e6, med / 1000,
                $2 / 1000, $3 / 1000, mcpu, mrss / 1024, mrss * 1024 / bytes, med * 1000 / (T * R * E)
        }'
    if [ "$CALLGRIND" = 1 ]; then
        rm -f "$TMP/out.h5"
        valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$SL" convert "$in" -o "$TMP/out.h5" \
            >/dev/null 2>"$TMP/cg.log"
        ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$TMP/cg.log")
        awk -v s="$s" -v ir="$ir" -v v="$((T * R * E))" -v r="$R" \
            'BEGIN { printf "%-13s instructions %.0f M (%.0f per value, %.0f k per region)\n", s, ir / 1e6, ir / v, ir / r / 1e3 }'
    fi
done
