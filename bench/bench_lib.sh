# Sourced by the bench/bench_*.sh scripts (after BUILD is set): what they
# share. Not run on its own.

# bench_need VOICE TEST FILE...: exits 1 with a message, spoken as VOICE,
# naming the first FILE that fails `test TEST` (-e, -x) as not built.
bench_need() {
    _voice=$1
    _test=$2
    shift 2
    for _p in "$@"; do
        test "$_test" "$_p" ||
            { echo "$_voice: $_p missing: build first (meson setup $BUILD && ninja -C $BUILD)" >&2; exit 1; }
    done
}

# bench_need_time: TIME=/usr/bin/time, or exits 1 when it is missing.
bench_need_time() {
    TIME=/usr/bin/time
    [ -x "$TIME" ] || { echo "bench: $TIME missing: apt-get install time (scripts/install-deps.sh)" >&2; exit 1; }
}

# bench_tmp NAME: TMP=a new private directory, removed when the script ends.
bench_tmp() {
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    trap 'rm -rf "$TMP"' EXIT
    trap 'exit 130' INT TERM
}

# bench_hot: HOT=bench/hotpath and SHIM=the shim (an absolute path), both
# built, or exits 1. EXTRA=more files that must exist.
bench_hot() {
    HOT=$BUILD/bench/hotpath
    SHIM=$BUILD/shim/libscope_likwid.so
    bench_need bench -e "$HOT" "$SHIM" "$@"
    SHIM=$(realpath "$SHIM")
}

# bench_stats FILE: "median min max" of the numbers in FILE, one decimal.
bench_stats() {
    sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.1f %.1f %.1f", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

# bench_timed CMD...: runs CMD, output discarded, and appends a line
# "WALL_US PEAK_RSS_KB USER_S SYS_S" to $TMP/times (TIME from
# bench_need_time). Wall time from date (ns): time(1)'s %e has only 10 ms.
bench_timed() {
    _t0=$(date +%s%N)
    "$TIME" -f '%M %U %S' -o "$TMP/t1" "$@" >/dev/null
    _t1=$(date +%s%N)
    echo "$(( (_t1 - _t0) / 1000 )) $(cat "$TMP/t1")" >>"$TMP/times"
}

# bench_medians: "MED_WALL_US MIN_WALL_US MAX_WALL_US MED_CPU_MS MED_RSS_KB"
# of the lines bench_timed wrote (the wall median of an even count is the
# mean of the middle two).
bench_medians() {
    sort -n "$TMP/times" | awk '
        { wall[NR] = $1; rss[NR] = $2; cpu[NR] = ($3 + $4) * 1000 }
        END {
            n = NR
            med = (n % 2) ? wall[(n + 1) / 2] : (wall[n / 2] + wall[n / 2 + 1]) / 2
            # medians of RSS and CPU time: sort those columns separately
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) {
                if (rss[j] < rss[i]) { t = rss[i]; rss[i] = rss[j]; rss[j] = t }
                if (cpu[j] < cpu[i]) { t = cpu[i]; cpu[i] = cpu[j]; cpu[j] = t }
            }
            printf "%.3f %.3f %.3f %.3f %.3f\n", med, wall[1], wall[n], cpu[int((n + 1) / 2)],
                rss[int((n + 1) / 2)]
        }'
}
