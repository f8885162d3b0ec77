#!/bin/sh
# What the shim adds to a run that LIKWID counts: LIKWID 5.2's own counting
# (likwid-perfctr -M 0, direct MSR mode) on the emulated PMU (tests/emulated,
# as scripts/emulated-node-check.sh uses it), an AMD Zen 2 topology.
# usage: bench/bench_counting.sh [BUILD_DIR] [PAIRS] [CYCLES]
#   BUILD_DIR: a configured and built meson build directory, tests enabled
#              (the emulated PMU, tests/faults' harm_app) (default: build)
#   PAIRS:     alternating pairs, without then with the shim (default 10)
#   CYCLES:    Init..Close cycles per run of the second figure (default 20)
# Figures:
#   solver  examples/solver under likwid-perfctr -M 0 -C 0-1 -g FLOPS_DP -m,
#           without and with the shim (its counters from full_api, checked
#           in each result file): wall time of each, the ratio and the
#           milliseconds added per pair; target: added <= 5% of the run
#           without the shim + 50 ms (medians);
#   cycles  tests/faults/harm_app cycles CYCLES 0 (a library routine wrapped
#           in Init..Close, timed once per cycle) under likwid-perfctr -M 0
#           -C 0 -g FLOPS_DP -m, with the shim: Init..Close cycles per second
#           from the program's own clock over its cycles after the first
#           (likwid-perfctr's start-up and the first cycle, where LIKWID
#           starts its timer in the program, left out), every cycle its own
#           result file; PAIRS/2 runs (at least 3), alternating with the
#           same without the shim; target: >= 20 cycles/s (median).
# Exit status: 0 measured (each figure printed with pass or FAIL), 1 a run
# failed, 77 cannot emulate here (one line why).
set -u
BUILD=${1:-build}
PAIRS=${2:-10}
CYCLES=${3:-20}
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/emulated/emul_lib.sh"
emul_voice bench_counting
die() { say "$*" >&2; exit 1; }

SHIM=$BUILD/shim/libscope_likwid.so
COLLECT=$BUILD/helpers/scope-likwid-collect
WRITE=$BUILD/helpers/scope-likwid-write
SOLVER=$BUILD/examples/solver
CYCLER=$BUILD/tests/faults/harm_app
for p in "$SHIM" "$COLLECT" "$WRITE" "$SOLVER" "$CYCLER"; do
    [ -e "$p" ] || die "$p missing: build first, tests enabled (meson setup $BUILD && ninja -C $BUILD)"
done
for v in SHIM COLLECT WRITE SOLVER CYCLER; do
    eval "$v=\$(realpath \"\$$v\")"
done

# the emulated PMU's checks and T (emul_lib.sh), as an AMD Zen 2
build=$(cd "$BUILD" && pwd)
emul_begin
trap 'exit 130' INT TERM
emul_topo zen2 "$T/host-topo.cfg" "$T/topo.cfg" || die "cannot write the topology"
TMP=$T EMULPMU_TOPO=$T/topo.cfg EMULPMU_STATE=$T/state
export EMULPMU_TOPO EMULPMU_STATE OMP_NUM_THREADS=2

now_ms() { awk -v n="$(date +%s%N)" 'BEGIN { printf "%.1f", n / 1e6 }'; }
# full_api FILE...: every file holds counters read through LIKWID's full API
full_api() {
    /usr/bin/python3 - "$@" <<'EOF'
import sys, h5py
for p in sys.argv[1:]:
    with h5py.File(p, "r") as f:
        ranks = [f[k] for k in f if k.startswith("rank")]
        src = ranks[0]["likwid"].attrs.get("source") if ranks and "likwid" in ranks[0] else None
        src = src.decode() if isinstance(src, bytes) else src
        if src != "full_api":
            sys.exit("%s: counters from %s: expected full_api (%s)" % (p, src, ranks[0].attrs.get("likwid_status") if ranks else "no rank"))
EOF
}
# run KIND CMD...: likwid-perfctr CMD in a fresh directory, without (KIND
# "base") or with ("shim") the shim; the wall ms goes to $TMP/ms
run() {
    kind=$1
    shift
    rm -rf "$TMP/run" "$TMP/out"
    mkdir "$TMP/run" "$TMP/out"
    : >"$EMULPMU_STATE"
    if [ "$kind" = shim ]; then
        set -- env LD_PRELOAD="$emul:$SHIM" SCOPE_LIKWID_COLLECTOR="$COLLECT" SCOPE_LIKWID_WRITER="$WRITE" \
            SCOPE_LIKWID_OUTPUT="$TMP/out/r.h5" "$@"
    else
        set -- env LD_PRELOAD="$emul" "$@"
    fi
    t0=$(now_ms)
    (cd "$TMP/run" && exec "$@") >"$TMP/o" 2>"$TMP/e"
    rc=$?
    t1=$(now_ms)
    [ "$rc" = 0 ] || { tail -n 5 "$TMP/o" "$TMP/e" >&2; die "$kind: $* exited $rc"; }
    if [ "$kind" = shim ]; then
        full_api "$TMP"/out/*.h5 || die "$kind: $*: no counters from full_api"
    fi
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$TMP/ms"
}
stats() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.2f [%.2f..%.2f]", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
med() { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
verdict() { awk -v ok="$1" 'BEGIN { print ok ? "pass" : "FAIL" }'; }

say "LIKWID $(likwid-perfctr -v 2>&1 | grep -o '[0-9][0-9.]*' | head -n 1) on the emulated PMU (Zen 2), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$TMP/base" && : >"$TMP/shim" && : >"$TMP/ratio" && : >"$TMP/added"
i=0
while [ "$i" -lt "$PAIRS" ]; do
    run base likwid-perfctr -M 0 -C 0-1 -g FLOPS_DP -m "$SOLVER"
    b=$(cat "$TMP/ms")
    run shim likwid-perfctr -M 0 -C 0-1 -g FLOPS_DP -m "$SOLVER"
    s=$(cat "$TMP/ms")
    echo "$b" >>"$TMP/base"
    echo "$s" >>"$TMP/shim"
    awk -v b="$b" -v s="$s" 'BEGIN { printf "%.4f\n", s / b }' >>"$TMP/ratio"
    awk -v b="$b" -v s="$s" 'BEGIN { printf "%.1f\n", s - b }' >>"$TMP/added"
    i=$((i + 1))
done
limit=$(awk -v b="$(med "$TMP/base")" 'BEGIN { printf "%.1f", 0.05 * b + 50 }')
ok=$(awk -v a="$(med "$TMP/added")" -v l="$limit" 'BEGIN { print (a <= l) }')
say "solver, $PAIRS pairs, median [min..max]:"
say "  without the shim   $(stats "$TMP/base") ms"
say "  with the shim      $(stats "$TMP/shim") ms"
say "  ratio              $(stats "$TMP/ratio")"
say "  added              $(stats "$TMP/added") ms (target <= $limit ms: $(verdict "$ok"))"

runs=$((PAIRS / 2))
[ "$runs" -ge 3 ] || runs=3
: >"$TMP/cps" && : >"$TMP/cps_base"
i=0
while [ "$i" -lt "$runs" ]; do
    for kind in base shim; do
        run "$kind" likwid-perfctr -M 0 -C 0 -g FLOPS_DP -m "$CYCLER" cycles "$CYCLES" 0
        wall=$(awk '$1 == "later_ms" { print $2 }' "$TMP/run/counts")
        [ -n "$wall" ] || die "$kind: harm_app wrote no later_ms"
        if [ "$kind" = shim ]; then
            n=$(ls "$TMP"/out/*.h5 2>/dev/null | wc -l)
            [ "$n" = "$CYCLES" ] || die "$kind: $n result files for $CYCLES counting cycles: expected one each"
            out=$TMP/cps
        else
            out=$TMP/cps_base
        fi
        awk -v n="$CYCLES" -v w="$wall" 'BEGIN { printf "%.2f\n", (w > 0) ? (n - 1) * 1000 / w : 1e9 }' >>"$out"
    done
    i=$((i + 1))
done
ok=$(awk -v c="$(med "$TMP/cps")" 'BEGIN { print (c >= 20) }')
say "Init..Close cycles under likwid-perfctr -m, $CYCLES per run, $runs runs, median [min..max]:"
say "  without the shim   $(stats "$TMP/cps_base") cycles/s"
say "  with the shim      $(stats "$TMP/cps") cycles/s (target >= 20: $(verdict "$ok"))"
