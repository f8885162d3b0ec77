#!/bin/sh
# Runs every libFuzzer target for a fixed budget and prints, per target, the
# executions done and whether it found anything. Usage:
#   sh scripts/fuzz.sh BUILD_DIR SECONDS
# BUILD_DIR is configured with CC=clang ... -Dfuzz=true (see tests/fuzz/meson.build).
# Exit status: non-zero when a target crashed (its reproducer is kept in BUILD_DIR/fuzz-findings).
set -eu
build=${1:?usage: fuzz.sh BUILD_DIR SECONDS}
secs=${2:-60}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$build/fuzz-findings"
status=0
for t in markerfile wire; do
    corpus=$(mktemp -d)
    cp "$src"/tests/fuzz/corpus/* "$corpus"/ 2>/dev/null || true
    log="$build/fuzz-$t.log"
    if "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 \
        -artifact_prefix="$build/fuzz-findings/$t-" -rss_limit_mb=2048 "$corpus" >"$log" 2>&1; then
        result=ok
    else
        result=CRASH
        status=1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    echo "fuzz $t: ${execs:-0} executions in ${secs}s: $result"
    rm -rf "$corpus"
done
exit $status
