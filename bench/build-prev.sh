#!/bin/sh
# Builds another tree of this repository (default: the commit before the
# reading and writing settings of docs/PERFORMANCE.md, 2f0c3b8) outside the
# repository's tracked files, for bench/bench_floors.sh's PREV=.
# usage: bench/build-prev.sh [REV] [DIR]   (DIR default: /tmp/scope-likwid-prev)
# Prints the build directory (DIR/build). The source is `git archive` of
# REV in DIR/src: no worktree is registered and nothing in this checkout
# changes.
set -eu
REV=${1:-2f0c3b8}
DIR=${2:-/tmp/scope-likwid-prev}
HERE=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$DIR/build/tools/scope-likwid" ]; then
    rm -rf "$DIR/src"
    mkdir -p "$DIR/src"
    git -C "$HERE" archive "$REV" | tar -x -C "$DIR/src"
    (cd "$DIR/src" && meson setup "$DIR/build" >/dev/null && ninja -C "$DIR/build" tools/scope-likwid >/dev/null)
fi
echo "$DIR/build"
