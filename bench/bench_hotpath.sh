#!/bin/sh
# What the shim adds to a likwid_markerStartRegion/StopRegion pair.
# usage: bench/bench_hotpath.sh [BUILD_DIR] [RUNS] [N]
#   BUILD_DIR: a configured and built meson build directory (default: build)
#   RUNS:      repetitions, with and without the shim alternating (default 7)
#   N:         pairs per thread per run (default 10000000)
# Prints, per repetition pair, ns/pair added by the shim (1 thread, and each
# of 2 threads), then median/min/max; the cost of two rdtsc, two rdtscp and
# two clock_gettime(CLOCK_MONOTONIC) from the same runs; instructions per
# pair added (callgrind, when valgrind is installed): the difference between
# N2 and N1 pairs with the shim minus the same without, over N2 - N1, so
# start-up and Close cancel out; allocations while the pairs run (after the
# tag's first use), which must be 0 for any N.
set -eu
BUILD=${1:-build}
RUNS=${2:-7}
N=${3:-10000000}
. "$(dirname "$0")/bench_lib.sh"
bench_hot
bench_tmp sl-hot

without() { "$HOT" "$@" 2>/dev/null; }
with() {
    rm -f "$TMP"/r*
    SCOPE_LIKWID_OUTPUT=$TMP/r.h5 SCOPE_LIKWID_QUIET=1 LD_PRELOAD=$SHIM "$HOT" "$@" 2>/dev/null
}
val() { awk -v k="$1" -v i="${2:-2}" '$1 == k { print $i }' "$3"; }

echo "shim hot path, $RUNS runs of $N pairs, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
: >"$TMP/add1"; : >"$TMP/add2"; : >"$TMP/base1"; : >"$TMP/tsc"; : >"$TMP/tscp"; : >"$TMP/clk"; : >"$TMP/allocs"
i=0
while [ "$i" -lt "$RUNS" ]; do
    without "$N" >"$TMP/o"
    with "$N" >"$TMP/w"
    b1=$(val pair_ns_1t 2 "$TMP/o"); w1=$(val pair_ns_1t 2 "$TMP/w")
    b2a=$(val pair_ns_2t 2 "$TMP/o"); b2b=$(val pair_ns_2t 3 "$TMP/o")
    w2a=$(val pair_ns_2t 2 "$TMP/w"); w2b=$(val pair_ns_2t 3 "$TMP/w")
    echo "$b1" >>"$TMP/base1"
    awk -v a="$w1" -v b="$b1" 'BEGIN { printf "%.2f\n", a - b }' >>"$TMP/add1"
    awk -v a="$w2a" -v b="$b2a" -v c="$w2b" -v d="$b2b" \
        'BEGIN { printf "%.2f\n%.2f\n", a - b, c - d }' >>"$TMP/add2"
    for f in o w; do
        val rdtsc2_ns 2 "$TMP/$f" >>"$TMP/tsc"
        val rdtscp2_ns 2 "$TMP/$f" >>"$TMP/tscp"
        val clock2_ns 2 "$TMP/$f" >>"$TMP/clk"
    done
    echo "$(val allocs_1t 2 "$TMP/w") $(val allocs_2t 2 "$TMP/w")" >>"$TMP/allocs"
    printf 'run %d: without %s ns/pair, with %s; 2 threads without %s %s, with %s %s\n' \
        "$((i + 1))" "$b1" "$w1" "$b2a" "$b2b" "$w2a" "$w2b"
    i=$((i + 1))
done
printf '%-34s %8s %8s %8s\n' "ns per pair (median min max)" med min max
printf '%-34s %8s %8s %8s\n' "without shim, 1 thread" $(bench_stats "$TMP/base1")
printf '%-34s %8s %8s %8s\n' "added by shim, 1 thread" $(bench_stats "$TMP/add1")
printf '%-34s %8s %8s %8s\n' "added by shim, 2 threads (each)" $(bench_stats "$TMP/add2")
printf '%-34s %8s %8s %8s\n' "two rdtsc" $(bench_stats "$TMP/tsc")
printf '%-34s %8s %8s %8s\n' "two rdtscp" $(bench_stats "$TMP/tscp")
printf '%-34s %8s %8s %8s\n' "two clock_gettime(MONOTONIC)" $(bench_stats "$TMP/clk")

# Allocations during the timed loops, with the shim: 0 at every N.
bad=$(awk '$1 != 0 || $2 != 0' "$TMP/allocs" | wc -l)
for n in 1000 100000; do
    with "$n" count >"$TMP/c"
    a=$(val allocs_1t 2 "$TMP/c")
    echo "allocations during $n pairs (shim, 1 thread): $a"
    [ "$a" = 0 ] || bad=$((bad + 1))
done
echo "allocations during the timed runs (1 and 2 threads): $(sort -u "$TMP/allocs" | tr '\n' ';')"

if command -v valgrind >/dev/null 2>&1; then
    N1=${CG_N1:-100000}
    N2=${CG_N2:-200000}
    ir() {  # total instructions of one callgrind run: ir with|without N
        rm -f "$TMP/cg.out"
        mode=$1; shift
        if [ "$mode" = with ]; then
            SCOPE_LIKWID_OUTPUT=$TMP/r.h5 SCOPE_LIKWID_QUIET=1 LD_PRELOAD=$SHIM \
                valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$HOT" "$@" count \
                >/dev/null 2>&1
            rm -f "$TMP"/r*
        else
            valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$HOT" "$@" count \
                >/dev/null 2>&1
        fi
        awk '/^(summary|totals):/ { print $2; exit }' "$TMP/cg.out"
    }
    w1=$(ir with "$N1"); w2=$(ir with "$N2"); o1=$(ir without "$N1"); o2=$(ir without "$N2")
    awk -v w1="$w1" -v w2="$w2" -v o1="$o1" -v o2="$o2" -v n1="$N1" -v n2="$N2" 'BEGIN {
        printf "instructions per pair (callgrind, %d vs %d pairs): without %.1f, with %.1f, added %.1f\n",
            n1, n2, (o2 - o1) / (n2 - n1), (w2 - w1) / (n2 - n1), ((w2 - w1) - (o2 - o1)) / (n2 - n1) }'
else
    echo "valgrind not installed: no instruction counts"
fi
[ "$bad" = 0 ] || { echo "bench: the shim allocated after the tag's first use" >&2; exit 1; }
