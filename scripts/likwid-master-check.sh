#!/bin/sh
# Runs the project's programs under a LIKWID built from source (LIKWID
# master, 5.5, perf_event mode: scripts/build-likwid-master.sh) with the
# shim and helpers of BUILD_DIR, which were built against Debian's 5.2.2:
#   sh scripts/likwid-master-check.sh BUILD_DIR PREFIX [GROUP]
# The programs are compiled against PREFIX's liblikwid (they load 5.5). It
# checks, in PREFIX's likwid-perfctr -m:
#   - the bundled solver: counters from full_api with LIKWID's names (the
#     collector read with the application's liblikwid), no -22 stored as a
#     count, its timing;
#   - a region tagged with 150 characters and an early '-': the identical
#     tag in the counters and in the timing; a region only the second
#     thread runs (master's Close writes -22 for its values): no -22 stored,
#     the status says why;
#   - errno_app (tests/e2e): every entry point gives back errno.
# On a VM without a PMU perf_event counts zeros; that is enough here. GROUP
# defaults to the first of BRANCH, FLOPS_DP, CLOCK that LIKWID lists.
# Exit status: 0 pass, 1 fail, 77 cannot run here (no such LIKWID, no h5py).
set -u
build=${1:?usage: likwid-master-check.sh BUILD_DIR PREFIX [GROUP]}
prefix=${2:?usage: likwid-master-check.sh BUILD_DIR PREFIX [GROUP]}
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
perfctr=$prefix/bin/likwid-perfctr
say() { printf 'likwid-master-check: %s\n' "$*"; }
skip() { say "SKIP: $*"; exit 77; }
failed=0
fail() { say "FAIL: $*"; failed=1; }

[ -x "$perfctr" ] || skip "$perfctr missing: build LIKWID first (scripts/build-likwid-master.sh SRC $prefix)"
lib=$(ls "$prefix"/lib/liblikwid.so.5.* 2>/dev/null | head -1)
[ -n "$lib" ] || skip "no liblikwid.so.5.* under $prefix/lib"
/usr/bin/python3 -c 'import h5py' 2>/dev/null || skip "no /usr/bin/python3 with h5py (python3-h5py)"
for f in shim/libscope_likwid.so helpers/scope-likwid-collect helpers/scope-likwid-write; do
    [ -e "$build/$f" ] || { say "FAIL: $build/$f missing: expected a built tree (ninja -C $build)"; exit 1; }
done
group=${3:-}
if [ -z "$group" ]; then
    groups=$("$perfctr" -a 2>/dev/null | awk '{print $1}')
    for g in BRANCH FLOPS_DP CLOCK; do
        if printf '%s\n' "$groups" | grep -qx "$g"; then group=$g; break; fi
    done
fi
[ -n "$group" ] || skip "$perfctr -a lists none of BRANCH, FLOPS_DP, CLOCK: name a GROUP"

T=$(mktemp -d "${TMPDIR:-/tmp}/likwid-master-check.XXXXXX") || exit 1
trap '[ "${SL_KEEP:-0}" = 1 ] || rm -rf "$T"' EXIT
mkdir -p "$T/bin"
cflags="-O2 -DLIKWID_PERFMON -I$prefix/include"
ldflags="-L$prefix/lib -Wl,-rpath,$prefix/lib -llikwid"
long="L150-$(printf '%145s' | tr ' ' a)"
# the long tag; and a region only the second thread runs, whose values
# LIKWID master's Close loses (it writes -22 for them)
cat >"$T/tagged.c" <<EOF
#include <likwid-marker.h>
#include <omp.h>
int main(void)
{
    volatile double s = 0;
    LIKWID_MARKER_INIT;
    LIKWID_MARKER_START("$long");
    for (int i = 0; i < 100000; i++)
        s += i;
    LIKWID_MARKER_STOP("$long");
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) {
        LIKWID_MARKER_START("second only");
        for (int i = 0; i < 100000; i++)
            s += i;
        LIKWID_MARKER_STOP("second only");
    }
    LIKWID_MARKER_CLOSE;
    return s < 0;
}
EOF
cc $cflags -fopenmp "$src/examples/solver.c" -o "$T/bin/solver" $ldflags &&
    cc $cflags -fopenmp "$T/tagged.c" -o "$T/bin/tagged" $ldflags &&
    cc $cflags "$src/tests/e2e/errno_app.c" -o "$T/bin/errno_app" $ldflags -ldl -pthread ||
    { say "FAIL: cannot build the programs against $prefix"; exit 1; }
objdump -p "$T/bin/solver" | grep -q "NEEDED *$(basename "$lib")" ||
    fail "the solver does not need $(basename "$lib"): $(objdump -p "$T/bin/solver" | grep NEEDED | tr -s ' ' | tr '\n' ';')"
version=$(basename "$lib" | sed 's/^liblikwid\.so\.//')
say "LIKWID $version at $prefix, group $group, shim and helpers of $build"

SCOPE_LIKWID_COLLECTOR=$build/helpers/scope-likwid-collect
SCOPE_LIKWID_WRITER=$build/helpers/scope-likwid-write
OMP_NUM_THREADS=2
export SCOPE_LIKWID_COLLECTOR SCOPE_LIKWID_WRITER OMP_NUM_THREADS

# run NAME PROGRAM [ARGS]: under likwid-perfctr -m with the shim, in $T/NAME
run() {
    name=$1
    shift
    mkdir -p "$T/$name"
    (cd "$T/$name" && SCOPE_LIKWID_OUTPUT="$T/$name/result.h5" timeout -k 5 120 \
        "$perfctr" -C 0,1 -g "$group" -m env LD_PRELOAD="$build/shim/libscope_likwid.so" "$@") \
        >"$T/$name.out" 2>"$T/$name.err"
    echo $? >"$T/$name.rc"
    [ -f "$T/$name/result.h5" ] || { fail "$name: no result file; stderr:"; sed 's/^/    /' "$T/$name.err"; }
}
check() {
    /usr/bin/python3 "$src/tests/e2e/check_result.py" "$@" >"$T/check.log" 2>&1 ||
        { fail "checker rejected $1:"; sed 's/^/    /' "$T/check.log"; return 1; }
}

run solver "$T/bin/solver"
if [ -f "$T/solver/result.h5" ]; then
    check "$T/solver/result.h5" --source full_api --names --status "used full_api" \
        --timing "init=1x1" --timing "solve-step=2x20" --timing "io phase=1x1" &&
        say "ok: solver: full_api with LIKWID's names, timing of every region"
fi
# no_minus22 NAME: no dataset of NAME's likwid group holds -22
no_minus22() {
    /usr/bin/python3 - "$T/$1/result.h5" >"$T/minus22.log" 2>&1 <<'EOF'
import sys, h5py, numpy
bad = []
def visit(name, obj):
    if isinstance(obj, h5py.Dataset) and obj.dtype.kind == "f" and "likwid" in name:
        if numpy.any(obj[()] == -22.0):
            bad.append(name)
h5py.File(sys.argv[1], "r").visititems(visit)
print("datasets holding -22: " + (", ".join(bad) if bad else "none"))
sys.exit(1 if bad else 0)
EOF
    if [ $? = 0 ]; then say "ok: $1: no -22 stored as a count"; else fail "$1: $(cat "$T/minus22.log")"; fi
}
[ -f "$T/solver/result.h5" ] && no_minus22 solver
run tagged "$T/bin/tagged"
if [ -f "$T/tagged/result.h5" ]; then
    check "$T/tagged/result.h5" --source full_api --names --timing-tags "$long" "second only" \
        --timing "$long=1x1" --likwid-region "$long=1x1" --timing "second only=1x1" &&
        say "ok: a 150-character tag with an early '-', identical in counters and timing"
    no_minus22 tagged
    if /usr/bin/python3 - "$T/tagged/result.h5" <<'EOF'
import sys, h5py
s = h5py.File(sys.argv[1], "r")["rank0"].attrs["likwid_status"]
s = s.decode() if isinstance(s, bytes) else str(s)
print("likwid-master-check: likwid_status: " + s)
sys.exit(0 if "-22" in s else 1)
EOF
    then
        say "ok: LIKWID wrote -22 for the second thread's region: left out, and the status says so"
    else
        say "note: LIKWID wrote no -22 line this time (the second thread's region kept its values)"
    fi
fi
run errno "$T/bin/errno_app" "$T/errno/copy.txt"
if grep -q 'errno kept' "$T/errno.out"; then
    say "ok: errno kept across every entry point ($(sed -n 's/^errno_app: \([0-9]*\) calls.*/\1/p' "$T/errno.out") calls)"
else
    fail "errno_app: $(grep '^errno_app' "$T/errno.out" | tr '\n' ';')"
fi
if [ "$failed" != 0 ]; then
    SL_KEEP=1
    say "FAILED (files in $T)"
    exit 1
fi
say "PASS: LIKWID $version in perf_event mode, project built against Debian's 5.2.2"
exit 0
