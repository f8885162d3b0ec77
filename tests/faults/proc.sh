#!/bin/sh
# The application changes its process between Init and its end (proc_app.c
# says what each mode does): proc.sh CASE. Same behaviour as without the
# shim, and the timing of every process that timed regions saved once.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_PROC_APP SL_CHECKER SL_CLI
pick_python

case ${1:-} in
chdir)
    # LD_PRELOAD names the shim by a relative path (through a symlink), and
    # the application changes its directory after Init: the helpers are
    # still found next to the shim (its path was resolved at load).
    unset SCOPE_LIKWID_WRITER SCOPE_LIKWID_COLLECTOR
    mkdir -p "$T/a.shim"
    ln -s "$(dirname "$SL_SHIM")" "$T/a.shim/lib"
    run a.base "$SL_PROC_APP" chdir
    run a.shim env LD_PRELOAD=lib/$(basename "$SL_SHIM") "$SL_PROC_APP" chdir
    same_behaviour a.base a.shim
    f=$(result_file a.shim) || fail "no single result file in the directory of Init"
    [ -n "$f" ] && check "$f" --timing "work=1x3" --timing "after-chdir=1x2" --no-likwid \
        --status "not counting"
    [ "$(shim_lines a.shim)" = "scope-likwid: wrote $f" ] ||
        fail "a.shim: expected the one line 'scope-likwid: wrote $f', got: $(shim_lines a.shim)" ;;
*)
    echo "proc.sh: unknown case '${1:-}'" >&2
    exit 2 ;;
esac
[ "$FAILED" = 0 ] || show_run a.shim
finish
