#!/bin/sh
# The tools against their floors (bench/floor_*.c: plain HDF5 programs that
# do only what the tool must), and show against the previous build's show,
# each pair run interleaved in one run so that the machine's load falls on
# both alike: every figure is a ratio, median over the pairs.
# usage: bench/bench_floors.sh [BUILD_DIR] [RUNS]
#   BUILD_DIR  a configured and built meson build directory, tests enabled
#              (the simulated LIKWID) (default: build)
#   RUNS       pairs per timed figure (default 5)
# PREV=DIR     the build directory of the previous tree (bench/build-prev.sh
#              makes one): show and export are also timed against it
# BIG=N        the large merge's file count (default 1024; 0: none), run
#              BIGRUNS (default 1) pairs per kind
# CALLGRIND=0  leaves out the instruction counts (convert, Close's writer)
# Prints markdown rows "| figure | value | target | result |" on stdout,
# each measurement's detail on stderr.
set -eu
BUILD=${1:-build}
RUNS=${2:-5}
BIG=${BIG:-1024}
BIGRUNS=${BIGRUNS:-1}
CALLGRIND=${CALLGRIND:-1}
PREV=${PREV:-}
CLI=$BUILD/tools/scope-likwid
GEN=$BUILD/bench/gen_markerfile
RT=$BUILD/bench/runtime
FR=$BUILD/bench/floor_read
FW=$BUILD/bench/floor_write
FM=$BUILD/bench/floor_merge
WRITER=$BUILD/helpers/scope-likwid-write
SHIM=$BUILD/shim/libscope_likwid.so
REG=$BUILD/bench/regions
SIM=$BUILD/tests/simlikwid/sim-perfctr
. "$(dirname "$0")/bench_lib.sh"
bench_need bench_floors -e "$CLI" "$GEN" "$RT" "$FR" "$FW" "$FM" "$WRITER" "$SHIM" "$REG" "$SIM"
[ -z "$PREV" ] || [ -x "$PREV/tools/scope-likwid" ] ||
    { echo "bench_floors: $PREV/tools/scope-likwid missing (bench/build-prev.sh makes it)" >&2; exit 1; }
SHIM=$(realpath "$SHIM")
WRITER=$(realpath "$WRITER")
bench_tmp sl-floors

row() {
    case $4 in 1) v=pass ;; 0) v=FAIL ;; *) v=$4 ;; esac
    case $2 in *"runs failed"*) v=FAIL ;; esac
    printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$v"
}
# pair ratios: column $3 of file $1 over column $3 of file $2, line by line:
# "median [min..max]" of the ratios
ratios() {
    failed "$(basename "$1")" "$(basename "$2")" && { echo "runs failed (see log)"; return; }
    paste -d' ' "$1" "$2" | awk -v c="$3" '{ print $c / $(c + 2) }' | sort -g |
        awk '{ v[NR] = $1 } END { printf "%.2f [%.2f..%.2f]", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
# fastest A B: the fastest wall time of A over the fastest of B. On a host
# whose speed changes between runs (a VM's steal, frequency) the fastest
# runs of both are taken at the same speed, where single pairs may not be.
fastest() {
    failed "$(basename "$1")" "$(basename "$2")" && { echo "-"; return; }
    awk 'NR == FNR { if (a == "" || $1 < a) a = $1; next } { if (b == "" || $1 < b) b = $1 }
         END { printf "%.2f", a / b }' "$1" "$2"
}
# spread F: the slowest over the fastest wall time of F (the same work each
# run: how much the machine's speed moved during the measurement)
spread() { awk '{ if (lo == "" || $1 < lo) lo = $1; if ($1 > hi) hi = $1 } END { printf "%.2f", hi / lo }' "$1"; }
# verdict MEDIAN FASTEST LIMIT: 1 (pass), 0 (FAIL), or "FAIL (fastest runs pass)"
verdict() {
    if [ "$(le "$1" "$3")" = 1 ]; then echo 1
    elif [ "$2" != - ] && [ "$(le "$2" "$3")" = 1 ]; then echo "FAIL (fastest runs pass)"
    else echo 0; fi
}
med() { awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] }'; }
le() { awk -v a="${1%% *}" -v b="$2" 'BEGIN { print (a <= b) ? 1 : 0 }'; }
# timed NAME CMD...: one run appended to $TMP/NAME ("wall_ms cpu_ms")
# a run that fails makes every figure from NAME fail (failed NAME...)
timed() { n=$1; shift; "$RT" "$TMP/$n" "$@" 2>>"$TMP/err" || { echo "bench_floors: $n failed: $*" >&2; : >"$TMP/$n.failed"; }; }
failed() { for n in "$@"; do [ ! -e "$TMP/$n.failed" ] || return 0; done; return 1; }

# ---- reading: show and export against the plain reader and the previous build ----
# the file made by the previous build when there is one: both read it
"$GEN" 8 1000 8 "$TMP/se.txt" >/dev/null
"${PREV:-$BUILD}/tools/scope-likwid" convert "$TMP/se.txt" -o "$TMP/se.h5" >/dev/null
for n in floor show csv json pshow pcsv pjson; do : >"$TMP/$n"; done
i=0
while [ "$i" -lt "$RUNS" ]; do
    timed floor "$FR" "$TMP/se.h5"
    timed show "$CLI" show "$TMP/se.h5"
    timed csv "$CLI" export --format csv "$TMP/se.h5"
    timed json "$CLI" export --format json "$TMP/se.h5"
    if [ -n "$PREV" ]; then
        timed pshow "$PREV/tools/scope-likwid" show "$TMP/se.h5"
        timed pcsv "$PREV/tools/scope-likwid" export --format csv "$TMP/se.h5"
        timed pjson "$PREV/tools/scope-likwid" export --format json "$TMP/se.h5"
    fi
    i=$((i + 1))
done
for n in floor show csv json pshow pcsv pjson; do echo "read $n (wall cpu): $(tr '\n' ' ' <"$TMP/$n")" >&2; done
r=$(ratios "$TMP/show" "$TMP/floor" 1)
fr=$(fastest "$TMP/show" "$TMP/floor")
row "show / plain reader (floor_read), 1000 regions x 8 threads: wall (CPU) ratio; fastest runs" \
    "$r ($(ratios "$TMP/show" "$TMP/floor" 2)); $fr; show $(med "$TMP/show" 1) ms, floor $(med "$TMP/floor" 1) ms, floor's spread $(spread "$TMP/floor")" \
    "<= 1.3" "$(verdict "$r" "$fr" 1.3)"
if [ -n "$PREV" ]; then
    for w in show csv json; do
        r=$(ratios "$TMP/$w" "$TMP/pshow" 1)
        fr=$(fastest "$TMP/$w" "$TMP/pshow")
        row "$w / previous build's show: wall (CPU) ratio; fastest runs" \
            "$r ($(ratios "$TMP/$w" "$TMP/pshow" 2)); $fr; $(med "$TMP/$w" 1) ms vs $(med "$TMP/pshow" 1) ms" "<= 0.6" "$(verdict "$r" "$fr" 0.6)"
    done
    for w in csv json; do
        row "export $w / previous build's export $w: wall (CPU) ratio" \
            "$(ratios "$TMP/$w" "$TMP/p$w" 1) ($(ratios "$TMP/$w" "$TMP/p$w" 2))" "report" -
    done
fi

# ---- merge against the plain H5Ocopy loop ----
# kinds: rank files from convert --rank R (distinct ranks), and copies of
# one shim result with timing samples and counters (all rank 0: numbered)
"$GEN" 8 100 8 "$TMP/m.txt" >/dev/null
mkdir "$TMP/out"
SIM_MARKER_DIR=$TMP/out SCOPE_LIKWID_OUTPUT=$TMP/shim.h5 SCOPE_LIKWID_QUIET=1 LD_PRELOAD=$SHIM \
    "$SIM" -c 0-7 -g FLOPS_DP -m -- "$REG" 100 8 20 close >/dev/null 2>>"$TMP/err"
make_inputs() {  # make_inputs KIND N: $TMP/KIND-N/in*.h5
    d=$TMP/$1-$2
    [ -d "$d" ] && return 0
    mkdir "$d"
    k=0
    while [ "$k" -lt "$2" ]; do
        case $1 in
            ranks) "$CLI" convert "$TMP/m.txt" --rank "$k" -o "$d/in$k.h5" >/dev/null ;;
            shim) cp "$TMP/shim.h5" "$d/in$k.h5" ;;
        esac
        k=$((k + 1))
    done
}
merge_pairs() {  # merge_pairs KIND N PAIRS
    make_inputs "$1" "$2"
    : >"$TMP/mt"; : >"$TMP/mf"
    j=0
    while [ "$j" -lt "$3" ]; do
        rm -f "$TMP/job.h5" "$TMP/floor.h5"
        timed mf "$FM" "$TMP/floor.h5" "$TMP/$1-$2"/in*.h5
        timed mt "$CLI" merge -o "$TMP/job.h5" "$TMP/$1-$2"/in*.h5
        j=$((j + 1))
    done
    echo "merge $1 x $2: tool $(tr '\n' ' ' <"$TMP/mt"); floor $(tr '\n' ' ' <"$TMP/mf")" >&2
    r=$(ratios "$TMP/mt" "$TMP/mf" 1)
    fr=$(fastest "$TMP/mt" "$TMP/mf")
    row "merge $2 files ($1) / plain H5Ocopy loop (floor_merge): wall (CPU) ratio; fastest runs" \
        "$r ($(ratios "$TMP/mt" "$TMP/mf" 2)); $fr; merge $(med "$TMP/mt" 1) ms, floor $(med "$TMP/mf" 1) ms, floor's spread $(spread "$TMP/mf")" \
        "<= 1.15" "$(verdict "$r" "$fr" 1.15)"
}
merge_pairs ranks 64 "$RUNS"
merge_pairs shim 64 "$RUNS"
if [ "$BIG" -gt 0 ]; then
    merge_pairs ranks "$BIG" "$BIGRUNS"
    merge_pairs shim "$BIG" "$BIGRUNS"
fi

# ---- writing: convert and the writer at Close against the standalone writer ----
# instructions (callgrind): the tool's whole run against the same run with
# our writer (sl_h5_write) replaced by the floor writer's write (write_all)
incl() { callgrind_annotate --inclusive=yes "$1" 2>/dev/null | awk -v f="$2" '$0 ~ ":" f " " { gsub(",", "", $1); print $1; exit }'; }
total() { awk '/^summary:/ { print $2 }' "$1"; }
write_ratio() {  # write_ratio LABEL CG_OF_TOOL RESULT_FILE
    valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.floor" --toggle-collect=write_all \
        "$FW" "$3" "$TMP/fw.h5" >/dev/null 2>>"$TMP/err"
    t=$(total "$2"); w=$(incl "$2" sl_h5_write); f=$(total "$TMP/cg.floor")
    echo "$1: tool $t instructions, of them sl_h5_write $w; floor writer $f" >&2
    r=$(awk -v t="$t" -v w="$w" -v f="$f" 'BEGIN { printf "%.3f", t / (t - w + f) }')
    row "$1 / (the same with the standalone writer, floor_write): instructions" \
        "$r ($(awk -v t="$t" -v w="$w" -v f="$f" 'BEGIN { printf "%.0f M / %.0f M; writer %.0f M, floor %.0f M", t / 1e6, (t - w + f) / 1e6, w / 1e6, f / 1e6 }'))" \
        "<= 1.1" "$(le "$r" 1.1)"
}
if [ "$CALLGRIND" = 1 ] && command -v valgrind >/dev/null; then
    "$GEN" 128 1000 8 "$TMP/big.txt" >/dev/null
    valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.conv" "$CLI" convert "$TMP/big.txt" \
        -o "$TMP/big.h5" >/dev/null 2>>"$TMP/err"
    write_ratio "convert 128x1000x8 (17 MB)" "$TMP/cg.conv" "$TMP/big.h5"
    # the writer at Close: 1000 regions x 64 threads with counters; the
    # rescue file it was given, kept by a stand-in writer
    printf '#!/bin/sh\ncp "$1" "%s/rescue"\nexec "%s" "$@"\n' "$TMP" "$WRITER" >"$TMP/keep-writer"
    chmod +x "$TMP/keep-writer"
    rm -rf "$TMP/out"; mkdir "$TMP/out"
    SIM_MARKER_DIR=$TMP/out SCOPE_LIKWID_COLLECTOR=/bin/false SCOPE_LIKWID_WRITER=$TMP/keep-writer \
        SCOPE_LIKWID_OUTPUT=$TMP/out/r.h5 SCOPE_LIKWID_QUIET=1 LD_PRELOAD=$SHIM \
        "$SIM" -c 0-63 -g FLOPS_DP -m -- "$REG" 1000 64 1 close >/dev/null 2>>"$TMP/err"
    if [ -s "$TMP/rescue" ]; then
        valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.close" "$WRITER" "$TMP/rescue" \
            "$TMP/close.h5" >/dev/null 2>>"$TMP/err"
        write_ratio "Close's writer, 1000 regions x 64 threads with counters" "$TMP/cg.close" "$TMP/close.h5"
    else
        row "Close's writer, 1000 regions x 64 threads with counters" "no rescue file kept (see log)" "<= 1.1" 0
    fi
fi
[ ! -s "$TMP/err" ] || { echo "bench_floors: the commands' stderr:" >&2; tail -20 "$TMP/err" >&2; }
