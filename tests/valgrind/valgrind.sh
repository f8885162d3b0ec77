#!/bin/sh
# Valgrind memcheck on the core tools: no invalid access, no use of
# uninitialised values, no definite or possible leak.
#   valgrind.sh convert INPUT [OPT...]  scope-likwid convert INPUT -o out.h5 OPT...
#   valgrind.sh show INPUT [OPT]   convert (plain), then show out.h5 [--csv|--json] under memcheck
#   valgrind.sh write RESCUE       scope-likwid-write RESCUE out.h5
#   valgrind.sh app STATUS         the solver (exit status STATUS) under memcheck,
#   valgrind.sh app-buffered 0     the same for vg_app (prints before and after Close),
#                                  without and with the shim preloaded: the same
#                                  stdout and exit status, the result read by h5py
# meson passes SL_VALGRIND (empty: not installed), SL_SANITIZE (b_sanitize),
# SL_CLI, SL_WRITE (app: SL_SHIM, SL_SOLVER, SL_VG_APP, SL_PYTHON). Exit 0 clean, 1 memcheck error or tool failure, 77 SKIP.
set -u
kind=${1:?usage: valgrind.sh convert|show|write INPUT}
input=${2:?usage: valgrind.sh convert|show|write INPUT}
[ -n "${SL_VALGRIND:-}" ] || { echo "valgrind not installed (Debian package valgrind): SKIP"; exit 77; }
# Valgrind cannot run programs built with ASan or TSan (own allocator, shadow memory).
[ "${SL_SANITIZE:-none}" = none ] || { echo "built with b_sanitize=$SL_SANITIZE: valgrind cannot run it: SKIP"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sl-valgrind.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

vg() {
    "$SL_VALGRIND" -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,possible \
        --track-origins=yes "$@"
    rc=$?
    if [ "$rc" = 99 ]; then
        echo "FAIL: memcheck found errors in: $*"
        exit 1
    elif [ "$rc" != 0 ]; then
        echo "FAIL: exit status $rc (expected 0) of: $*"
        exit 1
    fi
}

case $kind in
convert) shift 2; vg "$SL_CLI" convert "$input" -o out.h5 "$@" ;;
show)
    "$SL_CLI" convert "$input" -o out.h5 >/dev/null || { echo "FAIL: convert $input"; exit 1; }
    vg "$SL_CLI" show out.h5 ${3:-} >show.txt ;;
write)
    # On a copy: the writer removes its rescue file once the result is named.
    cp "$input" rescue.wire || { echo "FAIL: cannot copy $input"; exit 1; }
    vg "$SL_WRITE" rescue.wire out.h5 >/dev/null
    [ -e rescue.wire ] && { echo "FAIL: the writer left its rescue file"; exit 1; }
    [ -e "$input" ] || { echo "FAIL: $input is gone"; exit 1; } ;;
app|app-buffered)
    # No leak check: the OpenMP runtime keeps its threads' memory at exit.
    run_app() {
        if [ "$kind" = app ]; then
            OMP_NUM_THREADS=2 "$SL_VALGRIND" -q --error-exitcode=99 "$SL_SOLVER" --exit-status "$input"
        else
            "$SL_VALGRIND" -q --error-exitcode=99 "$SL_VG_APP"
        fi
    }
    run_app >plain.out 2>plain.err
    plain=$?
    SCOPE_LIKWID_OUTPUT="$T/out.h5" LD_PRELOAD="$SL_SHIM" run_app >shim.out 2>shim.err
    shim=$?
    [ "$plain" = "$input" ] || { echo "FAIL: without the shim exit $plain (expected $input)"; cat plain.err; exit 1; }
    [ "$shim" = "$plain" ] || { echo "FAIL: with the shim exit $shim, without $plain"; cat shim.err; exit 1; }
    cmp -s plain.out shim.out || { echo "FAIL: stdout differs with the shim"; exit 1; }
    [ -s out.h5 ] || { echo "FAIL: no result file"; cat shim.err; exit 1; }
    "$SL_PYTHON" -c '
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    calls = {r.attrs["tag"]: int(r["call_counts"][:].sum()) for r in f["rank0/timing/regions"].values()}
want = {"init": 1, "solve-step": 40, "io phase": 1} if sys.argv[2] == "app" else {"work": 2}
sys.exit(0 if calls == want else "calls %r, expected %r" % (calls, want))' out.h5 "$kind" || { echo "FAIL: result file"; exit 1; }
    [ "$kind" = app ] || [ "$(grep -c 'before close' shim.out)" = 1 ] ||
        { echo "FAIL: the line printed before Close came out $(grep -c 'before close' shim.out) times"; exit 1; }
    input=$(basename "${SL_VG_APP:-app}") ;;
*) echo "valgrind.sh: KIND '$kind': expected convert, show, write, app or app-buffered" >&2; exit 2 ;;
esac
[ -s out.h5 ] || { echo "FAIL: no out.h5"; exit 1; }
echo "memcheck clean: $kind $(basename "$input")"
