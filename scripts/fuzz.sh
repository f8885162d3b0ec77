#!/bin/sh
# Runs every libFuzzer target for a fixed budget and prints, per target, the
# executions done and whether it found anything. Usage:
#   sh scripts/fuzz.sh BUILD_DIR SECONDS
# BUILD_DIR is configured with CC=clang ... -Dfuzz=true (see tests/fuzz/meson.build).
# Exit status: non-zero when a target crashed, leaked or hung over 10 s on one
# input (its reproducer is kept in BUILD_DIR/fuzz-findings, its log in
# BUILD_DIR/fuzz-TARGET.log).
set -eu
# UBSan recovers by default under clang: make a finding a crash libFuzzer keeps.
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS ASAN_OPTIONS
build=${1:?usage: fuzz.sh BUILD_DIR SECONDS}
secs=${2:-60}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$build/fuzz-findings"
status=0
for t in journal markerfile wire h5read; do
    corpus=$(mktemp -d)
    # h5read starts from real result files (corpus/h5/), the others from
    # marker files and wire data (corpus/)
    case $t in
    h5read) cp "$src"/tests/fuzz/corpus/h5/* "$corpus"/ ;;
    *) find "$src"/tests/fuzz/corpus -maxdepth 1 -type f -exec cp {} "$corpus"/ \; ;;
    esac
    seeds=$(ls "$corpus" | wc -l)
    log="$build/fuzz-$t.log"
    # libhdf5's own leaks on damaged files are not ours (tests/lsan-hdf5.supp)
    case $t in
    h5read) LSAN_OPTIONS=print_suppressions=0:suppressions=$src/tests/lsan-hdf5.supp ;;
    *) LSAN_OPTIONS= ;;
    esac
    export LSAN_OPTIONS
    if "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 \
        -artifact_prefix="$build/fuzz-findings/$t-" -rss_limit_mb=2048 -timeout=10 "$corpus" >"$log" 2>&1; then
        result=ok
    else
        result=CRASH
        status=1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    # the last status line: coverage (cov: edges, ft: features) and corpus size
    cov=$(grep -E '^#[0-9]+' "$log" | tail -n1 | sed -n 's/.*\(cov: [0-9]* ft: [0-9]* corp: [0-9]*\/[0-9a-zA-Z]*\).*/\1/p')
    echo "fuzz $t: ${execs:-0} executions in ${secs}s from $seeds seeds, $cov: $result"
    rm -rf "$corpus"
done
exit $status
