#!/bin/sh
# The one command for a real node where likwid-perfctr can count:
#   sh scripts/real-node-check.sh [BUILD_DIR]      (default: ./build)
# Builds nothing. Checks that likwid-perfctr works here (else says why and
# exits 77 = skipped), runs the example solver under
#   likwid-perfctr -C 0-1 -g <first available of FLOPS_DP, CLOCK, ...> -m
# with the shim preloaded, and checks that the result file holds counters
# from the full API: LIKWID's event and counter names and derived metrics.
# Exit status: 0 passed, 1 failed, 77 this node cannot count.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
say() { printf 'real-node-check: %s\n' "$*"; }
skip() { say "SKIP: $*"; exit 77; }
die() { say "FAIL: $*"; exit 1; }

[ -d "$build" ] || die "$build: no such directory: expected the meson build dir (meson setup $build && ninja -C $build)"
build=$(cd "$build" && pwd)
shim=$build/shim/libscope_likwid.so
solver=$build/examples/solver
collect=$build/helpers/scope-likwid-collect
write=$build/helpers/scope-likwid-write
checker=$here/tests/e2e/check_result.py
for f in "$shim" "$solver" "$collect" "$write"; do
    [ -e "$f" ] || die "$f: missing: expected a finished build (ninja -C $build)"
done

py=
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import h5py, numpy' >/dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || skip "no python3 with h5py to check the result (Debian package python3-h5py)"

command -v likwid-perfctr >/dev/null 2>&1 || skip "likwid-perfctr not found (Debian package likwid)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs for -C 0-1, this node has $(nproc)"

# The first group this CPU offers, in order of preference.
groups=$(likwid-perfctr -a 2>&1)
group=
for g in FLOPS_DP CLOCK BRANCH L2 ENERGY; do
    if printf '%s\n' "$groups" | grep -Eq "^[[:space:]]*${g}[[:space:]]"; then group=$g; break; fi
done
if [ -z "$group" ]; then
    # Any group at all: the first word of the first indented table row.
    group=$(printf '%s\n' "$groups" | awk '/^-+$/ {n++; next} n >= 2 && NF {print $1; exit}')
fi
[ -n "$group" ] || skip "likwid-perfctr -a lists no performance groups: $(printf '%s' "$groups" | head -n 1)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/real-node-check.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || die "cannot enter $tmp"

# Can likwid-perfctr count at all? (Access to the counters, supported CPU.)
if ! timeout 60 likwid-perfctr -C 0 -g "$group" true >"$tmp/probe.log" 2>&1; then
    skip "likwid-perfctr -C 0 -g $group cannot count here: $(grep -m 1 -E 'ERROR|Cannot|denied|not supported|Unsupported' "$tmp/probe.log" || tail -n 1 "$tmp/probe.log")"
fi

say "group $group, CPUs 0-1, shim $shim"
mkdir "$tmp/run"
cd "$tmp/run" || die "cannot enter $tmp/run"
# likwid-perfctr puts liblikwidpin.so in front of an existing LD_PRELOAD.
LD_PRELOAD=$shim SCOPE_LIKWID_COLLECTOR=$collect SCOPE_LIKWID_WRITER=$write OMP_NUM_THREADS=2 \
    timeout 120 likwid-perfctr -C 0-1 -g "$group" -m "$solver" >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
if [ "$rc" != 0 ]; then
    cat "$tmp/run.out" "$tmp/run.err"
    die "likwid-perfctr -m with the shim exited $rc: expected 0"
fi
grep -q '^solver: ' "$tmp/run.out" || { cat "$tmp/run.out"; die "no 'solver:' line on stdout: expected the solver's result"; }
grep '^scope-likwid: ' "$tmp/run.err" | sed 's/^/  /'

set -- "$tmp/run"/scope-likwid-*.h5
if [ $# != 1 ] || [ ! -f "$1" ]; then
    ls -la "$tmp/run"
    die "expected one scope-likwid-*.h5 in the cwd, found: $*"
fi
"$py" -c 'import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    print("real-node-check: likwid_status:", f["rank0"].attrs.get("likwid_status"))' "$1"
"$py" "$checker" "$1" --source full_api --names --metrics --env LIKWID_EVENTS --env LIKWID_THREADS \
    --status full_api --timing "init=1x1" --timing "solve-step=2x20" --timing "io phase=1x1" \
    --likwid-region "init=1x1" --likwid-region "solve-step=2x20" --likwid-region "io phase=1x1" ||
    die "the result file does not hold what the full API gives (see above)"
say "PASS: full_api counters with LIKWID's names and metrics on $(hostname)"
