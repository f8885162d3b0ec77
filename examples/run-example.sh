#!/bin/sh
# Runs the bundled example application (examples/solver.c) under scope-likwid
# and shows the result file. Used by scripts/quickstart.sh.
#   sh examples/run-example.sh [BUILD_DIR]        (default: ./build)
# The result goes to BUILD_DIR/example-run/scope-likwid-example.h5. On a node
# where LIKWID counts, run the same under `likwid-perfctr -C 0-1 -g GROUP -m`
# to get counters as well (scripts/real-node-check.sh does that).
set -eu

build=${1:-build}
[ -d "$build" ] || { echo "run-example.sh: $build: no such build directory: expected the meson build dir" >&2; exit 2; }
build=$(cd "$build" && pwd)

solver=$build/examples/solver
shim=$build/shim/libscope_likwid.so
cli=$build/tools/scope-likwid
for f in "$solver" "$shim" "$cli"; do
    [ -e "$f" ] || { echo "run-example.sh: $f: missing: expected a finished build (ninja -C $build)" >&2; exit 2; }
done

outdir=$build/example-run
mkdir -p "$outdir"
out=$outdir/scope-likwid-example.h5
# The shim never overwrites a result file; start clean so the name is known.
rm -f "$outdir"/scope-likwid-example*.h5 "$outdir"/scope-likwid-example*.rescue

# Helpers of the build tree (an installed shim finds its own in libexec).
SCOPE_LIKWID_COLLECTOR=$build/helpers/scope-likwid-collect
SCOPE_LIKWID_WRITER=$build/helpers/scope-likwid-write
SCOPE_LIKWID_OUTPUT=$out
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
export SCOPE_LIKWID_COLLECTOR SCOPE_LIKWID_WRITER SCOPE_LIKWID_OUTPUT OMP_NUM_THREADS

echo "== running $solver under the shim (OMP_NUM_THREADS=$OMP_NUM_THREADS)"
cd "$outdir"
if "$cli" run --help >/dev/null 2>&1; then
    "$cli" run -- "$solver"
else
    LD_PRELOAD=$shim "$solver"
fi

[ -f "$out" ] || { echo "run-example.sh: $out: not written: expected the shim's result file (see the scope-likwid: lines above)" >&2; exit 1; }
echo "== scope-likwid show $out"
"$cli" show "$out"
