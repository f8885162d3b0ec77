#!/bin/sh
# Times `scope-likwid merge` of one job's rank files into one file.
# usage: bench/bench_merge.sh [BUILD_DIR] [RUNS]
#   BUILD_DIR: a configured and built meson build directory (default: build)
#   RUNS:      merges timed (default 7)
# RANKS (default 64), THREADS (8), REGIONS (100), EVENTS (8) set the job:
# RANKS files, each made by bench/gen_markerfile THREADS REGIONS EVENTS and
# `scope-likwid convert --rank R`. SL=/path/to/scope-likwid times another
# binary on the same files. Prints the inputs' total size, then wall time
# median/min/max (date +%s%N), CPU time (user+sys, median) and peak RSS
# (median) of the merges, and the merged file's size. Target: < 1 s.
set -eu
BUILD=${1:-build}
RUNS=${2:-7}
RANKS=${RANKS:-64}
THREADS=${THREADS:-8}
REGIONS=${REGIONS:-100}
EVENTS=${EVENTS:-8}
SL=${SL:-$BUILD/tools/scope-likwid}
GEN=$BUILD/bench/gen_markerfile
. "$(dirname "$0")/bench_lib.sh"
bench_need bench -x "$SL" "$GEN"
bench_need_time
bench_tmp sl-bench

"$GEN" "$THREADS" "$REGIONS" "$EVENTS" "$TMP/marker.txt"
r=0
while [ "$r" -lt "$RANKS" ]; do
    "$SL" convert "$TMP/marker.txt" --rank "$r" -o "$TMP/rank$r.h5" >/dev/null
    r=$((r + 1))
done
in_bytes=$(cat "$TMP"/rank*.h5 | wc -c)
echo "scope-likwid merge ($SL), $RANKS files of $REGIONS regions x $THREADS threads x $EVENTS events" \
     "($(awk -v b="$in_bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB in all), $RUNS runs," \
     "$(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%Y-%m-%d)"
: >"$TMP/times"
i=0
while [ "$i" -lt "$RUNS" ]; do
    rm -f "$TMP/job.h5"
    bench_timed "$SL" merge -o "$TMP/job.h5" "$TMP"/rank*.h5
    i=$((i + 1))
done
out_bytes=$(wc -c <"$TMP/job.h5")
# median of column $1 (mawk has no asort: sort each column on its own)
median() {
    awk -v c="$1" '{ print (c == 3) ? ($3 + $4) * 1000 : $c }' "$TMP/times" | sort -n |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
wall_min=$(sort -n "$TMP/times" | head -n 1 | cut -d' ' -f1)
wall_max=$(sort -n "$TMP/times" | tail -n 1 | cut -d' ' -f1)
printf '%8s %8s %8s %8s %8s %9s\n' "med ms" "min ms" "max ms" "cpu ms" "RSS MB" "out MB"
awk -v med="$(median 1)" -v lo="$wall_min" -v hi="$wall_max" -v cpu="$(median 3)" \
    -v rss="$(median 2)" -v out="$out_bytes" 'BEGIN {
    printf "%8.1f %8.1f %8.1f %8.0f %8.1f %9.1f\n", med / 1000, lo / 1000, hi / 1000, cpu,
           rss / 1024, out / 1e6 }'
