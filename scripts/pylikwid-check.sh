#!/bin/sh
# Real-client check of the shim with pylikwid (not part of CI: it needs a
# pylikwid source checkout, and counters need a node where likwid-perfctr
# can count).
#   sh scripts/pylikwid-check.sh PYLIKWID_SRC [BUILD_DIR] [-- PERFCTR_OPTIONS...]
# PYLIKWID_SRC: a pylikwid checkout (copied, never written to). Tag v0.4.3
#   (its setup.py says 0.4.2) is the newest that builds against Debian's
#   LIKWID 5.2.2; later commits ask liblikwid for likwid_getMajorVersion,
#   which LIKWID 5.2 lacks.
# BUILD_DIR: this project's meson build directory (default: build).
# PERFCTR_OPTIONS: for `scope-likwid run` (default: -C 0 -g FLOPS_DP).
# Builds pylikwid with Debian's python3 into a temporary directory, then
# runs pylikwid's own marker example (tests/testmarker.py or testmarker.py;
# a pytest-style one through pytest) twice: under likwid-perfctr -m when it
# can count, else directly; and through `scope-likwid run`. Passes (exit 0)
# when both runs end the same way (exit status, stdout), no run crashed, and
# the second left a result file, which it shows.
# When LIKWID cannot count, pylikwid's markergetregion fails by itself (it
# allocates a negative size: "SystemError: ... returned NULL"), with and
# without the shim: not ours to fix; the check then compares that failure.
set -u
[ $# -ge 1 ] || { sed -n 3,4p "$0" >&2; exit 2; }
src=$1
shift
build=build
if [ $# -gt 0 ] && [ "$1" != -- ]; then build=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = -- ] && shift
[ $# -gt 0 ] || set -- -C 0 -g FLOPS_DP
PY=/usr/bin/python3
cli=$build/tools/scope-likwid
say() { printf 'pylikwid-check: %s\n' "$*"; }
die() { say "$*" >&2; exit 1; }
[ -d "$src" ] || die "$src: not a directory: expected a pylikwid checkout"
[ -x "$cli" ] || die "$cli missing: build first (meson setup $build && ninja -C $build)"
cli=$(realpath "$cli")
example=
for e in tests/testmarker.py testmarker.py; do
    [ -f "$src/$e" ] && { example=$e; break; }
done
[ -n "$example" ] || die "$src: no tests/testmarker.py or testmarker.py: expected pylikwid's marker example"

T=$(mktemp -d "${TMPDIR:-/tmp}/pylikwid-check.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cp -R "$src" "$T/src"

# pylikwid's setup.py looks for PREFIX/lib*/liblikwid.so*: Debian keeps the
# library in a multiarch directory, so point it at a prefix that has it.
if [ -z "${LIKWID_PREFIX:-}" ]; then
    lib=$(gcc -print-file-name=liblikwid.so 2>/dev/null)
    [ -f "$lib" ] || die "liblikwid.so not found: install Debian package likwid (or set LIKWID_PREFIX)"
    mkdir -p "$T/prefix"
    ln -s "$(dirname "$(readlink -f "$lib")")" "$T/prefix/lib"
    ln -s /usr/include "$T/prefix/include"
    LIKWID_PREFIX=$T/prefix
fi
say "building pylikwid from $src"
(cd "$T/src" && LIKWID_PREFIX=$LIKWID_PREFIX "$PY" -m pip install --no-deps \
    --no-build-isolation --no-index --target "$T/site" . >"$T/build.log" 2>&1) ||
    { tail -20 "$T/build.log" >&2; die "building pylikwid failed (log above)"; }

cmd="$PY $T/src/$example"
if grep -q '^import pytest' "$T/src/$example"; then
    "$PY" -c 'import pytest' 2>/dev/null || die "$example needs pytest (Debian package python3-pytest)"
    cmd="$PY -m pytest -q -p no:cacheprovider $T/src/$example"
fi

# The run without the shim: under likwid-perfctr -m when it can count here.
mkdir -p "$T/base" "$T/shim"
if command -v likwid-perfctr >/dev/null && likwid-perfctr "$@" true >/dev/null 2>&1; then
    say "likwid-perfctr counts here: comparing with likwid-perfctr $* -m"
    (cd "$T/base" && PYTHONPATH=$T/site likwid-perfctr "$@" -m $cmd) >"$T/base.out" 2>"$T/base.err"
else
    say "likwid-perfctr cannot count here: comparing with a direct run (pylikwid's getregion fails then)"
    (cd "$T/base" && PYTHONPATH=$T/site $cmd) >"$T/base.out" 2>"$T/base.err"
fi
base_rc=$?
(cd "$T/shim" && PYTHONPATH=$T/site "$cli" run "$@" -- $cmd) >"$T/shim.out" 2>"$T/shim.err"
shim_rc=$?
rc=0
say "exit status without the shim $base_rc, through scope-likwid run $shim_rc"
[ "$shim_rc" = "$base_rc" ] || { say "FAIL: exit status differs"; rc=1; }
[ "$shim_rc" -lt 128 ] || { say "FAIL: killed by signal $((shim_rc - 128)) under the shim"; rc=1; }
# likwid-perfctr's own report differs from run to run: compare pylikwid's lines only
grep -v '^[|+-]\|^CPU name\|^CPU type\|^CPU clock\|^Region\|^Group' "$T/base.out" >"$T/base.cmp"
grep -v '^[|+-]\|^CPU name\|^CPU type\|^CPU clock\|^Region\|^Group' "$T/shim.out" >"$T/shim.cmp"
if ! cmp -s "$T/base.cmp" "$T/shim.cmp"; then
    say "stdout differs (counter values vary between runs; look whether the lines match):"
    diff "$T/base.cmp" "$T/shim.cmp" | head -20
fi
set -- "$T"/shim/scope-likwid-*.h5
if [ -f "$1" ]; then
    "$cli" show "$1"
else
    say "FAIL: no result file from scope-likwid run"
    rc=1
fi
if [ "$rc" != 0 ]; then
    say "--- stderr without the shim:"; cat "$T/base.err"
    say "--- stderr through scope-likwid run:"; cat "$T/shim.err"
fi
[ "$rc" = 0 ] && say "ok"
exit "$rc"
