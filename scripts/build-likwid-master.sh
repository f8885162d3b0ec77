#!/bin/sh
# Builds LIKWID from source into PREFIX, so a developer can try the shim and
# the collector against a LIKWID other than the distribution's:
#   sh scripts/build-likwid-master.sh [--direct] SRC PREFIX [TAG]
# SRC is an unpacked LIKWID source tree, or a git repository of
# github.com/RRZE-HPC/likwid (a clone or a bare mirror) from which TAG
# (v5.3.0, v5.4.1, v5.5.1, ...; default HEAD) is taken; CI has no network,
# a developer fetches it. The default mode is perf_event, which needs no
# access daemon and no setuid install; --direct builds ACCESSMODE=direct,
# where LIKWID reads /dev/cpu/N/msr itself (as root), the mode the emulated
# PMU serves (scripts/likwid-version-check.sh). Only PREFIX is written; the
# sources are built in PREFIX/build.
set -eu
mode=perf_event
[ "${1:-}" = --direct ] && { mode=direct; shift; }
usage="usage: build-likwid-master.sh [--direct] SRC PREFIX [TAG]"
src=${1:?$usage}
prefix=${2:?$usage}
tag=${3:-}
say() { printf 'build-likwid-master.sh: %s\n' "$*" >&2; }
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
work="$prefix/build"
rm -rf "$work"
mkdir -p "$work"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$src" archive --format=tar "${tag:-HEAD}" | tar -x -C "$work" || {
        say "$src: cannot export ${tag:-HEAD}: expected a tag of the repository (git -C $src tag)"
        exit 1
    }
elif [ -n "$tag" ]; then
    say "$src: not a git repository: TAG needs one (or give an unpacked tree without TAG)"
    exit 1
else
    cp -R "$src"/. "$work"/
fi
[ -f "$work/config.mk" ] && [ -f "$work/src/libperfctr.c" ] || {
    say "$src${tag:+ at $tag}: not a LIKWID source tree (no config.mk or src/libperfctr.c)"
    exit 1
}
jobs=$(nproc 2>/dev/null || echo 1)
# The variables on make's command line win over config.mk's. Neither mode
# builds likwid-accessD or likwid-setFreq (both want a setuid root install).
# The marker API's Fortran entry points (likwid_markerinit_ & co.) are in
# liblikwid only with FORTRAN_INTERFACE=true, which wants ifort by default:
# gfortran when there is one (PREFIX/include/likwid.mod), else none.
fortran="FORTRAN_INTERFACE=false"
command -v gfortran >/dev/null 2>&1 && fortran="FORTRAN_INTERFACE=true FC=gfortran"
# shellcheck disable=SC2086
set -- PREFIX="$prefix" INSTALLED_PREFIX="$prefix" ACCESSMODE="$mode" \
    BUILDDAEMON=false BUILDFREQ=false $fortran FCFLAGS="-J ./ -fsyntax-only" \
    NVIDIA_INTERFACE=false ROCM_INTERFACE=false BUILD_CONTAINER_HELPER=false
(cd "$work" && make -j"${SL_JOBS:-$jobs}" "$@" && make install "$@")
lib=$(ls "$prefix"/lib/liblikwid.so.*.* 2>/dev/null | head -1)
[ -n "$lib" ] || { say "no liblikwid.so.* under $prefix/lib after make install"; exit 1; }
say "installed $(basename "$lib") and likwid-perfctr (ACCESSMODE=$mode, ${fortran%% *}) under $prefix"
