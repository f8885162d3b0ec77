#!/bin/sh
# Prints what a run of the checks (docs/RELIABILITY.md) left behind:
#   sh scripts/reliability-figures.sh build build-asan build-tsan build-fuzz
# For each BUILD_DIR: the tests of its last `meson test` (meson-logs/testlog.json)
# by result and by suite, and its sanitizer setting; for a fuzz build
# (fuzz-*.log from scripts/fuzz.sh): executions, coverage, findings.
#   sh scripts/reliability-figures.sh --faults-table
# prints tests/faults/cases.tsv (the fault-injection suite's own list) as the
# list of faults of docs/RELIABILITY.md.
set -eu
[ $# -gt 0 ] || { echo "usage: reliability-figures.sh BUILD_DIR... | --faults-table" >&2; exit 2; }
if [ "$1" = --faults-table ]; then
    tsv=$(cd "$(dirname "$0")/.." && pwd)/tests/faults/cases.tsv
    [ -f "$tsv" ] || { echo "no $tsv" >&2; exit 1; }
    # one line a case: "- `CASE`: FAULT", then the tests when they are not
    # just fault-CASE (what the shim does and what the user gets stay in
    # the list itself)
    awk -F'\t' 'NR > 1 {
        t = $5; e2e = sub(/^e2e: */, "", t)
        n = split(t, ts, /, */); names = ""
        for (i = 1; i <= n; i++) names = names (i > 1 ? ", " : "") "`" ts[i] "`"
        tests = (t == "fault-" $1) ? "" : " (" (e2e ? "e2e " : "") names ")"
        line = "- `" $1 "`: " $2 tests
        # wrapped at 100 characters, continued two spaces in
        n = split(line, w, / /); out = w[1]
        for (i = 2; i <= n; i++) {
            if (length(out) + 1 + length(w[i]) > 100) { print out; out = "  " w[i] }
            else out = out " " w[i]
        }
        print out }' "$tsv"
    exit 0
fi
for b in "$@"; do
    san=$(meson configure "$b" 2>/dev/null | awk '$1 == "b_sanitize" { print $2 }')
    echo "== $b (b_sanitize=${san:-?})"
    if [ -f "$b/meson-logs/testlog.json" ]; then
        python3 - "$b/meson-logs/testlog.json" <<'EOF'
import json, sys, collections
by_result = collections.Counter()
by_suite = collections.defaultdict(collections.Counter)
for line in open(sys.argv[1]):
    t = json.loads(line)
    suite = t["name"].split(":", 1)[-1].split(" / ", 1)[0]
    by_result[t["result"]] += 1
    by_suite[suite][t["result"]] += 1
total = sum(by_result.values())
print("tests run: %d; %s" % (total, ", ".join("%s %d" % kv for kv in sorted(by_result.items()))))
for s in sorted(by_suite):
    print("  %-10s %s" % (s, ", ".join("%s %d" % kv for kv in sorted(by_suite[s].items()))))
EOF
    fi
    for log in "$b"/fuzz-*.log; do
        [ -f "$log" ] || continue
        t=$(basename "$log" .log)
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
        secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n1)
        cov=$(grep -E '^#[0-9]+' "$log" | tail -n1 | sed -n 's/.*\(cov: [0-9]* ft: [0-9]* corp: [0-9]*\/[0-9a-zA-Z]*\).*/\1/p')
        found=$(ls "$b/fuzz-findings" 2>/dev/null | grep -c "^${t#fuzz-}-" || true)
        echo "$t: ${execs:-?} executions in ${secs:-?} s, $cov, findings $found"
    done
done
