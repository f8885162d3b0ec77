#!/bin/sh
# Every benchmark, one table: figure, value (median [min..max] of the runs),
# target, pass/fail. The markdown table goes to stdout (docs/PERFORMANCE.md
# is made from it); each benchmark's own output goes to $LOG (default
# ./bench-run-all.log).
# usage: [DOC=docs/PERFORMANCE.md] [PREV=DIR] bench/run-all.sh [BUILD_DIR]
#   BUILD_DIR: a configured and built meson build directory with tests
#              enabled (the simulated LIKWID) (default: build)
#   PREV:      the previous tree's build (bench/build-prev.sh) for the
#              ratios to the previous show (bench/bench_floors.sh; BIG=,
#              BIGRUNS=, CALLGRIND= are passed on to it)
# Repetitions are kept small so the whole run stays under 5 minutes on a
# 2-CPU machine: RUNS (default 5) for timed figures, N (default 10000000)
# pairs for the hot path. Needs /usr/bin/time and valgrind.
set -eu
BUILD=${1:-build}
RUNS=${RUNS:-5}
N=${N:-10000000}
LOG=${LOG:-bench-run-all.log}
HERE=$(cd "$(dirname "$0")" && pwd)
SHIM=$BUILD/shim/libscope_likwid.so
REG=$BUILD/bench/regions
SIM=$BUILD/tests/simlikwid/sim-perfctr
for p in "$SHIM" "$REG" "$SIM" "$BUILD/bench/hotpath" "$BUILD/tools/scope-likwid"; do
    [ -e "$p" ] || { echo "run-all: $p missing: build first (meson setup $BUILD && ninja -C $BUILD)" >&2; exit 1; }
done
for c in /usr/bin/time valgrind; do
    command -v "$c" >/dev/null || { echo "run-all: $c missing (apt-get install time valgrind)" >&2; exit 1; }
done
SHIM=$(realpath "$SHIM")
PY=/usr/bin/python3
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sl-all.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
: >"$LOG"
T0=$(date +%s)
LOAD0=$(cut -d' ' -f1 /proc/loadavg)

rows=$TMP/rows
: >"$rows"
# row FIGURE VALUE TARGET OK(1/0/-)
row() {
    case $4 in 1) v=pass ;; 0) v=FAIL ;; *) v=$4 ;; esac
    printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$v" >>"$rows"
}
# median min max of the numbers in file $1, as "med [min..max]"
mmm() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.1f [%.1f..%.1f]", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
med() { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? 1 : 0 }'; }
# tgt MEDIAN MIN LIMIT: pass when the median is within the limit; when only
# the fastest run is, say so (the machine's load is what differs)
tgt() { awk -v m="$1" -v lo="$2" -v t="$3" 'BEGIN { print (m <= t) ? 1 : (lo <= t) ? "FAIL (min passes)" : 0 }'; }
# field K of the line starting with "$1" in file $2, counted after the label
after() { grep -F "$1" "$2" | head -1 | sed "s/.*$1//" | awk -v k="$3" '{ print $k }'; }
section() { echo "== $1 ($(($(date +%s) - T0)) s, load $(cut -d' ' -f1 /proc/loadavg))" >>"$LOG"; }

# ---- 1. hot path ----
section hotpath
sh "$HERE/bench_hotpath.sh" "$BUILD" "$RUNS" "$N" >"$TMP/hot" 2>&1 || { cat "$TMP/hot" >>"$LOG"; row "hot path" "bench_hotpath.sh failed" "" 0; }
cat "$TMP/hot" >>"$LOG"
h1=$(after "added by shim, 1 thread" "$TMP/hot" 1); h1lo=$(after "added by shim, 1 thread" "$TMP/hot" 2); h1hi=$(after "added by shim, 1 thread" "$TMP/hot" 3)
h2=$(after "added by shim, 2 threads (each)" "$TMP/hot" 1)
b1=$(after "without shim, 1 thread" "$TMP/hot" 1)
tsc=$(after "two rdtsc" "$TMP/hot" 1)
row "ns/pair added, 1 thread ($N pairs, $RUNS runs)" "$h1 [$h1lo..$h1hi]" "<= 35" "$(tgt "$h1" "$h1lo" 35)"
row "ns/pair added / two raw rdtsc (same runs)" "$(awk -v a="$h1" -v b="$tsc" 'BEGIN { printf "%.2f (rdtsc pair %.1f ns)", a / b, b }')" "report" -
row "ns/pair added, 2 threads (each)" "$h2 (1 thread: $h1)" "within 10% of 1 thread" \
    "$(awk -v a="$h2" -v b="$h1" 'BEGIN { print (a <= b * 1.10) ? 1 : 0 }')"
row "ns/pair without shim, 1 thread (baseline)" "$b1" "-" -
# "run K: without B1 ns/pair, with W1; 2 threads without B2a B2b, with W2a W2b":
# how much slower each of 2 threads is than 1 thread, without and with the
# shim; on a loaded 2-CPU machine time slicing slows both alike, false
# sharing would slow only the shim's runs.
ratio() { awk "/^run [0-9]*:/ { print $1 }" "$TMP/hot" | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }
rb=$(ratio '($11 + $12) / 2 / $4'); rw=$(ratio '($14 + $15) / 2 / $7')
# the same from the fastest run of each kind (least disturbed by other processes)
best() { awk "/^run [0-9]*:/ { print $1 }" "$TMP/hot" | sort -g | head -1; }
bw=$(awk -v a="$(best '($14 + $15) / 2')" -v b="$(best '$7')" 'BEGIN { printf "%.2f", a / b }')
bb=$(awk -v a="$(best '($11 + $12) / 2')" -v b="$(best '$4')" 'BEGIN { printf "%.2f", a / b }')
row "2-thread / 1-thread ns per pair: with shim, without (medians; fastest runs)" "$rw, $rb; $bw, $bb" "with <= 1.10 x without" \
    "$(awk -v a="$rw" -v b="$rb" -v c="$bw" -v d="$bb" 'BEGIN { print (a <= b * 1.10) ? 1 : (c <= d * 1.10) ? "FAIL (fastest runs pass)" : 0 }')"
ins=$(sed -n 's/.*added \([0-9.]*\)$/\1/p' "$TMP/hot")
row "instructions/pair added (callgrind)" "${ins:-?}" "<= 60" "$(le "${ins:-9999}" 60)"
allocs=$(grep -c 'allocations during [0-9]* pairs (shim, 1 thread): 0$' "$TMP/hot" || true)
row "allocations after first use (1e3, 1e5 pairs, timed runs)" \
    "$(grep 'timed runs' "$TMP/hot" | sed 's/.*: //')" "0" \
    "$([ "$allocs" = 2 ] && grep -q 'timed runs.*: 0 0;$' "$TMP/hot" && echo 1 || echo 0)"

# ---- 2. memory ----
section memory
reg() {  # reg with|without ARGS...: /usr/bin/time peak KB, then the program's lines
    w=$1; shift
    rm -f "$TMP"/m.h5*
    if [ "$w" = with ]; then
        SCOPE_LIKWID_OUTPUT=$TMP/m.h5 SCOPE_LIKWID_QUIET=1 LD_PRELOAD=$SHIM \
            /usr/bin/time -f 'peak_kb %M' -o "$TMP/t" "$REG" "$@" >"$TMP/r" 2>>"$LOG"
    else
        /usr/bin/time -f 'peak_kb %M' -o "$TMP/t" "$REG" "$@" >"$TMP/r" 2>>"$LOG"
    fi
    cat "$TMP/t" >>"$TMP/r"
}
v() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/r"; }
: >"$TMP/peak"
i=0
while [ "$i" -lt 3 ]; do
    reg without 10000 8 1; o=$(v peak_kb); oh=$(v heap_bytes)
    reg with 10000 8 1; w=$(v peak_kb); wh=$(v heap_bytes)
    echo "$(( (w - o) / 1024 ))" >>"$TMP/peak"
    echo "10000x8: peak without $o KB, with $w KB; heap without $oh, with $wh" >>"$LOG"
    i=$((i + 1))
done
per=$(( (wh - oh) / 80000 ))
row "bytes per region per thread (heap, 10000 tags x 8 threads)" "$per" "report" -
row "peak extra RSS, 10000 tags x 8 threads, 1 call each (MB)" "$(mmm "$TMP/peak")" "report" -
reg with 1 1 1; r1=$(v rss_kb)
SCOPE_LIKWID_MAX_CALLS=1000000 reg with 1 1 1000000; r2=$(v rss_kb)
row "bytes per recorded call (RSS, 1e6 calls kept)" "$(awk -v a="$r1" -v b="$r2" 'BEGIN { printf "%.1f", (b - a) * 1024 / 1e6 }')" "report" -
# the cap: 3 regions x 2 threads x 10 calls, cap 7: 14 kept and 6 dropped per region
SCOPE_LIKWID_MAX_CALLS=7 reg with 3 2 10
cap=$("$PY" - "$TMP/m.h5" <<'EOF' 2>>"$LOG" || echo "0 h5py failed"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
ok = 1; seen = []
for name, g in f["rank0/timing/regions"].items():
    kept, dropped, calls = len(g["start_times"]), int(g.attrs["dropped_calls"]), int(sum(g["call_counts"][()]))
    seen.append("%d+%d=%d" % (kept, dropped, calls))
    ok &= kept == 14 and dropped == 6 and calls == 20
print(ok, " ".join(seen))
EOF
)
row "per-call cap 7, 2 threads x 10 calls: kept+dropped=calls per region" "${cap#* }" "14+6=20" "${cap%% *}"

# ---- 3. Close ----
section close
sh "$HERE/bench_close.sh" "$BUILD" "$RUNS" >"$TMP/close" 2>&1 || echo "bench_close.sh failed" >>"$TMP/close"
cat "$TMP/close" >>"$LOG"
for c in nocount sim-false sim-full; do
    m=$(awk -v c="$c" '$1 == c { print $2 }' "$TMP/close")
    lo=$(awk -v c="$c" '$1 == c { print $3 }' "$TMP/close")
    row "Close 20 regions x 4 threads, $c (ms)" "$(awk -v c="$c" '$1 == c { printf "%s [%s..%s]", $2, $3, $4 }' "$TMP/close")" \
        "< 50" "$(tgt "${m:-9999}" "${lo:-9999}" 49.99)"
done
for c in nocount sim-false; do
    : >"$TMP/big"
    i=0
    while [ "$i" -lt 3 ]; do
        rm -rf "$TMP/out"; mkdir "$TMP/out"
        if [ "$c" = nocount ]; then
            SCOPE_LIKWID_OUTPUT=$TMP/out/r.h5 SCOPE_LIKWID_QUIET=1 LD_PRELOAD=$SHIM "$REG" 1000 64 1 close
        else
            SIM_MARKER_DIR=$TMP/out SCOPE_LIKWID_COLLECTOR=/bin/false SCOPE_LIKWID_OUTPUT=$TMP/out/r.h5 \
                SCOPE_LIKWID_QUIET=1 LD_PRELOAD=$SHIM "$SIM" -c 0-63 -g FLOPS_DP -m -- "$REG" 1000 64 1 close
        fi >"$TMP/r" 2>>"$LOG"
        grep -q '^result_in_place 1' "$TMP/r" || echo "close $c: no result file" >>"$LOG"
        v close_ms >>"$TMP/big"
        i=$((i + 1))
    done
    m=$(med "$TMP/big")
    lo=$(sort -g "$TMP/big" | head -1)
    row "Close 1000 regions x 64 threads, $c (ms)" "$(mmm "$TMP/big")" "< 400" "$(tgt "${m:-9999}" "${lo:-9999}" 399.99)"
done

# ---- 4. convert ----
section convert
SIZES="1x1x1 16x100x4 32x250x8 128x1000x8" sh "$HERE/bench_convert.sh" "$BUILD" "$RUNS" >"$TMP/conv" 2>&1 || true
SIZES="256x2000x16" sh "$HERE/bench_convert.sh" "$BUILD" 1 | tail -1 >>"$TMP/conv" 2>&1 || true
cat "$TMP/conv" >>"$LOG"
nsv=""
for s in 1x1x1 16x100x4 32x250x8 128x1000x8 256x2000x16; do
    l=$(awk -v s="$s" '$1 == s' "$TMP/conv")
    [ -n "$l" ] || { row "convert $s" "failed" "" 0; continue; }
    set -- $l
    # size MB med min max cpu rss xfile ns/value
    row "convert $s ($2 MB): wall ms, CPU ms, peak RSS MB, wall ns/value" "$3 [$4..$5], cpu $6, $7 MB, $9" \
        "$([ "$s" = 128x1000x8 ] && echo '< 120 ms' || echo 'linear')" \
        "$([ "$s" = 128x1000x8 ] && tgt "$3" "$4" 120 || echo -)"
    case $s in 128x1000x8) nsv=$9 ;; 256x2000x16) big=$9 ;; esac
done
row "linear: ns/value at 256x2000x16 / at 128x1000x8" "$(awk -v a="${big:-0}" -v b="${nsv:-1}" 'BEGIN { printf "%.2f", a / b }')" \
    "<= 1.0 (no growth per value)" "$(awk -v a="${big:-99}" -v b="${nsv:-1}" 'BEGIN { print (a <= b * 1.0) ? 1 : 0 }')"

# ---- 5. merge, plot (another helper's scripts, when present) ----
if [ -f "$HERE/bench_merge.sh" ]; then
    section merge
    sh "$HERE/bench_merge.sh" "$BUILD" "$RUNS" >"$TMP/merge" 2>&1 && ok=1 || ok=0
    cat "$TMP/merge" >>"$LOG"
    if grep -q 'not available' "$TMP/merge"; then ok=n/a; fi
    # its figures: the line after the "med ms min ms max ms cpu ms RSS MB out MB" header
    l=$(awk 'f { print; exit } /med ms *min ms *max ms/ { f = 1 }' "$TMP/merge")
    if [ "$ok" = 1 ] && [ -n "$l" ]; then
        set -- $l
        row "merge of 64 rank files (ms; CPU ms, peak RSS MB)" "$1 [$2..$3]; cpu $4, $5 MB" "< 1 s" "$(tgt "$1" "$2" 1000)"
    else
        row "merge of 64 rank files: bench_merge.sh (see log)" "$(tail -1 "$TMP/merge")" "< 1 s" \
            "$(case $ok in n/a) echo 'n/a (merge not implemented yet)' ;; *) echo 0 ;; esac)"
    fi
fi
if [ -f "$HERE/bench_plot.sh" ]; then
    section plot
    sh "$HERE/bench_plot.sh" "$BUILD" "$RUNS" >"$TMP/plot" 2>&1 && ok=1 || ok=0
    cat "$TMP/plot" >>"$LOG"
    if grep -q 'not available' "$TMP/plot"; then ok=n/a; fi
    # its figures: "FORMAT med min max cpu RSS out" lines after the header
    awk '/^format *med ms/ { f = 1; next } f && NF == 7 && $2 + 0 > 0' "$TMP/plot" >"$TMP/plotrows"
    if [ "$ok" = 1 ] && [ -s "$TMP/plotrows" ]; then
        while read -r fmt pm plo phi pcpu prss pout; do
            row "plot $fmt, 1000 regions x 8 threads (ms; output MB)" "$pm [$plo..$phi]; $pout MB" "< 1 s, < 5 MB" \
                "$(awk -v o="$pout" -v m="$pm" -v lo="$plo" 'BEGIN {
                    print (o >= 5) ? 0 : (m <= 1000) ? 1 : (lo <= 1000) ? "FAIL (min passes)" : 0 }')"
        done <"$TMP/plotrows"
    else
        row "plot/show/export: bench_plot.sh (see log)" "$(tail -1 "$TMP/plot")" "< 1 s, < 5 MB; < 200 ms" \
            "$(case $ok in n/a) echo 'n/a (not implemented yet)' ;; *) echo 0 ;; esac)"
    fi
fi

# ---- 6. show and export of a 1000-region file (8 threads, 8 events) ----
section show-export
GEN=$BUILD/bench/gen_markerfile
CLI=$BUILD/tools/scope-likwid
if [ -x "$GEN" ] && "$GEN" 8 1000 8 "$TMP/se.txt" >>"$LOG" 2>&1 &&
    "$CLI" convert "$TMP/se.txt" -o "$TMP/se.h5" >>"$LOG" 2>&1; then
    for what in show "export --format csv" "export --format json"; do
        : >"$TMP/se.ms"
        i=0
        while [ "$i" -lt "$RUNS" ]; do
            t0=$(date +%s%N)
            # shellcheck disable=SC2086
            "$CLI" $what "$TMP/se.h5" >/dev/null 2>>"$LOG" || echo "$what failed" >>"$LOG"
            t1=$(date +%s%N)
            echo $(( (t1 - t0) / 1000000 )) >>"$TMP/se.ms"
            i=$((i + 1))
        done
        row "$what of a 1000-region, 8-thread file (ms)" "$(mmm "$TMP/se.ms")" "< 200" \
            "$(tgt "$(med "$TMP/se.ms")" "$(sort -g "$TMP/se.ms" | head -1)" 199.99)"
    done
else
    row "show/export of a 1000-region file" "could not make the input (see log)" "< 200 ms" 0
fi

# ---- 7. the tools against their floors (ratios, interleaved) ----
section floors
sh "$HERE/bench_floors.sh" "$BUILD" "$RUNS" >"$TMP/floors" 2>>"$LOG" ||
    row "floors: bench_floors.sh failed (see log)" "" "" 0
cat "$TMP/floors" >>"$rows"

section done
{
    # no date: the page states today's figures (tests/docs/doc_rules.sh)
    echo "$(nproc) CPUs, load average $LOAD0 at the start, $(cut -d' ' -f1 /proc/loadavg) at the end;"
    echo "$(($(date +%s) - T0)) s, RUNS=$RUNS N=$N."
    echo
    echo "| figure | value: median [min..max] | target | result |"
    echo "|---|---|---|---|"
    cat "$rows"
} >"$TMP/table"
cat "$TMP/table"
# DOC=docs/PERFORMANCE.md: the table replaces the lines between the two
# markers there.
if [ -n "${DOC:-}" ]; then
    awk -v tf="$TMP/table" '
        /^<!-- run-all table -->$/ { print; while ((getline l < tf) > 0) print l; skip = 1; next }
        /^<!-- end run-all table -->$/ { skip = 0 }
        !skip' "$DOC" >"$TMP/doc" && cat "$TMP/doc" >"$DOC"
fi
