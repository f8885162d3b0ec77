#!/bin/sh
# Builds LIKWID from a source tree (LIKWID's master: 5.5, soname
# liblikwid.so.5.5) into PREFIX in perf_event mode, the mode that needs no
# access daemon and no setuid install, so a developer can try the shim and the
# collector against a LIKWID newer than the distribution's. Usage:
#   sh scripts/build-likwid-master.sh SRC_DIR PREFIX
# SRC_DIR is an unpacked LIKWID source tree (CI has no network: a developer
# gets it through a clone or an archive of github.com/RRZE-HPC/likwid).
# Only PREFIX is written; the source tree is built in a copy under PREFIX/build.
# Then run scripts/likwid-master-check.sh BUILD_DIR PREFIX.
set -eu
src=${1:?usage: build-likwid-master.sh SRC_DIR PREFIX}
prefix=${2:?usage: build-likwid-master.sh SRC_DIR PREFIX}
[ -f "$src/config.mk" ] && [ -f "$src/src/libperfctr.c" ] || {
    echo "build-likwid-master.sh: $src: not a LIKWID source tree (no config.mk or src/libperfctr.c)" >&2
    exit 1
}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
work="$prefix/build"
rm -rf "$work"
mkdir -p "$work"
cp -R "$src"/. "$work"/
jobs=$(nproc 2>/dev/null || echo 1)
# The variables on make's command line win over config.mk's. perf_event mode
# builds neither likwid-accessD nor likwid-setFreq (both want a setuid root
# install); the Fortran module wants ifort by default and the marker API's
# Fortran entry points are in liblikwid either way.
set -- PREFIX="$prefix" INSTALLED_PREFIX="$prefix" ACCESSMODE=perf_event \
    BUILDDAEMON=false BUILDFREQ=false FORTRAN_INTERFACE=false \
    NVIDIA_INTERFACE=false ROCM_INTERFACE=false BUILD_CONTAINER_HELPER=false
(cd "$work" && make -j"$jobs" "$@" && make install "$@")
lib=$(ls "$prefix"/lib/liblikwid.so.*.* 2>/dev/null | head -1)
[ -n "$lib" ] || { echo "build-likwid-master.sh: no liblikwid.so.* under $prefix/lib after make install" >&2; exit 1; }
echo "build-likwid-master.sh: installed $(basename "$lib") and likwid-perfctr under $prefix"
