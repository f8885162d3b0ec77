#!/bin/sh
# A LIKWID built from source counting through its own code on the emulated
# PMU, checked value for value (a developer's check, not CI: the LIKWID
# comes from the network):
#   sh scripts/build-likwid-master.sh --direct LIKWID_GIT PREFIX v5.4.1
#   sh scripts/likwid-version-check.sh PREFIX [BUILD_DIR] [ARTIFACT_DIR] [PYLIKWID_SRC]
# Builds against PREFIX's headers and liblikwid, in a temporary directory:
# the bundled solver (C), its Fortran twin (with PREFIX's likwid.mod and
# Fortran entry points: LIKWID built with FORTRAN_INTERFACE=true, as
# build-likwid-master.sh does where gfortran exists), and pylikwid from PYLIKWID_SRC (a checkout or a git repository of
# github.com/RRZE-HPC/pylikwid; without it the project's pylikwid-like
# slmarker extension). Then scripts/emulated-node-check.sh runs each under
# PREFIX's likwid-perfctr -M 0 with the shim and helpers of BUILD_DIR
# (default build), on SL_EMUL_ARCHS (default "zen2 skylake skylakex"; for
# 5.4 "skylake skylakex": its direct mode cannot count on AMD Zen),
# artifacts in ARTIFACT_DIR/{c,fortran,python} (default
# BUILD_DIR/likwid-version-check/<version>). Exit 0 every caller passed,
# 1 one failed, 77 cannot run here (one line why).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
say() { printf 'likwid-version-check: %s\n' "$*"; }
skip() { say "SKIP: $*"; exit 77; }
usage="usage: likwid-version-check.sh PREFIX [BUILD_DIR] [ARTIFACT_DIR] [PYLIKWID_SRC]"
prefix=${1:?$usage}
build=$(cd "${2:-build}" && pwd) || exit 1
[ -x "$prefix/bin/likwid-perfctr" ] || skip "$prefix/bin/likwid-perfctr missing: build LIKWID first (scripts/build-likwid-master.sh --direct SRC $prefix TAG)"
prefix=$(cd "$prefix" && pwd)
version=$("$prefix/bin/likwid-perfctr" -v 2>&1 | grep -o 'Version [0-9.]*' | head -n 1 | cut -d' ' -f2)
art=${3:-$build/likwid-version-check/$version}
pysrc=${4:-}
mkdir -p "$art" && art=$(cd "$art" && pwd) || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/likwid-version-check.XXXXXX") || exit 1
trap '[ "${SL_KEEP:-0}" = 1 ] || rm -rf "$T"' EXIT
flags="-O2 -fopenmp -I$prefix/include"
libs="-L$prefix/lib -Wl,-rpath,$prefix/lib -llikwid"
# shellcheck disable=SC2086
cc $flags -DLIKWID_PERFMON -o "$T/solver" "$here/examples/solver.c" $libs >"$T/cc.log" 2>&1 ||
    { cat "$T/cc.log"; say "FAIL: the solver does not build against $prefix"; exit 1; }
fortran=
# shellcheck disable=SC2086
if ! command -v gfortran >/dev/null 2>&1; then
    say "Fortran left out: no gfortran"
elif ! [ -f "$prefix/include/likwid.mod" ]; then
    say "Fortran left out: no $prefix/include/likwid.mod (LIKWID built without FORTRAN_INTERFACE)"
elif gfortran -O2 -fopenmp -I"$prefix/include" -o "$T/solver_f" "$here/examples/solver.f90" $libs >"$T/fc.log" 2>&1; then
    fortran=$T/solver_f
else
    cat "$T/fc.log"
    say "FAIL: the Fortran solver does not build against $prefix"
    exit 1
fi
py=/usr/bin/python3
mkdir "$T/py"
if [ -n "$pysrc" ]; then
    mkdir "$T/pysrc"
    if git -C "$pysrc" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$pysrc" archive HEAD | tar -x -C "$T/pysrc"
    else
        cp -R "$pysrc"/. "$T/pysrc"/
    fi
    (cd "$T/pysrc" && LIKWID_PREFIX=$prefix "$py" setup.py build --build-lib "$T/py") >"$T/py.log" 2>&1 ||
        { tail -n 20 "$T/py.log"; say "FAIL: pylikwid does not build against $prefix"; exit 1; }
    pyprog="env PYTHONPATH=$T/py $py $here/tests/emulated/pylikwid_app.py 2" pyname=pylikwid
else
    ext=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
    # shellcheck disable=SC2086
    cc -O2 -shared -fPIC $("$py"-config --includes) -I"$prefix/include" -o "$T/py/slmarker$ext" \
        "$here/tests/rtldlocal/slmarker.c" $libs >"$T/py.log" 2>&1 ||
        { cat "$T/py.log"; say "FAIL: slmarker does not build against $prefix (python3-dev)"; exit 1; }
    pyprog="env PYTHONPATH=$T/py $py $here/tests/rtldlocal/app.py 2" pyname=slmarker
fi
archs=${SL_EMUL_ARCHS:-zen2 skylake skylakex}
case $version in
5.4.*)
    # LIKWID 5.4's direct mode initialises PCI uncore access for every CPU
    # it marks as having uncore counters, Zen included, and that fails on
    # AMD: perfmon_init says "Cannot get access to performance counters"
    # (on real Zen nodes too; 5.5.0 leaves PCI alone on AMD)
    if [ -z "${SL_EMUL_ARCHS:-}" ]; then
        archs="skylake skylakex"
        say "zen2 left out: LIKWID $version in direct mode cannot count on AMD Zen (it sets up PCI uncore access, which fails on AMD CPUs; fixed in 5.5.0)"
    fi ;;
esac
failed=0 ran=
for kind in c fortran python; do
    case $kind in
    c) prog=$T/solver ;;
    fortran) prog=$fortran ;;
    python) prog=$pyprog ;;
    esac
    [ -n "$prog" ] || continue
    SL_EMUL_LIKWID=$prefix SL_EMUL_APP=$kind SL_EMUL_PROGRAM=$prog \
        SL_EMUL_ARCHS=$archs \
        sh "$here/scripts/emulated-node-check.sh" "$build" "$art/$kind" >"$art/$kind.log" 2>&1
    rc=$?
    [ "$kind" = python ] && kind="python ($pyname)"
    case $rc in
    0) ran="$ran${ran:+, }$kind" ;;
    77) say "$kind: $(tail -n 1 "$art/${kind%% *}.log")" ;;
    *) failed=1 ;;
    esac
    grep -E '^  |emulated-node-check: (PASS|FAIL|SKIP)' "$art/${kind%% *}.log" | sed "s/^/$kind: /"
done
[ "$failed" = 0 ] || { say "FAIL: LIKWID $version at $prefix (logs in $art)"; exit 1; }
[ -n "$ran" ] || skip "nothing ran (see above)"
say "PASS: LIKWID $version at $prefix, $ran: every printed event and metric in the result files"
